// The team layer on the device (WarpTeam, BlockTeam of fixed and of run-time size) against host
// references: argmin with ties, sums, minima, prefix sums, compaction (in place) and array scans.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "locus/gpu/cuda_check.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/team.cuh"
#include "locus/rng.hpp"

namespace {

using locus::gpu::BlockTeam;
using locus::gpu::WarpTeam;

/// What one team computes from its `size()` values (one per rank) and its array.
struct TeamOutput {
    std::int64_t argmin_value;
    std::uint64_t argmin_index;
    std::int64_t sum;
    std::int64_t min;
    std::uint32_t total;
    std::uint32_t kept;
    std::uint32_t saturated_total;
    std::uint32_t pad;
};

constexpr std::uint32_t kArray = 1000;

/// Every thread of `team` calls it; values[rank] is the thread's value, `array` (kArray words,
/// visible to the team) is compacted in place, `scan` (kArray) is prefix-summed in place,
/// prefix[rank] receives the exclusive prefix of (values[rank] & 7).
template <class Team>
__device__ void exercise(const Team& team, const std::int64_t* values, std::uint32_t* array,
                         std::uint64_t* scan, std::uint32_t* prefix, TeamOutput* out) {
    const std::int64_t mine = values[team.rank()];
    std::int64_t value = mine / 4; // many ties
    std::uint64_t index = team.rank() * 3 + 1;
    team.argmin(value, index);
    const std::int64_t sum = team.sum(mine);
    const std::int64_t min = team.min(mine);
    std::uint32_t total = 0;
    prefix[team.rank()] = team.exclusive_sum(static_cast<std::uint32_t>(mine & 7), total);
    const std::uint32_t kept = locus::gpu::compact(
        team, kArray, [&](std::uint32_t i) { return array[i]; },
        [&](std::uint32_t i) { return array[i] % 3 == 0; },
        [&](std::uint32_t k, std::uint32_t v) { array[k] = v; });
    locus::gpu::scan_in_place(team, scan, kArray);
    if (team.rank() == 0) *out = {value, index, sum, min, total, kept, 0, 0};
}

struct Saturating {
    __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const {
        return a > 0xFFFFFFFFu - b ? 0xFFFFFFFFu : a + b;
    }
};

template <unsigned kThreads>
__global__ void __launch_bounds__(kThreads == 0 ? 1024 : kThreads)
    block_kernel(const std::int64_t* values, std::uint32_t* arrays, std::uint64_t* scans,
                 std::uint32_t* prefix, TeamOutput* out) {
    __shared__ typename BlockTeam<kThreads>::Storage storage;
    const BlockTeam<kThreads> team{&storage};
    const std::uint64_t b = blockIdx.x;
    const std::uint32_t size = team.size();
    exercise(team, values + b * size, arrays + b * kArray, scans + b * kArray, prefix + b * size,
             out + b);
    std::uint32_t total = 0;
    const std::uint32_t big = static_cast<std::uint32_t>(values[b * size + team.rank()]) << 24;
    (void)team.exclusive_scan(big, 0u, Saturating{}, total);
    if (team.rank() == 0) out[b].saturated_total = total;
}

__global__ void warp_kernel(const std::int64_t* values, std::uint32_t* arrays, std::uint64_t* scans,
                            std::uint32_t* prefix, TeamOutput* out) {
    const WarpTeam team;
    const std::uint64_t w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    exercise(team, values + w * 32, arrays + w * kArray, scans + w * kArray, prefix + w * 32,
             out + w);
}

struct Case {
    std::vector<std::int64_t> values;
    std::vector<std::uint32_t> arrays;
    std::vector<std::uint64_t> scans;
};

Case make_case(std::uint32_t teams, std::uint32_t size, std::uint64_t seed) {
    Case c;
    locus::Rng rng(locus::derive_key(seed, size), 0);
    for (std::uint64_t i = 0; i < std::uint64_t{teams} * size; ++i)
        c.values.push_back(static_cast<std::int64_t>(rng.below(200)) - 100);
    for (std::uint64_t i = 0; i < std::uint64_t{teams} * kArray; ++i) {
        c.arrays.push_back(rng.below(1000));
        c.scans.push_back(rng.below(1u << 30));
    }
    return c;
}

/// Runs `launch` on the device copies of `c` and checks every team against the host.
template <class Launch>
void check_teams(std::uint32_t teams, std::uint32_t size, bool saturated, Launch&& launch) {
    const Case c = make_case(teams, size, 77);
    locus::gpu::DeviceBuffer<std::int64_t> values(c.values.size());
    locus::gpu::DeviceBuffer<std::uint32_t> arrays(c.arrays.size());
    locus::gpu::DeviceBuffer<std::uint64_t> scans(c.scans.size());
    locus::gpu::DeviceBuffer<std::uint32_t> prefix(c.values.size());
    locus::gpu::DeviceBuffer<TeamOutput> out(teams);
    values.upload(c.values.data(), c.values.size());
    arrays.upload(c.arrays.data(), c.arrays.size());
    scans.upload(c.scans.data(), c.scans.size());
    out.fill_bytes_async(0, nullptr);
    launch(values.data(), arrays.data(), scans.data(), prefix.data(), out.data());
    LOCUS_CUDA_CHECK_LAUNCH();
    LOCUS_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<std::uint32_t> got_arrays(c.arrays.size());
    std::vector<std::uint64_t> got_scans(c.scans.size());
    std::vector<std::uint32_t> got_prefix(c.values.size());
    std::vector<TeamOutput> got(teams);
    arrays.download(got_arrays.data(), got_arrays.size());
    scans.download(got_scans.data(), got_scans.size());
    prefix.download(got_prefix.data(), got_prefix.size());
    out.download(got.data(), got.size());

    for (std::uint32_t t = 0; t < teams; ++t) {
        CAPTURE(t);
        const std::int64_t* v = c.values.data() + std::uint64_t{t} * size;
        std::int64_t best = INT64_MAX;
        std::uint64_t best_index = 0;
        std::int64_t sum = 0;
        std::uint32_t running = 0;
        std::uint32_t saturated_total = 0;
        for (std::uint32_t r = 0; r < size; ++r) {
            if (v[r] / 4 < best) {
                best = v[r] / 4;
                best_index = r * 3 + 1;
            }
            sum += v[r];
            CHECK(got_prefix[std::uint64_t{t} * size + r] == running);
            running += static_cast<std::uint32_t>(v[r] & 7);
            const std::uint32_t big = static_cast<std::uint32_t>(v[r]) << 24;
            saturated_total =
                saturated_total > 0xFFFFFFFFu - big ? 0xFFFFFFFFu : saturated_total + big;
        }
        CHECK(got[t].argmin_value == best);
        CHECK(got[t].argmin_index == best_index);
        CHECK(got[t].sum == sum);
        CHECK(got[t].min == *std::min_element(v, v + size));
        CHECK(got[t].total == running);
        if (saturated) CHECK(got[t].saturated_total == saturated_total);
        std::vector<std::uint32_t> kept;
        for (std::uint32_t i = 0; i < kArray; ++i)
            if (c.arrays[std::uint64_t{t} * kArray + i] % 3 == 0)
                kept.push_back(c.arrays[std::uint64_t{t} * kArray + i]);
        REQUIRE(got[t].kept == kept.size());
        CHECK(std::equal(kept.begin(), kept.end(), got_arrays.begin() + std::uint64_t{t} * kArray));
        std::uint64_t scan = 0;
        bool scans_equal = true;
        for (std::uint32_t i = 0; i < kArray; ++i) {
            scan += c.scans[std::uint64_t{t} * kArray + i];
            scans_equal = scans_equal && got_scans[std::uint64_t{t} * kArray + i] == scan;
        }
        CHECK(scans_equal);
    }
}

} // namespace

TEST_CASE("BlockTeam of fixed size: collectives, compaction and scans match the host") {
    check_teams(5, 128, true, [](auto... a) { block_kernel<128><<<5, 128>>>(a...); });
    check_teams(3, 1024, true, [](auto... a) { block_kernel<1024><<<3, 1024>>>(a...); });
    check_teams(4, 32, true, [](auto... a) { block_kernel<32><<<4, 32>>>(a...); });
}

TEST_CASE("BlockTeam of run-time size: collectives, compaction and scans match the host") {
    for (const std::uint32_t threads : {32u, 96u, 256u, 1024u}) {
        CAPTURE(threads);
        check_teams(4, threads, true, [&](auto... a) { block_kernel<0><<<4, threads>>>(a...); });
    }
}

TEST_CASE("WarpTeam: four teams per block, collectives match the host") {
    check_teams(12, 32, false, [](auto... a) { warp_kernel<<<3, 128>>>(a...); });
}
