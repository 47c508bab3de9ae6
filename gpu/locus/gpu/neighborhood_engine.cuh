#pragma once
/// \file
/// Kernels and launchers of the neighborhood engine (nvcc only). Types, the workspace and the
/// CPU twin are in neighborhood_engine.hpp; both backends return identical results.
///
/// Thread mapping (all kernels, 256 threads per block):
///  - a unit of work is a row of the grid, or a segment of a row when the batch has too few
///    rows to fill the device (small batches of large grids); units are numbered row-major, so
///    unit order is index order;
///  - a block serves one solution; a solution is served by `blocks_per_solution` blocks, chosen
///    so that the whole launch is about one wave of resident blocks (and never more blocks than
///    there are units to share);
///  - a block is split into groups of G lanes (G = 32 for wide grids; 16, 8, ... down to 1 for
///    narrow ones, so that lanes are not idle); each group evaluates one unit at a time: it
///    computes the row context once, then its lanes sweep the unit's columns (lane k: columns
///    k, k+G, ...: coalesced accesses to per-column data);
///  - units are dealt round-robin: round t of block p of a solution covers units
///    (t * blocks_per_solution + p) * groups + [0, groups), which balances triangular grids;
///    each thread thus meets its cells in increasing index order.
/// Selection keeps a running best per thread in registers, reduces it over the block (the team
/// layer: CUB's block reduction with ArgMin), then across the blocks of a solution in the same
/// launch: each block writes a partial, and the last block to finish (atomic ticket after
/// __threadfence) reduces the partials and writes the result. Selection is by (delta, index)
/// only, so the result is deterministic and equal to the CPU twin's. Under Pivot::first a
/// thread stops at its first improving cell and publishes its index (block minimum in shared
/// memory, then an atomic minimum per solution in global memory); units that start beyond a
/// published index are skipped, which cannot change the lowest improving index.
///
/// Asynchrony: launchers enqueue work on `stream` and return without synchronizing. They may
/// allocate workspace memory (stream-ordered) the first time a batch or grid is larger than
/// before; call EngineWorkspace::reserve_for() to avoid that. Launch errors are returned as
/// cudaError_t; execution errors surface at the next synchronizing call.

#include <cuda_runtime.h>

#include <cstdint>

#include "locus/gpu/engine_primitives.cuh"
#include "locus/gpu/neighborhood_engine.hpp"

namespace locus::gpu {

namespace detail {

/// Pivot::best sweep of one row by a whole warp for an evaluator with lower bounds: a cell is
/// evaluated in full only when its bound is below the lane's best and not above the warp's
/// threshold: the least of the lanes' bests and of the solution's `threshold` word (order_key
/// of the least delta any warp of the launch has found). Every such value is a valid move's
/// delta, so a cell whose bound exceeds it cannot be selected; ties are evaluated, so the
/// lowest index still wins. The threshold is refreshed (and the warp's best published to the
/// word) at the start of each row and every 8 rounds; rounds are uniform over the warp (the
/// shuffles need every lane), so lanes past the end of the row idle through the last round.
/// Each round a lane takes two columns 32 apart, so that their bounds' loads are in flight
/// together; the columns are still met in increasing order.
template <class E>
__device__ __forceinline__ void sweep_bounded(const E& eval, const typename E::row_type& context,
                                              const ColumnRange range, std::uint64_t base,
                                              std::uint64_t* threshold,
                                              typename E::delta_type& best,
                                              std::uint64_t& best_index) {
    using D = typename E::delta_type;
    const WarpTeam warp;
    const std::uint32_t lane = warp.lane();
    D shared = best;
    std::uint32_t round = 0;
    for (std::uint32_t first = range.begin; first < range.end; first += 64, ++round) {
        if ((round & 3u) == 0) {
            shared = warp.min(best);
            const std::uint64_t seen = *static_cast<volatile std::uint64_t*>(threshold);
            const std::uint64_t mine = shared == invalid_delta<D>() ? kNoMove : order_key(shared);
            if (mine < seen) {
                if (lane == 0)
                    atomicMin(reinterpret_cast<unsigned long long*>(threshold),
                              static_cast<unsigned long long>(mine));
            } else if (seen != kNoMove) {
                shared = from_order_key<D>(seen);
            }
        }
        const std::uint32_t col0 = first + lane;
        const std::uint32_t col1 = col0 + 32;
        const D bound0 = col0 < range.end ? eval.bound(context, col0) : invalid_delta<D>();
        const D bound1 = col1 < range.end ? eval.bound(context, col1) : invalid_delta<D>();
        if (bound0 < best && !(bound0 > shared)) {
            const D delta = eval(context, col0);
            if (delta < best) {
                best = delta;
                best_index = base + col0;
            }
        }
        if (bound1 < best && !(bound1 > shared)) {
            const D delta = eval(context, col1);
            if (delta < best) {
                best = delta;
                best_index = base + col1;
            }
        }
    }
}

/// Sweep of one unit's columns by a whole warp for a linked evaluator: each round lane l
/// computes the links of columns first + 2l and first + 2l + 1 and the cells of both, taking
/// the link of first + 2l + 2 from its right neighbour by a shuffle, so each link is computed
/// once where the cell loop computes it twice; the last lane's second cell opens the next
/// round (63 cells a round). Rounds are uniform over the warp. Pivot::best keeps the lane's
/// running best; Pivot::first returns true (on every lane) once a round holds an improving
/// cell, `hit` true on the lanes that found one, each the lane's lowest improving cell of the
/// round (the lowest lane's is the warp's lowest index).
template <bool kFirst, class E>
__device__ __forceinline__ bool sweep_linked(const E& eval, const typename E::row_type& context,
                                             const ColumnRange range, std::uint64_t base,
                                             typename E::delta_type& best,
                                             std::uint64_t& best_index, bool& hit) {
    using D = typename E::delta_type;
    const std::uint32_t lane = threadIdx.x & 31u;
    // NOTE: the sweep is bound by instruction issue. Two cells a lane give two independent
    // distance computations and halve the per-round costs (shuffle, loop, convergence); lanes
    // past the range compute the last link and cell again and discard the cell, so the round
    // has no branch around the loads; the lane's best column stays in 32 bits until the end.
    const std::uint32_t last_cell = range.end - 1;
    constexpr std::uint32_t kNone = 0xffffffffu;
    D lane_best = kFirst ? D(0) : best;
    std::uint32_t lane_col = kNone;
    for (std::uint32_t first = range.begin; first < range.end; first += 63) {
        const std::uint32_t c0 = first + 2 * lane;
        const std::uint32_t c1 = c0 + 1;
        const typename E::link_type l0 = eval.link(context, min(c0, range.end));
        const typename E::link_type l1 = eval.link(context, min(c1, range.end));
        const typename E::link_type l2 = __shfl_down_sync(0xffffffffu, l0, 1);
        const D d0 = eval.linked(context, min(c0, last_cell), l0, l1);
        const D d1 = eval.linked(context, min(c1, last_cell), l1, l2);
        if (c0 < range.end && d0 < lane_best) {
            lane_best = d0;
            lane_col = c0;
        }
        // NOTE: with Pivot::first a lane keeps its first improving cell of the round.
        if (lane < 31 && c1 < range.end && d1 < lane_best && !(kFirst && lane_col != kNone)) {
            lane_best = d1;
            lane_col = c1;
        }
        if constexpr (kFirst) {
            if (warp_any(lane_col != kNone)) {
                hit = lane_col != kNone;
                if (hit) {
                    best = lane_best;
                    best_index = base + lane_col;
                }
                return true;
            }
        }
    }
    if (!kFirst && lane_col != kNone) {
        best = lane_best;
        best_index = base + lane_col;
    }
    return false;
}

/// Blocks per multiprocessor the selection kernel is compiled for: evaluators with lower bounds
/// spend their time in the bound sweep and rarely evaluate a cell in full, so their kernels
/// trade registers of the full evaluation (spilled if need be) for twice the resident warps.
template <class E> constexpr unsigned select_min_blocks() {
    return LowerBoundedEvaluator<E> ? 2u : 1u;
}

/// Selection kernel. Grid: batch * blocks_per_solution blocks of kEngineBlockThreads.
/// `partials` holds one entry per block; `tickets` and `found` one word per solution, which the
/// kernel leaves as it found them (0 and kNoMove).
template <class E, bool kFirst>
__global__ void __launch_bounds__(kEngineBlockThreads, select_min_blocks<E>())
    select_kernel(const E eval, const SweepPlan plan, MoveResult<typename E::delta_type>* out,
                  MoveResult<typename E::delta_type>* partials, std::uint32_t* tickets,
                  std::uint64_t* found) {
    using D = typename E::delta_type;
    __shared__ EngineTeam::Storage s_team;
    __shared__ bool s_last;
    __shared__ std::uint64_t s_found; // lowest improving index seen by this block (Pivot::first)

    const std::uint32_t solution = blockIdx.x / plan.blocks_per_solution;
    const std::uint32_t part = blockIdx.x - solution * plan.blocks_per_solution;
    const std::uint32_t width = 1u << plan.group_shift;
    const std::uint32_t lane = threadIdx.x & (width - 1);
    const std::uint64_t unit_step =
        static_cast<std::uint64_t>(plan.groups) * plan.blocks_per_solution;
    volatile std::uint64_t* published = found + solution;

    if constexpr (kFirst) {
        if (threadIdx.x == 0)
            s_found = kNoMove;
        __syncthreads();
    }

    D best = invalid_delta<D>();
    std::uint64_t best_index = kNoMove;
    for (std::uint64_t unit = plan.unit_begin + static_cast<std::uint64_t>(part) * plan.groups +
                              (threadIdx.x >> plan.group_shift);
         unit < plan.units; unit += unit_step) {
        const auto [row, col_begin, col_end] = decode_unit(plan, unit);
        const std::uint64_t base = row * plan.cols;
        // Linked evaluators sweep whole-warp groups with shuffles: the warp's control flow
        // stays uniform (the unit is the warp's).
        constexpr bool kLinked = LinkedEvaluator<E> && !LowerBoundedEvaluator<E>;
        const bool linked = kLinked && width == 32;
        if constexpr (kFirst) {
            // NOTE: every cell of this unit and of later units has a larger index than a
            // published improving move, so none of them can be the first improving move.
            const std::uint64_t known =
                min(*published, *static_cast<volatile std::uint64_t*>(&s_found));
            const bool beyond = known < base + col_begin;
            if (linked ? warp_any(beyond) : beyond)
                break;
        }
        const auto context = eval.row(solution, static_cast<std::uint32_t>(row));
        const ColumnRange range = columns_to_scan(eval, context, col_begin, col_end);
        bool hit = false;
        if (linked) {
            if constexpr (kLinked) {
                if (!sweep_linked<kFirst>(eval, context, range, base, best, best_index, hit))
                    continue;
                if (!hit)
                    break; // another lane of the warp holds its improving cell
            }
        } else {
            if constexpr (!kFirst && LowerBoundedEvaluator<E>) {
                if (width == 32) {
                    sweep_bounded(eval, context, range, base, found + solution, best, best_index);
                    continue;
                }
            }
            for (std::uint32_t col = range.begin + lane; col < range.end; col += width) {
                if (!may_beat(eval, context, col, kFirst ? D(0) : best))
                    continue;
                const D delta = eval(context, col);
                if constexpr (kFirst) {
                    if (delta < D(0)) {
                        best = delta;
                        best_index = base + col;
                        hit = true;
                        break;
                    }
                } else if (delta < best) {
                    best = delta;
                    best_index = base + col;
                }
            }
        }
        if constexpr (kFirst) {
            if (hit) {
                // NOTE: hits meet in shared memory first; only a hit that lowers the block's
                // minimum goes to the global word, which keeps same-address global atomics
                // few when improving moves are plentiful.
                const auto index = static_cast<unsigned long long>(best_index);
                const unsigned long long block_min =
                    atomicMin(reinterpret_cast<unsigned long long*>(&s_found), index);
                if (index < block_min && best_index < *published)
                    atomicMin(reinterpret_cast<unsigned long long*>(found + solution), index);
                break;
            }
        }
    }

    const EngineTeam team{&s_team};
    block_reduce<kFirst>(team, best, best_index);
    if (plan.blocks_per_solution == 1) {
        if (threadIdx.x == 0) {
            store_move(out + solution, best, best_index);
            found[solution] = kNoMove;
        }
        return;
    }

    if (threadIdx.x == 0) {
        store_move(partials + blockIdx.x, best, best_index);
        __threadfence();
        const std::uint32_t ticket = atomicAdd(tickets + solution, 1u);
        s_last = ticket == plan.blocks_per_solution - 1;
    }
    __syncthreads();
    if (!s_last)
        return;
    __threadfence();

    best = invalid_delta<D>();
    best_index = kNoMove;
    const MoveResult<D>* mine =
        partials + static_cast<std::uint64_t>(solution) * plan.blocks_per_solution;
    for (std::uint32_t p = threadIdx.x; p < plan.blocks_per_solution; p += kEngineBlockThreads) {
        const D other_delta = *static_cast<const volatile D*>(&mine[p].delta);
        const std::uint64_t other_index =
            *static_cast<const volatile std::uint64_t*>(&mine[p].index);
        const bool take = kFirst ? other_index < best_index
                                 : precedes_best(other_delta, other_index, best, best_index);
        if (take) {
            best = other_delta;
            best_index = other_index;
        }
    }
    block_reduce<kFirst>(team, best, best_index);
    if (threadIdx.x == 0) {
        store_move(out + solution, best, best_index);
        tickets[solution] = 0;
        found[solution] = kNoMove;
    }
}

/// improving_moves pass 1: unit_counts[solution * units + unit] = improving cells of the unit.
/// With a halt flag (null: none), thread 0 reads it before every 16th round and the block ends
/// early once it is raised (the exploration is then dropped by its caller).
template <class E>
__global__ void __launch_bounds__(kEngineBlockThreads)
    count_improving_kernel(const E eval, const SweepPlan plan, std::uint32_t* unit_counts,
                           const volatile std::uint8_t* halt) {
    using D = typename E::delta_type;
    const std::uint32_t solution = blockIdx.x / plan.blocks_per_solution;
    const std::uint32_t part = blockIdx.x - solution * plan.blocks_per_solution;
    const std::uint32_t width = 1u << plan.group_shift;
    const std::uint32_t lane = threadIdx.x & (width - 1);
    const std::uint64_t unit_step =
        static_cast<std::uint64_t>(plan.groups) * plan.blocks_per_solution;
    std::uint32_t* counts = unit_counts + static_cast<std::uint64_t>(solution) * plan.units;

    // NOTE: the round loop is uniform over the block (unit0 is), so every lane reaches the
    // shuffles with the full mask.
    __shared__ bool halted;
    std::uint32_t round = 0;
    for (std::uint64_t unit0 = static_cast<std::uint64_t>(part) * plan.groups; unit0 < plan.units;
         unit0 += unit_step, ++round) {
        // The flag lives in host memory: read every 16 rounds of the block.
        if (halt != nullptr && round % 16 == 0) {
            // NOTE: the second barrier keeps thread 0's next write from racing this round's
            // reads: every thread takes the same decision.
            if (threadIdx.x == 0) halted = *halt != 0;
            __syncthreads();
            const bool stop = halted;
            __syncthreads();
            if (stop) return;
        }
        const std::uint64_t unit = unit0 + (threadIdx.x >> plan.group_shift);
        std::uint32_t count = 0;
        if (unit < plan.units) {
            const auto [row, col_begin, col_end] = decode_unit(plan, unit);
            const auto context = eval.row(solution, static_cast<std::uint32_t>(row));
            const ColumnRange range = columns_to_scan(eval, context, col_begin, col_end);
            for (std::uint32_t col = range.begin + lane; col < range.end; col += width)
                count += may_beat(eval, context, col, D(0)) && eval(context, col) < D(0) ? 1u : 0u;
        }
        count = segment_sum(count, width);
        if (lane == 0 && unit < plan.units)
            counts[unit] = count;
    }
}

/// improving_moves pass 2: units whose offset is below `capacity` write their improving moves
/// at out[solution * capacity + offset + rank], rank in column order, up to `capacity`.
template <class E>
__global__ void __launch_bounds__(kEngineBlockThreads)
    write_improving_kernel(const E eval, const SweepPlan plan, const std::uint32_t* unit_offsets,
                           const std::uint32_t* totals, std::uint32_t capacity,
                           MoveResult<typename E::delta_type>* out,
                           const volatile std::uint8_t* halt) {
    using D = typename E::delta_type;
    // A halted count pass left counts that are not the grid's: nothing is written. One read per
    // block, so that the whole block (its warps' ballots) agrees.
    if (halt != nullptr) {
        __shared__ bool halted;
        if (threadIdx.x == 0) halted = *halt != 0;
        __syncthreads();
        if (halted) return;
    }
    const std::uint32_t solution = blockIdx.x / plan.blocks_per_solution;
    const std::uint32_t part = blockIdx.x - solution * plan.blocks_per_solution;
    const std::uint32_t width = 1u << plan.group_shift;
    const std::uint32_t lane = threadIdx.x & (width - 1);
    const std::uint64_t unit_step =
        static_cast<std::uint64_t>(plan.groups) * plan.blocks_per_solution;
    const std::uint32_t* offsets = unit_offsets + static_cast<std::uint64_t>(solution) * plan.units;
    const std::uint32_t total = totals[solution];
    MoveResult<D>* slots = out + static_cast<std::uint64_t>(solution) * capacity;

    for (std::uint64_t unit0 = static_cast<std::uint64_t>(part) * plan.groups; unit0 < plan.units;
         unit0 += unit_step) {
        const std::uint64_t unit = unit0 + (threadIdx.x >> plan.group_shift);
        const bool in_grid = unit < plan.units;
        const std::uint32_t start = in_grid ? offsets[unit] : capacity;
        const std::uint32_t end = !in_grid                ? start
                                  : unit + 1 < plan.units ? offsets[unit + 1]
                                                          : total;
        // NOTE: offsets never decrease with the unit, so once every unit of this warp starts at
        // or beyond capacity, so do all the units of its later rounds.
        if (warp_all(start >= capacity))
            break;
        const bool active = start < capacity && end > start;
        if (!warp_any(active))
            continue;

        const auto [row, col_begin, col_end] = decode_unit(plan, in_grid ? unit : plan.units - 1);
        const auto context = eval.row(solution, static_cast<std::uint32_t>(row));
        const std::uint64_t base = row * plan.cols;
        const std::uint64_t limit = end < capacity ? end : capacity;
        std::uint64_t position = start;
        // NOTE: the sweep count is the same for every group of the warp (ballots need all lanes).
        for (std::uint32_t step = 0; step < plan.segment_cols; step += width) {
            const std::uint64_t col = static_cast<std::uint64_t>(col_begin) + step + lane;
            D delta = D(0);
            bool improving = false;
            if (active && col < col_end) {
                delta = eval(context, static_cast<std::uint32_t>(col));
                improving = delta < D(0);
            }
            std::uint32_t hits = 0;
            const std::uint64_t slot = position + segment_rank(improving, width, hits);
            if (improving && slot < limit)
                store_move(slots + slot, delta, base + col);
            position += hits;
            if (warp_all(!active || position >= limit))
                break;
        }
    }
}

} // namespace detail

/// Selects one move per solution on the device: d_out[s] for s < batch, with the semantics of
/// select_moves_cpu (identical results). Asynchronous on `stream`; never synchronizes; may grow
/// `ws` (stream-ordered allocation). Preconditions: `d_out` is device memory of `batch`
/// elements; the evaluator's pointers are device pointers; batch * blocks per solution < 2^31.
/// With `slices` > 1 only slice `slice` of every solution's units (rows, or row segments, in
/// index order) is searched: the caller combines the slices in order (the least delta, ties
/// the lowest index; or the first slice with an improving move), which gives the whole
/// selection, and may stop between them (one launch of a full 3-opt of 7,000 customers takes
/// tens of seconds).
template <class E>
cudaError_t select_moves(const E& eval, std::uint32_t batch, Pivot pivot,
                         MoveResult<typename E::delta_type>* d_out, EngineWorkspace& ws,
                         cudaStream_t stream, std::uint64_t slice = 0, std::uint64_t slices = 1) {
    static_assert(MoveEvaluator<E>, "E does not model locus::gpu::MoveEvaluator");
    using D = typename E::delta_type;
    if (batch == 0)
        return cudaSuccess;
    int multiprocessors = 0;
    cudaError_t status = ws.attach(multiprocessors);
    if (status != cudaSuccess)
        return status;

    const bool first = pivot == Pivot::first;
    auto kernel = first ? detail::select_kernel<E, true> : detail::select_kernel<E, false>;
    // NOTE: occupancy depends only on the kernel; query it once per instantiation.
    static const int per_sm_best = detail::resident_blocks_per_sm(detail::select_kernel<E, false>);
    static const int per_sm_first = detail::resident_blocks_per_sm(detail::select_kernel<E, true>);
    const std::uint64_t resident =
        static_cast<std::uint64_t>(multiprocessors) * (first ? per_sm_first : per_sm_best);
    detail::SweepPlan plan = detail::make_plan(eval.grid(), batch, resident);
    if (slices > 1) {
        const std::uint64_t units = plan.units;
        plan.unit_begin = units * slice / slices;
        plan.units = units * (slice + 1) / slices;
    }
    const std::uint64_t blocks = static_cast<std::uint64_t>(batch) * plan.blocks_per_solution;
    if (blocks > 0x7FFFFFFFull)
        return cudaErrorInvalidValue;

    status = ws.prepare(batch, static_cast<std::size_t>(blocks) * sizeof(MoveResult<D>), stream);
    if (status != cudaSuccess)
        return status;
    kernel<<<static_cast<unsigned>(blocks), detail::kEngineBlockThreads, 0, stream>>>(
        eval, plan, d_out, static_cast<MoveResult<D>*>(ws.scratch()), ws.tickets(), ws.found());
    return cudaGetLastError();
}

/// Collects the improving moves of each solution on the device, with the semantics of
/// improving_moves_cpu (identical results): d_counts[s] = number of improving moves
/// (saturating), d_out[s * capacity + k] for k < min(d_counts[s], capacity) = those of the
/// lowest indices, sorted by index. Three kernels: count per unit (row or row segment), scan of
/// the counts into offsets, and a write pass over the units whose offset is below capacity; so
/// the grid is evaluated once in full, plus the units that hold the written moves.
/// Asynchronous on `stream`; never synchronizes; may grow `ws` (4 bytes per unit). Preconditions:
/// device pointers of batch * capacity and batch elements. `halt` (device-readable, e.g. a
/// MappedFlag; null: none) ends the count pass early once raised: the results are then
/// meaningless and the caller drops them.
template <class E>
cudaError_t improving_moves(const E& eval, std::uint32_t batch, std::uint32_t capacity,
                            MoveResult<typename E::delta_type>* d_out, std::uint32_t* d_counts,
                            EngineWorkspace& ws, cudaStream_t stream,
                            const volatile std::uint8_t* halt = nullptr) {
    static_assert(MoveEvaluator<E>, "E does not model locus::gpu::MoveEvaluator");
    if (batch == 0)
        return cudaSuccess;
    const MoveGrid grid = eval.grid();
    if (grid.rows == 0 || grid.cols == 0)
        return cudaMemsetAsync(d_counts, 0, static_cast<std::size_t>(batch) * 4, stream);
    int multiprocessors = 0;
    cudaError_t status = ws.attach(multiprocessors);
    if (status != cudaSuccess)
        return status;

    static const int per_sm_count =
        detail::resident_blocks_per_sm(detail::count_improving_kernel<E>);
    const detail::SweepPlan plan =
        detail::make_plan(grid, batch, static_cast<std::uint64_t>(multiprocessors) * per_sm_count);
    const std::uint64_t blocks = static_cast<std::uint64_t>(batch) * plan.blocks_per_solution;
    if (blocks > 0x7FFFFFFFull)
        return cudaErrorInvalidValue;

    status = ws.prepare(batch, static_cast<std::size_t>(batch) * plan.units * 4, stream);
    if (status != cudaSuccess)
        return status;
    auto* unit_counts = static_cast<std::uint32_t*>(ws.scratch());
    detail::count_improving_kernel<E>
        <<<static_cast<unsigned>(blocks), detail::kEngineBlockThreads, 0, stream>>>(
            eval, plan, unit_counts, halt);
    status = cudaGetLastError();
    if (status != cudaSuccess)
        return status;
    detail::scan_units_kernel<detail::kScanThreads, detail::kScanItems>
        <<<batch, detail::kScanThreads, 0, stream>>>(unit_counts, plan.units, d_counts);
    status = cudaGetLastError();
    if (status != cudaSuccess || capacity == 0)
        return status;
    detail::write_improving_kernel<E>
        <<<static_cast<unsigned>(blocks), detail::kEngineBlockThreads, 0, stream>>>(
            eval, plan, unit_counts, d_counts, capacity, d_out, halt);
    return cudaGetLastError();
}

} // namespace locus::gpu
