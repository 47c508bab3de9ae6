// The 2h-opt neighborhood (operators/two_h_opt.hpp): every delta against full re-evaluation,
// the move count, and descents on the CPU backend ending in 2-opt local optima.

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>

#include "locus/rng.hpp"
#include "locus/tsp/generator.hpp"
#include "locus/tsp/heuristics.hpp"
#include "locus/tsp/operators.hpp"
#include "locus/tsp/tour_engine.hpp"
#include "locus/tsp/tour_io.hpp"
#include "tsp_test_instances.hpp"

using namespace locus;
using namespace locus::tsp;

namespace {

/// Valid cells of TwoHOptFull over `tour`, after checking each: the decoded move keeps a
/// permutation and changes the tour length by exactly the cell's delta.
template <class Metric>
std::size_t check_every_move(const Instance& inst, const std::vector<std::int32_t>& tour) {
    const auto n = static_cast<std::int32_t>(inst.n);
    std::vector<typename Metric::point_type> P(inst.n + 1);
    std::vector<std::int32_t> D(inst.n);
    TourBatchView<Metric> v;
    v.metric = host_metric<Metric>(inst);
    for (std::int32_t k = 0; k < n; ++k)
        prepare_entry(v.metric, tour.data(), P.data(), D.data(), nullptr, n, k);
    v.tour = tour.data();
    v.P = P.data();
    v.D = D.data();
    v.n = n;
    const TwoHOptFull<Metric> eval{v};
    const std::int64_t before = inst.tour_length(tour);
    std::size_t valid = 0;
    for (std::uint32_t r = 0; r < eval.grid().rows; ++r) {
        const auto row = eval.row(0, r);
        for (std::uint32_t c = 0; c < eval.grid().cols; ++c) {
            const std::int64_t delta = eval(row, c);
            const TourMove m = eval.decode(0, static_cast<std::uint64_t>(r) * eval.grid().cols + c);
            REQUIRE(m.valid == (delta != gpu::invalid_delta<std::int64_t>()));
            if (!m.valid) continue;
            ++valid;
            auto after = tour;
            apply_move(after.data(), n, m);
            REQUIRE_FALSE(check_tour(after, inst.n).has_value());
            REQUIRE(inst.tour_length(after) - before == delta);
        }
    }
    return valid;
}

} // namespace

TEST_CASE("2h-opt: every delta equals the change of the full tour length; 3P - 1 moves") {
    for (std::size_t n : {5u, 6u, 7u, 12u, 31u}) {
        for (const Instance& inst : {generate_random_uniform(n, 11 + n, 1000),
                                     test::real_instance(n, n), test::matrix_instance(n, 3 * n)}) {
            // P pairs of edges (i, j), j >= i + 2: each gives two insertions and a 2-opt move,
            // except the adjacent pair (0, n - 1), which has no 2-opt move.
            const std::size_t pairs = (n - 1) * (n - 2) / 2;
            for (std::uint64_t seed = 0; seed < 3; ++seed) {
                CAPTURE(n);
                const auto tour = test::random_tour(n, seed + n);
                visit_metric(inst.metric, [&](auto tag) {
                    using Metric = typename decltype(tag)::type;
                    CHECK(check_every_move<Metric>(inst, tour) == 3 * pairs - 1);
                });
            }
        }
    }
}

TEST_CASE("2h-opt descents end in 2-opt local optima, the same on every thread count") {
    TspProblem problem(generate_random_uniform(150, 21, 10000));
    const NeighborhoodSpec spec{MoveKind::two_h_opt, 0};
    CHECK(neighborhood_label(spec) == "TSP two_h_opt");
    gpu::EngineSettings one;
    one.threads = 1;
    one.check_moves = true; // every applied move re-evaluated: delta == change
    auto single = make_cpu_engine(problem, spec, one);
    auto all = make_cpu_engine(problem, spec, {});
    auto two_opt = make_cpu_engine(problem, {MoveKind::two_opt, 0}, {});
    CHECK(single->name() == "two_h_opt");
    CHECK(single->size() == 150u * 450u);
    CHECK_FALSE(single->has_independence_rule());
    for (Pivot pivot : {Pivot::best, Pivot::first}) {
        SolutionBatch a(3, 150);
        RandomTour(problem).construct(a, 8);
        SolutionBatch b = a;
        const Objective start = a.objective(0);
        const DescentStats sa = single->descend(a, pivot, 0, {});
        const DescentStats sb = all->descend(b, pivot, 0, {});
        CHECK(sa.steps == sb.steps);
        CHECK(sa.evaluations == sb.evaluations);
        CHECK(a.objective(0) < start);
        std::vector<MoveChoice> choice(3);
        two_opt->explore(a, Pivot::best, choice);
        for (std::size_t s = 0; s < 3; ++s) {
            CHECK(std::equal(a[s].begin(), a[s].end(), b[s].begin()));
            CHECK(a.objective(s) == problem.evaluate(a[s]));
            CHECK((!choice[s].found() || choice[s].delta >= 0)); // no improving 2-opt move left
        }
    }
}
