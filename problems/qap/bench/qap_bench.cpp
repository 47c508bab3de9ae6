// Benchmark of the multi-start engine on QAPLIB instances (Luong et al., Table 1): for every
// instance and strategy, `searches` searches from the same random starts on the CPU twin (one
// core: a subset of the searches, scaled; all cores: every search) and on CUDA with each
// mapping; times, speed-ups, best and mean gap to the best-known value, and whether every
// backend found the same best objectives. Then the algorithmic level against the iteration
// level (one solution, all swaps evaluated in parallel by the neighborhood engine) for a range
// of search counts (the paper's Fig. 2). One JSON object per line on stdout.
//
//   locus-qap-bench [--instances tai30a,tai50a] [--searches 4096] [--strategies hc,sa,ts]
//                   [--hc-iterations N] [--sa-iterations N] [--ts-iterations N]
//                   [--single-core-searches 64] [--fig2 tai50a]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "locus/data_path.hpp"
#include "locus/gpu/device.hpp"
#include "locus/qap/generator.hpp"
#include "locus/qap/multistart.hpp"
#include "locus/qap/qap_problem.hpp"
#include "locus/qap/swap_neighborhood.hpp"
#include "locus/rng.hpp"
#include "locus/text.hpp"

using namespace locus;
using namespace locus::qap;
using Clock = std::chrono::steady_clock;

namespace {

struct PaperRow {
    const char* name;
    double hc_cpu, hc_gpu, sa_cpu, sa_gpu, ts_cpu,
        ts_gpu; // Xeon 3 GHz one core, GTX 280 GPUTex (s)
};

// Luong, Melab, Talbi, Table 1 (4096 searches, average of 30 executions, seconds).
const PaperRow kPaper[] = {
    {"tai30a", 5.48, 0.75, 412.64, 34.52, 335.57, 31.14},
    {"tai35a", 10.71, 1.38, 636.13, 57.05, 531.35, 51.06},
    {"tai40a", 17.18, 2.43, 874.44, 90.35, 725.39, 77.71},
    {"tai50a", 44.56, 6.69, 1672.63, 205.74, 1539.60, 176.29},
    {"tai60a", 88.32, 15.34, 2699.89, 412.91, 2439.86, 355.59},
    {"tai80a", 302.43, 56.28, 6807.88, 1186.13, 6097.61, 993.25},
    {"tai100a", 810.39, 143.78, 13960.69, 2426.11, 13004.76, 2083.35},
};


std::vector<std::int32_t> random_starts(std::int32_t n, std::uint32_t searches,
                                        std::uint64_t seed) {
    return random_permutations(n, searches, seed);
}

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Run {
    double seconds;
    std::vector<gpu::SearchResult> results;
};

Run timed(MultiStartRunner& runner, const gpu::MultiStartConfig& config, std::uint32_t searches,
          const std::vector<std::int32_t>& starts) {
    std::vector<std::int32_t> best(starts.size());
    Run r{0.0, std::vector<gpu::SearchResult>(searches)};
    const auto t0 = Clock::now();
    runner.run(config, searches, starts.data(), best.data(), r.results.data());
    r.seconds = seconds_since(t0);
    return r;
}

std::vector<std::int64_t> bests(const std::vector<gpu::SearchResult>& results) {
    std::vector<std::int64_t> out;
    for (const auto& r : results)
        out.push_back(r.best);
    return out;
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> instances = {"tai30a", "tai35a", "tai40a", "tai50a",
                                          "tai60a", "tai80a", "tai100a"};
    std::vector<std::string> strategies = {"hc", "sa", "ts"};
    std::uint32_t searches = 4096;
    std::uint32_t single = 64;
    std::uint64_t hc_iterations = 1000000, sa_iterations = 20000, ts_iterations = 1000;
    std::string fig2 = "tai50a";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i];
        const std::string value = argv[i + 1];
        if (key == "--instances")
            instances = split_commas(value);
        else if (key == "--strategies")
            strategies = split_commas(value);
        else if (key == "--searches")
            searches = static_cast<std::uint32_t>(std::stoul(value));
        else if (key == "--single-core-searches")
            single = static_cast<std::uint32_t>(std::stoul(value));
        else if (key == "--hc-iterations")
            hc_iterations = std::stoull(value);
        else if (key == "--sa-iterations")
            sa_iterations = std::stoull(value);
        else if (key == "--ts-iterations")
            ts_iterations = std::stoull(value);
        else if (key == "--fig2")
            fig2 = value == "none" ? "" : value;
        else {
            std::fprintf(stderr, "locus-qap-bench: unknown option %s\n", key.c_str());
            return 2;
        }
    }
    try {
        gpu::require_device(0);
        const std::string device = gpu::device_description(0);
        const BestKnownTable known = BestKnownTable::find("");
        for (const std::string& name : instances) {
            const auto problem = QapProblem::load("qaplib/" + name + ".dat");
            const Instance& inst = problem->instance();
            const auto bk = known.lookup(name);
            const auto starts = random_starts(inst.n, searches, 2024);
            const PaperRow* paper = nullptr;
            for (const PaperRow& row : kPaper)
                if (name == row.name) paper = &row;
            auto cpu_all = make_cpu_multistart(inst, 0);
            auto cpu_one = make_cpu_multistart(inst, 1);
            for (const std::string& strategy : strategies) {
                gpu::MultiStartConfig config;
                config.strategy = strategy == "hc"   ? gpu::Strategy::hc_best
                                  : strategy == "sa" ? gpu::Strategy::sa
                                                     : gpu::Strategy::ts;
                config.iterations = strategy == "hc"   ? hc_iterations
                                    : strategy == "sa" ? sa_iterations
                                                       : ts_iterations;
                config.seed = 7;
                const Run all = timed(*cpu_all, config, searches, starts);
                const std::uint32_t subset = std::min(single, searches);
                const std::vector<std::int32_t> first(
                    starts.begin(), starts.begin() + static_cast<std::ptrdiff_t>(subset) * inst.n);
                const Run one = timed(*cpu_one, config, subset, first);
                const double one_scaled = one.seconds * searches / subset;
                nlohmann::json row{{"benchmark", "qap_multistart"},
                                   {"instance", name},
                                   {"n", inst.n},
                                   {"strategy", strategy},
                                   {"searches", searches},
                                   {"iterations", config.iterations},
                                   {"cpu_all_s", all.seconds},
                                   {"cpu_one_core_s", one_scaled},
                                   {"cpu_one_core_measured_searches", subset},
                                   {"device", device}};
                const auto reference = bests(all.results);
                bool identical = true;
                for (const auto& [label, mapping] : {std::pair{"thread", gpu::Mapping::thread},
                                                     std::pair{"warp", gpu::Mapping::warp},
                                                     std::pair{"block", gpu::Mapping::block}}) {
                    auto cuda = make_cuda_multistart(inst, searches, mapping, config.strategy, 0);
                    (void)timed(*cuda, config, std::min<std::uint32_t>(searches, 32),
                                starts); // warm-up
                    const Run g = timed(*cuda, config, searches, starts);
                    row[std::string("cuda_") + label + "_s"] = g.seconds;
                    row[std::string("speedup_") + label + "_vs_all_cores"] =
                        all.seconds / g.seconds;
                    identical = identical && bests(g.results) == reference;
                }
                const auto best = *std::min_element(reference.begin(), reference.end());
                const double mean = std::accumulate(reference.begin(), reference.end(), 0.0) /
                                    static_cast<double>(reference.size());
                std::uint64_t moves = 0;
                for (const auto& r : all.results)
                    moves += r.moves;
                row["mean_moves"] = static_cast<double>(moves) / searches;
                row["best"] = best;
                if (bk) {
                    row["best_known"] = *bk;
                    row["best_gap_pct"] = 100.0 * (static_cast<double>(best) - *bk) / *bk;
                    row["mean_gap_pct"] = 100.0 * (mean - *bk) / *bk;
                }
                row["identical_best_objectives"] = identical;
                if (paper) {
                    row["paper_cpu_s"] = strategy == "hc"   ? paper->hc_cpu
                                         : strategy == "sa" ? paper->sa_cpu
                                                            : paper->ts_cpu;
                    row["paper_gtx280_tex_s"] = strategy == "hc"   ? paper->hc_gpu
                                                : strategy == "sa" ? paper->sa_gpu
                                                                   : paper->ts_gpu;
                }
                std::printf("%s\n", row.dump().c_str());
                std::fflush(stdout);
            }
        }
        if (!fig2.empty()) {
            // Algorithmic level (warp mapping, S tabu searches) against the iteration level (one
            // solution at a time, all swaps evaluated by the neighborhood engine on CUDA).
            const auto problem = QapProblem::load("qaplib/" + fig2 + ".dat");
            const Instance& inst = problem->instance();
            auto neighborhood = make_cuda_swap(*problem, {});
            SolutionBatch one(1, problem->size());
            const auto start = random_starts(inst.n, 1, 5);
            std::copy(start.begin(), start.end(), one[0].begin());
            one.objective(0) = problem->evaluate(one[0]);
            std::vector<MoveChoice> choice(1);
            neighborhood->explore(one, Pivot::best, choice); // warm-up
            const int reps = 200;
            const auto t0 = Clock::now();
            for (int r = 0; r < reps; ++r)
                neighborhood->explore(one, Pivot::best, choice);
            const double per_iteration = seconds_since(t0) / reps;
            const std::uint64_t iterations = 200;
            for (const std::uint32_t s : {32u, 128u, 512u, 1024u, 2048u, 4096u, 8192u}) {
                gpu::MultiStartConfig config;
                config.strategy = gpu::Strategy::ts;
                config.iterations = iterations;
                const auto starts = random_starts(inst.n, s, 11);
                auto cuda = make_cuda_multistart(inst, s, gpu::Mapping::warp, config.strategy, 0);
                (void)timed(*cuda, config, std::min<std::uint32_t>(s, 32), starts);
                const Run g = timed(*cuda, config, s, starts);
                const double iteration_level = per_iteration * static_cast<double>(iterations) * s;
                nlohmann::json row{{"benchmark", "qap_levels"},
                                   {"instance", fig2},
                                   {"searches", s},
                                   {"iterations", iterations},
                                   {"algorithmic_level_s", g.seconds},
                                   {"iteration_level_s", iteration_level},
                                   {"iteration_level_per_iteration_ms", per_iteration * 1e3},
                                   {"algorithmic_over_iteration", iteration_level / g.seconds},
                                   {"device", device}};
                std::printf("%s\n", row.dump().c_str());
                std::fflush(stdout);
            }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "locus-qap-bench: error: %s\n", e.what());
        return 1;
    }
    return 0;
}
