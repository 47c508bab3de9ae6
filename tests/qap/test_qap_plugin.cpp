// The QAP problem and its swap neighborhood on the CPU backend, and a launcher run.

#include <doctest/doctest.h>

#include <fstream>
#include <limits>

#include "locus/qap/generator.hpp"
#include "locus/qap/qap_problem.hpp"
#include "locus/qap/swap.hpp"
#include "locus/qap/swap_neighborhood.hpp"
#include "locus/rng.hpp"
#include "test_support.hpp"

using namespace locus;
using namespace locus::qap;

namespace {
SolutionBatch random_batch(const QapProblem& problem, std::size_t count, std::uint64_t seed) {
    SolutionBatch batch(count, problem.size());
    for (std::size_t i = 0; i < count; ++i) {
        auto p = batch[i];
        for (std::size_t k = 0; k < p.size(); ++k)
            p[k] = static_cast<std::int32_t>(k);
        Rng rng(seed, i);
        for (std::size_t k = p.size() - 1; k > 0; --k)
            std::swap(p[k], p[rng.below(static_cast<std::uint32_t>(k + 1))]);
        batch.objective(i) = problem.evaluate(p);
    }
    return batch;
}
} // namespace

TEST_CASE("swap exploration picks the best pair (lowest index on ties) and applies it exactly") {
    for (bool asymmetric : {false, true}) {
        const QapProblem problem(generate_random(17, 3, 50, asymmetric));
        auto swap = make_cpu_swap(problem, {});
        SolutionBatch batch = random_batch(problem, 4, 9);
        std::vector<MoveChoice> choice(4);
        swap->explore(batch, Pivot::best, choice);
        for (std::size_t s = 0; s < 4; ++s) {
            std::int64_t best = std::numeric_limits<std::int64_t>::max();
            std::uint64_t index = 0;
            for (std::int32_t r = 0; r < 17; ++r)
                for (std::int32_t t = r + 1; t < 17; ++t) {
                    const std::int64_t d = swap_delta(problem.instance(), batch[s], r, t);
                    if (d < best) {
                        best = d;
                        index = static_cast<std::uint64_t>(r) * 17 + static_cast<std::uint64_t>(t);
                    }
                }
            CHECK(choice[s].index == index);
            CHECK(choice[s].delta == static_cast<double>(best));
        }
        SolutionBatch before = batch;
        swap->apply(batch, choice);
        for (std::size_t s = 0; s < 4; ++s) {
            CHECK(batch.objective(s) == problem.evaluate(batch[s]));
            CHECK(batch.objective(s) == before.objective(s) + choice[s].delta);
        }
    }
}

TEST_CASE("swap descents end in local optima, checked move by move") {
    const QapProblem problem(generate_random(25, 5, 100, true));
    gpu::EngineSettings options;
    options.check_moves = true;
    auto swap = make_cpu_swap(problem, options);
    for (Pivot pivot : {Pivot::best, Pivot::first}) {
        SolutionBatch batch = random_batch(problem, 3, 2);
        const Objective start = batch.objective(0);
        const DescentStats stats = swap->descend(batch, pivot, 0, {});
        CHECK(stats.steps > 0);
        CHECK(batch.objective(0) < start);
        std::vector<MoveChoice> choice(3);
        swap->explore(batch, Pivot::best, choice);
        for (const auto& c : choice)
            CHECK(c.delta >= 0);
    }
}

namespace {
/// Runs `locus run configs/qap/<config> -q --backend cpu <options> --out <dir>/out` and returns
/// the first results line (REQUIREs a zero exit status).
std::string run_qap(const std::string& config, const std::string& options, const std::string& tag) {
    const auto dir = locus::test::temp_dir(tag);
    const auto bin = (locus::test::bin_dir() / "locus").string();
    const auto run = locus::test::run_command(
        bin + " run " + (locus::test::source_dir() / "configs/qap" / config).string() +
        " -q --backend cpu " + options + " --out " + (dir / "out").string());
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    std::ifstream in(dir / "out" / "results.jsonl");
    std::string line;
    REQUIRE(std::getline(in, line));
    return line;
}
} // namespace

TEST_CASE("locus runs ILS on a QAP instance and its .sln verifies") {
    const std::string line =
        run_qap("ils.yaml",
                "--instance random-qap:n=20,seed=4 --set termination.iterations=200 "
                "termination.time_limit=0",
                "qap-run");
    CHECK(line.find("\"feasible\":true") != std::string::npos);
    CHECK(line.find("\"iterations\":200") != std::string::npos);
}

TEST_CASE("locus runs the multi-start tabu search config with elite restarts; its .sln verifies") {
    const std::string line =
        run_qap("multistart-ts.yaml",
                "--instance random-qap:n=25,seed=6 --set batch=16 algorithm.rounds=3 "
                "algorithm.iterations=150 termination.time_limit=0",
                "qap-multistart");
    CHECK(line.find("\"feasible\":true") != std::string::npos);
    CHECK(line.find("\"iterations\":450") != std::string::npos);
    CHECK(line.find("\"algorithm\":\"multistart\"") != std::string::npos);

    const auto dir = locus::test::temp_dir("qap-multistart-bad");
    const auto bad = locus::test::run_command(
        (locus::test::bin_dir() / "locus").string() + " run " +
        (locus::test::source_dir() / "configs/qap/multistart-ts.yaml").string() +
        " -q --backend cpu --instance random-qap:n=25,seed=6 --set algorithm.strategy=tabu --out " +
        (dir / "bad").string());
    CHECK(bad.exit_code != 0);
    CHECK(bad.output.find("algorithm.strategy") != std::string::npos);
    CHECK(bad.output.find("hc_best, hc_first, sa, ts") != std::string::npos);
}

TEST_CASE("multistart (plugins/multistart) runs the problem's multistart_policy; a problem "
          "without one is refused by name") {
    // The policy given explicitly is the default one: the same run, the same result.
    const std::string options = "--instance random-qap:n=25,seed=6 --set batch=16 "
                                "algorithm.rounds=2 algorithm.iterations=100 "
                                "termination.time_limit=0";
    const std::string implicit = run_qap("multistart-ts.yaml", options, "qap-ms-implicit");
    const std::string explicit_policy =
        run_qap("multistart-ts.yaml", options + " algorithm.policy=swap", "qap-ms-explicit");
    const auto objective = [](const std::string& line) {
        const auto at = line.find("\"objective\":");
        REQUIRE(at != std::string::npos);
        return std::stoll(line.substr(at + 12));
    };
    CHECK(objective(implicit) == objective(explicit_policy));
    // Hill climbing and tabu search count n (n - 1) / 2 = 300 evaluations per move.
    const auto evaluations = std::stoull(implicit.substr(implicit.rfind("\"evaluations\":") + 14));
    CHECK(evaluations % 300 == 0);
    CHECK(evaluations > 0);

    const auto dir = locus::test::temp_dir("qap-ms-tsp");
    const auto config = dir / "tsp.yaml";
    std::ofstream(config) << "problem: {name: tsp, instance: 'random-uniform:n=20,seed=1'}\n"
                             "algorithm: {name: multistart, strategy: sa}\n";
    const auto run = locus::test::run_command((locus::test::bin_dir() / "locus").string() +
                                              " run " + config.string() + " -q --out " +
                                              (dir / "out").string());
    CHECK(run.exit_code == 2);
    CHECK(run.output.find("algorithm.policy: unknown multistart_policy 'swap' for problem "
                          "'tsp'") != std::string::npos);
}

TEST_CASE("a time limit interrupts a long CPU multi-start round; the best so far is kept") {
    // The GPU config on the CPU: one round of 4096 searches x 1000 moves would take minutes here.
    const std::string line =
        run_qap("multistart-ts-gpu.yaml", "--instance random-qap:n=40,seed=2 --time-limit 1",
                "qap-multistart-stop");
    CHECK(line.find("\"feasible\":true") != std::string::npos);
    CHECK(line.find("\"stop_reason\":\"time_limit\"") != std::string::npos);
    const auto at = line.find("\"total_time_s\":") + 15;
    CHECK(std::stod(line.substr(at)) < 10.0);
}

TEST_CASE("QAP parallel descent: exact objectives, a swap local optimum, more moves than "
          "explorations on a sparse instance") {
    Instance instance = generate_random(40, 6, 50, false);
    for (std::size_t k = 0; k < instance.a.size(); ++k) // sparse flows, kept symmetric
        if ((k / 40 + k % 40) % 4 != 0) instance.a[k] = 0;
    const QapProblem problem(instance);
    gpu::EngineSettings checked;
    checked.check_moves = true;
    auto swap = make_cpu_swap(problem, checked);
    CHECK(swap->has_independence_rule());
    SolutionBatch batch = random_batch(problem, 3, 4);
    const SolutionBatch start = batch;
    const DescentStats stats = swap->descend_independent(batch, {}, {});
    CHECK(stats.steps > stats.explorations);
    std::vector<MoveChoice> best(3);
    swap->explore(batch, Pivot::best, best);
    for (std::size_t s = 0; s < 3; ++s) {
        CHECK(batch.objective(s) == problem.evaluate(batch[s]));
        CHECK(batch.objective(s) < start.objective(s));
        CHECK(best[s].delta >= 0);
    }
}
