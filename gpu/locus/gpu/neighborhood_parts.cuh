#pragma once
/// \file
/// Filtered neighborhoods in parts on the device (nvcc only); types and the CPU twin are in
/// neighborhood_parts.hpp, and both give identical results.
///
/// Per part p (cells [p P, p P + P) of every solution's grid, P = part_cells):
///  1. compaction, on the workspace's own stream: cub::DeviceSelect::If over the part's cells of
///     the whole batch (flat numbers f = s x len + offset, in order) with the filter as the
///     predicate writes the kept cells' numbers into one of two index lists, and their count;
///  2. evaluation, on the caller's stream once the list is ready (event): a grid-stride kernel
///     computes the delta of every listed cell (a cell whose lower bound exceeds the solution's
///     threshold — the least delta found so far, shared by all threads — is written as not a
///     move: it cannot be selected);
///  3. reduction, a block per solution: its cells are a contiguous run of the sorted list
///     (found by binary search); the block's argmin (lowest index on ties) is merged into the
///     solution's result, and under PartPivot::first_improving an improving part best ends the
///     solution's search: its later parts are ignored by the reduction, and the filter skips
///     its cells from part p + 2 on (part p + 1 was compacted alongside part p's evaluation).
/// The list of part p + 1 is compacted while part p is evaluated; a list is refilled only after
/// the evaluation that read it (events), so two lists of batch x P numbers, one delta array and
/// per-solution words are the whole memory: the part size follows the memory budget
/// (part_cells_for), however large the neighborhood.

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "locus/gpu/cuda_check.hpp"
#include "locus/gpu/device.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/engine_primitives.cuh"
#include "locus/gpu/neighborhood_parts.hpp"
#include "locus/gpu/storage.hpp"
#include "locus/gpu/stream.hpp"

namespace locus::gpu {

namespace detail {

/// The compaction predicate of part cells: flat number f = solution x len + offset stands for
/// cell base + offset of `solution`; kept when the solution still searches and the filter keeps
/// the cell.
template <class F> struct PartPredicate {
    F keep;
    const std::uint32_t* done;
    std::uint64_t base;
    std::uint64_t len;
    __device__ __forceinline__ bool operator()(std::uint64_t f) const {
        const auto s = static_cast<std::uint32_t>(f / len);
        if (*static_cast<const volatile std::uint32_t*>(done + s) != 0)
            return false;
        return keep(s, base + (f - static_cast<std::uint64_t>(s) * len));
    }
};

/// Starts a selection: results invalid, thresholds unset, every solution searching.
template <class D>
__global__ void parts_begin_kernel(std::uint32_t batch, MoveResult<D>* results,
                                   std::uint64_t* threshold, std::uint32_t* done,
                                   unsigned long long* counters) {
    const std::uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s == 0) {
        counters[0] = 0;     // kept cells evaluated
        counters[1] = batch; // solutions still searching
    }
    if (s >= batch)
        return;
    store_move(results + s, invalid_delta<D>(), kNoMove);
    threshold[s] = kNoMove;
    done[s] = 0;
}

/// Deltas of the listed cells (grid-stride; a thread meets its entries in list order).
template <class E>
__global__ void __launch_bounds__(kEngineBlockThreads)
    parts_evaluate_kernel(const E eval, const std::uint64_t* list, const std::uint64_t* count,
                          std::uint64_t base, std::uint64_t len,
                          typename E::delta_type* deltas, std::uint64_t* threshold) {
    using D = typename E::delta_type;
    const std::uint64_t n = *count;
    const std::uint32_t cols = eval.grid().cols;
    D best = invalid_delta<D>();
    std::uint32_t best_solution = ~0u;
    for (std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
         k < n; k += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
        const std::uint64_t f = list[k];
        const auto s = static_cast<std::uint32_t>(f / len);
        const std::uint64_t index = base + (f - static_cast<std::uint64_t>(s) * len);
        const std::uint64_t row = index / cols;
        const auto col = static_cast<std::uint32_t>(index - row * cols);
        const auto context = eval.row(s, static_cast<std::uint32_t>(row));
        if (s != best_solution) {
            best = invalid_delta<D>();
            best_solution = s;
        }
        D delta = invalid_delta<D>();
        if constexpr (LowerBoundedEvaluator<E>) {
            const std::uint64_t seen = *static_cast<const volatile std::uint64_t*>(threshold + s);
            const D shared = seen == kNoMove ? invalid_delta<D>() : from_order_key<D>(seen);
            const D bound = eval.bound(context, col);
            // NOTE: a cell whose bound is not below the thread's best comes after that best in
            // index order, so it cannot win even a tie; one above the shared threshold cannot
            // be selected at all.
            if (bound < best && !(bound > shared))
                delta = eval(context, col);
            if (delta < best) {
                best = delta;
                const std::uint64_t key = order_key(delta);
                if (key < seen)
                    atomicMin(reinterpret_cast<unsigned long long*>(threshold + s),
                              static_cast<unsigned long long>(key));
            }
        } else {
            delta = eval(context, col);
        }
        deltas[k] = delta;
    }
}

/// The first list entry of solution `s` (lower bound of s x len in the sorted list).
__device__ __forceinline__ std::uint64_t first_entry(const std::uint64_t* list, std::uint64_t n,
                                                     std::uint64_t value) {
    std::uint64_t lo = 0;
    std::uint64_t hi = n;
    while (lo < hi) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        if (list[mid] < value)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/// A block per solution still searching: the argmin of its listed cells, merged into its
/// result; counters[0] += its listed cells; under first_improving an improving part best ends
/// its search (counters[1] -= 1).
template <class D>
__global__ void __launch_bounds__(kEngineBlockThreads)
    parts_reduce_kernel(const std::uint64_t* list, const std::uint64_t* count, const D* deltas,
                        std::uint64_t base, std::uint64_t len, bool first_improving,
                        MoveResult<D>* results, std::uint32_t* done,
                        unsigned long long* counters) {
    __shared__ EngineTeam::Storage s_team;
    const std::uint32_t s = blockIdx.x;
    if (done[s] != 0)
        return;
    const std::uint64_t n = *count;
    const std::uint64_t begin = first_entry(list, n, static_cast<std::uint64_t>(s) * len);
    const std::uint64_t end = first_entry(list, n, static_cast<std::uint64_t>(s + 1) * len);
    if (threadIdx.x == 0)
        atomicAdd(counters, static_cast<unsigned long long>(end - begin));
    D best = invalid_delta<D>();
    std::uint64_t best_index = kNoMove;
    for (std::uint64_t k = begin + threadIdx.x; k < end; k += blockDim.x) {
        const D delta = deltas[k];
        if (delta == invalid_delta<D>())
            continue;
        const std::uint64_t index = base + (list[k] - static_cast<std::uint64_t>(s) * len);
        if (precedes_best(delta, index, best, best_index)) {
            best = delta;
            best_index = index;
        }
    }
    const EngineTeam team{&s_team};
    block_reduce<false>(team, best, best_index);
    if (threadIdx.x != 0)
        return;
    const MoveResult<D> now = results[s];
    if (best_index != kNoMove && precedes_best(best, best_index, now.delta, now.index))
        store_move(results + s, best, best_index);
    if (first_improving && best_index != kNoMove && best < D(0)) {
        done[s] = 1;
        atomicAdd(counters + 1, ~0ull); // minus one
    }
}

} // namespace detail

/// Device memory, a compaction stream and events of select_moves_parts. Sized by reserve();
/// belongs to the device current at reserve() and serves one selection at a time.
class PartsWorkspace {
public:
    /// Allocates the lists for `batch` solutions in parts of `part_cells` cells and the CUB
    /// temporary storage; keeps what it has when that is enough. Checks the bytes against
    /// `budget` (CudaError naming the arrays otherwise).
    template <class F>
    void reserve(const F& keep, std::uint64_t part_cells, std::uint32_t batch,
                 const MemoryBudget& budget) {
        const std::uint64_t cells = (part_cells == 0 ? 1 : part_cells) * batch;
        if (cells <= cells_ && batch <= batch_)
            return;
        // NOTE: forget the old block first, so that a failed allocation leaves nothing that a
        // later, smaller reserve() could mistake for room.
        cells_ = 0;
        batch_ = 0;
        std::size_t temp = 0;
        const detail::PartPredicate<F> predicate{keep, nullptr, 0, 1};
        LOCUS_CUDA_CHECK(cub::DeviceSelect::If(nullptr, temp,
                                               thrust::counting_iterator<std::uint64_t>(0),
                                               static_cast<std::uint64_t*>(nullptr),
                                               static_cast<std::uint64_t*>(nullptr),
                                               static_cast<std::int64_t>(cells), predicate));
        storage_.release();
        ArrayList list;
        list.add(lists_[0], cells, "part index list (filling)");
        list.add(lists_[1], cells, "part index list (evaluated)");
        list.add(deltas_, cells * 8, "part deltas");
        list.add(temp_, temp, "compaction scratch");
        list.add(counts_, 2, "part counts");
        list.add(results_, static_cast<std::size_t>(batch) * 16, "part results");
        list.add(threshold_, batch, "thresholds");
        list.add(done_, batch, "search flags");
        list.add(counters_, 2, "part counters");
        storage_.allocate(list, budget, "neighborhood in parts",
                          "lower the batch, or set a smaller part size, or raise memory_budget / "
                          "memory_fraction");
        temp_bytes_ = temp;
        cells_ = cells;
        batch_ = batch;
    }

    /// Device bytes held.
    std::size_t bytes() const { return storage_.bytes(); }
    /// Cells (part cells x solutions) the lists hold, and solutions the words hold.
    std::uint64_t cells() const { return cells_; }
    std::uint32_t batch() const { return batch_; }

    std::uint64_t* list(int k) const { return lists_[k]; }
    std::uint64_t* count(int k) const { return counts_ + k; }
    void* deltas() const { return deltas_; }
    void* temp() const { return temp_; }
    std::size_t temp_bytes() const { return temp_bytes_; }
    void* results() const { return results_; }
    std::uint64_t* threshold() const { return threshold_; }
    std::uint32_t* done() const { return done_; }
    /// [0]: kept cells evaluated by the last selection; [1]: solutions still searching.
    unsigned long long* counters() const { return counters_; }
    /// Page-locked copy of counters()[1], for the host's early stop.
    unsigned long long* searching_host() { return searching_.data(); }
    cudaStream_t compaction_stream() const { return compaction_.get(); }
    cudaEvent_t started() const { return started_.get(); }
    cudaEvent_t compacted(int k) const { return compacted_[k].get(); }
    cudaEvent_t released(int k) const { return released_[k].get(); }

private:
    DeviceStorage storage_;
    std::uint64_t* lists_[2] = {nullptr, nullptr};
    std::byte* deltas_ = nullptr;
    std::byte* temp_ = nullptr;
    std::uint64_t* counts_ = nullptr;
    std::byte* results_ = nullptr;
    std::uint64_t* threshold_ = nullptr;
    std::uint32_t* done_ = nullptr;
    unsigned long long* counters_ = nullptr;
    PinnedBuffer<unsigned long long> searching_{1, "part search count"};
    std::size_t temp_bytes_ = 0;
    std::uint64_t cells_ = 0;
    std::uint32_t batch_ = 0;
    Stream compaction_;
    Event started_;
    Event compacted_[2];
    Event released_[2];
};

/// Selects one move per solution over the cells `keep` keeps, in parts of `part_cells` cells,
/// with the semantics of select_moves_parts_cpu (identical results): d_out[s] for s < batch.
/// Enqueued on `stream` (the compaction runs on the workspace's stream, after the work enqueued
/// on `stream` before the call; everything the call enqueues is ordered before later work on
/// `stream`). Under PartPivot::best the call does not wait for the device; under
/// first_improving it waits for each part's result before enqueuing the part after next, and
/// stops once every solution holds an improving move. The workspace must have been reserved for
/// (part_cells, batch). Returns the parts evaluated (enqueued, under PartPivot::best).
template <class E, class F>
std::uint64_t select_moves_parts(const E& eval, const F& keep, std::uint32_t batch,
                                 PartPivot pivot, std::uint64_t part_cells,
                                 MoveResult<typename E::delta_type>* d_out, PartsWorkspace& ws,
                                 cudaStream_t stream) {
    static_assert(MoveEvaluator<E>, "E does not model locus::gpu::MoveEvaluator");
    static_assert(MoveFilter<F>, "F does not model locus::gpu::MoveFilter");
    using D = typename E::delta_type;
    if (batch == 0)
        return 0;
    const MoveGrid grid = eval.grid();
    const std::uint64_t size = grid.size();
    const std::uint64_t part = part_cells == 0 ? 1 : part_cells;
    const std::uint64_t parts = part_count(grid, part);
    const bool first_improving = pivot == PartPivot::first_improving;
    const std::uint64_t widest = size < part ? size : part;
    if (batch > ws.batch() || widest * batch > ws.cells())
        throw CudaError("select_moves_parts: the workspace holds " + std::to_string(ws.cells()) +
                        " cells for " + std::to_string(ws.batch()) + " solutions, the call needs " +
                        std::to_string(widest * batch) + " for " + std::to_string(batch) +
                        "; reserve() it first");
    auto* results = static_cast<MoveResult<D>*>(ws.results());
    auto* deltas = static_cast<D*>(ws.deltas());

    constexpr unsigned kBeginThreads = detail::Tuning::kPartsBeginThreads;
    detail::parts_begin_kernel<D><<<(batch + kBeginThreads - 1) / kBeginThreads, kBeginThreads, 0,
                                    stream>>>(
        batch, results, ws.threshold(), ws.done(), ws.counters());
    LOCUS_CUDA_CHECK_LAUNCH();
    const cudaStream_t side = ws.compaction_stream();
    LOCUS_CUDA_CHECK(cudaEventRecord(ws.started(), stream));
    LOCUS_CUDA_CHECK(cudaStreamWaitEvent(side, ws.started(), 0));

    static const int per_sm = detail::resident_blocks_per_sm(detail::parts_evaluate_kernel<E>);
    int device = 0;
    int multiprocessors = 1;
    LOCUS_CUDA_CHECK(cudaGetDevice(&device));
    LOCUS_CUDA_CHECK(
        cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    const std::uint64_t most_blocks = static_cast<std::uint64_t>(multiprocessors) * per_sm * 4;
    const auto part_len = [&](std::uint64_t p) {
        const std::uint64_t base = p * part;
        return size - base < part ? size - base : part;
    };
    // Part p's list goes to buffer p % 2, which part p - 2's evaluation must have released.
    const auto compact = [&](std::uint64_t p) {
        const int b = static_cast<int>(p & 1);
        if (p >= 2)
            LOCUS_CUDA_CHECK(cudaStreamWaitEvent(side, ws.released(b), 0));
        std::size_t temp = ws.temp_bytes();
        const detail::PartPredicate<F> predicate{keep, ws.done(), p * part, part_len(p)};
        LOCUS_CUDA_CHECK(cub::DeviceSelect::If(
            ws.temp(), temp, thrust::counting_iterator<std::uint64_t>(0), ws.list(b), ws.count(b),
            static_cast<std::int64_t>(part_len(p) * batch), predicate, side));
        LOCUS_CUDA_CHECK(cudaEventRecord(ws.compacted(b), side));
    };

    if (parts > 0)
        compact(0);
    std::uint64_t evaluated = 0;
    for (std::uint64_t p = 0; p < parts; ++p) {
        const int b = static_cast<int>(p & 1);
        const std::uint64_t base = p * part;
        const std::uint64_t len = part_len(p);
        if (p + 1 < parts)
            compact(p + 1); // overlaps the evaluation of part p
        LOCUS_CUDA_CHECK(cudaStreamWaitEvent(stream, ws.compacted(b), 0));
        const std::uint64_t blocks = std::min<std::uint64_t>(
            most_blocks,
            (len * batch + detail::kEngineBlockThreads - 1) / detail::kEngineBlockThreads);
        detail::parts_evaluate_kernel<E>
            <<<static_cast<unsigned>(blocks), detail::kEngineBlockThreads, 0, stream>>>(
                eval, ws.list(b), ws.count(b), base, len, deltas, ws.threshold());
        LOCUS_CUDA_CHECK_LAUNCH();
        detail::parts_reduce_kernel<D><<<batch, detail::kEngineBlockThreads, 0, stream>>>(
            ws.list(b), ws.count(b), deltas, base, len, first_improving, results, ws.done(),
            ws.counters());
        LOCUS_CUDA_CHECK_LAUNCH();
        if (first_improving)
            LOCUS_CUDA_CHECK(cudaMemcpyAsync(ws.searching_host(), ws.counters() + 1,
                                             sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                             stream));
        LOCUS_CUDA_CHECK(cudaEventRecord(ws.released(b), stream));
        ++evaluated;
        if (first_improving) {
            LOCUS_CUDA_CHECK(cudaEventSynchronize(ws.released(b)));
            if (*ws.searching_host() == 0)
                break;
        }
    }
    // NOTE: a compaction enqueued for a part that is not evaluated (early stop) must finish
    // before the workspace is used again: later work on `stream` waits for the side stream.
    LOCUS_CUDA_CHECK(cudaEventRecord(ws.compacted(0), side));
    LOCUS_CUDA_CHECK(cudaStreamWaitEvent(stream, ws.compacted(0), 0));
    LOCUS_CUDA_CHECK(cudaMemcpyAsync(d_out, results, sizeof(MoveResult<D>) * batch,
                                     cudaMemcpyDeviceToDevice, stream));
    return evaluated;
}

/// Kept cells evaluated by the last select_moves_parts on `ws` (synchronizes `stream`).
inline std::uint64_t parts_kept(const PartsWorkspace& ws, cudaStream_t stream) {
    unsigned long long kept = 0;
    LOCUS_CUDA_CHECK(
        cudaMemcpyAsync(&kept, ws.counters(), sizeof kept, cudaMemcpyDeviceToHost, stream));
    LOCUS_CUDA_CHECK(cudaStreamSynchronize(stream));
    return kept;
}

} // namespace locus::gpu
