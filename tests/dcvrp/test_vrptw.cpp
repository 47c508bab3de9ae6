// VRPTW instances (CVRPLIB style, DIMACS convention): a hand-computed instance, the route checks
// with time windows, every stored Gehring-Homberger instance with its best-known route set
// (feasible, costing its value of data/best-known.csv), and the exact errors of bad input.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "locus/dcvrp/candidate_lists.hpp"
#include "locus/dcvrp/constructions.hpp"
#include "locus/dcvrp/cvrplib.hpp"
#include "locus/dcvrp/dcvrp_problem.hpp"
#include "locus/dcvrp/generator.hpp"
#include "locus/dcvrp/giant_tour.hpp"
#include "locus/dcvrp/route_chains.hpp"
#include "locus/dcvrp/sol_io.hpp"
#include "locus/error.hpp"
#include "test_support.hpp"

using locus::InstanceError;
using locus::dcvrp::Instance;
using locus::dcvrp::parse_vrptw;
using locus::dcvrp::Rounding;
using locus::dcvrp::Routes;

namespace {

// Depot (0, 0) open [0, 100]; node 2 at (3, 4) window [5, 20]; node 3 at (6, 8) [10, 40];
// node 4 at (1, 1) [0, 100]; service 5. Travel times in tenths: 1-2 5.0, 2-3 5.0, 1-3 10.0,
// 1-4 1.4 (sqrt 2), 4-2 3.6, 4-3 8.6. Line 20 holds node 2's window, line 21 node 3's.
const std::string kTimed4 = "NAME : tw4\n"       // 1
                            "TYPE : VRPTW\n"     // 2
                            "DIMENSION : 4\n"    // 3
                            "VEHICLES : 2\n"     // 4
                            "CAPACITY : 10\n"    // 5
                            "SERVICE_TIME : 5\n" // 6
                            "EDGE_WEIGHT_TYPE : EUC_2D\n"
                            "NODE_COORD_SECTION\n" // 8
                            "1 0 0\n2 3 4\n3 6 8\n4 1 1\n"
                            "DEMAND_SECTION\n" // 13
                            "1 0\n2 4\n3 4\n4 3\n"
                            "TIME_WINDOW_SECTION\n" // 18
                            "1 0 100\n"             // 19
                            "2 5 20\n"              // 20
                            "3 10 40\n"             // 21
                            "4 0 100\n"             // 22
                            "DEPOT_SECTION\n1\n-1\nEOF\n";

std::string timed4_with(const std::string& from, const std::string& to) {
    std::string text = kTimed4;
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

std::string parse_error(const std::string& text) {
    return locus::test::error_message<InstanceError>([&] { parse_vrptw(text, "x.vrp"); });
}

/// A stored instance (a path under data/) or, for "random-vrptw", a generated 300-customer one.
Instance vrptw_instance(const std::string& spec) {
    return spec == "random-vrptw" ? locus::dcvrp::generate_from_spec("random-vrptw:n=300,seed=9")
                                  : locus::dcvrp::read_vrptw(locus::test::data_file(spec));
}

double routes_cost(const Instance& instance, const Routes& routes) {
    return locus::dcvrp::giant_tour_cost(instance, locus::dcvrp::encode_routes(routes, instance.n));
}

/// best_known of data/best-known.csv for the rows of `library`.
std::map<std::string, double> best_known(const std::string& library) {
    std::ifstream in(locus::test::data_file("best-known.csv"));
    REQUIRE(in);
    std::map<std::string, double> values;
    std::string line;
    while (std::getline(in, line)) {
        std::stringstream row(line);
        std::string lib, name, value;
        std::getline(row, lib, ',');
        std::getline(row, name, ',');
        std::getline(row, value, ',');
        if (lib == library) values[name] = std::stod(value);
    }
    return values;
}

} // namespace

TEST_CASE("VRPTW: the hand-computed instance, its tenths and the route checks with windows") {
    const Instance inst = parse_vrptw(kTimed4, "x.vrp");
    CHECK(inst.name == "tw4");
    CHECK(inst.n == 4);
    CHECK(inst.vehicles == 2);
    CHECK(inst.service_time == 5.0);
    CHECK(inst.rounding == Rounding::tenths);
    REQUIRE(inst.has_time_windows());
    CHECK(inst.ready == std::vector<double>{0, 5, 10, 0});
    CHECK(inst.due == std::vector<double>{100, 20, 40, 100});
    CHECK(inst.distance(0, 1) == 5.0);
    CHECK(inst.distance(0, 2) == 10.0);
    CHECK(inst.distance(0, 3) == 1.4);
    CHECK(inst.distance(3, 1) == 3.6);
    CHECK(inst.distance(3, 2) == 8.6);
    // Node 2 at 5 (no wait), done at 10; node 3 at 15, done at 20; back at 30.
    CHECK_FALSE(locus::dcvrp::check_routes(inst, Routes{{1, 2}, {3}}, 2).has_value());
    CHECK(routes_cost(inst, Routes{{1, 2}, {3}}) == doctest::Approx(5.0 + 5.0 + 10.0 + 2.8));
    // Node 3 first: served 10-15, node 2 reached at 20, its latest time: feasible; with 19 not.
    CHECK_FALSE(locus::dcvrp::check_routes(inst, Routes{{2, 1}, {3}}, 2).has_value());
    Instance tight = inst;
    tight.due[1] = 19.0;
    CHECK(locus::dcvrp::check_routes(tight, Routes{{2, 1}, {3}}, 2) ==
          "route 1 starts serving customer node 2 at 20, after its latest time 19");
    // Node 4 first: served 1.4-6.4, node 2 reached at 10 (3.6 of travel), node 3 at 20, done at
    // 25, back at 35.
    Instance closing = inst;
    closing.capacity = 11; // the three customers in one route
    closing.due[0] = 34.0;
    CHECK(locus::dcvrp::check_routes(closing, Routes{{3, 1, 2}}, 2) ==
          "route 1 returns to the depot at 35, after its latest time 34");
    closing.due[0] = 35.0;
    CHECK_FALSE(locus::dcvrp::check_routes(closing, Routes{{3, 1, 2}}, 2).has_value());
    // Waiting counts: with node 2 opening at 12 the vehicle waits 2 there and reaches node 3 at
    // 22.
    Instance waiting = closing;
    waiting.ready[1] = 12.0;
    waiting.due[2] = 21.0;
    CHECK(locus::dcvrp::check_routes(waiting, Routes{{3, 1, 2}}, 2) ==
          "route 1 starts serving customer node 3 at 22, after its latest time 21");
    // The fleet: three routes for two vehicles.
    CHECK(locus::dcvrp::check_routes(inst, Routes{{1}, {2}, {3}}, 2) ==
          "3 routes, more than the 2 vehicles");
    // The instance writes back as VRPTW text and reads back the same.
    const Instance back = parse_vrptw(locus::dcvrp::format_cvrplib(inst), "back.vrp");
    CHECK(back.ready == inst.ready);
    CHECK(back.due == inst.due);
    CHECK(back.service_time == inst.service_time);
    CHECK(back.demand == inst.demand);
    CHECK(back.vehicles == inst.vehicles);
}

TEST_CASE("VRPTW: every stored Gehring-Homberger instance's best-known routes are feasible and "
          "cost its best-known value; a reversed route breaks a window") {
    const std::map<std::string, double> values = best_known("vrptw");
    REQUIRE(values.size() == 24);
    for (const auto& [name, value] : values) {
        CAPTURE(name);
        const Instance inst =
            locus::dcvrp::read_vrptw(locus::test::data_file("vrptw/" + name + ".vrp"));
        CHECK(inst.n == 1001);
        CHECK(inst.vehicles == 250);
        CHECK(inst.rounding == Rounding::tenths);
        const auto sol = locus::dcvrp::read_sol(
            locus::test::data_file("vrptw/solutions/" + name + ".sol"), inst.n);
        const auto verdict = locus::dcvrp::check_routes(inst, sol.routes, inst.vehicles);
        CHECK_MESSAGE(!verdict.has_value(), verdict.value_or(""));
        const double cost = routes_cost(inst, sol.routes);
        CHECK(cost == doctest::Approx(value).epsilon(1e-9));
        REQUIRE(sol.cost.has_value());
        CHECK(cost == doctest::Approx(*sol.cost).epsilon(1e-9));
        // Reversing the routes one at a time: some reversal breaks a window (and nothing else:
        // loads and the fleet do not change).
        bool broken = false;
        for (std::size_t r = 0; r < sol.routes.size() && !broken; ++r) {
            Routes reversed = sol.routes;
            std::reverse(reversed[r].begin(), reversed[r].end());
            if (const auto why = locus::dcvrp::check_routes(inst, reversed, inst.vehicles)) {
                CHECK(why->find("after its latest time") != std::string::npos);
                broken = true;
            }
        }
        CHECK(broken);
    }
}

TEST_CASE("VRPTW: bad input gets one line with the file and the line") {
    CHECK(parse_error(timed4_with("2 5 20", "2 30 20")) ==
          "x.vrp:20: node 2 has time window [30, 20]: its earliest time is after its latest");
    CHECK(parse_error(timed4_with("3 10 40", "3 -1 40")) ==
          "x.vrp:21: node 3 has time window [-1, 40] (times must be finite and non-negative)");
    CHECK(parse_error(timed4_with("3 10 40", "3 2 8")) ==
          "x.vrp:21: customer node 3 cannot be reached within its time window [2, 8]: leaving "
          "the depot at 0, the earliest arrival is 10");
    CHECK(parse_error(timed4_with("1 0 100", "1 0 20")) ==
          "x.vrp:21: customer node 3 cannot return to the depot by its latest time 20: service "
          "from 10 to 15, then 10 of travel, back at 25");
    // Negative times and demands, wherever they are given.
    CHECK(parse_error(timed4_with("3 10 40", "3 10 -40")) ==
          "x.vrp:21: node 3 has time window [10, -40] (times must be finite and non-negative)");
    CHECK(parse_error(timed4_with("SERVICE_TIME : 5", "SERVICE_TIME : -5")) ==
          "x.vrp:6: SERVICE_TIME must be a non-negative number, got '-5'");
    CHECK(parse_error(timed4_with("DEPOT_SECTION", "SERVICE_TIME_SECTION\n1 0\n2 -5\n3 5\n4 5\n"
                                                   "DEPOT_SECTION")) ==
          "x.vrp:25: node 2: service time '-5' is not a non-negative number");
    CHECK(parse_error(timed4_with("3 4\n4 3\n", "3 -4\n4 3\n")) ==
          "x.vrp:16: node 3 has negative demand -4");
    CHECK(parse_error(timed4_with("2 5 20", "2 5 late")) ==
          "x.vrp:20: node 2: time window '5 late' is not two numbers");
    CHECK(parse_error(timed4_with("TYPE : VRPTW", "TYPE : CVRP")) ==
          "x.vrp:2: unsupported TYPE 'CVRP' (supported: VRPTW)");
    CHECK(parse_error(timed4_with("2 4\n3 4\n", "2 4\n3 11\n")) ==
          "x.vrp:16: customer node 3 has demand 11, more than CAPACITY 10");
    const std::string no_windows =
        timed4_with("TIME_WINDOW_SECTION\n1 0 100\n2 5 20\n3 10 40\n4 0 100\n", "");
    CHECK(parse_error(no_windows) == "x.vrp:21: end of file without TIME_WINDOW_SECTION");
    CHECK(parse_error(timed4_with("4 0 100\n", ""))
              .find("TIME_WINDOW_SECTION has 3 entries, DIMENSION says 4") != std::string::npos);
    CHECK(parse_error(timed4_with("DEPOT_SECTION", "SERVICE_TIME_SECTION\n1 0\n2 5\n3 6\n4 5\n"
                                                   "DEPOT_SECTION")) ==
          "x.vrp:26: node 3 has service time 6 where SERVICE_TIME gives 5: every customer must "
          "have the same service time (different ones are not supported)");
    // A VRPTW file is not read as a CVRP by the CVRPLIB reader (its windows would be lost).
    CHECK(locus::test::error_message<InstanceError>([] {
              locus::dcvrp::parse_cvrplib(kTimed4, "x.vrp");
          }) == "x.vrp:2: unsupported TYPE 'VRPTW' (supported: CVRP, DCVRP)");
}

TEST_CASE("VRPTW: a SERVICE_TIME_SECTION of one time for every customer is that SERVICE_TIME") {
    std::string text = timed4_with("SERVICE_TIME : 5\n", "");
    text = text.replace(text.find("DEPOT_SECTION"), 13,
                        "SERVICE_TIME_SECTION\n1 0\n2 7\n3 7\n4 7\nDEPOT_SECTION");
    const Instance inst = parse_vrptw(text, "x.vrp");
    CHECK(inst.service_time == 7.0);
    CHECK(parse_error(timed4_with("DEPOT_SECTION", "SERVICE_TIME_SECTION\n1 3\n2 5\n3 5\n4 5\n"
                                                   "DEPOT_SECTION")) ==
          "x.vrp:24: depot node 1 has service time 3 (the depot has none)");
}

namespace {

// kTimed4 in the Solomon format: customer 0 the depot. Rows on lines 10-13.
const std::string kSolomon4 = "TW4\n"
                              "\n"
                              "VEHICLE\n"
                              "NUMBER     CAPACITY\n"
                              "  2         10\n"
                              "\n"
                              "CUSTOMER\n"
                              "CUST NO.  XCOORD.   YCOORD.    DEMAND   READY TIME  DUE DATE   "
                              "SERVICE   TIME\n"
                              "\n"
                              "    0      0         0          0          0       100          0\n"
                              "    1      3         4          4          5        20          5\n"
                              "    2      6         8          4         10        40          5\n"
                              "    3      1         1          3          0       100          5\n";

std::string solomon4_with(const std::string& from, const std::string& to) {
    std::string text = kSolomon4;
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

std::string solomon_error(const std::string& text) {
    return locus::test::error_message<InstanceError>(
        [&] { locus::dcvrp::parse_solomon(text, "x.txt"); });
}

} // namespace

TEST_CASE("VRPTW: the Solomon format gives the model of the same CVRPLIB-style instance; "
          "read_vrptw tells the formats apart") {
    const Instance cvrplib = parse_vrptw(kTimed4, "x.vrp");
    const Instance solomon = locus::dcvrp::parse_solomon(kSolomon4, "x.txt");
    CHECK(solomon.name == "TW4");
    CHECK(solomon.n == cvrplib.n);
    CHECK(solomon.vehicles == cvrplib.vehicles);
    CHECK(solomon.capacity == cvrplib.capacity);
    CHECK(solomon.service_time == cvrplib.service_time);
    CHECK(solomon.demand == cvrplib.demand);
    CHECK(solomon.x == cvrplib.x);
    CHECK(solomon.y == cvrplib.y);
    CHECK(solomon.ready == cvrplib.ready);
    CHECK(solomon.due == cvrplib.due);
    CHECK(solomon.rounding == Rounding::tenths);
    CHECK(solomon.node_id == std::vector<std::int32_t>{0, 1, 2, 3});
    for (std::int32_t a = 0; a < 4; ++a)
        for (std::int32_t b = 0; b < 4; ++b)
            CHECK(solomon.distance(a, b) == cvrplib.distance(a, b));
    CHECK(locus::dcvrp::is_solomon_text(kSolomon4));
    CHECK_FALSE(locus::dcvrp::is_solomon_text(kTimed4));
    const auto dir = locus::test::temp_dir("vrptw-formats");
    for (const auto& [file, text] : {std::pair{"a.txt", kSolomon4}, std::pair{"b.vrp", kTimed4}}) {
        std::ofstream(dir / file) << text;
        const Instance read = locus::dcvrp::read_vrptw(dir / file);
        CHECK(read.due == cvrplib.due);
        CHECK(read.capacity == 10);
    }
}

TEST_CASE("VRPTW: bad Solomon input gets one line with the file and the line") {
    CHECK(
        solomon_error(solomon4_with("    2      6         8          4         10        40   "
                                    "       5\n",
                                    "    2      6         8          4         10        40\n")) ==
        "x.txt:12: expected a customer row of 7 numbers (CUST NO., XCOORD., YCOORD., DEMAND, "
        "READY TIME, DUE DATE, SERVICE TIME), found '2      6         8          4         10 "
        "       40'");
    CHECK(solomon_error(solomon4_with("    3      1", "    4      1")) ==
          "x.txt:13: customer number 4 where 3 was due (the rows number the depot 0 and the "
          "customers 1, 2, ...)");
    CHECK(solomon_error(solomon4_with("100          5\n", "100          6\n")) ==
          "x.txt:13: customer 3 has service time 6 where line 11 gives 5: every customer must "
          "have the same service time (different ones are not supported)");
    CHECK(solomon_error(solomon4_with("100          0\n", "100          9\n")) ==
          "x.txt:10: the depot (customer 0) has service time 9 (the depot has none)");
    CHECK(solomon_error(solomon4_with("4         10        40", "4          2         8")) ==
          "x.txt:12: customer node 2 cannot be reached within its time window [2, 8]: leaving "
          "the depot at 0, the earliest arrival is 10");
    CHECK(solomon_error(solomon4_with("4         10        40", "4         50        40")) ==
          "x.txt:12: node 2 has time window [50, 40]: its earliest time is after its latest");
    CHECK(solomon_error(solomon4_with("  2         10\n", "  2\n")) ==
          "x.txt:5: expected the vehicles' NUMBER and CAPACITY, two positive whole numbers, found "
          "'2'");
    CHECK(solomon_error(solomon4_with("40          5\n", "40          -5\n")) ==
          "x.txt:12: customer 2 has negative service time -5");
    CHECK(solomon_error(solomon4_with("10        40", "10        -40")) ==
          "x.txt:12: node 2 has time window [10, -40] (times must be finite and non-negative)");
    CHECK(solomon_error(solomon4_with("CUSTOMER\n", "")) ==
          "x.txt:12: end of file without CUSTOMER (a Solomon VRPTW instance has a name line, "
          "VEHICLE and "
          "CUSTOMER blocks)");
    CHECK(solomon_error(solomon4_with("    2      6         8          4 ",
                                      "    2      6         8         12 ")) ==
          "x.txt:12: customer node 2 has demand 12, more than CAPACITY 10");
    CHECK(solomon_error(solomon4_with("    3      1         1          3",
                                      "    3      1         1         -3")) ==
          "x.txt:13: node 3 has negative demand -3");
    CHECK(solomon_error(solomon4_with("    0      0         0          0",
                                      "    0      0         0          2")) ==
          "x.txt:10: depot node 0 has demand 2 (a depot has no demand)");
}

TEST_CASE("random-vrptw: the customers of random-cvrp with windows that bind, each customer "
          "servable alone; deterministic; written and read back alike; spec errors") {
    const Instance inst = locus::dcvrp::generate_from_spec("random-vrptw:n=200,seed=5");
    CHECK(inst.name == "random-vrptw:n=200,seed=5");
    CHECK(inst.n == 200);
    CHECK(inst.rounding == Rounding::tenths);
    CHECK(inst.service_time == 10.0);
    REQUIRE(inst.has_time_windows());
    CHECK(inst.ready[0] == 0.0);
    CHECK(inst.due[0] == locus::dcvrp::kGeneratorHorizon);
    const Instance cvrp = locus::dcvrp::generate_from_spec("random-cvrp:n=200,seed=5");
    CHECK(inst.x == cvrp.x);
    CHECK(inst.demand == cvrp.demand);
    Routes alone;
    for (std::int32_t c = 1; c < inst.n; ++c) {
        const auto k = static_cast<std::size_t>(c);
        CHECK(inst.ready[k] <= inst.due[k]);
        CHECK(inst.due[k] - inst.ready[k] <= 300.0);
        CHECK(inst.ready[k] == std::floor(inst.ready[k]));
        alone.push_back({c});
    }
    // Every customer alone: feasible. Two customers a route, in index order: some pairs break a
    // window (loads of at most 20 never pass the capacity of 50).
    CHECK_FALSE(locus::dcvrp::check_routes(inst, alone, 0).has_value());
    int late = 0;
    for (std::int32_t c = 1; c + 1 < inst.n; c += 2) {
        const auto why = locus::dcvrp::check_routes(inst, Routes{{c, c + 1}}, 0);
        if (why) {
            CHECK(why->find("after its latest time") != std::string::npos);
            ++late;
        }
    }
    MESSAGE("two-customer routes in index order that break a window: " << late << " of 99");
    CHECK(late > 10);
    CHECK(late < 99); // and some pairs fit
    // Deterministic, and the .vrp text reads back as the same instance.
    const Instance again = locus::dcvrp::generate_from_spec("random-vrptw:seed=5,n=200");
    CHECK(again.ready == inst.ready);
    CHECK(again.due == inst.due);
    const Instance back = parse_vrptw(locus::dcvrp::format_cvrplib(inst), "back.vrp");
    CHECK(back.ready == inst.ready);
    CHECK(back.due == inst.due);
    CHECK(back.service_time == inst.service_time);
    for (std::int32_t c = 1; c < inst.n; c += 17)
        CHECK(back.distance(0, c) == inst.distance(0, c));
    // Loaded as a problem with `rounding: auto`: the same tenths and windows.
    CHECK(locus::dcvrp::default_rounding("random-vrptw:n=200,seed=5") == Rounding::tenths);
    const auto problem = locus::dcvrp::DcvrpProblem::load("random-vrptw:n=200,seed=5");
    CHECK(problem->instance().rounding == Rounding::tenths);
    CHECK(problem->instance().due == inst.due);
    // Other parameters, and errors.
    const Instance wide =
        locus::dcvrp::generate_from_spec("random-vrptw:n=50,service=0,width=3000");
    CHECK(wide.name == "random-vrptw:n=50,seed=1,service=0,width=3000");
    CHECK(wide.service_time == 0.0);
    const auto spec_error = [](const std::string& spec) {
        return locus::test::error_message<InstanceError>(
            [&] { locus::dcvrp::generate_from_spec(spec); });
    };
    CHECK(spec_error("random-vrptw:n=50,width=3001") ==
          "invalid instance generator spec 'random-vrptw:n=50,width=3001': width = 3001 is out of "
          "range 0..3000");
    CHECK(spec_error("random-vrptw:n=50,depth=9") ==
          "invalid instance generator spec 'random-vrptw:n=50,depth=9': unknown parameter "
          "'depth' (parameters: n, seed, capacity, service, width, distance)");
    CHECK(spec_error("random-vrptw:n=50,distance=0") ==
          "invalid instance generator spec 'random-vrptw:n=50,distance=0': distance = 0 must be "
          "a positive number");
    // A limit some customer cannot be served within, even alone.
    CHECK(spec_error("random-vrptw:n=50,distance=9")
              .starts_with("random-vrptw:n=50,seed=1,distance=9: customer node "));
    // A duration limit keeps the customers and windows of the same instance without it.
    const Instance plain = locus::dcvrp::generate_from_spec("random-vrptw:n=50,seed=2");
    const Instance limited =
        locus::dcvrp::generate_from_spec("random-vrptw:n=50,seed=2,distance=1800");
    CHECK(limited.name == "random-vrptw:n=50,seed=2,distance=1800");
    CHECK(limited.max_duration == 1800.0);
    CHECK_FALSE(plain.has_duration_limit());
    CHECK(limited.x == plain.x);
    CHECK(limited.demand == plain.demand);
    CHECK(limited.ready == plain.ready);
    CHECK(limited.due == plain.due);
    CHECK(spec_error("random-vrp:n=50") ==
          "invalid instance generator spec 'random-vrp:n=50': unknown generator 'random-vrp' "
          "(available: random-cvrp, random-vrptw)");
}

TEST_CASE("candidate lists under time windows: the proximity of Vidal et al. 2013, each list the "
          "k closest customers by it, distance lists without windows") {
    // Node 3 (index 2) ready at 60, due 80: after node 2 (index 1, due 20) a vehicle waits at
    // least 60 - 20 - 5 - 5 = 30; before it, node 2 is late by at least 60 + 5 + 5 - 20 = 50.
    const Instance tw4 = parse_vrptw(timed4_with("3 10 40\n", "3 60 80\n"), "tw4.vrp");
    CHECK(locus::dcvrp::window_proximity(tw4, 1, 2) == doctest::Approx(5.0 + 0.2 * 30.0));
    CHECK(locus::dcvrp::window_proximity(tw4, 2, 1) == doctest::Approx(5.0 + 50.0));
    CHECK(locus::dcvrp::window_proximity(tw4, 2, 1, {0.0, 2.0}) == doctest::Approx(105.0));
    CHECK(locus::dcvrp::window_proximity(tw4, 1, 3) == doctest::Approx(tw4.distance(1, 3)));

    const Instance inst = locus::dcvrp::generate_from_spec("random-vrptw:n=200,seed=5");
    constexpr std::int32_t k = 12;
    const std::vector<std::int32_t> lists = locus::dcvrp::candidate_customers(inst, k);
    REQUIRE(lists.size() == static_cast<std::size_t>(inst.n * k));
    const auto proximity = [&](std::int32_t u, std::int32_t v) {
        return std::min(locus::dcvrp::window_proximity(inst, u, v),
                        locus::dcvrp::window_proximity(inst, v, u));
    };
    const std::vector<std::int32_t> nearest = locus::dcvrp::nearest_customers(inst, k);
    int differ = 0;
    for (std::int32_t u = 0; u < inst.n; ++u) {
        const std::int32_t* list = lists.data() + static_cast<std::ptrdiff_t>(u) * k;
        std::vector<bool> in(static_cast<std::size_t>(inst.n), false);
        for (std::int32_t q = 0; q < k; ++q) {
            const std::int32_t v = list[q];
            REQUIRE(v >= 1);
            REQUIRE(v < inst.n);
            CHECK(v != u);
            CHECK_FALSE(in[static_cast<std::size_t>(v)]);
            in[static_cast<std::size_t>(v)] = true;
            if (q > 0) CHECK(proximity(u, list[q - 1]) <= proximity(u, v));
        }
        // No customer left out is closer than the last one in.
        const double last = proximity(u, list[k - 1]);
        for (std::int32_t v = 1; v < inst.n; ++v)
            if (v != u && !in[static_cast<std::size_t>(v)]) CHECK(proximity(u, v) >= last);
        differ += std::equal(list, list + k,
                             nearest.data() + static_cast<std::ptrdiff_t>(u) * k)
                      ? 0
                      : 1;
    }
    CHECK(differ > inst.n / 2); // the windows bind: most lists are not the nearest customers
    // The route chains search these lists.
    CHECK(locus::dcvrp::RouteChainData(inst, k).neighbors == lists);
    // Without the window terms, and without windows, the lists are the nearest customers.
    CHECK(locus::dcvrp::candidate_customers(inst, k, {0.0, 0.0}) == nearest);
    const Instance cvrp = locus::dcvrp::generate_from_spec("random-cvrp:n=200,seed=5");
    CHECK(locus::dcvrp::candidate_customers(cvrp, k) == locus::dcvrp::nearest_customers(cvrp, k));
}

TEST_CASE("time_window_insertion: feasible routes, every customer once, on a Gehring-Homberger "
          "instance and a generated one; instances without windows refused") {
    for (const std::string spec : {"vrptw/C1_10_1.vrp", "vrptw/R2_10_1.vrp", "random-vrptw"}) {
        CAPTURE(spec);
        const Instance inst = vrptw_instance(spec);
        const Routes routes = locus::dcvrp::time_window_insertion(inst);
        const std::vector<std::int32_t> tour = locus::dcvrp::encode_routes(routes, inst.n);
        CHECK_FALSE(locus::dcvrp::check_giant_tour(tour, inst.n).has_value());
        const auto verdict = locus::dcvrp::check_routes(inst, routes, 0);
        CHECK_MESSAGE(!verdict.has_value(), verdict.value_or(""));
        std::size_t used = 0;
        for (const auto& route : routes)
            used += route.empty() ? 0 : 1;
        MESSAGE(inst.name << ": " << used << " routes, cost " << routes_cost(inst, routes));
        CHECK(used < static_cast<std::size_t>(inst.n - 1) / 2); // far from one route each
    }
    const Instance plain = locus::dcvrp::generate_from_spec("random-cvrp:n=20,seed=1");
    CHECK(locus::test::error_message<locus::ConfigError>([&] {
              locus::dcvrp::time_window_insertion(plain);
          }) == "time_window_insertion needs an instance with time windows; "
                "random-cvrp:n=20,seed=1 has none (use savings or cheapest_insertion)");
}

TEST_CASE("savings under time windows: feasible routes, every customer once, far fewer routes "
          "than customers; the same joins without the window check break windows") {
    for (const std::string spec : {"vrptw/R1_10_1.vrp", "vrptw/RC2_10_1.vrp", "random-vrptw"}) {
        CAPTURE(spec);
        const Instance inst = vrptw_instance(spec);
        // All pairs (the instance's size) and the candidate-list pairs.
        for (const std::int32_t candidates : {0, 10}) {
            CAPTURE(candidates);
            const Routes routes = locus::dcvrp::savings(inst, 0, 1.0, candidates);
            const std::vector<std::int32_t> tour = locus::dcvrp::encode_routes(routes, inst.n);
            CHECK_FALSE(locus::dcvrp::check_giant_tour(tour, inst.n).has_value());
            const auto verdict = locus::dcvrp::check_routes(inst, routes, 0);
            CHECK_MESSAGE(!verdict.has_value(), verdict.value_or(""));
            MESSAGE(inst.name << ": " << routes.size() << " routes, cost "
                              << routes_cost(inst, routes));
            CHECK(routes.size() < static_cast<std::size_t>(inst.n - 1) / 2);
        }
        // The capacitated joins alone (the windows taken away) break a window: the check
        // above is what keeps them.
        Instance untimed = inst;
        untimed.ready.clear();
        untimed.due.clear();
        REQUIRE_FALSE(untimed.has_time_windows());
        const auto broken = locus::dcvrp::check_routes(inst, locus::dcvrp::savings(untimed, 0), 0);
        REQUIRE(broken.has_value());
        CHECK(broken->find("after its latest time") != std::string::npos);
    }
}

TEST_CASE("savings under time windows makes every join that the rule allows: the routes of a "
          "direct implementation that checks each joined route with check_routes") {
    for (const std::string spec : {"random-vrptw:n=120,seed=4", "random-vrptw:n=120,seed=5,width=900",
                                   "random-vrptw:n=120,seed=6,capacity=200"}) {
        CAPTURE(spec);
        const Instance inst = locus::dcvrp::generate_from_spec(spec);
        // Every pair by decreasing saving (ties: lowest i, then j); i's route then j's when i
        // ends one and j starts the other, else j's then i's; each joined route checked whole.
        struct Pair {
            double saving;
            std::int32_t i, j;
        };
        std::vector<Pair> pairs;
        for (std::int32_t i = 1; i < inst.n; ++i)
            for (std::int32_t j = i + 1; j < inst.n; ++j) {
                const double s = inst.distance(0, i) + inst.distance(0, j) - inst.distance(i, j);
                if (s > 0.0) pairs.push_back({s, i, j});
            }
        std::stable_sort(pairs.begin(), pairs.end(),
                         [](const Pair& a, const Pair& b) { return a.saving > b.saving; });
        Routes direct;
        for (std::int32_t c = 1; c < inst.n; ++c) direct.push_back({c});
        const auto holding = [&direct](std::int32_t c) {
            for (std::size_t r = 0; r < direct.size(); ++r)
                if (std::find(direct[r].begin(), direct[r].end(), c) != direct[r].end()) return r;
            return direct.size();
        };
        for (const Pair& p : pairs) {
            const std::size_t a = holding(p.i);
            const std::size_t b = holding(p.j);
            if (a == b) continue;
            const auto try_join = [&](std::size_t head, std::size_t tail) {
                std::vector<std::int32_t> joined = direct[head];
                joined.insert(joined.end(), direct[tail].begin(), direct[tail].end());
                if (locus::dcvrp::check_routes(inst, Routes{joined}, 0).has_value()) return false;
                direct[head] = joined;
                direct.erase(direct.begin() + static_cast<std::ptrdiff_t>(tail));
                return true;
            };
            if (direct[a].back() == p.i && direct[b].front() == p.j && try_join(a, b)) continue;
            if (direct[b].back() == p.j && direct[a].front() == p.i) try_join(b, a);
        }
        Routes fast = locus::dcvrp::savings(inst, 0);
        std::sort(fast.begin(), fast.end());
        std::sort(direct.begin(), direct.end());
        CHECK(fast.size() == direct.size());
        CHECK(fast == direct);
        CHECK(direct.size() < static_cast<std::size_t>(inst.n - 1) / 2);
    }
}
