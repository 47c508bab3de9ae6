// Throughput of the neighborhood engine on 2-opt neighborhoods of random Euclidean tours
// (moves evaluated per second, invalid cells included), with a check against the CPU twin.
// Usage: gpu_engine_bench [repeats]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "locus/gpu/device.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/neighborhood_engine.cuh"
#include "locus/gpu/stream.hpp"
#include "locus/gpu/timer.hpp"
#include "two_opt_evaluator.hpp"

namespace {

using locus::gpu::DeviceBuffer;
using locus::gpu::MoveResult;

bool run(std::uint32_t n, std::uint32_t batch, locus::Pivot pivot, int repeats) {
    const locus::test::TwoOptData data(n, batch, n * 31u + batch);
    DeviceBuffer<float> d_x(data.x.size(), "x");
    DeviceBuffer<float> d_y(data.y.size(), "y");
    DeviceBuffer<int> d_edge(data.edge.size(), "edges");
    d_x.upload(data.x.data(), data.x.size());
    d_y.upload(data.y.data(), data.y.size());
    d_edge.upload(data.edge.data(), data.edge.size());
    const locus::test::TwoOptEvaluator device_eval{d_x.data(), d_y.data(), d_edge.data(), n};
    const locus::test::TwoOptEvaluator host_eval{data.x.data(), data.y.data(), data.edge.data(), n};

    locus::gpu::Stream stream;
    locus::gpu::EngineWorkspace ws;
    ws.reserve_for(device_eval.grid(), batch, stream);
    DeviceBuffer<MoveResult<int>> d_out(batch, "selections");
    LOCUS_CUDA_CHECK(locus::gpu::select_moves(device_eval, batch, pivot, d_out.data(), ws, stream));
    locus::gpu::EventTimer timer;
    timer.start(stream);
    for (int r = 0; r < repeats; ++r)
        LOCUS_CUDA_CHECK(
            locus::gpu::select_moves(device_eval, batch, pivot, d_out.data(), ws, stream));
    timer.stop(stream);
    const double ms = timer.elapsed_ms() / repeats;
    std::vector<MoveResult<int>> device(batch);
    d_out.download_async(device.data(), batch, stream);
    stream.synchronize();

    std::vector<MoveResult<int>> host(batch);
    locus::gpu::select_moves_cpu(host_eval, batch, pivot, host.data(), 0);
    bool same = true;
    for (std::uint32_t s = 0; s < batch; ++s)
        same = same && device[s].index == host[s].index && device[s].delta == host[s].delta;
    const double moves = static_cast<double>(n) * n * batch;
    std::printf("n=%6u batch=%5u %-5s %9.3f ms  %8.1f G moves/s  %s\n", n, batch,
                pivot == locus::Pivot::best ? "best" : "first", ms, moves / (ms * 1e-3) / 1e9,
                same ? "== cpu twin" : "MISMATCH with cpu twin");
    return same;
}

bool run_improving(std::uint32_t n, std::uint32_t batch, std::uint32_t capacity, int repeats) {
    const locus::test::TwoOptData data(n, batch, n * 17u + batch);
    DeviceBuffer<float> d_x(data.x.size(), "x");
    DeviceBuffer<float> d_y(data.y.size(), "y");
    DeviceBuffer<int> d_edge(data.edge.size(), "edges");
    d_x.upload(data.x.data(), data.x.size());
    d_y.upload(data.y.data(), data.y.size());
    d_edge.upload(data.edge.data(), data.edge.size());
    const locus::test::TwoOptEvaluator device_eval{d_x.data(), d_y.data(), d_edge.data(), n};
    const locus::test::TwoOptEvaluator host_eval{data.x.data(), data.y.data(), data.edge.data(), n};

    locus::gpu::Stream stream;
    locus::gpu::EngineWorkspace ws;
    ws.reserve_for(device_eval.grid(), batch, stream);
    const std::size_t slots = static_cast<std::size_t>(batch) * capacity;
    DeviceBuffer<MoveResult<int>> d_out(slots, "improving moves");
    DeviceBuffer<std::uint32_t> d_counts(batch, "counts");
    LOCUS_CUDA_CHECK(locus::gpu::improving_moves(device_eval, batch, capacity, d_out.data(),
                                                 d_counts.data(), ws, stream));
    locus::gpu::EventTimer timer;
    timer.start(stream);
    for (int r = 0; r < repeats; ++r)
        LOCUS_CUDA_CHECK(locus::gpu::improving_moves(device_eval, batch, capacity, d_out.data(),
                                                     d_counts.data(), ws, stream));
    timer.stop(stream);
    const double ms = timer.elapsed_ms() / repeats;
    std::vector<MoveResult<int>> device(slots);
    std::vector<std::uint32_t> device_counts(batch);
    d_out.download_async(device.data(), slots, stream);
    d_counts.download_async(device_counts.data(), batch, stream);
    stream.synchronize();

    std::vector<MoveResult<int>> host(slots);
    std::vector<std::uint32_t> host_counts(batch);
    locus::gpu::improving_moves_cpu(host_eval, batch, capacity, host.data(), host_counts.data(), 0);
    bool same = device_counts == host_counts;
    for (std::uint32_t s = 0; s < batch && same; ++s)
        for (std::uint32_t k = 0; k < std::min(capacity, host_counts[s]); ++k) {
            const std::size_t at = static_cast<std::size_t>(s) * capacity + k;
            same = same && device[at].index == host[at].index && device[at].delta == host[at].delta;
        }
    const double moves = static_cast<double>(n) * n * batch;
    std::printf("n=%6u batch=%5u improving(cap %u) %9.3f ms  %8.1f G moves/s  %s\n", n, batch,
                capacity, ms, moves / (ms * 1e-3) / 1e9,
                same ? "== cpu twin" : "MISMATCH with cpu twin");
    return same;
}

} // namespace

int main(int argc, char** argv) {
    const int repeats = argc > 1 ? std::atoi(argv[1]) : 10;
    locus::gpu::require_device(0);
    std::printf("%s\n", locus::gpu::device_description(0).c_str());
    bool ok = true;
    struct Size {
        std::uint32_t n, batch;
    };
    for (const Size size : {Size{100, 1024}, Size{1000, 1}, Size{1000, 256}, Size{2000, 1},
                            Size{4096, 1}, Size{4096, 16}, Size{16384, 1}, Size{1000, 1024}})
        for (const locus::Pivot pivot : {locus::Pivot::best, locus::Pivot::first})
            ok = run(size.n, size.batch, pivot, repeats) && ok;
    ok = run_improving(1000, 1, 0, repeats) && ok;
    ok = run_improving(1000, 1, 4096, repeats) && ok;
    ok = run_improving(1000, 256, 1024, repeats) && ok;
    ok = run_improving(4096, 16, 4096, repeats) && ok;
    ok = run_improving(16384, 1, 65536, repeats) && ok;
    return ok ? 0 : 1;
}
