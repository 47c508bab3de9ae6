// `locus experiment`: expansion and --dry-run, shards that partition the runs, a smoke run that
// resumes after SIGKILL with the same runs and no duplicates, the bad-input errors, peer
// solvers beside the configs, and the lock that keeps two experiments off the same runs.

#include <doctest/doctest.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher_helpers.hpp"

using namespace locus::test;
namespace fs = std::filesystem;

namespace {

/// The launcher run from the source directory (the smoke spec names configs from there).
CommandResult in_source(const std::string& args, const std::string& prefix = "") {
    return run_command("cd " + quoted(source_dir().string()) + " && " + prefix +
                       locus_command(args));
}

std::vector<std::string> dry_run_keys(const std::string& extra) {
    const auto r = in_source("experiment configs/experiments/smoke.yaml --dry-run " + extra);
    REQUIRE(r.exit_code == 0);
    std::vector<std::string> keys;
    std::size_t at = r.output.find('\n') + 1; // after "N runs"
    while (at < r.output.size()) {
        const std::size_t end = r.output.find('\n', at);
        const std::string line = r.output.substr(at, end - at);
        keys.push_back(line.substr(0, line.find(" -> ")));
        at = end + 1;
    }
    return keys;
}

} // namespace

TEST_CASE("locus experiment: the smoke spec expands to 8 runs; two shards partition them") {
    const auto all = dry_run_keys("");
    CHECK(all.size() == 8);
    CHECK(std::set<std::string>(all.begin(), all.end()).size() == 8);
    CHECK(all.front() == "ils|random-uniform:n=150,seed=1|1|cpu");
    auto first = dry_run_keys("--shard 1/2");
    const auto second = dry_run_keys("--shard 2/2");
    CHECK(first.size() == 4);
    CHECK(second.size() == 4);
    first.insert(first.end(), second.begin(), second.end());
    std::sort(first.begin(), first.end());
    auto sorted = all;
    std::sort(sorted.begin(), sorted.end());
    CHECK(first == sorted);
}

TEST_CASE("locus experiment: killed with SIGKILL, the same command resumes to the same 8 runs "
          "without duplicates") {
    const fs::path out = temp_dir("experiment-resume") / "out";
    const std::string args =
        "experiment configs/experiments/smoke.yaml --out " + quoted(out.string());
    // Killed after about 5 s: some runs finished, one was cut.
    const auto killed = in_source(args, "timeout -s KILL 5 ");
    CHECK(killed.exit_code != 0);
    const auto before = read_jsonl(out / "results.jsonl");
    CHECK(before.size() < 8);
    const auto resumed = in_source(args);
    REQUIRE(resumed.exit_code == 0);
    const auto after = read_jsonl(out / "results.jsonl");
    REQUIRE(after.size() == 8);
    // Not a terminal: no progress line refreshed in place, one line per finished run.
    CHECK(resumed.output.find('\r') == std::string::npos);
    std::size_t progress_lines = 0;
    for (std::size_t at = resumed.output.find(" runs, ETA "); at != std::string::npos;
         at = resumed.output.find(" runs, ETA ", at + 1))
        ++progress_lines;
    CHECK(progress_lines == 8 - before.size());
    CHECK(resumed.output.find("\nlocus: experiment smoke complete: ") != std::string::npos);
    std::set<std::string> keys;
    for (const auto& line : after) {
        keys.insert(line["experiment_key"].get<std::string>());
        CHECK(fs::exists(fs::path(line["solution_file"].get<std::string>())));
        CHECK(line["run_dir"].get<std::string>().find(".partial") == std::string::npos);
    }
    const auto expected = dry_run_keys("");
    CHECK(keys == std::set<std::string>(expected.begin(), expected.end()));
    // The lines written before the kill are kept as they were.
    for (std::size_t i = 0; i < before.size(); ++i) CHECK(after[i] == before[i]);
    for (const auto& entry : fs::directory_iterator(out / "runs"))
        CHECK(entry.path().extension() != ".partial");
    // Once more: nothing left to run.
    const auto again = in_source(args);
    CHECK(again.exit_code == 0);
    CHECK(again.output.find("8 runs, 8 finished, 0 to run") != std::string::npos);
    CHECK(read_jsonl(out / "results.jsonl").size() == 8);
}

TEST_CASE("locus experiment: the spec's name, time_limit and seeds are checked as config keys, "
          "at their file, line and column") {
    const fs::path dir = temp_dir("experiment-spec-keys");
    const std::string config = (source_dir() / "configs" / "tsp" / "ils.yaml").string();
    const std::string head = "configs: [" + config + "]\ninstances: ['random-uniform:n=30']\n";
    const auto run = [&](const std::string& name, const std::string& tail) {
        const fs::path file = dir / name;
        write_file(file, head + tail);
        return std::pair{run_locus("experiment " + quoted(file.string()) + " --dry-run"),
                         file.string()};
    };
    auto [r, file] = run("negative.yaml", "time_limit: -3\n");
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(file + ":3:13: time_limit: expected a number >= 0, got '-3'") !=
          std::string::npos);
    std::tie(r, file) = run("word.yaml", "seeds: many\n");
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(file + ":3:8: seeds: expected an integer, got 'many'") !=
          std::string::npos);
    std::tie(r, file) = run("zero.yaml", "seeds: 0\n");
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(file + ":3:8: seeds: expected an integer in [1, 1000000], got '0'") !=
          std::string::npos);
    std::tie(r, file) = run("list.yaml", "seeds:\n  - 4\n  - -1\ntime_limit: 2\n");
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(file + ":5:5: seeds: expected an integer >= 0, got '-1'") !=
          std::string::npos);
    std::tie(r, file) = run("flow.yaml", "seeds: [4, 'x']  # two\nname: flow\n");
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(file + ":3:12: seeds: expected an integer, got 'x'") !=
          std::string::npos);
    std::tie(r, file) = run("good.yaml", "name: keys # named\nseeds: [4, 7]\ntime_limit: 0.5\n");
    CHECK(r.exit_code == 0);
    CHECK(r.output == "2 runs\nils|random-uniform:n=30|4|cpu -> " + config +
                          "\nils|random-uniform:n=30|7|cpu -> " + config + "\n");
}

TEST_CASE("locus experiment: bad specs, shards and output directories are refused") {
    const fs::path dir = temp_dir("experiment-errors");
    const auto spec = [&](const std::string& name, const std::string& text) {
        write_file(dir / name, text);
        return (dir / name).string();
    };
    const std::string config = (source_dir() / "configs" / "tsp" / "ils.yaml").string();

    auto r = run_locus("experiment " + quoted(spec("missing.yaml", "configs: [nowhere.yaml]\n"
                                                                   "instances: [x]\n")));
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("config file 'nowhere.yaml' not found") != std::string::npos);

    r = run_locus("experiment " +
                  quoted(spec("empty.yaml", "configs: [" + config + "]\ninstances: []\n")));
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("'instances' is empty") != std::string::npos);

    r = run_locus("experiment " + quoted(spec("noinst.yaml", "configs: [" + config +
                                                                  "]\ninstances: [tsplib/none.tsp]\n")));
    CHECK(r.exit_code != 0);
    CHECK(r.output.find("none.tsp") != std::string::npos);

    const std::string good = spec("good.yaml", "configs: [" + config +
                                                   "]\ninstances: ['random-uniform:n=30']\n"
                                                   "time_limit: 0.2\n");
    r = run_locus("experiment " + quoted(good) + " --dry-run --shard 3/2");
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("--shard '3/2': expected i/N with 1 <= i <= N") != std::string::npos);

    // A directory of another spec, and a corrupt results line.
    const fs::path out = dir / "out";
    REQUIRE(run_locus("experiment " + quoted(good) + " --out " + quoted(out.string())).exit_code ==
            0);
    const std::string other = spec("other.yaml", "configs: [" + config +
                                                     "]\ninstances: ['random-uniform:n=31']\n"
                                                     "time_limit: 0.2\n");
    r = run_locus("experiment " + quoted(other) + " --out " + quoted(out.string()));
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("holds results of another experiment spec") != std::string::npos);
    write_file(out / "results.jsonl", read_text(out / "results.jsonl") + "{not json\n");
    r = run_locus("experiment " + quoted(good) + " --out " + quoted(out.string()));
    CHECK(r.exit_code == 1);
    CHECK(r.output.find("results.jsonl:2: corrupt results line") != std::string::npos);
}

TEST_CASE("locus experiment: a config may name its own instances (one spec, two problems)") {
    const fs::path dir = temp_dir("experiment-own-instances");
    const std::string tsp = (source_dir() / "configs" / "tsp" / "ils.yaml").string();
    const std::string qap = (source_dir() / "configs" / "qap" / "ils.yaml").string();
    write_file(dir / "mix.yaml", "configs:\n  - {file: " + tsp +
                                     ", instances: ['random-uniform:n=40,seed=1']}\n"
                                     "  - {file: " + qap + ", label: q, instances: "
                                     "['random-qap:n=10,seed=1', 'random-qap:n=11,seed=1']}\n"
                                     "seeds: 1\ntime_limit: 0.2\n");
    const fs::path out = dir / "out";
    const auto r = run_locus("experiment " + quoted((dir / "mix.yaml").string()) + " --out " +
                             quoted(out.string()));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    std::set<std::string> runs;
    for (const auto& line : read_jsonl(out / "results.jsonl"))
        runs.insert(line["problem"].get<std::string>() + " " + line["instance"].get<std::string>());
    CHECK(runs == std::set<std::string>{"tsp random-uniform:n=40,seed=1",
                                        "qap random-qap:n=10,seed=1",
                                        "qap random-qap:n=11,seed=1"});
    write_file(dir / "none.yaml", "configs:\n  - {file: " + tsp + ", instances: []}\n");
    const auto bad = run_locus("experiment " + quoted((dir / "none.yaml").string()) + " --dry-run");
    CHECK(bad.exit_code == 2);
    CHECK(bad.output.find("config 'ils': 'instances' is empty") != std::string::npos);
}

TEST_CASE("locus experiment: the CUDA devices are checked before anything runs") {
    const fs::path dir = temp_dir("experiment-devices");
    const std::string config = (source_dir() / "configs" / "tsp" / "ils.yaml").string();
    write_file(dir / "cuda.yaml", "configs: [" + config +
                                      "]\ninstances: ['random-uniform:n=30']\n"
                                      "backends: [cuda]\ntime_limit: 0.2\n");
    write_file(dir / "cpu.yaml", "configs: [" + config +
                                     "]\ninstances: ['random-uniform:n=30']\n"
                                     "backends: [cpu]\ntime_limit: 0.2\n");
    const std::string cuda = quoted((dir / "cuda.yaml").string());
    const fs::path out = dir / "out";

    auto r = run_locus("experiment " + cuda + " --devices 0,x\x01 --out " + quoted(out.string()));
    CHECK(r.exit_code == 2);
    // The bad list is echoed escaped.
    CHECK(r.output.find("--devices 0,x\\x01: expected a comma-separated list of CUDA device "
                        "ordinals") != std::string::npos);
    r = run_locus("experiment " + cuda + " --devices 0,0 --out " + quoted(out.string()));
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("device 0 is listed twice") != std::string::npos);
    r = run_locus("experiment " + cuda + " --gpus 1 --devices 0 --out " + quoted(out.string()));
    CHECK(r.exit_code != 0);
    CHECK(r.output.find("--gpus excludes --devices") != std::string::npos);

    // Device 9999 exists nowhere: without a GPU the missing device is named, with one the
    // missing ordinal; either way nothing is run or written.
    r = run_locus("experiment " + cuda + " --devices 0,9999 --out " + quoted(out.string()));
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK((r.output.find("the experiment has CUDA runs but no CUDA device is available") !=
               std::string::npos ||
           r.output.find("--devices 0,9999: CUDA device 9999 does not exist") !=
               std::string::npos));
    CHECK_FALSE(fs::exists(out));

    // CPU runs need no device: the list is not looked at beyond its syntax.
    r = run_locus("experiment " + quoted((dir / "cpu.yaml").string()) +
                  " --devices 7 --out " + quoted(out.string()));
    CHECK(r.exit_code == 0);
    const auto lines = read_jsonl(out / "results.jsonl");
    REQUIRE(lines.size() == 1);
    CHECK(lines[0]["device_ordinal"].is_null());
    CHECK(lines[0]["ended_unix_s"].get<double>() >= lines[0]["started_unix_s"].get<double>());
}

TEST_CASE("locus report: a table per instance and config, CSV, significance marks, corrupt "
          "lines named") {
    const fs::path dir = temp_dir("report");
    // Config A finds 100..105, config B 110..115 on instance "x"; B alone on "y" (one infeasible).
    std::string text;
    for (int k = 0; k < 6; ++k) {
        text += nlohmann::json{{"instance", "x"}, {"label", "A"}, {"objective", 100 + k},
                               {"feasible", true}, {"best_known", 100}, {"gap", k},
                               {"time_to_best_s", 1.0}}
                    .dump() + "\n";
        text += nlohmann::json{{"instance", "x"}, {"label", "B"}, {"objective", 110 + k},
                               {"feasible", true}, {"best_known", 100}, {"gap", 10 + k},
                               {"time_to_best_s", 3.0}}
                    .dump() + "\n";
    }
    text += nlohmann::json{{"instance", "y"}, {"label", "B"}, {"objective", 7},
                           {"feasible", true}}.dump() + "\n";
    text += nlohmann::json{{"instance", "y"}, {"label", "B"}, {"objective", nullptr},
                           {"feasible", false}}.dump() + "\n";
    write_file(dir / "results.jsonl", text);
    const auto r = run_locus("report " + quoted(dir.string()) + " --out " +
                             quoted((dir / "rep").string()));
    REQUIRE(r.exit_code == 0);
    const std::string md = read_text(dir / "rep" / "report.md");
    CHECK(md.find("14 runs from 1 input(s).") != std::string::npos);
    CHECK(md.find("| A | 6 | 100 % | 100 | 102.5 | 105 | 0.000 | 2.500 | 5.000 | 1.000 |") !=
          std::string::npos);
    CHECK(md.find("| B | 6 | 100 % | 110 | 112.5 | 115 | 10.000 | 12.500 | 15.000 | 3.000 |") !=
          std::string::npos);
    CHECK(md.find("| B | 2 | 50 % | 7 | 7 | 7 | - | - | - |") != std::string::npos);
    // Six against six with no overlap: U = 0, p = 0.0051 (normal approximation).
    CHECK(md.find("- A vs B: p = 0.00") != std::string::npos);
    CHECK(md.find(" * (A better)") != std::string::npos);
    const auto csv = read_lines(dir / "rep" / "report.csv");
    CHECK(csv.size() == 4); // header, x/A, x/B, y/B
    CHECK(csv[1].starts_with("\"x\",\"A\",6,100.0,100,102.5,105,"));

    write_file(dir / "bad" / "results.jsonl", text + "{\"instance\": \n");
    const auto bad = run_locus("report " + quoted((dir / "bad").string()) + " --out " +
                               quoted((dir / "rep2").string()));
    CHECK(bad.exit_code == 1);
    CHECK(bad.output.find("results.jsonl:15: corrupt results line") != std::string::npos);
    const auto none = run_locus("report " + quoted((dir / "nowhere").string()));
    CHECK(none.exit_code == 2);
    CHECK(none.output.find("no results file") != std::string::npos);
}

TEST_CASE("locus experiment --jobs 2: CPU runs side by side on half the cores each") {
    const fs::path out = temp_dir("experiment-jobs") / "out";
    const auto r = in_source("experiment configs/experiments/smoke.yaml --jobs 2 --out " +
                             quoted(out.string()));
    REQUIRE(r.exit_code == 0);
    const auto lines = read_jsonl(out / "results.jsonl");
    REQUIRE(lines.size() == 8);
    std::set<std::string> keys;
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    for (const auto& line : lines) {
        keys.insert(line["experiment_key"].get<std::string>());
        CHECK(line["threads"].get<unsigned>() == std::max(1u, cores / 2));
        CHECK(line["device"].get<std::string>().find("threads") != std::string::npos);
    }
    CHECK(keys.size() == 8);
}

TEST_CASE("the Slurm array template: two array tasks started together share one directory and "
          "partition the runs") {
    // The template run as Slurm would run tasks 1 and 2 of an array of 2 (environment only; a
    // real scheduler is not needed to check what the script does with it).
    const fs::path out = temp_dir("experiment-array") / "out";
    const std::string script = (source_dir() / "scripts" / "slurm" / "experiment.sbatch").string();
    const std::string task = [&] {
        std::string common = "SLURM_ARRAY_TASK_COUNT=2 SLURM_ARRAY_TASK_MIN=1 LOCUS=" +
                             quoted((bin_dir() / "locus").string()) + " bash " + quoted(script) +
                             " configs/experiments/smoke.yaml " + quoted(out.string());
        return "(SLURM_ARRAY_TASK_ID=1 " + common + " & SLURM_ARRAY_TASK_ID=2 " + common +
               " & wait)";
    }();
    const auto r = run_command("cd " + quoted(source_dir().string()) +
                               " && env -u LOCUS_PLUGIN_PATH sh -c " + quoted(task));
    CHECK(r.exit_code == 0);
    const auto lines = read_jsonl(out / "results.jsonl");
    std::set<std::string> keys;
    for (const auto& line : lines) keys.insert(line["experiment_key"].get<std::string>());
    CHECK(lines.size() == 8);
    CHECK(keys.size() == 8);
    const auto missing = run_command(
        "cd " + quoted(source_dir().string()) + " && bash " + quoted(script) + " x y");
    CHECK(missing.exit_code != 0);
    CHECK(missing.output.find("submit as a job array") != std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Peers (scripts/peers): spec expansion and errors everywhere; real runs when the peers'
// environment exists (scripts/peers/install; CI has none and skips them).

namespace {

/// A small CVRPLIB instance with a route-duration limit and service times (real distances).
fs::path write_small_dcvrp(const fs::path& file) {
    std::string text = "NAME : small-dcvrp\nTYPE : DCVRP\nDIMENSION : 12\nCAPACITY : 30\n"
                       "DISTANCE : 120\nSERVICE_TIME : 4\nEDGE_WEIGHT_TYPE : EUC_2D\n"
                       "NODE_COORD_SECTION\n";
    const double xy[12][2] = {{50, 50},   {20.5, 30},  {80, 20.25}, {65, 85}, {10, 70},
                              {35.5, 55}, {90, 60},    {55, 15},    {25, 90}, {70.75, 40},
                              {45, 75},   {5.5, 45.5}};
    const int demand[12] = {0, 7, 9, 4, 8, 6, 10, 5, 7, 3, 9, 6};
    for (int i = 0; i < 12; ++i)
        text += std::to_string(i + 1) + " " + std::to_string(xy[i][0]) + " " +
                std::to_string(xy[i][1]) + "\n";
    text += "DEMAND_SECTION\n";
    for (int i = 0; i < 12; ++i)
        text += std::to_string(i + 1) + " " + std::to_string(demand[i]) + "\n";
    text += "DEPOT_SECTION\n1\n-1\nEOF\n";
    write_file(file, text);
    return file;
}

/// The peers' environment the launcher uses: $LOCUS_PEERS_VENV, else .venv-peers in the source
/// tree.
fs::path peers_venv() {
    const char* venv = std::getenv("LOCUS_PEERS_VENV");
    return venv && *venv ? fs::path(venv) : source_dir() / ".venv-peers";
}

} // namespace

TEST_CASE("locus experiment: peers beside configs expand to label|instance|seed|cpu runs") {
    const fs::path dir = temp_dir("experiment-peers-spec");
    const fs::path tsp = write_tsplib(dir / "small.tsp", "small", 12, 5);
    const std::string config = (source_dir() / "configs" / "tsp" / "ils.yaml").string();
    write_file(dir / "spec.yaml",
               "name: peers\nconfigs: [" + config + "]\n"
               "peers: [lkh3, {name: ortools, label: ortools-gls, set: "
               "[metaheuristic=GUIDED_LOCAL_SEARCH]}]\n"
               "instances: [" + tsp.string() + "]\nseeds: 2\ntime_limit: 1\n");
    const auto r = run_locus("experiment " + quoted((dir / "spec.yaml").string()) + " --dry-run");
    REQUIRE(r.exit_code == 0);
    const std::string t = tsp.string();
    CHECK(r.output == "6 runs\n"
                      "ils|" + t + "|1|cpu -> " + config + "\n"
                      "ils|" + t + "|2|cpu -> " + config + "\n"
                      "lkh3|" + t + "|1|cpu -> peer:lkh3\n"
                      "lkh3|" + t + "|2|cpu -> peer:lkh3\n"
                      "ortools-gls|" + t + "|1|cpu -> peer:ortools\n"
                      "ortools-gls|" + t + "|2|cpu -> peer:ortools\n");
    // Peers alone, without configs.
    write_file(dir / "alone.yaml", "peers: [ortools]\ninstances: [" + t + "]\ntime_limit: 1\n");
    const auto alone =
        run_locus("experiment " + quoted((dir / "alone.yaml").string()) + " --dry-run");
    CHECK(alone.exit_code == 0);
    CHECK(alone.output == "1 runs\nortools|" + t + "|1|cpu -> peer:ortools\n");
}

TEST_CASE("locus experiment: unknown peers, generated instances, other problems and a missing "
          "environment are refused with their reasons") {
    const fs::path dir = temp_dir("experiment-peers-errors");
    const std::string tsp = write_tsplib(dir / "small.tsp", "small", 12, 5).string();
    const std::string vrp = write_small_dcvrp(dir / "small.vrp").string();
    const auto spec = [&](const std::string& name, const std::string& text) {
        write_file(dir / name, text);
        return "experiment " + quoted((dir / name).string());
    };
    auto r = run_locus(spec("unknown.yaml", "peers: [lkh]\ninstances: [" + tsp +
                                                "]\ntime_limit: 1\n") + " --dry-run");
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("unknown peer 'lkh' (valid: lkh3, hgs, pyvrp, ortools)") !=
          std::string::npos);

    r = run_locus(spec("generated.yaml", "peers: [ortools]\ninstances: ['random-uniform:n=20']\n"
                                         "time_limit: 1\n") + " --dry-run");
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("peer 'ortools' cannot run on 'random-uniform:n=20': peers read instance "
                        "files and a generated instance has none") != std::string::npos);

    r = run_locus(spec("problem.yaml", "peers: [lkh3]\ninstances: [" + vrp +
                                           "]\ntime_limit: 1\n") + " --dry-run");
    CHECK(r.exit_code == 2);
    // NOTE: the problems and their file extensions are those the problem plugins register.
    CHECK(r.output.find("peer 'lkh3' solves tsp (.tsp files) only, not '" + vrp + "'") !=
          std::string::npos);
    r = run_locus(spec("hgs-tsp.yaml", "peers: [hgs]\ninstances: [" + tsp +
                                           "]\ntime_limit: 1\n") + " --dry-run");
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("peer 'hgs' solves dcvrp (.vrp files) only") != std::string::npos);

    r = run_locus(spec("nolimit.yaml", "peers: [ortools]\ninstances: [" + tsp + "]\n") +
                  " --dry-run");
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("peers need the spec's 'time_limit'") != std::string::npos);

    // No environment: a clear error before anything runs.
    const std::string run = spec("run.yaml", "peers: [ortools]\ninstances: [" + tsp +
                                                 "]\ntime_limit: 1\n");
    const fs::path out = dir / "out";
    r = run_locus(run + " --out " + quoted(out.string()),
                  "LOCUS_PEERS_VENV=" + quoted((dir / "no-venv").string()));
    CHECK(r.exit_code == 1);
    CHECK(r.output.find("peer runs need the peers' virtual environment, and '" +
                        (dir / "no-venv").string() + "' has none") != std::string::npos);
    CHECK(r.output.find("create it with scripts/peers/install") != std::string::npos);
    CHECK_FALSE(fs::exists(out / "results.jsonl"));

    // An environment without the peer's package (a bare python): the check names it.
    const auto python = run_command("command -v python3");
    if (python.exit_code != 0) {
        skip_test("no python3 on the PATH: the check of a bare environment is skipped");
        return;
    }
    const fs::path bare = dir / "bare-venv";
    fs::create_directories(bare / "bin");
    fs::create_symlink(python.output.substr(0, python.output.find('\n')), bare / "bin" / "python");
    r = run_locus(run + " --out " + quoted(out.string()),
                  "LOCUS_PEERS_VENV=" + quoted(bare.string()));
    CHECK(r.exit_code == 1);
    CHECK(r.output.find("ortools (ortools") != std::string::npos);
    CHECK(r.output.find("run scripts/peers/install") != std::string::npos);
}

TEST_CASE("locus experiment: a real run of every peer; the results line holds what locus verify "
          "says of the written solution" *
          doctest::test_suite("peers")) {
    if (!fs::exists(peers_venv() / "bin" / "python")) {
        skip_test("no peers' environment at " + peers_venv().string() +
                  ": real peer runs skipped (scripts/peers/install creates it)");
        return;
    }
    const fs::path dir = temp_dir("experiment-peers-run");
    const std::string tsp = write_tsplib(dir / "small.tsp", "small", 12, 5).string();
    const std::string vrp = write_small_dcvrp(dir / "small.vrp").string();
    write_file(dir / "tsp.yaml", "name: peers-tsp\npeers: [lkh3, ortools]\ninstances: [" + tsp +
                                     "]\nseeds: [3]\ntime_limit: 1\n");
    write_file(dir / "vrp.yaml", "name: peers-vrp\npeers: [hgs, pyvrp, ortools]\ninstances: [" +
                                     vrp + "]\nseeds: [3]\ntime_limit: 1\n");
    std::size_t checked = 0;
    for (const std::string name : {"tsp", "vrp"}) {
        const fs::path out = dir / ("out-" + name);
        const auto r = run_locus("experiment " + quoted((dir / (name + ".yaml")).string()) +
                                 " --out " + quoted(out.string()));
        INFO(r.output);
        REQUIRE(r.exit_code == 0);
        for (const auto& line : read_jsonl(out / "results.jsonl")) {
            INFO(line.dump());
            CHECK(line["backend"] == "cpu");
            CHECK(line["threads"] == 1);
            CHECK(line["peer"] == line["label"]);
            CHECK(line["seed"] == 3);
            CHECK(line["instance"] == (name == "tsp" ? "small" : "small-dcvrp"));
            REQUIRE(line["feasible"] == true);
            const std::string instance = name == "tsp" ? tsp : vrp;
            const auto v = run_locus("verify --instance " + quoted(instance) + " --solution " +
                                     quoted(line["solution_file"].get<std::string>()));
            REQUIRE(v.exit_code == 0);
            const std::string prefix = "feasible: objective ";
            REQUIRE(v.output.starts_with(prefix));
            CHECK(std::stod(v.output.substr(prefix.size())) == line["objective"].get<double>());
            CHECK(line["peer_objective"].get<double>() ==
                  doctest::Approx(line["objective"].get<double>()));
            ++checked;
        }
    }
    CHECK(checked == 5);
}

TEST_CASE("locus experiment: a results file whose last line is torn is repaired before a resume "
          "appends to it") {
    const fs::path dir = temp_dir("experiment-torn");
    const std::string config = (source_dir() / "configs" / "tsp" / "ils.yaml").string();
    write_file(dir / "spec.yaml", "configs: [" + config +
                                      "]\ninstances: ['random-uniform:n=30']\nseeds: 2\n"
                                      "time_limit: 0.2\n");
    const fs::path out = dir / "out";
    const std::string run = "experiment " + quoted((dir / "spec.yaml").string()) + " --out " +
                            quoted(out.string());
    REQUIRE(run_locus(run).exit_code == 0);
    const fs::path results = out / "results.jsonl";
    const std::string whole = read_text(results);
    REQUIRE(read_jsonl(results).size() == 2);

    // The last line without its newline: it gets one, nothing runs again.
    write_file(results, whole.substr(0, whole.size() - 1));
    auto r = run_locus(run);
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(read_text(results) == whole);

    // The last line cut in the middle: it is cut off with a warning and its run runs again.
    const std::size_t last = whole.rfind('\n', whole.size() - 2) + 1;
    write_file(results, whole.substr(0, last + 20));
    r = run_locus(run);
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("locus: warning: " + results.string() +
                        " ended in a torn line (20 bytes, not a results line): cut off; its run "
                        "runs again\n") != std::string::npos);
    const auto lines = read_jsonl(results);
    REQUIRE(lines.size() == 2);
    CHECK(lines[0]["experiment_key"] != lines[1]["experiment_key"]);
}

TEST_CASE("locus experiment: runs whose instances share a file name keep their own directories") {
    // tsplib-like files of the same name in two folders, and labels that differ only by '/'.
    const fs::path dir = temp_dir("experiment-same-name");
    const std::string a = write_tsplib(dir / "a" / "same.tsp", "samea", 20, 1).string();
    const std::string b = write_tsplib(dir / "b" / "same.tsp", "sameb", 20, 2).string();
    const std::string config = (source_dir() / "configs" / "tsp" / "ils.yaml").string();
    write_file(dir / "spec.yaml", "configs:\n  - {file: " + config +
                                      ", label: x/y}\n  - {file: " + config +
                                      ", label: x_y}\ninstances: [" + a + ", " + b +
                                      "]\nseeds: [1]\ntime_limit: 0.2\n");
    const fs::path out = dir / "out";
    const auto r = run_locus("experiment " + quoted((dir / "spec.yaml").string()) + " --out " +
                             quoted(out.string()));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const auto lines = read_jsonl(out / "results.jsonl");
    REQUIRE(lines.size() == 4);
    std::set<std::string> dirs;
    for (const auto& line : lines) {
        dirs.insert(line["run_dir"].get<std::string>());
        // Every run's files are still there and are its own.
        const fs::path solution = line["solution_file"].get<std::string>();
        CHECK(fs::is_regular_file(solution));
        CHECK(read_text(solution).find(line["instance"].get<std::string>()) != std::string::npos);
    }
    CHECK(dirs.size() == 4);
}

namespace {

/// Starts the launcher with `args` from the source directory in the background, its output into
/// `log`; returns its process id (the shell execs the launcher).
pid_t start_locus(const std::string& args, const fs::path& log) {
    const std::string line = "cd " + quoted(source_dir().string()) + " && exec " +
                             locus_command(args) + " >" + quoted(log.string()) + " 2>&1";
    std::vector<char*> argv{const_cast<char*>("sh"), const_cast<char*>("-c"),
                            const_cast<char*>(line.c_str()), nullptr};
    pid_t pid = -1;
    REQUIRE(::posix_spawn(&pid, "/bin/sh", nullptr, nullptr, argv.data(), environ) == 0);
    return pid;
}

/// The exit status of process `pid` (a child of this process) once it ends.
int wait_exit(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

} // namespace

TEST_CASE("locus experiment: a second experiment writing the same runs into one directory is "
          "refused at once; the shards i/N of one N share it") {
    const fs::path dir = temp_dir("experiment-lock");
    const std::string config = (source_dir() / "configs" / "tsp" / "ils.yaml").string();
    // 20 runs of 0.5 s: shard 1/2 alone lasts about 5 s.
    write_file(dir / "spec.yaml", "name: lock\nconfigs: [" + config +
                                      "]\ninstances: ['random-uniform:n=30']\nseeds: 20\n"
                                      "time_limit: 0.5\n");
    const fs::path out = dir / "out";
    const std::string run =
        "experiment " + quoted((dir / "spec.yaml").string()) + " --out " + quoted(out.string());
    const pid_t first = start_locus(run + " --shard 1/2", dir / "first.log");
    // Once its first run has a directory, the first experiment holds the directory's lock.
    for (int k = 0; k < 1200 && !(fs::is_directory(out / "runs") && !fs::is_empty(out / "runs"));
         ++k)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    REQUIRE(fs::is_directory(out / "runs"));
    const std::string holder =
        "locus: error: another experiment is writing to '" + out.string() + "' (pid " +
        std::to_string(first) + ")";

    // The same shard again: the same runs.
    auto r = run_locus_stderr(run + " --shard 1/2");
    CHECK(r.exit_code == 1);
    CHECK(r.output == holder + "\n");
    // The whole experiment, and shards of another N, overlap the first one's runs.
    r = run_locus_stderr(run);
    CHECK(r.exit_code == 1);
    CHECK(r.output == holder + ", with --shard i/2; only the shards i/N of one N write into one "
                               "directory together\n");
    r = run_locus_stderr(run + " --shard 1/3");
    CHECK(r.exit_code == 1);
    CHECK(r.output == holder + ", with --shard i/2; only the shards i/N of one N write into one "
                               "directory together\n");
    // A dry run writes nothing and takes no lock.
    r = run_locus(run + " --dry-run --shard 1/2");
    CHECK(r.exit_code == 0);
    CHECK(r.output.starts_with("10 runs (shard 1/2)\n"));
    // The other shard runs beside the first one to its end.
    r = run_locus_stderr(run + " --shard 2/2");
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("another experiment") == std::string::npos);
    CHECK(wait_exit(first) == 0);
    INFO(read_text(dir / "first.log"));
    const auto lines = read_jsonl(out / "results.jsonl");
    std::set<std::string> keys;
    for (const auto& line : lines) keys.insert(line["experiment_key"].get<std::string>());
    CHECK(lines.size() == 20);
    CHECK(keys.size() == 20);

    // Both ended: the lock went with them, and nothing is left to run.
    r = run_locus_stderr(run);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("20 runs, 20 finished, 0 to run") != std::string::npos);
}
