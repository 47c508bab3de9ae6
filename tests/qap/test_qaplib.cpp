// QAPLIB readers and writer: every .dat of the benchmark data, every .sln (with the known
// 0-based and inverted files) against best-known.csv, and the exact error messages.
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "locus/error.hpp"
#include "locus/qap/instance.hpp"
#include "locus/qap/qaplib.hpp"
#include "test_support.hpp"

using locus::InstanceError;
using locus::qap::Instance;
using locus::qap::objective;
using locus::qap::parse_qaplib;
using locus::qap::parse_solution;
using locus::qap::read_qaplib;
using locus::qap::read_solution;
using locus::qap::SlnReading;
using locus::qap::SlnSolution;

namespace {

// n = 3, the instance of test_instance.cpp, with wrapped rows and a blank line.
const std::string kTiny = "3\n\n1 2 0 3\n0 4\n0 5 2\n\n2 1 3\n0 4 1\n2 2 0\n";

std::string dat_error(const std::string& text) {
    return locus::test::error_message<InstanceError>([&] {
        parse_qaplib(text, "x.dat");
    });
}

std::string sln_error(const std::string& text) {
    const Instance instance = parse_qaplib(kTiny, "tiny.dat");
    return locus::test::error_message<InstanceError>([&] {
        parse_solution(text, "x.sln", instance);
    });
}

/// The qaplib rows of best-known.csv: instance -> value.
std::map<std::string, std::int64_t> qaplib_best_known(const std::filesystem::path& csv) {
    std::map<std::string, std::int64_t> values;
    std::ifstream in(csv);
    std::string line;
    while (std::getline(in, line)) {
        std::stringstream fields(line);
        std::string library, name, value;
        std::getline(fields, library, ',');
        std::getline(fields, name, ',');
        std::getline(fields, value, ',');
        if (library == "qaplib") values[name] = std::stoll(value);
    }
    return values;
}

} // namespace

TEST_CASE("a tiny .dat with wrapped rows parses into the hand-checked instance") {
    const Instance instance = parse_qaplib(kTiny, "dir/tiny.dat");
    CHECK(instance.name == "tiny");
    CHECK(instance.n == 3);
    CHECK(instance.a == std::vector<std::int64_t>{1, 2, 0, 3, 0, 4, 0, 5, 2});
    CHECK(instance.b == std::vector<std::int64_t>{2, 1, 3, 0, 4, 1, 2, 2, 0});
    CHECK(objective(instance, std::vector<std::int32_t>{1, 2, 0}) == 39);
}

TEST_CASE("malformed .dat files give exact errors") {
    CHECK(dat_error("") == "x.dat: empty file, expected n");
    CHECK(dat_error(" \n\n") == "x.dat: empty file, expected n");
    CHECK(dat_error("2\n1 2\nabc 4\n") == "x.dat:3: 'abc' is not an integer");
    CHECK(dat_error("2\n1 2.5\n") == "x.dat:2: '2.5' is not an integer");
    // Control bytes of a token are echoed escaped, a long token cut to 64 bytes.
    CHECK(dat_error("2\n1 x\x1b[31m\n") == "x.dat:2: 'x\\x1b[31m' is not an integer");
    CHECK(dat_error("2\n" + std::string(100000, 'z') + "\n") ==
          "x.dat:2: '" + std::string(64, 'z') + "...(100000 bytes)' is not an integer");
    // A UTF-8 byte-order mark is skipped (as in the TSP and grid-path readers).
    CHECK(dat_error("\xEF\xBB\xBF" "2\n0 1\n1 0\n0 3\n3 0\n") == "(no error)");
    CHECK(dat_error("2\n99999999999999999999 1\n") ==
          "x.dat:2: '99999999999999999999' does not fit in 64 bits");
    CHECK(dat_error("1\n5 5\n") == "x.dat:1: n = 1 is out of range 2..5000");
    CHECK(dat_error("\n\n9000000\n") == "x.dat:3: n = 9000000 is out of range 2..5000");
    std::string truncated = "20\n";
    for (int k = 0; k < 799; ++k)
        truncated += "1 ";
    CHECK(dat_error(truncated) ==
          "x.dat: expected 2*n*n = 800 matrix entries after n = 20, found 799");
    CHECK(dat_error("2\n0 1\n1 0\n0 3\n3 0\n\n7\n") ==
          "x.dat:7: unexpected number '7' after the 2*n*n = 8 matrix entries");
    CHECK(dat_error("2\n0 1\n1 0\n0 3\n-3 0\n") ==
          "x.dat:5: negative entry -3 in matrix B (flows and distances must be non-negative)");
    CHECK(dat_error("2\n0 -1\n1 0\n0 3\n3 0\n") ==
          "x.dat:2: negative entry -1 in matrix A (flows and distances must be non-negative)");
    CHECK(dat_error("2\n0 3037000500\n0 0\n0 3037000500\n0 0\n") ==
          "x.dat: entries too large: objectives can reach min(sum(A) * max(B), sum(B) * max(A)) "
          "= 9.22337e+18 with n = 2, max(A) = 3037000500, max(B) = 3037000500, beyond 2^53 = "
          "9007199254740992, the largest range in which every objective is exact");
    try {
        read_qaplib("/nonexistent/none.dat");
        FAIL("expected an error");
    } catch (const InstanceError& e) {
        CHECK(std::string(e.what()) ==
              "cannot open instance file '/nonexistent/none.dat': No such file or directory");
    }
}

TEST_CASE(".sln files: standard, 0-based and inverted readings") {
    const Instance instance = parse_qaplib(kTiny, "tiny.dat");
    // p = (1 2 0) has value 39, its inverse (2 0 1) has value 25.
    SlnSolution sln = parse_solution("3 39\n2 3 1\n", "a.sln", instance);
    CHECK(sln.p == std::vector<std::int32_t>{1, 2, 0});
    CHECK(sln.reading == SlnReading::one_based);
    sln = parse_solution("3 39\n1 2 0\n", "a.sln", instance);
    CHECK(sln.p == std::vector<std::int32_t>{1, 2, 0});
    CHECK(sln.reading == SlnReading::zero_based);
    sln = parse_solution("3 39\n3 1 2\n", "a.sln", instance);
    CHECK(sln.p == std::vector<std::int32_t>{1, 2, 0});
    CHECK(sln.reading == SlnReading::one_based_inverted);
    sln = parse_solution("  3   25 \n 2\n 0\n 1\n", "a.sln", instance);
    CHECK(sln.p == std::vector<std::int32_t>{2, 0, 1});
    CHECK(sln.value == 25);
    CHECK(sln.reading == SlnReading::zero_based);
    CHECK(locus::qap::format_solution(sln.p, sln.value) == "3 25\n3 1 2\n");
}

TEST_CASE("malformed .sln files give exact errors") {
    CHECK(sln_error("") == "x.sln: empty file, expected 'n value'");
    CHECK(sln_error("3\n") == "x.sln: empty file, expected 'n value'");
    CHECK(sln_error("3 x\n") == "x.sln:1: 'x' is not an integer");
    CHECK(sln_error("4 39\n1 2 3 4\n") == "x.sln: n = 4 does not match the instance tiny (n = 3)");
    CHECK(sln_error("3 39\n2 3\n") == "x.sln: expected 3 permutation entries, found 2");
    CHECK(sln_error("3 39\n2 3 1 4\n") == "x.sln: expected 3 permutation entries, found 4");
    CHECK(sln_error("3 39\n2\n4\n1\n") == "x.sln:3: entry 4 is out of range 1..3");
    CHECK(sln_error("3 39\n0 3 1\n") == "x.sln:2: entry 3 is out of range 0..2");
    CHECK(sln_error("3 39\n2 1 2\n") == "x.sln:2: 2 appears twice in the permutation");
    // Neither (2 0 1) -> 25 nor its inverse (1 2 0) -> 39 gives 30; 25 is closer.
    CHECK(sln_error("3 30\n3 1 2\n") ==
          "x.sln: no reading of the permutation (1-based, 0-based, inverted) gives the stated "
          "value 30; closest 25");
}

TEST_CASE("write_solution writes the standard form, which reads back") {
    const Instance instance = parse_qaplib(kTiny, "tiny.dat");
    const std::filesystem::path dir = locus::test::temp_dir("qap_sln");
    const std::vector<std::int32_t> p{2, 0, 1};
    locus::qap::write_solution(dir / "tiny.sln", "tiny", p, 25);
    const SlnSolution back = read_solution(dir / "tiny.sln", instance);
    CHECK(back.p == p);
    CHECK(back.value == 25);
    CHECK(back.reading == SlnReading::one_based);
    try {
        locus::qap::write_solution(dir / "bad.sln", "tiny", std::vector<std::int32_t>{0, 0, 1}, 1);
        FAIL("expected an error");
    } catch (const InstanceError& e) {
        CHECK(std::string(e.what()) ==
              "invalid solution for tiny: location 0 appears twice (entries 0 and 1)");
    }
}

TEST_CASE("every QAPLIB file parses and every .sln reproduces the best-known value") {
    const auto csv = locus::test::data_file("best-known.csv");
    const auto dir = locus::test::data_file("qaplib/chr12a.dat").parent_path();
    const std::map<std::string, std::int64_t> best = qaplib_best_known(csv);
    const std::map<std::string, SlnReading> quirks = {
        {"tai40a", SlnReading::zero_based},
        {"tai60a", SlnReading::one_based_inverted},
        {"tai80a", SlnReading::one_based_inverted},
        {"kra30a", SlnReading::one_based_inverted},
    };
    int instances = 0;
    int solutions = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".dat") continue;
        const std::string name = entry.path().stem().string();
        CAPTURE(name);
        const Instance instance = read_qaplib(entry.path());
        ++instances;
        CHECK(instance.name == name);
        // QAPLIB names end in the size: nug12, tai100a, sko42, ...
        const std::size_t digits = name.find_first_of("0123456789");
        REQUIRE(digits != std::string::npos);
        CHECK(instance.n == std::stoi(name.substr(digits)));
        const std::filesystem::path sln = dir / "solutions" / (name + ".sln");
        if (!std::filesystem::exists(sln)) continue;
        const SlnSolution solution = read_solution(sln, instance);
        ++solutions;
        CHECK(objective(instance, solution.p) == solution.value);
        const auto known = quirks.find(name);
        CHECK(solution.reading == (known == quirks.end() ? SlnReading::one_based : known->second));
        REQUIRE(best.count(name) == 1);
        CHECK(best.at(name) == solution.value);
    }
    CHECK(instances == 23);
    CHECK(solutions == 23);
}
