// The deprecated names of the many-chain search: `resident_ils` (TSP, QAP) and `routing_ils`
// (DCVRP, tests/dcvrp/test_launcher.cpp) with their old flat keys compose to the same config as
// `chains` with the problem's keys under `policy`, run the same search (same objective,
// iterations and evaluations for the same seed), and a note on stderr names the replacement.

#include <doctest/doctest.h>

#include <string>

#include "launcher_helpers.hpp"

using namespace locus::test;
namespace fs = std::filesystem;

namespace {

struct Run {
    CommandResult command;
    nlohmann::json line;
};

Run run_job(const fs::path& dir, const std::string& name, const std::string& problem,
            const std::string& algorithm) {
    const fs::path config = dir / (name + ".yaml");
    write_file(config, "problem: " + problem + "\nconstruction: random\nalgorithm: " + algorithm +
                           "\nbatch: 4\ntermination: {iterations: 40}\nseed: 3\n");
    Run run;
    run.command = run_locus("run " + config.string() + " -q --backend cpu --set threads=2 --out " +
                            (dir / name).string());
    const auto lines = read_jsonl(dir / name / "results.jsonl");
    if (!lines.empty()) run.line = lines.back();
    return run;
}

void check_same(const Run& old_form, const Run& new_form) {
    INFO(old_form.command.output);
    INFO(new_form.command.output);
    REQUIRE(old_form.command.exit_code == 0);
    REQUIRE(new_form.command.exit_code == 0);
    // (The config hashes differ by the output folder only: tests/core/test_alias.cpp shows that
    // the composed trees are equal.)
    for (const char* key : {"objective", "iterations", "evaluations", "algorithm"})
        CHECK(old_form.line.at(key) == new_form.line.at(key));
    CHECK(new_form.line.at("algorithm") == "chains");
    CHECK(new_form.command.output.find("deprecated") == std::string::npos);
}

} // namespace

TEST_CASE("resident_ils on the TSP: the old flat config runs as chains with a policy") {
    const fs::path dir = temp_dir("chains-alias-tsp");
    const std::string tsp = "{name: tsp, instance: \"random-uniform:n=120,seed=5\"}";
    const Run old_form =
        run_job(dir, "old", tsp,
                "{name: resident_ils, candidates: 8, window: 30, depth: 4, epoch: 10, "
                "exchange: merge}");
    const Run new_form = run_job(dir, "new", tsp,
                                 "{name: chains, policy: {candidates: 8, window: 30, depth: 4}, "
                                 "epoch: 10, exchange: merge}");
    check_same(old_form, new_form);
    CHECK(old_form.command.output.find(
              "locus: note: algorithm 'resident_ils' (problem 'tsp') is deprecated; use {name: "
              "chains, policy: {...}}: its keys that chains does not know go under policy, with "
              "the same values and results\n") != std::string::npos);
}

TEST_CASE("resident_ils on the QAP: the old flat config runs as chains with a policy") {
    const fs::path dir = temp_dir("chains-alias-qap");
    const std::string qap = "{name: qap, instance: \"random-qap:n=14\"}";
    const Run old_form = run_job(dir, "old", qap,
                                 "{name: resident_ils, kick: 3, epoch: 5, acceptance: threshold, "
                                 "exchange: recombine, elite: 2}");
    const Run new_form = run_job(dir, "new", qap,
                                 "{name: chains, policy: {kick: 3}, epoch: 5, acceptance: "
                                 "threshold, exchange: recombine, elite: 2}");
    check_same(old_form, new_form);
    CHECK(old_form.command.output.find("locus: note: algorithm 'resident_ils' (problem 'qap') is "
                                       "deprecated") != std::string::npos);
}

TEST_CASE("resident_ils: an unknown key is refused as before, located, with the old keys") {
    const fs::path dir = temp_dir("chains-alias-unknown");
    const fs::path config = dir / "job.yaml";
    write_file(config, "problem: {name: qap, instance: \"random-qap:n=14\"}\n"
                       "algorithm: {name: resident_ils, kik: 3}\n");
    const CommandResult r = run_locus("validate " + config.string());
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(config.string() +
                        ":2:33: algorithm.kik: unknown key 'kik' for algorithm 'resident_ils'; "
                        "did you mean 'kick'? (valid: acceptance, child_descent, close, "
                        "cooling, cross_islands, elite, epoch, exchange, generation, "
                        "group_size, islands, kick, mapping, pivot, population, "
                        "regional_start_above, restart, restart_construction, start, start_pivot, "
                        "temperature, threshold)") != std::string::npos);
}
