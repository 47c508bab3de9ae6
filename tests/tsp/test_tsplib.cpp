// TSPLIB reader: hand-computed tiny instances per edge weight type and explicit format, the
// accepted format quirks, exact error messages, and every stored TSPLIB instance and opt tour.
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "locus/error.hpp"
#include "locus/tsp/instance.hpp"
#include "locus/tsp/tour_io.hpp"
#include "locus/tsp/tsplib.hpp"
#include "test_support.hpp"

using locus::InstanceError;
using locus::tsp::EdgeWeightType;
using locus::tsp::Instance;
using locus::tsp::MetricKind;
using locus::tsp::parse_tsplib;

namespace {

std::string coordinate_file(const std::string& type, const std::string& nodes, int n) {
    return "NAME : tiny\nTYPE : TSP\nDIMENSION : " + std::to_string(n) +
           "\nEDGE_WEIGHT_TYPE : " + type + "\nNODE_COORD_SECTION\n" + nodes + "EOF\n";
}

std::string explicit_file(const std::string& format, const std::string& weights) {
    return "NAME: m4\nTYPE: TSP\nDIMENSION: 4\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: " +
           format + "\nEDGE_WEIGHT_SECTION\n" + weights + "EOF\n";
}

/// The message of the InstanceError thrown by parse_tsplib(text, "x.tsp").
std::string parse_error(const std::string& text) {
    return locus::test::error_message<InstanceError>([&] {
        parse_tsplib(text, "x.tsp");
    });
}

const std::string kHeader = "NAME : x\nTYPE : TSP\nDIMENSION : 4\nEDGE_WEIGHT_TYPE : EUC_2D\n";

} // namespace

TEST_CASE("EUC_2D on integral coordinates: nint of the Euclidean distance") {
    const Instance inst =
        parse_tsplib(coordinate_file("EUC_2D", "1 0 0\n2 3 4\n3 6 8\n4 1 1\n", 4), "tiny.tsp");
    CHECK(inst.name == "tiny");
    CHECK(inst.n == 4);
    CHECK(inst.type == EdgeWeightType::euc_2d);
    CHECK(inst.metric == MetricKind::euc_2d_int);
    CHECK(inst.xi == std::vector<std::int32_t>{0, 3, 6, 1});
    CHECK(inst.distance(0, 1) == 5);
    CHECK(inst.distance(0, 2) == 10);
    CHECK(inst.distance(0, 3) == 1); // sqrt(2) = 1.41
    CHECK(inst.distance(1, 3) == 4); // sqrt(13) = 3.61
    CHECK(inst.distance(2, 3) == 9); // sqrt(74) = 8.60
    const std::vector<std::int32_t> tour{0, 1, 2, 3};
    CHECK(inst.tour_length(tour) == 5 + 5 + 9 + 1);
}

TEST_CASE("EUC_2D on fractional coordinates uses the double path") {
    const Instance inst =
        parse_tsplib(coordinate_file("EUC_2D", "1 0 0\n2 1.5 2\n3 0.3 0.4\n", 3), "tiny.tsp");
    CHECK(inst.metric == MetricKind::euc_2d_real);
    CHECK(inst.xi.empty());
    CHECK(inst.distance(0, 1) == 3); // 2.5 rounds up
    CHECK(inst.distance(0, 2) == 1); // 0.5 rounds up
    CHECK(inst.distance(1, 2) == 2); // sqrt(1.44 + 2.56) = 2
}

TEST_CASE("CEIL_2D rounds up") {
    const Instance inst =
        parse_tsplib(coordinate_file("CEIL_2D", "1 0 0\n2 3 4\n3 1 1\n", 3), "tiny.tsp");
    CHECK(inst.metric == MetricKind::ceil_2d_int);
    CHECK(inst.distance(0, 1) == 5);
    CHECK(inst.distance(0, 2) == 2);
    CHECK(inst.distance(1, 2) == 4);
    const Instance real =
        parse_tsplib(coordinate_file("CEIL_2D", "1 0 0\n2 3 4.5\n3 0.5 0\n", 3), "tiny.tsp");
    CHECK(real.metric == MetricKind::ceil_2d_real);
    CHECK(real.distance(0, 1) == 6); // sqrt(29.25) = 5.41
    CHECK(real.distance(0, 2) == 1);
}

TEST_CASE("ATT pseudo-Euclidean distance") {
    const Instance inst =
        parse_tsplib(coordinate_file("ATT", "1 0 0\n2 10 0\n3 0 30\n", 3), "tiny.tsp");
    CHECK(inst.metric == MetricKind::att);
    CHECK(inst.distance(0, 1) == 4);  // sqrt(10) = 3.16 -> 3 < r -> 4
    CHECK(inst.distance(0, 2) == 10); // sqrt(90) = 9.49 -> 9 < r -> 10
    CHECK(inst.distance(1, 2) == 10); // sqrt(100) = 10 exactly
}

TEST_CASE("negative EXPLICIT weights are refused") {
    CHECK(parse_error(explicit_file("UPPER_ROW", "1 2 3\n4 -5\n6\n")) ==
          "x.tsp:8: edge weight '-5' is negative (TSP weights are distances)");
    CHECK(parse_error(explicit_file("UPPER_ROW", "1 2 3\n4 5\n6\n")) == "(no error)");
}

TEST_CASE("GEO coordinates beyond the sphere and coordinates that are not finite are refused") {
    CHECK(parse_error(coordinate_file("GEO", "1 0 0\n2 1e300 1.0\n3 0 0.30\n", 3)) ==
          "x.tsp:7: node 2: GEO latitude 1e300 is out of range [-90, 90] (DDD.MM degrees and "
          "minutes)");
    CHECK(parse_error(coordinate_file("GEO", "1 0 0\n2 0 1.0\n3 0 -180.5\n", 3)) ==
          "x.tsp:8: node 3: GEO longitude -180.5 is out of range [-180, 180] (DDD.MM degrees and "
          "minutes)");
    CHECK(parse_error(coordinate_file("GEO", "1 0 0\n2 90.0 180.0\n3 -90 -180\n", 3)) ==
          "(no error)");
    CHECK(parse_error(coordinate_file("EUC_2D", "1 0 0\n2 1e400 1\n3 0 1\n", 3)).find(
              "x.tsp:7: node 2: ") == 0);
}

TEST_CASE("GEO distances in DDD.MM format, computed into a matrix") {
    // One degree of longitude on the equator: 6378.388 * 3.141592 / 180 = 111.32 -> 112;
    // 0.30 is 30 minutes = half a degree: 55.66 -> 56.
    const Instance inst =
        parse_tsplib(coordinate_file("GEO", "1 0 0\n2 0 1.0\n3 0 0.30\n", 3), "tiny.tsp");
    CHECK(inst.type == EdgeWeightType::geo);
    CHECK(inst.metric == MetricKind::matrix);
    CHECK(inst.matrix.size() == 9);
    CHECK(inst.distance(0, 1) == 112);
    CHECK(inst.distance(0, 2) == 56);
    CHECK(inst.distance(1, 2) == 56);
    CHECK(inst.distance(1, 1) == 0);
    CHECK(locus::tsp::geo_distance(1.0, 0.0, 0.0, 0.0) == 112);
    // Truncation, not rounding, of the degrees: 10.59 is 10 degrees 59 minutes.
    CHECK(locus::tsp::geo_distance(0.0, 10.59, 0.0, 11.0) == 2);
}

TEST_CASE("EXPLICIT formats give the same symmetric matrix") {
    const std::int32_t d[4][4] = {{0, 1, 2, 3}, {1, 0, 4, 5}, {2, 4, 0, 6}, {3, 5, 6, 0}};
    const std::map<std::string, std::string> files = {
        {"FULL_MATRIX", "0 1 2 3\n1 0 4 5 2 4\n0 6\n3 5 6 0\n"},
        {"UPPER_ROW", "1 2 3\n4 5\n6\n"},
        {"LOWER_COL", "1 2\n3 4 5 6\n"},
        {"LOWER_ROW", "1\n2 4\n3 5 6\n"},
        {"UPPER_COL", "1 2 4 3 5 6\n"},
        {"UPPER_DIAG_ROW", "0 1 2 3 0\n4 5 0\n6 0\n"},
        {"LOWER_DIAG_ROW", "0\n1 0\n2 4 0\n3 5 6 0\n"},
        {"UPPER_DIAG_COL", "0 1 0 2 4 0 3 5 6 0\n"},
        {"LOWER_DIAG_COL", "0 1 2 3\n0 4 5 0 6 0\n"},
    };
    for (const auto& [format, weights] : files) {
        CAPTURE(format);
        const Instance inst = parse_tsplib(explicit_file(format, weights), "m4.tsp");
        CHECK(inst.type == EdgeWeightType::explicit_matrix);
        CHECK(inst.metric == MetricKind::matrix);
        CHECK(inst.x.empty());
        for (std::int32_t i = 0; i < 4; ++i)
            for (std::int32_t j = 0; j < 4; ++j)
                CHECK(inst.distance(i, j) == d[i][j]);
        const std::vector<std::int32_t> tour{0, 1, 2, 3};
        CHECK(inst.tour_length(tour) == 1 + 4 + 6 + 3);
    }
}

TEST_CASE("format quirks: CRLF, blanks, keys without space, scientific notation, no EOF") {
    const std::string text = "NAME:quirky.tsp  \r\nCOMMENT : first\r\nCOMMENT:second \r\n"
                             "TYPE:TSP\r\nDIMENSION :3\r\nEDGE_WEIGHT_TYPE:   EUC_2D\t\r\n"
                             "DISPLAY_DATA_TYPE : COORD_DISPLAY\r\nNODE_COORD_SECTION\r\n"
                             "  1   0.00000e+00 0.0\r\n\r\n2 +3.00000E+00\t4\r\n"
                             "3 6.0e0 8.00000e+00   \r\n"
                             "DISPLAY_DATA_SECTION\r\n1 5 5\r\n2 6 6\r\n3 7 7\r\n";
    const Instance inst = parse_tsplib(text, "q.tsp");
    CHECK(inst.name == "quirky");
    CHECK(inst.comment == "first; second");
    CHECK(inst.metric == MetricKind::euc_2d_int);
    CHECK(inst.x == std::vector<double>{0, 3, 6});
    CHECK(inst.y == std::vector<double>{0, 4, 8});
    CHECK(inst.distance(0, 2) == 10);
}

TEST_CASE("CR-only line ends (no LF in the file) end lines") {
    const Instance inst = parse_tsplib(
        "NAME : cr\rDIMENSION : 3\rEDGE_WEIGHT_TYPE : EUC_2D\rNODE_COORD_SECTION\r1 0 0\r"
        "2 3 4\r3 6 8\rEOF\r",
        "cr.tsp");
    CHECK(inst.name == "cr");
    CHECK(inst.n == 3);
    CHECK(inst.distance(0, 2) == 10);
}

TEST_CASE("a file without NAME is named after its file") {
    const Instance inst = parse_tsplib(
        "DIMENSION: 3\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 0 1\n3 1 0\n",
        "dir/plain.tsp");
    CHECK(inst.name == "plain");
}

TEST_CASE("malformed instances give exact messages") {
    const std::string nodes4 = "NODE_COORD_SECTION\n1 0 0\n2 0 1\n3 1 0\n4 1 1\nEOF\n";
    CHECK(parse_error("NAME : x\nEDGE_WEIGHT_TYPE : EUC_2D\n" + nodes4) ==
          "x.tsp:8: end of file without DIMENSION");
    CHECK(parse_error("NAME : x\nDIMENSION : 4\n" + nodes4) ==
          "x.tsp:8: end of file without EDGE_WEIGHT_TYPE");
    CHECK(parse_error(kHeader + "EOF\n") == "x.tsp:5: end of file without NODE_COORD_SECTION");
    CHECK(parse_error("NAME : x\nTYPE : TSP\nDIMENSION : 4\nEDGE_WEIGHT_TYPE : XRAY1\n" + nodes4) ==
          "x.tsp:4: unsupported EDGE_WEIGHT_TYPE 'XRAY1' (supported: EUC_2D, CEIL_2D, ATT, GEO, "
          "EXPLICIT)");
    CHECK(
        parse_error("NAME : x\nTYPE : ATSP\nDIMENSION : 4\nEDGE_WEIGHT_TYPE : EUC_2D\n" + nodes4) ==
        "x.tsp:2: unsupported TYPE 'ATSP': asymmetric instances are not supported "
        "(supported: TSP)");
    CHECK(parse_error("NAME : x\nTYPE : CVRP\nDIMENSION : 4\nEDGE_WEIGHT_TYPE : EUC_2D\n" +
                      nodes4) == "x.tsp:2: unsupported TYPE 'CVRP' (supported: TSP)");
    CHECK(parse_error("NAME : x\nDIMENSION : four\nEDGE_WEIGHT_TYPE : EUC_2D\n" + nodes4) ==
          "x.tsp:2: DIMENSION must be a whole number, got 'four'");
    CHECK(parse_error("NAME : x\nDIMENSION : 2\nEDGE_WEIGHT_TYPE : EUC_2D\n" + nodes4) ==
          "x.tsp:2: DIMENSION 2 is too small (a tour needs at least 3 cities)");
    CHECK(parse_error("NAME : x\nDIMENSION : 4\nDIMENSION : 5\nEDGE_WEIGHT_TYPE : EUC_2D\n" +
                      nodes4) == "x.tsp:3: duplicate DIMENSION (first on line 2)");
    CHECK(parse_error(kHeader + "NODE_COORD_TYPE : THREED_COORDS\n" + nodes4) ==
          "x.tsp:5: unsupported NODE_COORD_TYPE 'THREED_COORDS' (supported: TWOD_COORDS)");
    CHECK(parse_error(kHeader + "NODE_COORD_SECTION\n1 0 0\n2 0 1\n3 1 0\nEOF\n") ==
          "x.tsp: NODE_COORD_SECTION has 3 nodes, DIMENSION says 4");
    // Checked against the section before anything of size DIMENSION is allocated.
    CHECK(parse_error("NAME : x\nDIMENSION : 2147483647\nEDGE_WEIGHT_TYPE : EUC_2D\n"
                      "NODE_COORD_SECTION\n1 0 0\n2 0 1\n") ==
          "x.tsp: NODE_COORD_SECTION has 2 nodes, DIMENSION says 2147483647");
    CHECK(parse_error(kHeader + "NODE_COORD_SECTION\n1 0 0\n2 0 1\n3 1 0\n4 abc 1\n") ==
          "x.tsp:9: node 4: non-numeric coordinate 'abc'");
    CHECK(parse_error(kHeader + "NODE_COORD_SECTION\n1 0 0\n2 0 1\n3 1 0\n4 1 1e999\n") ==
          "x.tsp:9: node 4: non-numeric coordinate '1e999'");
    CHECK(parse_error(kHeader + "NODE_COORD_SECTION\n1 0 0\n2 0 1\n3 1\n4 1 1\n") ==
          "x.tsp:8: node 3: expected 'id x y', found 2 values");
    CHECK(parse_error(kHeader + "NODE_COORD_SECTION\n1 0 0\nx 0 1\n3 1 0\n4 1 1\n") ==
          "x.tsp:7: non-numeric node id 'x'");
    CHECK(parse_error(kHeader + "NODE_COORD_SECTION\n1 0 0\n2 0 1\n5 1 0\n4 1 1\n") ==
          "x.tsp:8: node id 5 out of range 1..4");
    CHECK(parse_error(kHeader + "NODE_COORD_SECTION\n1 0 0\n2 0 1\n2 1 0\n4 1 1\n") ==
          "x.tsp:8: duplicate node id 2 (first on line 7)");
    CHECK(parse_error(kHeader + "NODE_COORD_SECTION\n1 0 0\n2 0 1\n3 1 0\n4 1 1\n"
                                "NODE_COORD_SECTION\n") ==
          "x.tsp:10: duplicate NODE_COORD_SECTION (first on line 5)");
    CHECK(parse_error("1 2 3\n" + kHeader) == "x.tsp:1: unexpected data '1 2 3' outside a section");
    CHECK(parse_error(kHeader + "DIMENSION 4\n") == "x.tsp:5: expected 'KEY : value', found "
                                                    "'DIMENSION 4'");
    CHECK(parse_error(kHeader + "NODE_COORD_SECTION\n1 0 0\n2 0 3e9\n3 1 0\n4 1 1\n") ==
          "x.tsp: coordinates span [0, 1] x [0, 3000000000]: distances would exceed 2^31 - 1");
}

TEST_CASE("malformed explicit matrices give exact messages") {
    const std::string head = "NAME: m4\nTYPE: TSP\nDIMENSION: 4\nEDGE_WEIGHT_TYPE: EXPLICIT\n";
    CHECK(parse_error(head + "EDGE_WEIGHT_SECTION\n1 2 3 4 5 6\n") ==
          "x.tsp: EDGE_WEIGHT_TYPE EXPLICIT needs an EDGE_WEIGHT_FORMAT");
    CHECK(parse_error(head + "EDGE_WEIGHT_FORMAT: FUNCTION\nEDGE_WEIGHT_SECTION\n1\n") ==
          "x.tsp:5: unsupported EDGE_WEIGHT_FORMAT 'FUNCTION' (supported: FULL_MATRIX, "
          "UPPER_ROW, LOWER_ROW, UPPER_DIAG_ROW, LOWER_DIAG_ROW, UPPER_COL, LOWER_COL, "
          "UPPER_DIAG_COL, LOWER_DIAG_COL)");
    CHECK(parse_error(head + "EDGE_WEIGHT_FORMAT: UPPER_ROW\nEOF\n") ==
          "x.tsp:6: end of file without EDGE_WEIGHT_SECTION");
    CHECK(parse_error(explicit_file("UPPER_ROW", "1 2 3\n4 5\n")) ==
          "x.tsp: EDGE_WEIGHT_SECTION has 5 weights, UPPER_ROW with DIMENSION 4 needs 6");
    CHECK(parse_error(explicit_file("UPPER_ROW", "1 2 3\n4 5 6\n7\n")) ==
          "x.tsp:9: EDGE_WEIGHT_SECTION has more than the 6 weights that UPPER_ROW with "
          "DIMENSION 4 needs");
    CHECK(parse_error(explicit_file("UPPER_ROW", "1 2 3\n4 five 6\n")) ==
          "x.tsp:8: non-numeric edge weight 'five'");
    CHECK(parse_error(explicit_file("UPPER_ROW", "1 2 3\n4 5 6.5\n")) ==
          "x.tsp:8: edge weight '6.5' is not a 32-bit integer");
    CHECK(parse_error(explicit_file("FULL_MATRIX", "0 1 2 3\n1 0 4 5\n2 4 0 6\n3 5 7 0\n")) ==
          "x.tsp: FULL_MATRIX is not symmetric: weight(3,4) = 6 but weight(4,3) = 7 (TYPE TSP "
          "needs symmetric distances)");
}

TEST_CASE("read_tsplib reports unreadable files") {
    try {
        locus::tsp::read_tsplib("no/such/dir/p.tsp");
        FAIL("no error");
    } catch (const InstanceError& e) {
        CHECK(std::string(e.what()) ==
              "cannot open instance file 'no/such/dir/p.tsp': No such file or directory");
    }
    const auto dir = locus::test::temp_dir("tsplib-dir");
    try {
        locus::tsp::read_tsplib(dir);
        FAIL("no error");
    } catch (const InstanceError& e) {
        CHECK(std::string(e.what()) ==
              "cannot read instance file '" + dir.string() + "': Is a directory");
    }
    const auto path = dir / "bad.tsp";
    locus::test::write_file(path, "NAME : bad\nEDGE_WEIGHT_TYPE : EUC_2D\n");
    const std::string expected = path.string() + ":2: end of file without DIMENSION";
    CHECK_THROWS_WITH_AS(locus::tsp::read_tsplib(path), expected.c_str(), InstanceError);
    std::filesystem::remove_all(dir);
}

namespace {

/// best_known per TSPLIB instance from best-known.csv.
std::map<std::string, std::int64_t> tsplib_best_known(const std::filesystem::path& csv) {
    std::map<std::string, std::int64_t> result;
    std::ifstream in(csv);
    std::string line;
    std::getline(in, line); // header
    while (std::getline(in, line)) {
        std::stringstream ss(line);
        std::string library, instance, best;
        std::getline(ss, library, ',');
        std::getline(ss, instance, ',');
        std::getline(ss, best, ',');
        if (library == "tsplib") result[instance] = std::stoll(best);
    }
    return result;
}

/// 280 for "a280", 3038 for "pcb3038": TSPLIB names end with the number of cities.
std::size_t size_from_name(const std::string& name) {
    const auto digits = name.find_last_not_of("0123456789");
    return std::stoul(name.substr(digits + 1));
}

} // namespace

TEST_CASE("every stored TSPLIB instance parses with its DIMENSION and metric") {
    const auto csv = locus::test::data_file("best-known.csv");
    const auto probe = locus::test::data_file("tsplib/kroA100.tsp");
    const auto best = tsplib_best_known(csv);
    const std::map<std::string, MetricKind> expected_metric = {
        {"att48", MetricKind::att},          {"burma14", MetricKind::matrix},
        {"ulysses16", MetricKind::matrix},   {"ulysses22", MetricKind::matrix},
        {"uy734", MetricKind::euc_2d_real},  {"d1291", MetricKind::euc_2d_real},
        {"fl1577", MetricKind::euc_2d_real}, {"pcb3038", MetricKind::euc_2d_int},
        {"pr2392", MetricKind::euc_2d_int},  {"kroA100", MetricKind::euc_2d_int},
    };
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(probe.parent_path())) {
        if (entry.path().extension() != ".tsp") continue;
        const std::string stem = entry.path().stem().string();
        CAPTURE(stem);
        const Instance inst = locus::tsp::read_tsplib(entry.path());
        CHECK(inst.name == stem);
        CHECK(inst.n == size_from_name(stem));
        CHECK(best.count(stem) == 1);
        if (const auto it = expected_metric.find(stem); it != expected_metric.end())
            CHECK(inst.metric == it->second);
        ++files;
    }
    CHECK(files == 26);
}

TEST_CASE("every TSPLIB opt tour reproduces its best-known length") {
    const auto csv = locus::test::data_file("best-known.csv");
    const auto probe = locus::test::data_file("tsplib/opt-tours/kroA100.opt.tour");
    const auto best = tsplib_best_known(csv);
    std::size_t tours = 0;
    for (const auto& entry : std::filesystem::directory_iterator(probe.parent_path())) {
        const std::string file = entry.path().filename().string();
        if (!file.ends_with(".opt.tour")) continue;
        const std::string name = file.substr(0, file.size() - 9);
        CAPTURE(name);
        const Instance inst =
            locus::tsp::read_tsplib(probe.parent_path().parent_path() / (name + ".tsp"));
        const auto tour = locus::tsp::read_tour(entry.path(), inst.n);
        REQUIRE(best.count(name) == 1);
        CHECK(inst.tour_length(tour) == best.at(name));
        ++tours;
    }
    CHECK(tours == 12);
}
