// `locus run` on the CUDA backend: the same seeded job gives the same tour as on the CPU; an
// experiment's CUDA runs go one per device at a time, over every device.

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "launcher_helpers.hpp"
#include "locus/gpu/device.hpp"

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

TEST_CASE("an experiment runs its CUDA runs one per device at a time, on every device") {
    const int devices = locus::gpu::device_count();
    REQUIRE(devices > 0);
    const fs::path dir = temp_dir("apps-gpu-experiment");
    const std::string config = (source_dir() / "configs" / "tsp" / "ils.yaml").string();
    const int runs = 2 * devices + 1;
    write_file(dir / "spec.yaml", "name: gpus\nconfigs: [" + config +
                                      "]\ninstances: ['random-uniform:n=400,seed=2']\n"
                                      "seeds: " + std::to_string(runs) +
                                      "\nbackends: [cuda]\ntime_limit: 1\n");
    const fs::path out = dir / "out";
    const CommandResult r = run_locus("experiment " + quoted((dir / "spec.yaml").string()) +
                                      " --out " + quoted(out.string()));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const auto lines = read_jsonl(out / "results.jsonl");
    REQUIRE(lines.size() == static_cast<std::size_t>(runs));
    std::map<std::string, std::vector<std::pair<double, double>>> spans; // per PCI bus id
    std::set<int> ordinals;
    for (const auto& line : lines) {
        CHECK(line["backend"] == "cuda");
        CHECK(line["feasible"] == true);
        const int ordinal = line["device_ordinal"].get<int>();
        CHECK(ordinal >= 0);
        CHECK(ordinal < devices);
        ordinals.insert(ordinal);
        CHECK(line["device_pci_bus_id"] == locus::gpu::device_pci_bus_id(ordinal));
        spans[line["device_pci_bus_id"].get<std::string>()].emplace_back(
            line["started_unix_s"].get<double>(), line["ended_unix_s"].get<double>());
    }
    CHECK(ordinals.size() == static_cast<std::size_t>(devices));
    CHECK(spans.size() == static_cast<std::size_t>(devices));
    // At most one run per device at any time: a device's runs follow one another.
    for (auto& [bus, list] : spans) {
        std::sort(list.begin(), list.end());
        for (std::size_t k = 1; k < list.size(); ++k) {
            INFO(bus);
            CHECK(list[k].first >= list[k - 1].second);
        }
    }
}

TEST_CASE("the time limit holds on the device: resident ILS on 200,000 cities ends within 0.5 s") {
    // The first descent of 200,000 cities on one block takes minutes; the launching thread
    // raises the kernel's halt flag (mapped host memory) at the limit.
    const auto line = run_time_limited(
        "apps-gpu-time-limit", "tsp/resident-ils.yaml",
        "--backend cuda --set batch=128 --instance random-uniform:n=200000,seed=1", 5);
    CHECK(line["engine_memory_bytes"].get<std::uint64_t>() > 128u * 200000u * 4u);
    const auto trace = read_jsonl(line["trace_file"].get<std::string>());
    REQUIRE_FALSE(trace.empty());
    CHECK(line["objective"].get<double>() < trace.front()["objective"].get<double>());
}

TEST_CASE("batch auto on a device: the DCVRP chains choose four per multiprocessor from 450 "
          "customers, 64 below, one per multiprocessor with time windows") {
    const fs::path dir = temp_dir("apps-gpu-batch");
    const std::size_t mp = static_cast<std::size_t>(locus::gpu::multiprocessor_count(0));
    struct Case {
        const char* config;
        const char* instance;
        std::size_t chains;
        bool chosen; // said as chosen by the problem
    };
    const Case cases[] = {
        {"configs/dcvrp/best.yaml", "cvrplib/X-n502-k39.vrp", 4 * mp, true},
        {"configs/dcvrp/best.yaml", "cvrplib/X-n101-k25.vrp", 64, true},
        {"configs/vrptw/best.yaml", "vrptw/C1_10_1.vrp", mp, false},
    };
    for (const Case& c : cases) {
        const fs::path out = dir / fs::path(c.instance).stem();
        const CommandResult r = run_locus_stderr(
            "run " + quoted((source_dir() / c.config).string()) + " --instance " + c.instance +
            " --backend cuda --set batch=auto --set termination.time_limit=null "
            "--set termination.iterations=1 --out " + quoted(out.string()));
        INFO(c.instance << "\n" << r.output);
        REQUIRE(r.exit_code == 0);
        const std::string said =
            "locus: batch auto -> " + std::to_string(c.chains) + " (" +
            (c.chosen ? "chosen for the instance by problem 'dcvrp' on the " +
                            std::to_string(mp) + " multiprocessors of CUDA device 0)"
                      : std::string("the multiprocessors of CUDA device 0)"));
        CHECK(r.output.find(said) != std::string::npos);
        const auto lines = read_jsonl(out / "results.jsonl");
        REQUIRE(lines.size() == 1);
        CHECK(lines[0]["batch"].get<std::size_t>() == c.chains);
        CHECK(lines[0]["feasible"] == true);
    }
}
