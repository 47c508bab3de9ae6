// `locus run` end to end: the results line, trace and tour it writes, repeated runs,
// determinism, --initial, SIGINT and move checking.

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "launcher_helpers.hpp"

namespace fs = std::filesystem;
using namespace locus::test;

namespace {

/// ILS over candidate-list 2-opt on a generated 200-city instance, ended by iterations.
const std::string kIlsJob = "problem: {name: tsp, instance: \"random-uniform:n=200,seed=3\"}\n"
                            "construction: random\n"
                            "algorithm:\n"
                            "  name: ils\n"
                            "  local_search: {name: descent, neighborhood: {name: two_opt, "
                            "candidates: 8}}\n"
                            "  perturbation: double_bridge\n"
                            "termination: {iterations: 200}\n"
                            "backend: cpu\n"
                            "seed: 5\n";

/// Runs `config` quietly into `out` with `extra` options; REQUIREs success and returns the
/// results lines.
std::vector<nlohmann::json> run_ok(const fs::path &config, const fs::path &out,
                                   const std::string &extra = "", const std::string &env = "") {
    const CommandResult r = run_locus(
        "run " + quoted(config.string()) + " -q --out " + quoted(out.string()) + " " + extra, env);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    return read_jsonl(out / "results.jsonl");
}

/// `locus verify` of a tour; returns its exit status and checks the reported objective.
int verify(const fs::path &instance, const std::string &tour, const nlohmann::json &objective) {
    const CommandResult r =
        run_locus("verify --instance " + quoted(instance.string()) + " --solution " + quoted(tour));
    INFO(r.output);
    CHECK(r.output.rfind("feasible: objective " + objective.dump() + " (", 0) == 0);
    return r.exit_code;
}

/// `locus verify` of a tour of a generated TSP instance (`spec`, e.g.
/// random-uniform:n=1000,seed=3); returns its exit status.
int verify_generated(const std::string &spec, const std::string &tour) {
    const CommandResult r =
        run_locus("verify --problem tsp --instance " + spec + " --solution " + quoted(tour));
    INFO(r.output);
    return r.exit_code;
}

/// Checks the trace of a run: strictly improving objectives ending at the run's objective.
void check_trace(const nlohmann::json &line) {
    const auto trace = read_jsonl(line["trace_file"].get<std::string>());
    REQUIRE_FALSE(trace.empty());
    for (std::size_t i = 0; i < trace.size(); ++i) {
        for (const char *key : {"time_s", "iteration", "evaluations", "objective"})
            CHECK(trace[i].contains(key));
        if (i == 0)
            continue;
        CHECK(trace[i]["objective"].get<double>() < trace[i - 1]["objective"].get<double>());
        CHECK(trace[i]["time_s"].get<double>() >= trace[i - 1]["time_s"].get<double>());
        CHECK(trace[i]["evaluations"].get<double>() >= trace[i - 1]["evaluations"].get<double>());
    }
    CHECK(trace.back()["objective"] == line["objective"]);
    CHECK(trace.back()["time_s"].get<double>() ==
          doctest::Approx(line["time_to_best_s"].get<double>()));
}

/// The run improved on its first trace point and its tour passes locus verify on `spec`.
void check_improved_and_verified(const nlohmann::json &line, const std::string &spec) {
    const auto trace = read_jsonl(line["trace_file"].get<std::string>());
    REQUIRE(trace.size() >= 2);
    CHECK(line["objective"].get<double>() < trace.front()["objective"].get<double>());
    CHECK(verify_generated(spec, line["solution_file"].get<std::string>()) == 0);
}

/// configs/tsp/resident-ils.yaml on the CPU with 4 chains, epoch 2 and an iteration limit (no
/// time limit, no target) plus `args`; the tour is checked by locus verify. Returns the line.
nlohmann::json resident_run(const std::string& tag, const std::string& instance,
                            int iterations, const std::string& args) {
    const auto lines =
        run_ok(source_dir() / "configs/tsp/resident-ils.yaml", temp_dir(tag) / "out",
               "--backend cpu --instance " + instance + " --set batch=4 --set algorithm.epoch=2 "
               "--set termination.target_gap=null --set termination.time_limit=null "
               "--set termination.iterations=" + std::to_string(iterations) + " " + args);
    REQUIRE(lines.size() == 1);
    CHECK(verify_generated(instance, lines[0]["solution_file"].get<std::string>()) == 0);
    return lines[0];
}

} // namespace

TEST_CASE("a run writes one complete results line, its trace and its tour") {
    const fs::path dir = temp_dir("apps-run");
    const fs::path config = dir / "job.yaml";
    write_file(config, kIlsJob);
    const fs::path out = dir / "out";
    const auto lines = run_ok(config, out,
                              "--time-limit 1 --set termination.iterations=0 "
                              "--set construction=nearest_neighbor");
    REQUIRE(lines.size() == 1);
    const nlohmann::json &line = lines[0];
    for (const char *key :
         {"problem",        "instance",     "algorithm",  "backend",     "device",
          "seed",           "objective",    "feasible",   "best_known",  "gap",
          "time_to_best_s", "total_time_s", "iterations", "evaluations", "solution_file",
          "config_hash",    "version",      "run",        "stop_reason", "trace_file",
          "build_id"}) {
        INFO(key);
        CHECK(line.contains(key));
    }
    CHECK(line["problem"] == "tsp");
    CHECK(line["instance"] == "random-uniform:n=200,seed=3");
    CHECK(line["algorithm"] == "ils");
    CHECK(line["backend"] == "cpu");
    CHECK_FALSE(line["device"].get<std::string>().empty());
    CHECK(line["seed"] == 5);
    CHECK(line["run"] == 0);
    CHECK(line["feasible"] == true);
    CHECK(line["objective"].is_number_integer());
    CHECK(line["best_known"].is_null());
    CHECK(line["gap"].is_null());
    CHECK(line["stop_reason"] == "time_limit");
    CHECK(line["total_time_s"].get<double>() >= 1.0);
    CHECK(line["total_time_s"].get<double>() < 5.0);
    CHECK(line["time_to_best_s"].get<double>() <= line["total_time_s"].get<double>());
    CHECK(line["iterations"].get<long long>() > 0);
    CHECK(line["evaluations"].get<long long>() > 0);
    CHECK(line["config_hash"].get<std::string>().size() == 16);
    CHECK_FALSE(line["version"].get<std::string>().empty());
    const fs::path tour = line["solution_file"].get<std::string>();
    CHECK(tour.parent_path().parent_path() == out);
    CHECK(tour.filename() == "best.tour");
    CHECK(fs::is_regular_file(tour));
    CHECK(fs::path(line["trace_file"].get<std::string>()) == tour.parent_path() / "trace.jsonl");
    check_trace(line);

    // A second job into the same directory appends its line.
    CHECK(run_ok(config, out, "--set termination.iterations=5").size() == 2);
}

TEST_CASE("the tour of a run on a TSPLIB file passes locus verify") {
    const fs::path dir = temp_dir("apps-run-verify");
    const fs::path instance = write_tsplib(dir / "gen150.tsp", "gen150", 150, 4);
    const fs::path config = dir / "job.yaml";
    write_file(config, kIlsJob);
    const auto lines = run_ok(config, dir / "out", "--instance " + quoted(instance.string()));
    REQUIRE(lines.size() == 1);
    CHECK(lines[0]["instance"] == "gen150");
    CHECK(lines[0]["stop_reason"] == "iterations");
    CHECK(lines[0]["iterations"] == 200);
    check_trace(lines[0]);
    CHECK(verify(instance, lines[0]["solution_file"], lines[0]["objective"]) == 0);
}

// Iteration budgets of the quality tests (deterministic for their seeds; each reaches its target
// with room to spare on every backend and thread count).
constexpr int kKroA100Iterations = 200;
constexpr int kLin318ParallelIterations = 100;
constexpr int kLin318ThreeOptIterations = 300;

/// The iteration budget of a quality test, in place of the config's time limit: quality is
/// asserted per amount of search, never per second.
std::string iteration_budget(int iterations) {
    return " --set termination.time_limit=null --set termination.iterations=" +
           std::to_string(iterations);
}

/// Runs configs/<config> on the CPU with `args` and an iteration budget (no time limit, no
/// target gap); requires exit 0, one feasible results line ended by the budget, and returns it.
nlohmann::json run_budgeted(const std::string &tag, const std::string &config,
                            const std::string &args, int iterations) {
    const auto lines = run_ok(source_dir() / "configs" / config, temp_dir(tag) / "out",
                              "--backend cpu " + args + " --set termination.target_gap=null" +
                                  iteration_budget(iterations));
    REQUIRE(lines.size() == 1);
    CHECK(lines[0]["feasible"] == true);
    CHECK(lines[0]["stop_reason"] == "iterations");
    return lines[0];
}

TEST_CASE("ILS on kroA100 reaches 1 % of the optimum in 200 iterations and its tour verifies") {
    const fs::path dir = temp_dir("apps-kroA100");
    const fs::path instance = data_file("tsplib/kroA100.tsp");
    // NOTE: LOCUS_DATA makes best-known.csv of the data directory visible from any directory.
    const auto lines =
        run_ok(source_dir() / "configs" / "tsp" / "ils.yaml", dir / "out",
               "--instance " + quoted(instance.string()) + " --backend cpu" +
                   iteration_budget(kKroA100Iterations),
               "LOCUS_DATA=" + quoted(data_root().string()));
    REQUIRE(lines.size() == 1);
    const nlohmann::json &line = lines[0];
    CHECK(line["instance"] == "kroA100");
    CHECK(line["feasible"] == true);
    CHECK(line["objective"].get<double>() <= 21282 * 1.01);
    CHECK(line["best_known"] == 21282);
    REQUIRE(line["gap"].is_number());
    CHECK(line["gap"].get<double>() <= 1.0);
    CHECK(line["gap"].get<double>() >= 0.0);
    CHECK(verify(instance, line["solution_file"], line["objective"]) == 0);
}

TEST_CASE("parallel ILS (Riise & Burke 2014) on lin318 reaches 2 % within its iteration budget on the "
          "CPU and its tour verifies") {
    const fs::path dir = temp_dir("apps-lin318");
    const fs::path instance = data_file("tsplib/lin318.tsp");
    const auto lines =
        run_ok(source_dir() / "configs" / "tsp" / "parallel-ils.yaml", dir / "out",
               "--instance " + quoted(instance.string()) + " --backend cpu" +
                   iteration_budget(kLin318ParallelIterations),
               "LOCUS_DATA=" + quoted(data_root().string()));
    REQUIRE(lines.size() == 1);
    CHECK(lines[0]["objective"].get<double>() <= 42029 * 1.02);
    CHECK(verify(instance, lines[0]["solution_file"], lines[0]["objective"]) == 0);
}

TEST_CASE("random-k 3-opt ILS (Delévacq et al.) on lin318 reaches 2 % within its iteration budget on "
          "the CPU and its tour verifies") {
    const fs::path dir = temp_dir("apps-lin318-3opt");
    const fs::path instance = data_file("tsplib/lin318.tsp");
    const auto lines =
        run_ok(source_dir() / "configs" / "tsp" / "ils-3opt.yaml", dir / "out",
               "--instance " + quoted(instance.string()) + " --backend cpu" +
                   iteration_budget(kLin318ThreeOptIterations),
               "LOCUS_DATA=" + quoted(data_root().string()));
    REQUIRE(lines.size() == 1);
    CHECK(lines[0]["objective"].get<double>() <= 42029 * 1.02);
    CHECK(verify(instance, lines[0]["solution_file"], lines[0]["objective"]) == 0);
}

TEST_CASE("parallel ILS with Combine, adaptive strength and soft restarts: reproducible, "
          "independent of the thread count, verified") {
    const fs::path dir = temp_dir("apps-parallel-ils");
    const fs::path config = dir / "job.yaml";
    const fs::path instance = write_tsplib(dir / "gen150.tsp", "gen150", 150, 8);
    write_file(config, "problem: {name: tsp, instance: " + quoted(instance.string()) + "}\n"
                       "construction: random\n"
                       "algorithm:\n"
                       "  name: ils\n"
                       "  local_search: {name: vnd, parallel: true, neighborhoods: [two_opt, "
                       "or_opt]}\n"
                       "  perturbation: double_bridge\n"
                       "  focused: false\n"
                       "  combination: segment_exchange\n"
                       "  adaptive_strength: true\n"
                       "  soft_restart: 7\n"
                       "  restart_construction: random\n"
                       "termination: {iterations: 40}\n"
                       "backend: cpu\n"
                       "seed: 4\n");
    const auto first = run_ok(config, dir / "a");
    const auto second = run_ok(config, dir / "b", "--set threads=1");
    REQUIRE(first.size() == 1);
    REQUIRE(second.size() == 1);
    CHECK(first[0]["iterations"] == 40);
    CHECK(first[0]["objective"] == second[0]["objective"]);
    CHECK(first[0]["evaluations"] == second[0]["evaluations"]);
    check_trace(first[0]);
    CHECK(verify(instance, first[0]["solution_file"], first[0]["objective"]) == 0);
}

TEST_CASE("concurrent runs into one output directory get their own run directories and "
          "whole results lines") {
    const fs::path dir = temp_dir("apps-concurrent");
    const fs::path instance = write_tsplib(dir / "gen150.tsp", "gen150", 150, 4);
    const fs::path config = dir / "job.yaml";
    write_file(config, kIlsJob);
    const fs::path out = dir / "out";
    std::string command;
    for (int k = 0; k < 6; ++k)
        command += (locus::test::bin_dir() / "locus").string() + " run " +
                   quoted(config.string()) + " -q --out " + quoted(out.string()) +
                   " --instance " + quoted(instance.string()) + " --seed " +
                   std::to_string(k + 1) + " & ";
    const auto result = locus::test::run_command(command + "wait");
    INFO(result.output);
    const auto lines = read_jsonl(out / "results.jsonl");
    REQUIRE(lines.size() == 6);
    std::set<std::string> files;
    std::set<unsigned long long> seeds;
    for (const auto &line : lines) {
        files.insert(line["solution_file"].get<std::string>());
        seeds.insert(line["seed"].get<unsigned long long>());
        // Each run's file holds that run's own solution.
        CHECK(verify(instance, line["solution_file"], line["objective"]) == 0);
        check_trace(line);
    }
    CHECK(files.size() == 6);
    CHECK(seeds.size() == 6);
}

TEST_CASE("repeat writes one results line per run with its own seed") {
    const fs::path dir = temp_dir("apps-repeat");
    const fs::path config = dir / "job.yaml";
    write_file(config,
               "problem: {name: tsp, instance: \"random-uniform:n=120,seed=3\"}\n"
               "construction: random\n"
               "algorithm:\n"
               "  name: repeat\n"
               "  runs: 3\n"
               "  algorithm: {name: descent, neighborhood: {name: two_opt, candidates: 8}}\n"
               "backend: cpu\n"
               "seed: 9\n");
    const auto lines = run_ok(config, dir / "out");
    REQUIRE(lines.size() == 3);
    std::set<unsigned long long> seeds;
    std::set<std::string> tours;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        CHECK(lines[i]["run"] == i);
        CHECK(lines[i]["algorithm"] == "repeat");
        CHECK(lines[i]["feasible"] == true);
        CHECK(lines[i]["stop_reason"] == "converged");
        CHECK(fs::is_regular_file(lines[i]["solution_file"].get<std::string>()));
        check_trace(lines[i]);
        seeds.insert(lines[i]["seed"].get<unsigned long long>());
        tours.insert(lines[i]["solution_file"].get<std::string>());
    }
    CHECK(lines[0]["seed"] == 9); // run 0 uses the job seed
    CHECK(seeds.size() == 3);
    CHECK(tours.size() == 3);
}

TEST_CASE("the same seeded job gives the same tour, whatever the number of threads") {
    const fs::path dir = temp_dir("apps-determinism");
    const fs::path config = dir / "job.yaml";
    write_file(config, kIlsJob);
    const auto first = run_ok(config, dir / "first");
    const auto second = run_ok(config, dir / "second");
    const auto one_thread = run_ok(config, dir / "one_thread", "--set threads=1");
    REQUIRE(first.size() == 1);
    REQUIRE(second.size() == 1);
    REQUIRE(one_thread.size() == 1);
    CHECK(first[0]["stop_reason"] == "iterations");
    CHECK(first[0]["objective"] == second[0]["objective"]);
    CHECK(first[0]["evaluations"] == second[0]["evaluations"]);
    CHECK(first[0]["objective"] == one_thread[0]["objective"]);
    const std::string tour = read_text(first[0]["solution_file"].get<std::string>());
    CHECK_FALSE(tour.empty());
    CHECK(tour == read_text(second[0]["solution_file"].get<std::string>()));
    CHECK(tour == read_text(one_thread[0]["solution_file"].get<std::string>()));
}

TEST_CASE("--initial continues from a tour and rejects an infeasible one") {
    const fs::path dir = temp_dir("apps-initial");
    const fs::path instance = write_tsplib(dir / "gen200.tsp", "gen200", 200, 7);
    const fs::path start_config = dir / "start.yaml";
    write_file(start_config,
               "problem: {name: tsp, instance: gen200.tsp}\n"
               "construction: random\n"
               "algorithm: {name: descent, neighborhood: {name: two_opt, candidates: 8}, "
               "max_steps: 5}\n"
               "backend: cpu\n");
    const std::string on_instance = "--instance " + quoted(instance.string());
    const auto start = run_ok(start_config, dir / "start", on_instance);
    REQUIRE(start.size() == 1);
    const std::string initial = start[0]["solution_file"];
    const double initial_length = start[0]["objective"].get<double>();

    const fs::path config = dir / "job.yaml";
    write_file(config, kIlsJob);
    const auto continued =
        run_ok(config, dir / "continued",
               on_instance + " --set termination.iterations=20 --initial " + quoted(initial));
    REQUIRE(continued.size() == 1);
    CHECK(continued[0]["objective"].get<double>() <= initial_length);
    const auto trace = read_jsonl(continued[0]["trace_file"].get<std::string>());
    REQUIRE_FALSE(trace.empty());
    CHECK(trace.front()["objective"].get<double>() == initial_length);

    const fs::path bad = dir / "bad.tour";
    const std::string why = write_tour_with_duplicate(initial, bad);
    const CommandResult rejected = run_locus_stderr(
        "run " + quoted(config.string()) + " -q --out " + quoted((dir / "rejected").string()) +
        " " + on_instance + " --initial " + quoted(bad.string()));
    CHECK(rejected.exit_code == 1);
    CHECK(rejected.output == "locus: error: --initial: " + why + "\n");
    CHECK_FALSE(fs::exists(dir / "rejected" / "results.jsonl"));
}

TEST_CASE("a run killed by SIGKILL keeps its best tour but for the last seconds") {
    const fs::path dir = temp_dir("apps-sigkill");
    const fs::path instance = write_tsplib(dir / "gen2000.tsp", "gen2000", 2000, 6);
    const fs::path config = dir / "job.yaml";
    write_file(config, kIlsJob);
    const fs::path out = dir / "out";
    const CommandResult r = run_command(
        "timeout -s KILL 5 " +
        locus_command("run " + quoted(config.string()) + " -q --out " + quoted(out.string()) +
                      " --instance " + quoted(instance.string()) +
                      " --time-limit 60 --set termination.iterations=0"));
    CHECK(r.exit_code == 137);
    CHECK_FALSE(fs::exists(out / "results.jsonl"));
    std::vector<fs::path> runs;
    for (const auto &entry : fs::directory_iterator(out))
        if (entry.is_directory()) runs.push_back(entry.path());
    REQUIRE(runs.size() == 1);
    const fs::path tour = runs[0] / "best.tour";
    REQUIRE(fs::exists(tour));
    CHECK_FALSE(fs::exists(runs[0] / "best.tour.tmp"));
    const auto trace = read_jsonl(runs[0] / "trace.jsonl");
    REQUIRE(trace.size() > 2);
    // The checkpoint is one of the trace's improvements, verified independently...
    const std::string text = read_text(tour);
    const std::size_t at = text.find("Length = ");
    REQUIRE(at != std::string::npos);
    const long long length = std::stoll(text.substr(at + 9));
    CHECK(verify(instance, tour.string(), length) == 0);
    bool listed = false;
    for (const auto &point : trace) listed = listed || point["objective"] == length;
    CHECK(listed);
    // ...and no older than the improvements of the last seconds (1 s between checkpoints,
    // 2.5 s allowed for a loaded machine).
    const double last = trace.back()["time_s"].get<double>();
    for (const auto &point : trace)
        if (point["time_s"].get<double>() <= last - 2.5) CHECK(length <= point["objective"]);
}

TEST_CASE("SIGINT stops a run cleanly: exit 130 with results and a valid tour") {
    const fs::path dir = temp_dir("apps-sigint");
    const fs::path instance = write_tsplib(dir / "gen300.tsp", "gen300", 300, 5);
    const fs::path config = dir / "job.yaml";
    write_file(config, kIlsJob);
    const fs::path out = dir / "out";
    // NOTE: timeout sends SIGINT after 2 s; --preserve-status returns the launcher's status.
    const CommandResult r = run_command(
        "timeout --preserve-status -s INT 2 " +
        locus_command("run " + quoted(config.string()) + " -q --out " + quoted(out.string()) +
                      " --instance " + quoted(instance.string()) +
                      " --time-limit 60 --set termination.iterations=0"));
    INFO(r.output);
    CHECK(r.exit_code == 130);
    const auto lines = read_jsonl(out / "results.jsonl");
    REQUIRE(lines.size() == 1);
    CHECK(lines[0]["stop_reason"] == "interrupted");
    CHECK(lines[0]["feasible"] == true);
    CHECK(lines[0]["total_time_s"].get<double>() < 30.0);
    check_trace(lines[0]);
    CHECK(verify(instance, lines[0]["solution_file"], lines[0]["objective"]) == 0);
}

TEST_CASE("SIGINT while the instance is still loading: the run ends at once with results") {
    const fs::path dir = temp_dir("apps-sigint-setup");
    const fs::path instance = write_tsplib(dir / "gen300.tsp", "gen300", 300, 5);
    const fs::path fifo = dir / "pipe.tsp";
    const fs::path config = dir / "job.yaml";
    write_file(config, kIlsJob);
    const fs::path out = dir / "out";
    // The launcher blocks reading the named pipe (an instance may come from a pipe) until the
    // instance is written into it, one second after the signal (the writer gives up after 60 s
    // if the launcher never opened the pipe, so that the case fails instead of hanging).
    const CommandResult r = run_command(
        "mkfifo " + quoted(fifo.string()) + " && { " +
        locus_command("run " + quoted(config.string()) + " -q --out " + quoted(out.string()) +
                      " --instance " + quoted(fifo.string()) +
                      " --time-limit 60 --set termination.iterations=0") +
        " & pid=$!; sleep 1; kill -INT $pid; timeout 60 dd status=none if=" +
        quoted(instance.string()) + " of=" + quoted(fifo.string()) + "; wait $pid; }");
    INFO(r.output);
    CHECK(r.exit_code == 130);
    const auto lines = read_jsonl(out / "results.jsonl");
    REQUIRE(lines.size() == 1);
    CHECK(lines[0]["stop_reason"] == "interrupted");
    CHECK(lines[0]["iterations"] == 0);
    CHECK(lines[0]["feasible"] == true);
    CHECK(verify(instance, lines[0]["solution_file"], lines[0]["objective"]) == 0);
}

TEST_CASE("the time limit holds on a 20,000-city TSP: resident ILS ends within the limit") {
    // Setup (candidate lists, 1024 nearest-neighbor tours) and the first descent of 20,000
    // cities used to take 23-43 s under a 5 s limit; the lists are now O(n k log n), the
    // construction stops at the limit and a watchdog ends the descent there.
    const auto line = run_time_limited("apps-time-limit-large", "tsp/resident-ils.yaml",
                                       "--backend cpu --instance random-uniform:n=20000,seed=1", 5);
    // Once set up, the chains' current, trial and best tours alone take 3 x 1024 x 20,000 words;
    // when the construction used the whole limit (a busy machine) they are not set up at all.
    // (engine memory is what the chains reserve: pages become resident as chains start, so the
    // process's peak may stay below it.)
    const double engine = line["engine_memory_bytes"].get<double>();
    CHECK((engine == 0 || engine >= 3.0 * 1024 * 20000 * 4));
    // How far the search got in 5 s depends on the machine: only that a tour was written.
    REQUIRE_FALSE(read_jsonl(line["trace_file"].get<std::string>()).empty());
}

TEST_CASE("a limit that ends the candidate lists before any tour: a clear error, no results") {
    // 300,000 cities: their candidate lists take seconds on two cores, the limit 0.2 s. The
    // lists read the stop flag per city and the run ends without a solution to write.
    const fs::path out = temp_dir("apps-limit-before-solution") / "out";
    const CommandResult r = run_locus(
        "run " + quoted((source_dir() / "configs/tsp/resident-ils.yaml").string()) +
        " -q --backend cpu --set batch=1 --time-limit 0.2 --instance "
        "random-uniform:n=300000,seed=1 --out " + quoted(out.string()));
    INFO(r.output);
    CHECK(r.exit_code == 1);
    CHECK(r.output == "locus: error: the time limit ended the run before its first solution was "
                      "built (the instance was still being read, or its candidate lists or "
                      "construction built); raise --time-limit or use a faster construction\n");
    CHECK_FALSE(fs::exists(out / "results.jsonl"));
}

TEST_CASE("batch: auto runs the chains that fill the CUDA device, 64 without one; stderr and the "
          "results line say how many") {
    const fs::path out = temp_dir("batch-auto") / "out";
    const std::string spec = "random-uniform:n=200,seed=5";
    const CommandResult r = run_locus_stderr(
        "run " + quoted((source_dir() / "configs/tsp/resident-ils.yaml").string()) + " --out " +
        quoted(out.string()) + " --backend cpu --instance " + spec +
        " --set batch=auto --set algorithm.epoch=2 --set termination.target_gap=null "
        "--set termination.time_limit=null --set termination.iterations=4");
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const auto at = r.output.find("locus: batch auto -> ");
    REQUIRE(at != std::string::npos);
    const std::size_t chains = std::stoul(r.output.substr(at + 21));
    if (r.output.find("(no CUDA device)", at) != std::string::npos) CHECK(chains == 64);
    else CHECK(r.output.find("(the multiprocessors of CUDA device 0)", at) != std::string::npos);
    const auto lines = read_jsonl(out / "results.jsonl");
    REQUIRE(lines.size() == 1);
    CHECK(lines[0]["batch"].get<std::size_t>() == chains);
    CHECK(verify_generated(spec, lines[0]["solution_file"].get<std::string>()) == 0);
    // A user's 0 is not auto: the key's range and its word are named.
    const CommandResult zero = run_locus_stderr(
        "run " + quoted((source_dir() / "configs/tsp/resident-ils.yaml").string()) +
        " --backend cpu --instance " + spec + " --set batch=0");
    CHECK(zero.exit_code == 2);
    CHECK(zero.output.find("batch: expected an integer in [1, 1048576] or auto, got '0'") !=
          std::string::npos);
}

TEST_CASE("resident ILS from a start algorithm: the chains improve on the parallel VND's optimum") {
    // configs/tsp/resident-ils-large.yaml: a parallel VND takes the best nearest-neighbor tour
    // to a local optimum, then the chains search from it within the same limit.
    const std::string instance = "--backend cpu --instance random-uniform:n=20000,seed=4";
    const auto lines =
        run_ok(source_dir() / "configs/tsp/resident-ils-large.yaml",
               temp_dir("apps-resident-start") / "out",
               instance + " --set batch=1 --set termination.target_gap=null" + iteration_budget(40));
    REQUIRE(lines.size() == 1);
    const nlohmann::json &line = lines[0];
    // Iterations are the chains' (epochs of 20), not the start's applied moves.
    CHECK(line["iterations"].get<std::uint64_t>() > 0);
    CHECK(line["iterations"].get<std::uint64_t>() % 20 == 0);
    // The same VND alone from the same start, converged: its optimum is in the resident run's
    // trace (the start's result) and the chains' final tour is shorter.
    const fs::path dir = temp_dir("apps-resident-start-vnd");
    const CommandResult vnd = run_locus(
        "run " + quoted((source_dir() / "configs" / "tsp" / "resident-ils-large.yaml").string()) +
        " -q " + instance + " --set batch=1 --set algorithm=" +
        quoted("{name: vnd, parallel: true, neighborhoods: [{name: two_opt, candidates: 10}, "
               "{name: or_opt, candidates: 10}]}") +
        " --time-limit 60 --out " + quoted((dir / "out").string()));
    INFO(vnd.output);
    REQUIRE(vnd.exit_code == 0);
    const auto alone = read_jsonl(dir / "out" / "results.jsonl");
    REQUIRE(alone.size() == 1);
    CHECK(alone[0]["stop_reason"] == "converged");
    const double optimum = alone[0]["objective"].get<double>();
    bool seen = false;
    for (const auto &point : read_jsonl(line["trace_file"].get<std::string>()))
        seen = seen || point["objective"].get<double>() == optimum;
    CHECK(seen);
    CHECK(line["objective"].get<double>() < optimum);
}

TEST_CASE("resident ILS with a population exchange on the TSP: a verified tour below the "
          "constructed one") {
    // Chains restart from Combine children of population parents ranked by cost and by the
    // share of edges they do not share (tour_distance).
    const auto line = run_budgeted("apps-resident-population", "tsp/resident-ils.yaml",
                                   "--instance random-uniform:n=1000,seed=3 --set batch=8 "
                                   "--set algorithm.exchange=population --set algorithm.population=6 "
                                   "--set algorithm.generation=8",
                                   200);
    const auto trace = read_jsonl(line["trace_file"].get<std::string>());
    REQUIRE_FALSE(trace.empty());
    CHECK(line["objective"].get<double>() < trace.front()["objective"].get<double>());
    const std::string tour = line["solution_file"].get<std::string>();
    CHECK(verify_generated("random-uniform:n=1000,seed=3", tour) == 0);
    // Without --problem a generator spec cannot be told from a missing file: the error says so.
    const CommandResult unnamed = run_locus("verify --instance random-uniform:n=1000,seed=3 "
                                            "--solution " +
                                            quoted(line["solution_file"].get<std::string>()));
    CHECK(unnamed.exit_code == 1);
    const std::string spec = "random-uniform:n=1000,seed=3";
    CHECK(unnamed.output.rfind("locus: error: instance file '" + spec + "' not found (looked in: " +
                                   spec + ", ",
                               0) == 0);
    const std::string tail =
        "); a generated instance (e.g. random-uniform:n=1000) needs --problem\n";
    CHECK(unnamed.output.size() > tail.size());
    CHECK(unnamed.output.compare(unnamed.output.size() - tail.size(), tail.size(), tail) == 0);
    CHECK(std::count(unnamed.output.begin(), unnamed.output.end(), '\n') == 1);
}

TEST_CASE("resident ILS with the merging exchange on two islands and the variable-depth move "
          "of 3-opt steps on the TSP: a verified tour below the constructed one") {
    // Before every epoch each island's chains fold into one by a binary tree of Combine
    // children (after the first epoch only the chains that improved); the chains' descents end
    // with Lin-Kernighan-style chains of up to 6 2-opt or 3-opt steps.
    const auto line = run_budgeted(
        "apps-resident-merge", "tsp/resident-ils.yaml",
        "--instance random-uniform:n=1000,seed=4 --set batch=8 "
        "--set algorithm.exchange=merge --set algorithm.islands=2 --set algorithm.epoch=4 "
        "--set algorithm.policy.depth=6 --set algorithm.policy.step=3",
        200);
    check_improved_and_verified(line, "random-uniform:n=1000,seed=4");
}

TEST_CASE("resident ILS restarts: the chains start again from the restart construction and "
          "the run keeps its best; a restart without a construction is refused") {
    // The same seed and iteration limit with and without restarts after every epoch that
    // brings no new chain best: each restart's descent from a random tour costs evaluations
    // the run without restarts does not spend.
    const auto run = [](const std::string& tag, const std::string& extra) {
        return resident_run(tag, "random-uniform:n=150,seed=3", 200,
                            "--set algorithm.policy.depth=0 " + extra);
    };
    const auto plain = run("apps-restart-off", "");
    const auto restarting =
        run("apps-restart-on", "--set algorithm.restart=1 "
                               "--set algorithm.restart_construction.name=random");
    CHECK(plain["iterations"] == restarting["iterations"]);
    CHECK(restarting["evaluations"].get<double>() > 2.0 * plain["evaluations"].get<double>());
    // The run's best survives the restarts: the result is the trace's last (best) point.
    const auto trace = read_jsonl(restarting["trace_file"].get<std::string>());
    REQUIRE_FALSE(trace.empty());
    CHECK(trace.back()["objective"] == restarting["objective"]);
    for (std::size_t k = 1; k < trace.size(); ++k)
        CHECK(trace[k]["objective"].get<double>() < trace[k - 1]["objective"].get<double>());

    const CommandResult refused = run_locus(
        "run " + quoted((source_dir() / "configs/tsp/resident-ils.yaml").string()) +
        " -q --backend cpu --instance random-uniform:n=50,seed=1 --set algorithm.restart=5");
    CHECK(refused.exit_code != 0);
    CHECK(refused.output.find("algorithm.restart: 5 epochs needs a restart_construction") !=
          std::string::npos);
}

TEST_CASE("resident ILS on islands from a mixed construction: reproducible, independent of the "
          "thread count, verified") {
    // Two islands of two chains, one from nearest-neighbor tours and one from random tours:
    // each island's best start descends (one descent per island, where one island descends
    // from the best start only), and the run is the same on one thread as on all.
    const std::string mixed =
        "--set construction.name=mixed --set construction.constructions=[nearest_neighbor,random] "
        "--set algorithm.policy.depth=0 ";
    const auto run = [&](const std::string& tag, const std::string& extra) {
        return resident_run(tag, "random-uniform:n=150,seed=3", 40, mixed + extra);
    };
    const auto islands = run("apps-islands-2", "--set algorithm.islands=2");
    const auto one_thread = run("apps-islands-2-t1", "--set algorithm.islands=2 --set threads=1");
    const auto single = run("apps-islands-1", "--set algorithm.islands=1");
    CHECK(islands["objective"] == one_thread["objective"]);
    CHECK(islands["evaluations"] == one_thread["evaluations"]);
    CHECK(islands["iterations"] == single["iterations"]);
    // The random island's leader descends from a random tour: far more evaluations than the
    // single line's one descent from the best (nearest-neighbor) start.
    CHECK(islands["evaluations"].get<double>() > single["evaluations"].get<double>());
}

TEST_CASE("resident ILS with cross_islands: the best island's leader takes in the other's "
          "parts; reproducible, independent of the thread count, verified") {
    // Two islands of two chains from nearest-neighbor tours; after every epoch the better
    // leader takes the other leader's shorter interchangeable sub-paths (Combine). On this
    // instance one of the hundred folds finds such a part (most find none: the islands' tours
    // differ in larger pieces), so the search departs from the islands alone while every run
    // stays deterministic.
    const std::string mixed =
        "--set construction.name=mixed "
        "--set construction.constructions=[nearest_neighbor,nearest_neighbor] "
        "--set algorithm.policy.depth=0 --set algorithm.islands=2 ";
    const auto run = [&](const std::string& tag, const std::string& extra) {
        return resident_run(tag, "random-uniform:n=300,seed=2", 200, mixed + extra);
    };
    const auto crossed = run("apps-cross-islands", "--set algorithm.cross_islands=true");
    const auto one_thread =
        run("apps-cross-islands-t1", "--set algorithm.cross_islands=true --set threads=1");
    const auto apart = run("apps-cross-islands-off", "");
    CHECK(crossed["objective"] == one_thread["objective"]);
    CHECK(crossed["evaluations"] == one_thread["evaluations"]);
    CHECK(crossed["iterations"] == apart["iterations"]);
    CHECK(crossed["evaluations"] != apart["evaluations"]);
    // The run's best only improves: the trace falls strictly and ends at the result.
    const auto trace = read_jsonl(crossed["trace_file"].get<std::string>());
    REQUIRE_FALSE(trace.empty());
    CHECK(trace.back()["objective"] == crossed["objective"]);
    for (std::size_t k = 1; k < trace.size(); ++k)
        CHECK(trace[k]["objective"].get<double>() < trace[k - 1]["objective"].get<double>());
}

TEST_CASE("resident ILS on alpha-nearness candidate lists: a verified tour, another search") {
    // The same seed and iteration limit on quadrant and on alpha lists of the same size: the
    // chains search other moves, so the runs end apart (both tours verified).
    const auto run = [](const std::string& tag, const std::string& extra) {
        return resident_run(tag, "random-uniform:n=400,seed=5", 40,
                            "--set algorithm.policy.candidates=6 " + extra);
    };
    const auto quadrant = run("apps-lists-quadrant", "");
    const auto alpha = run("apps-lists-alpha", "--set algorithm.policy.candidate_lists=alpha "
                                               "--set algorithm.policy.ascent=50");
    CHECK(quadrant["iterations"] == alpha["iterations"]);
    CHECK(quadrant["objective"] != alpha["objective"]);
}

TEST_CASE("configs/tsp/resident-ils-restarts.yaml: a verified tour below the greedy start") {
    const auto line = run_budgeted("apps-restarts-config", "tsp/resident-ils-restarts.yaml",
                                   "--instance random-uniform:n=300,seed=2 --set batch=16 "
                                   "--set algorithm.restart=2",
                                   200);
    check_improved_and_verified(line, "random-uniform:n=300,seed=2");
}

TEST_CASE("a long parallel descent offers its progress: trace points while it runs") {
    // One parallel VND of 100,000 cities, run to its local optimum, takes seconds; its
    // solutions are offered between explorations at most once a second, so the trace and the
    // solution file follow it. How many points that makes depends on the machine's speed: a
    // descent that ran for 3 s or more offered at least one between the construction's point
    // and the last.
    const auto lines = run_ok(
        source_dir() / "configs/tsp/resident-ils-large.yaml",
        temp_dir("apps-descent-progress") / "out",
        "--backend cpu --instance random-uniform:n=100000,seed=2 --set batch=1 "
        "--set termination.time_limit=null --set termination.target_gap=null --set algorithm=" +
            quoted("{name: vnd, parallel: true, neighborhoods: [{name: two_opt, candidates: 10}, "
                   "{name: or_opt, candidates: 10}]}"));
    REQUIRE(lines.size() == 1);
    const nlohmann::json &line = lines[0];
    CHECK(line["stop_reason"] == "converged");
    const auto trace = read_jsonl(line["trace_file"].get<std::string>());
    REQUIRE(trace.size() >= 2);
    for (std::size_t k = 1; k < trace.size(); ++k) {
        CHECK(trace[k]["objective"].get<double>() < trace[k - 1]["objective"].get<double>());
        CHECK(trace[k]["time_s"].get<double>() >= trace[k - 1]["time_s"].get<double>());
    }
    CHECK(trace.back()["objective"] == line["objective"]);
    const double descent_s =
        trace.back()["time_s"].get<double>() - trace.front()["time_s"].get<double>();
    MESSAGE("descent of 100,000 cities: " << descent_s << " s, " << trace.size()
                                          << " trace points");
    if (descent_s >= 3.0) CHECK(trace.size() >= 3);
}

TEST_CASE("the time limit holds inside one exploration of a full neighborhood of 10^5 cities") {
    // One exploration of the full 2-opt neighborhood (5 10^9 moves) takes many seconds on a
    // few cores; a watchdog thread cuts it short at the limit and the exploration is dropped.
    const auto line = run_time_limited(
        "apps-time-limit-exploration", "tsp/parallel-ils.yaml",
        "--backend cpu --instance random-uniform:n=100000,seed=3 --set construction=nearest_neighbor"
        " --set algorithm=" + quoted("{name: vnd, parallel: true, neighborhoods: [two_opt]}"),
        2);
    // Whether the first exploration finished within the limit depends on the machine: a cut
    // one is dropped (iterations 0, the constructed tour), a finished one applied its moves.
    const auto trace = read_jsonl(line["trace_file"].get<std::string>());
    REQUIRE_FALSE(trace.empty());
    if (line["iterations"] == 0) CHECK(line["objective"] == trace.front()["objective"]);
}

TEST_CASE("the time limit holds during a FANG construction of 1024 tours of 3,000 cities") {
    // All 1024 tours used to be built in one call (22.5 s under a 2 s limit); the batch is now
    // built in chunks between which the limit is polled.
    run_time_limited("apps-time-limit-fang", "tsp/resident-ils.yaml",
                     "--backend cpu --set construction=fang --instance random-uniform:n=3000,seed=2",
                     3);
}

TEST_CASE("the time limit holds inside long QAP searches: n = 1000, multi-start tabu search") {
    // One search (its n^3 delta table, then 1000 iterations of n^2 / 2 swaps) takes seconds;
    // the searches read a halt flag raised by a watchdog at the limit.
    run_time_limited("apps-time-limit-qap", "qap/multistart-ts.yaml",
                     "--backend cpu --set batch=8 --set construction=random"
                     " --instance random-qap:n=1000,seed=3",
                     3);
}

TEST_CASE("the time limit holds in a first QAP descent of n = 2000 (n^3 per exploration)") {
    // One exploration of the swap neighborhood is 2 10^6 swaps of 2000 steps each: the descent
    // used to run 148 s under a 5 s limit (its explorations were too few cells to be watched).
    const auto line = run_time_limited("apps-time-limit-qap-descent", "qap/ils.yaml",
                                       "--backend cpu --instance random-qap:n=2000,seed=1", 3);
    CHECK(line["iterations"] == 0); // no descent finished: the random start is the result
}

TEST_CASE("QAP chains of n = 2000 under a short limit: tables of chains that never start take "
          "no memory, their builds end at the limit") {
    // 256 delta tables of 2000 x 2000 words are 8 GB: they were written in full before the
    // search (8.1 GB, 36 s under a 5 s limit); now only the tables built are resident.
    const auto line = run_time_limited("apps-time-limit-qap-chains", "qap/resident-ils.yaml",
                                       "--backend cpu --instance random-qap:n=2000,seed=1", 3);
    // (The chains are reserved unless the construction used the whole limit.)
    const double engine = line["engine_memory_bytes"].get<double>();
    CHECK((engine == 0 || engine >= 256.0 * 2000 * 2000 * 8));
    CHECK(line["peak_host_memory_bytes"].get<double>() < 2.0e9);
    // Multi-start tabu search from the greedy construction (n^3 per solution): 16 s under 5 s.
    run_time_limited("apps-time-limit-qap-greedy", "qap/multistart-ts.yaml",
                     "--backend cpu --instance random-qap:n=2000,seed=1", 3);
}

TEST_CASE("the time limit holds in one large FANG expansion and a large FANG construction") {
    // 65,536 grid states x 8 successors in one expansion took 12.4 s under a 2 s limit; the
    // expansion now runs in parts between which the stop flag is read.
    run_time_limited("apps-time-limit-beam", "gridpath/beam.yaml",
                     "--backend cpu --set batch=65536 --set algorithm.width=65536", 2);
    // 8,192 FANG tours of 5,000 cities: 10.8 s under a 2 s limit.
    run_time_limited("apps-time-limit-fang-large", "tsp/resident-ils.yaml",
                     "--backend cpu --set construction=fang --set batch=8192"
                     " --instance random-uniform:n=5000,seed=1",
                     2);
}

TEST_CASE("the time limit holds while 1,024 chains of 50,000 cities are set up") {
    // The chains' storage (2.4 GB) was written in full before the search: 22.7 s under 10 s.
    const auto line = run_time_limited("apps-time-limit-storage", "tsp/resident-ils.yaml",
                                       "--backend cpu --instance random-uniform:n=50000,seed=1", 4);
    CHECK(line["peak_host_memory_bytes"].get<double>() < 2.0e9);
}

TEST_CASE("a config's relative instance path is found next to the config file") {
    const fs::path dir = temp_dir("apps-config-relative");
    write_tsplib(dir / "jobs" / "inst" / "gen80.tsp", "gen80", 80, 2);
    const fs::path config = dir / "jobs" / "job.yaml";
    write_file(config, "problem: {name: tsp, instance: inst/gen80.tsp}\n"
                       "algorithm: {name: descent, neighborhood: two_opt}\nbackend: cpu\n");
    const fs::path out = dir / "out";
    // The launcher runs from the build directory, where inst/gen80.tsp does not exist.
    const CommandResult r =
        run_locus("run " + quoted(config.string()) + " -q --out " + quoted(out.string()));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const auto lines = read_jsonl(out / "results.jsonl");
    REQUIRE(lines.size() == 1);
    CHECK(lines[0]["instance"] == "gen80");
}

TEST_CASE("check_moves re-evaluates every applied move of a run") {
    const fs::path dir = temp_dir("apps-check-moves");
    const fs::path config = dir / "job.yaml";
    write_file(config, "problem: {name: tsp, instance: \"random-uniform:n=60,seed=2\"}\n"
                       "algorithm:\n"
                       "  name: ils\n"
                       "  local_search:\n"
                       "    name: vnd\n"
                       "    neighborhoods: [{name: two_opt, candidates: 8}, or_opt, swap]\n"
                       "  perturbation: double_bridge\n"
                       "termination: {iterations: 10}\n"
                       "check_moves: true\n"
                       "backend: cpu\n");
    const auto lines = run_ok(config, dir / "out");
    REQUIRE(lines.size() == 1);
    CHECK(lines[0]["feasible"] == true);
    CHECK(lines[0]["stop_reason"] == "iterations");
    CHECK_FALSE(lines[0].contains("error"));
}

TEST_CASE("a results line holds the resolved configuration and the instance file: running that "
          "configuration repeats the run") {
    const fs::path dir = temp_dir("apps-reproduce");
    const fs::path instance = write_tsplib(dir / "gen90.tsp", "gen90", 90, 4);
    const fs::path config = dir / "job.yaml";
    write_file(config, kIlsJob);
    const auto first = run_ok(config, dir / "out",
                              "--instance " + quoted(instance.string()) +
                                  " --set termination.iterations=30 "
                                  "--set algorithm.local_search.neighborhood.candidates=6 --seed 11");
    REQUIRE(first.size() == 1);
    const nlohmann::json &line = first[0];
    CHECK(line["instance_file"] == fs::canonical(instance).string());
    // The ILS names no phases of its own.
    CHECK(line["phase_s"] == nlohmann::json::object());
    const nlohmann::json &resolved = line["config"];
    CHECK(resolved["seed"] == 11);
    CHECK(resolved["termination"]["iterations"] == 30);
    CHECK(resolved["algorithm"]["name"] == "ils");
    CHECK(resolved["algorithm"]["local_search"]["neighborhood"]["name"] == "two_opt");
    CHECK(resolved["algorithm"]["local_search"]["neighborhood"]["candidates"] == 6);
    CHECK(resolved["problem"]["instance"] == instance.string());
    // The configuration alone (YAML reads JSON), into another output directory: the same job.
    const fs::path again = dir / "again.json";
    nlohmann::json copy = resolved;
    copy["output"] = (dir / "out2").string();
    write_file(again, copy.dump(2));
    const CommandResult r = run_locus("run " + quoted(again.string()) + " -q");
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const auto second = read_jsonl(dir / "out2" / "results.jsonl");
    REQUIRE(second.size() == 1);
    CHECK(second[0]["objective"] == line["objective"]);
    CHECK(second[0]["iterations"] == line["iterations"]);
    CHECK(second[0]["evaluations"] == line["evaluations"]);
    // Only the output directory differs.
    nlohmann::json expected = resolved;
    expected["output"] = copy["output"];
    CHECK(second[0]["config"] == expected);
    // A generated instance has no file: its spec is in the configuration.
    const auto generated = run_ok(config, dir / "out3", "--set termination.iterations=2");
    REQUIRE(generated.size() == 1);
    CHECK(generated[0]["instance_file"].is_null());
    CHECK(generated[0]["config"]["problem"]["instance"] == "random-uniform:n=200,seed=3");
}

TEST_CASE("integers given as auto stay auto in the results' configuration, which repeats the "
          "job: batch and the chains' population") {
    const fs::path dir = temp_dir("apps-config-auto");
    const std::string args =
        "--backend cpu --instance random-uniform:n=300,seed=5 --set batch=auto "
        "--set algorithm.exchange=population --set algorithm.population=auto "
        "--set termination.target_gap=null" +
        iteration_budget(40);
    const CommandResult first =
        run_locus("run " + quoted((source_dir() / "configs/tsp/resident-ils.yaml").string()) +
                  " -q --out " + quoted((dir / "out").string()) + " " + args);
    INFO(first.output);
    REQUIRE(first.exit_code == 0);
    // The TSP has no population of its own: auto is the chains' default, and the run says so.
    CHECK(first.output.find("locus: note: algorithm.population: auto = 25, the default (problem "
                            "'tsp' has no choice of its own)") != std::string::npos);
    const auto lines = read_jsonl(dir / "out" / "results.jsonl");
    REQUIRE(lines.size() == 1);
    const nlohmann::json& resolved = lines[0]["config"];
    CHECK(resolved["batch"] == "auto");
    CHECK(resolved["algorithm"]["population"] == "auto");
    // What the run made of them: the chains it had, the population it kept.
    CHECK(lines[0]["batch"].get<int>() >= 1);
    CHECK(lines[0]["resolved"] == nlohmann::json{{"algorithm.population", 25}});
    CHECK(resolved["algorithm"]["generation"] == 64);
    // Where the chains' run went: their start, their epochs and the exchange between epochs,
    // within the run's time; and the parts of the exchange (the population's), within it.
    const nlohmann::json& phases = lines[0]["phase_s"];
    REQUIRE(phases.size() == 7);
    double within = 0.0;
    for (const char* phase : {"start", "epochs", "exchange"}) {
        REQUIRE(phases.contains(phase));
        CHECK(phases[phase].get<double>() >= 0.0);
        within += phases[phase].get<double>();
    }
    CHECK(phases["epochs"].get<double>() > 0.0);
    CHECK(within <= lines[0]["total_time_s"].get<double>());
    double parts = 0.0;
    for (const char* part :
         {"exchange:report", "exchange:download", "exchange:population", "exchange:restart"}) {
        REQUIRE(phases.contains(part));
        CHECK(phases[part].get<double>() >= 0.0);
        parts += phases[part].get<double>();
    }
    CHECK(phases["exchange:restart"].get<double>() > 0.0);
    CHECK(parts <= phases["exchange"].get<double>() + 1e-9);
    // Read back (auto as 0 would be out of both ranges): the same run.
    nlohmann::json copy = resolved;
    copy["output"] = (dir / "out2").string();
    write_file(dir / "again.json", copy.dump(2));
    const CommandResult again = run_locus("run " + quoted((dir / "again.json").string()) + " -q");
    INFO(again.output);
    REQUIRE(again.exit_code == 0);
    const auto second = read_jsonl(dir / "out2" / "results.jsonl");
    REQUIRE(second.size() == 1);
    CHECK(second[0]["batch"] == lines[0]["batch"]);
    CHECK(second[0]["objective"] == lines[0]["objective"]);
    CHECK(second[0]["evaluations"] == lines[0]["evaluations"]);
    CHECK(second[0]["config"]["algorithm"]["population"] == "auto");
}

namespace {

/// A job of the wrong_delta fixture plugin (tests/apps/fixtures): its swap neighborhood calls
/// every swap improving when `wrong`.
std::string wrong_delta_job(bool wrong, const std::string &algorithm, const std::string &extra) {
    return std::string("problem: {name: wrong_delta, instance: \"40\", wrong: ") +
           (wrong ? "true" : "false") + "}\nconstruction: shuffle\nalgorithm: " + algorithm +
           "\nbackend: cpu\nseed: 3\n" + extra;
}

/// Runs `job` with the fixture plugin; returns the exit status and the one results line.
std::pair<int, nlohmann::json> run_fixture_job(const std::string &tag, const std::string &job) {
    const fs::path dir = temp_dir(tag);
    write_file(dir / "job.yaml", job);
    const CommandResult r =
        run_locus("run " + quoted((dir / "job.yaml").string()) + " -q --plugin-path " +
                  quoted(LOCUS_TEST_APPS_FIXTURES_DIR) + " --out " + quoted((dir / "out").string()));
    INFO(r.output);
    const auto lines = read_jsonl(dir / "out" / "results.jsonl");
    REQUIRE(lines.size() == 1);
    // A failed run says on stderr what its results line says.
    if (lines[0].contains("error"))
        CHECK(r.output == "locus: error: " + lines[0]["error"].get<std::string>() + "\n");
    return {r.exit_code, lines[0]};
}

} // namespace

TEST_CASE("a descent whose moves do not improve ends the run with an error, not a cycle: "
          "stop_reason error, the message, the best solution kept, exit 1") {
    const std::string descent = "{name: descent, neighborhood: swap}";
    const std::string ils = "{name: ils, local_search: " + descent +
                            ", perturbation: random_swaps, acceptance: better}";
    // The fixture's correct deltas: a descent to the local optimum, an ILS to its limit.
    const auto [ok_status, ok] =
        run_fixture_job("apps-delta-right", wrong_delta_job(false, descent, ""));
    CHECK(ok_status == 0);
    CHECK(ok["stop_reason"] == "converged");
    CHECK_FALSE(ok.contains("error"));
    // Wrong deltas: swap (0, 1) back and forth for ever, inside a bare descent or inside an ILS
    // whose only limit (iterations) a nested descent never reaches. The time limit is a safety
    // net far beyond the check's 192 explorations.
    // (A bare descent books its moves as iterations: it has only the safety net.)
    for (const auto &[algorithm, limits] :
         {std::pair{descent, std::string("{time_limit: 600}")},
          std::pair{ils, std::string("{iterations: 5, time_limit: 600}")}}) {
        CAPTURE(algorithm);
        const auto [status, line] = run_fixture_job(
            "apps-delta-wrong", wrong_delta_job(true, algorithm, "termination: " + limits + "\n"));
        CHECK(status == 1);
        CHECK(line["stop_reason"] == "error");
        // Tracked: 484 - 64 after the first round of 64 swaps, - 128 after the second.
        CHECK(line["error"] ==
              "descent of neighborhood 'swap': the moves applied to solution 0 improve it by their "
              "deltas (objective 420 -> 292) but not by full evaluation (484 -> 484); the "
              "neighborhood's delta evaluation is wrong (check_moves: true names the first wrong "
              "move)");
        // The best solution found before the failure is written and verified.
        CHECK(line["feasible"] == true);
        CHECK(fs::is_regular_file(line["solution_file"].get<std::string>()));
    }
}

TEST_CASE("a run that fails check_moves writes stop_reason error with the message and exits 1") {
    const auto [status, line] =
        run_fixture_job("apps-check-moves-fails",
                        wrong_delta_job(true, "{name: descent, neighborhood: swap}",
                                        "check_moves: true\ntermination: {time_limit: 600}\n"));
    CHECK(status == 1);
    CHECK(line["stop_reason"] == "error");
    CHECK(line["error"] == "check_moves: solution 0 after move 1 has objective 483 by delta but 484 "
                           "by full evaluation");
    CHECK(line["feasible"] == true);
}

TEST_CASE("a run stops at a proven optimum of the best-known table unless told not to") {
    // burma14: its best-known value (3323) is marked optimal in data/best-known.csv, which the
    // launcher finds in the data that ships with locus, from any working directory.
    const fs::path dir = temp_dir("apps-optimum");
    const fs::path config = dir / "job.yaml";
    write_file(config, kIlsJob);
    const std::string instance = " --instance " + quoted(data_file("tsplib/burma14.tsp").string());
    const auto stopped = run_ok(config, dir / "out", instance);
    REQUIRE(stopped.size() == 1);
    CHECK(stopped[0]["best_known"] == 3323);
    CHECK(stopped[0]["objective"] == 3323);
    CHECK(stopped[0]["stop_reason"] == "target");
    CHECK(stopped[0]["iterations"].get<long long>() < 200);
    const auto going_on =
        run_ok(config, dir / "out2", instance + " --set termination.stop_at_optimum=false");
    REQUIRE(going_on.size() == 1);
    CHECK(going_on[0]["objective"] == 3323);
    CHECK(going_on[0]["stop_reason"] == "iterations");
    CHECK(going_on[0]["iterations"] == 200);
}

TEST_CASE("an instance with a 250-character NAME runs: its run directory name is bounded") {
    const fs::path dir = temp_dir("apps-long-name");
    const std::string name(250, 'n');
    const fs::path instance = write_tsplib(dir / "long.tsp", name, 30, 2);
    const fs::path config = dir / "job.yaml";
    write_file(config, kIlsJob);
    const auto lines = run_ok(config, dir / "out",
                              "--instance " + quoted(instance.string()) +
                                  " --set termination.iterations=5");
    REQUIRE(lines.size() == 1);
    CHECK(lines[0]["instance"] == name);
    const fs::path run = fs::path(lines[0]["solution_file"].get<std::string>()).parent_path();
    CHECK(run.filename().string().size() < 120);
    CHECK(run.filename().string().find(std::string(47, 'n') + "-") != std::string::npos);
    CHECK(verify(instance, lines[0]["solution_file"], lines[0]["objective"]) == 0);
}

TEST_CASE("a second signal while the search does not stop still writes the results line: the "
          "best so far, stop_reason interrupted, forced, exit 130") {
    const fs::path dir = temp_dir("apps-second-signal");
    write_file(dir / "job.yaml", wrong_delta_job(false, "{name: deaf, seconds: 60}", ""));
    const fs::path out = dir / "out";
    // The fixture's algorithm never reads the stop test: the first signal cannot end it, the
    // second (more than a second later) ends the process.
    const CommandResult r = run_command(
        locus_command("run " + quoted((dir / "job.yaml").string()) + " -q --plugin-path " +
                      quoted(LOCUS_TEST_APPS_FIXTURES_DIR) + " --out " + quoted(out.string())) +
        " 2>&1 & pid=$!; sleep 1; kill -TERM $pid; sleep 1.5; kill -TERM $pid; wait $pid");
    INFO(r.output);
    CHECK(r.exit_code == 130);
    CHECK(r.output.find("stopped by a second signal") != std::string::npos);
    const auto lines = read_jsonl(out / "results.jsonl");
    REQUIRE(lines.size() == 1);
    const nlohmann::json &line = lines[0];
    CHECK(line["stop_reason"] == "interrupted");
    CHECK(line["forced"] == true);
    CHECK(line["feasible"] == true);
    // The line's solution is the latest improvement: the trace's last objective, written.
    const auto trace = read_jsonl(line["trace_file"].get<std::string>());
    REQUIRE(trace.size() >= 2);
    CHECK(line["objective"] == trace.back()["objective"]);
    CHECK(line["iterations"] == trace.back()["iteration"]);
    CHECK(line["total_time_s"].get<double>() >= 2.0);
    CHECK(line["total_time_s"].get<double>() < 30.0);
    REQUIRE(fs::exists(line["solution_file"].get<std::string>()));
    CHECK(read_lines(line["solution_file"].get<std::string>()).size() == 40);
}

TEST_CASE("threads: 0 reports the threads the engines use (OpenMP's count, set by "
          "OMP_NUM_THREADS)") {
    const fs::path dir = temp_dir("apps-threads");
    write_file(dir / "job.yaml", "problem: {name: tsp, instance: \"random-uniform:n=60,seed=1\"}\n"
                                 "algorithm: {name: descent, neighborhood: two_opt}\n"
                                 "backend: cpu\n");
    for (const int threads : {1, 3}) {
        const fs::path out = dir / ("out" + std::to_string(threads));
        const CommandResult r =
            run_locus("run " + quoted((dir / "job.yaml").string()) + " -q --out " +
                          quoted(out.string()),
                      "OMP_NUM_THREADS=" + std::to_string(threads));
        INFO(r.output);
        REQUIRE(r.exit_code == 0);
        const auto lines = read_jsonl(out / "results.jsonl");
        REQUIRE(lines.size() == 1);
        CHECK(lines[0]["threads"] == threads);
        CHECK(lines[0]["device"].get<std::string>().ends_with(
            "(" + std::to_string(threads) + " threads)"));
    }
}
