// `locus plugins`, `locus validate`, `locus verify`, the plugin search path and the names
// `locus new-problem` refuses.

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "launcher_helpers.hpp"
#include "locus/problem.hpp"

namespace fs = std::filesystem;
using namespace locus::test;

namespace {

const std::string kJob =
    "problem: {name: tsp, instance: \"random-uniform:n=60,seed=2\"}\n"
    "algorithm: {name: descent, neighborhood: {name: two_opt, candidates: 6}}\n"
    "backend: cpu\n";

std::string error_line(const std::string& message) { return "locus: error: " + message + "\n"; }

/// The component names listed under `kind:` by `locus plugins`.
std::vector<std::string> listed(const std::string& output, const std::string& kind) {
    std::istringstream in(output);
    std::string line;
    std::vector<std::string> names;
    bool inside = false;
    while (std::getline(in, line)) {
        if (line == kind + ":") {
            inside = true;
            continue;
        }
        if (!inside) continue;
        if (line.rfind("  ", 0) != 0) break;
        if (line.rfind("   ", 0) == 0) continue; // documentation lines of --verbose
        names.push_back(line.substr(2, line.find(' ', 2) - 2));
    }
    return names;
}

/// A copy of the launcher in a directory without plugins (its core library linked there).
fs::path lone_launcher(const fs::path& dir) {
    fs::create_directories(dir);
    fs::copy_file(bin_dir() / "locus", dir / "locus");
    for (const auto& entry : fs::directory_iterator(bin_dir())) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("lib", 0) == 0 && name.find(".so") != std::string::npos)
            fs::create_symlink(entry.path(), dir / name);
    }
    return dir / "locus";
}

} // namespace

TEST_CASE("locus plugins lists every plugin and component") {
    const CommandResult r = run_locus("plugins");
    REQUIRE(r.exit_code == 0);
    // Plugins are listed with their canonical paths.
    for (const char* plugin :
         {"beam_search", "dcvrp", "gridpath", "ils", "local_search", "qap", "repeat", "tsp"})
        CHECK(r.output.find(
                  (fs::canonical(bin_dir()) / (std::string("locus_") + plugin + ".so")).string()) !=
              std::string::npos);
    // The shipped problems are listed (others may be built beside them), in name order.
    const auto problems = listed(r.output, "problem");
    for (const char* name : {"dcvrp", "gridpath", "qap", "tsp"})
        CHECK(std::find(problems.begin(), problems.end(), name) != problems.end());
    CHECK(std::is_sorted(problems.begin(), problems.end()));
    const auto algorithms = listed(r.output, "algorithm");
    for (const char* name : {"descent", "ils", "repeat", "vnd"})
        CHECK(std::find(algorithms.begin(), algorithms.end(), name) != algorithms.end());
    const auto neighborhoods = listed(r.output, "neighborhood");
    for (const char* name : {"or_opt", "swap", "two_opt"})
        CHECK(std::find(neighborhoods.begin(), neighborhoods.end(), name) != neighborhoods.end());
    CHECK(r.output.find("\n  two_opt [tsp]\n") != std::string::npos);
    CHECK(r.output.find("\n  double_bridge [tsp]\n") != std::string::npos);
    CHECK(r.output.find("\n  nearest_neighbor [tsp]\n") != std::string::npos);
    CHECK(r.output.find("\n  random [tsp]\n") != std::string::npos);
    CHECK(r.output.find("\n  beam_search\n") != std::string::npos);
    CHECK(r.output.find("\n  window_moves [gridpath]\n") != std::string::npos);
    CHECK(r.output.find("\n  chains\n") != std::string::npos);
    CHECK(r.output.find("\n  ils [tsp]\n") != std::string::npos); // chain_policy
    // Deprecated names are listed as such, with their replacement.
    CHECK(r.output.find("\n  resident_ils [tsp] (deprecated: use chains, its other keys under "
                        "policy)\n") != std::string::npos);
    CHECK(r.output.find("\n  routing_ils [dcvrp] (deprecated: use chains") != std::string::npos);
    // Parameter documentation and the job schema only with --verbose.
    CHECK(r.output.find("candidate-list size K") == std::string::npos);
    CHECK(listed(r.output, "job").empty());
}

TEST_CASE("locus plugins --verbose documents every parameter with its type and default") {
    const CommandResult r = run_locus("plugins --verbose");
    REQUIRE(r.exit_code == 0);
    for (const char* line :
         {"\n      - candidates (integer in [0, 1024], default 0): candidate-list size K (0 = full "
          "neighborhood)\n",
          "\n      - runs (integer in [1, 1000000], default 10): number of runs\n",
          "\n      - algorithm (algorithm, required): algorithm of each run\n",
          "\n      - pivot (one of best|first, default best): pivoting rule of each descent\n",
          "\n      - window (integer in [0, inf], default 0): cut points lie within this many "
          "positions after a random start (local double bridge); 0 = anywhere in the tour\n"}) {
        INFO(line);
        CHECK(r.output.find(line) != std::string::npos);
    }
    CHECK(listed(r.output, "job") == std::vector<std::string>{"job"});
}

TEST_CASE("the parallel descents' capacity defaults to IndependentDescentOptions' capacity") {
    const CommandResult r = run_locus("plugins --verbose");
    REQUIRE(r.exit_code == 0);
    const std::string line = "\n      - capacity (integer in [1, 16777216], default " +
                             std::to_string(locus::IndependentDescentOptions{}.capacity) + "): ";
    CHECK(r.output.find(line) != std::string::npos);
}

TEST_CASE("locus validate prints the config hash or the first error") {
    const fs::path dir = temp_dir("apps-validate");
    const fs::path config = dir / "job.yaml";
    write_file(config, kJob);
    const CommandResult ok = run_locus("validate " + quoted(config.string()));
    CHECK(ok.exit_code == 0);
    std::smatch match;
    REQUIRE(std::regex_match(ok.output, match,
                             std::regex(".*: valid \\(config hash ([0-9a-f]{16})\\)\n")));
    CHECK(ok.output.rfind(config.string() + ": valid", 0) == 0);
    const std::string hash = match[1];

    // The hash is of the validated job: key order and spelled-out defaults do not change it.
    const fs::path reordered = dir / "reordered.yaml";
    write_file(reordered,
               "backend: cpu\nseed: 1\n"
               "algorithm: {neighborhood: {candidates: 6, name: two_opt}, name: descent, "
               "pivot: best}\n"
               "problem: {instance: \"random-uniform:n=60,seed=2\", name: tsp}\n");
    const CommandResult same = run_locus("validate " + quoted(reordered.string()));
    CHECK(same.output == reordered.string() + ": valid (config hash " + hash + ")\n");
    const CommandResult other = run_locus("validate " + quoted(config.string()) + " --set seed=2");
    CHECK(other.exit_code == 0);
    CHECK(other.output.find(hash) == std::string::npos);

    // A run records the hash that validate prints for the same overrides.
    const fs::path out = dir / "out";
    const CommandResult with_out =
        run_locus("validate " + quoted(config.string()) + " --set output=" + quoted(out.string()));
    REQUIRE(run_locus("run " + quoted(config.string()) + " -q --out " + quoted(out.string()))
                .exit_code == 0);
    const auto lines = read_jsonl(out / "results.jsonl");
    REQUIRE(lines.size() == 1);
    CHECK(with_out.output == config.string() + ": valid (config hash " +
                                 lines[0]["config_hash"].get<std::string>() + ")\n");

    const fs::path bad = dir / "bad.yaml";
    write_file(bad, kJob + "termination: {iterations: -1}\n");
    const CommandResult failed = run_locus_stderr("validate " + quoted(bad.string()));
    CHECK(failed.exit_code == 2);
    CHECK(failed.output ==
          error_line(bad.string() + ":4:27: termination.iterations: expected an integer >= 0, "
                                    "got '-1'"));

    // The instance must resolve as a run would find it: next to the config, then the data path.
    const fs::path missing = dir / "missing.yaml";
    write_file(missing, "problem: {name: tsp, instance: nowhere/none.tsp}\n"
                        "algorithm: {name: descent, neighborhood: two_opt}\n");
    const CommandResult unresolved = run_locus_stderr("validate " + quoted(missing.string()));
    CHECK(unresolved.exit_code != 0);
    CHECK(unresolved.output.rfind("locus: error: instance file 'nowhere/none.tsp' not found "
                                  "(looked in: nowhere/none.tsp, " +
                                      (dir / "nowhere/none.tsp").string() + ", ",
                                  0) == 0);
    write_file(dir / "nowhere" / "none.tsp", "NAME: none\n");
    CHECK(run_locus("validate " + quoted(missing.string())).exit_code == 0);
}

TEST_CASE("locus validate refuses what a run refuses before its search, at the file, line and "
          "column") {
    const fs::path dir = temp_dir("apps-validate-checks");
    // `locus validate` and `locus run` on the same config print the same error line, with the
    // same status, and the run writes nothing.
    const auto refused = [&](const std::string& file, const std::string& yaml,
                             const std::string& message, const std::string& extra = "") {
        const fs::path config = dir / file;
        write_file(config, yaml);
        const CommandResult validated =
            run_locus_stderr("validate " + quoted(config.string()) + " " + extra);
        CHECK(validated.exit_code == 2);
        CHECK(validated.output == error_line(message));
        const fs::path out = dir / ("out-" + file);
        const CommandResult ran = run_locus_stderr("run " + quoted(config.string()) +
                                                   " -q --backend cpu --out " +
                                                   quoted(out.string()) + " " + extra);
        CHECK(ran.exit_code == 2);
        CHECK(ran.output == validated.output);
        CHECK_FALSE(fs::exists(out));
    };
    const std::string problem =
        "problem: {name: tsp, instance: \"random-uniform:n=20,seed=1\"}\n";

    SUBCASE("repeat nested in ils") {
        const std::string file = (dir / "nested.yaml").string();
        refused("nested.yaml",
                problem + "algorithm:\n  name: ils\n  local_search:\n    name: repeat\n"
                          "    algorithm: {name: descent, neighborhood: two_opt}\n"
                          "  perturbation: double_bridge\n",
                file + ":5:5: algorithm.local_search: repeat starts whole runs, so it must be "
                       "the job's algorithm, not nested in another; put the other algorithm "
                       "inside repeat instead");
    }
    SUBCASE("vnd without neighborhoods") {
        const std::string file = (dir / "vnd.yaml").string();
        refused("vnd.yaml", problem + "algorithm: {name: vnd, neighborhoods: []}\n",
                file + ":2:39: algorithm.neighborhoods: the list is empty; name at least one "
                       "neighborhood (algorithm construction_only keeps the constructed "
                       "solutions as they are)");
        // An override is located on the command line.
        refused("vnd-set.yaml", problem + "algorithm: {name: vnd, neighborhoods: [two_opt]}\n",
                "<command line>: algorithm.neighborhoods: the list is empty; name at least one "
                "neighborhood (algorithm construction_only keeps the constructed solutions as "
                "they are)",
                "--set 'algorithm.neighborhoods=[]'");
    }
    SUBCASE("mixed construction without constructions") {
        const std::string file = (dir / "mixed.yaml").string();
        refused("mixed.yaml",
                problem + "construction: {name: mixed, constructions: []}\n"
                          "algorithm: {name: descent, neighborhood: two_opt}\n",
                file + ":2:44: construction.constructions: the list is empty; name at least one "
                       "construction");
    }
    SUBCASE("soft restarts without a restart construction") {
        const std::string file = (dir / "restart.yaml").string();
        refused("restart.yaml",
                problem + "algorithm:\n  name: ils\n"
                          "  local_search: {name: descent, neighborhood: two_opt}\n"
                          "  perturbation: double_bridge\n  soft_restart: 10\n",
                file + ":6:17: algorithm.soft_restart: soft restarts need a "
                       "restart_construction (e.g. {name: random}) to build the new solutions");
    }
}

TEST_CASE("locus validate accepts a valid config that uses the checked components") {
    const fs::path dir = temp_dir("apps-validate-checked-ok");
    const fs::path config = dir / "ok.yaml";
    write_file(config, "problem: {name: tsp, instance: \"random-uniform:n=30,seed=1\"}\n"
                       "construction: {name: mixed, constructions: [random, nearest_neighbor]}\n"
                       "algorithm:\n  name: repeat\n  runs: 2\n  algorithm:\n    name: ils\n"
                       "    local_search: {name: vnd, neighborhoods: [two_opt, or_opt]}\n"
                       "    perturbation: double_bridge\n"
                       "    soft_restart: 5\n    restart_construction: random\n"
                       "termination: {iterations: 3}\nbatch: 2\nbackend: cpu\n");
    const CommandResult ok = run_locus("validate " + quoted(config.string()));
    CHECK(ok.exit_code == 0);
    CHECK(std::regex_match(ok.output,
                           std::regex(".*/ok\\.yaml: valid \\(config hash [0-9a-f]{16}\\)\n")));
    // ... and runs.
    const fs::path out = dir / "out";
    const CommandResult ran = run_locus("run " + quoted(config.string()) + " -q --out " +
                                        quoted(out.string()));
    CHECK(ran.exit_code == 0);
    CHECK(read_jsonl(out / "results.jsonl").size() == 2);
}

TEST_CASE("locus validate reads the best-known table a run reads") {
    const fs::path dir = temp_dir("apps-validate-best-known");
    const fs::path config = dir / "job.yaml";
    write_file(config, kJob + "best_known: no-such-table.csv\n");
    const CommandResult r = run_locus_stderr("validate " + quoted(config.string()));
    CHECK(r.exit_code == 1);
    CHECK(r.output.rfind("locus: error: best-known table 'no-such-table.csv' not found", 0) == 0);
    write_file(dir / "no-such-table.csv", "instance,best_known\nother,1\n");
    CHECK(run_locus("validate " + quoted(config.string())).exit_code == 0);
}

TEST_CASE("a job whose problem has no plugin lists the problems there are") {
    const fs::path dir = temp_dir("apps-no-problem");
    const CommandResult plugins = run_locus("plugins");
    const std::vector<std::string> problems = listed(plugins.output, "problem");
    REQUIRE_FALSE(problems.empty());
    std::string valid;
    for (const std::string& name : problems)
        valid += (valid.empty() ? "" : ", ") + name;

    const fs::path config = dir / "job.yaml";
    write_file(config, "problem: {name: knapsack, instance: items.txt}\n"
                       "algorithm: {name: descent, neighborhood: two_opt}\n");
    const CommandResult r = run_locus_stderr("run " + quoted(config.string()) + " -q");
    CHECK(r.exit_code == 2);
    CHECK(r.output == error_line(config.string() +
                                 ":1:17: problem: unknown problem 'knapsack' "
                                 "(valid: " +
                                 valid +
                                 "); a plugin in another folder is loaded with --plugin-path DIR "
                                 "or LOCUS_PLUGIN_PATH"));
}

TEST_CASE("a file that is not a plugin is skipped with a warning naming it; the others serve") {
    const fs::path dir = temp_dir("apps-bad-plugin");
    const fs::path config = dir / "job.yaml";
    write_file(config, kJob);
    const fs::path garbage_dir = dir / "garbage";
    const fs::path garbage = garbage_dir / "locus_bad.so";
    write_file(garbage, "garbage\n");
    // NOTE: the loader names plugins by canonical path.
    const std::string file = fs::canonical(garbage).string();
    const std::string warning = "locus: warning: cannot load plugin '" + file + "': " + file +
                                ": file too short; its components are unavailable\n";

    SUBCASE("a job that does not need it runs (through --plugin-path)") {
        const CommandResult r = run_locus_stderr("run " + quoted(config.string()) +
                                                 " -q --out " + quoted((dir / "out").string()) +
                                                 " --plugin-path " + quoted(garbage_dir.string()));
        CHECK(r.exit_code == 0);
        CHECK(r.output == warning);
        CHECK(read_jsonl(dir / "out" / "results.jsonl").size() == 1);
    }
    SUBCASE("the listing says so and fails (through LOCUS_PLUGIN_PATH)") {
        const CommandResult r = run_locus_stderr(
            "plugins",
            "LOCUS_PLUGIN_PATH=" + quoted(dir.string() + "/nowhere::" + garbage_dir.string()));
        CHECK(r.exit_code == 1);
        CHECK(r.output == warning);
    }
}

TEST_CASE("a plugin of another build is named where a job needs a component it lacks, and by "
          "the listing; a job that needs none of its components runs without a warning") {
    const fs::path dir = temp_dir("apps-other-build");
    const fs::path config = dir / "job.yaml";
    write_file(config, kJob);
    const std::string other = LOCUS_TEST_APPS_OTHER_BUILD_DIR;
    const std::string file = fs::canonical(fs::path(other) / "locus_fixture_other_build.so").string();
    const std::string unloaded = "a plugin was not loaded, built for another locus (another build "
                                 "id or plugin ABI version): " +
                                 file + "; rebuild it with this locus (scripts/build)";

    SUBCASE("a job that does not need it runs, stderr empty") {
        const CommandResult r = run_locus_stderr("run " + quoted(config.string()) + " -q --out " +
                                                 quoted((dir / "out").string()) +
                                                 " --plugin-path " + quoted(other));
        CHECK(r.exit_code == 0);
        CHECK(r.output == "");
        CHECK(read_jsonl(dir / "out" / "results.jsonl").size() == 1);
    }
    SUBCASE("a job naming a component that is not found ends its error with the plugin") {
        const fs::path unknown = dir / "unknown.yaml";
        write_file(unknown, "problem: {name: knapsack, instance: items.txt}\n"
                            "algorithm: {name: descent, neighborhood: two_opt}\n");
        const CommandResult r = run_locus_stderr("run " + quoted(unknown.string()) +
                                                 " -q --plugin-path " + quoted(other));
        CHECK(r.exit_code == 2);
        CHECK(r.output.starts_with("locus: error: " + unknown.string() +
                                   ":1:17: problem: unknown problem 'knapsack' (valid: "));
        CHECK(r.output.ends_with("LOCUS_PLUGIN_PATH; " + unloaded + "\n"));
    }
    SUBCASE("the listing warns of it and fails") {
        const CommandResult r = run_locus_stderr("plugins", "LOCUS_PLUGIN_PATH=" + quoted(other));
        CHECK(r.exit_code == 1);
        CHECK(r.output.find("locus: warning: plugin '" + file + "' comes from another build") !=
              std::string::npos);
    }
}

TEST_CASE("the plugin search path: --plugin-path, then LOCUS_PLUGIN_PATH, then the executable") {
    const fs::path dir = temp_dir("apps-plugin-order");
    const fs::path first = dir / "first";
    const fs::path second = dir / "second";
    // A file name found in several directories is loaded from the first one only.
    write_file(first / "locus_tsp.so", "first\n");
    write_file(second / "locus_tsp.so", "second\n");
    auto message = [](const fs::path& file) {
        const std::string name = fs::canonical(file).string();
        return "locus: warning: cannot load plugin '" + name + "': " + name +
               ": file too short; its components are unavailable\n";
    };
    // Each file it shadows is named in a warning line, before the plugins are loaded.
    auto shadows = [](const fs::path& file, const fs::path& later) {
        return "locus: warning: plugin '" + fs::canonical(file).string() + "' shadows '" +
               fs::canonical(later).string() +
               "' (same file name, later in the plugin search path), which is not loaded\n";
    };
    const fs::path built = bin_dir() / "locus_tsp.so";
    const std::string env = "LOCUS_PLUGIN_PATH=" + quoted(second.string());
    const CommandResult both =
        run_locus_stderr("plugins --plugin-path " + quoted(first.string()), env);
    CHECK(both.exit_code == 1);
    CHECK(both.output == shadows(first / "locus_tsp.so", second / "locus_tsp.so") +
                             shadows(first / "locus_tsp.so", built) +
                             message(first / "locus_tsp.so"));
    const CommandResult env_only = run_locus_stderr("plugins", env);
    CHECK(env_only.exit_code == 1);
    CHECK(env_only.output ==
          shadows(second / "locus_tsp.so", built) + message(second / "locus_tsp.so"));
    // The launcher's own folder given again is the same file: no warning.
    const CommandResult again =
        run_locus_stderr("plugins --plugin-path " + quoted(bin_dir().string()));
    CHECK(again.exit_code == 0);
    CHECK(again.output == "");
}

TEST_CASE("a launcher without plugins next to it finds them through the search path") {
    const fs::path dir = temp_dir("apps-lone");
    const fs::path lone = lone_launcher(dir / "lone");
    const fs::path lone_dir = fs::canonical(lone.parent_path());
    const fs::path config = dir / "job.yaml";
    write_file(config, kJob);
    const std::string launcher = "env -u LOCUS_PLUGIN_PATH " + quoted(lone.string());

    const CommandResult none = run_command("(" + launcher + " plugins 2>&1 1>/dev/null)");
    CHECK(none.exit_code == 1);
    CHECK(none.output == error_line("no locus plugins found (searched: " + lone_dir.string() +
                                    "); set LOCUS_PLUGIN_PATH or pass --plugin-path"));

    const CommandResult from_env =
        run_command("env LOCUS_PLUGIN_PATH=" +
                    quoted(":" + (dir / "nowhere").string() + ":" + bin_dir().string()) + " " +
                    quoted(lone.string()) + " plugins");
    CHECK(from_env.exit_code == 0);
    CHECK(from_env.output.find((fs::canonical(bin_dir()) / "locus_tsp.so").string()) !=
          std::string::npos);

    const fs::path out = dir / "out";
    const CommandResult run =
        run_command(launcher + " run " + quoted(config.string()) + " -q --out " +
                    quoted(out.string()) + " --plugin-path " + quoted(bin_dir().string()));
    CHECK(run.exit_code == 0);
    CHECK(read_jsonl(out / "results.jsonl").size() == 1);
}

TEST_CASE("locus verify accepts a run's tour and rejects a tour with a repeated city") {
    const fs::path dir = temp_dir("apps-verify");
    const fs::path instance = write_tsplib(dir / "gen80.tsp", "gen80", 80, 11);
    const fs::path config = dir / "job.yaml";
    write_file(config, kJob);
    const fs::path out = dir / "out";
    REQUIRE(run_locus("run " + quoted(config.string()) + " -q --out " + quoted(out.string()) +
                      " --instance " + quoted(instance.string()))
                .exit_code == 0);
    const auto lines = read_jsonl(out / "results.jsonl");
    REQUIRE(lines.size() == 1);
    const std::string tour = lines[0]["solution_file"];

    const CommandResult ok =
        run_locus("verify --instance " + quoted(instance.string()) + " --solution " + quoted(tour));
    CHECK(ok.exit_code == 0);
    CHECK(ok.output ==
          "feasible: objective " + lines[0]["objective"].dump() + " (" + tour + " on gen80)\n");

    const fs::path bad = dir / "bad.tour";
    const std::string why = write_tour_with_duplicate(tour, bad);
    const CommandResult infeasible = run_locus("verify --instance " + quoted(instance.string()) +
                                               " --solution " + quoted(bad.string()));
    CHECK(infeasible.exit_code == 3);
    CHECK(infeasible.output == "infeasible: " + why + "\n");

    const fs::path other = dir / "gen80.txt";
    fs::copy_file(instance, other);
    const CommandResult unknown = run_locus_stderr("verify --instance " + quoted(other.string()) +
                                                   " --solution " + quoted(tour));
    CHECK(unknown.exit_code == 2);
    // NOTE: the list of known extensions grows with the problem plugins.
    CHECK(unknown.output.rfind("locus: error: cannot tell the problem of '" + other.string() +
                                   "' from its extension (known: ",
                               0) == 0);
    CHECK(unknown.output.find(".tsp") != std::string::npos);
    CHECK(unknown.output.ends_with("); pass --problem\n"));
    const CommandResult named = run_locus("verify --problem tsp --instance " +
                                          quoted(other.string()) + " --solution " + quoted(tour));
    CHECK(named.exit_code == 0);
}

TEST_CASE("new-problem refuses the names of plugins, shipped or in the search path") {
    const fs::path dir = temp_dir("apps-new-problem-plugins");
    for (const std::string name : {"tsp", "qap", "dcvrp", "gridpath", "ils", "local_search"}) {
        INFO(name);
        const CommandResult r =
            run_locus_stderr("new-problem " + name + " --out " + quoted((dir / name).string()));
        CHECK(r.exit_code == 2);
        CHECK(r.output == error_line("new-problem: '" + name +
                                     "' is the name of a plugin that ships with locus; choose "
                                     "another name"));
        CHECK_FALSE(fs::exists(dir / name));
    }
    // Any locus_NAME.so of the plugin search path takes NAME.
    write_file(dir / "plugins" / "locus_knapsack.so", "not loaded, only found\n");
    const std::string env = "LOCUS_PLUGIN_PATH=" + quoted((dir / "plugins").string());
    const CommandResult found =
        run_locus_stderr("new-problem knapsack --out " + quoted((dir / "k").string()), env);
    CHECK(found.exit_code == 2);
    CHECK(found.output ==
          error_line("new-problem: 'knapsack' is the name of a plugin in the plugin search path (" +
                     fs::canonical(dir / "plugins" / "locus_knapsack.so").string() +
                     "); choose another name"));
    CHECK_FALSE(fs::exists(dir / "k"));
    CHECK(run_locus("new-problem knapsack --out " + quoted((dir / "k").string())).exit_code == 0);
}

TEST_CASE("new-problem from a build tree names this launcher and asks for an installed locus") {
    const fs::path dir = temp_dir("apps-new-problem-print");
    const fs::path project = dir / "vc";
    const CommandResult made =
        run_locus("new-problem vertex_cover --out " + quoted(project.string()));
    INFO(made.output);
    REQUIRE(made.exit_code == 0);
    const std::string launcher = fs::canonical(bin_dir() / "locus").string();
    CHECK(made.output.find("this locus runs from its build tree: install it first") !=
          std::string::npos);
    CHECK(made.output.find("  cmake -S " + project.string() + " -B " + project.string() +
                           "/build -DCMAKE_PREFIX_PATH=<locus install prefix>\n") !=
          std::string::npos);
    CHECK(made.output.find("  " + launcher + " run " + project.string() +
                           "/vertex_cover.yaml --plugin-path " + project.string() + "/build\n") !=
          std::string::npos);
    CHECK(fs::is_regular_file(project / "vertex_cover_test.cpp"));
}
