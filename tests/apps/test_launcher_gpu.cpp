// `locus run` on the CUDA backend: the same seeded job gives the same tour as on the CPU.

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "launcher_helpers.hpp"

namespace fs = std::filesystem;
using namespace locus::test;

TEST_CASE("CPU and CUDA backends give the same seeded result") {
    const fs::path dir = temp_dir("apps-gpu");
    const fs::path config = dir / "job.yaml";
    write_file(config, "problem: {name: tsp, instance: \"random-uniform:n=300,seed=3\"}\n"
                       "construction: random\n"
                       "algorithm:\n"
                       "  name: ils\n"
                       "  local_search:\n"
                       "    name: vnd\n"
                       "    neighborhoods: [{name: two_opt, candidates: 8}, {name: or_opt, "
                       "candidates: 8}]\n"
                       "  perturbation: {name: double_bridge, window: 30}\n"
                       "termination: {iterations: 100}\n"
                       "seed: 3\n");
    nlohmann::json results[2];
    const char *backends[2] = {"cpu", "cuda"};
    for (int i = 0; i < 2; ++i) {
        const fs::path out = dir / backends[i];
        const CommandResult r = run_locus("run " + quoted(config.string()) + " -q --backend " +
                                          backends[i] + " --out " + quoted(out.string()));
        INFO(r.output);
        REQUIRE(r.exit_code == 0);
        const auto lines = read_jsonl(out / "results.jsonl");
        REQUIRE(lines.size() == 1);
        results[i] = lines[0];
        CHECK(results[i]["backend"] == backends[i]);
        CHECK(results[i]["feasible"] == true);
    }
    CHECK(results[0]["objective"] == results[1]["objective"]);
    CHECK(results[0]["iterations"] == results[1]["iterations"]);
    CHECK(read_text(results[0]["solution_file"].get<std::string>()) ==
          read_text(results[1]["solution_file"].get<std::string>()));
}

TEST_CASE("backend auto picks the CUDA device and says so") {
    const fs::path dir = temp_dir("apps-gpu-auto");
    const fs::path out = dir / "out";
    const CommandResult r =
        run_locus_stderr("run --instance random-uniform:n=100,seed=1 --time-limit 0.5 --out " +
                         quoted(out.string()));
    CHECK(r.exit_code == 0);
    CHECK(r.output.rfind("locus: backend auto -> cuda\n", 0) == 0);
    const auto lines = read_jsonl(out / "results.jsonl");
    REQUIRE(lines.size() == 1);
    CHECK(lines[0]["backend"] == "cuda");
}
