// The CUDA neighborhood engine against its CPU twin: identical selections and improving-move
// lists for the same evaluators over size, batch, pivot and delta-type sweeps.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "hash_evaluator.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/neighborhood_engine.cuh"
#include "locus/gpu/stream.hpp"
#include "locus/gpu/timer.hpp"
#include "two_opt_evaluator.hpp"

using locus::kNoMove;
using locus::Pivot;
using locus::gpu::DeviceBuffer;
using locus::gpu::EngineWorkspace;
using locus::gpu::MoveGrid;
using locus::gpu::MoveResult;
using locus::gpu::Stream;
using locus::test::HashEvaluator;

namespace {

template <class E>
using Results = std::vector<MoveResult<typename E::delta_type>>;

template <class E>
Results<E> select_gpu(const E& eval, std::uint32_t batch, Pivot pivot, EngineWorkspace& ws,
                      const Stream& stream) {
    DeviceBuffer<MoveResult<typename E::delta_type>> d_out(batch, "test selections");
    d_out.fill_bytes_async(0x5A, stream);
    LOCUS_CUDA_CHECK(locus::gpu::select_moves(eval, batch, pivot, d_out.data(), ws, stream));
    Results<E> out(batch);
    d_out.download_async(out.data(), batch, stream);
    stream.synchronize();
    return out;
}

template <class E>
Results<E> select_cpu(const E& eval, std::uint32_t batch, Pivot pivot) {
    Results<E> out(batch);
    locus::gpu::select_moves_cpu(eval, batch, pivot, out.data(), 0);
    return out;
}

template <class E>
void check_select(const E& eval, std::uint32_t batch, EngineWorkspace& ws, const Stream& stream) {
    for (const Pivot pivot : {Pivot::best, Pivot::first}) {
        const auto device = select_gpu(eval, batch, pivot, ws, stream);
        const auto host = select_cpu(eval, batch, pivot);
        int mismatches = 0;
        for (std::uint32_t s = 0; s < batch; ++s)
            mismatches += locus::test::same_move(device[s], host[s]) ? 0 : 1;
        CAPTURE(eval.shape.rows);
        CAPTURE(eval.shape.cols);
        CAPTURE(batch);
        CAPTURE(pivot == Pivot::best);
        CHECK(mismatches == 0);
    }
}

template <class D>
HashEvaluator<D> make_evaluator(std::mt19937_64& random, MoveGrid grid) {
    static constexpr std::uint32_t kInvalidShares[] = {0, 40, 128, 250, 256};
    static constexpr std::int32_t kLows[] = {-3, -40, 0, -1000};
    static constexpr std::uint32_t kSpans[] = {1, 3, 100, 100000};
    return {grid, random(), kInvalidShares[random() % 5], kLows[random() % 4],
            kSpans[random() % 4]};
}

struct Case {
    MoveGrid grid;
    std::uint32_t batch;
};

// Sizes from degenerate to wide and narrow grids; batch * cells stays below ~3e7.
const Case kCases[] = {{{0, 5}, 3},       {{5, 0}, 2},       {{1, 1}, 1},      {{1, 1}, 300},
                       {{1, 33}, 7},      {{3, 1}, 64},      {{7, 5}, 256},    {{31, 17}, 37},
                       {{100, 100}, 1},   {{100, 100}, 256}, {{129, 257}, 3},  {{255, 9}, 100},
                       {{1000, 1000}, 1}, {{1000, 1000}, 8}, {{2048, 64}, 16}, {{64, 2048}, 16},
                       {{333, 777}, 64}};

} // namespace

TEST_CASE_TEMPLATE("select_moves equals the CPU twin over size and batch sweeps", D, int, long long,
                   std::int16_t, float, double) {
    std::mt19937_64 random(77 + sizeof(D));
    Stream stream;
    EngineWorkspace ws;
    for (const Case& c : kCases)
        for (int repeat = 0; repeat < 2; ++repeat)
            check_select(make_evaluator<D>(random, c.grid), c.batch, ws, stream);
}

TEST_CASE("select_moves on large grids and large batches equals the CPU twin") {
    Stream stream;
    EngineWorkspace ws;
    // 4096 x 4096: improving moves are rare, so Pivot::first scans far before its early exit.
    check_select(HashEvaluator<int>{{4096, 4096}, 1, 30, -2, 1 << 22}, 2, ws, stream);
    check_select(HashEvaluator<float>{{4096, 4096}, 2, 0, -50, 1 << 20}, 1, ws, stream);
    check_select(HashEvaluator<int>{{256, 256}, 3, 64, -30, 1000}, 256, ws, stream);
    check_select(HashEvaluator<double>{{100, 100}, 4, 16, -1, 5000}, 1024, ws, stream);
}

TEST_CASE("select_moves in slices, combined in order, equals one launch and the CPU twin") {
    // A large exploration is selected slice by slice (the adapter asks its stop test between
    // them): the least delta over the slices (ties: the lowest index), or the first slice with
    // an improving move, is the whole selection.
    Stream stream;
    EngineWorkspace ws;
    std::mt19937_64 random(2026);
    for (const Case c : {Case{{1000, 1000}, 1}, Case{{333, 777}, 7}, Case{{1, 4099}, 3},
                         Case{{4096, 512}, 2}}) {
        const auto eval = make_evaluator<int>(random, c.grid);
        for (const Pivot pivot : {Pivot::best, Pivot::first}) {
            const auto whole = select_cpu(eval, c.batch, pivot);
            for (const std::uint64_t slices : {2ull, 3ull, 17ull}) {
                using R = MoveResult<int>;
                std::vector<R> combined(c.batch, R{locus::gpu::invalid_delta<int>(), kNoMove});
                DeviceBuffer<R> d_out(c.batch, "test slices");
                std::vector<R> part(c.batch);
                for (std::uint64_t k = 0; k < slices; ++k) {
                    LOCUS_CUDA_CHECK(locus::gpu::select_moves(eval, c.batch, pivot, d_out.data(),
                                                              ws, stream, k, slices));
                    d_out.download_async(part.data(), c.batch, stream);
                    stream.synchronize();
                    for (std::uint32_t s = 0; s < c.batch; ++s) {
                        const bool take =
                            pivot == Pivot::best
                                ? locus::gpu::detail::precedes_best(part[s].delta, part[s].index,
                                                                    combined[s].delta,
                                                                    combined[s].index)
                                : part[s].index < combined[s].index;
                        if (take) combined[s] = part[s];
                    }
                }
                int mismatches = 0;
                for (std::uint32_t s = 0; s < c.batch; ++s)
                    mismatches += locus::test::same_move(combined[s], whole[s]) ? 0 : 1;
                CAPTURE(c.grid.rows);
                CAPTURE(c.grid.cols);
                CAPTURE(slices);
                CAPTURE(pivot == Pivot::best);
                CHECK(mismatches == 0);
            }
        }
    }
}

TEST_CASE("select_moves gives the same result on repeated launches with one workspace") {
    // Many blocks per solution: the per-solution tickets and published indices must be
    // restored by each launch for the next one to be right.
    Stream stream;
    EngineWorkspace ws;
    const HashEvaluator<int> eval{{3000, 500}, 9, 10, -5, 400};
    const auto expected_best = select_cpu(eval, 3, Pivot::best);
    const auto expected_first = select_cpu(eval, 3, Pivot::first);
    for (int launch = 0; launch < 3; ++launch) {
        const auto best = select_gpu(eval, 3, Pivot::best, ws, stream);
        const auto first = select_gpu(eval, 3, Pivot::first, ws, stream);
        for (std::uint32_t s = 0; s < 3; ++s) {
            CHECK(locus::test::same_move(best[s], expected_best[s]));
            CHECK(locus::test::same_move(first[s], expected_first[s]));
        }
    }
}

TEST_CASE("EngineWorkspace::reserve_for sizes the workspace so that launches do not grow it") {
    Stream stream;
    EngineWorkspace ws;
    const MoveGrid grid{1500, 1500};
    ws.reserve_for(grid, 16, stream);
    CHECK(ws.bytes() == EngineWorkspace::bytes_needed(grid, 16));
    const std::size_t reserved = ws.bytes();
    check_select(HashEvaluator<int>{grid, 5, 0, -3, 50}, 16, ws, stream);
    check_select(HashEvaluator<int>{{700, 1500}, 6, 0, -3, 50}, 9, ws, stream);
    CHECK(ws.bytes() == reserved);
}

TEST_CASE_TEMPLATE("improving_moves equals the CPU twin", D, int, double) {
    std::mt19937_64 random(4242 + sizeof(D));
    Stream stream;
    EngineWorkspace ws;
    static constexpr std::uint32_t kCapacities[] = {0, 1, 17, 1000, 100000};
    const MoveResult<D> untouched{D(0), 0x5A5A5A5A5A5A5A5Aull};
    for (const Case& c : kCases) {
        const auto eval = make_evaluator<D>(random, c.grid);
        const std::uint32_t batch = std::min<std::uint32_t>(c.batch, 64);
        const std::uint32_t capacity = kCapacities[random() % 5];
        const std::size_t slots = static_cast<std::size_t>(batch) * capacity;

        DeviceBuffer<MoveResult<D>> d_out(slots + 1, "test improving moves");
        DeviceBuffer<std::uint32_t> d_counts(batch, "test counts");
        std::vector<MoveResult<D>> device(slots + 1, untouched);
        d_out.upload_async(device.data(), slots + 1, stream);
        LOCUS_CUDA_CHECK(locus::gpu::improving_moves(eval, batch, capacity, d_out.data(),
                                                     d_counts.data(), ws, stream));
        std::vector<std::uint32_t> device_counts(batch);
        d_out.download_async(device.data(), slots + 1, stream);
        d_counts.download_async(device_counts.data(), batch, stream);
        stream.synchronize();

        std::vector<MoveResult<D>> host(slots + 1, untouched);
        std::vector<std::uint32_t> host_counts(batch);
        locus::gpu::improving_moves_cpu(eval, batch, capacity, host.data(), host_counts.data(), 0);

        CAPTURE(c.grid.rows);
        CAPTURE(c.grid.cols);
        CAPTURE(batch);
        CAPTURE(capacity);
        CHECK(device_counts == host_counts);
        int mismatches = 0;
        for (std::size_t k = 0; k <= slots; ++k)
            mismatches += locus::test::same_move(device[k], host[k]) ? 0 : 1;
        CHECK(mismatches == 0);
    }
}

TEST_CASE("improving_moves on a large grid keeps the lowest indices") {
    Stream stream;
    EngineWorkspace ws;
    const HashEvaluator<int> eval{{4096, 4096}, 8, 0, -1, 1000};
    const std::uint32_t capacity = 5000;
    DeviceBuffer<MoveResult<int>> d_out(capacity, "test improving moves");
    DeviceBuffer<std::uint32_t> d_count(1, "test counts");
    LOCUS_CUDA_CHECK(
        locus::gpu::improving_moves(eval, 1, capacity, d_out.data(), d_count.data(), ws, stream));
    std::vector<MoveResult<int>> device(capacity);
    std::uint32_t device_count = 0;
    d_out.download_async(device.data(), capacity, stream);
    d_count.download_async(&device_count, 1, stream);
    stream.synchronize();

    std::vector<MoveResult<int>> host(capacity);
    std::uint32_t host_count = 0;
    locus::gpu::improving_moves_cpu(eval, 1, capacity, host.data(), &host_count, 0);
    CHECK(host_count > capacity); // about 1/1000 of 16.8M cells improve
    CHECK(device_count == host_count);
    int mismatches = 0;
    for (std::uint32_t k = 0; k < capacity; ++k)
        mismatches += locus::test::same_move(device[k], host[k]) ? 0 : 1;
    CHECK(mismatches == 0);
}

TEST_CASE("2-opt neighborhoods of random tours: device selections equal the CPU twin") {
    Stream stream;
    EngineWorkspace ws;
    struct Size {
        std::uint32_t n, batch;
    };
    for (const Size size : {Size{4, 3}, Size{5, 1}, Size{97, 33}, Size{1000, 4}, Size{3001, 1}}) {
        const locus::test::TwoOptData data(size.n, size.batch, size.n + size.batch);
        DeviceBuffer<float> d_x(data.x.size(), "x");
        DeviceBuffer<float> d_y(data.y.size(), "y");
        DeviceBuffer<int> d_edge(data.edge.size(), "edges");
        d_x.upload_async(data.x.data(), data.x.size(), stream);
        d_y.upload_async(data.y.data(), data.y.size(), stream);
        d_edge.upload_async(data.edge.data(), data.edge.size(), stream);
        const locus::test::TwoOptEvaluator device_eval{d_x.data(), d_y.data(), d_edge.data(),
                                                       size.n};
        const locus::test::TwoOptEvaluator host_eval{data.x.data(), data.y.data(), data.edge.data(),
                                                     size.n};
        for (const Pivot pivot : {Pivot::best, Pivot::first}) {
            const auto device = select_gpu(device_eval, size.batch, pivot, ws, stream);
            const auto host = select_cpu(host_eval, size.batch, pivot);
            CAPTURE(size.n);
            for (std::uint32_t s = 0; s < size.batch; ++s)
                CHECK(locus::test::same_move(device[s], host[s]));
        }
    }
}

TEST_CASE("select_moves throughput on a 4096 x 4096 grid (reported, not asserted)") {
    Stream stream;
    EngineWorkspace ws;
    const HashEvaluator<int> eval{{4096, 4096}, 3, 0, -1, 1 << 24};
    const std::uint32_t batch = 8;
    DeviceBuffer<MoveResult<int>> d_out(batch, "benchmark selections");
    LOCUS_CUDA_CHECK(locus::gpu::select_moves(eval, batch, Pivot::best, d_out.data(), ws, stream));
    locus::gpu::EventTimer timer;
    timer.start(stream);
    constexpr int kLaunches = 5;
    for (int i = 0; i < kLaunches; ++i)
        LOCUS_CUDA_CHECK(
            locus::gpu::select_moves(eval, batch, Pivot::best, d_out.data(), ws, stream));
    timer.stop(stream);
    const float ms = timer.elapsed_ms();
    const double moves = static_cast<double>(eval.shape.size()) * batch * kLaunches;
    MESSAGE("hash evaluator, Pivot::best: " << moves / (ms * 1e-3) / 1e9 << " G moves/s");
    std::vector<MoveResult<int>> device(batch);
    d_out.download_async(device.data(), batch, stream);
    stream.synchronize();
    CHECK(device[batch - 1].index != kNoMove);
}
