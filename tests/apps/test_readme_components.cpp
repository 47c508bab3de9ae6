// The README's component tables against `locus plugins --verbose`: every component the launcher
// lists is in a table, and every table row names a component the launcher lists.

#include <doctest/doctest.h>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "launcher_helpers.hpp"

using namespace locus::test;

namespace {

/// "kind: name" for a component every problem can use, "kind: name [problem]" for one of a
/// problem plugin (problems themselves: "problem: name").
using Components = std::set<std::string>;

/// The components `locus plugins --verbose` lists, one per "  name" or "  name [problem]" line
/// under a "kind:" line. The kind `job` (the config's root schema, docs/config-reference.md) is
/// not a component of the tables.
Components launcher_components(const std::string& output) {
    static const std::regex kind_line("([a-z_]+):");
    static const std::regex entry_line("  ([a-z0-9_]+)( \\[[a-z0-9_]+\\])?");
    Components components;
    std::istringstream in(output);
    std::string line, kind;
    std::smatch match;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        if (line[0] != ' ') {
            kind = std::regex_match(line, match, kind_line) ? match[1].str() : "";
            continue;
        }
        if (kind.empty() || kind == "job") continue;
        if (std::regex_match(line, match, entry_line))
            components.insert(kind + ": " + match[1].str() + match[2].str());
    }
    return components;
}

/// The rows of the README tables whose header starts with "| kind | name |". A table belongs to
/// the problem named in backticks in the nearest heading above it ("## TSP components (`tsp`)");
/// a heading without one holds the components every problem can use.
Components readme_components(const std::string& readme) {
    static const std::regex heading_problem("#+ [^`]*`([a-z0-9_]+)`.*");
    static const std::regex row("\\|\\s*([a-z_ ]+?)\\s*\\|\\s*`?([a-z0-9_]+)`?\\s*\\|.*");
    Components components;
    std::istringstream in(readme);
    std::string line, problem;
    bool table = false;
    std::smatch match;
    while (std::getline(in, line)) {
        if (line.rfind('#', 0) == 0) {
            problem = std::regex_match(line, match, heading_problem) ? match[1].str() : "";
            table = false;
            continue;
        }
        if (line.rfind("| kind | name |", 0) == 0) {
            table = true;
            continue;
        }
        if (line.rfind('|', 0) != 0) {
            table = false;
            continue;
        }
        if (!table || line.rfind("|---", 0) == 0) continue;
        if (!std::regex_match(line, match, row)) {
            FAIL_CHECK("README component table row not of the form | kind | `name` | ...: " << line);
            continue;
        }
        std::string kind = match[1].str(); // "successor generator" = successor_generator
        std::replace(kind.begin(), kind.end(), ' ', '_');
        const std::string scope = kind == "problem" || problem.empty() ? "" : " [" + problem + "]";
        components.insert(kind + ": " + match[2].str() + scope);
    }
    return components;
}

/// The elements of `a` not in `b`, one per line.
std::string missing_from(const Components& a, const Components& b) {
    std::string list;
    for (const std::string& name : a)
        if (!b.count(name)) list += "  " + name + "\n";
    return list;
}

} // namespace

TEST_CASE("the README component tables list exactly the components of locus plugins --verbose") {
    const CommandResult r = run_locus("plugins --verbose");
    REQUIRE(r.exit_code == 0);
    const Components listed = launcher_components(r.output);
    REQUIRE(listed.count("problem: tsp") == 1);
    const std::string readme = read_text(source_dir() / "README.md");
    REQUIRE_MESSAGE(!readme.empty(), "cannot read " << (source_dir() / "README.md").string());
    const Components tables = readme_components(readme);

    const std::string absent = missing_from(listed, tables);
    const std::string extra = missing_from(tables, listed);
    INFO("README.md lacks these components of `locus plugins --verbose`:\n"
         << absent << "README.md tables list these components the launcher does not:\n"
         << extra);
    CHECK(absent.empty());
    CHECK(extra.empty());
}
