#pragma once
/// \file
/// What the TSP evaluators read of a batch of tours (host or device pointers), how the engines
/// build it, and how many moves an exploration evaluates.

#include <cstdint>

#include "locus/gpu/neighborhood_engine.hpp"
#include "locus/tsp/metric.hpp"
#include "locus/types.hpp"

namespace locus::tsp {

/// Per-step arrays of a batch of tours (host or device pointers). For solution s:
/// tour + s*n, P + s*(n+1) (metric points in tour order, P[n] = P[0]), D + s*n
/// (D[k] = d(P[k], P[k+1])), pos + s*n (position of each city; candidate spaces only).
template <class Metric> struct TourBatchView {
    using point_type = typename Metric::point_type;
    Metric metric;
    const std::int32_t* tour = nullptr;
    const point_type* P = nullptr;
    const std::int32_t* D = nullptr;
    const std::int32_t* pos = nullptr;
    const std::int32_t* candidates = nullptr; ///< n x K nearest cities
    /// Focus (candidate spaces only; null = every city): per solution, the focused cities in
    /// increasing order (list + s*n) and their number (focus_count[s]).
    const std::int32_t* focus_list = nullptr;
    const std::int32_t* focus_count = nullptr;
    /// Objective of each solution (ThreeOptRandom: seeds its sample), else null.
    const Objective* objective = nullptr;
    std::int32_t n = 0;
    std::int32_t K = 0;
    /// Rows reserved for focused cities (an upper bound of every focus_count; with focus).
    std::int32_t focus_rows = 0;

    LOCUS_HD_INLINE const point_type* points(std::uint32_t s) const {
        return P + static_cast<std::int64_t>(s) * (n + 1);
    }
    LOCUS_HD_INLINE const std::int32_t* dists(std::uint32_t s) const {
        return D + static_cast<std::int64_t>(s) * n;
    }
    LOCUS_HD_INLINE const std::int32_t* tour_of(std::uint32_t s) const {
        return tour + static_cast<std::int64_t>(s) * n;
    }
    LOCUS_HD_INLINE const std::int32_t* pos_of(std::uint32_t s) const {
        return pos + static_cast<std::int64_t>(s) * n;
    }
};

/// Moves evaluated by one exploration of a batch: with focus, only the rows of focused cities
/// count (so both backends report the same numbers); otherwise the whole grid.
template <class Eval>
std::uint64_t exploration_cells(const Eval& eval, std::uint64_t batch,
                                std::uint64_t focused_total) {
    if (Eval::rows_per_focus > 0 && eval.v.focus_list != nullptr)
        return focused_total * static_cast<std::uint64_t>(Eval::rows_per_focus) * eval.grid().cols;
    return eval.grid().size() * batch;
}

/// Builds P, D (and pos when `pos` is non-null) of solution s from its tour; one thread.
template <class Metric>
LOCUS_HD_INLINE void prepare_entry(const Metric& metric, const std::int32_t* tour,
                                   typename Metric::point_type* P, std::int32_t* D,
                                   std::int32_t* pos, std::int32_t n, std::int32_t k) {
    const std::int32_t next = k + 1 == n ? 0 : k + 1;
    const auto a = metric.point(tour[k]);
    const auto b = metric.point(tour[next]);
    P[k] = a;
    if (k == 0) P[n] = a;
    D[k] = metric(a, b);
    if (pos != nullptr) pos[tour[k]] = k;
}

} // namespace locus::tsp
