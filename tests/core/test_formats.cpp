// The formats library: TSPLIB-family keyed files (layout, shared checks, exact messages),
// explicit weight matrices in every EDGE_WEIGHT_FORMAT, and integer token streams.

#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "locus/error.hpp"
#include "locus/formats/keyed_file.hpp"
#include "locus/formats/token_stream.hpp"
#include "locus/formats/weight_matrix.hpp"
#include "locus/search_context.hpp"
#include "test_support.hpp"

using locus::InstanceError;
using locus::formats::KeyedFile;
using locus::formats::KeyedLayout;
using locus::formats::KeyedLine;
using locus::formats::TokenStream;
using locus::formats::WeightFormat;

namespace {

KeyedLayout layout() {
    return {{"NAME", "DIMENSION", "TYPE", "EDGE_WEIGHT_FORMAT"},
            {"COMMENT"},
            {"NODE_COORD_SECTION", "DEPOT_SECTION", "EDGE_WEIGHT_SECTION"}};
}

/// The message of the InstanceError thrown by `f`, or "(no error)".
template <class F> std::string error_of(F&& f) {
    return locus::test::error_message<InstanceError>(f);
}

std::string scan_error(const std::string& text) {
    return error_of([&] { KeyedFile(text, "k.txt", layout()); });
}

} // namespace

TEST_CASE("keyed lines: line ends, blanks, BOM, keys with and without colon") {
    const auto lines = locus::formats::split_keyed_lines("\xEF\xBB\xBFNAME:a b \r\n\r\n"
                                                         "\tDIMENSION  : 3\nNODE_COORD_SECTION\n"
                                                         " 1 2 3\n");
    REQUIRE(lines.size() == 4);
    CHECK(lines[0].number == 1);
    CHECK(lines[0].key == "NAME");
    CHECK(lines[0].value == "a b");
    CHECK(lines[0].has_colon);
    CHECK(lines[1].number == 3);
    CHECK(lines[1].key == "DIMENSION");
    CHECK(lines[1].value == "3");
    CHECK(lines[2].keyword);
    CHECK_FALSE(lines[2].has_colon);
    CHECK(lines[2].key == "NODE_COORD_SECTION");
    CHECK_FALSE(lines[3].keyword);
    CHECK(lines[3].text == "1 2 3");
    // A file of CR line ends only ends its lines at CR.
    const auto cr = locus::formats::split_keyed_lines("A : 1\rB : 2\r");
    REQUIRE(cr.size() == 2);
    CHECK(cr[1].number == 2);
    CHECK(cr[1].value == "2");
}

TEST_CASE("keyed file: values, repeated keys, sections up to EOF, skipped sections") {
    const std::string text = "NAME : t\nCOMMENT : one\nCOMMENT : two\nOTHER : ignored\n"
                             "DIMENSION : 3\nNODE_COORD_SECTION\n1 0 0\n2 0 1\n\n3 1 0\n"
                             "DISPLAY_DATA_SECTION\n1 5 5\nDEPOT_SECTION\n1\n-1\nEOF\n"
                             "anything after EOF\n";
    const KeyedFile file(text, "k.txt", layout());
    CHECK(file.value("NAME").value == "t");
    CHECK(file.value("NAME").line == 1);
    CHECK_FALSE(file.value("TYPE").present());
    REQUIRE(file.list("COMMENT").size() == 2);
    CHECK(file.list("COMMENT")[1].value == "two");
    CHECK(file.list("COMMENT")[1].line == 3);
    const auto& coords = file.section("NODE_COORD_SECTION");
    CHECK(coords.line == 6);
    CHECK(coords.size() == 3);
    CHECK(file.data(coords)[2].number == 10);
    CHECK(file.section("DEPOT_SECTION").size() == 2);
    CHECK_FALSE(file.section("EDGE_WEIGHT_SECTION").present());
    CHECK(file.whole_number("DIMENSION") == 3);
    CHECK(file.name(".tsp") == "t");
    CHECK(KeyedFile("DIMENSION : 3\n", "dir/plain.tsp", layout()).name(".tsp") == "plain");
    CHECK(KeyedFile("NAME : u16.tsp\n", "x", layout()).name(".tsp") == "u16");
    CHECK_THROWS_AS(file.value("CAPACITY"), std::logic_error);
}

TEST_CASE("keyed file: malformed layouts give exact messages") {
    CHECK(scan_error("1 2 3\nNAME : x\n") == "k.txt:1: unexpected data '1 2 3' outside a section");
    CHECK(scan_error("NAME : x\nNODE_COORD_SECTION 1 0 0\n") ==
          "k.txt:2: unexpected text '1 0 0' after NODE_COORD_SECTION");
    CHECK(scan_error("NAME : x\nNAME : y\n") == "k.txt:2: duplicate NAME (first on line 1)");
    CHECK(scan_error("DEPOT_SECTION\n1\n\nDEPOT_SECTION\n2\n") ==
          "k.txt:4: duplicate DEPOT_SECTION (first on line 1)");
    CHECK(scan_error("NAME : x\nDIMENSION 4\n") ==
          "k.txt:2: expected 'KEY : value', found 'DIMENSION 4'");
    // Unknown keys may repeat; unknown sections are skipped with their data.
    CHECK(scan_error("OTHER : 1\nOTHER : 2\nFIXED_EDGES_SECTION\n1 2\n-1\n") == "(no error)");
}

TEST_CASE("keyed file: required values, whole numbers and choices") {
    const KeyedFile file("NAME : x\nDIMENSION : four\nTYPE : ATSP\n", "k.txt", layout());
    CHECK(error_of([&] { file.required("EDGE_WEIGHT_FORMAT"); }) ==
          "k.txt:3: end of file without EDGE_WEIGHT_FORMAT");
    CHECK(error_of([&] { file.required_section("DEPOT_SECTION"); }) ==
          "k.txt:3: end of file without DEPOT_SECTION");
    CHECK(error_of([&] { file.whole_number("DIMENSION"); }) ==
          "k.txt:2: DIMENSION must be a whole number, got 'four'");
    CHECK(error_of([&] {
              file.choice("TYPE", {"TSP", "CVRP"}, 0);
          }) == "k.txt:3: unsupported TYPE 'ATSP' (supported: TSP, CVRP)");
    CHECK(file.choice("TYPE", {"TSP", "ATSP"}, 0) == 1);
    CHECK(file.choice("EDGE_WEIGHT_FORMAT", {"FULL_MATRIX"}, 7) == 7);
}

TEST_CASE("keyed file: node sections check count, ids and layout in order") {
    const std::string head = "NAME : x\nNODE_COORD_SECTION\n";
    const auto coordinates = [&](const std::string& lines, std::size_t n) {
        const std::string text = head + lines;
        return error_of([&] {
            const KeyedFile file(text, "k.txt", layout());
            file.coordinates(file.section("NODE_COORD_SECTION"), n);
        });
    };
    const std::string good_text = head + "2 3 4\n1 0 0.5e1\n3 -1 +2\n";
    const KeyedFile good(good_text, "k.txt", layout());
    const auto xy = good.coordinates(good.section("NODE_COORD_SECTION"), 3);
    CHECK(xy.x == std::vector<double>{0, 3, -1});
    CHECK(xy.y == std::vector<double>{5, 4, 2});
    CHECK(coordinates("1 0 0\n2 0 1\n", 3) == "k.txt: NODE_COORD_SECTION has 2 nodes, DIMENSION "
                                              "says 3");
    CHECK(coordinates("1 0 0\n2 0 1\n", 2147483647) ==
          "k.txt: NODE_COORD_SECTION has 2 nodes, DIMENSION says 2147483647");
    CHECK(coordinates("1 0 0\nx 0 1\n", 2) == "k.txt:4: non-numeric node id 'x'");
    CHECK(coordinates("1 0 0\n2 0\n", 2) == "k.txt:4: node 2: expected 'id x y', found 2 values");
    CHECK(coordinates("1 0 0\n3 0 1\n", 2) == "k.txt:4: node id 3 out of range 1..2");
    CHECK(coordinates("1 0 0\n0 0 1\n", 2) == "k.txt:4: node id 0 out of range 1..2");
    CHECK(coordinates("1 0 0\n1 0 1\n", 2) == "k.txt:4: duplicate node id 1 (first on line 3)");
    CHECK(coordinates("1 0 0\n2 0 nan\n", 2) == "k.txt:4: node 2: non-numeric coordinate 'nan'");
    CHECK(coordinates("1 1e999 0\n2 0 1\n", 2) ==
          "k.txt:3: node 1: non-numeric coordinate '1e999'");
    // A check may refuse a node.
    CHECK(error_of([&] {
              good.coordinates(
                  good.section("NODE_COORD_SECTION"), 3,
                  [&](std::size_t index, const KeyedLine& line, auto, double x, double) {
                      if (x < 0)
                          good.fail(line.number, "node " + std::to_string(index + 1) + " is west");
                  });
          }) == "k.txt:5: node 3 is west");
}

TEST_CASE("keyed file: -1-terminated id lists") {
    const auto ids = [](const std::string& lines, std::size_t n) {
        const std::string text = "DEPOT_SECTION\n" + lines;
        const KeyedFile file(text, "k.txt", layout());
        return file.terminated_ids(file.section("DEPOT_SECTION"), n, "depot");
    };
    CHECK(ids("1\n-1\n", 5) == std::vector<std::int64_t>{1});
    CHECK(ids("2 4\n", 5) == std::vector<std::int64_t>{2, 4}); // no -1
    CHECK(ids("-1\n", 5).empty());
    CHECK(error_of([&] { ids("1\n-1\n3\n", 5); }) ==
          "k.txt:4: unexpected '3' after the -1 that ends DEPOT_SECTION");
    CHECK(error_of([&] { ids("1 x\n", 5); }) == "k.txt:2: non-numeric depot id 'x'");
    CHECK(error_of([&] { ids("6\n", 5); }) == "k.txt:2: depot id 6 out of range 1..5");
}

TEST_CASE("explicit matrices: every EDGE_WEIGHT_FORMAT gives the same symmetric matrix") {
    const std::vector<std::int64_t> d = {0, 1, 2, 3, 1, 0, 4, 5, 2, 4, 0, 6, 3, 5, 6, 0};
    const std::vector<std::pair<std::string, std::string>> files = {
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
        const std::string text =
            "EDGE_WEIGHT_FORMAT : " + format + "\nEDGE_WEIGHT_SECTION\n" + weights + "EOF\n";
        const KeyedFile file(text, "m.txt", layout());
        const WeightFormat parsed = locus::formats::explicit_format(file);
        CHECK(locus::formats::weight_count(parsed, 4) == (format == "FULL_MATRIX" ? 16u
                                                          : format.find("DIAG") != format.npos
                                                              ? 10u
                                                              : 6u));
        const auto matrix = locus::formats::read_weight_matrix<std::int64_t>(
            file, parsed, 4, [](double w, std::string_view, const KeyedLine&) {
                return static_cast<std::int64_t>(w);
            });
        CHECK(matrix == d);
    }
}

TEST_CASE("explicit matrices: malformed sections give exact messages") {
    const auto read = [](const std::string& text, std::string_view reason = {}) {
        return error_of([&] {
            const KeyedFile file(text, "m.txt", layout());
            const WeightFormat format = locus::formats::explicit_format(file);
            locus::formats::read_weight_matrix<double>(
                file, format, 3, [](double w, std::string_view, const KeyedLine&) { return w; },
                reason);
        });
    };
    CHECK(read("EDGE_WEIGHT_SECTION\n1 2 3\n") ==
          "m.txt: EDGE_WEIGHT_TYPE EXPLICIT needs an EDGE_WEIGHT_FORMAT");
    CHECK(read("EDGE_WEIGHT_FORMAT : FUNCTION\n") ==
          "m.txt:1: unsupported EDGE_WEIGHT_FORMAT 'FUNCTION' (supported: FULL_MATRIX, "
          "UPPER_ROW, LOWER_ROW, UPPER_DIAG_ROW, LOWER_DIAG_ROW, UPPER_COL, LOWER_COL, "
          "UPPER_DIAG_COL, LOWER_DIAG_COL)");
    const std::string upper = "EDGE_WEIGHT_FORMAT : UPPER_ROW\n";
    CHECK(read(upper) == "m.txt:1: end of file without EDGE_WEIGHT_SECTION");
    CHECK(read(upper + "EDGE_WEIGHT_SECTION\n1 2\n") ==
          "m.txt: EDGE_WEIGHT_SECTION has 2 weights, UPPER_ROW with DIMENSION 3 needs 3");
    CHECK(read(upper + "EDGE_WEIGHT_SECTION\n1 2\n3 4\n") ==
          "m.txt:4: EDGE_WEIGHT_SECTION has more than the 3 weights that UPPER_ROW with "
          "DIMENSION 3 needs");
    CHECK(read(upper + "EDGE_WEIGHT_SECTION\n1 two 3\n") ==
          "m.txt:3: non-numeric edge weight 'two'");
    CHECK(read(upper + "EDGE_WEIGHT_SECTION\n1 2.5e0 3\n") == "(no error)");
    const std::string full = "EDGE_WEIGHT_FORMAT : FULL_MATRIX\nEDGE_WEIGHT_SECTION\n"
                             "0 1 2\n1 0 3\n2 3.5 0\n";
    CHECK(read(full) == "m.txt: FULL_MATRIX is not symmetric: weight(2,3) = 3 but weight(3,2) = "
                        "3.5");
    CHECK(read(full, "distances are symmetric") ==
          "m.txt: FULL_MATRIX is not symmetric: weight(2,3) = 3 but weight(3,2) = 3.5 (distances "
          "are symmetric)");
    // A conversion may refuse a weight, naming its line.
    const std::string negative = upper + "EDGE_WEIGHT_SECTION\n1 2\n-3\n";
    CHECK(error_of([&] {
              const KeyedFile file(negative, "m.txt", layout());
              locus::formats::read_weight_matrix<int>(
                  file, WeightFormat::upper_row, 3,
                  [&](double w, std::string_view word, const KeyedLine& line) {
                      if (w < 0) file.fail(line.number, "negative '" + std::string(word) + "'");
                      return static_cast<int>(w);
                  });
          }) == "m.txt:4: negative '-3'");
}

TEST_CASE("token streams: integers with their lines, exact errors") {
    TokenStream tokens("\xEF\xBB\xBF"
                       "3\n\n  -4\t5\r\n",
                       "t.dat");
    CHECK(tokens.next() == 3);
    CHECK(tokens.token_line() == 1);
    CHECK(tokens.next() == -4);
    CHECK(tokens.token_line() == 3);
    CHECK(tokens.next() == 5);
    CHECK(tokens.token() == "5");
    CHECK_FALSE(tokens.next().has_value());
    CHECK(std::string(tokens.error("done").what()) == "t.dat:3: done");
    const auto first_error = [](const std::string& text) {
        return error_of([&] {
            TokenStream stream(text, "t.dat");
            while (stream.next()) {
            }
        });
    };
    CHECK(first_error("1\n2 x\n") == "t.dat:2: 'x' is not an integer");
    CHECK(first_error("1.5") == "t.dat:1: '1.5' is not an integer");
    CHECK(first_error("1\n\x1b[31m") == "t.dat:2: '\\x1b[31m' is not an integer");
    CHECK(first_error("99999999999999999999") ==
          "t.dat:1: '99999999999999999999' does not fit in 64 bits");
}

TEST_CASE("a raised stop flag ends the reading of large files; small ones are read whole") {
    // A deadline in the past raises the process-wide stop flag, as a run's limit does.
    const std::uint64_t token =
        locus::arm_deadline(std::chrono::steady_clock::now() - std::chrono::seconds(1));
    REQUIRE(locus::stop_requested());
    const auto coordinates = [](std::size_t n) {
        std::string text = "NAME : big\nDIMENSION : " + std::to_string(n) + "\nNODE_COORD_SECTION\n";
        for (std::size_t i = 1; i <= n; ++i)
            text += std::to_string(i) + " " + std::to_string(i % 977) + " 5\n";
        return text + "EOF\n";
    };
    // 2^16 lines and more: the stop flag is read, the reading ends.
    CHECK_THROWS_AS(KeyedFile(coordinates(70000), "big.tsp", layout()), locus::Stopped);
    // Fewer: read whole, as an instance stopped while loading still gets its first solution.
    const std::string small_text = coordinates(1000); // the file's views point into it
    const KeyedFile small(small_text, "small.tsp", layout());
    CHECK(small.value("DIMENSION").value == "1000");
    std::string numbers;
    for (int i = 0; i < (1 << 20) + 5; ++i) numbers += "7 ";
    TokenStream stream(numbers, "many.dat");
    std::int64_t read = 0;
    CHECK_THROWS_AS(
        [&] {
            while (stream.next()) ++read;
        }(),
        locus::Stopped);
    CHECK(read == (1 << 20) - 1);
    locus::disarm_deadline(token);
    REQUIRE_FALSE(locus::stop_requested());
    CHECK(KeyedFile(coordinates(70000), "big.tsp", layout()).value("NAME").value == "big");
}
