// Constructions: hand-computed results on the line instance, the vehicle limit, and
// verify-feasible batches from the registered components on stored and generated instances;
// the constructions at scale (savings on candidate lists, sweep, space-filling curve).
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "dcvrp_test_instances.hpp"
#include "locus/dcvrp/constructions.hpp"
#include "locus/dcvrp/cvrplib.hpp"
#include "locus/dcvrp/dcvrp_problem.hpp"
#include "locus/dcvrp/generator.hpp"
#include "locus/dcvrp/giant_tour.hpp"
#include "locus/params.hpp"
#include "locus/registry.hpp"
#include "locus/search_context.hpp"
#include "test_support.hpp"

using locus::BuildContext;
using locus::Params;
using locus::Registry;
using locus::SolutionBatch;
using locus::dcvrp::DcvrpProblem;
using locus::dcvrp::InsertionOrder;
using locus::dcvrp::Instance;
using locus::dcvrp::Routes;

namespace {

double cost_of(const Instance& instance, const Routes& routes) {
    return locus::dcvrp::giant_tour_cost(instance, locus::dcvrp::encode_routes(routes, instance.n));
}

/// The problem and constructions as the launcher builds them, through the registry.
class Built {
public:
    Built(const std::string& instance, std::int64_t vehicles = 0) {
        locus::dcvrp::register_dcvrp_components(registry_);
        build_.registry = &registry_;
        Params params("problem", "dcvrp", "problem", {});
        params.set("instance", instance);
        params.set("rounding", std::string("auto"));
        params.set("vehicles", vehicles);
        problem_ = registry_.create<locus::Problem>(params, build_);
        build_.problem = problem_.get();
    }

    const DcvrpProblem& problem() const { return static_cast<const DcvrpProblem&>(*problem_); }

    /// A batch of `count` solutions of construction `name` (default parameters but `order` or
    /// the `start` of sweep and space_filling_curve, and `number`: savings' `candidates` or
    /// their `two_opt`).
    SolutionBatch construct(const std::string& name, std::size_t count,
                            const std::string& order = "random", std::int64_t number = 0,
                            std::uint64_t seed = 12345) {
        Params params("construction", name, "construction", {});
        if (name == "cheapest_insertion") params.set("order", order);
        if (name == "sweep" || name == "space_filling_curve") {
            params.set("start", order);
            params.set("two_opt", number);
        }
        if (name == "savings") {
            params.set("shape", 1.0);
            params.set("candidates", number);
        }
        auto construction = registry_.create<locus::Construction>(params, build_);
        SolutionBatch batch(count, problem_->solution_width());
        construction->construct(batch, seed);
        return batch;
    }

private:
    Registry registry_;
    BuildContext build_;
    std::unique_ptr<locus::Problem> problem_;
};

/// Checks that every solution verifies with the objective the construction set.
void check_feasible(const DcvrpProblem& problem, const SolutionBatch& batch) {
    for (std::size_t i = 0; i < batch.count(); ++i) {
        const locus::Verdict verdict = problem.verify(batch[i]);
        INFO(verdict.message);
        CHECK(verdict.feasible);
        CHECK(verdict.objective == batch.objective(i));
    }
}

} // namespace

TEST_CASE("the constructions on the line instance give the hand-computed routes") {
    const Instance inst = dcvrp_test::line5();
    const Routes single = locus::dcvrp::one_per_customer(inst);
    CHECK(single == Routes{{1}, {2}, {3}, {4}, {5}});
    CHECK(cost_of(inst, single) == 30.0);

    // Index order: 2 joins 1 in front (ties: lowest position); 3 does not fit (load 9); 4
    // joins 3; 5 fits nowhere within DISTANCE (every insertion makes a route of 13).
    const auto order = locus::dcvrp::insertion_order(inst, InsertionOrder::index, 0);
    CHECK(order == std::vector<std::int32_t>{1, 2, 3, 4, 5});
    const Routes inserted = locus::dcvrp::cheapest_insertion(inst, order);
    CHECK(inserted == Routes{{2, 1}, {4, 3}, {5}});
    CHECK(cost_of(inst, inserted) == 22.0);
    CHECK(locus::dcvrp::insertion_order(inst, InsertionOrder::farthest, 0) ==
          std::vector<std::int32_t>{5, 4, 3, 2, 1});

    // Savings 2 min(i, j): (4,5) joins; (3,4) and (3,5) exceed DISTANCE; (2,3) joins; every
    // other pair exceeds CAPACITY. The result is the optimum, 18.
    const Routes saved = locus::dcvrp::savings(inst, 0);
    CHECK(saved == Routes{{1}, {2, 3}, {4, 5}});
    CHECK(cost_of(inst, saved) == 18.0);
    // No two routes can serve the line instance: with K = 2 the three routes remain and verify
    // reports the fleet.
    CHECK(locus::dcvrp::savings(inst, 2).size() == 3);
}

TEST_CASE("savings joins through non-positive savings to meet the vehicle limit") {
    // Customers on both sides of the depot: d(0,1) = d(0,2) = 1, d(1,2) = 2, saving 0.
    const std::string text = "NAME : opposite\nDIMENSION : 3\nCAPACITY : 10\n"
                             "EDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 -1 0\n3 1 0\n"
                             "DEMAND_SECTION\n1 0\n2 1\n3 1\nDEPOT_SECTION\n1\n-1\nEOF\n";
    const Instance inst = locus::dcvrp::parse_cvrplib(text, "opposite.vrp");
    CHECK(locus::dcvrp::savings(inst, 0) == Routes{{1}, {2}});
    CHECK(locus::dcvrp::savings(inst, 1) == Routes{{1, 2}});
    CHECK(cost_of(inst, locus::dcvrp::savings(inst, 1)) == 4.0);
}

TEST_CASE("random insertion orders are permutations drawn per key") {
    const Instance inst = locus::dcvrp::generate_random(40, 2);
    const auto a = locus::dcvrp::insertion_order(inst, InsertionOrder::random, 7);
    const auto b = locus::dcvrp::insertion_order(inst, InsertionOrder::random, 8);
    CHECK(a == locus::dcvrp::insertion_order(inst, InsertionOrder::random, 7));
    CHECK(a != b);
    auto sorted = a;
    std::sort(sorted.begin(), sorted.end());
    CHECK(sorted == locus::dcvrp::insertion_order(inst, InsertionOrder::index, 0));
}

TEST_CASE("every construction gives verify-feasible batches on stored and generated instances") {
    std::vector<std::string> instances = {"random-cvrp:n=150,seed=3,capacity=100,distance=1800",
                                          "random-cvrp:n=60,seed=9,capacity=25,distance=1500"};
    for (const char* name :
         {"cvrplib/CMT1.vrp", "cvrplib/CMT6.vrp", "cvrplib/CMT13.vrp", "cvrplib/X-n101-k25.vrp"}) {
        instances.push_back(locus::test::data_file(name).string());
    }
    for (const std::string& spec : instances) {
        INFO(spec);
        Built built(spec);
        for (const char* construction : {"one_per_customer", "cheapest_insertion", "savings",
                                         "sweep", "space_filling_curve"}) {
            INFO(std::string(construction));
            const SolutionBatch batch = built.construct(construction, 3);
            check_feasible(built.problem(), batch);
            const std::string name = construction;
            const bool seeded =
                name == "cheapest_insertion" || name == "sweep" || name == "space_filling_curve";
            CHECK(std::equal(batch[0].begin(), batch[0].end(), batch[1].begin()) == !seeded);
        }
        for (const char* order : {"index", "farthest"}) {
            const SolutionBatch batch = built.construct("cheapest_insertion", 2, order);
            check_feasible(built.problem(), batch);
            CHECK(std::equal(batch[0].begin(), batch[0].end(), batch[1].begin()));
        }
        for (const char* construction : {"sweep", "space_filling_curve"}) {
            INFO(std::string(construction));
            const SolutionBatch batch = built.construct(construction, 2, "zero");
            check_feasible(built.problem(), batch);
            CHECK(std::equal(batch[0].begin(), batch[0].end(), batch[1].begin()));
        }
        check_feasible(built.problem(), built.construct("savings", 1, "", 7));
    }
}

TEST_CASE("the duration limit binds on the generated instance and the constructions keep it") {
    const Instance limited =
        locus::dcvrp::generate_from_spec("random-cvrp:n=150,seed=3,capacity=100,distance=1800");
    const Instance free = locus::dcvrp::generate_from_spec("random-cvrp:n=150,seed=3,capacity=100");
    CHECK(limited.x == free.x);
    CHECK(limited.y == free.y);
    const DcvrpProblem problem(limited);
    const auto unlimited = locus::dcvrp::encode_routes(locus::dcvrp::savings(free, 0), free.n);
    const locus::Verdict verdict = problem.verify(unlimited);
    CHECK_FALSE(verdict.feasible);
    CHECK(verdict.message.find("more than DISTANCE 1800") != std::string::npos);
    CHECK(problem.verify(locus::dcvrp::encode_routes(locus::dcvrp::savings(limited, 0), limited.n))
              .feasible);
}

TEST_CASE("savings beats one route per customer by far on X-n101-k25") {
    const auto file = locus::test::data_file("cvrplib/X-n101-k25.vrp");
    Built built(file.string());
    const double single = built.construct("one_per_customer", 1).objective(0);
    const double saved = built.construct("savings", 1).objective(0);
    const double inserted = built.construct("cheapest_insertion", 1, "farthest").objective(0);
    MESSAGE("X-n101-k25: one_per_customer " << single << ", cheapest_insertion (farthest) "
                                            << inserted << ", savings " << saved
                                            << " (best known 27591)");
    CHECK(saved < 0.5 * single);
    CHECK(saved < 1.15 * 27591);
    CHECK(saved >= 27591);
    CHECK(inserted < single);
}

TEST_CASE("with a vehicle limit the constructions stay within it where they can") {
    const auto file = locus::test::data_file("cvrplib/X-n101-k25.vrp");
    Built loose(file.string());
    const auto routes =
        static_cast<std::int64_t>(locus::dcvrp::savings(loose.problem().instance(), 0).size());
    CHECK(routes == 28);
    Built enough(file.string(), routes);
    check_feasible(enough.problem(), enough.construct("savings", 1));
    // 25 vehicles (the k of the name) need routes filled to 98 %: greedy joins cannot get
    // there; savings' 28 routes are fitted into 25 (fit_fleet), over the capacity, which
    // verify reports for a search with penalties to repair.
    Built tight(file.string(), 25);
    for (const char* construction : {"savings", "one_per_customer"}) {
        CAPTURE(construction);
        const SolutionBatch batch = tight.construct(construction, 1);
        const std::string message = tight.problem().verify(batch[0]).message;
        CHECK(message.find("more than CAPACITY 206") != std::string::npos);
        std::int32_t routes_used = 0;
        for (const auto& route : locus::dcvrp::split_routes(batch[0]))
            routes_used += route.empty() ? 0 : 1;
        CHECK(routes_used == 25);
    }
}

namespace {

using locus::dcvrp::OrderStart;

/// Checks that `routes` visit every customer exactly once within capacity and duration.
void check_routes_cover(const Instance& instance, const Routes& routes) {
    std::vector<int> seen(static_cast<std::size_t>(instance.n), 0);
    for (const auto& route : routes) {
        CHECK_FALSE(route.empty());
        for (const std::int32_t c : route) {
            REQUIRE(c >= 1);
            REQUIRE(c < instance.n);
            ++seen[static_cast<std::size_t>(c)];
        }
    }
    CHECK(std::count(seen.begin() + 1, seen.end(), 1) == instance.customers());
    const auto violation = locus::dcvrp::check_routes(instance, routes, 0);
    INFO(violation.value_or("feasible"));
    CHECK_FALSE(violation.has_value());
}

/// Four customers at the corners of a square around the depot (1: (1, 1), 2: (-1, -1), 3:
/// (1, -1), 4: (-1, 1)), demand 1 each, capacity 2.
Instance square() {
    const std::string text = "NAME : square\nDIMENSION : 5\nCAPACITY : 2\n"
                             "EDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 1 1\n"
                             "3 -1 -1\n4 1 -1\n5 -1 1\nDEMAND_SECTION\n1 0\n2 1\n3 1\n4 1\n5 1\n"
                             "DEPOT_SECTION\n1\n-1\nEOF\n";
    return locus::dcvrp::parse_cvrplib(text, "square.vrp");
}

/// An instance with explicit weights and no coordinates.
const std::string kExplicit = "NAME: m4\nTYPE: CVRP\nDIMENSION: 4\nCAPACITY: 10\n"
                              "EDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: FULL_MATRIX\n"
                              "EDGE_WEIGHT_SECTION\n0 1 2 3\n1 0 4 5\n2 4 0 6\n3 5 6 0\n"
                              "DEMAND_SECTION\n1 0\n2 1\n3 1\n4 1\nDEPOT_SECTION\n1\n-1\nEOF\n";

} // namespace

TEST_CASE("sweep and the Hilbert curve order hand-placed customers") {
    const Instance inst = square();
    // Angles from the x axis: 1 at 45, 4 at 135, 2 at 225, 3 at 315 degrees.
    CHECK(locus::dcvrp::sweep_order(inst, OrderStart::zero, 0) ==
          std::vector<std::int32_t>{1, 4, 2, 3});
    // The curve runs from the lower left quadrant up, across and down to the lower right.
    CHECK(locus::dcvrp::curve_order(inst, OrderStart::zero, 0) ==
          std::vector<std::int32_t>{2, 4, 1, 3});
    // Random starts rotate the same cycle.
    for (std::uint64_t key = 0; key < 8; ++key) {
        for (const auto& order : {locus::dcvrp::sweep_order(inst, OrderStart::random, key),
                                  locus::dcvrp::curve_order(inst, OrderStart::random, key)}) {
            REQUIRE(order.size() == 4);
            auto cycle = order;
            std::rotate(cycle.begin(), std::find(cycle.begin(), cycle.end(), 1), cycle.end());
            const bool sweep_cycle = cycle == std::vector<std::int32_t>{1, 4, 2, 3};
            const bool curve_cycle = cycle == std::vector<std::int32_t>{1, 3, 2, 4};
            CHECK((sweep_cycle || curve_cycle));
        }
    }
    // Pairs of neighbours on the square (capacity 2): 2 sqrt(2) + 2 per route.
    const Routes swept = locus::dcvrp::sweep(inst, OrderStart::zero, 0);
    CHECK(swept.size() == 2);
    check_routes_cover(inst, swept);
    CHECK(cost_of(inst, swept) == doctest::Approx(4.0 * std::sqrt(2.0) + 4.0));

    // On the line all customers share angle 0 and go by distance. With nint distances (fixed
    // point scale 1) the split of 1..5 is the optimum {1}, {2, 3}, {4, 5} of 18, whose last
    // route takes exactly DISTANCE 12.
    const Instance line = locus::dcvrp::parse_cvrplib(dcvrp_test::kLine5, "line5.vrp",
                                                      locus::dcvrp::RoundingOption::nint);
    CHECK(locus::dcvrp::sweep_order(line, OrderStart::zero, 0) ==
          std::vector<std::int32_t>{1, 2, 3, 4, 5});
    CHECK(locus::dcvrp::sweep(line, OrderStart::zero, 0) == Routes{{1}, {2, 3}, {4, 5}});
    CHECK(locus::dcvrp::split_order(line, std::vector<std::int32_t>{5, 4, 3, 2, 1}) ==
          Routes{{5, 4}, {3, 2}, {1}});
    // With exact distances the split works at 10^-6 and keeps a margin of n = 6 units below
    // the limit, so no route may take exactly 12: the best split left is 4 + 8 + 10.
    // 2-opt inside a route, on the line without DISTANCE and with CAPACITY 100: 3 1 2 5 (14)
    // and 1 4 3 2 5 (14) become monotone routes of 10.
    std::string loose = dcvrp_test::kLine5;
    loose.replace(loose.find("CAPACITY : 8"), 12, "CAPACITY : 100");
    loose.erase(loose.find("DISTANCE : 12\n"), 14);
    const Instance wide =
        locus::dcvrp::parse_cvrplib(loose, "line.vrp", locus::dcvrp::RoundingOption::nint);
    Routes shuffled{{3, 1, 2, 5}, {1, 4, 3, 2, 5}};
    CHECK(cost_of(wide, {shuffled[0]}) == 14.0);
    CHECK(cost_of(wide, {shuffled[1]}) == 14.0);
    locus::dcvrp::two_opt_routes(wide, shuffled, 100);
    CHECK(cost_of(wide, {shuffled[0]}) == 10.0);
    CHECK(cost_of(wide, {shuffled[1]}) == 10.0);
    const Instance exact = dcvrp_test::line5();
    const Routes margin = locus::dcvrp::sweep(exact, OrderStart::zero, 0);
    CHECK(margin == Routes{{1, 2}, {3, 4}, {5}});
    CHECK(cost_of(exact, margin) == 22.0);
}

TEST_CASE("savings on candidate lists of all other customers joins as all pairs do") {
    std::vector<std::string> instances = {"random-cvrp:n=150,seed=3,capacity=100,distance=1800"};
    for (const char* name : {"cvrplib/CMT6.vrp", "cvrplib/X-n101-k25.vrp"})
        instances.push_back(locus::test::data_file(name).string());
    for (const std::string& spec : instances) {
        INFO(spec);
        const Built built(spec);
        const Instance& inst = built.problem().instance();
        const std::int32_t all = inst.customers() - 1;
        CHECK(locus::dcvrp::savings_candidates(inst, all) == all);
        for (const std::int32_t vehicles : {0, 28}) {
            const Routes pairs = locus::dcvrp::savings(inst, vehicles);
            const Routes listed = locus::dcvrp::savings(inst, vehicles, 1.0, all);
            CHECK(listed == pairs);
            CHECK(cost_of(inst, listed) == cost_of(inst, pairs));
        }
        // More candidates than customers are all of them.
        CHECK(locus::dcvrp::savings(inst, 0, 1.0, 100000) == locus::dcvrp::savings(inst, 0));
        check_routes_cover(inst, locus::dcvrp::savings(inst, 0, 1.0, 5));
    }
}

TEST_CASE("savings uses every pair up to 1,000 customers and 50 nearest beyond") {
    const Built thousand(locus::test::data_file("cvrplib/X-n1001-k43.vrp").string());
    const Instance& inst = thousand.problem().instance();
    REQUIRE(inst.customers() == 1000);
    CHECK(locus::dcvrp::savings_candidates(inst, 0) == 0);
    CHECK(locus::dcvrp::savings_candidates(inst, 20) == 20);
    const Instance larger = locus::dcvrp::generate_from_spec("random-cvrp:n=1002,seed=2");
    CHECK(locus::dcvrp::savings_candidates(larger, 0) == 50);
    CHECK(locus::dcvrp::savings_candidates(larger, 5000) == 1000);
}

TEST_CASE("savings on 50 candidates stays within 5 % of all pairs on 1,000 customers") {
    for (const std::string& spec :
         {locus::test::data_file("cvrplib/X-n1001-k43.vrp").string(),
          std::string("random-cvrp:n=1001,seed=5,capacity=100,distance=2500")}) {
        INFO(spec);
        const Built built(spec);
        const Instance& inst = built.problem().instance();
        const Routes pairs = locus::dcvrp::savings(inst, 0);
        const Routes listed = locus::dcvrp::savings(inst, 0, 1.0, 50);
        check_routes_cover(inst, listed);
        const double all_cost = cost_of(inst, pairs);
        const double listed_cost = cost_of(inst, listed);
        MESSAGE(spec << ": savings all pairs " << all_cost << " (" << pairs.size()
                     << " routes), 50 candidates " << listed_cost << " (" << listed.size()
                     << " routes), ratio " << listed_cost / all_cost);
        CHECK(listed_cost / all_cost < 1.05);
    }
}

TEST_CASE("the constructions at scale cover 5,000 customers within capacity and duration") {
    std::vector<std::string> instances = {
        "random-cvrp:n=5001,seed=11",
        "random-cvrp:n=5001,seed=12,capacity=200,distance=3000"};
    instances.push_back(locus::test::data_file("cvrplib/XXL/Leuven1.vrp").string());
    for (const std::string& spec : instances) {
        INFO(spec);
        Built built(spec);
        const Instance& inst = built.problem().instance();
        for (const char* construction : {"savings", "sweep", "space_filling_curve"}) {
            INFO(std::string(construction));
            const SolutionBatch batch = built.construct(construction, 2);
            check_feasible(built.problem(), batch);
            const auto routes = locus::dcvrp::split_routes(batch[1]);
            check_routes_cover(inst, routes);
            MESSAGE(spec << ": " << std::string(construction) << " " << batch.objective(0) << " ("
                         << routes.size() << " routes)");
            if (std::string(construction) == "savings") continue;
            // 2-opt inside the routes keeps their customers and shortens them.
            const SolutionBatch improved = built.construct(construction, 2, "random", 100);
            check_feasible(built.problem(), improved);
            const auto shorter = locus::dcvrp::split_routes(improved[1]);
            REQUIRE(shorter.size() == routes.size());
            for (std::size_t r = 0; r < routes.size(); ++r) {
                auto a = routes[r];
                auto b = shorter[r];
                std::sort(a.begin(), a.end());
                std::sort(b.begin(), b.end());
                CHECK(a == b);
            }
            CHECK(improved.objective(1) < batch.objective(1));
            MESSAGE(spec << ": " << std::string(construction) << " with two_opt 100 "
                         << improved.objective(0));
        }
    }
}

TEST_CASE("sweep and space_filling_curve draw their start from the key") {
    Built built("random-cvrp:n=2001,seed=4,capacity=100,distance=2500");
    const Instance& inst = built.problem().instance();
    using Build = Routes (*)(const Instance&, OrderStart, std::uint64_t);
    for (const Build construct : {Build{&locus::dcvrp::sweep},
                                  Build{&locus::dcvrp::space_filling_curve}}) {
        const Routes a = construct(inst, OrderStart::random, 1);
        CHECK(a == construct(inst, OrderStart::random, 1));
        CHECK(a != construct(inst, OrderStart::random, 2));
        CHECK(construct(inst, OrderStart::zero, 1) == construct(inst, OrderStart::zero, 2));
        check_routes_cover(inst, a);
    }
    for (const char* construction : {"sweep", "space_filling_curve"}) {
        INFO(std::string(construction));
        const SolutionBatch first = built.construct(construction, 3, "random", 0, 99);
        const SolutionBatch again = built.construct(construction, 3, "random", 0, 99);
        const SolutionBatch other = built.construct(construction, 3, "random", 0, 100);
        for (std::size_t i = 0; i < 3; ++i) {
            CHECK(std::equal(first[i].begin(), first[i].end(), again[i].begin()));
            CHECK_FALSE(std::equal(first[i].begin(), first[i].end(), other[i].begin()));
        }
        CHECK_FALSE(std::equal(first[0].begin(), first[0].end(), first[1].begin()));
    }
}

TEST_CASE("sweep and space_filling_curve refuse instances without coordinates") {
    const Instance inst = locus::dcvrp::parse_cvrplib(kExplicit, "m4.vrp");
    REQUIRE(inst.x.empty());
    const std::string sweep_error = locus::test::error_message<locus::ConfigError>(
        [&] { locus::dcvrp::sweep(inst, OrderStart::random, 1); });
    CHECK(sweep_error ==
          "construction sweep: instance m4 has no node coordinates (EXPLICIT edge weights), and "
          "sweep orders the customers by them; use the construction savings, which needs only "
          "distances");
    const std::string curve_error = locus::test::error_message<locus::ConfigError>(
        [&] { locus::dcvrp::space_filling_curve(inst, OrderStart::zero, 1); });
    CHECK(curve_error.find("construction space_filling_curve: instance m4 has no node "
                           "coordinates") == 0);
    CHECK(curve_error.find("use the construction savings") != std::string::npos);
    // Savings needs only the distances.
    check_routes_cover(inst, locus::dcvrp::savings(inst, 0));
    check_routes_cover(inst, locus::dcvrp::savings(inst, 0, 1.0, 1));
}

TEST_CASE("a raised stop flag ends the constructions at scale") {
    const Instance inst = locus::dcvrp::generate_from_spec("random-cvrp:n=9001,seed=3");
    // A deadline in the past raises the process-wide stop flag, as a run's limit does.
    const std::uint64_t token =
        locus::arm_deadline(std::chrono::steady_clock::now() - std::chrono::seconds(1));
    REQUIRE(locus::stop_requested());
    CHECK_THROWS_AS(locus::dcvrp::savings(inst, 0, 1.0, 10), locus::Stopped);
    CHECK_THROWS_AS(locus::dcvrp::sweep(inst, OrderStart::random, 1), locus::Stopped);
    CHECK_THROWS_AS(locus::dcvrp::space_filling_curve(inst, OrderStart::random, 1),
                    locus::Stopped);
    const std::vector<std::int32_t> order = locus::dcvrp::insertion_order(
        inst, InsertionOrder::index, 0);
    CHECK_THROWS_AS(locus::dcvrp::split_order(inst, order), locus::Stopped);
    locus::disarm_deadline(token);
    CHECK_FALSE(locus::stop_requested());
    check_routes_cover(inst, locus::dcvrp::split_order(inst, order));
}

TEST_CASE("fit_fleet: routes beyond the vehicle limit are dissolved into the others, every "
          "customer once, exactly K routes, within the limits wherever they allow it") {
    const Instance inst = locus::dcvrp::generate_random(101, 4, 50); // total demand 576
    Routes routes = locus::dcvrp::one_per_customer(inst);
    locus::dcvrp::fit_fleet(inst, routes, 14);
    CHECK(routes.size() == 14);
    std::vector<int> seen(static_cast<std::size_t>(inst.n), 0);
    std::int64_t over = 0;
    for (const auto& route : routes) {
        std::int64_t load = 0;
        for (const std::int32_t c : route) {
            ++seen[static_cast<std::size_t>(c)];
            load += inst.demand[static_cast<std::size_t>(c)];
        }
        over += std::max<std::int64_t>(0, load - inst.capacity);
    }
    for (std::int32_t c = 1; c < inst.n; ++c)
        CHECK(seen[static_cast<std::size_t>(c)] == 1);
    // 14 routes of capacity 50 hold 576 with room to spare; the least-excess insertion leaves
    // little over the capacity (one customer's demand at most per route).
    CHECK(over <= 14 * 10);
    // Within the limit already: unchanged.
    Routes few = {{1, 2}, {3}};
    const Routes kept = few;
    locus::dcvrp::fit_fleet(inst, few, 2);
    CHECK(few == kept);
    // The line instance: K = 2 merges its lightest route, over the limits if need be.
    const Instance line = dcvrp_test::line5();
    Routes saved = locus::dcvrp::savings(line, 0);
    locus::dcvrp::fit_fleet(line, saved, 2);
    CHECK(saved.size() == 2);
}
