#pragma once
/// \file
/// Device forms of the team concept (team.hpp), built on CUB: WarpTeam (one warp serves one
/// unit of work; several per block) and BlockTeam (the whole block). Collectives use
/// cub::WarpReduce / cub::WarpScan within warps and cub::BlockReduce / cub::BlockScan across a
/// block of compile-time size; argmin reduces cub::KeyValuePair<index, value> with cub::ArgMin
/// (smallest value, ties to the lowest index). Also the sub-warp helpers of the neighborhood
/// engine (segment sums and ballot ranks over groups of 1..32 lanes) and warp votes. This file
/// is the only place of the device toolkit that writes warp shuffles, votes or block reductions.

#include <cuda_runtime.h>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/thread/thread_operators.cuh>
#include <cub/util_ptx.cuh>
#include <cub/util_type.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>

#include <cstddef>
#include <cstdint>

#include "locus/gpu/team.hpp"

namespace locus::gpu {

namespace team_detail {

inline constexpr unsigned kFullMask = 0xFFFFFFFFu;

struct MinOp {
    template <class T>
    __device__ __forceinline__ T operator()(const T& a, const T& b) const {
        return b < a ? b : a;
    }
};

struct SumOp {
    template <class T>
    __device__ __forceinline__ T operator()(const T& a, const T& b) const {
        return a + b;
    }
};

/// The op of a (value, index) argmin as CUB sees it: KeyValuePair<index, value>.
template <class V, class I>
using ArgMinPair = cub::KeyValuePair<I, V>;

/// Applies `op` to every thread's value of a warp; the result is broadcast to every lane.
template <class T, class Op>
__device__ __forceinline__ T warp_all_reduce(T value, Op op) {
    using Reduce = cub::WarpReduce<T>;
    // NOTE: for 32 lanes CUB reduces with shuffles only; its TempStorage is an empty type that
    // is never read (checked below), so a register-resident instance serves.
    static_assert(sizeof(typename Reduce::TempStorage) <= 1, "shuffle-only warp reduction");
    typename Reduce::TempStorage temp;
    const T lane0 = Reduce(temp).Reduce(value, op);
    return cub::ShuffleIndex<32>(lane0, 0, kFullMask);
}

/// The warp's reduction under `op`, valid in lane 0 only.
template <class T, class Op>
__device__ __forceinline__ T warp_leader_reduce(T value, Op op) {
    using Reduce = cub::WarpReduce<T>;
    static_assert(sizeof(typename Reduce::TempStorage) <= 1, "shuffle-only warp reduction");
    typename Reduce::TempStorage temp;
    return Reduce(temp).Reduce(value, op);
}

} // namespace team_detail

/// One warp as a team (several warps of a block may each be a team). rank() is the lane;
/// collectives are shuffles, so teams need no shared storage and may leave early as whole warps.
struct WarpTeam {
    __device__ __forceinline__ std::uint32_t rank() const { return threadIdx.x % 32; }
    __device__ __forceinline__ static constexpr std::uint32_t size() { return 32; }
    __device__ __forceinline__ std::uint32_t lane() const { return threadIdx.x % 32; }
    __device__ __forceinline__ static constexpr std::uint32_t lanes() { return 32; }
    __device__ __forceinline__ static constexpr std::uint32_t group() { return 0; }
    __device__ __forceinline__ static constexpr std::uint32_t groups() { return 1; }
    __device__ __forceinline__ static void sync() { __syncwarp(); }

    template <class V, class I>
    __device__ __forceinline__ void argmin(V& value, I& index) const {
        using Pair = team_detail::ArgMinPair<V, I>;
        const Pair best = team_detail::warp_all_reduce(Pair(index, value), cub::ArgMin{});
        value = best.value;
        index = best.key;
    }
    template <class T>
    __device__ __forceinline__ T min(T value) const {
        return team_detail::warp_all_reduce(value, team_detail::MinOp{});
    }
    template <class T>
    __device__ __forceinline__ T sum(T value) const {
        return team_detail::warp_all_reduce(value, team_detail::SumOp{});
    }
    template <class T, class Op>
    __device__ __forceinline__ T reduce(T value, Op op) const {
        return team_detail::warp_all_reduce(value, op);
    }
    template <class T>
    __device__ __forceinline__ T inclusive_sum(T value, T& total) const {
        using Scan = cub::WarpScan<T>;
        static_assert(sizeof(typename Scan::TempStorage) <= 1, "shuffle-only warp scan");
        typename Scan::TempStorage temp;
        T inclusive{};
        Scan(temp).InclusiveSum(value, inclusive, total);
        return inclusive;
    }
    template <class T>
    __device__ __forceinline__ T exclusive_sum(T value, T& total) const {
        return inclusive_sum(value, total) - value;
    }
    template <class T>
    __device__ __forceinline__ T group_inclusive_sum(T value, T& total) const {
        return inclusive_sum(value, total);
    }
};

/// Shared memory of a BlockTeam<kThreads> whose collectives move values of at most kValueBytes
/// bytes (declare one `__shared__` per block).
template <unsigned kThreads, std::size_t kValueBytes = 16>
struct BlockTeamStorage {
    static constexpr unsigned kWarps = kThreads == 0 ? 32 : (kThreads + 31) / 32;
    static constexpr std::size_t kBytes = (kWarps + 8) * ((kValueBytes + 15) / 16 * 16);
    alignas(16) unsigned char bytes[kBytes];
};

/// The thread block as a team. kThreads > 0: the block has exactly kThreads threads (cub's
/// BlockReduce and BlockScan); kThreads == 0: any multiple of 32 up to 1024 threads (warp
/// collectives of CUB, then the warps' results combined in warp order). Groups are warps.
template <unsigned kThreads, std::size_t kValueBytes = 16>
struct BlockTeam {
    using Storage = BlockTeamStorage<kThreads, kValueBytes>;
    static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps, at most 1024 threads");
    Storage* storage; ///< shared memory of the block

    __device__ __forceinline__ std::uint32_t rank() const { return threadIdx.x; }
    __device__ __forceinline__ std::uint32_t size() const {
        if constexpr (kThreads > 0)
            return kThreads;
        else
            return blockDim.x;
    }
    __device__ __forceinline__ std::uint32_t lane() const { return threadIdx.x % 32; }
    __device__ __forceinline__ static constexpr std::uint32_t lanes() { return 32; }
    __device__ __forceinline__ std::uint32_t group() const { return threadIdx.x / 32; }
    __device__ __forceinline__ std::uint32_t groups() const { return size() / 32; }
    __device__ __forceinline__ static void sync() { __syncthreads(); }

    /// reduce(), but the result is only valid in rank 0 (one barrier fewer); the storage may be
    /// reused after the next sync().
    template <class T, class Op>
    __device__ __forceinline__ T leader_reduce(T value, Op op) const {
        if constexpr (kThreads > 0) {
            using Reduce = cub::BlockReduce<T, kThreads, cub::BLOCK_REDUCE_WARP_REDUCTIONS>;
            return Reduce(temp<typename Reduce::TempStorage>()).Reduce(value, op);
        } else {
            const T* partial = warp_partials(value, op);
            return threadIdx.x == 0 ? fold_partials(partial, op) : partial[0];
        }
    }

    template <class T, class Op>
    __device__ __forceinline__ T reduce(T value, Op op) const {
        if constexpr (kThreads > 0) {
            return broadcast(leader_reduce(value, op));
        } else {
            const T total = fold_partials(warp_partials(value, op), op);
            __syncthreads();
            return total;
        }
    }

    /// argmin with the result only in rank 0 (see leader_reduce).
    template <class V, class I>
    __device__ __forceinline__ void leader_argmin(V& value, I& index) const {
        using Pair = team_detail::ArgMinPair<V, I>;
        const Pair best = leader_reduce(Pair(index, value), cub::ArgMin{});
        value = best.value;
        index = best.key;
    }
    template <class V, class I>
    __device__ __forceinline__ void argmin(V& value, I& index) const {
        using Pair = team_detail::ArgMinPair<V, I>;
        const Pair best = reduce(Pair(index, value), cub::ArgMin{});
        value = best.value;
        index = best.key;
    }
    template <class T>
    __device__ __forceinline__ T min(T value) const {
        return reduce(value, team_detail::MinOp{});
    }
    template <class T>
    __device__ __forceinline__ T sum(T value) const {
        return reduce(value, team_detail::SumOp{});
    }

    /// Exclusive prefix under `op` (associative) starting from `identity`; total = the fold of
    /// every thread's value.
    template <class T, class Op>
    __device__ __forceinline__ T exclusive_scan(T value, T identity, Op op, T& total) const {
        if constexpr (kThreads > 0) {
            using Scan = cub::BlockScan<T, kThreads, cub::BLOCK_SCAN_WARP_SCANS>;
            T out{};
            Scan(temp<typename Scan::TempStorage>()).ExclusiveScan(value, out, identity, op, total);
            __syncthreads();
            return out;
        } else {
            using Scan = cub::WarpScan<T>;
            static_assert(sizeof(typename Scan::TempStorage) <= 1, "shuffle-only warp scan");
            typename Scan::TempStorage scratch;
            T inclusive{};
            T warp_total{};
            Scan(scratch).InclusiveScan(value, inclusive, op, warp_total);
            T exclusive = cub::ShuffleUp<32>(inclusive, 1, 0, team_detail::kFullMask);
            if (lane() == 0)
                exclusive = identity;
            T* partial = slots<T>();
            if (lane() == 0)
                partial[group()] = warp_total;
            __syncthreads();
            T before = identity;
            T sum = identity;
            for (std::uint32_t w = 0; w < groups(); ++w) {
                if (w < group())
                    before = op(before, partial[w]);
                sum = op(sum, partial[w]);
            }
            __syncthreads();
            total = sum;
            return lane() == 0 ? before : op(before, exclusive);
        }
    }
    template <class T>
    __device__ __forceinline__ T exclusive_sum(T value, T& total) const {
        if constexpr (kThreads > 0) {
            return exclusive_scan(value, T(0), team_detail::SumOp{}, total);
        } else {
            using Scan = cub::WarpScan<T>;
            static_assert(sizeof(typename Scan::TempStorage) <= 1, "shuffle-only warp scan");
            typename Scan::TempStorage scratch;
            T inclusive{};
            Scan(scratch).InclusiveSum(value, inclusive);
            T* partial = slots<T>();
            if (lane() == 31)
                partial[group()] = inclusive;
            __syncthreads();
            T before = 0;
            T sum = 0;
            for (std::uint32_t w = 0; w < groups(); ++w) {
                before += w < group() ? partial[w] : T(0);
                sum += partial[w];
            }
            __syncthreads();
            total = sum;
            return before + inclusive - value;
        }
    }
    template <class T>
    __device__ __forceinline__ T inclusive_sum(T value, T& total) const {
        return exclusive_sum(value, total) + value;
    }
    template <class T>
    __device__ __forceinline__ T group_inclusive_sum(T value, T& total) const {
        return WarpTeam{}.inclusive_sum(value, total);
    }

private:
    /// Run-time block size: every warp's reduction into the storage, then a barrier.
    template <class T, class Op>
    __device__ __forceinline__ const T* warp_partials(T value, Op op) const {
        T* partial = slots<T>();
        const T warp = team_detail::warp_leader_reduce(value, op);
        if (lane() == 0)
            partial[group()] = warp;
        __syncthreads();
        return partial;
    }
    /// The warps' results combined in warp order.
    template <class T, class Op>
    __device__ __forceinline__ T fold_partials(const T* partial, Op op) const {
        T total = partial[0];
        for (std::uint32_t w = 1; w < groups(); ++w)
            total = op(total, partial[w]);
        return total;
    }
    template <class Temp>
    __device__ __forceinline__ Temp& temp() const {
        static_assert(sizeof(Temp) <= sizeof(Storage::bytes), "BlockTeamStorage too small");
        static_assert(alignof(Temp) <= 16, "BlockTeamStorage alignment");
        return *reinterpret_cast<Temp*>(storage->bytes);
    }
    template <class T>
    __device__ __forceinline__ T* slots() const {
        static_assert(sizeof(T) <= kValueBytes && alignof(T) <= 16, "BlockTeam kValueBytes");
        return reinterpret_cast<T*>(storage->bytes);
    }
    /// Rank 0's value to every thread (rank 0 writes after its last read of the storage).
    template <class T>
    __device__ __forceinline__ T broadcast(const T& value) const {
        T* slot = slots<T>();
        if (threadIdx.x == 0)
            *slot = value;
        __syncthreads();
        const T result = *slot;
        __syncthreads();
        return result;
    }
};

/// Warp votes (every lane of the warp calls them).
__device__ __forceinline__ bool warp_all(bool predicate) {
    return __all_sync(team_detail::kFullMask, predicate);
}
__device__ __forceinline__ bool warp_any(bool predicate) {
    return __any_sync(team_detail::kFullMask, predicate);
}

/// Sum of `value` over each aligned group of `width` lanes (a power of two, 1..32); the result
/// is valid in the group's first lane. Every lane of the warp calls it with the same width.
template <class T>
__device__ __forceinline__ T segment_sum(T value, std::uint32_t width) {
    const auto sum = [&](auto lanes) {
        using Reduce = cub::WarpReduce<T, decltype(lanes)::value>;
        static_assert(sizeof(typename Reduce::TempStorage) <= 1, "shuffle-only warp reduction");
        typename Reduce::TempStorage temp;
        return Reduce(temp).Sum(value);
    };
    switch (width) {
    case 32: return sum(std::integral_constant<int, 32>{});
    case 16: return sum(std::integral_constant<int, 16>{});
    case 8: return sum(std::integral_constant<int, 8>{});
    case 4: return sum(std::integral_constant<int, 4>{});
    case 2: return sum(std::integral_constant<int, 2>{});
    default: return value;
    }
}

/// Ballot compaction within aligned groups of `width` lanes (power of two, 1..32): `count` =
/// lanes of the caller's group with `flag`; returns how many of them precede the caller. Every
/// lane of the warp calls it.
__device__ __forceinline__ std::uint32_t segment_rank(bool flag, std::uint32_t width,
                                                      std::uint32_t& count) {
    const std::uint32_t lane = threadIdx.x % 32;
    const std::uint32_t group_base = lane & ~(width - 1);
    const std::uint32_t group_bits = width == 32 ? team_detail::kFullMask : ((1u << width) - 1u);
    const std::uint32_t mask =
        (__ballot_sync(team_detail::kFullMask, flag) >> group_base) & group_bits;
    count = static_cast<std::uint32_t>(__popc(mask));
    return static_cast<std::uint32_t>(__popc(mask & ((1u << (lane - group_base)) - 1u)));
}

} // namespace locus::gpu
