// Benchmark of one FANG successor generation (Köster et al., Tables 1 and 2): |X| states of
// |λ| agents on a grid, every agent active, |R| = j*j-1 possibilities each, rated by Manhattan
// distance with `load` distance evaluations; median time of repeated generations on the CUDA
// engine and on the CPU twin (all cores) of the same machine, device bytes, and whether both
// produced identical successors. One JSON object per configuration on stdout, with the paper's
// GTX 1080 Ti and i9-7940X times beside ours.
//
//   locus-fang-bench [--table 1|2|all] [--reps 100] [--cpu-seconds 20]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "locus/gpu/cuda_check.hpp"
#include "locus/gpu/device.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/stream.hpp"
#include "locus/gpu/successor_engine.cuh"
#include "locus/gridpath/moves_policy.hpp"
#include "locus/gridpath/window_moves.hpp"
#include "locus/rng.hpp"

using namespace locus;
using namespace locus::gridpath;

namespace {

struct Config {
    int table, load, states, vars, window;
    double paper_gpu_ms, paper_cpu_ms; // GTX 1080 Ti, i9-7940X (FANG Tables 1 and 2)
};

// FANG Table 1 (load 1) and Table 2 (|λ| = 8, loads 1, 8, 16); |R| = 1224, 4488, 9800 for
// j = 35, 67, 99.
const Config kConfigs[] = {
    {1, 1, 1024, 8, 35, 2.20, 3.26},     {1, 1, 1024, 8, 67, 3.34, 10.42},
    {1, 1, 1024, 8, 99, 5.05, 22.28},    {1, 1, 1024, 32, 35, 6.97, 11.06},
    {1, 1, 1024, 32, 67, 9.85, 40.02},   {1, 1, 1024, 32, 99, 16.90, 87.31},
    {1, 1, 4096, 8, 35, 6.48, 12.08},    {1, 1, 4096, 8, 67, 9.84, 40.18},
    {1, 1, 4096, 8, 99, 16.94, 85.09},   {1, 1, 4096, 32, 35, 23.27, 42.21},
    {1, 1, 4096, 32, 67, 37.78, 154.70}, {1, 1, 4096, 32, 99, 66.30, 336.196},
    {2, 8, 1024, 8, 35, 1.88, 7.81},     {2, 16, 1024, 8, 35, 1.82, 14.05},
    {2, 8, 1024, 8, 67, 3.40, 27.39},    {2, 16, 1024, 8, 67, 2.75, 50.11},
    {2, 8, 4096, 8, 35, 6.26, 29.42},    {2, 16, 4096, 8, 35, 6.26, 53.70},
    {2, 8, 4096, 8, 67, 10.00, 104.61},  {2, 16, 4096, 8, 67, 9.91, 193.39},
};

constexpr std::int32_t kGrid = 1024; // free grid; agents stay >= 50 cells from its border

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
    int table = 0; // all
    int reps = 100;
    double cpu_seconds = 20.0;
    gpu::SuccessorConfig config;
    std::vector<int> only; // configuration indices (0-19) from a comma-separated list; empty = all
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--table") == 0)
            table = std::strcmp(argv[i + 1], "all") == 0 ? 0 : std::atoi(argv[i + 1]);
        else if (std::strcmp(argv[i], "--reps") == 0)
            reps = std::atoi(argv[i + 1]);
        else if (std::strcmp(argv[i], "--cpu-seconds") == 0)
            cpu_seconds = std::atof(argv[i + 1]);
        else if (std::strcmp(argv[i], "--group-threads") == 0)
            config.group_threads = static_cast<std::uint32_t>(std::atoi(argv[i + 1]));
        else if (std::strcmp(argv[i], "--chip-bytes") == 0)
            config.chip_bytes = static_cast<std::size_t>(std::atoll(argv[i + 1]));
        else if (std::strcmp(argv[i], "--only") == 0) {
            for (const char* p = argv[i + 1]; *p != '\0';) {
                char* end = nullptr;
                only.push_back(static_cast<int>(std::strtol(p, &end, 10)));
                p = *end == ',' ? end + 1 : end;
                if (end == p && *p != '\0') break;
            }
        } else {
            std::fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
    }
    try {
        gpu::require_device(0);
        const std::string device = gpu::device_description(0);
        const Grid grid{kGrid, kGrid,
                        std::vector<std::uint8_t>(static_cast<std::size_t>(kGrid) * kGrid, 0)};
        gpu::DeviceBuffer<std::uint8_t> d_blocked(grid.blocked.size(), "bench grid");
        d_blocked.upload(grid.blocked.data(), grid.blocked.size());
        for (std::size_t index = 0; index < std::size(kConfigs); ++index) {
            const Config& c = kConfigs[index];
            if (table != 0 && c.table != table) continue;
            if (!only.empty() &&
                std::find(only.begin(), only.end(), static_cast<int>(index)) == only.end())
                continue;
            Rng rng(static_cast<std::uint64_t>(c.states * 100 + c.vars), 0);
            // Agents' goals drawn at random (their starts are the states' cells below).
            Instance instance{"bench", grid, std::vector<Agent>(static_cast<std::size_t>(c.vars))};
            for (Agent& a : instance.agents) {
                a.goal_x = 50 + static_cast<std::int32_t>(rng.below(kGrid - 100));
                a.goal_y = 50 + static_cast<std::int32_t>(rng.below(kGrid - 100));
            }
            const std::vector<std::int32_t> goals = goal_words(instance);
            const std::vector<LoadGoal> load_goals = make_load_goals(goals, c.load);
            gpu::DeviceBuffer<std::int32_t> d_goals(goals.size(), "bench goals");
            d_goals.upload(goals.data(), goals.size());
            gpu::DeviceBuffer<LoadGoal> d_load_goals(load_goals.size(), "bench goals of the load");
            d_load_goals.upload(load_goals.data(), load_goals.size());
            WindowMovesOptions options;
            options.window = c.window;
            options.load = c.load;
            options.greed = 2;
            const GridMovesPolicy host = make_policy(
                instance, options, instance.grid.blocked.data(), goals.data(), load_goals.data());
            GridMovesPolicy dev = host;
            dev.blocked = d_blocked.data();
            dev.goals = d_goals.data();
            dev.load_goals = d_load_goals.data();
            const gpu::SuccessorLayout layout = gpu::successor_layout(host);
            // |X| states with distinct random agent cells, every agent active.
            std::vector<std::int32_t> slots(static_cast<std::size_t>(c.states) * layout.slot_words,
                                            0);
            for (int s = 0; s < c.states; ++s) {
                std::int32_t* slot = slots.data() + static_cast<std::size_t>(s) * layout.slot_words;
                for (int a = 0; a < c.vars; ++a) {
                    slot[2 * a] = 50 + static_cast<std::int32_t>(rng.below(kGrid - 100));
                    slot[2 * a + 1] = 50 + static_cast<std::int32_t>(rng.below(kGrid - 100));
                    layout.set_active(slot, static_cast<std::uint32_t>(a), true);
                }
            }
            const auto capacity = static_cast<std::uint32_t>(c.states);
            gpu::SuccessorEngine<GridMovesPolicy> cuda(dev, capacity, config);
            gpu::Stream stream;
            gpu::Event start, stop;
            std::vector<double> gpu_ms;
            for (int r = 0; r <= reps; ++r) {
                cuda.load(slots.data(), capacity);
                start.record(stream.get());
                cuda.generate(1, 1234, stream.get());
                stop.record(stream.get());
                stop.synchronize();
                float ms = 0;
                LOCUS_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
                if (r > 0) gpu_ms.push_back(ms);
            }
            std::vector<std::int32_t> from_gpu(slots.size());
            cuda.download(from_gpu.data());

            gpu::CpuSuccessorEngine<GridMovesPolicy> cpu(host, capacity, config, 0);
            std::vector<double> cpu_ms;
            const auto budget =
                std::chrono::steady_clock::now() + std::chrono::duration<double>(cpu_seconds);
            // --cpu-seconds 0: one CPU generation, for the identical-successor check only.
            for (int r = 0; r < reps && (r < (cpu_seconds > 0 ? 3 : 1) ||
                                         std::chrono::steady_clock::now() < budget);
                 ++r) {
                cpu.load(slots.data(), capacity);
                const auto t0 = std::chrono::steady_clock::now();
                cpu.generate(1, 1234);
                cpu_ms.push_back(
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                        .count());
            }
            const auto mismatch = std::mismatch(from_gpu.begin(), from_gpu.end(), cpu.slots());
            const bool identical = mismatch.first == from_gpu.end();
            if (!identical) {
                const auto word = static_cast<std::size_t>(mismatch.first - from_gpu.begin());
                const std::size_t state = word / layout.slot_words;
                std::fprintf(stderr, "first difference: state %zu word %zu: CUDA %d, CPU %d\n",
                             state, word % layout.slot_words, *mismatch.first, *mismatch.second);
                for (const auto* name : {"source", "cuda", "cpu"}) {
                    const std::int32_t* words = name[1] == 'o'   ? slots.data()
                                                : name[1] == 'u' ? from_gpu.data()
                                                                 : cpu.slots();
                    std::fprintf(stderr, "%s:", name);
                    for (std::uint32_t w = 0; w < layout.slot_words; ++w)
                        std::fprintf(stderr, " %d", words[state * layout.slot_words + w]);
                    std::fprintf(stderr, "\n");
                }
            }
            const double g = median(gpu_ms), p = median(cpu_ms);
            std::printf(
                "{\"benchmark\":\"fang_successor_generation\",\"table\":%d,\"load\":%d,\"states\":%"
                "d,"
                "\"variables\":%d,\"possibilities\":%d,\"cuda_ms\":%.4f,\"cpu_ms\":%.3f,"
                "\"cpu_over_cuda\":%.2f,\"cuda_reps\":%zu,\"cpu_reps\":%zu,\"device_bytes\":%zu,"
                "\"identical\":%s,\"ratings_on_chip\":%s,\"groups\":%u,\"threads\":%u,"
                "\"registers\":%d,\"paper_1080ti_ms\":%.2f,\"paper_i9_ms\":%.2f,"
                "\"paper_gpu_over_ours\":%.2f,\"device\":\"%s\"}\n",
                c.table, c.load, c.states, c.vars, c.window * c.window - 1, g, p, p / g,
                gpu_ms.size(), cpu_ms.size(), cuda.device_bytes(), identical ? "true" : "false",
                cuda.launch().plan.ratings_on_chip ? "true" : "false", cuda.launch().groups,
                cuda.launch().threads, cuda.launch().registers, c.paper_gpu_ms, c.paper_cpu_ms,
                c.paper_gpu_ms / g, device.c_str());
            std::fflush(stdout);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "locus-fang-bench: error: %s\n", e.what());
        return 1;
    }
    return 0;
}
