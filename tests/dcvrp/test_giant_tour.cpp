// The DCVRP giant-tour neighborhoods on the CPU: linear tours and their write-back, 2-opt and
// 3-opt descents from savings and from one route per customer (feasible, improving, checked
// after every move, independent of the thread count, local optima), the fleet limit, and the
// giant-tour double bridge.

#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "locus/dcvrp/constructions.hpp"
#include "locus/dcvrp/dcvrp_problem.hpp"
#include "locus/dcvrp/generator.hpp"
#include "locus/dcvrp/giant_tour.hpp"
#include "locus/dcvrp/giant_tour_search.hpp"
#include "locus/dcvrp/linear_tour.hpp"
#include "locus/dcvrp/perturbation.hpp"
#include "locus/error.hpp"
#include "locus/rng.hpp"

using namespace locus;
using namespace locus::dcvrp;

namespace {

SolutionBatch start(const DcvrpProblem& problem, const Routes& routes) {
    SolutionBatch batch(1, problem.solution_width());
    encode_routes(routes, batch[0]);
    batch.objective(0) = problem.evaluate(batch[0]);
    return batch;
}

std::vector<std::int32_t> row_of(const SolutionBatch& batch, std::size_t s) {
    return {batch[s].begin(), batch[s].end()};
}

} // namespace

TEST_CASE("linear tours: every customer once, the routes kept, empty routes dropped last "
          "first, written back to the same tour") {
    // Customers 1..6, width 12: routes {3, 1}, {}, {2}, {6, 5, 4}, {} read from the first marker.
    const std::vector<std::int32_t> row{2, 0, 6, 5, 4, 0, 0, 0, 3, 1, 0, 0};
    CHECK(row_routes(row.data(), 12) == 3);
    // L = 6 customers + 3 routes + 1 = 10: no empty route left.
    std::vector<std::int32_t> tour(10);
    linearize(row.data(), 12, 10, tour.data());
    CHECK(tour == std::vector<std::int32_t>{0, 6, 5, 4, 0, 3, 1, 0, 2, 0});
    // L = 12: two empty routes kept, the earliest ones.
    tour.assign(12, -1);
    linearize(row.data(), 12, 12, tour.data());
    CHECK(tour == std::vector<std::int32_t>{0, 6, 5, 4, 0, 0, 0, 3, 1, 0, 2, 0});
    // Written back, the row reads as the same tour at the same L.
    std::vector<std::int32_t> back(12, -1), again(12);
    write_row(tour.data(), 12, back.data(), 12);
    CHECK(back == std::vector<std::int32_t>{0, 6, 5, 4, 0, 0, 0, 3, 1, 0, 2, 0});
    linearize(back.data(), 12, 12, again.data());
    CHECK(again == tour);
    // L = 13 = W + 1: the whole row from its first marker, closed.
    tour.assign(13, -1);
    linearize(row.data(), 12, 13, tour.data());
    CHECK(tour == std::vector<std::int32_t>{0, 6, 5, 4, 0, 0, 0, 3, 1, 0, 0, 2, 0});
}

TEST_CASE("DCVRP two_opt and three_opt descents: feasible, improving, checked, "
          "thread-count independent, local optima") {
    const DcvrpProblem problem(generate_random(80, 5, 40, 2600.0));
    for (const GiantMove move : {GiantMove::two_opt, GiantMove::three_opt}) {
        for (const bool from_savings : {true, false}) {
            CAPTURE(static_cast<int>(move));
            CAPTURE(from_savings);
            const Routes routes = from_savings ? savings(problem.instance(), 0)
                                               : one_per_customer(problem.instance());
            std::vector<SolutionBatch> results;
            for (const int threads : {1, 2}) {
                gpu::EngineSettings settings;
                settings.threads = threads;
                settings.check_moves = true;
                auto neighborhood =
                    make_giant_neighborhood(problem, move, {}, settings, Backend::cpu);
                SolutionBatch batch = start(problem, routes);
                const Objective before = batch.objective(0);
                const DescentStats stats = neighborhood->descend(batch, Pivot::best, 0, {});
                CHECK(stats.steps > 0);
                const Verdict verdict = problem.verify(batch[0]);
                REQUIRE(verdict.feasible);
                CHECK(verdict.objective < before);
                CHECK(batch.objective(0) == doctest::Approx(verdict.objective).epsilon(1e-12));
                std::vector<MoveChoice> choice(1);
                neighborhood->explore(batch, Pivot::first, choice);
                CHECK_FALSE(choice[0].found());
                results.push_back(batch);
            }
            CHECK(row_of(results[0], 0) == row_of(results[1], 0));
        }
    }
}

TEST_CASE("DCVRP 3-opt improves 2-opt local optima; both hierarchies choose the same moves") {
    const DcvrpProblem problem(generate_random(70, 9, 50));
    SolutionBatch batch = start(problem, savings(problem.instance(), 0));
    auto two_opt = make_giant_neighborhood(problem, GiantMove::two_opt, {}, {}, Backend::cpu);
    two_opt->descend(batch, Pivot::best, 0, {});
    const Objective two_opt_optimum = batch.objective(0);
    std::vector<SolutionBatch> results;
    for (const HierarchyChoice h : {HierarchyChoice::zero, HierarchyChoice::one}) {
        GiantTourOptions options;
        options.hierarchy = h;
        auto three_opt =
            make_giant_neighborhood(problem, GiantMove::three_opt, options, {}, Backend::cpu);
        SolutionBatch copy = batch;
        std::vector<MoveChoice> choice(1);
        three_opt->explore(copy, Pivot::best, choice);
        REQUIRE(choice[0].found());
        CHECK(choice[0].delta < 0);
        three_opt->descend(copy, Pivot::first, 0, {});
        CHECK(copy.objective(0) < two_opt_optimum);
        CHECK(problem.verify(copy[0]).feasible);
        results.push_back(copy);
    }
    // Different join orders may differ in the last bits, not in the moves of this instance.
    CHECK(row_of(results[0], 0) == row_of(results[1], 0));
}

TEST_CASE("DCVRP giant-tour moves respect a fleet limit") {
    // Savings with K = minimal routes + 1; descents may not go beyond K routes.
    const Instance instance = generate_random(50, 3, 60);
    const auto minimal =
        static_cast<std::int32_t>((instance.total_demand() + instance.capacity - 1) /
                                  instance.capacity);
    const DcvrpProblem problem(instance, minimal + 1);
    for (const GiantMove move : {GiantMove::two_opt, GiantMove::three_opt}) {
        SolutionBatch batch = start(problem, savings(problem.instance(), problem.vehicles()));
        REQUIRE(problem.verify(batch[0]).feasible);
        auto neighborhood = make_giant_neighborhood(problem, move, {}, {}, Backend::cpu);
        neighborhood->descend(batch, Pivot::best, 0, {});
        const Verdict verdict = problem.verify(batch[0]);
        CHECK(verdict.feasible);
        CHECK(static_cast<std::int32_t>(split_routes(batch[0]).size()) <= minimal + 1);
    }
}

TEST_CASE("DCVRP double bridge: feasible kicks that change the tour, reproducible by seed") {
    const DcvrpProblem problem(generate_random(60, 4, 40, 2600.0));
    SolutionBatch batch(4, problem.solution_width());
    for (std::size_t s = 0; s < 4; ++s) {
        encode_routes(savings(problem.instance(), 0), batch[s]);
        batch.objective(s) = problem.evaluate(batch[s]);
    }
    auto bridge = make_double_bridge(problem, 3, 30);
    SolutionBatch a = batch, b = batch;
    bridge->perturb(a, 11);
    bridge->perturb(b, 11);
    int changed = 0;
    for (std::size_t s = 0; s < 4; ++s) {
        CHECK(row_of(a, s) == row_of(b, s));
        const Verdict verdict = problem.verify(a[s]);
        REQUIRE(verdict.feasible);
        CHECK(a.objective(s) == verdict.objective);
        changed += row_of(a, s) != row_of(batch, s) ? 1 : 0;
    }
    CHECK(changed == 4);
    CHECK(row_of(a, 0) != row_of(a, 1)); // solutions draw from their own streams
}

TEST_CASE("giant-tour lengths: fixed lengths too short for a solution are refused") {
    const DcvrpProblem problem(generate_random(20, 1));
    GiantTourOptions options;
    options.length = 20; // 19 customers need at least 19 + routes + 1 positions
    auto neighborhood =
        make_giant_neighborhood(problem, GiantMove::two_opt, options, {}, Backend::cpu);
    SolutionBatch batch = start(problem, one_per_customer(problem.instance()));
    std::vector<MoveChoice> choice(1);
    CHECK_THROWS_WITH_AS(neighborhood->explore(batch, Pivot::best, choice),
                         "giant-tour length 20 cannot hold a solution with 19 routes (19 "
                         "customers): it needs at least 39",
                         Error);
}

TEST_CASE("DCVRP candidate filters: only moves with a new edge to a near customer, the same "
          "deltas, local optima of the filtered neighborhoods") {
    const DcvrpProblem problem(generate_random(90, 12, 45, 2600.0));
    const std::int32_t k = 6;
    const std::vector<std::int32_t> near = nearest_customers(problem.instance(), k);
    // Candidates are the k nearest customers, sorted.
    for (std::int32_t u : {0, 5, 89}) {
        double last = -1.0;
        for (std::int32_t c = 0; c < k; ++c) {
            const std::int32_t v = near[static_cast<std::size_t>(u * k + c)];
            CHECK(v != u);
            CHECK(v != 0);
            CHECK(problem.instance().distance(u, v) >= last);
            last = problem.instance().distance(u, v);
        }
    }
    for (const GiantMove move : {GiantMove::two_opt, GiantMove::three_opt}) {
        CAPTURE(static_cast<int>(move));
        GiantTourOptions filtered;
        filtered.candidates = k;
        gpu::EngineSettings settings;
        settings.check_moves = true;
        auto full = make_giant_neighborhood(problem, move, {}, settings, Backend::cpu);
        auto part = make_giant_neighborhood(problem, move, filtered, settings, Backend::cpu);
        CHECK(part->size() < full->size() / 4);
        const auto order = insertion_order(problem.instance(), InsertionOrder::random, 3);
        SolutionBatch batch(1, problem.solution_width());
        encode_routes(cheapest_insertion(problem.instance(), order), batch[0]);
        batch.objective(0) = problem.evaluate(batch[0]);
        // The filtered best move is a move of the full neighborhood with the same delta, and
        // the full best is at least as good.
        std::vector<MoveChoice> a(1), b(1);
        full->explore(batch, Pivot::best, a);
        part->explore(batch, Pivot::best, b);
        REQUIRE(b[0].found());
        CHECK(a[0].delta <= b[0].delta);
        SolutionBatch moved = batch;
        part->apply(moved, b);
        CHECK(moved.objective(0) == doctest::Approx(problem.evaluate(moved[0])).epsilon(1e-12));
        CHECK(problem.verify(moved[0]).feasible);
        SolutionBatch x = batch;
        const DescentStats stats = part->descend(x, Pivot::best, 0, {});
        CHECK(stats.steps > 0);
        CHECK(problem.verify(x[0]).feasible);
        CHECK(x.objective(0) < batch.objective(0));
        std::vector<MoveChoice> none(1);
        part->explore(x, Pivot::first, none);
        CHECK_FALSE(none[0].found());
    }
}

TEST_CASE("DCVRP candidate filter by compaction: the moves of the generated filter, in parts") {
    const DcvrpProblem problem(generate_random(80, 21, 40, 2400.0));
    const std::int32_t k = 5;
    const SolutionBatch batch = [&] {
        SolutionBatch b(3, problem.solution_width());
        for (std::size_t s = 0; s < 3; ++s) {
            const auto order =
                insertion_order(problem.instance(), InsertionOrder::random, 40 + s);
            encode_routes(cheapest_insertion(problem.instance(), order), b[s]);
            b.objective(s) = problem.evaluate(b[s]);
        }
        return b;
    }();
    gpu::EngineSettings settings;
    settings.check_moves = true;
    for (const GiantMove move : {GiantMove::two_opt, GiantMove::three_opt}) {
        CAPTURE(static_cast<int>(move));
        GiantTourOptions generated;
        generated.candidates = k;
        GiantTourOptions compact = generated;
        compact.compact = true;
        compact.part_cells = 1024; // many parts
        GiantTourOptions whole = compact;
        whole.part_cells = std::uint64_t{1} << 40; // one part
        auto gen = make_giant_neighborhood(problem, move, generated, settings, Backend::cpu);
        auto cmp = make_giant_neighborhood(problem, move, compact, settings, Backend::cpu);
        auto one = make_giant_neighborhood(problem, move, whole, settings, Backend::cpu);
        // The same kept moves: the same best delta; a local optimum of one filter is a local
        // optimum of the other.
        std::vector<MoveChoice> a(3), b(3), c(3);
        gen->explore(batch, Pivot::best, a);
        cmp->explore(batch, Pivot::best, b);
        one->explore(batch, Pivot::best, c);
        for (std::size_t s = 0; s < 3; ++s) {
            REQUIRE(a[s].found());
            CHECK(b[s].delta == a[s].delta);
            // Pivot::best does not depend on the part size.
            CHECK(b[s].index == c[s].index);
            CHECK(b[s].delta == c[s].delta);
        }
        SolutionBatch x = batch;
        const DescentStats sx = cmp->descend(x, Pivot::best, 0, {});
        CHECK(sx.steps > 0);
        for (std::size_t s = 0; s < 3; ++s) {
            CHECK(problem.verify(x[s]).feasible);
            CHECK(x.objective(s) < batch.objective(s));
        }
        std::vector<MoveChoice> none(3);
        gen->explore(x, Pivot::first, none);
        for (std::size_t s = 0; s < 3; ++s) {
            CHECK_FALSE(none[s].found());
        }
        // Pivot::first takes the best move of the first part holding an improving one: an
        // improving move, no better than the best of the whole neighborhood.
        std::vector<MoveChoice> first(3);
        cmp->explore(batch, Pivot::first, first);
        for (std::size_t s = 0; s < 3; ++s) {
            REQUIRE(first[s].found());
            CHECK(first[s].delta < 0.0);
            CHECK(first[s].delta >= b[s].delta);
        }
        SolutionBatch y = batch;
        const DescentStats sy = cmp->descend(y, Pivot::first, 0, {});
        CHECK(sy.steps >= sx.steps);
        gen->explore(y, Pivot::first, none);
        for (std::size_t s = 0; s < 3; ++s) {
            CHECK_FALSE(none[s].found());
        }
    }
}
