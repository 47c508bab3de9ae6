// Benchmark of full 2-opt neighborhood evaluation: moves per second on the CUDA backend and on
// the multi-threaded CPU backend of the same machine, for generated EUC_2D instances (exact
// TSPLIB integer distances). Prints one JSON object per measurement; with both backends the CPU
// twin also explores the CUDA run's tours and must choose the same moves (exit 1 otherwise).
//
//   locus-tsp-bench [--sizes 1000,2000,4000,8000,16000] [--backends cuda,cpu] [--cpu-seconds 2]

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "locus/gpu/device.hpp"
#include "locus/tsp/generator.hpp"
#include "locus/tsp/heuristics.hpp"
#include "locus/tsp/tour_engine.hpp"
#include "locus/text.hpp"

using namespace locus;
using namespace locus::tsp;

int main(int argc, char** argv) {
    std::vector<std::string> sizes = {"1000", "2000", "4000", "8000", "16000"};
    std::vector<std::string> backends = {"cuda", "cpu"};
    double cpu_seconds = 2.0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--sizes") == 0)
            sizes = split_commas(argv[i + 1]);
        else if (std::strcmp(argv[i], "--backends") == 0)
            backends = split_commas(argv[i + 1]);
        else if (std::strcmp(argv[i], "--cpu-seconds") == 0)
            cpu_seconds = std::stod(argv[i + 1]);
        else {
            std::fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
    }
    bool identical = true;
    try {
        for (const auto& size_text : sizes) {
            const auto n = static_cast<std::size_t>(std::stoul(size_text));
            TspProblem problem(generate_random_uniform(n, n, 1000000));
            const double moves = static_cast<double>(n) * static_cast<double>(n - 3) / 2.0;
            for (const auto& backend : backends) {
                const bool cuda = backend == "cuda";
                // Enough solutions per launch to fill the GPU (>= 2^30 moves), one on the CPU.
                std::size_t batch = 1;
                if (cuda)
                    batch = std::clamp<std::size_t>(static_cast<std::size_t>((1u << 30) / moves), 1,
                                                    4096);
                SolutionBatch tours(batch, n);
                RandomTour(problem).construct(tours, 17);
                auto engine = cuda ? make_cuda_engine(problem, {MoveKind::two_opt, 0}, {})
                                   : make_cpu_engine(problem, {MoveKind::two_opt, 0}, {});
                // Repetitions: ~1 s on the GPU, ~cpu_seconds on the CPU.
                const double once = engine->time_exploration(tours, Pivot::best, 1);
                const int reps = std::clamp(
                    static_cast<int>((cuda ? 1.0 : cpu_seconds) / std::max(once, 1e-6)), 3, 200);
                const double seconds = engine->time_exploration(tours, Pivot::best, reps);
                nlohmann::json line = {
                    {"benchmark", "two_opt_full_evaluation"},
                    {"n", n},
                    {"backend", backend},
                    {"device",
                     cuda ? gpu::device_description(0)
                          : std::to_string(std::thread::hardware_concurrency()) + " CPU threads"},
                    {"batch", batch},
                    {"moves_per_solution", moves},
                    {"seconds_per_exploration", seconds},
                    {"moves_per_second", moves * static_cast<double>(batch) / seconds},
                    {"repetitions", reps},
                    {"metric", "euc_2d_int"}};
                // The CUDA run's tours explored by the CPU twin as well: the same best move
                // (index and delta) for every tour, or the benchmark fails.
                if (cuda && std::find(backends.begin(), backends.end(), "cpu") != backends.end()) {
                    std::vector<MoveChoice> on_device(batch), on_host(batch);
                    engine->explore(tours, Pivot::best, on_device);
                    make_cpu_engine(problem, {MoveKind::two_opt, 0}, {})
                        ->explore(tours, Pivot::best, on_host);
                    std::size_t same = 0;
                    for (std::size_t s = 0; s < batch; ++s)
                        same += on_device[s].index == on_host[s].index &&
                                on_device[s].delta == on_host[s].delta;
                    line["cpu_identical_tours"] = same;
                    if (same != batch) identical = false;
                }
                std::printf("%s\n", line.dump().c_str());
                std::fflush(stdout);
            }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "locus-tsp-bench: error: %s\n", e.what());
        return 1;
    }
    if (!identical) {
        std::fprintf(stderr, "locus-tsp-bench: the CPU and CUDA backends chose different moves\n");
        return 1;
    }
    return 0;
}
