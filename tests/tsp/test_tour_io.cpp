// TSPLIB tours (write/read round trip, exact error messages, permutation checks) and the
// random-uniform instance generator (determinism, spec grammar and errors).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "locus/error.hpp"
#include "locus/tsp/generator.hpp"
#include "locus/tsp/tour_io.hpp"
#include "test_support.hpp"

using locus::InstanceError;
using namespace locus::tsp;

namespace {

std::string tour_error(const std::string& text, std::size_t n) {
    return locus::test::error_message<InstanceError>([&] {
        parse_tour(text, "x.tour", n);
    });
}

std::string spec_error(const std::string& spec) {
    return locus::test::error_message<InstanceError>([&] {
        generate_from_spec(spec);
    });
}

std::string read_all(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

TEST_CASE("write_tour writes a TSPLIB tour that read_tour reads back") {
    const auto dir = locus::test::temp_dir("tour-io");
    const auto path = dir / "t.tour";
    const std::vector<std::int32_t> tour{2, 0, 3, 1};
    write_tour(path, "tiny", tour, 1234);
    CHECK(read_all(path) == "NAME : tiny\nCOMMENT : Length = 1234\nTYPE : TOUR\nDIMENSION : 4\n"
                            "TOUR_SECTION\n3\n1\n4\n2\n-1\nEOF\n");
    CHECK(read_tour(path, 4) == tour);
    const std::vector<std::int32_t> bad{0, 0, 1};
    const std::string expected = "cannot write tour file '" + path.string() +
                                 "': not a tour: city 0 appears twice (positions 0 and 1)";
    CHECK_THROWS_WITH_AS(write_tour(path, "bad", bad, 0), expected.c_str(), locus::Error);
    std::filesystem::remove_all(dir);
}

TEST_CASE("parse_tour accepts wrapped ids, a missing terminator and text after it") {
    CHECK(parse_tour("NAME : a\nTYPE : TOUR\nDIMENSION : 5\nTOUR_SECTION\n 1 4  2\n5\n3\n-1\n-1\n"
                     "EOF\n",
                     "a.tour", 5) == std::vector<std::int32_t>{0, 3, 1, 4, 2});
    CHECK(parse_tour("TOUR_SECTION\r\n3 1 2\r\n", "b.tour", 3) ==
          std::vector<std::int32_t>{2, 0, 1});
    CHECK(parse_tour("TOUR_SECTION\n3 1 2 -1 9 9\nEOF\n", "c.tour", 3) ==
          std::vector<std::int32_t>{2, 0, 1});
}

TEST_CASE("malformed tours give exact messages") {
    CHECK(tour_error("NAME : t\nTYPE : TOUR\n", 3) == "x.tour: missing TOUR_SECTION");
    CHECK(tour_error("TYPE : TSP\nTOUR_SECTION\n1 2 3\n-1\n", 3) ==
          "x.tour:1: TYPE 'TSP' is not a tour (expected TYPE : TOUR)");
    CHECK(tour_error("DIMENSION : 4\nTOUR_SECTION\n1 2 3\n-1\n", 3) ==
          "x.tour:1: DIMENSION '4' does not match the instance (3 cities)");
    CHECK(tour_error("TOUR_SECTION\n1 2\n-1\n", 3) ==
          "x.tour: TOUR_SECTION has 2 cities, the instance has 3");
    CHECK(tour_error("TOUR_SECTION\n1\n2\n2\n-1\n", 3) ==
          "x.tour:4: city 2 appears twice (first on line 3)");
    CHECK(tour_error("TOUR_SECTION\n1\n4\n2\n-1\n", 3) == "x.tour:3: city 4 out of range 1..3");
    CHECK(tour_error("TOUR_SECTION\n1\n0\n2\n-1\n", 3) == "x.tour:3: city 0 out of range 1..3");
    CHECK(tour_error("TOUR_SECTION\n1 two 3\n-1\n", 3) == "x.tour:2: non-numeric city id 'two'");
    CHECK(tour_error("1 2 3\nTOUR_SECTION\n", 3) ==
          "x.tour:1: unexpected data '1 2 3' before TOUR_SECTION");
    CHECK_THROWS_WITH_AS(read_tour("missing.tour", 3),
                         "cannot open tour file 'missing.tour': No such file or directory",
                         InstanceError);
}

TEST_CASE("check_tour explains why a vector is not a permutation") {
    const std::vector<std::int32_t> good{2, 0, 1};
    CHECK_FALSE(check_tour(good, 3).has_value());
    const std::vector<std::int32_t> short_tour{0, 1};
    CHECK(check_tour(short_tour, 3) == "tour has 2 cities, expected 3");
    const std::vector<std::int32_t> twice{0, 2, 1, 2};
    CHECK(check_tour(twice, 4) == "city 2 appears twice (positions 1 and 3)");
    const std::vector<std::int32_t> range{0, 1, 3};
    CHECK(check_tour(range, 3) == "city 3 at position 2 is out of range 0..2");
    const std::vector<std::int32_t> negative{0, -1, 1};
    CHECK(check_tour(negative, 3) == "city -1 at position 1 is out of range 0..2");
}

TEST_CASE("random-uniform instances are deterministic per seed") {
    const Instance a = generate_random_uniform(2000, 7);
    const Instance b = generate_random_uniform(2000, 7);
    const Instance c = generate_random_uniform(2000, 8);
    CHECK(a.name == "random-uniform:n=2000,seed=7");
    CHECK(a.n == 2000);
    CHECK(a.type == EdgeWeightType::euc_2d);
    CHECK(a.metric == MetricKind::euc_2d_int);
    CHECK(a.x == b.x);
    CHECK(a.y == b.y);
    CHECK(a.x != c.x);
    const auto [min_x, max_x] = std::minmax_element(a.x.begin(), a.x.end());
    CHECK(*min_x >= 0.0);
    CHECK(*max_x < 1000000.0);
    CHECK(*max_x > 990000.0); // spread over the whole square
    const Instance small = generate_random_uniform(50, 7, 10);
    CHECK(small.name == "random-uniform:n=50,seed=7,size=10");
    CHECK(std::all_of(small.y.begin(), small.y.end(), [](double v) { return v >= 0 && v < 10; }));
    CHECK(std::all_of(small.x.begin(), small.x.end(),
                      [](double v) { return v == static_cast<double>(static_cast<int>(v)); }));
}

TEST_CASE("generator specs") {
    CHECK(is_generator_spec("random-uniform:n=2000,seed=7"));
    CHECK(is_generator_spec("random-uniform:"));
    CHECK(is_generator_spec("gaussian:n=5"));
    CHECK_FALSE(is_generator_spec("kroA100.tsp"));
    CHECK_FALSE(is_generator_spec("../data/tsplib/kroA100.tsp"));
    CHECK_FALSE(is_generator_spec("/tmp/a:b.tsp"));
    const Instance spec = generate_from_spec("random-uniform:seed=7,n=2000");
    const Instance direct = generate_random_uniform(2000, 7);
    CHECK(spec.name == "random-uniform:n=2000,seed=7");
    CHECK(spec.x == direct.x);
    CHECK(generate_from_spec("random-uniform:n=10").name == "random-uniform:n=10,seed=1");
    CHECK(generate_from_spec("random-uniform:n=10,seed=3,size=100").name ==
          "random-uniform:n=10,seed=3,size=100");
}

TEST_CASE("bad generator specs give exact messages") {
    const std::string p = "invalid instance generator spec ";
    CHECK(spec_error("gaussian:n=5") ==
          p + "'gaussian:n=5': unknown generator 'gaussian' (available: random-uniform)");
    CHECK(spec_error("random-uniform:seed=7") ==
          p + "'random-uniform:seed=7': missing parameter 'n' (number of cities)");
    CHECK(spec_error("random-uniform:n=2") ==
          p + "'random-uniform:n=2': n = 2 is too small (a tour needs at least 3 cities)");
    CHECK(spec_error("random-uniform:n=abc") ==
          p + "'random-uniform:n=abc': parameter 'n': expected a non-negative integer, got 'abc'");
    CHECK(spec_error("random-uniform:n=-5") ==
          p + "'random-uniform:n=-5': parameter 'n': expected a non-negative integer, got '-5'");
    CHECK(spec_error("random-uniform:n=5,m=3") ==
          p + "'random-uniform:n=5,m=3': unknown parameter 'm' (parameters: n, seed, size)");
    CHECK(spec_error("random-uniform:n=5,n=6") ==
          p + "'random-uniform:n=5,n=6': parameter 'n' given twice");
    CHECK(spec_error("random-uniform:n=5,seed") ==
          p + "'random-uniform:n=5,seed': expected 'key=value', found 'seed'");
    CHECK(spec_error("random-uniform:n=5,size=0") ==
          p + "'random-uniform:n=5,size=0': size = 0 is out of range 1..1073741824");
    CHECK(spec_error("random-uniform:n=3000000000") ==
          p + "'random-uniform:n=3000000000': n = 3000000000 is too large (at most 2147483647)");
}
