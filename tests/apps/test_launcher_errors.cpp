// `locus` on bad input: every error is one line "locus: error: ..." on stderr with the exit
// status of its kind (2: command line or config, 1: instance, plugin, CUDA).

#include <algorithm>
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include <sys/resource.h>

#include "launcher_helpers.hpp"

namespace fs = std::filesystem;
using namespace locus::test;

namespace {

/// A small valid job; tests break one thing at a time.
const std::string kValidJob = "problem: {name: tsp, instance: \"random-uniform:n=50,seed=1\"}\n"
                              "algorithm: {name: descent, neighborhood: two_opt}\n";

/// `locus run <config> -q --backend cpu --out <dir>/out <extra>`, stderr only.
CommandResult run_job(const fs::path &dir, const fs::path &config, const std::string &extra = "") {
    return run_locus_stderr("run " + quoted(config.string()) + " -q --backend cpu --out " +
                            quoted((dir / "out").string()) + " " + extra);
}

std::string error_line(const std::string &message) { return "locus: error: " + message + "\n"; }

} // namespace

TEST_CASE("config errors name the file, line, column and key path and exit with 2") {
    const fs::path dir = temp_dir("apps-config-errors");

    SUBCASE("YAML syntax error") {
        const fs::path config = dir / "syntax.yaml";
        write_file(config, "problem: {name: tsp, instance: \"random-uniform:n=50,seed=1\"\n"
                           "algorithm: [\n");
        const CommandResult r = run_job(dir, config);
        CHECK(r.exit_code == 2);
        CHECK(r.output ==
              error_line(config.string() + ":2:1: YAML syntax error: end of map flow not found"));
    }
    SUBCASE("unknown top-level key, with the closest valid key suggested") {
        const fs::path config = dir / "key.yaml";
        write_file(config, "problem: {name: tsp, instance: \"random-uniform:n=50,seed=1\"}\n"
                           "algoritm: {name: descent, neighborhood: two_opt}\n");
        const CommandResult r = run_job(dir, config);
        CHECK(r.exit_code == 2);
        CHECK(r.output ==
              error_line(config.string() +
                         ":2:1: algoritm: unknown key 'algoritm'; did you mean 'algorithm'? "
                         "(valid: algorithm, backend, batch, best_known, check_moves, "
                         "construction, device, memory_budget, memory_fraction, name, output, "
                         "problem, seed, termination, threads)"));
    }
    SUBCASE("soft restarts without a construction for the new solutions") {
        const fs::path config = dir / "restart.yaml";
        write_file(config, "problem: {name: tsp, instance: \"random-uniform:n=50,seed=1\"}\n"
                           "algorithm: {name: ils, local_search: {name: descent, neighborhood: "
                           "two_opt}, perturbation: double_bridge, soft_restart: 10}\n");
        const CommandResult r = run_job(dir, config);
        CHECK(r.exit_code == 2);
        CHECK(r.output == error_line(config.string() +
                                     ":2:121: algorithm.soft_restart: soft restarts need a "
                                     "restart_construction (e.g. {name: random}) to build the "
                                     "new solutions"));
    }
    SUBCASE("islands: more than chains, with another exchange, cross_islands on one island, a "
            "mixed construction of none") {
        const fs::path config = dir / "islands.yaml";
        const auto job = [&](const std::string& construction, const std::string& algorithm) {
            write_file(config, "problem: {name: tsp, instance: \"random-uniform:n=50,seed=1\"}\n"
                               "construction: " + construction + "\n"
                               "algorithm: {name: chains, " + algorithm + "}\n"
                               "batch: 3\n");
            return run_job(dir, config);
        };
        CommandResult r = job("nearest_neighbor", "islands: 4");
        CHECK(r.exit_code == 2);
        CHECK(r.output == error_line("algorithm.islands: 4 islands need at least as many chains, "
                                     "the batch has 3; raise batch or lower islands"));
        r = job("nearest_neighbor", "islands: 2, exchange: elite");
        CHECK(r.exit_code == 2);
        CHECK(r.output == error_line("algorithm.islands: 2 islands work with exchange copy_best "
                                     "or merge (exchange is elite)"));
        r = job("nearest_neighbor", "cross_islands: true");
        CHECK(r.exit_code == 2);
        CHECK(r.output == error_line("algorithm.cross_islands: folds islands into each other "
                                     "and needs islands >= 2 (islands is 1)"));
        r = job("nearest_neighbor", "policy: {depth: 8, step: 4}");
        CHECK(r.exit_code == 2);
        CHECK(r.output == error_line(config.string() +
                                     ":3:52: algorithm.policy.step: expected an integer in [2, "
                                     "3], got '4'"));
        r = job("{name: mixed, constructions: []}", "islands: 2");
        CHECK(r.exit_code == 2);
        CHECK(r.output == error_line(config.string() +
                                     ":2:44: construction.constructions: the list is empty; "
                                     "name at least one construction"));
    }
    SUBCASE("a parallel descent over a neighborhood without an independence rule") {
        const fs::path config = dir / "parallel.yaml";
        write_file(config, "problem: {name: dcvrp, instance: \"random-cvrp:n=12,seed=1\"}\n"
                           "construction: savings\n"
                           "algorithm: {name: parallel_descent, neighborhood: two_opt}\n");
        const CommandResult r = run_job(dir, config);
        CHECK(r.exit_code == 2);
        CHECK(r.output == error_line(config.string() +
                                     ":3:51: algorithm.neighborhood: neighborhood 'two_opt' has "
                                     "no independence rule, so it cannot run a parallel "
                                     "descent"));
    }
    SUBCASE("unknown component name, with the closest valid name suggested") {
        const fs::path config = dir / "component.yaml";
        write_file(config, "problem: {name: tsp, instance: \"random-uniform:n=50,seed=1\"}\n"
                           "algorithm: {name: descent, neighborhood: two_op}\n");
        const CommandResult r = run_job(dir, config);
        CHECK(r.exit_code == 2);
        CHECK(r.output ==
              error_line(config.string() + ":2:42: algorithm.neighborhood: unknown neighborhood "
                                           "'two_op' for problem 'tsp'; did you mean 'two_opt'? "
                                           "(valid: or_opt, swap, three_opt, two_h_opt, two_opt)"));
    }
    SUBCASE("value out of range") {
        const fs::path config = dir / "range.yaml";
        write_file(config, kValidJob + "termination:\n  time_limit: -3\n");
        const CommandResult r = run_job(dir, config);
        CHECK(r.exit_code == 2);
        CHECK(r.output ==
              error_line(config.string() + ":4:15: termination.time_limit: expected a number >= 0, "
                                           "got '-3'"));
    }
    SUBCASE("value of the wrong type") {
        const fs::path config = dir / "type.yaml";
        write_file(config, kValidJob + "seed: many\n");
        const CommandResult r = run_job(dir, config);
        CHECK(r.exit_code == 2);
        CHECK(r.output ==
              error_line(config.string() + ":3:7: seed: expected an integer, got 'many'"));
    }
    SUBCASE("aliases nested in aliases, and deep nesting") {
        // Each level lists the previous one ten times: level 7 expands to 10^8 scalars.
        std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
        for (int level = 1; level <= 7; ++level) {
            bomb += "a" + std::to_string(level) + ": &a" + std::to_string(level) + " [";
            for (int k = 0; k < 10; ++k)
                bomb += (k ? ", *a" : "*a") + std::to_string(level - 1);
            bomb += "]\n";
        }
        const fs::path config = dir / "bomb.yaml";
        write_file(config, kValidJob + bomb);
        CommandResult r = run_job(dir, config);
        CHECK(r.exit_code == 2);
        CHECK(r.output == error_line(config.string() + ": the YAML document expands to more "
                                                       "than 100000 nodes (aliases nested in "
                                                       "aliases?); a config is far smaller"));
        const fs::path spec = dir / "bomb-spec.yaml";
        write_file(spec, bomb + "configs: [x]\ninstances: [y]\n");
        r = run_locus_stderr("experiment " + quoted(spec.string()) + " --dry-run");
        CHECK(r.exit_code == 2);
        CHECK(r.output == error_line(spec.string() + ": the YAML document expands to more "
                                                     "than 100000 nodes (aliases nested in "
                                                     "aliases?); a config is far smaller"));
        const fs::path deep = dir / "deep.yaml";
        write_file(deep, kValidJob + "name: " + std::string(100, '[') + std::string(100, ']') +
                             "\n");
        r = run_job(dir, deep);
        CHECK(r.exit_code == 2);
        CHECK(r.output == error_line(deep.string() +
                                     ": the YAML document nests deeper than 64 levels at line 3"));
        // Thousands of levels: yaml-cpp's own recursion limit, the same message.
        write_file(deep, kValidJob + "name: " + std::string(3000, '[') + std::string(3000, ']') +
                             "\n");
        r = run_job(dir, deep);
        CHECK(r.exit_code == 2);
        CHECK(r.output == error_line(deep.string() +
                                     ": the YAML document nests deeper than 64 levels at line 3"));
    }
    SUBCASE("repeat nested in another algorithm") {
        const fs::path config = dir / "nested.yaml";
        write_file(config, "problem: {name: tsp, instance: \"random-uniform:n=20,seed=1\"}\n"
                           "algorithm:\n  name: ils\n  local_search:\n    name: repeat\n"
                           "    algorithm: {name: descent, neighborhood: two_opt}\n"
                           "  perturbation: double_bridge\n");
        const CommandResult r = run_job(dir, config);
        CHECK(r.exit_code == 2);
        CHECK(r.output == error_line(config.string() +
                                     ":5:5: algorithm.local_search: repeat starts whole runs, so "
                                     "it must be the job's algorithm, not nested in another; "
                                     "put the other algorithm inside repeat instead"));
    }
    SUBCASE("a VND without neighborhoods") {
        const fs::path config = dir / "vnd.yaml";
        write_file(config, "problem: {name: tsp, instance: \"random-uniform:n=20,seed=1\"}\n"
                           "algorithm: {name: vnd, neighborhoods: []}\n");
        const CommandResult r = run_job(dir, config);
        CHECK(r.exit_code == 2);
        CHECK(r.output == error_line(config.string() +
                                     ":2:39: algorithm.neighborhoods: the list is empty; name at "
                                     "least one neighborhood (algorithm construction_only keeps "
                                     "the constructed solutions as they are)"));
    }
    SUBCASE("malformed --set") {
        const fs::path config = dir / "ok.yaml";
        write_file(config, kValidJob);
        const CommandResult r = run_job(dir, config, "--set termination");
        CHECK(r.exit_code == 2);
        CHECK(r.output == error_line("--set 'termination': expected key.path=value"));
    }
    SUBCASE("--set of an unknown key") {
        const fs::path config = dir / "ok.yaml";
        write_file(config, kValidJob);
        const CommandResult r = run_job(dir, config, "--set termination.time_limt=3");
        CHECK(r.exit_code == 2);
        CHECK(r.output == error_line("<command line>: termination.time_limt: unknown key "
                                     "'time_limt' for termination 'limits'; did you mean "
                                     "'time_limit'? (valid: evaluations, iterations, stagnation, "
                                     "stop_at_optimum, target, target_gap, time_limit)"));
    }
    SUBCASE("negative --time-limit and --seed are checked like config values") {
        const fs::path config = dir / "ok.yaml";
        write_file(config, kValidJob);
        const CommandResult time = run_job(dir, config, "--time-limit -3");
        CHECK(time.exit_code == 2);
        CHECK(time.output == error_line("<command line>: termination.time_limit: expected a "
                                        "number >= 0, got '-3'"));
        const CommandResult seed = run_job(dir, config, "--seed -1");
        CHECK(seed.exit_code == 2);
        CHECK(seed.output ==
              error_line("<command line>: seed: expected an integer >= 0, got '-1'"));
    }
    SUBCASE("missing config file") {
        const fs::path config = dir / "missing.yaml";
        const CommandResult r = run_job(dir, config);
        CHECK(r.exit_code == 2);
        CHECK(r.output == error_line("cannot open config file '" + config.string() +
                                     "': No such file or directory"));
    }
    // Nothing is written for a job that does not validate.
    CHECK_FALSE(fs::exists(dir / "out"));
}

TEST_CASE("command-line errors are one error line with exit status 2") {
    // --backend is checked like the config key it sets, with its suggestion.
    const CommandResult backend = run_locus_stderr("run --backend gpu");
    CHECK(backend.exit_code == 2);
    CHECK(backend.output == "locus: error: <command line>: backend: invalid value 'gpu'; did you "
                            "mean 'cuda'? (valid: auto, cpu, cuda)\n");
    const CommandResult twice = run_locus_stderr("run --backend cpu --backend cuda");
    CHECK(twice.exit_code == 2);
    // NOTE: the text after the option name is CLI11's and may change between its versions.
    CHECK(twice.output.rfind("locus: error: --backend: ", 0) == 0);
    CHECK(twice.output.ends_with(" (see 'locus --help')\n"));
    CHECK(twice.output.find('\n') == twice.output.size() - 1);

    const CommandResult none = run_locus_stderr("");
    CHECK(none.exit_code == 2);
    CHECK(none.output.rfind("locus: error: ", 0) == 0);
    CHECK(none.output.find('\n') == none.output.size() - 1);
}

TEST_CASE("new-problem refuses bad names and existing folders with one error line") {
    const fs::path dir = temp_dir("apps-new-problem-errors");
    const auto refused = [&](const std::string& args, const std::string& message) {
        const CommandResult r = run_locus_stderr("new-problem " + args);
        INFO(args);
        CHECK(r.exit_code == 2);
        CHECK(r.output == "locus: error: new-problem: " + message + "\n");
    };
    refused("Bad-Name --out " + quoted((dir / "a").string()),
            "'Bad-Name' is not a problem name: use a lower-case letter, then letters, digits or "
            "'_' (at most 40)");
    refused("2opt --out " + quoted((dir / "a").string()),
            "'2opt' is not a problem name: use a lower-case letter, then letters, digits or '_' "
            "(at most 40)");
    refused("class --out " + quoted((dir / "a").string()),
            "'class' is a C++ keyword or a namespace of locus; choose another name");
    refused("maxcut --out " + quoted((dir / "a").string()),
            "'maxcut' is the example's own name; choose another");
    fs::create_directories(dir / "taken");
    refused("knapsack --out " + quoted((dir / "taken").string()),
            "'" + (dir / "taken").string() + "' exists; choose another --out");
    CHECK_FALSE(fs::exists(dir / "a"));
    CHECK(fs::is_empty(dir / "taken"));

    // A good name makes a project whose files carry the new name only.
    const CommandResult made =
        run_locus("new-problem vertex_cover --out " + quoted((dir / "vc").string()));
    INFO(made.output);
    REQUIRE(made.exit_code == 0);
    CHECK(fs::is_regular_file(dir / "vc" / "vertex_cover.cpp"));
    CHECK(fs::is_regular_file(dir / "vc" / "CMakeLists.txt"));
    for (const auto& entry : fs::directory_iterator(dir / "vc")) {
        INFO(entry.path().string());
        std::string text = read_text(entry.path());
        std::transform(text.begin(), text.end(), text.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        CHECK(text.find("maxcut") == std::string::npos);
        CHECK(text.find("max-cut") == std::string::npos);
    }
    CHECK(read_text(dir / "vc" / "vertex_cover.cpp").find("VertexCover") != std::string::npos);
}

TEST_CASE("instance errors name the file and line and exit with 1") {
    const fs::path dir = temp_dir("apps-instance-errors");
    const fs::path config = dir / "job.yaml";
    write_file(config, kValidJob);
    auto run_on = [&](const fs::path &instance) {
        return run_job(dir, config, "--instance " + quoted(instance.string()));
    };
    const std::string coords = "NODE_COORD_SECTION\n1 0 0\n2 1 0\n3 0 1\nEOF\n";

    SUBCASE("missing instance file") {
        const fs::path file = dir / "nowhere.tsp";
        const CommandResult r = run_on(file);
        CHECK(r.exit_code == 1);
        CHECK(r.output == error_line("instance file '" + file.string() +
                                     "' not found (looked in: " + file.string() + ")"));
    }
    SUBCASE("missing DIMENSION") {
        const fs::path file = dir / "no_dimension.tsp";
        write_file(file, "NAME: a\nTYPE: TSP\nEDGE_WEIGHT_TYPE: EUC_2D\n" + coords);
        const CommandResult r = run_on(file);
        CHECK(r.exit_code == 1);
        CHECK(r.output == error_line(file.string() + ":8: end of file without DIMENSION"));
    }
    SUBCASE("fewer nodes than DIMENSION") {
        const fs::path file = dir / "count.tsp";
        write_file(file, "NAME: a\nTYPE: TSP\nDIMENSION: 4\nEDGE_WEIGHT_TYPE: EUC_2D\n" + coords);
        const CommandResult r = run_on(file);
        CHECK(r.exit_code == 1);
        CHECK(r.output ==
              error_line(file.string() + ": NODE_COORD_SECTION has 3 nodes, DIMENSION says 4"));
    }
    SUBCASE("control bytes and a 10 MB token are echoed escaped and cut") {
        const fs::path file = dir / "control.tsp";
        write_file(file, "NAME: a\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EUC_2D\n"
                         "NODE_COORD_SECTION\n1 0 0\n2 \x1b[2J\x07 0\n3 0 1\nEOF\n");
        CommandResult r = run_on(file);
        CHECK(r.exit_code == 1);
        CHECK(r.output == error_line(file.string() +
                                     ":7: node 2: non-numeric coordinate '\\x1b[2J\\x07'"));
        const fs::path long_token = dir / "long.tsp";
        write_file(long_token, "NAME: a\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EUC_2D\n"
                               "NODE_COORD_SECTION\n1 0 0\n2 " +
                                   std::string(10'000'000, '7') + "x 0\n3 0 1\nEOF\n");
        r = run_on(long_token);
        CHECK(r.exit_code == 1);
        CHECK(r.output.size() < 2200);
        CHECK(r.output.find("...(") != std::string::npos);
        CHECK(r.output.back() == '\n');
    }
    SUBCASE("non-numeric coordinate") {
        const fs::path file = dir / "coordinate.tsp";
        write_file(file, "NAME: a\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EUC_2D\n"
                         "NODE_COORD_SECTION\n1 0 0\n2 1x 0\n3 0 1\nEOF\n");
        const CommandResult r = run_on(file);
        CHECK(r.exit_code == 1);
        CHECK(r.output == error_line(file.string() + ":7: node 2: non-numeric coordinate '1x'"));
    }
    SUBCASE("unsupported EDGE_WEIGHT_TYPE") {
        const fs::path file = dir / "manhattan.tsp";
        write_file(file, "NAME: a\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: MAN_2D\n" + coords);
        const CommandResult r = run_on(file);
        CHECK(r.exit_code == 1);
        CHECK(r.output ==
              error_line(file.string() + ":4: unsupported EDGE_WEIGHT_TYPE 'MAN_2D' (supported: "
                                         "EUC_2D, CEIL_2D, ATT, GEO, EXPLICIT)"));
    }
    CHECK_FALSE(fs::exists(dir / "out" / "results.jsonl"));
}

TEST_CASE("--backend cuda fails with one line without a device and runs with one") {
    const fs::path dir = temp_dir("apps-cuda");
    const fs::path config = dir / "job.yaml";
    write_file(config, kValidJob);
    const fs::path out = dir / "out";
    const CommandResult r = run_locus_stderr("run " + quoted(config.string()) +
                                             " -q --backend cuda --out " + quoted(out.string()));
    if (gpu_available()) {
        CHECK(r.exit_code == 0);
        const auto lines = read_jsonl(out / "results.jsonl");
        REQUIRE(lines.size() == 1);
        CHECK(lines[0]["backend"] == "cuda");
        CHECK(lines[0]["feasible"] == true);
        return;
    }
    CHECK(r.exit_code == 1);
    // NOTE: the reason in parentheses is the CUDA runtime's and depends on the machine.
    CHECK(r.output.rfind("locus: error: --backend cuda: no CUDA device is available "
                         "(cudaGetDeviceCount: ",
                         0) == 0);
    CHECK(r.output.ends_with("); use --backend cpu\n"));
    CHECK(r.output.find('\n') == r.output.size() - 1);
    CHECK_FALSE(fs::exists(out));
}

namespace {

/// The largest resident size (KiB) of the children this test process has waited for, their own
/// children included (getrusage: the shell run_command starts waits for the launcher).
long largest_child_rss_kib() {
    rusage usage{};
    getrusage(RUSAGE_CHILDREN, &usage);
    return usage.ru_maxrss;
}

} // namespace

TEST_CASE("files read whole: devices are refused unread, and each kind of file has a largest "
          "size") {
    const fs::path dir = temp_dir("apps-bounded-reads");
    const fs::path config = dir / "job.yaml";
    write_file(config, kValidJob);
    const fs::path tour = dir / "small.tour";
    write_file(tour, "TOUR_SECTION\n1\n2\n3\n-1\nEOF\n");
    const fs::path instance = dir / "small.tsp";
    write_file(instance, "NAME: small\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EUC_2D\n"
                         "NODE_COORD_SECTION\n1 0 0\n2 1 0\n3 0 1\nEOF\n");
    // Sparse files one byte over a bound: nothing is stored, a reader would see zeros.
    const auto sparse = [&](const std::string& name, std::uintmax_t size) {
        const fs::path file = dir / name;
        write_file(file, "");
        fs::resize_file(file, size);
        return file;
    };
    const fs::path big_instance = sparse("big.tsp", (std::uintmax_t{1} << 30) + 1);
    const fs::path big_config = sparse("big.yaml", (std::uintmax_t{16} << 20) + 1);
    // NOTE: `timeout` only keeps a launcher that would read without end from hanging the suite;
    // the checks are on what it says and holds.
    const auto stderr_of = [](const std::string& args, const std::string& env = "") {
        return run_command("(timeout 120 " + locus_command(args, env) + " 2>&1 1>/dev/null)");
    };
    const long rss_before = largest_child_rss_kib();

    const std::string device = "' is not a regular file or a pipe (a character device)";

    SUBCASE("locus run: an instance that is a device or over 1 GiB") {
        const auto run_on = [&](const fs::path& file) {
            return stderr_of("run " + quoted(config.string()) + " -q --backend cpu --out " +
                             quoted((dir / "out").string()) + " --instance " +
                             quoted(file.string()));
        };
        CommandResult r = run_on("/dev/zero");
        CHECK(r.exit_code == 1);
        CHECK(r.output == error_line("instance file '/dev/zero" + device));
        r = run_on(big_instance);
        CHECK(r.exit_code == 1);
        CHECK(r.output == error_line("instance file '" + big_instance.string() +
                                     "' exceeds 1073741824 bytes (the largest instance file "
                                     "read)"));
        CHECK_FALSE(fs::exists(dir / "out" / "results.jsonl"));
    }
    SUBCASE("locus verify: an instance or a solution that is a device") {
        CommandResult r = stderr_of("verify --problem tsp --instance /dev/zero --solution " +
                                    quoted(tour.string()));
        CHECK(r.exit_code == 1);
        CHECK(r.output == error_line("instance file '/dev/zero" + device));
        // A solution that cannot be read is an infeasible one for verify (stdout).
        r = run_locus("verify --instance " + quoted(instance.string()) +
                      " --solution /dev/zero");
        CHECK(r.exit_code == 3);
        CHECK(r.output == "infeasible: tour file '/dev/zero" + device + "\n");
    }
    SUBCASE("configs and experiment specs: 16 MiB at most") {
        CommandResult r = stderr_of("run /dev/zero -q --backend cpu");
        CHECK(r.exit_code == 2);
        CHECK(r.output == error_line("config file '/dev/zero" + device));
        r = stderr_of("run " + quoted(big_config.string()) + " -q --backend cpu");
        CHECK(r.exit_code == 2);
        CHECK(r.output == error_line("config file '" + big_config.string() +
                                     "' exceeds 16777216 bytes (the largest config file read)"));
        r = stderr_of("experiment /dev/zero --dry-run");
        CHECK(r.exit_code == 2);
        CHECK(r.output == error_line("experiment spec file '/dev/zero" + device));
        r = stderr_of("experiment " + quoted(big_config.string()) + " --dry-run");
        CHECK(r.exit_code == 2);
        CHECK(r.output == error_line("experiment spec file '" + big_config.string() +
                                     "' exceeds 16777216 bytes (the largest experiment spec "
                                     "file read)"));
    }
    SUBCASE("locus report: a results line naming /dev/zero, and /dev/zero as an input") {
        const fs::path results = dir / "exp" / "results.jsonl";
        write_file(results, nlohmann::json{{"instance", "/dev/zero"},
                                           {"problem", "tsp"},
                                           {"label", "a"},
                                           {"experiment_key", "a|/dev/zero|1|cpu"},
                                           {"objective", 5},
                                           {"feasible", true},
                                           {"solution_file", "/dev/zero"},
                                           {"trace_file", "/dev/zero"}}
                                    .dump() +
                                "\n");
        write_file(dir / "exp" / "experiment.json", "{\"spec\": \"/dev/zero\"}\n");
        const fs::path out = dir / "exp" / "report";
        // No plot script: runs.json (what the plots would read) is written all the same.
        CommandResult r = stderr_of("report " + quoted(results.string()) + " --out " +
                                        quoted(out.string()),
                                    "LOCUS_PLOTS_SCRIPT=" + quoted((dir / "none.py").string()));
        INFO(r.output);
        CHECK(r.exit_code == 0);
        CHECK(r.output.find("locus: report of 1 runs written to ") == 0);
        const auto runs = nlohmann::json::parse(read_text(out / "plots" / "runs.json"));
        REQUIRE(runs["instances"].size() == 1);
        const auto& entry = runs["instances"][0];
        CHECK(entry["instance_file"].is_null());
        // The plot script reads the instance file whole: a regular file only.
        CHECK(entry["instance_note"] ==
              "instance file '/dev/zero' is not a regular file (a character device)");
        REQUIRE(entry["runs"].size() == 1);
        CHECK(entry["runs"][0]["solution_file"].is_null());
        CHECK(entry["runs"][0]["trace_file"].is_null());
        CHECK(entry["runs"][0]["time_limit_s"].is_null());

        r = stderr_of("report /dev/zero --out " + quoted((dir / "report2").string()));
        CHECK(r.exit_code == 2);
        CHECK(r.output == error_line("report input '/dev/zero': results file '/dev/zero" + device));
    }
    // NOTE: a launcher that read the 1 GiB file or /dev/zero would have held a gigabyte; the
    // check holds only when no earlier command of this suite grew that large.
    if (rss_before < 512 * 1024) CHECK(largest_child_rss_kib() < 512 * 1024);
}

TEST_CASE("memory_budget is bounded so that its bytes stay exact; the default fraction is one "
          "value") {
    const fs::path dir = temp_dir("apps-memory-budget");
    write_file(dir / "job.yaml", kValidJob + "memory_budget: 1099511627776\n");
    const CommandResult r = run_locus_stderr("validate " + quoted((dir / "job.yaml").string()));
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("memory_budget") != std::string::npos);
    CHECK(r.output.find("1073741824") != std::string::npos);
    // The default memory_fraction that the schema documents is the one the engines use.
    const CommandResult plugins = run_locus("plugins --verbose");
    CHECK(plugins.output.find("memory_fraction (real in [0.01, 1], default 0.8)") !=
          std::string::npos);
}
