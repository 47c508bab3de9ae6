// CVRPLIB reader: the hand-computed line instance, the accepted quirks, rounding, explicit
// formats, every stored .vrp file, and the exact error messages of bad input.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "dcvrp_test_instances.hpp"
#include "locus/dcvrp/cvrplib.hpp"
#include "locus/error.hpp"
#include "test_support.hpp"

using locus::InstanceError;
using locus::dcvrp::Instance;
using locus::dcvrp::parse_cvrplib;
using locus::dcvrp::Rounding;
using locus::dcvrp::RoundingOption;

namespace {

/// The message of the InstanceError of parse_cvrplib(text, "x.vrp").
std::string parse_error(const std::string& text) {
    return locus::test::error_message<InstanceError>([&] { parse_cvrplib(text, "x.vrp"); });
}

/// kLine5 with the first occurrence of `from` replaced by `to`.
std::string line5_with(const std::string& from, const std::string& to) {
    std::string text = dcvrp_test::kLine5;
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

std::string explicit_file(const std::string& format, const std::string& weights) {
    return "NAME: m4\nTYPE: CVRP\nDIMENSION: 4\nCAPACITY: 10\nEDGE_WEIGHT_TYPE: EXPLICIT\n"
           "EDGE_WEIGHT_FORMAT: " +
           format + "\nEDGE_WEIGHT_SECTION\n" + weights +
           "DEMAND_SECTION\n1 0\n2 1\n3 1\n4 1\nDEPOT_SECTION\n1\n-1\nEOF\n";
}

} // namespace

TEST_CASE("the line instance parses into the hand-computed model") {
    const Instance inst = dcvrp_test::line5();
    CHECK(inst.name == "line5");
    CHECK(inst.n == 6);
    CHECK(inst.customers() == 5);
    CHECK(inst.capacity == 8);
    CHECK(inst.max_duration == 12.0);
    CHECK(inst.has_duration_limit());
    CHECK(inst.service_time == 1.0);
    CHECK(inst.vehicles == 0);
    CHECK(inst.rounding == Rounding::exact);
    CHECK(inst.demand == std::vector<std::int64_t>{0, 3, 4, 2, 5, 1});
    CHECK(inst.node_id == std::vector<std::int32_t>{1, 2, 3, 4, 5, 6});
    CHECK(inst.total_demand() == 15);
    for (std::int32_t a = 0; a < 6; ++a)
        for (std::int32_t b = 0; b < 6; ++b)
            CHECK(inst.distance(a, b) == std::abs(a - b));
}

TEST_CASE("CRLF, tabs, KEY:value, a depot that is not node 1 and skipped sections are read") {
    const std::string text = "NAME:\tquirks\t\r\nCOMMENT : \"a: b\"\r\nTYPE:CVRP\r\n"
                             "DIMENSION :\t4\t\r\nCAPACITY:\t10\r\nVEHICLES : 2\r\n"
                             "EDGE_WEIGHT_TYPE : \tEUC_2D\t\r\nNODE_COORD_SECTION\t\t\r\n"
                             "1\t3\t4\r\n2\t0\t0\r\n3\t6e0\t8\r\n\r\n4 -3 -4\r\n"
                             "DISPLAY_DATA_SECTION\r\n1 0 0\r\n"
                             "DEMAND_SECTION\r\n1 2\r\n2 0\r\n3 5\r\n4 1\r\n"
                             "DEPOT_SECTION\r\n 2\r\n -1\r\n";
    const Instance inst = parse_cvrplib(text, "dir/q.vrp");
    CHECK(inst.name == "quirks");
    CHECK(inst.vehicles == 2);
    CHECK(!inst.has_duration_limit());
    // Node 0 is the file's node 2 (the depot); the customers keep the file order.
    CHECK(inst.node_id == std::vector<std::int32_t>{2, 1, 3, 4});
    CHECK(inst.demand == std::vector<std::int64_t>{0, 2, 5, 1});
    CHECK(inst.x == std::vector<double>{0, 3, 6, -3});
    CHECK(inst.distance(0, 1) == 5.0);
    CHECK(inst.distance(0, 2) == 10.0);
    CHECK(inst.distance(1, 3) == 10.0);
}

TEST_CASE("EUC_2D rounding: nint for the CVRPLIB X/A/B/E/F/M/P sets, exact otherwise") {
    CHECK(locus::dcvrp::default_rounding("X-n101-k25") == Rounding::nint);
    CHECK(locus::dcvrp::default_rounding("E-n51-k5") == Rounding::nint);
    CHECK(locus::dcvrp::default_rounding("P-n16-k8") == Rounding::nint);
    CHECK(locus::dcvrp::default_rounding("Leuven1") == Rounding::nint);
    CHECK(locus::dcvrp::default_rounding("Flanders2") == Rounding::nint);
    CHECK(locus::dcvrp::default_rounding("CMT1") == Rounding::exact);
    CHECK(locus::dcvrp::default_rounding("Golden_1") == Rounding::exact);
    CHECK(locus::dcvrp::default_rounding("random-cvrp:n=10,seed=1") == Rounding::exact);
    CHECK(locus::dcvrp::default_rounding("XL-n1048") == Rounding::exact);

    const std::string text = line5_with("6 5 0", "6 1 1"); // customer 5 at (1, 1)
    const double root2 = std::sqrt(2.0);
    CHECK(parse_cvrplib(text, "a.vrp").distance(0, 5) == root2);
    const std::string rounded = line5_with("NAME : line5\n", "NAME : X-n6-k2\n");
    const Instance x =
        parse_cvrplib(std::string(rounded).replace(rounded.find("6 5 0"), 5, "6 1 1"), "a.vrp");
    CHECK(x.rounding == Rounding::nint);
    CHECK(x.distance(0, 5) == 1.0);
    CHECK(parse_cvrplib(text, "a.vrp", RoundingOption::nint).distance(0, 5) == 1.0);
    CHECK(parse_cvrplib(text, "a.vrp", RoundingOption::exact).distance(0, 5) == root2);
}

TEST_CASE("EXPLICIT weights in every format give the same matrix, diagonal ignored") {
    // d(1,2)=1 d(1,3)=2 d(1,4)=3 d(2,3)=4 d(2,4)=5 d(3,4)=6.
    const std::map<std::string, std::string> formats = {
        {"FULL_MATRIX", "9 1 2 3\n1 9 4 5\n2 4 9 6\n3 5 6 9\n"},
        {"UPPER_ROW", "1 2 3\n4 5\n6\n"},
        {"LOWER_ROW", "1\n2 4\n3 5 6\n"},
        {"UPPER_DIAG_ROW", "0 1 2 3 0 4 5 0 6 0\n"},
        {"LOWER_DIAG_ROW", "0 1 0 2 4 0\n3 5 6 0\n"},
        {"LOWER_COL", "1 2 3 4 5 6\n"},
    };
    const std::vector<double> expected = {0, 1, 2, 3, 1, 0, 4, 5, 2, 4, 0, 6, 3, 5, 6, 0};
    for (const auto& [format, weights] : formats) {
        INFO(format);
        const Instance inst = parse_cvrplib(explicit_file(format, weights), "m4.vrp");
        CHECK(inst.explicit_weights);
        CHECK(inst.x.empty());
        CHECK(inst.dist == expected);
    }
    CHECK(parse_error(explicit_file("FULL_MATRIX", "0 1 2 3\n1 0 4 5\n2 4 0 6\n3 5 7 0\n")) ==
          "x.vrp: FULL_MATRIX is not symmetric: weight(3,4) = 6 but weight(4,3) = 7");
    CHECK(parse_error(explicit_file("UPPER_ROW", "1 2 3\n4 5\n")) ==
          "x.vrp: EDGE_WEIGHT_SECTION has 5 weights, UPPER_ROW with DIMENSION 4 needs 6");
}

TEST_CASE("capacities and demands whose loads would not be exact are refused") {
    // CAPACITY 2^63 - 1 and two such demands: their sum overflowed and one route was feasible.
    std::string text = line5_with("CAPACITY : 8", "CAPACITY : 9223372036854775807");
    CHECK(parse_error(text) == "x.vrp: CAPACITY 9223372036854775807 exceeds 2^53 = "
                               "9007199254740992: loads must be exact whole numbers");
    // At 2^53 the capacity is accepted, and demands summing past it are refused.
    text = line5_with("CAPACITY : 8", "CAPACITY : 9007199254740992");
    CHECK(parse_error(text) == "(no error)");
    text.replace(text.find("2 3\n3 4\n"), 8, "2 4503599627370496\n3 4503599627370497\n");
    CHECK(parse_error(text) == "x.vrp: the demands up to customer node 3 sum to more than 2^53 = "
                               "9007199254740992: loads must be exact whole numbers");
}

TEST_CASE("bad input: each problem gives one exact message naming the file") {
    CHECK(parse_error(line5_with("CAPACITY : 8\n", "")) ==
          "x.vrp:24: end of file without CAPACITY");
    CHECK(parse_error(line5_with("DEMAND_SECTION\n1 0\n2 3\n3 4\n4 2\n5 5\n6 1\n", "")) ==
          "x.vrp:18: end of file without DEMAND_SECTION");
    CHECK(parse_error(line5_with("5 5\n", "5 9\n")) ==
          "x.vrp:20: customer node 5 has demand 9, more than CAPACITY 8");
    CHECK(parse_error(line5_with("6 5 0", "6 6 0")) ==
          "x.vrp: customer node 6 cannot be served within DISTANCE 12 even alone (depot -> 6 -> "
          "depot = 12 + SERVICE_TIME 1 = 13)");
    CHECK(parse_error(line5_with("6 5 0\n", "")) ==
          "x.vrp: NODE_COORD_SECTION has 5 nodes, DIMENSION says 6");
    CHECK(parse_error(line5_with("6 5 0\n", "6 5 0\n7 6 0\n")) ==
          "x.vrp: NODE_COORD_SECTION has 7 nodes, DIMENSION says 6");
    CHECK(parse_error(line5_with("6 1\n", "")) == "x.vrp: DEMAND_SECTION has 5 entries, "
                                                  "DIMENSION says 6");
    CHECK(parse_error(line5_with("6 1\n", "6 1\n7 1\n")) == "x.vrp: DEMAND_SECTION has 7 "
                                                            "entries, DIMENSION says 6");
    CHECK(parse_error(line5_with("4 2\n", "4 -2\n")) == "x.vrp:19: node 4 has negative demand -2");
    CHECK(parse_error(line5_with("DEPOT_SECTION\n1\n-1\n", "")) ==
          "x.vrp:22: end of file without DEPOT_SECTION (no depot)");
    CHECK(parse_error(line5_with("DEPOT_SECTION\n1\n-1\n", "DEPOT_SECTION\n-1\n")) ==
          "x.vrp:22: DEPOT_SECTION lists no depot");
    CHECK(parse_error(line5_with("DEPOT_SECTION\n1\n-1\n", "DEPOT_SECTION\n1\n3\n-1\n")) ==
          "x.vrp:22: DEPOT_SECTION lists 2 depots (1, 3); only one depot is supported");
    CHECK(parse_error(line5_with("EUC_2D", "GEO")) ==
          "x.vrp:7: unsupported EDGE_WEIGHT_TYPE 'GEO' (supported: EUC_2D, EXPLICIT)");
    CHECK(parse_error(explicit_file("FUNCTION", "")) ==
          "x.vrp:6: unsupported EDGE_WEIGHT_FORMAT 'FUNCTION' (supported: FULL_MATRIX, "
          "UPPER_ROW, LOWER_ROW, UPPER_DIAG_ROW, LOWER_DIAG_ROW, UPPER_COL, LOWER_COL, "
          "UPPER_DIAG_COL, LOWER_DIAG_COL)");
    CHECK(parse_error(line5_with("TYPE : DCVRP", "TYPE : VRPTW")) ==
          "x.vrp:2: unsupported TYPE 'VRPTW' (supported: CVRP, DCVRP)");
    CHECK(parse_error(line5_with("DIMENSION : 6\n", "")) ==
          "x.vrp:24: end of file without DIMENSION");
    CHECK(parse_error(line5_with("CAPACITY : 8", "CAPACITY : 0")) ==
          "x.vrp:4: CAPACITY must be a positive whole number, got '0'");
    CHECK(parse_error(line5_with("DISTANCE : 12", "DISTANCE : -1")) ==
          "x.vrp:5: DISTANCE must be a positive number, got '-1'");
    CHECK(parse_error(line5_with("1 0\n2 3", "1 4\n2 3")) ==
          "x.vrp:16: depot node 1 has demand 4 (a depot has no demand)");
    CHECK(parse_error(line5_with("3 2 0", "3 2 zero")) ==
          "x.vrp:11: node 3: non-numeric coordinate 'zero'");
    CHECK(parse_error(line5_with("3 2 0", "2 2 0")) ==
          "x.vrp:11: duplicate node id 2 (first on line 10)");
    CHECK(parse_error(line5_with("DEPOT_SECTION\n1\n-1\n", "DEPOT_SECTION\n1\n-1\n1\n")) ==
          "x.vrp:25: unexpected '1' after the -1 that ends DEPOT_SECTION");
    CHECK(parse_error(line5_with("NAME : line5", "NAME : a\nNAME : b")) ==
          "x.vrp:2: duplicate NAME (first on line 1)");
}

TEST_CASE("every stored CVRPLIB instance parses with its dimension, capacity and limits") {
    const auto probe = locus::test::data_file("cvrplib/CMT1.vrp");
    struct Expected {
        std::int32_t n;
        std::int64_t capacity;
        double distance; // 0 = none
        double service;
    };
    const std::map<std::string, Expected> expected = {
        {"A-n32-k5", {32, 100, 0, 0}},      {"E-n51-k5", {51, 160, 0, 0}},
        {"P-n16-k8", {16, 35, 0, 0}},       {"CMT1", {51, 160, 0, 0}},
        {"CMT2", {76, 140, 0, 0}},          {"CMT3", {101, 200, 0, 0}},
        {"CMT4", {151, 200, 0, 0}},         {"CMT5", {200, 200, 0, 0}},
        {"CMT6", {51, 160, 200, 10}},       {"CMT7", {76, 140, 160, 10}},
        {"CMT8", {101, 200, 230, 10}},      {"CMT9", {151, 200, 200, 10}},
        {"CMT10", {200, 200, 200, 10}},     {"CMT11", {121, 200, 0, 0}},
        {"CMT12", {101, 200, 0, 0}},        {"CMT13", {121, 200, 720, 50}},
        {"CMT14", {101, 200, 1040, 90}},    {"Golden_1", {241, 550, 650, 0}},
        {"Golden_2", {321, 700, 900, 0}},   {"Golden_3", {401, 900, 1200, 0}},
        {"Golden_4", {481, 1000, 1600, 0}}, {"Golden_5", {201, 900, 1800, 0}},
        {"Golden_6", {281, 900, 1500, 0}},  {"Golden_7", {361, 900, 1300, 0}},
        {"Golden_8", {441, 900, 1200, 0}},  {"Golden_9", {256, 1000, 0, 0}},
        {"Golden_10", {324, 1000, 0, 0}},   {"Golden_11", {400, 1000, 0, 0}},
        {"Golden_12", {484, 1000, 0, 0}},   {"Golden_13", {253, 1000, 0, 0}},
        {"Golden_14", {321, 1000, 0, 0}},   {"Golden_15", {397, 1000, 0, 0}},
        {"Golden_16", {481, 1000, 0, 0}},   {"Golden_17", {241, 200, 0, 0}},
        {"Golden_18", {301, 200, 0, 0}},    {"Golden_19", {361, 200, 0, 0}},
        {"Golden_20", {421, 200, 0, 0}},    {"X-n101-k25", {101, 206, 0, 0}},
        {"X-n200-k36", {200, 402, 0, 0}},   {"X-n401-k29", {401, 745, 0, 0}},
        {"X-n502-k39", {502, 13, 0, 0}},    {"X-n801-k40", {801, 20, 0, 0}},
        {"X-n1001-k43", {1001, 131, 0, 0}},
    };
    std::size_t parsed = 0;
    for (const auto& entry : std::filesystem::directory_iterator(probe.parent_path())) {
        if (entry.path().extension() != ".vrp") continue;
        const std::string stem = entry.path().stem().string();
        INFO(stem);
        const Instance inst = locus::dcvrp::read_cvrplib(entry.path());
        CHECK(inst.name == stem);
        const auto known = expected.find(stem);
        REQUIRE(known != expected.end());
        CHECK(inst.n == known->second.n);
        CHECK(inst.capacity == known->second.capacity);
        CHECK(inst.has_duration_limit() == (known->second.distance > 0));
        if (known->second.distance > 0) CHECK(inst.max_duration == known->second.distance);
        CHECK(inst.service_time == known->second.service);
        CHECK(inst.node_id[0] == 1);
        CHECK(inst.rounding ==
              (stem.find('-') != std::string::npos ? Rounding::nint : Rounding::exact));
        ++parsed;
    }
    CHECK(parsed == expected.size());
}
