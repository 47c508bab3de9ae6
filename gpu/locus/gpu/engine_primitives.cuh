#pragma once
/// \file
/// Device building blocks of the neighborhood engine (nvcc only): launch geometry of a sweep
/// over a batch of move grids, warp and block reductions of (delta, index) pairs, and the
/// saturating scan of per-unit counts. See neighborhood_engine.cuh for the thread mapping.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "locus/gpu/neighborhood_engine.hpp"

namespace locus::gpu::detail {

inline constexpr unsigned kFullMask = 0xFFFFFFFFu;
inline constexpr unsigned kEngineWarps = kEngineBlockThreads / 32;

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
    std::uint64_t units;               ///< units per solution = rows * segments
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

/// Shuffle of a delta across the lanes of a warp (sub-word integers travel as int).
template <class D>
__device__ __forceinline__ D shuffle_xor(D value, int lane_mask) {
    if constexpr (std::is_floating_point_v<D>) {
        return __shfl_xor_sync(kFullMask, value, lane_mask);
    } else if constexpr (sizeof(D) <= 4) {
        return static_cast<D>(__shfl_xor_sync(kFullMask, static_cast<int>(value), lane_mask));
    } else {
        return static_cast<D>(__shfl_xor_sync(kFullMask, static_cast<long long>(value), lane_mask));
    }
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

/// Keeps in (delta, index) the preferred of itself and (other_delta, other_index): lowest index
/// for Pivot::first, (delta, index) order for Pivot::best.
template <bool kFirst, class D>
__device__ __forceinline__ void keep_preferred(D& delta, std::uint64_t& index, D other_delta,
                                               std::uint64_t other_index) {
    const bool take =
        kFirst ? other_index < index : precedes_best(other_delta, other_index, delta, index);
    if (take) {
        delta = other_delta;
        index = other_index;
    }
}

/// Reduces (delta, index) over the block; the result is valid in thread 0. Every thread of the
/// block must call it. It starts and ends with no pending shared-memory reads, so it can be
/// called again after a __syncthreads().
template <bool kFirst, class D>
__device__ __forceinline__ void block_reduce(D& delta, std::uint64_t& index, D* s_delta,
                                             std::uint64_t* s_index) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        const D other_delta = shuffle_xor(delta, offset);
        const std::uint64_t other_index = __shfl_xor_sync(kFullMask, index, offset);
        keep_preferred<kFirst>(delta, index, other_delta, other_index);
    }
    const unsigned warp = threadIdx.x / 32;
    const unsigned lane = threadIdx.x % 32;
    if (lane == 0) {
        s_delta[warp] = delta;
        s_index[warp] = index;
    }
    __syncthreads();
    if (warp == 0) {
        delta = lane < kEngineWarps ? s_delta[lane] : invalid_delta<D>();
        index = lane < kEngineWarps ? s_index[lane] : kNoMove;
        for (int offset = kEngineWarps / 2; offset > 0; offset >>= 1) {
            const D other_delta = shuffle_xor(delta, offset);
            const std::uint64_t other_index = __shfl_xor_sync(kFullMask, index, offset);
            keep_preferred<kFirst>(delta, index, other_delta, other_index);
        }
    }
}

inline constexpr unsigned kScanThreads = 1024;
inline constexpr unsigned kScanItems = 4; ///< consecutive counts per thread and round

/// Inclusive saturating prefix sum over the lanes of a warp.
__device__ __forceinline__ std::uint32_t warp_inclusive_scan(std::uint32_t value, unsigned lane) {
    for (unsigned offset = 1; offset < 32; offset <<= 1) {
        const std::uint32_t other = __shfl_up_sync(kFullMask, value, offset);
        if (lane >= offset)
            value = add_saturated(value, other);
    }
    return value;
}

/// improving_moves scan: one block per solution turns its unit counts into exclusive offsets
/// (saturating at 2^32 - 1, in place) and writes the total to totals[solution]. Each round, a
/// thread scans kItems consecutive counts, then the block scans the thread totals.
template <unsigned kThreads, unsigned kItems>
__global__ void __launch_bounds__(kThreads)
    scan_units_kernel(std::uint32_t* unit_counts, std::uint64_t units, std::uint32_t* totals) {
    static_assert(kThreads % 32 == 0 && kThreads <= 1024);
    constexpr unsigned kWarps = kThreads / 32;
    __shared__ std::uint32_t s_warp[kWarps];
    const unsigned warp = threadIdx.x / 32;
    const unsigned lane = threadIdx.x % 32;
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
        const std::uint32_t inclusive = warp_inclusive_scan(sum, lane);
        const std::uint32_t before = __shfl_up_sync(kFullMask, inclusive, 1);
        if (lane == 31)
            s_warp[warp] = inclusive;
        __syncthreads();
        if (warp == 0) {
            const std::uint32_t total =
                warp_inclusive_scan(lane < kWarps ? s_warp[lane] : 0u, lane);
            __syncwarp();
            if (lane < kWarps)
                s_warp[lane] = total;
        }
        __syncthreads();
        const std::uint32_t warp_prefix = warp == 0 ? 0u : s_warp[warp - 1];
        std::uint32_t offset =
            add_saturated(carry, add_saturated(warp_prefix, lane == 0 ? 0u : before));
        for (unsigned k = 0; k < kItems; ++k) {
            if (first + k < units)
                counts[first + k] = offset;
            offset = add_saturated(offset, values[k]);
        }
        carry = add_saturated(carry, s_warp[kWarps - 1]);
        __syncthreads();
    }
    if (threadIdx.x == 0)
        totals[blockIdx.x] = carry;
}

} // namespace locus::gpu::detail
