#include "launcher_helpers.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <doctest/doctest.h>

namespace locus::test {

namespace fs = std::filesystem;

std::string quoted(const std::string &text) {
    std::string out = "'";
    for (const char c : text) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

std::string locus_command(const std::string &args, const std::string &env) {
    return "env -u LOCUS_PLUGIN_PATH " + env + (env.empty() ? "" : " ") +
           quoted((bin_dir() / "locus").string()) + " " + args;
}

CommandResult run_locus(const std::string &args, const std::string &env) {
    return run_command(locus_command(args, env));
}

CommandResult run_locus_stderr(const std::string &args, const std::string &env) {
    // NOTE: run_command appends "2>&1" to the whole command; inside the subshell stderr goes to
    // the captured pipe and stdout to /dev/null.
    return run_command("(" + locus_command(args, env) + " 2>&1 1>/dev/null)");
}

std::vector<std::string> read_lines(const fs::path &file) {
    std::ifstream in(file);
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line))
        lines.push_back(line);
    return lines;
}

std::string read_text(const fs::path &file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<nlohmann::json> read_jsonl(const fs::path &file) {
    std::vector<nlohmann::json> lines;
    for (const std::string &line : read_lines(file))
        lines.push_back(nlohmann::json::parse(line));
    return lines;
}

nlohmann::json run_time_limited(const std::string &tag, const std::string &config,
                                const std::string &args, double seconds) {
    const fs::path out = temp_dir(tag) / "out";
    const CommandResult r =
        run_locus("run " + quoted((source_dir() / "configs" / config).string()) + " -q " + args +
                  " --time-limit " + std::to_string(seconds) + " --out " + quoted(out.string()));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const auto lines = read_jsonl(out / "results.jsonl");
    REQUIRE(lines.size() == 1);
    CHECK(lines[0]["stop_reason"] == "time_limit");
    // The run's own clock: the limit holds to within a slack that a machine whose cores are
    // all busy still keeps (scripts/test-under-load). Overruns of defects were whole seconds
    // to minutes.
    if (!instrumented_run())
        CHECK(lines[0]["total_time_s"].get<double>() <= seconds + time_limit_slack(seconds));
    CHECK(lines[0]["feasible"] == true);
    return lines[0];
}

fs::path write_tsplib(const fs::path &file, const std::string &name, std::size_t n,
                      std::uint64_t seed) {
    std::ostringstream text;
    text << "NAME : " << name << "\nTYPE : TSP\nDIMENSION : " << n
         << "\nEDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n";
    std::uint64_t state = seed * 2862933555777941757ull + 3037000493ull;
    auto next = [&state] {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return (state >> 33) % 1000;
    };
    for (std::size_t i = 0; i < n; ++i) {
        const auto x = next();
        const auto y = next();
        text << i + 1 << ' ' << x << ' ' << y << '\n';
    }
    text << "EOF\n";
    write_file(file, text.str());
    return file;
}

std::string write_tour_with_duplicate(const fs::path &tour, const fs::path &copy) {
    std::vector<std::string> lines = read_lines(tour);
    std::size_t section = 0;
    while (section < lines.size() && lines[section] != "TOUR_SECTION")
        ++section;
    if (section + 2 >= lines.size())
        throw std::runtime_error("no TOUR_SECTION with two cities in " + tour.string());
    const std::size_t first = section + 1;
    const std::size_t second = section + 2;
    lines[second] = lines[first];
    std::string text;
    for (const std::string &line : lines)
        text += line + "\n";
    write_file(copy, text);
    return copy.string() + ":" + std::to_string(second + 1) + ": city " + lines[first] +
           " appears twice (first on line " + std::to_string(first + 1) + ")";
}

} // namespace locus::test
