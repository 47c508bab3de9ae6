// `locus` on untrusted bytes: names and messages that quote files reach terminals and results
// lines as printable, valid UTF-8, one line of at most 2,000 bytes each.

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "launcher_helpers.hpp"

namespace fs = std::filesystem;
using namespace locus::test;

namespace {

/// Whether `text` is valid UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool valid_utf8(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size()) {
        const auto c = static_cast<unsigned char>(text[i]);
        std::size_t length = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
                                         : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
        if (length == 0 || i + length > text.size()) return false;
        for (std::size_t k = 1; k < length; ++k)
            if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return false;
        const auto second = static_cast<unsigned char>(length > 1 ? text[i + 1] : 0);
        if ((c == 0xe0 && second < 0xa0) || (c == 0xed && second > 0x9f) ||
            (c == 0xf0 && second < 0x90) || (c == 0xf4 && second > 0x8f))
            return false;
        i += length;
    }
    return true;
}

/// Every line of `output`: at most 2,000 bytes, no control byte, valid UTF-8.
void check_safe_lines(const std::string &output) {
    std::size_t start = 0;
    while (start < output.size()) {
        std::size_t end = output.find('\n', start);
        if (end == std::string::npos) end = output.size();
        const std::string_view line(output.data() + start, end - start);
        CHECK(line.size() <= 2000);
        for (const char c : line) {
            const auto byte = static_cast<unsigned char>(c);
            CHECK_MESSAGE((byte >= 0x20 && byte != 0x7f), "control byte ", int(byte));
        }
        CHECK(valid_utf8(line));
        start = end + 1;
    }
}

/// A 3-city TSPLIB instance named `name` and a tour of it.
void write_three_cities(const fs::path &dir, const std::string &name) {
    write_file(dir / "three.tsp", "NAME : " + name +
                                      "\nTYPE : TSP\nDIMENSION : 3\nEDGE_WEIGHT_TYPE : EUC_2D\n"
                                      "NODE_COORD_SECTION\n1 0 0\n2 3 0\n3 0 4\nEOF\n");
    write_file(dir / "three.tour", "NAME : t\nTYPE : TOUR\nDIMENSION : 3\nTOUR_SECTION\n1\n2\n3\n"
                                   "-1\nEOF\n");
}

} // namespace

TEST_CASE("control bytes of a file are escaped in every message that quotes them") {
    const fs::path dir = temp_dir("apps-control-bytes");
    write_three_cities(dir, "t\033[2J\007");
    const CommandResult ok = run_locus("verify --instance " + quoted((dir / "three.tsp").string()) +
                                       " --solution " + quoted((dir / "three.tour").string()));
    INFO(ok.output);
    CHECK(ok.exit_code == 0);
    CHECK(ok.output.find("on t\\x1b[2J\\x07)") != std::string::npos);
    check_safe_lines(ok.output);
    // An infeasible tour's message and an instance error quoting a line.
    write_file(dir / "bad.tour", "NAME : t\nTYPE : TOUR\nDIMENSION : 3\nTOUR_SECTION\n1\n2\n\033]0;x\007"
                                 "\n-1\nEOF\n");
    const CommandResult bad = run_locus("verify --instance " + quoted((dir / "three.tsp").string()) +
                                        " --solution " + quoted((dir / "bad.tour").string()));
    INFO(bad.output);
    CHECK(bad.exit_code != 0);
    CHECK(bad.output.find("\\x1b]0;x\\x07") != std::string::npos);
    check_safe_lines(bad.output);
    // A NUL does not cut the message short: what follows it is still shown.
    static constexpr char kNul[] = "NAME : n\nTYPE : TSP\nDIMENSION : 3\nEDGE_WEIGHT_TYPE : EUC_2D\n"
                                   "stray\0after the NUL\nNODE_COORD_SECTION\n1 0 0\n2 3 0\n"
                                   "3 0 4\nEOF\n";
    write_file(dir / "nul.tsp", std::string(kNul, sizeof kNul - 1));
    const CommandResult nul = run_locus_stderr("verify --instance " +
                                               quoted((dir / "nul.tsp").string()) + " --solution " +
                                               quoted((dir / "three.tour").string()));
    INFO(nul.output);
    CHECK(nul.exit_code == 1);
    CHECK(nul.output.find("\\x00after the NUL") != std::string::npos);
    check_safe_lines(nul.output);
}

TEST_CASE("a message quoting a huge line is one line of at most 2,000 bytes") {
    const fs::path dir = temp_dir("apps-long-message");
    write_three_cities(dir, "three");
    write_file(dir / "long.tour", "NAME : t\nTYPE : TOUR\nDIMENSION : 3\nTOUR_SECTION\n1\n2\n" +
                                      std::string(1000000, 'x') + "\n-1\nEOF\n");
    const CommandResult r = run_locus("verify --instance " + quoted((dir / "three.tsp").string()) +
                                      " --solution " + quoted((dir / "long.tour").string()));
    INFO(r.output.substr(0, 300));
    CHECK(r.exit_code != 0);
    CHECK(r.output.find('\n') == r.output.size() - 1); // one line
    check_safe_lines(r.output);
    // The same for a header value of 1,000,000 bytes in the instance of a run.
    write_file(dir / "long.tsp", "NAME : " + std::string(1000000, 'y') +
                                     "\nTYPE : TSP\nDIMENSION : 3\nEDGE_WEIGHT_TYPE : NOPE\n"
                                     "NODE_COORD_SECTION\n1 0 0\n2 3 0\n3 0 4\nEOF\n");
    write_file(dir / "job.yaml", "problem: {name: tsp, instance: long.tsp}\n"
                                 "algorithm: {name: descent, neighborhood: two_opt}\n");
    const CommandResult run = run_locus_stderr("run " + quoted((dir / "job.yaml").string()) +
                                               " -q --backend cpu --out " +
                                               quoted((dir / "out").string()));
    CHECK(run.exit_code == 1);
    CHECK(run.output.find('\n') == run.output.size() - 1);
    check_safe_lines(run.output);
}

TEST_CASE("names with invalid UTF-8 are escaped when read: the run writes its results line") {
    const fs::path dir = temp_dir("apps-invalid-utf8");
    write_three_cities(dir, "city\xff\xfe" "name");
    write_file(dir / "job.yaml", "name: \"job\xac\"\nproblem: {name: tsp, instance: three.tsp}\n"
                                 "algorithm: {name: descent, neighborhood: two_opt}\n");
    const CommandResult r = run_locus("run " + quoted((dir / "job.yaml").string()) +
                                      " -q --backend cpu --out " + quoted((dir / "out").string()));
    INFO(r.output);
    CHECK(r.exit_code == 0);
    check_safe_lines(r.output);
    const auto lines = read_jsonl(dir / "out" / "results.jsonl");
    REQUIRE(lines.size() == 1);
    CHECK(lines[0]["instance"] == "city\\xff\\xfename");
    CHECK(lines[0]["name"] == "job\\xac");
    CHECK(lines[0]["objective"] == 12);
    // The trace and solution of the run are where the line says.
    CHECK(fs::exists(lines[0]["solution_file"].get<std::string>()));
}

TEST_CASE("a best-known table that is a device is refused unread") {
    const fs::path dir = temp_dir("apps-best-known-device");
    write_three_cities(dir, "three");
    write_file(dir / "job.yaml", "problem: {name: tsp, instance: three.tsp}\n"
                                 "algorithm: {name: descent, neighborhood: two_opt}\n"
                                 "best_known: /dev/zero\n");
    const CommandResult r = run_locus_stderr("run " + quoted((dir / "job.yaml").string()) +
                                             " -q --backend cpu --out " +
                                             quoted((dir / "out").string()));
    CHECK(r.exit_code == 1);
    CHECK(r.output == "locus: error: best-known table file '/dev/zero' is not a regular file or a "
                      "pipe (a character device)\n");
}
