#pragma once
/// \file
/// Filtered neighborhoods in parts: a move filter (supplied by the problem) keeps some cells of
/// each solution's grid; the kept cells are evaluated part by part, each part a contiguous range
/// of `part_cells` grid cells, and the best kept move of each part is combined into the result.
/// On the device (neighborhood_parts.cuh) a part's kept cells are first compacted into an index
/// list (CUB DeviceSelect), so that the evaluation kernel runs only on kept cells without
/// divergence, and the list of the next part is compacted on a second stream while the current
/// part is evaluated; the lists' memory, and so the part size, follows a memory budget. This
/// header holds the types and the CPU twin (g++-compilable); both give identical results.

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "locus/gpu/neighborhood_engine.hpp"

#if defined(_OPENMP)
#include <omp.h>
#define LOCUS_PARTS_OMP(directive) _Pragma(#directive)
#else
#define LOCUS_PARTS_OMP(directive)
#endif

namespace locus::gpu {

/// A move filter: keep(solution, index) says whether cell `index` (row * cols + col) of the
/// grid of `solution` is evaluated. Trivially copyable, LOCUS_HD, const, free of side effects;
/// the same answer on host and device.
template <class F>
concept MoveFilter = std::is_trivially_copyable_v<F> &&
    requires(const F& f, std::uint32_t s, std::uint64_t i) {
    { f(s, i) } -> std::same_as<bool>;
};

/// The filter that keeps every cell.
struct KeepEveryCell {
    LOCUS_HD bool operator()(std::uint32_t, std::uint64_t) const { return true; }
};

/// How a selection in parts combines its parts.
enum class PartPivot : std::uint8_t {
    best,            ///< the best kept move of all parts (smallest delta, then lowest index)
    first_improving, ///< the best kept move of the first part that holds an improving one
                     ///< (delta < 0); the best of all parts when no part does
};

/// What a neighborhood policy (neighborhood_adapter.hpp) asks of a selection in parts: when
/// `enabled`, the adapters select with select_moves_parts(_cpu) over the cells `filter` keeps,
/// in parts of `part_cells` cells (Pivot::best as PartPivot::best, Pivot::first as
/// PartPivot::first_improving), instead of select_moves over the whole grid.
template <class F> struct PartPlan {
    bool enabled = false;
    F filter{};
    std::uint64_t part_cells = 0;
};

/// A policy that may select in parts: filter_type (a MoveFilter) and parts(evaluator).
template <class P>
concept PartsPolicy = MoveFilter<typename P::filter_type> &&
    requires(const P& p, const typename P::evaluator_type& e) {
    { p.parts(e) } -> std::same_as<PartPlan<typename P::filter_type>>;
};

/// The part pivot of a neighborhood pivot.
inline PartPivot part_pivot(Pivot pivot) {
    return pivot == Pivot::first ? PartPivot::first_improving : PartPivot::best;
}

/// Device bytes per cell of a part: two index lists (8 bytes each, one being filled while the
/// other is evaluated) and the deltas of one list (8 bytes).
inline constexpr std::size_t kPartBytesPerCell = 24;
/// Device bytes per solution besides the lists (offsets, threshold, flags, result).
inline constexpr std::size_t kPartBytesPerSolution = 48;
/// Fewest cells per part: below it a budget is too small to be worth splitting for.
inline constexpr std::uint64_t kMinPartCells = 1u << 12;

/// Cells per part for `batch` solutions of `grid` within `bytes` of device memory (the lists of
/// one part hold batch x part cells), at most the whole grid; 0 when `bytes` cannot hold
/// kMinPartCells cells per solution (or the whole grid when it is smaller).
inline std::uint64_t part_cells_for(std::size_t bytes, MoveGrid grid, std::uint32_t batch) {
    const std::uint64_t per = std::max<std::uint32_t>(batch, 1);
    const std::size_t fixed = static_cast<std::size_t>(per) * kPartBytesPerSolution + (8u << 20);
    const std::uint64_t cells =
        bytes > fixed ? (bytes - fixed) / (kPartBytesPerCell * per) : 0;
    const std::uint64_t whole = std::max<std::uint64_t>(grid.size(), 1);
    if (cells >= whole)
        return whole;
    return cells >= kMinPartCells ? cells : 0;
}

/// Number of parts of `part_cells` cells in `grid`.
inline std::uint64_t part_count(MoveGrid grid, std::uint64_t part_cells) {
    return part_cells == 0 ? 0 : (grid.size() + part_cells - 1) / part_cells;
}

/// What a selection in parts did: parts evaluated (the largest count over the solutions) and
/// kept cells evaluated (summed over the solutions).
struct PartStats {
    std::uint64_t parts = 0;
    std::uint64_t kept = 0;
};

namespace detail {

/// Best kept cell of cells [begin, end) of `solution` (smallest delta, then lowest index),
/// skipping cells whose bound exceeds the shared threshold (order_key) of the solution, which
/// it lowers. Skipped cells cannot be selected: the threshold is a delta of a kept move.
template <class E, class F>
MoveResult<typename E::delta_type> scan_kept(const E& eval, const F& keep,
                                             std::uint32_t solution, std::uint64_t begin,
                                             std::uint64_t end,
                                             std::atomic<std::uint64_t>& threshold) {
    using D = typename E::delta_type;
    const std::uint32_t cols = eval.grid().cols;
    MoveResult<D> best{invalid_delta<D>(), kNoMove};
    std::uint64_t context_row = ~0ull;
    typename E::row_type context{};
    for (std::uint64_t index = begin; index < end; ++index) {
        if (!keep(solution, index))
            continue;
        const std::uint64_t row = index / cols;
        const auto col = static_cast<std::uint32_t>(index - row * cols);
        if (row != context_row) {
            context = eval.row(solution, static_cast<std::uint32_t>(row));
            context_row = row;
        }
        if constexpr (LowerBoundedEvaluator<E>) {
            const std::uint64_t key = threshold.load(std::memory_order_relaxed);
            const D shared = key == kNoMove ? invalid_delta<D>() : from_order_key<D>(key);
            const D bound = eval.bound(context, col);
            if (!(bound < best.delta) || bound > shared)
                continue;
        }
        const D delta = eval(context, col);
        if (delta < best.delta) {
            best = {delta, index};
            if constexpr (LowerBoundedEvaluator<E>)
                lower_threshold(threshold, order_key(delta));
        }
    }
    return best;
}

} // namespace detail

/// CPU twin of select_moves_parts: for each solution s < batch, out[s] = the move that `pivot`
/// picks over the cells `keep` keeps, the grid taken in parts of `part_cells` cells (in index
/// order). Under PartPivot::best the result does not depend on the part size (it is
/// select_moves_cpu's Pivot::best over the kept cells); under first_improving it does, so both
/// backends must be given the same part size. kNoMove when no kept cell is a move. Runs on
/// `threads` OpenMP threads (0 = all cores); the result does not depend on it.
template <class E, class F>
void select_moves_parts_cpu(const E& eval, const F& keep, std::uint32_t batch, PartPivot pivot,
                            std::uint64_t part_cells, MoveResult<typename E::delta_type>* out,
                            int threads, PartStats* stats = nullptr) {
    static_assert(MoveEvaluator<E>, "E does not model locus::gpu::MoveEvaluator");
    static_assert(MoveFilter<F>, "F does not model locus::gpu::MoveFilter");
    using D = typename E::delta_type;
    if (stats != nullptr)
        *stats = {};
    if (batch == 0)
        return;
    const MoveGrid grid = eval.grid();
    const std::uint64_t size = grid.size();
    const std::uint64_t part = std::max<std::uint64_t>(part_cells, 1);
    const std::uint64_t parts = part_count(grid, part);
    const int team = detail::team_for(resolve_threads(threads), std::min(size, part) * batch);
    // Chunks of a part: enough to keep the team busy, at least 1024 cells each.
    const std::uint64_t wanted = std::max<std::uint64_t>(1, 8ull * team / batch);
    std::vector<std::atomic<std::uint64_t>> threshold(batch);
    for (auto& word : threshold)
        word.store(kNoMove, std::memory_order_relaxed);
    std::vector<MoveResult<D>> result(batch, MoveResult<D>{invalid_delta<D>(), kNoMove});
    std::vector<char> done(batch, 0);
    std::vector<std::atomic<std::uint64_t>> kept(batch);
    for (auto& k : kept)
        k.store(0, std::memory_order_relaxed);
    std::uint64_t parts_run = 0;

    for (std::uint64_t p = 0; p < parts; ++p) {
        const std::uint64_t begin = p * part;
        const std::uint64_t end = std::min(size, begin + part);
        const std::uint64_t per_chunk =
            std::max<std::uint64_t>(1024, (end - begin + wanted - 1) / wanted);
        const std::uint64_t chunks = (end - begin + per_chunk - 1) / per_chunk;
        const auto items = static_cast<std::int64_t>(chunks * batch);
        std::vector<MoveResult<D>> partial(static_cast<std::size_t>(items),
                                           MoveResult<D>{invalid_delta<D>(), kNoMove});
        bool any = false;
        for (std::uint32_t s = 0; s < batch; ++s)
            any = any || done[s] == 0;
        if (!any)
            break;
        ++parts_run;
        LOCUS_PARTS_OMP(omp parallel for schedule(dynamic, 1) num_threads(team))
        for (std::int64_t item = 0; item < items; ++item) {
            const auto s = static_cast<std::uint32_t>(static_cast<std::uint64_t>(item) / chunks);
            if (done[s] != 0)
                continue;
            const std::uint64_t chunk = static_cast<std::uint64_t>(item) % chunks;
            const std::uint64_t b = begin + chunk * per_chunk;
            const std::uint64_t e = std::min(end, b + per_chunk);
            partial[static_cast<std::size_t>(item)] =
                detail::scan_kept(eval, keep, s, b, e, threshold[s]);
            if (stats != nullptr) {
                std::uint64_t n = 0;
                for (std::uint64_t index = b; index < e; ++index)
                    n += keep(s, index) ? 1u : 0u;
                kept[s].fetch_add(n, std::memory_order_relaxed);
            }
        }
        for (std::uint32_t s = 0; s < batch; ++s) {
            if (done[s] != 0)
                continue;
            MoveResult<D> best{invalid_delta<D>(), kNoMove};
            for (std::uint64_t c = 0; c < chunks; ++c) {
                const MoveResult<D>& q = partial[static_cast<std::size_t>(s * chunks + c)];
                if (detail::precedes_best(q.delta, q.index, best.delta, best.index))
                    best = q;
            }
            if (detail::precedes_best(best.delta, best.index, result[s].delta, result[s].index))
                result[s] = best;
            if (pivot == PartPivot::first_improving && best.found() && best.delta < D(0))
                done[s] = 1;
        }
    }
    for (std::uint32_t s = 0; s < batch; ++s)
        out[s] = result[s];
    if (stats != nullptr) {
        stats->parts = parts_run;
        for (auto& k : kept)
            stats->kept += k.load(std::memory_order_relaxed);
    }
}

} // namespace locus::gpu

#undef LOCUS_PARTS_OMP
