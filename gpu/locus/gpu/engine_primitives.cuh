#pragma once
/// \file
/// Device building blocks of the neighborhood engine (nvcc only): launch geometry of a sweep
/// over a batch of move grids, the block reduction of (delta, index) pairs (team layer), and the
/// saturating scan of per-unit counts. See neighborhood_engine.cuh for the thread mapping.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "locus/gpu/neighborhood_engine.hpp"
#include "locus/gpu/team.cuh"

namespace locus::gpu::detail {


/// Launch geometry of a sweep over the grids of a batch. A unit of work is a row, or a segment
/// of a row when rows alone are too few to fill the device (small batches); units are numbered
/// row-major, so a thread meets its cells in increasing index order.
struct SweepPlan {
    std::uint32_t rows;
    std::uint32_t cols;
    std::uint32_t group_shift;         ///< log2 of the lanes per row group
    std::uint32_t groups;              ///< row groups per block
    std::uint32_t blocks_per_solution; ///< blocks sharing one solution's units
    std::uint32_t segments;            ///< units per row (1: whole rows)
    std::uint32_t segment_cols;        ///< columns per unit (a multiple of the group width)
    std::uint64_t units;               ///< units per solution = rows * segments (the end of the
                                       ///< selection's range)
    std::uint64_t unit_begin;          ///< the selection's first unit (0; a slice of a large
                                       ///< exploration starts later)
};

/// log2 of the group width: the widest power of two <= 32 that leaves at most 1/8 of the lanes
/// idle on the last sweep of a row (1 for a single column).
inline std::uint32_t group_shift_for(std::uint32_t cols) {
    for (std::uint32_t shift = 5; shift > 0; --shift) {
        const std::uint64_t width = 1ull << shift;
        const std::uint64_t padded = (cols + width - 1) / width * width;
        if (cols >= width && 8 * (padded - cols) <= padded)
            return shift;
    }
    return 0;
}

/// Geometry for `batch` solutions of `grid`, `resident` blocks filling the device once. Rows
/// are cut into segments (of at least 4 sweeps of a group) until the batch has about 4 units per
/// group slot of the device (at most kMaxSplitUnits units in all from the split).
inline SweepPlan make_plan(MoveGrid grid, std::uint32_t batch, std::uint64_t resident) {
    SweepPlan plan{};
    plan.rows = grid.rows;
    plan.cols = grid.cols;
    plan.group_shift = group_shift_for(grid.cols);
    plan.groups = kEngineBlockThreads >> plan.group_shift;
    const std::uint64_t width = 1ull << plan.group_shift;
    const std::uint64_t wave =
        std::min<std::uint64_t>(std::max<std::uint64_t>(resident, 1), kMaxWaveBlocks);

    std::uint64_t segments = 1;
    const std::uint64_t target = std::min<std::uint64_t>(4 * wave * plan.groups, kMaxSplitUnits);
    const std::uint64_t wanted = (target + batch - 1) / batch;
    if (grid.rows > 0 && grid.rows < wanted) {
        const std::uint64_t most = std::max<std::uint64_t>(grid.cols / (4 * width), 1);
        segments = std::min<std::uint64_t>((wanted + grid.rows - 1) / grid.rows, most);
    }
    std::uint64_t segment_cols = (grid.cols + segments - 1) / segments;
    segment_cols = std::max<std::uint64_t>((segment_cols + width - 1) / width * width, width);
    segments = std::max<std::uint64_t>((grid.cols + segment_cols - 1) / segment_cols, 1);
    plan.segments = static_cast<std::uint32_t>(segments);
    plan.segment_cols = static_cast<std::uint32_t>(segment_cols);
    plan.units = static_cast<std::uint64_t>(grid.rows) * segments;

    const std::uint64_t useful =
        std::max<std::uint64_t>((plan.units + plan.groups - 1) / plan.groups, 1);
    const std::uint64_t per_solution =
        std::clamp<std::uint64_t>((wave + batch - 1) / batch, 1, useful);
    plan.blocks_per_solution = static_cast<std::uint32_t>(per_solution);
    return plan;
}

/// The cells of one unit: row `row`, columns [col_begin, col_end).
struct Unit {
    std::uint64_t row;
    std::uint32_t col_begin;
    std::uint32_t col_end;
};

__device__ __forceinline__ Unit decode_unit(const SweepPlan& plan, std::uint64_t unit) {
    const std::uint64_t row = plan.segments == 1 ? unit : unit / plan.segments;
    const auto segment = static_cast<std::uint32_t>(unit - row * plan.segments);
    const std::uint32_t col_begin = segment * plan.segment_cols;
    const auto col_end =
        static_cast<std::uint32_t>(min(static_cast<std::uint64_t>(plan.cols),
                                       static_cast<std::uint64_t>(col_begin) + plan.segment_cols));
    return {row, col_begin, col_end};
}

/// Blocks of `kernel` resident on one multiprocessor (cached per kernel; 1 on error).
template <class Kernel>
int resident_blocks_per_sm(Kernel kernel) {
    int blocks = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kEngineBlockThreads, 0) !=
        cudaSuccess) {
        (void)cudaGetLastError();
        blocks = 1;
    }
    return std::max(blocks, 1);
}

/// Stores a move as two full 8-byte words, so that the padding after a delta narrower than 8
/// bytes is defined too (host copies of results then read no uninitialised bytes).
template <class D>
__device__ __forceinline__ void store_move(MoveResult<D>* to, D delta, std::uint64_t index) {
    static_assert(sizeof(MoveResult<D>) == 16 && alignof(MoveResult<D>) == 8);
    unsigned long long bits = 0;
    memcpy(&bits, &delta, sizeof(D));
    auto* words = reinterpret_cast<unsigned long long*>(to);
    words[0] = bits;
    words[1] = index;
}

/// Pivot::first's reduction operator over (index, delta) pairs: the lowest index.
struct LowestIndex {
    template <class Pair>
    __device__ __forceinline__ Pair operator()(const Pair& a, const Pair& b) const {
        return b.key < a.key ? b : a;
    }
};

/// The block of an engine kernel as a team.
using EngineTeam = BlockTeam<kEngineBlockThreads>;

/// Reduces (delta, index) over the block (Pivot::best: smallest delta, then lowest index;
/// Pivot::first: lowest index); the result is valid in thread 0. Every thread of the block
/// must call it; the team storage may be reused after the next __syncthreads().
template <bool kFirst, class D>
__device__ __forceinline__ void block_reduce(const EngineTeam& team, D& delta,
                                             std::uint64_t& index) {
    if constexpr (kFirst) {
        const auto lowest = team.leader_reduce(cub::KeyValuePair<std::uint64_t, D>(index, delta),
                                               LowestIndex{});
        delta = lowest.value;
        index = lowest.key;
    } else {
        team.leader_argmin(delta, index);
    }
}

inline constexpr unsigned kScanThreads = Tuning::kScanThreads;
inline constexpr unsigned kScanItems = Tuning::kScanItems; ///< counts per thread and round

/// Saturating addition as a scan operator.
struct SaturatingAdd {
    __device__ __forceinline__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const {
        return add_saturated(a, b);
    }
};

/// improving_moves scan: one block per solution turns its unit counts into exclusive offsets
/// (saturating at 2^32 - 1, in place) and writes the total to totals[solution]. Each round, a
/// thread scans kItems consecutive counts, then the block scans the thread totals.
template <unsigned kThreads, unsigned kItems>
__global__ void __launch_bounds__(kThreads)
    scan_units_kernel(std::uint32_t* unit_counts, std::uint64_t units, std::uint32_t* totals) {
    __shared__ typename BlockTeam<kThreads>::Storage s_team;
    const BlockTeam<kThreads> team{&s_team};
    std::uint32_t* counts = unit_counts + static_cast<std::uint64_t>(blockIdx.x) * units;
    std::uint32_t carry = 0;
    for (std::uint64_t begin = 0; begin < units; begin += kThreads * kItems) {
        const std::uint64_t first = begin + static_cast<std::uint64_t>(threadIdx.x) * kItems;
        std::uint32_t values[kItems];
        std::uint32_t sum = 0;
        for (unsigned k = 0; k < kItems; ++k) {
            values[k] = first + k < units ? counts[first + k] : 0u;
            sum = add_saturated(sum, values[k]);
        }
        std::uint32_t round = 0;
        std::uint32_t offset =
            add_saturated(carry, team.exclusive_scan(sum, 0u, SaturatingAdd{}, round));
        for (unsigned k = 0; k < kItems; ++k) {
            if (first + k < units)
                counts[first + k] = offset;
            offset = add_saturated(offset, values[k]);
        }
        carry = add_saturated(carry, round);
    }
    if (threadIdx.x == 0)
        totals[blockIdx.x] = carry;
}

} // namespace locus::gpu::detail
