// Filtered neighborhoods in parts on the device (select_moves_parts: CUB compaction of each
// part on a second stream, evaluation, per-solution reduction) against the CPU twin: identical
// selections over part sizes, pivots, batches, filters and evaluators with lower bounds; the
// kept-cell count; the memory budget of the lists.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "hash_evaluator.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/neighborhood_parts.cuh"
#include "locus/gpu/stream.hpp"
#include "test_support.hpp"

using locus::gpu::DeviceBuffer;
using locus::gpu::MemoryBudget;
using locus::gpu::MoveResult;
using locus::gpu::PartPivot;
using locus::gpu::PartStats;
using locus::gpu::PartsWorkspace;
using locus::gpu::Stream;
using locus::test::BoundedHashEvaluator;
using locus::test::HashEvaluator;
using locus::test::HashFilter;

namespace {

template <class E, class F>
std::vector<MoveResult<typename E::delta_type>>
parts_gpu(const E& eval, const F& keep, std::uint32_t batch, PartPivot pivot, std::uint64_t part,
          PartsWorkspace& ws, const Stream& stream, std::uint64_t* kept, std::uint64_t* parts) {
    using D = typename E::delta_type;
    const std::uint64_t capped = std::min<std::uint64_t>(part, eval.grid().size());
    ws.reserve(keep, capped, batch, MemoryBudget{});
    DeviceBuffer<MoveResult<D>> d_out(batch, "test selections");
    d_out.fill_bytes_async(0x5A, stream);
    *parts = locus::gpu::select_moves_parts(eval, keep, batch, pivot, capped, d_out.data(), ws,
                                            stream);
    *kept = locus::gpu::parts_kept(ws, stream);
    std::vector<MoveResult<D>> out(batch);
    d_out.download_async(out.data(), batch, stream);
    stream.synchronize();
    return out;
}

template <class E> void check_device(std::uint64_t seed) {
    std::mt19937_64 random(seed);
    Stream stream;
    PartsWorkspace ws;
    static constexpr std::uint32_t kInvalidShares[] = {0, 40, 128, 256};
    static constexpr std::int32_t kLows[] = {-3, -40, 0, 1};
    static constexpr std::uint32_t kSpans[] = {1, 3, 100, 5000};
    int mismatches = 0;
    int runs = 0;
    for (int trial = 0; trial < 24; ++trial) {
        E eval{};
        // Grids up to 700 x 900 (630,000 cells): parts of up to a few hundred thousand cells.
        const std::uint32_t scale = trial % 3 == 0 ? 900 : 90;
        eval.shape = {static_cast<std::uint32_t>(1 + random() % (scale * 7 / 9)),
                      static_cast<std::uint32_t>(1 + random() % scale)};
        eval.seed = random();
        eval.invalid_per_256 = kInvalidShares[random() % 4];
        eval.low = kLows[random() % 4];
        eval.span = kSpans[random() % 4];
        const HashFilter keep{random(), static_cast<std::uint32_t>(random() % 257)};
        const auto batch = static_cast<std::uint32_t>(1 + random() % 6);
        const std::uint64_t size = eval.grid().size();
        for (const std::uint64_t part :
             {std::uint64_t{1} + size / 17, size / 3 + 1, size + 1}) {
            for (const PartPivot pivot : {PartPivot::best, PartPivot::first_improving}) {
                std::uint64_t kept = 0;
                std::uint64_t parts = 0;
                const auto device =
                    parts_gpu(eval, keep, batch, pivot, part, ws, stream, &kept, &parts);
                std::vector<MoveResult<typename E::delta_type>> host(batch);
                PartStats stats;
                locus::gpu::select_moves_parts_cpu(eval, keep, batch, pivot,
                                                   std::min<std::uint64_t>(part, size),
                                                   host.data(), 0, &stats);
                ++runs;
                bool same = kept == stats.kept && parts == stats.parts;
                for (std::uint32_t s = 0; s < batch; ++s)
                    same = same && locus::test::same_move(device[s], host[s]);
                if (!same) {
                    ++mismatches;
                    CAPTURE(trial);
                    CAPTURE(part);
                    CAPTURE(batch);
                    CHECK(kept == stats.kept);
                    CHECK(parts == stats.parts);
                    for (std::uint32_t s = 0; s < batch; ++s) {
                        CAPTURE(s);
                        CHECK(device[s].index == host[s].index);
                    }
                }
            }
        }
    }
    CHECK(runs == 24 * 3 * 2);
    CHECK(mismatches == 0);
}

} // namespace

TEST_CASE_TEMPLATE("select_moves_parts equals the CPU twin on random filtered grids", D, int,
                   double) {
    check_device<HashEvaluator<D>>(7);
}

TEST_CASE_TEMPLATE("select_moves_parts with lower bounds equals the CPU twin", D, int, float) {
    check_device<BoundedHashEvaluator<D>>(13);
}

TEST_CASE("select_moves_parts on a large grid in many parts equals the CPU twin") {
    // 3000 x 4000 = 1.2e7 cells of 3 solutions in parts of 2^20 cells: 12 parts, lists
    // double-buffered while the next part is compacted.
    BoundedHashEvaluator<double> eval{};
    eval.shape = {3000, 4000};
    eval.seed = 99;
    eval.invalid_per_256 = 60;
    eval.low = -100000;
    eval.span = 400000;
    const HashFilter keep{3, 20};
    Stream stream;
    PartsWorkspace ws;
    for (const PartPivot pivot : {PartPivot::best, PartPivot::first_improving}) {
        std::uint64_t kept = 0;
        std::uint64_t parts = 0;
        const auto device = parts_gpu(eval, keep, 3, pivot, 1u << 20, ws, stream, &kept, &parts);
        std::vector<MoveResult<double>> host(3);
        PartStats stats;
        locus::gpu::select_moves_parts_cpu(eval, keep, 3, pivot, 1u << 20, host.data(), 0,
                                           &stats);
        CHECK(parts == stats.parts);
        CHECK(kept == stats.kept);
        for (std::uint32_t s = 0; s < 3; ++s)
            CHECK(locus::test::same_move(device[s], host[s]));
        if (pivot == PartPivot::best) {
            CHECK(parts == 12);
            // About 20 / 256 of 3.6e7 cells kept.
            CHECK(kept > 2500000);
            CHECK(kept < 3100000);
        } else {
            CHECK(parts < 12); // every solution finds an improving move early
        }
    }
}

TEST_CASE("the lists of a selection in parts are checked against the memory budget") {
    PartsWorkspace ws;
    MemoryBudget tight;
    tight.bytes = std::size_t{64} << 20;
    const std::string message = locus::test::error_message<locus::CudaError>(
        [&] { ws.reserve(HashFilter{1, 2}, std::uint64_t{1} << 22, 2, tight); });
    CHECK(message.rfind("neighborhood in parts: needs ", 0) == 0);
    CHECK(message.find("part index list") != std::string::npos);
    CHECK(message.find("set a smaller part size") != std::string::npos);
    ws.reserve(HashFilter{1, 2}, std::uint64_t{1} << 18, 2, tight); // 12 MiB + scratch: fits
    CHECK(ws.bytes() > (std::size_t{12} << 20));
    CHECK(ws.bytes() < tight.bytes);
}
