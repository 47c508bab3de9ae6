#pragma once
/// \file
/// The neighborhood engine: types, device workspace and the CPU twin (g++-compilable; the CUDA
/// kernels and their launchers are in neighborhood_engine.cuh).
///
/// A neighborhood of each solution of a batch is a grid of `rows x cols` cells; cell (row, col)
/// is the move of index `row * cols + col`. An evaluator computes a per-row context once per
/// row, then the delta of each cell of the row, or `invalid_delta` when the cell is not a move.
/// The engine selects one move per solution (Pivot::best / Pivot::first) or collects the
/// improving moves of each solution. The CPU twin and the device launchers return identical
/// results for the same evaluator: selection is defined by value and index only, never by the
/// order of evaluation.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "locus/gpu/cpu_threads.hpp"
#include "locus/gpu/tuning.hpp"
#include "locus/hd.hpp"
#include "locus/types.hpp"

#if defined(_OPENMP)
#include <omp.h>
#define LOCUS_OMP(directive) _Pragma(#directive)
#else
#define LOCUS_OMP(directive)
#endif

namespace locus::gpu {

/// The index space of a neighborhood: move index = row * cols + col (64-bit).
struct MoveGrid {
    std::uint32_t rows;
    std::uint32_t cols;

    /// Number of cells (rows * cols).
    LOCUS_HD constexpr std::uint64_t size() const {
        return static_cast<std::uint64_t>(rows) * cols;
    }
};

/// The move selected for one solution: its delta and index. `index == locus::kNoMove` (and
/// `delta == invalid_delta<Delta>()`) when there is none.
template <class Delta> struct MoveResult {
    Delta delta;
    std::uint64_t index;

    LOCUS_HD constexpr bool found() const { return index != kNoMove; }
};

/// Calls apply(s, index, delta) for every solution s whose selected move improves (delta < 0);
/// returns how many were applied.
template <class Delta, class Apply>
std::uint64_t apply_improving(const std::vector<MoveResult<Delta>>& results, Apply&& apply) {
    std::uint64_t applied = 0;
    for (std::size_t s = 0; s < results.size(); ++s) {
        if (!results[s].found() || results[s].delta >= 0) continue;
        apply(s, results[s].index, results[s].delta);
        ++applied;
    }
    return applied;
}

/// Delta types of the engine: signed integers of 1 to 8 bytes, float, double.
template <class Delta>
concept EngineDelta = (std::is_integral_v<Delta> && std::is_signed_v<Delta> &&
                       sizeof(Delta) <= 8) ||
                      std::is_same_v<Delta, float> || std::is_same_v<Delta, double>;

/// The delta meaning "this grid cell is not a move": the largest value of Delta. A valid move
/// must have a smaller delta. Deltas must never be NaN.
template <class Delta> LOCUS_HD constexpr Delta invalid_delta() {
    static_assert(EngineDelta<Delta>, "delta_type must be a signed integer, float or double");
    if constexpr (std::is_same_v<Delta, float>) {
        return FLT_MAX;
    } else if constexpr (std::is_same_v<Delta, double>) {
        return DBL_MAX;
    } else {
        return static_cast<Delta>(static_cast<std::make_unsigned_t<Delta>>(~0ull) >> 1);
    }
}

/// A delta as an unsigned key with the same order (smaller delta, smaller key), so that a
/// running threshold can be lowered with an atomic minimum on a 64-bit word. Valid deltas map
/// below kNoMove (all bits set), which stands for "no threshold yet".
template <class Delta> LOCUS_HD_INLINE std::uint64_t order_key(Delta d) {
    if constexpr (std::is_floating_point_v<Delta>) {
        const double v = static_cast<double>(d);
        std::uint64_t bits = 0;
#ifdef __CUDA_ARCH__
        bits = static_cast<std::uint64_t>(__double_as_longlong(v));
#else
        std::memcpy(&bits, &v, sizeof bits);
#endif
        return (bits >> 63) != 0 ? ~bits : bits | (1ull << 63);
    } else {
        return static_cast<std::uint64_t>(static_cast<std::int64_t>(d)) ^ (1ull << 63);
    }
}

/// The delta of an order key (the inverse of order_key for keys it returned).
template <class Delta> LOCUS_HD_INLINE Delta from_order_key(std::uint64_t key) {
    if constexpr (std::is_floating_point_v<Delta>) {
        const std::uint64_t bits = (key >> 63) != 0 ? key & ~(1ull << 63) : ~key;
        double v = 0.0;
#ifdef __CUDA_ARCH__
        v = __longlong_as_double(static_cast<long long>(bits));
#else
        std::memcpy(&v, &bits, sizeof v);
#endif
        return static_cast<Delta>(v);
    } else {
        return static_cast<Delta>(static_cast<std::int64_t>(key ^ (1ull << 63)));
    }
}

/// An evaluator of the engine: a trivially copyable functor, passed by value to kernels and
/// called on the host by the CPU twin (its pointers must then be host pointers).
///   delta_type                 signed integer, float or double (EngineDelta)
///   row_type                   small trivially copyable per-row context
///   grid()                     the same MoveGrid for every solution of the batch
///   row(solution, row)         the context of a row, computed once per row
///   operator()(context, col)   the delta of cell (row, col), or invalid_delta
/// All three are `LOCUS_HD`, const, free of side effects and do not throw; for the same
/// arguments they return the same value on host and device.
template <class E>
concept MoveEvaluator = std::is_trivially_copyable_v<E> && EngineDelta<typename E::delta_type> &&
    std::is_trivially_copyable_v<typename E::row_type> &&
    requires(const E& e, const typename E::row_type& r, std::uint32_t u) {
    { e.grid() } -> std::same_as<MoveGrid>;
    { e.row(u, u) } -> std::same_as<typename E::row_type>;
    { e(r, u) } -> std::same_as<typename E::delta_type>;
};

/// The columns of a row that can hold moves: [begin, end).
struct ColumnRange {
    std::uint32_t begin;
    std::uint32_t end;
};

/// An evaluator may bound the columns of each row: `columns(context)` returns the range outside
/// which every cell of that row is invalid, and the engine does not evaluate those cells (the
/// results are the same; triangular grids cost half). Optional.
template <class E>
concept RowBoundedEvaluator = requires(const E& e, const typename E::row_type& r) {
    { e.columns(r) } -> std::same_as<ColumnRange>;
};

/// The columns of row context `context` to evaluate within [begin, end).
template <class E>
LOCUS_HD_INLINE ColumnRange columns_to_scan(const E& eval, const typename E::row_type& context,
                                            std::uint32_t begin, std::uint32_t end) {
    if constexpr (RowBoundedEvaluator<E>) {
        const ColumnRange r = eval.columns(context);
        const std::uint32_t b = r.begin > begin ? r.begin : begin;
        const std::uint32_t e = r.end < end ? r.end : end;
        return {b, e > b ? e : b};
    } else {
        return {begin, end};
    }
}

/// An evaluator may scan a whole row on the host faster than cell by cell (e.g. with SIMD):
/// `best_in_row(context, begin, end)` returns the least delta of the cells [begin, end) of the
/// row and its column (ties: the lowest column; index kNoMove when no cell is valid), exactly
/// what the cell-by-cell scan finds. Host only, optional; the CPU twin's Pivot::best uses it.
template <class E>
concept RowScanningEvaluator = requires(const E& e, const typename E::row_type& r,
                                        std::uint32_t c) {
    { e.best_in_row(r, c, c) } -> std::same_as<MoveResult<typename E::delta_type>>;
};

/// An evaluator may share work between neighbouring cells of a row: `link(context, col)` is a
/// term that cells col - 1 and col both need (e.g. an added edge along a diagonal of the 2-opt
/// table), defined for col <= the row's last valid column + 1, and `linked(context, col,
/// link(col), link(col + 1))` equals operator()(context, col) on every valid column. The GPU
/// sweep of whole-warp groups then computes each link once (lanes pass it to their neighbour by
/// a shuffle) instead of twice; results are the same. Optional.
template <class E>
concept LinkedEvaluator = requires(const E& e, const typename E::row_type& r, std::uint32_t c,
                                   typename E::link_type l) {
    { e.link(r, c) } -> std::same_as<typename E::link_type>;
    { e.linked(r, c, l, l) } -> std::same_as<typename E::delta_type>;
};

/// An evaluator may give a cheap lower bound of each cell's delta: `bound(context, col)` <=
/// operator()(context, col) for every cell (invalid_delta where the cell is not a move). The
/// engine then evaluates a cell in full only when its bound beats what the cell must beat (the
/// running best of the thread for Pivot::best, zero for improving moves); results are the same.
/// Suits neighborhoods whose objective delta is cheap and whose feasibility check is not.
template <class E>
concept LowerBoundedEvaluator = requires(const E& e, const typename E::row_type& r,
                                         std::uint32_t c) {
    { e.bound(r, c) } -> std::same_as<typename E::delta_type>;
};

/// Whether cell `col` of `context` can have a delta below `threshold` (always true for
/// evaluators without a bound).
template <class E>
LOCUS_HD_INLINE bool may_beat(const E& eval, const typename E::row_type& context,
                              std::uint32_t col, typename E::delta_type threshold) {
    if constexpr (LowerBoundedEvaluator<E>) {
        return eval.bound(context, col) < threshold;
    } else {
        return true;
    }
}

/// Device scratch memory of the engine's launchers. It grows on demand inside a launch
/// (stream-ordered cudaMallocAsync/cudaFreeAsync on the launch stream, which do not block the
/// host; plain cudaMalloc/cudaFree where the device has no memory pools) and keeps its memory
/// until destroyed. reserve_for() sizes it up front so that launches never allocate.
/// A workspace belongs to the device that is current at its first use, and serves one stream
/// at a time: launches sharing a workspace must be ordered (same stream, or events).
class EngineWorkspace {
public:
    EngineWorkspace() = default;
    EngineWorkspace(const EngineWorkspace&) = delete;
    EngineWorkspace& operator=(const EngineWorkspace&) = delete;
    EngineWorkspace(EngineWorkspace&& other) noexcept;
    EngineWorkspace& operator=(EngineWorkspace&& other) noexcept;
    /// Frees the memory (cudaFree: waits for the device).
    ~EngineWorkspace();

    /// Device bytes held now.
    std::size_t bytes() const { return control_bytes() + scratch_bytes_; }

    /// Upper bound of the device bytes that select_moves and improving_moves need for `batch`
    /// solutions of `grid` (any delta type).
    static std::size_t bytes_needed(MoveGrid grid, std::uint32_t batch);

    /// Grows the workspace to bytes_needed(grid, batch) now, ordered on `stream`, and waits for
    /// the stream. Throws CudaError (naming the MiB requested) when the device is out of memory.
    void reserve_for(MoveGrid grid, std::uint32_t batch, cudaStream_t stream = nullptr);

    /// Frees the memory now (waits for the device).
    void release() noexcept;

    /// For launchers: binds the workspace to the current device on first use and reports the
    /// device's multiprocessor count. cudaErrorInvalidDevice when another device is current.
    cudaError_t attach(int& multiprocessors) noexcept;

    /// For launchers: makes the control words for `batch` solutions and `scratch_bytes` of
    /// scratch available, ordered on `stream` (may allocate; never blocks the host when the
    /// device supports memory pools). Control words are initialised on allocation and every
    /// kernel that uses them restores them before it ends.
    cudaError_t prepare(std::uint32_t batch, std::size_t scratch_bytes,
                        cudaStream_t stream) noexcept;

    /// Per-solution block counters (0 between launches).
    std::uint32_t* tickets() const;
    /// Per-solution lowest improving index found so far (kNoMove between launches).
    std::uint64_t* found() const;
    /// Scratch memory (256-byte aligned), valid after prepare().
    void* scratch() const { return scratch_; }

private:
    std::size_t control_bytes() const { return static_cast<std::size_t>(control_capacity_) * 12; }
    cudaError_t allocate(void** pointer, std::size_t bytes, cudaStream_t stream) noexcept;
    void free_async(void* pointer, cudaStream_t stream) noexcept;

    void* control_ = nullptr; ///< found[capacity] (uint64) then tickets[capacity] (uint32)
    std::uint32_t control_capacity_ = 0;
    void* scratch_ = nullptr;
    std::size_t scratch_bytes_ = 0;
    int device_ = -1;
    int multiprocessors_ = 0;
    bool pools_ = false;
};

namespace detail {

using Tuning = NeighborhoodTuning<kTuningArch>;
/// Threads per block of every engine kernel.
inline constexpr unsigned kEngineBlockThreads = Tuning::kBlockThreads;
/// Most blocks a launch adds beyond one per solution (bounds the per-block partial results).
inline constexpr std::uint32_t kMaxWaveBlocks = Tuning::kMaxWaveBlocks;
/// Most units that splitting rows into segments adds to a launch (bounds the per-unit counts).
inline constexpr std::uint64_t kMaxSplitUnits = Tuning::kMaxSplitUnits;
/// Bytes of one per-block partial result (MoveResult of any delta type fits).
inline constexpr std::size_t kPartialBytes = 16;

/// Threads worth starting for `cells` evaluations: at most one per kCpuCellsPerThread, so that
/// small explorations (focused or candidate-list neighborhoods) do not pay for a parallel region.
/// Results do not depend on the team size.
inline int team_for(int threads, std::uint64_t cells) {
    const std::uint64_t useful = std::max<std::uint64_t>(1, cells / Tuning::kCpuCellsPerThread);
    return static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(threads), useful));
}

/// True when (da, ia) comes before (db, ib) under Pivot::best: smaller delta, then lower index.
template <class D>
LOCUS_HD_INLINE bool precedes_best(D da, std::uint64_t ia, D db, std::uint64_t ib) {
    return da < db || (da == db && ia < ib);
}

/// Saturating addition of counts (the totals of improving_moves saturate at 2^32 - 1).
LOCUS_HD_INLINE std::uint32_t add_saturated(std::uint32_t a, std::uint32_t b) {
    return a > 0xFFFFFFFFu - b ? 0xFFFFFFFFu : a + b;
}

/// Row ranges of the CPU twin: each solution's rows split into `chunks` contiguous chunks of
/// `rows_per_chunk` rows (the last may be shorter), enough chunks to keep `threads` busy and
/// none of more than kChunkCells cells (where rows allow): a halt flag read between chunks
/// then ends the exploration of a large neighborhood (full 2-opt of 10^5 cities: 5 10^9
/// moves) within milliseconds. Results do not depend on the chunking.
struct CpuChunks {
    std::uint32_t chunks;
    std::uint32_t rows_per_chunk;
};

inline constexpr std::uint64_t kChunkCells = std::uint64_t{1} << 22;

inline CpuChunks cpu_chunks(const MoveGrid& grid, std::uint32_t batch, int threads) {
    const std::uint32_t rows = grid.rows;
    const std::uint64_t wanted = 8ull * static_cast<std::uint64_t>(threads);
    std::uint64_t chunks = std::max<std::uint64_t>((wanted + batch - 1) / batch,
                                                   (grid.size() + kChunkCells - 1) / kChunkCells);
    chunks = std::clamp<std::uint64_t>(chunks, 1, std::max<std::uint32_t>(rows, 1));
    const std::uint64_t per_chunk = rows == 0 ? 1 : (rows + chunks - 1) / chunks;
    chunks = rows == 0 ? 1 : (rows + per_chunk - 1) / per_chunk;
    return {static_cast<std::uint32_t>(chunks), static_cast<std::uint32_t>(per_chunk)};
}

/// Lowers `word` (an order_key threshold) to `key` unless it is already lower.
inline void lower_threshold(std::atomic<std::uint64_t>& word, std::uint64_t key) {
    std::uint64_t seen = word.load(std::memory_order_relaxed);
    while (key < seen && !word.compare_exchange_weak(seen, key, std::memory_order_relaxed)) {
    }
}

/// Pivot::best over rows [row_begin, row_end) of `solution`. For an evaluator with lower
/// bounds, `threshold` is the solution's least delta found so far by any chunk (order_key):
/// a cell whose bound exceeds it cannot be selected (ties are evaluated: the lowest index
/// wins), so it is skipped; each row's best lowers it. A raised `halt` (optional) ends the scan
/// before its next row (rows can be long: a QAP row is n cells of n steps each).
template <class E>
MoveResult<typename E::delta_type> scan_best(const E& eval, std::uint32_t solution,
                                             std::uint32_t row_begin, std::uint32_t row_end,
                                             std::uint32_t cols,
                                             std::atomic<std::uint64_t>& threshold,
                                             const volatile std::uint8_t* halt = nullptr) {
    using D = typename E::delta_type;
    MoveResult<D> best{invalid_delta<D>(), kNoMove};
    for (std::uint32_t row = row_begin; row < row_end; ++row) {
        if (halt != nullptr && *halt != 0) break;
        const auto context = eval.row(solution, row);
        const std::uint64_t base = static_cast<std::uint64_t>(row) * cols;
        const ColumnRange range = columns_to_scan(eval, context, 0, cols);
        if constexpr (LowerBoundedEvaluator<E>) {
            const std::uint64_t key = threshold.load(std::memory_order_relaxed);
            const D shared = key == kNoMove ? invalid_delta<D>() : from_order_key<D>(key);
            for (std::uint32_t col = range.begin; col < range.end; ++col) {
                const D bound = eval.bound(context, col);
                if (!(bound < best.delta) || bound > shared) continue;
                const D delta = eval(context, col);
                if (delta < best.delta) best = {delta, base + col};
            }
            if (best.found() && best.delta < shared) lower_threshold(threshold, order_key(best.delta));
        } else if constexpr (RowScanningEvaluator<E>) {
            const MoveResult<D> in_row = eval.best_in_row(context, range.begin, range.end);
            if (in_row.found() && in_row.delta < best.delta)
                best = {in_row.delta, base + in_row.index};
        } else {
            for (std::uint32_t col = range.begin; col < range.end; ++col) {
                const D delta = eval(context, col);
                if (delta < best.delta) best = {delta, base + col};
            }
        }
    }
    return best;
}

/// Pivot::first over rows [row_begin, row_end) of `solution`; stops at rows beyond the lowest
/// improving index already published in `found` and publishes its own hit there. A raised
/// `halt` (optional) ends the scan before its next row.
template <class E>
MoveResult<typename E::delta_type>
scan_first(const E& eval, std::uint32_t solution, std::uint32_t row_begin, std::uint32_t row_end,
           std::uint32_t cols, std::atomic<std::uint64_t>& found,
           const volatile std::uint8_t* halt = nullptr) {
    using D = typename E::delta_type;
    for (std::uint32_t row = row_begin; row < row_end; ++row) {
        if (halt != nullptr && *halt != 0) break;
        const std::uint64_t base = static_cast<std::uint64_t>(row) * cols;
        if (found.load(std::memory_order_relaxed) < base) break;
        const auto context = eval.row(solution, row);
        const ColumnRange range = columns_to_scan(eval, context, 0, cols);
        for (std::uint32_t col = range.begin; col < range.end; ++col) {
            if (!may_beat(eval, context, col, D(0))) continue;
            const D delta = eval(context, col);
            if (delta < D(0)) {
                const std::uint64_t index = base + col;
                std::uint64_t seen = found.load(std::memory_order_relaxed);
                while (index < seen &&
                       !found.compare_exchange_weak(seen, index, std::memory_order_relaxed)) {
                }
                return {delta, index};
            }
        }
    }
    return {invalid_delta<D>(), kNoMove};
}

/// Number of improving cells in rows [row_begin, row_end) (saturating); a raised `halt`
/// (optional) ends the count before its next row.
template <class E>
std::uint32_t count_improving(const E& eval, std::uint32_t solution, std::uint32_t row_begin,
                              std::uint32_t row_end, std::uint32_t cols,
                              const volatile std::uint8_t* halt = nullptr) {
    using D = typename E::delta_type;
    std::uint32_t count = 0;
    for (std::uint32_t row = row_begin; row < row_end; ++row) {
        if (halt != nullptr && *halt != 0) break;
        const auto context = eval.row(solution, row);
        std::uint32_t in_row = 0;
        const ColumnRange range = columns_to_scan(eval, context, 0, cols);
        for (std::uint32_t col = range.begin; col < range.end; ++col)
            in_row += may_beat(eval, context, col, D(0)) && eval(context, col) < D(0);
        count = add_saturated(count, in_row);
    }
    return count;
}

} // namespace detail

/// CPU twin of select_moves: for each solution s < batch, out[s] = the move chosen by `pivot`
///   Pivot::best  -> minimal delta over valid cells, ties -> lowest index; kNoMove only when
///                   no cell is valid;
///   Pivot::first -> the lowest-index cell with delta < 0; kNoMove when there is none.
/// Runs on `threads` OpenMP threads (0 = all cores); the result does not depend on it. Blocks
/// until done. Precondition: `out` holds `batch` elements. Once `halt` (optional) is raised the
/// remaining chunks are skipped and `out` is meaningless: the caller discards it.
template <class E>
void select_moves_cpu(const E& eval, std::uint32_t batch, Pivot pivot,
                      MoveResult<typename E::delta_type>* out, int threads,
                      const volatile std::uint8_t* halt = nullptr) {
    static_assert(MoveEvaluator<E>, "E does not model locus::gpu::MoveEvaluator");
    using D = typename E::delta_type;
    if (batch == 0) return;
    const MoveGrid grid = eval.grid();
    const int team = detail::team_for(resolve_threads(threads), grid.size() * batch);
    const detail::CpuChunks split = detail::cpu_chunks(grid, batch, team);
    const std::int64_t items = static_cast<std::int64_t>(batch) * split.chunks;
    std::vector<MoveResult<D>> partial(static_cast<std::size_t>(items));
    // Pivot::first: the lowest improving index per solution; Pivot::best: the least delta found
    // so far per solution (order_key), the shared threshold of bounded evaluators.
    std::vector<std::atomic<std::uint64_t>> found(batch);
    for (auto& word : found)
        word.store(kNoMove, std::memory_order_relaxed);

    // NOTE: items are solution-major with chunks in row order, and dynamically scheduled, so
    // that Pivot::first reaches low rows first and later chunks stop early.
    LOCUS_OMP(omp parallel for schedule(dynamic, 1) num_threads(team))
    for (std::int64_t item = 0; item < items; ++item) {
        if (halt != nullptr && *halt != 0) continue;
        const auto solution = static_cast<std::uint32_t>(item / split.chunks);
        const auto chunk = static_cast<std::uint32_t>(item % split.chunks);
        const std::uint64_t begin = static_cast<std::uint64_t>(chunk) * split.rows_per_chunk;
        const auto row_begin =
            static_cast<std::uint32_t>(std::min<std::uint64_t>(begin, grid.rows));
        const auto row_end = static_cast<std::uint32_t>(
            std::min<std::uint64_t>(begin + split.rows_per_chunk, grid.rows));
        partial[static_cast<std::size_t>(item)] =
            pivot == Pivot::best ? detail::scan_best(eval, solution, row_begin, row_end, grid.cols,
                                                     found[solution], halt)
                                 : detail::scan_first(eval, solution, row_begin, row_end, grid.cols,
                                                      found[solution], halt);
    }

    for (std::uint32_t solution = 0; solution < batch; ++solution) {
        MoveResult<D> result{invalid_delta<D>(), kNoMove};
        for (std::uint32_t chunk = 0; chunk < split.chunks; ++chunk) {
            const MoveResult<D>& p =
                partial[static_cast<std::size_t>(solution) * split.chunks + chunk];
            const bool take =
                pivot == Pivot::best
                    ? detail::precedes_best(p.delta, p.index, result.delta, result.index)
                    : p.index < result.index;
            if (take) result = p;
        }
        out[solution] = result;
    }
}

/// CPU twin of improving_moves: for each solution s < batch, counts[s] = the number of
/// improving cells (delta < 0; saturating at 2^32 - 1, may exceed `capacity`) and
/// out[s * capacity + k], k < min(counts[s], capacity), = the improving moves of the
/// `capacity` lowest indices, in increasing index order. Other slots of `out` are not written.
/// Runs on `threads` OpenMP threads (0 = all cores); blocks until done. Once `halt` (optional)
/// is raised the remaining chunks are skipped and the output is meaningless (discarded).
template <class E>
void improving_moves_cpu(const E& eval, std::uint32_t batch, std::uint32_t capacity,
                         MoveResult<typename E::delta_type>* out, std::uint32_t* counts,
                         int threads, const volatile std::uint8_t* halt = nullptr) {
    static_assert(MoveEvaluator<E>, "E does not model locus::gpu::MoveEvaluator");
    using D = typename E::delta_type;
    if (batch == 0) return;
    const MoveGrid grid = eval.grid();
    const int team = detail::team_for(resolve_threads(threads), grid.size() * batch);
    const detail::CpuChunks split = detail::cpu_chunks(grid, batch, team);
    const std::int64_t items = static_cast<std::int64_t>(batch) * split.chunks;
    const auto rows_of = [&](std::int64_t item, std::uint32_t& row_begin, std::uint32_t& row_end) {
        const std::uint64_t begin =
            static_cast<std::uint64_t>(item % split.chunks) * split.rows_per_chunk;
        row_begin = static_cast<std::uint32_t>(std::min<std::uint64_t>(begin, grid.rows));
        row_end = static_cast<std::uint32_t>(
            std::min<std::uint64_t>(begin + split.rows_per_chunk, grid.rows));
    };

    // Pass 1: improving cells per chunk; then exclusive (saturating) offsets per solution.
    std::vector<std::uint32_t> offset(static_cast<std::size_t>(items));
    LOCUS_OMP(omp parallel for schedule(dynamic, 1) num_threads(team))
    for (std::int64_t item = 0; item < items; ++item) {
        if (halt != nullptr && *halt != 0) continue;
        std::uint32_t row_begin = 0;
        std::uint32_t row_end = 0;
        rows_of(item, row_begin, row_end);
        offset[static_cast<std::size_t>(item)] =
            detail::count_improving(eval, static_cast<std::uint32_t>(item / split.chunks),
                                    row_begin, row_end, grid.cols, halt);
    }
    std::vector<std::uint32_t> chunk_count(offset);
    for (std::uint32_t solution = 0; solution < batch; ++solution) {
        std::uint32_t total = 0;
        for (std::uint32_t chunk = 0; chunk < split.chunks; ++chunk) {
            std::uint32_t& slot = offset[static_cast<std::size_t>(solution) * split.chunks + chunk];
            const std::uint32_t count = slot;
            slot = total;
            total = detail::add_saturated(total, count);
        }
        counts[solution] = total;
    }

    // Pass 2: chunks whose offset is below capacity write their moves in index order.
    if (capacity == 0) return;
    LOCUS_OMP(omp parallel for schedule(dynamic, 1) num_threads(team))
    for (std::int64_t item = 0; item < items; ++item) {
        const auto k = static_cast<std::size_t>(item);
        if (offset[k] >= capacity || chunk_count[k] == 0 || (halt != nullptr && *halt != 0))
            continue;
        const auto solution = static_cast<std::uint32_t>(item / split.chunks);
        std::uint32_t row_begin = 0;
        std::uint32_t row_end = 0;
        rows_of(item, row_begin, row_end);
        MoveResult<D>* slots = out + static_cast<std::uint64_t>(solution) * capacity;
        std::uint32_t position = offset[k];
        for (std::uint32_t row = row_begin; row < row_end && position < capacity; ++row) {
            const auto context = eval.row(solution, row);
            const std::uint64_t base = static_cast<std::uint64_t>(row) * grid.cols;
            for (std::uint32_t col = 0; col < grid.cols && position < capacity; ++col) {
                const D delta = eval(context, col);
                if (delta < D(0)) slots[position++] = {delta, base + col};
            }
        }
    }
}

} // namespace locus::gpu

#undef LOCUS_OMP
