// `locus experiment`: expansion and --dry-run, shards that partition the runs, a smoke run that
// resumes after SIGKILL with the same runs and no duplicates, and the bad-input errors.

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <thread>
#include <vector>

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
        keys.push_back(line.substr(0, line.find('\t')));
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
    CHECK(md.find(" * (A lower)") != std::string::npos);
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
