// TSP neighborhoods on the CPU backend: every move's delta against full re-evaluation, the
// applied tours, descents to local optima, determinism across thread counts, heuristics.

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <set>

#include "locus/params.hpp"
#include "locus/registry.hpp"
#include "locus/rng.hpp"
#include "locus/search_context.hpp"
#include "locus/tsp/candidate_lists.hpp"
#include "tsp_test_instances.hpp"
#include "locus/tsp/operators.hpp"
#include "locus/tsp/generator.hpp"
#include "locus/tsp/heuristics.hpp"
#include "locus/tsp/tour_engine.hpp"
#include "locus/tsp/tour_io.hpp"

using namespace locus;
using namespace locus::tsp;
using locus::tsp::test::matrix_instance;
using locus::tsp::test::random_tour;
using locus::tsp::test::real_instance;

namespace {

/// Checks every cell of the evaluator for solution 0 of `tour`: valid cells decode to valid
/// moves whose application changes the length by exactly the delta and keeps a permutation.
template <class Eval>
void check_all_moves(const TspProblem& problem, const std::vector<std::int32_t>& tour,
                     std::int32_t K, std::size_t& valid_moves) {
    using Metric = decltype(Eval{}.v.metric);
    const Instance& inst = problem.instance();
    const auto n = static_cast<std::int32_t>(inst.n);
    std::vector<typename Metric::point_type> P(static_cast<std::size_t>(n) + 1);
    std::vector<std::int32_t> D(static_cast<std::size_t>(n)), pos(static_cast<std::size_t>(n));
    TourBatchView<Metric> v;
    v.metric = host_metric<Metric>(inst);
    for (std::int32_t k = 0; k < n; ++k)
        prepare_entry(v.metric, tour.data(), P.data(), D.data(), pos.data(), n, k);
    v.tour = tour.data();
    v.P = P.data();
    v.D = D.data();
    v.pos = pos.data();
    v.n = n;
    if (K > 0) {
        v.K = K;
        v.candidates = problem.candidates(K).data();
    }
    const Eval eval{v};
    const auto grid = eval.grid();
    const std::int64_t before = inst.tour_length(tour);
    for (std::uint32_t r = 0; r < grid.rows; ++r) {
        const auto row = eval.row(0, r);
        for (std::uint32_t c = 0; c < grid.cols; ++c) {
            const std::int64_t delta = eval(row, c);
            const std::uint64_t index = static_cast<std::uint64_t>(r) * grid.cols + c;
            const TourMove m = eval.decode(0, index);
            REQUIRE(m.valid == (delta != gpu::invalid_delta<std::int64_t>()));
            if (!m.valid) continue;
            ++valid_moves;
            auto after = tour;
            apply_move(after.data(), n, m);
            REQUIRE_FALSE(check_tour(after, inst.n).has_value());
            REQUIRE(inst.tour_length(after) - before == delta);
        }
    }
}

template <template <class> class Space> void check_space_on_metrics(std::int32_t K) {
    for (std::size_t n : {5u, 6u, 7u, 12u, 31u}) {
        for (const Instance& inst : {generate_random_uniform(n, 11 + n, 1000), real_instance(n, n),
                                     matrix_instance(n, 3 * n)}) {
            TspProblem problem(inst);
            const std::int32_t k = std::min<std::int32_t>(K, static_cast<std::int32_t>(n) - 1);
            for (std::uint64_t seed = 0; seed < 3; ++seed) {
                const auto tour = random_tour(n, seed + n);
                std::size_t valid = 0;
                visit_metric(inst.metric, [&](auto tag) {
                    using Metric = typename decltype(tag)::type;
                    check_all_moves<Space<Metric>>(problem, tour, k, valid);
                });
                CHECK(valid > 0);
            }
        }
    }
}

} // namespace

TEST_CASE("2-opt: every delta equals the change of the full tour length") {
    check_space_on_metrics<TwoOptFull>(0);
}
TEST_CASE("Or-opt: every delta equals the change of the full tour length") {
    check_space_on_metrics<OrOptFull>(0);
}
TEST_CASE("swap: every delta equals the change of the full tour length") {
    check_space_on_metrics<SwapFull>(0);
}
TEST_CASE("candidate 2-opt and Or-opt: deltas equal full re-evaluation") {
    check_space_on_metrics<TwoOptCandidates>(4);
    check_space_on_metrics<OrOptCandidates>(3);
}

TEST_CASE("full 2-opt grid holds each move (i, j) exactly once") {
    for (std::size_t n : {5u, 6u, 9u, 10u, 40u}) {
        TspProblem problem(generate_random_uniform(n, 1, 100));
        const auto tour = random_tour(n, 4);
        std::vector<EucIntMetric::point_type> P(n + 1);
        std::vector<std::int32_t> D(n);
        TourBatchView<EucIntMetric> v;
        v.metric = host_metric<EucIntMetric>(problem.instance());
        v.n = static_cast<std::int32_t>(n);
        v.P = P.data();
        v.D = D.data();
        const TwoOptFull<EucIntMetric> eval{v};
        std::set<std::pair<int, int>> seen;
        for (std::uint64_t index = 0; index < eval.grid().size(); ++index) {
            const TourMove m = eval.decode(0, index);
            if (m.valid) CHECK(seen.insert({m.i, m.j}).second);
        }
        CHECK(seen.size() == n * (n - 3) / 2);
    }
}

TEST_CASE("Or-opt applies: segment lands between t[p] and t[p+1] in the right orientation") {
    const std::int32_t n = 10;
    std::vector<std::int32_t> base(n);
    std::iota(base.begin(), base.end(), 0);
    struct Case {
        std::int32_t i, length, p;
        bool reversed;
        std::vector<std::int32_t> expected;
    };
    const std::vector<Case> cases = {
        {2, 2, 6, false, {0, 1, 4, 5, 6, 2, 3, 7, 8, 9}}, // forward gap
        {2, 2, 6, true, {0, 1, 4, 5, 6, 3, 2, 7, 8, 9}},
        {6, 3, 1, false, {0, 1, 6, 7, 8, 2, 3, 4, 5, 9}}, // backward gap
        {6, 3, 1, true, {0, 1, 8, 7, 6, 2, 3, 4, 5, 9}},
        {9, 2, 4, false, {1, 2, 3, 4, 9, 0, 5, 6, 7, 8}}, // segment wraps around the array end
    };
    for (const auto& c : cases) {
        TourMove m;
        m.kind = MoveKind::or_opt;
        m.valid = true;
        m.i = c.i;
        m.length = c.length;
        m.p = c.p;
        m.reversed = c.reversed;
        auto tour = base;
        apply_move(tour.data(), n, m);
        // Compare as cycles: rotate so that city 0... of expected aligns.
        const auto start = std::find(tour.begin(), tour.end(), c.expected[0]) - tour.begin();
        std::vector<std::int32_t> rotated(n);
        for (std::int32_t k = 0; k < n; ++k)
            rotated[k] = tour[(start + k) % n];
        CHECK(rotated == c.expected);
    }
}

TEST_CASE("CPU descents end in local optima and do not depend on the thread count") {
    TspProblem problem(generate_random_uniform(120, 5, 10000));
    const std::vector<NeighborhoodSpec> specs = {{MoveKind::two_opt, 0},
                                                 {MoveKind::or_opt, 0},
                                                 {MoveKind::swap, 0},
                                                 {MoveKind::two_opt, 8},
                                                 {MoveKind::or_opt, 8}};
    for (const auto& spec : specs) {
        for (Pivot pivot : {Pivot::best, Pivot::first}) {
            SolutionBatch a(3, 120);
            RandomTour(problem).construct(a, 42);
            SolutionBatch b = a;
            gpu::EngineSettings one;
            one.threads = 1;
            one.check_moves = true;
            gpu::EngineSettings all;
            auto engine_one = make_cpu_engine(problem, spec, one);
            auto engine_all = make_cpu_engine(problem, spec, all);
            const Objective start = a.objective(0);
            const DescentStats sa = engine_one->descend(a, pivot, 0, {});
            const DescentStats sb = engine_all->descend(b, pivot, 0, {});
            CHECK(sa.steps == sb.steps);
            CHECK(sa.steps > 0);
            CHECK(a.objective(0) < start);
            for (std::size_t s = 0; s < 3; ++s) {
                CHECK(std::equal(a[s].begin(), a[s].end(), b[s].begin()));
                CHECK(a.objective(s) == problem.evaluate(a[s]));
            }
            std::vector<MoveChoice> choice(3);
            engine_all->explore(a, Pivot::best, choice);
            for (const auto& c : choice)
                CHECK((!c.found() || c.delta >= 0));
        }
    }
}

TEST_CASE("explore + apply moves by the selected delta") {
    TspProblem problem(generate_random_uniform(50, 9, 1000));
    SolutionBatch batch(2, 50);
    RandomTour(problem).construct(batch, 3);
    auto engine = make_cpu_engine(problem, {MoveKind::or_opt, 0}, {});
    std::vector<MoveChoice> choice(2);
    engine->explore(batch, Pivot::first, choice);
    REQUIRE(choice[0].found());
    CHECK(choice[0].delta < 0);
    const Objective before = batch.objective(0);
    engine->apply(batch, choice);
    CHECK(batch.objective(0) == before + choice[0].delta);
    CHECK(batch.objective(0) == problem.evaluate(batch[0]));
}

TEST_CASE("double bridge keeps a permutation and updates the objective exactly") {
    TspProblem problem(generate_random_uniform(200, 2, 100000));
    for (std::int32_t window : {0, 10, 50}) {
        SolutionBatch batch(4, 200);
        NearestNeighborTour(problem, -1).construct(batch, 8);
        SolutionBatch before = batch;
        DoubleBridge(problem, window).perturb(batch, 77);
        for (std::size_t s = 0; s < 4; ++s) {
            CHECK_FALSE(check_tour(batch[s], 200).has_value());
            CHECK(batch.objective(s) == problem.evaluate(batch[s]));
            CHECK_FALSE(std::equal(batch[s].begin(), batch[s].end(), before[s].begin()));
        }
    }
}

TEST_CASE("nearest neighbor on a line visits cities in order") {
    Instance inst;
    inst.name = "line";
    inst.n = 6;
    inst.type = EdgeWeightType::euc_2d;
    inst.x = {0, 10, 3, 1, 6, 20};
    inst.y = {0, 0, 0, 0, 0, 0};
    prepare_metric(inst, "line");
    std::vector<std::int32_t> tour(6);
    nearest_neighbor_tour(inst, 0, tour);
    CHECK(tour == std::vector<std::int32_t>{0, 3, 2, 4, 1, 5});
}

TEST_CASE("nearest-neighbor tours are the same with and without neighbor lists") {
    for (std::size_t n : {10u, 57u, 400u}) {
        TspProblem problem(generate_random_uniform(n, n, 50)); // small range: many equal distances
        const std::int32_t k = std::min<std::int32_t>(5, static_cast<std::int32_t>(n) - 1);
        for (std::int32_t start : {0, 3, static_cast<std::int32_t>(n) - 1}) {
            std::vector<std::int32_t> plain(n), listed(n);
            nearest_neighbor_tour(problem.instance(), start, plain);
            nearest_neighbor_tour(problem.instance(), start, listed, problem.nearest(k).data(), k);
            CHECK(plain == listed);
            CHECK_FALSE(check_tour(plain, n).has_value());
        }
    }
}

TEST_CASE("nearest-neighbor construction (k-d tree when the lists run out) equals the full "
          "scan") {
    for (const std::size_t n : {60u, 900u}) {
        for (const std::int32_t range : {20, 100000}) { // 20: many equal distances and cities
            TspProblem problem(generate_random_uniform(n, n + 1, range));
            SolutionBatch batch(4, n);
            NearestNeighborTour(problem, -1).construct(batch, 11);
            for (std::size_t i = 0; i < batch.count(); ++i) {
                std::vector<std::int32_t> plain(n);
                nearest_neighbor_tour(problem.instance(), batch[i][0], plain);
                CHECK(std::vector<std::int32_t>(batch[i].begin(), batch[i].end()) == plain);
            }
        }
    }
}

TEST_CASE("a nearest-neighbor construction stopped by the limit copies its first tour") {
    TspProblem problem(generate_random_uniform(300, 5));
    SolutionBatch full(6, 300), stopped(6, 300);
    NearestNeighborTour(problem, -1).construct(full, 4);
    NearestNeighborTour(problem, -1).construct_until(stopped, 4, [] { return true; });
    CHECK(std::equal(stopped[0].begin(), stopped[0].end(), full[0].begin()));
    // Threads other than the polling one may have built a tour before the flag went up: each
    // tour is the one the full construction builds, or a copy of tour 0.
    for (std::size_t i = 1; i < 6; ++i) {
        CAPTURE(i);
        const bool built = std::equal(stopped[i].begin(), stopped[i].end(), full[i].begin());
        const bool copied = std::equal(stopped[i].begin(), stopped[i].end(), stopped[0].begin());
        CHECK((built || copied));
        CHECK(stopped.objective(i) == problem.evaluate(stopped[i]));
    }
    CHECK_FALSE(std::equal(full[1].begin(), full[1].end(), full[0].begin()));
}

TEST_CASE("random tours are permutations, reproducible by seed") {
    TspProblem problem(generate_random_uniform(100, 4, 1000));
    SolutionBatch a(3, 100), b(3, 100), c(3, 100);
    RandomTour(problem).construct(a, 5);
    RandomTour(problem).construct(b, 5);
    RandomTour(problem).construct(c, 6);
    CHECK(a.data().size() == b.data().size());
    CHECK(std::equal(a.data().begin(), a.data().end(), b.data().begin()));
    CHECK_FALSE(std::equal(a.data().begin(), a.data().end(), c.data().begin()));
    CHECK_FALSE(std::equal(a[0].begin(), a[0].end(), a[1].begin()));
    for (std::size_t s = 0; s < 3; ++s)
        CHECK_FALSE(check_tour(a[s], 100).has_value());
}

TEST_CASE("candidate lists hold the nearest cities of each quadrant, then the nearest others") {
    TspProblem problem(generate_random_uniform(80, 6, 1000));
    const std::int32_t k = 6;
    const auto& lists = problem.candidates(k);
    const Instance& inst = problem.instance();
    for (std::int32_t a = 0; a < 80; ++a) {
        std::vector<std::pair<std::int32_t, std::int32_t>> quadrant[4], all;
        for (std::int32_t b = 0; b < 80; ++b) {
            if (b == a) continue;
            const double dx = inst.x[b] - inst.x[a], dy = inst.y[b] - inst.y[a];
            const int q = dx >= 0 ? (dy > 0 ? 0 : 1) : (dy < 0 ? 2 : 3);
            quadrant[q].push_back({inst.distance(a, b), b});
            all.push_back({inst.distance(a, b), b});
        }
        std::set<std::int32_t> expected;
        for (auto& q : quadrant) {
            std::sort(q.begin(), q.end());
            if (!q.empty()) expected.insert(q[0].second); // k/4 = 1 per quadrant
        }
        std::sort(all.begin(), all.end());
        for (std::size_t r = 0; expected.size() < static_cast<std::size_t>(k); ++r)
            expected.insert(all[r].second);
        const std::set<std::int32_t> got(lists.begin() + a * k, lists.begin() + (a + 1) * k);
        CHECK(got == expected);
        for (std::int32_t c = 1; c < k; ++c)
            CHECK(inst.distance(a, lists[a * k + c - 1]) <= inst.distance(a, lists[a * k + c]));
    }
    CHECK_THROWS_WITH_AS(problem.candidates(80),
                         "candidates: 80 is out of range for 80 cities (1..79)", ConfigError);
}

TEST_CASE("3-opt: all seven reconnections of every edge triple change the length by their "
          "delta; the random-k space samples sorted triples from the tour's state") {
    for (std::size_t n : {6u, 7u, 12u, 31u}) {
        for (const Instance& inst : {generate_random_uniform(n, 5 + n, 1000), real_instance(n, n),
                                     matrix_instance(n, 2 * n)}) {
            const auto tour = random_tour(n, n);
            const std::int64_t before = inst.tour_length(tour);
            visit_metric(inst.metric, [&](auto tag) {
                using Metric = typename decltype(tag)::type;
                const auto nn = static_cast<std::int32_t>(n);
                std::vector<typename Metric::point_type> P(n + 1);
                std::vector<std::int32_t> D(n);
                TourBatchView<Metric> v;
                v.metric = host_metric<Metric>(inst);
                for (std::int32_t k = 0; k < nn; ++k)
                    prepare_entry(v.metric, tour.data(), P.data(), D.data(), nullptr, nn, k);
                std::set<std::vector<std::int32_t>> distinct;
                for (std::int32_t i = 0; i < nn; ++i)
                    for (std::int32_t j = i + 1; j < nn; ++j)
                        for (std::int32_t p = j + 1; p < nn; ++p)
                            for (std::int32_t type = 0; type < three_opt_reconnections; ++type) {
                                TourMove m;
                                m.kind = MoveKind::three_opt;
                                m.valid = true;
                                m.i = i;
                                m.j = j;
                                m.p = p;
                                m.length = type;
                                auto after = tour;
                                apply_move(after.data(), nn, m);
                                REQUIRE_FALSE(check_tour(after, n).has_value());
                                const auto delta = three_opt_delta<std::int64_t>(
                                    v.metric, P.data(), D.data(), i, j, p, type);
                                REQUIRE(inst.tour_length(after) - before == delta);
                                if (i == 0 && j == 2 && p == 4) distinct.insert(after);
                            }
                // The seven reconnections of segments of 2 cities are seven different tours.
                CHECK(distinct.size() == 7);
                // The random space: sorted distinct positions, exact deltas, a new sample for a
                // new objective.
                Objective objective = static_cast<Objective>(before);
                v.P = P.data();
                v.D = D.data();
                v.tour = tour.data();
                v.n = nn;
                v.objective = &objective;
                const ThreeOptRandom<Metric> eval{v, 50, 9};
                std::vector<std::int32_t> firsts;
                for (std::uint32_t r = 0; r < 50; ++r) {
                    const auto row = eval.row(0, r);
                    firsts.push_back(row.i);
                    for (std::uint32_t c = 0; c < 7; ++c) {
                        const TourMove m = eval.decode(0, r * 7ull + c);
                        REQUIRE(m.valid == (row.i >= 0));
                        if (!m.valid) continue;
                        CHECK((m.i < m.j && m.j < m.p && m.p < nn));
                        auto after = tour;
                        apply_move(after.data(), nn, m);
                        REQUIRE(inst.tour_length(after) - before == eval(row, c));
                    }
                }
                objective += 1;
                std::vector<std::int32_t> again;
                for (std::uint32_t r = 0; r < 50; ++r)
                    again.push_back(eval.row(0, r).i);
                CHECK(again != firsts);
            });
        }
    }
}

TEST_CASE("random-k 3-opt descent: exact objectives, no sampled improving move at the end, "
          "independent of the thread count") {
    TspProblem problem(generate_random_uniform(300, 4, 100000));
    NeighborhoodSpec spec{MoveKind::three_opt, 0, 2000, 3};
    gpu::EngineSettings checked;
    checked.check_moves = true;
    auto engine = make_cpu_engine(problem, spec, checked);
    SolutionBatch batch(4, 300);
    RandomTour(problem).construct(batch, 2);
    const SolutionBatch start = batch;
    const DescentStats stats = engine->descend(batch, Pivot::best, 0, {});
    CHECK(stats.steps > 400);
    std::vector<MoveChoice> best(4);
    engine->explore(batch, Pivot::best, best);
    for (std::size_t s = 0; s < 4; ++s) {
        CHECK(batch.objective(s) == problem.evaluate(batch[s]));
        CHECK(batch.objective(s) < 0.5 * start.objective(s));
        CHECK((!best[s].found() || best[s].delta >= 0));
    }
    gpu::EngineSettings single;
    single.threads = 1;
    SolutionBatch again = start;
    make_cpu_engine(problem, spec, single)->descend(again, Pivot::best, 0, {});
    CHECK(std::ranges::equal(again.data(), batch.data()));
}

TEST_CASE("random-k 3-opt samples derive from the job seed: the same seed draws the same moves, "
          "another seed others; the neighborhood has no seed of its own") {
    Registry registry;
    register_tsp_components(registry);
    const RegistryEntry* entry = registry.find("neighborhood", "three_opt", "tsp");
    REQUIRE(entry != nullptr);
    CHECK(entry->schema.find("seed") == nullptr);
    BuildContext build;
    build.registry = &registry;
    Params instance("problem", "tsp", "problem", {});
    instance.set("instance", std::string("random-uniform:n=200,seed=3"));
    const auto problem = registry.create<Problem>(instance, build);
    build.problem = problem.get();
    Params three_opt("neighborhood", "three_opt", "neighborhood", {});
    three_opt.set("samples", std::int64_t{40});
    SolutionBatch start(2, 200);
    RandomTour(static_cast<const TspProblem&>(*problem)).construct(start, 1);
    const auto descend = [&](std::uint64_t job_seed) {
        build.seed = job_seed;
        auto neighborhood = registry.create<Neighborhood>(three_opt, build);
        SolutionBatch batch = start;
        neighborhood->descend(batch, Pivot::best, 5, {});
        return std::vector<std::int32_t>(batch.data().begin(), batch.data().end());
    };
    const auto first = descend(5);
    CHECK(first != std::vector<std::int32_t>(start.data().begin(), start.data().end()));
    CHECK(descend(5) == first);
    CHECK(descend(6) != first);
}

TEST_CASE("full 2-opt on EUC_2D: the vectorised row scan finds the cell-by-cell best, ties to "
          "the lowest index") {
    for (std::size_t n : {4u, 5u, 6u, 9u, 10u, 37u, 600u, 1301u}) {
        // Coordinates in [0, 30): many equal deltas, so the tie rule is exercised.
        for (const std::int32_t span : {30, 1000000}) {
            TspProblem problem(generate_random_uniform(n, 3 + n, span));
            for (std::uint64_t seed = 0; seed < 4; ++seed) {
                const auto tour = random_tour(n, seed + 7 * n);
                const auto nn = static_cast<std::int32_t>(n);
                std::vector<EucIntMetric::point_type> P(n + 1);
                std::vector<std::int32_t> D(n);
                TourBatchView<EucIntMetric> v;
                v.metric = host_metric<EucIntMetric>(problem.instance());
                for (std::int32_t k = 0; k < nn; ++k)
                    prepare_entry(v.metric, tour.data(), P.data(), D.data(),
                                  static_cast<std::int32_t*>(nullptr), nn, k);
                v.tour = tour.data();
                v.P = P.data();
                v.D = D.data();
                v.n = nn;
                const TwoOptFull<EucIntMetric> eval{v};
                static_assert(gpu::RowScanningEvaluator<TwoOptFull<EucIntMetric>>);
                static_assert(!gpu::RowScanningEvaluator<TwoOptFull<CeilIntMetric>>);
                const auto grid = eval.grid();
                std::int64_t best = gpu::invalid_delta<std::int64_t>();
                std::uint64_t where = kNoMove;
                for (std::uint32_t r = 0; r < grid.rows; ++r) {
                    const auto row = eval.row(0, r);
                    for (std::uint32_t c = 0; c < grid.cols; ++c) {
                        const std::int64_t d = eval(row, c);
                        if (d < best) {
                            best = d;
                            where = static_cast<std::uint64_t>(r) * grid.cols + c;
                        }
                    }
                    // Every sub-range of the row, as the CPU chunks see it.
                    for (const auto& [b, e] :
                         {std::pair<std::uint32_t, std::uint32_t>{0, grid.cols},
                          {1, grid.cols / 2 + 1},
                          {grid.cols / 3, grid.cols}}) {
                        std::int64_t expected = gpu::invalid_delta<std::int64_t>();
                        std::uint64_t col = kNoMove;
                        for (std::uint32_t c = b; c < e; ++c)
                            if (eval(row, c) < expected) {
                                expected = eval(row, c);
                                col = c;
                            }
                        const auto got = eval.best_in_row(row, b, e);
                        CAPTURE(n);
                        CAPTURE(r);
                        CHECK(got.index == col);
                        if (col != kNoMove) CHECK(got.delta == expected);
                    }
                }
                std::vector<gpu::MoveResult<std::int64_t>> out(1);
                gpu::select_moves_cpu(eval, 1, Pivot::best, out.data(), 2);
                CHECK(out[0].index == where);
                CHECK(out[0].delta == best);
            }
        }
    }
}

TEST_CASE("2-opt diagonal scan: every vector unit this CPU runs gives the scalar metric's best") {
    Rng rng(41, 0);
    for (const std::int32_t span : {20, 1 << 23}) {
        const std::int32_t count = 1100;
        std::vector<IntPoint> A(static_cast<std::size_t>(count) + 1);
        std::vector<IntPoint> B(static_cast<std::size_t>(count) + 1);
        std::vector<std::int32_t> DA(static_cast<std::size_t>(count));
        std::vector<std::int32_t> DB(static_cast<std::size_t>(count));
        const auto coordinate = [&] {
            return static_cast<std::int32_t>(rng.below(static_cast<std::uint32_t>(span)));
        };
        for (auto* points : {&A, &B})
            for (auto& p : *points)
                p = {coordinate(), coordinate()};
        for (auto* dists : {&DA, &DB})
            for (auto& d : *dists)
                d = static_cast<std::int32_t>(rng.below(static_cast<std::uint32_t>(span)));
        const EucIntMetric metric{};
        for (const std::int32_t m : {0, 1, 7, 511, 512, 513, 1100}) {
            RowBest expected{0, -1};
            for (std::int32_t c = 0; c < m; ++c) {
                const auto i = static_cast<std::size_t>(c);
                const std::int32_t d =
                    metric(A[i], B[i]) + metric(A[i + 1], B[i + 1]) - DA[i] - DB[i];
                if (expected.offset < 0 || d < expected.delta) expected = {d, c};
            }
            for (const VectorUnit unit :
                 {VectorUnit::widest, VectorUnit::baseline, VectorUnit::avx2, VectorUnit::avx512}) {
                if (!vector_unit_available(unit) && unit != VectorUnit::widest) continue;
                const RowBest got =
                    euc_int_two_opt_diagonal(A.data(), B.data(), DA.data(), DB.data(), m, unit);
                CAPTURE(static_cast<int>(unit));
                CAPTURE(m);
                CHECK(got.offset == expected.offset);
                if (m > 0) CHECK(got.delta == expected.delta);
            }
        }
    }
    MESSAGE("widest vector unit here: ", static_cast<int>(widest_vector_unit()));
}

TEST_CASE("greedy-edge tours: the unit steps of a line and a closing edge; valid, with the "
          "shortest edge, on random and matrix instances") {
    // Cities on a line in shuffled order: greedy takes every unit step, and the tour (the line
    // and back) is optimal, 2 (n - 1).
    Instance line;
    line.name = "line";
    line.n = 9;
    line.type = EdgeWeightType::euc_2d;
    line.x = {4, 0, 8, 2, 6, 1, 7, 3, 5};
    line.y = std::vector<double>(9, 0.0);
    prepare_metric(line, "line");
    TspProblem on_line(line);
    SolutionBatch one(2, 9);
    GreedyEdgeTour(on_line, 4).construct(one, 1);
    CHECK(one.objective(0) == 16);
    CHECK(std::equal(one[0].begin(), one[0].end(), one[1].begin()));
    for (const Instance& inst : {generate_random_uniform(500, 3, 100000),
                                 generate_random_uniform(300, 4, 20), // ties
                                 locus::tsp::test::matrix_instance(80, 2)}) {
        CAPTURE(inst.name);
        TspProblem problem(inst);
        const auto n = static_cast<std::int32_t>(problem.size());
        SolutionBatch batch(1, problem.size());
        GreedyEdgeTour(problem, 8).construct(batch, 5);
        REQUIRE_FALSE(check_tour(batch[0], problem.size()).has_value());
        CHECK(batch.objective(0) == problem.evaluate(batch[0]));
        // The shortest edge of the instance is a tour edge (greedy takes it first).
        std::int32_t a = 0, b = 1;
        for (std::int32_t u = 0; u < n; ++u)
            for (std::int32_t v = u + 1; v < n; ++v)
                if (inst.distance(u, v) < inst.distance(a, b)) {
                    a = u;
                    b = v;
                }
        bool found = false;
        for (std::int32_t q = 0; q < n; ++q) {
            const std::int32_t x = batch[0][static_cast<std::size_t>(q)];
            const std::int32_t y = batch[0][static_cast<std::size_t>((q + 1) % n)];
            found = found || (inst.distance(x, y) == inst.distance(a, b) &&
                              ((x == a && y == b) || (x == b && y == a)));
        }
        CHECK(found);
    }
    // On uniform random cities the greedy tour is shorter than every nearest-neighbor tour from
    // the first ten cities (Johnson & McGeoch: ~16-19 % against ~25 % above the bound).
    TspProblem uniform(generate_random_uniform(2000, 6, 1000000));
    SolutionBatch greedy(1, 2000);
    GreedyEdgeTour(uniform, 10).construct(greedy, 1);
    for (std::int32_t start = 0; start < 10; ++start) {
        std::vector<std::int32_t> nn(2000);
        nearest_neighbor_tour(uniform.instance(), start, nn);
        CHECK(greedy.objective(0) < uniform.evaluate(nn));
    }
}

TEST_CASE("a raised stop flag ends candidate lists and the greedy tour, and completes tour 0") {
    constexpr std::int32_t n = 10000; // more than one stop check (every 4096 cities) per walk
    const auto un = static_cast<std::size_t>(n);
    TspProblem problem(generate_random_uniform(un, 4, 100000));
    // A deadline in the past raises the process-wide stop flag, as a run's limit does.
    const auto past = [] {
        return locus::arm_deadline(std::chrono::steady_clock::now() - std::chrono::seconds(1));
    };
    std::uint64_t token = past();
    REQUIRE(locus::stop_requested());
    CHECK_THROWS_AS(problem.candidates(8), locus::Stopped);
    CHECK_THROWS_AS(problem.nearest(10), locus::Stopped);
    locus::disarm_deadline(token);
    // Lists ended by the flag are not kept: they are built in full once it is down.
    const auto& lists = problem.nearest(10);
    REQUIRE(lists.size() == un * 10);
    CHECK(lists == candidate_lists(problem.instance(), 10, false));
    NearestNeighborTour nn(problem, -1);
    SolutionBatch full(1, un);
    nn.construct(full, 7);

    token = past();
    std::vector<std::int32_t> tour(un);
    CHECK_THROWS_AS(greedy_edge_tour(problem.instance(), lists.data(), 10, tour), locus::Stopped);
    // The nearest-neighbor construction completes solution 0 at its first check (its first
    // 4096 cities walked, the others in ascending order) and copies it to the others.
    SolutionBatch batch(4, un);
    nn.construct(batch, 7);
    locus::disarm_deadline(token);
    CHECK(std::equal(batch[0].begin(), batch[0].begin() + 4096, full[0].begin()));
    CHECK(std::is_sorted(batch[0].begin() + 4096, batch[0].end()));
    CHECK_FALSE(std::equal(batch[0].begin(), batch[0].end(), full[0].begin()));
    for (std::size_t i = 0; i < batch.count(); ++i) {
        std::vector<std::int32_t> sorted(batch[i].begin(), batch[i].end());
        std::sort(sorted.begin(), sorted.end());
        std::vector<std::int32_t> identity(un);
        std::iota(identity.begin(), identity.end(), 0);
        CHECK(sorted == identity);
        CHECK(batch.objective(i) == problem.evaluate(batch[i]));
        CHECK(std::equal(batch[i].begin(), batch[i].end(), batch[0].begin()));
    }
}
