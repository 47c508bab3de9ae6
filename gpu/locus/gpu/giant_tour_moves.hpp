#pragma once
/// \file
/// Moves on a giant tour evaluated through segment resources (segment_resources.hpp): the delta
/// of a move is the change of the penalised objective of the whole route set, from the
/// summaries of the segments the move reconnects (paper 001, §4.3), in O(1) per move. Moves
/// whose result exceeds a capacity or a duration limit are not moves (invalid_delta). Host-device
/// evaluators of the neighborhood engine (MoveEvaluator), for the CPU twin and kernels alike.

#include <cstdint>

#include "locus/gpu/neighborhood_engine.hpp"
#include "locus/gpu/segment_resources.hpp"
#include "locus/hd.hpp"

namespace locus::gpu {

/// Relative size below which a decrease of a real-valued objective is rounding, not improvement.
inline constexpr double kImprovementTolerance = 1e-12;

/// Distances of a routing instance: an n x n row-major matrix (host or device pointer).
struct DistanceMatrix {
    const double* d = nullptr;
    std::int32_t n = 0;
    LOCUS_HD_INLINE double operator()(std::int32_t u, std::int32_t v) const {
        return d[static_cast<std::int64_t>(u) * n + v];
    }
};

/// A 2-opt move on a closed giant tour t[0..L-1] (t[0] and t[L-1] depot copies): remove the
/// edges (i, i+1) and (j, j+1) and reverse positions i+1..j (0 <= i, i + 2 <= j <= L - 2). The
/// reversed part may span routes.
struct GiantTwoOptMove {
    std::int32_t i = 0;
    std::int32_t j = 0;
};

/// 2-opt over a batch of giant tours as a grid per tour: rows i in [0, L-1), columns j in
/// [0, L-1); cell (i, j) is a move when i + 2 <= j <= L - 2 and its result is feasible. Delta:
/// penalised objective after - before (vehicles, lambda as in closed_tour).
struct GiantTwoOpt {
    using delta_type = double;
    struct row_type {
        RouteSegment before;       ///< positions 0..i
        SegmentView segments;      ///< the tour's hierarchy
        const std::int32_t* tour;  ///< the tour
        double objective;          ///< its penalised objective
        std::int32_t i;
    };
    static constexpr std::int32_t rows_per_focus = 0;

    const SegmentView* segments = nullptr; ///< per tour
    const std::int32_t* tours = nullptr;   ///< batch x length
    const double* objectives = nullptr;    ///< per tour: penalised objective
    std::int32_t length = 0;               ///< L, positions of every tour
    DistanceMatrix distance;
    std::int32_t vehicles = 0;             ///< vehicle limit (0: none)
    double lambda = 0.0;                   ///< penalty per route beyond the limit

    LOCUS_HD_INLINE MoveGrid grid() const {
        const auto side = static_cast<std::uint32_t>(length > 1 ? length - 1 : 0);
        return {side, side};
    }
    LOCUS_HD_INLINE row_type row(std::uint32_t solution, std::uint32_t r) const {
        const auto i = static_cast<std::int32_t>(r);
        const SegmentView view = segments[solution];
        return {view.segment(0, i), view, tours + static_cast<std::int64_t>(solution) * length,
                objectives[solution], i};
    }
    LOCUS_HD_INLINE delta_type operator()(const row_type& x, std::uint32_t col) const {
        const auto j = static_cast<std::int32_t>(col);
        const std::int32_t last = length - 1;
        if (j < x.i + 2 || j > last - 1)
            return invalid_delta<delta_type>();
        const RouteResources& r = x.segments.resources;
        RouteSegment s =
            r.join(x.before, RouteResources::reversed(x.segments.segment(x.i + 1, j)),
                   distance(x.tour[x.i], x.tour[j]));
        s = r.join(s, x.segments.segment(j + 1, last), distance(x.tour[x.i + 1], x.tour[j + 1]));
        if (s.excess_load != 0 || s.excess_duration != 0.0)
            return invalid_delta<delta_type>();
        const double delta = closed_tour(s, vehicles, lambda).objective - x.objective;
        // NOTE: the summaries add lengths in another order than the tour, so a move to an
        // equally long tour may come out a few ulps below zero; such a move is not improving
        // (otherwise a descent could cycle between equal tours).
        const double scale = x.objective > 1.0 ? x.objective : 1.0;
        return delta > -kImprovementTolerance * scale ? (delta > 0.0 ? delta : 0.0) : delta;
    }
    LOCUS_HD_INLINE GiantTwoOptMove decode(std::uint32_t, std::uint64_t index) const {
        const std::uint64_t side = grid().cols;
        return {static_cast<std::int32_t>(index / side), static_cast<std::int32_t>(index % side)};
    }
};

} // namespace locus::gpu
