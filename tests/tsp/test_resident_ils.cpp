// The TSP on the many-chain engine (CPU twin): the chain policy's moves against full
// re-evaluation, exact objective tracking, determinism, exchanges, acceptance and check_moves.

#include <doctest/doctest.h>

#include <array>
#include <numeric>
#include <random>
#include <set>

#include <algorithm>

#include "chain_policy_harness.hpp"
#include "locus/gpu/chain_engine.hpp"
#include "locus/tsp/chain_runner.hpp"
#include "locus/tsp/combine.hpp"
#include "locus/tsp/generator.hpp"
#include "locus/tsp/heuristics.hpp"
#include "locus/tsp/tour_engine.hpp"
#include "locus/tsp/tour_io.hpp"
#include "tsp_test_instances.hpp"

using namespace locus;
using namespace locus::tsp;

namespace {

struct Outcome {
    std::vector<std::int64_t> best;
    std::vector<std::vector<std::int32_t>> tours;
    std::uint64_t evaluations;
};

Outcome run_chains(const TspProblem& problem, std::uint32_t chains, int threads, bool share,
                   gpu::AcceptanceKind acceptance = gpu::AcceptanceKind::better_or_equal,
                   std::uint32_t epoch = 10, bool first = false, std::int32_t three_opt = 0) {
    TspChainOptions options;
    options.candidates = 8;
    options.window = 30;
    options.three_opt = three_opt;
    gpu::ChainParams params;
    params.first_improvement = first;
    params.seed = 17;
    params.acceptance.kind = acceptance;
    params.acceptance.threshold = 3000;
    params.acceptance.temperature = 3000.0;
    params.acceptance.log_cooling = -0.01;
    auto runner = make_cpu_chain_runner(problem, options, chains, params, threads);
    SolutionBatch batch(chains, problem.size());
    NearestNeighborTour(problem, -1).construct(batch, 3);
    std::vector<std::int64_t> objectives(chains);
    for (std::uint32_t c = 0; c < chains; ++c)
        objectives[c] = static_cast<std::int64_t>(batch.objective(c));
    runner->start(batch.data(), objectives, {}, 0);
    const auto start = runner->best_objectives();
    for (std::uint32_t c = 0; c < chains; ++c)
        CHECK(start[c] <= objectives[c]);
    for (int e = 0; e < 3; ++e) {
        if (share) {
            const auto values = runner->best_objectives();
            const auto leader = static_cast<std::uint32_t>(
                std::min_element(values.begin(), values.end()) - values.begin());
            runner->continue_from(std::vector<std::uint32_t>(chains, leader));
        }
        runner->epoch(static_cast<std::uint64_t>(e) * epoch, epoch, {});
    }
    Outcome out{runner->best_objectives(), {}, runner->evaluations()};
    for (std::uint32_t c = 0; c < chains; ++c) {
        std::vector<std::int32_t> tour(problem.size());
        runner->best_solution(c, tour);
        out.tours.push_back(tour);
    }
    CHECK_FALSE(runner->check().failed);
    return out;
}

template <class Metric>
TspChainPolicy<Metric, std::int64_t> host_policy(const TspProblem& problem, std::int32_t k) {
    TspChainPolicy<Metric, std::int64_t> policy;
    policy.metric = host_metric<Metric>(problem.instance());
    policy.candidates = problem.candidates(k).data();
    policy.n = static_cast<std::int32_t>(problem.size());
    policy.K = k;
    policy.window = 20;
    return policy;
}

/// The workspace of `chains` chains of `policy` in host memory, bound to the policy's arrays.
template <class Policy> gpu::HostStorage host_workspace(Policy& policy, std::size_t chains = 1) {
    gpu::ArrayList list;
    policy.declare(list, chains);
    gpu::HostStorage storage;
    storage.allocate(list);
    return storage;
}

} // namespace

TEST_CASE("TSP chain policy: every 2-opt and Or-opt move's delta and incremental workspace") {
    for (const Instance& inst :
         {generate_random_uniform(60, 5, 100000), locus::tsp::test::matrix_instance(40, 3),
          locus::tsp::test::real_instance(45, 2)}) {
        CAPTURE(inst.name);
        TspProblem problem(inst);
        SolutionBatch batch(1, problem.size());
        RandomTour(problem).construct(batch, 9);
        const std::vector<std::int32_t> tour(batch[0].begin(), batch[0].end());
        visit_metric(inst.metric, [&](auto tag) {
            using Metric = typename decltype(tag)::type;
            locus::test::HarnessCount count;
            locus::test::check_neighborhood<0>(host_policy<Metric>(problem, 6), tour, count);
            locus::test::check_neighborhood<1>(host_policy<Metric>(problem, 6), tour, count);
            CHECK(count.moves > 500);
            CHECK(count.wrong_delta == 0);
            CHECK(count.wrong_workspace == 0);
        });
    }
}

TEST_CASE("TSP chain policy: every sequential 3-opt move's delta and incremental workspace") {
    for (const Instance& inst :
         {generate_random_uniform(40, 6, 100000), locus::tsp::test::matrix_instance(30, 4),
          locus::tsp::test::real_instance(35, 3)}) {
        CAPTURE(inst.name);
        TspProblem problem(inst);
        SolutionBatch batch(1, problem.size());
        RandomTour(problem).construct(batch, 10);
        const std::vector<std::int32_t> tour(batch[0].begin(), batch[0].end());
        visit_metric(inst.metric, [&](auto tag) {
            using Metric = typename decltype(tag)::type;
            auto policy = host_policy<Metric>(problem, 6);
            policy.K3 = 4;
            policy.candidates3 = problem.candidates(4).data();
            locus::test::HarnessCount count;
            locus::test::check_neighborhood<2>(policy, tour, count);
            CHECK(count.moves > 500);
            CHECK(count.wrong_delta == 0);
            CHECK(count.wrong_workspace == 0);
            // Every pure reconnection occurs among the moves.
            const std::int32_t active_count = policy.elements();
            std::vector<std::int32_t> active(static_cast<std::size_t>(active_count));
            std::iota(active.begin(), active.end(), 0);
            const gpu::HostStorage storage = host_workspace(policy);
            policy.refresh(gpu::SerialTeam{}, 0, tour.data());
            const auto eval =
                policy.template evaluator<2>(0, tour.data(), active.data(), &active_count);
            std::set<std::int32_t> types;
            for (std::uint64_t index = 0; index < eval.grid().size(); ++index) {
                const TourMove m = eval.decode(0, index);
                if (m.valid) types.insert(m.length);
            }
            for (std::int32_t type = 0; type < 4; ++type)
                CHECK(types.count(type) == 1);
        });
    }
}

TEST_CASE("TSP chain policy: the variable-depth move's change is exact, its workspace "
          "consistent, and a chain without gain leaves the tour as it was") {
    for (const Instance& inst :
         {generate_random_uniform(200, 7, 100000), generate_random_uniform(12, 2, 1000),
          locus::tsp::test::matrix_instance(60, 5), locus::tsp::test::real_instance(80, 4)}) {
        CAPTURE(inst.name);
        TspProblem problem(inst);
        SolutionBatch batch(1, problem.size());
        NearestNeighborTour(problem, -1).construct(batch, 1);
        make_cpu_engine(problem, {MoveKind::two_opt, 0}, {})->descend(batch, Pivot::best, 0, {});
        const auto n = static_cast<std::int32_t>(problem.size());
        visit_metric(inst.metric, [&](auto tag) {
            using Metric = typename decltype(tag)::type;
            for (const auto& [breadth2, step] : {std::pair{1, 2}, std::pair{3, 2},
                                                std::pair{1, 3}, std::pair{3, 3}}) {
                CAPTURE(breadth2);
                CAPTURE(step);
                auto policy = host_policy<Metric>(problem, 8);
                policy.depth = 8;
                policy.second_breadth = breadth2;
                policy.step = step;
                const gpu::HostStorage storage = host_workspace(policy, 2);
                std::vector<std::int32_t> tour(batch[0].begin(), batch[0].end());
                policy.refresh(gpu::SerialTeam{}, 0, tour.data());
                int improved = 0;
                std::vector<std::int32_t> out(static_cast<std::size_t>(n));
                for (std::int32_t city = 0; city < n; ++city) {
                    const std::vector<std::int32_t> before = tour;
                    const auto length = static_cast<std::int64_t>(problem.evaluate(before));
                    std::int32_t tried = -1;
                    std::int32_t touched = -1;
                    const std::int64_t change = policy.deepen(gpu::SerialTeam{}, 0, tour.data(),
                                                              &city, 1, tried, out.data(), touched);
                    CHECK(tried == 1);
                    CHECK(change <= 0);
                    REQUIRE_FALSE(check_tour(tour, problem.size()).has_value());
                    CHECK(static_cast<std::int64_t>(problem.evaluate(tour)) == length + change);
                    if (change == 0) {
                        CHECK(tour == before);
                        CHECK(touched == 0);
                        continue;
                    }
                    ++improved;
                    // Each touched city once: at most n, and at most t1, t2 and two per 2-opt
                    // step (four per 3-opt step).
                    CHECK(touched >= 4);
                    CHECK(touched <= 2 + (step == 3 ? 4 : 2) * policy.depth);
                    CHECK(touched <= n);
                    // Every city whose neighbours changed is among the touched ones.
                    const auto neighbours = [&](const std::vector<std::int32_t>& t) {
                        std::vector<std::pair<std::int32_t, std::int32_t>> nb(t.size());
                        for (std::int32_t q = 0; q < n; ++q) {
                            const std::int32_t a = t[static_cast<std::size_t>((q + n - 1) % n)];
                            const std::int32_t b = t[static_cast<std::size_t>((q + 1) % n)];
                            nb[static_cast<std::size_t>(t[static_cast<std::size_t>(q)])] = {
                                std::min(a, b), std::max(a, b)};
                        }
                        return nb;
                    };
                    const auto old_nb = neighbours(before);
                    const auto new_nb = neighbours(tour);
                    const std::set<std::int32_t> listed(out.begin(), out.begin() + touched);
                    CHECK(listed.size() == static_cast<std::size_t>(touched));
                    for (std::int32_t x = 0; x < n; ++x)
                        if (old_nb[static_cast<std::size_t>(x)] !=
                            new_nb[static_cast<std::size_t>(x)])
                            CHECK(listed.count(x) == 1);
                    // The incremental workspace equals a fresh one (chain 1).
                    policy.refresh(gpu::SerialTeam{}, 1, tour.data());
                    CHECK(std::equal(policy.pos_of(0), policy.pos_of(0) + n, policy.pos_of(1)));
                    CHECK(
                        std::equal(policy.dists_of(0), policy.dists_of(0) + n, policy.dists_of(1)));
                }
                // From a 2-opt local optimum the chains of 2-opt steps still find improvements.
                CHECK(improved > 0);
                // Off (depth 0): no search, nothing tried beyond the list.
                policy.depth = 0;
                std::int32_t tried = -1, touched = -1;
                const std::int32_t first = 0;
                CHECK(policy.deepen(gpu::SerialTeam{}, 0, tour.data(), &first, 1, tried, out.data(),
                                    touched) == 0);
                CHECK(touched == 0);
            }
        });
    }
}

TEST_CASE("TSP chain policy: sequential 3-opt steps improve tours that no chain of 2-opt steps "
          "improves") {
    // A tour improved by the variable-depth move of 2-opt steps until no city improves; from
    // it the move with 3-opt steps (which include Or-opt moves) still finds improvements.
    TspProblem problem(generate_random_uniform(400, 21, 100000));
    SolutionBatch batch(1, problem.size());
    NearestNeighborTour(problem, -1).construct(batch, 1);
    const auto n = static_cast<std::int32_t>(problem.size());
    auto policy = host_policy<EucIntMetric>(problem, 8);
    policy.depth = 8;
    const gpu::HostStorage storage = host_workspace(policy);
    std::vector<std::int32_t> tour(batch[0].begin(), batch[0].end());
    std::vector<std::int32_t> out(static_cast<std::size_t>(n));
    policy.refresh(gpu::SerialTeam{}, 0, tour.data());
    const auto sweep = [&](std::int32_t step) {
        policy.step = step;
        int improved = 0;
        for (std::int32_t city = 0; city < n; ++city) {
            std::int32_t tried = -1, touched = -1;
            const auto before = static_cast<std::int64_t>(problem.evaluate(tour));
            const std::int64_t change = policy.deepen(gpu::SerialTeam{}, 0, tour.data(), &city,
                                                      1, tried, out.data(), touched);
            REQUIRE(static_cast<std::int64_t>(problem.evaluate(tour)) == before + change);
            improved += change < 0 ? 1 : 0;
        }
        return improved;
    };
    int rounds = 0;
    while (sweep(2) > 0)
        ++rounds;
    CHECK(rounds > 0);
    CHECK(sweep(2) == 0); // a local optimum of the 2-opt steps
    const int by_three = sweep(3);
    MESSAGE("cities improving by 3-opt steps from the 2-opt steps' local optimum: ", by_three);
    CHECK(by_three > 0);
    REQUIRE_FALSE(check_tour(tour, problem.size()).has_value());
}

TEST_CASE("TSP chain policy: a wider second level improves from every city a narrower one "
          "improves from, and from more") {
    // Breadth b at the second level tries the chains of breadth 1 in the same order, with the
    // other second steps of each first step in between: whenever breadth 1 improves from a
    // city of a tour, breadth 3 does too.
    TspProblem problem(generate_random_uniform(300, 9, 100000));
    SolutionBatch batch(1, problem.size());
    NearestNeighborTour(problem, -1).construct(batch, 1);
    make_cpu_engine(problem, {MoveKind::two_opt, 0}, {})->descend(batch, Pivot::best, 0, {});
    const auto n = static_cast<std::int32_t>(problem.size());
    auto policy = host_policy<EucIntMetric>(problem, 8);
    policy.depth = 6;
    const gpu::HostStorage storage = host_workspace(policy);
    const std::vector<std::int32_t> start(batch[0].begin(), batch[0].end());
    std::vector<std::int32_t> out(static_cast<std::size_t>(n));
    const auto gain = [&](std::int32_t breadth2, std::int32_t city) {
        std::vector<std::int32_t> tour = start;
        policy.second_breadth = breadth2;
        policy.refresh(gpu::SerialTeam{}, 0, tour.data());
        std::int32_t tried = -1, touched = -1;
        const std::int64_t change =
            policy.deepen(gpu::SerialTeam{}, 0, tour.data(), &city, 1, tried, out.data(), touched);
        CHECK(static_cast<std::int64_t>(problem.evaluate(tour)) ==
              static_cast<std::int64_t>(problem.evaluate(start)) + change);
        return change;
    };
    int narrow = 0, wide = 0;
    for (std::int32_t city = 0; city < n; ++city) {
        const bool by_narrow = gain(1, city) < 0;
        const bool by_wide = gain(3, city) < 0;
        CAPTURE(city);
        if (by_narrow) CHECK(by_wide);
        narrow += by_narrow ? 1 : 0;
        wide += by_wide ? 1 : 0;
    }
    MESSAGE("cities improving: breadth 1 ", narrow, ", breadth 3 ", wide);
    CHECK(narrow > 0);
    CHECK(wide > narrow);
}

TEST_CASE("resident ILS chains with the variable-depth move: exact objectives after every move "
          "and results independent of the thread count") {
    TspProblem problem(generate_random_uniform(300, 12, 100000));
    const auto run = [&](int threads, std::int32_t depth) {
        TspChainOptions options;
        options.candidates = 8;
        options.window = 30;
        options.depth = depth;
        gpu::ChainParams params;
        params.seed = 3;
        params.first_improvement = true;
        params.check_moves = true;
        auto runner = make_cpu_chain_runner(problem, options, 6, params, threads);
        SolutionBatch batch(6, problem.size());
        NearestNeighborTour(problem, -1).construct(batch, 5);
        std::vector<std::int64_t> objectives(6);
        for (std::uint32_t c = 0; c < 6; ++c)
            objectives[c] = static_cast<std::int64_t>(batch.objective(c));
        runner->start(batch.data(), objectives, {}, 0);
        runner->epoch(0, 30, {});
        CHECK_FALSE(runner->check().failed);
        std::vector<std::int32_t> tour(problem.size());
        const auto best = runner->best_objectives();
        for (std::uint32_t c = 0; c < 6; ++c) {
            runner->best_solution(c, tour);
            CHECK_FALSE(check_tour(tour, problem.size()).has_value());
            CHECK(best[c] == static_cast<std::int64_t>(problem.evaluate(tour)));
            CHECK(best[c] < objectives[c]);
        }
        return std::make_pair(best, runner->evaluations());
    };
    const auto one = run(1, 6);
    CHECK(one == run(3, 6));
    CHECK(one.first != run(1, 0).first); // the move changes the search
}

TEST_CASE("first-improvement chains with 3-opt: exact objectives, independent of the thread "
          "count, and different from best improvement") {
    TspProblem problem(generate_random_uniform(200, 9, 10000));
    const Outcome a =
        run_chains(problem, 4, 1, true, gpu::AcceptanceKind::better_or_equal, 10, true, 5);
    const Outcome b =
        run_chains(problem, 4, 0, true, gpu::AcceptanceKind::better_or_equal, 10, true, 5);
    const Outcome best =
        run_chains(problem, 4, 0, true, gpu::AcceptanceKind::better_or_equal, 10, false, 5);
    CHECK(a.best == b.best);
    CHECK(a.tours == b.tours);
    CHECK(a.evaluations == b.evaluations);
    CHECK(a.evaluations != best.evaluations);
    for (std::size_t c = 0; c < a.tours.size(); ++c) {
        CHECK_FALSE(check_tour(a.tours[c], problem.size()).has_value());
        CHECK(a.best[c] == static_cast<std::int64_t>(problem.evaluate(a.tours[c])));
    }
}

TEST_CASE("resident ILS chains keep exact objectives and improve their start") {
    TspProblem problem(generate_random_uniform(300, 4, 100000));
    const Outcome a = run_chains(problem, 6, 0, true);
    for (std::size_t c = 0; c < a.tours.size(); ++c) {
        CHECK_FALSE(check_tour(a.tours[c], problem.size()).has_value());
        CHECK(a.best[c] == static_cast<std::int64_t>(problem.evaluate(a.tours[c])));
    }
    CHECK(a.evaluations > 0);
}

TEST_CASE("resident ILS results do not depend on the thread count") {
    TspProblem problem(generate_random_uniform(200, 8, 10000));
    for (bool share : {true, false}) {
        const Outcome a = run_chains(problem, 5, 1, share);
        const Outcome b = run_chains(problem, 5, 0, share);
        CHECK(a.best == b.best);
        CHECK(a.tours == b.tours);
        CHECK(a.evaluations == b.evaluations);
    }
}

TEST_CASE("resident ILS acceptance policies change the search and keep objectives exact") {
    TspProblem problem(generate_random_uniform(200, 8, 10000));
    const Outcome better = run_chains(problem, 4, 0, false, {}, 150);
    for (auto kind : {gpu::AcceptanceKind::threshold, gpu::AcceptanceKind::annealing}) {
        const Outcome other = run_chains(problem, 4, 0, false, kind, 150);
        CHECK(other.tours != better.tours);
        for (std::size_t c = 0; c < other.tours.size(); ++c)
            CHECK(other.best[c] == static_cast<std::int64_t>(problem.evaluate(other.tours[c])));
        CHECK(run_chains(problem, 4, 1, false, kind, 150).tours == other.tours);
    }
}

TEST_CASE("Acceptance: better-or-equal, threshold and annealing decisions") {
    gpu::Acceptance a;
    CHECK(a.accept(10, 10, 1, 0, 0));
    CHECK_FALSE(a.accept(11, 10, 1, 0, 0));
    a.kind = gpu::AcceptanceKind::threshold;
    a.threshold = 5;
    CHECK(a.accept(15, 10, 1, 0, 0));
    CHECK_FALSE(a.accept(16, 10, 1, 0, 0));
    a.kind = gpu::AcceptanceKind::annealing;
    a.temperature = 1e9;
    a.log_cooling = 0.0;
    int accepted = 0;
    for (std::uint64_t it = 0; it < 100; ++it)
        accepted += a.accept(11, 10, 1, 0, it) ? 1 : 0;
    CHECK(accepted > 90); // exp(-1e-9) ~ 1
    a.temperature = 1e-9;
    accepted = 0;
    for (std::uint64_t it = 0; it < 100; ++it)
        accepted += a.accept(11, 10, 1, 0, it) ? 1 : 0;
    CHECK(accepted == 0);
    a.temperature = 1.0;
    a.log_cooling = -1.0; // T = e^-it: cold after a few iterations
    accepted = 0;
    for (std::uint64_t it = 50; it < 150; ++it)
        accepted += a.accept(11, 10, 1, 0, it) ? 1 : 0;
    CHECK(accepted == 0);
}

TEST_CASE("TSP chains recombine by Combine: the first parent takes the second's shorter "
          "interchangeable sub-paths") {
    TspProblem problem(generate_random_uniform(300, 8, 10000));
    const auto n = static_cast<std::int32_t>(problem.size());
    SolutionBatch parents(2, problem.size());
    NearestNeighborTour(problem, -1).construct(parents, 4);
    make_cpu_engine(problem, {MoveKind::two_opt, 0}, {})->descend(parents, Pivot::best, 0, {});
    // The first parent: the 2-opt local optimum with three windows reversed (each a 2-opt move,
    // so no better); the second: the local optimum itself.
    parents.copy_from(0, parents, 1);
    for (const std::size_t w : {10u, 100u, 200u})
        std::reverse(parents[0].begin() + static_cast<std::ptrdiff_t>(w) + 1,
                     parents[0].begin() + static_cast<std::ptrdiff_t>(w) + 7);
    parents.objective(0) = problem.evaluate(parents[0]);
    visit_metric(problem.instance().metric, [&](auto tag) {
        using Metric = typename decltype(tag)::type;
        auto policy = host_policy<Metric>(problem, 8);
        const gpu::HostStorage storage = host_workspace(policy);
        std::vector<std::int32_t> child(problem.size());
        Rng rng(1, 0);
        policy.recombine(0, parents[0].data(), parents[1].data(), child.data(), rng);
        std::vector<std::int32_t> expected(parents[0].begin(), parents[0].end());
        const std::int64_t change = combine_tours(problem.instance(), expected, parents[1], 1000);
        CHECK(child == expected);
        CHECK(change < 0);
        CHECK_FALSE(check_tour(child, problem.size()).has_value());
        CHECK(problem.evaluate(child) == parents.objective(0) + static_cast<Objective>(change));
        CHECK(n == static_cast<std::int32_t>(child.size()));
    });
    // Through the runner: recombined chains go on with exact objectives.
    auto runner = make_cpu_chain_runner(problem, {}, 2, {}, 1);
    std::vector<std::int64_t> objectives{static_cast<std::int64_t>(parents.objective(0)),
                                         static_cast<std::int64_t>(parents.objective(1))};
    runner->start(parents.data(), objectives, {}, 0);
    const std::vector<std::uint32_t> a{0, 1}, b{1, 0};
    runner->recombine(a, b, 0);
    runner->epoch(0, 5, {});
    std::vector<std::int32_t> tour(problem.size());
    const auto best = runner->best_objectives();
    for (std::uint32_t c = 0; c < 2; ++c) {
        runner->best_solution(c, tour);
        CHECK(best[c] == static_cast<std::int64_t>(problem.evaluate(tour)));
    }
}

TEST_CASE("merging exchange: a binary tree of recombinations folds every chain's own "
          "improvement into one tour") {
    TspProblem problem(generate_random_uniform(400, 11, 10000));
    SolutionBatch base(1, problem.size());
    NearestNeighborTour(problem, -1).construct(base, 2);
    make_cpu_engine(problem, {MoveKind::two_opt, 0}, {})->descend(base, Pivot::best, 0, {});
    // Four chains hold the 2-opt local optimum with windows reversed (each no better, as a
    // 2-opt move of a local optimum), every chain lacking a different one of them: each has
    // repaired its own region. The fold must repair all four.
    const std::array<std::size_t, 4> windows{20, 120, 220, 320};
    const std::uint32_t chains = 4;
    SolutionBatch batch(chains, problem.size());
    std::vector<std::int64_t> objectives(chains);
    for (std::uint32_t c = 0; c < chains; ++c) {
        batch.copy_from(c, base, 0);
        for (std::uint32_t w = 0; w < 4; ++w)
            if (w != c)
                std::reverse(batch[c].begin() + static_cast<std::ptrdiff_t>(windows[w]) + 1,
                             batch[c].begin() + static_cast<std::ptrdiff_t>(windows[w]) + 9);
        objectives[c] = static_cast<std::int64_t>(problem.evaluate(batch[c]));
        CHECK(objectives[c] > static_cast<std::int64_t>(base.objective(0)));
    }
    auto runner = make_cpu_chain_runner(problem, {}, chains, {}, 2);
    // Start without descents (more leaders than chains): the bests are the tours above.
    runner->start(batch.data(), objectives, {}, chains + 1);
    CHECK(runner->best_objectives() == objectives);
    const std::vector<std::uint32_t> slots1{0, 2}, others1{1, 3}, slots2{0}, others2{2};
    runner->merge(slots1, others1, 0);
    const auto after1 = runner->best_objectives();
    // Each pair's child has the repairs of both parents: two windows left reversed, not three.
    std::vector<std::int32_t> tour(problem.size());
    for (const std::uint32_t c : {0u, 2u}) {
        runner->best_solution(c, tour);
        CHECK_FALSE(check_tour(tour, problem.size()).has_value());
        CHECK(after1[c] == static_cast<std::int64_t>(problem.evaluate(tour)));
        CHECK(after1[c] < std::min(objectives[c], objectives[c + 1]));
    }
    CHECK(after1[1] == objectives[1]); // the others keep their bests
    CHECK(after1[3] == objectives[3]);
    runner->merge(slots2, others2, 1);
    runner->best_solution(0, tour);
    CHECK(runner->best_objectives()[0] == static_cast<std::int64_t>(base.objective(0)));
    CHECK(static_cast<std::int64_t>(problem.evaluate(tour)) ==
          static_cast<std::int64_t>(base.objective(0)));
    // Chains continue from the fold with exact objectives.
    runner->continue_from(std::vector<std::uint32_t>(chains, 0));
    runner->epoch(0, 5, {});
    const auto best = runner->best_objectives();
    for (std::uint32_t c = 0; c < chains; ++c) {
        runner->best_solution(c, tour);
        CHECK(best[c] == static_cast<std::int64_t>(problem.evaluate(tour)));
        CHECK(best[c] <= static_cast<std::int64_t>(base.objective(0)));
    }
}

TEST_CASE("tour distance: the share of a's edges b lacks, against a brute-force edge count") {
    const std::size_t n = 40;
    std::vector<std::int32_t> a(n);
    std::iota(a.begin(), a.end(), 0);
    CHECK(tour_distance(a, a) == 0.0);
    // The same tour rotated and reversed has every edge.
    std::vector<std::int32_t> b = a;
    std::reverse(b.begin(), b.end());
    std::rotate(b.begin(), b.begin() + 7, b.end());
    CHECK(tour_distance(a, b) == 0.0);
    std::mt19937 random(5);
    for (int trial = 0; trial < 200; ++trial) {
        std::vector<std::int32_t> c(a); // a fresh copy per trial
        if (trial % 2 == 0) { // a 2-opt move: two edges differ
            const auto i = static_cast<std::ptrdiff_t>(1 + trial % 10);
            std::reverse(c.begin() + i, c.begin() + i + 15);
        } else {
            std::shuffle(c.begin(), c.end(), random);
        }
        std::set<std::pair<std::int32_t, std::int32_t>> edges;
        for (std::size_t k = 0; k < n; ++k) {
            const std::int32_t x = c[k], y = c[(k + 1) % n];
            edges.emplace(std::min(x, y), std::max(x, y));
        }
        std::size_t missing = 0;
        for (std::size_t k = 0; k < n; ++k) {
            const std::int32_t x = a[k], y = a[(k + 1) % n];
            missing += edges.count({std::min(x, y), std::max(x, y)}) == 0 ? 1 : 0;
        }
        CAPTURE(trial);
        CHECK(tour_distance(a, c) == static_cast<double>(missing) / static_cast<double>(n));
        CHECK(tour_distance(c, a) == tour_distance(a, c));
        if (trial % 2 == 0) CHECK(missing == 2);
    }
}
