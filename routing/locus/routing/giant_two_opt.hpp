#pragma once
/// \file
/// Giant-tour 2-opt over segment summaries (Schulz 2011, §4.3): the whole grid (GiantTwoOpt),
/// the moves generated from candidate lists (GiantTwoOptNear) and the filter that keeps the
/// same moves on the whole grid (GiantTwoOptNearFilter). Host-device evaluators of the
/// neighborhood engine (MoveEvaluator), for the CPU twin and kernels alike; every move says
/// where each new position comes from (source(k)), which is how both backends apply it.

#include <cstdint>

#include "locus/gpu/neighborhood_engine.hpp"
#include "locus/hd.hpp"
#include "locus/routing/giant_tours.hpp"

namespace locus::routing {

/// A 2-opt move on a closed giant tour t[0..L-1]: remove the edges (i, i+1) and (j, j+1) and
/// reverse positions i+1..j (0 <= i, i + 2 <= j <= L - 2). The reversed part may span routes.
struct GiantTwoOptMove {
    std::int32_t i = 0;
    std::int32_t j = 0;

    /// The old position at new position k.
    LOCUS_HD_INLINE std::int32_t source(std::int32_t k) const {
        return k > i && k <= j ? i + 1 + j - k : k;
    }
};

/// 2-opt over a batch of giant tours as a grid per tour: rows i in [0, L-1), columns j in
/// [0, L-1); cell (i, j) is a move when i + 2 <= j <= L - 2 and its result is admissible
/// (GiantTours::admissible). Delta: the two added edges less the two removed ones; bound():
/// the same delta without the feasibility check, so the engine checks feasibility only for
/// cells that could be chosen.
template <class R> struct GiantTwoOpt {
    using delta_type = double;
    using move_type = GiantTwoOptMove;
    /// The row's context holds what bound() reads; the summaries of the feasibility check are
    /// looked up only for the cells evaluated in full.
    struct row_type {
        const std::int32_t* tour; ///< the tour
        const double* pos;        ///< its distances by position (or null)
        const double* edges;      ///< edges[k] = d(t[k-1], t[k]) (the hierarchy's)
        double removed;           ///< d(t[i], t[i+1])
        double objective;         ///< its length
        std::uint32_t solution;
        std::int32_t i;
    };
    static constexpr std::int32_t rows_per_focus = 0;

    GiantTours<R> tours;

    LOCUS_HD_INLINE gpu::MoveGrid grid() const {
        const auto side = static_cast<std::uint32_t>(tours.length > 1 ? tours.length - 1 : 0);
        return {side, side};
    }
    LOCUS_HD_INLINE row_type row(std::uint32_t solution, std::uint32_t r) const {
        const auto i = static_cast<std::int32_t>(r);
        const double* edges = tours.segments[solution].edges;
        return {tours.tour(solution),
                tours.positions(solution),
                edges,
                edges[i + 1],
                tours.objectives[solution],
                solution,
                i};
    }
    /// The columns that can be moves: j in [i + 2, L - 1).
    LOCUS_HD_INLINE gpu::ColumnRange columns(const row_type& x) const {
        const auto end = static_cast<std::uint32_t>(tours.length > 1 ? tours.length - 1 : 0);
        const auto begin = static_cast<std::uint32_t>(x.i + 2);
        return {begin < end ? begin : end, end};
    }
    /// The length change of move (i, j), or invalid_delta when (i, j) is not a cell of a move.
    LOCUS_HD_INLINE delta_type bound(const row_type& x, std::uint32_t col) const {
        const auto j = static_cast<std::int32_t>(col);
        if (j < x.i + 2 || j > tours.length - 2) return gpu::invalid_delta<delta_type>();
        const double added =
            tours.between(x.pos, x.tour, x.i, j) + tours.between(x.pos, x.tour, x.i + 1, j + 1);
        const double removed = x.removed + x.edges[j + 1];
        return GiantTours<R>::clamp(added - removed, x.objective);
    }
    LOCUS_HD_INLINE delta_type operator()(const row_type& x, std::uint32_t col) const {
        const double delta = bound(x, col);
        if (delta == gpu::invalid_delta<delta_type>()) return delta;
        const auto j = static_cast<std::int32_t>(col);
        const std::int32_t last = tours.length - 1;
        const SegmentView<R>& view = tours.segments[x.solution];
        const R& r = view.resources;
        const DistanceMatrix& d = tours.distance;
        typename R::Segment s = r.join(view.segment(0, x.i), R::reversed(view.segment(x.i + 1, j)),
                                       d(x.tour[x.i], x.tour[j]));
        s = r.join(s, view.segment(j + 1, last), d(x.tour[x.i + 1], x.tour[j + 1]));
        return tours.admissible(s, tours.routes[x.solution]) ? delta
                                                             : gpu::invalid_delta<delta_type>();
    }
    LOCUS_HD_INLINE move_type decode(std::uint32_t, std::uint64_t index) const {
        const std::uint64_t side = grid().cols;
        return {static_cast<std::int32_t>(index / side), static_cast<std::int32_t>(index % side)};
    }
    /// Whether `index` is a cell of the grid that can be a move.
    LOCUS_HD_INLINE bool well_formed(std::uint32_t, std::uint64_t index) const {
        const move_type m = decode(0, index);
        return index < grid().size() && m.j >= m.i + 2 && m.j <= tours.length - 2;
    }
};

/// 2-opt restricted to moves that add an edge between a node and one of its `candidates`
/// nearest customers (GiantTours::neighbors): rows i in [0, L-1), columns 2K. Column v K + k
/// joins t[i] to its k-th candidate at position j: v = 0 adds the edge as (t[a], t[b]) with a =
/// min(i, j), b = max(i, j); v = 1 as (t[a+1], t[b+1]), a = min(i, j) - 1. Move (a, b) is then the
/// 2-opt move of GiantTwoOpt (valid when a >= 0, a + 2 <= b <= L - 2), with the same delta.
template <class R> struct GiantTwoOptNear {
    using delta_type = double;
    using move_type = GiantTwoOptMove;
    struct row_type {
        SegmentView<R> segments;
        const std::int32_t* tour;
        const double* pos;
        const std::int32_t* where; ///< this tour's positions of the nodes
        const std::int32_t* list;  ///< the candidates of t[i]
        double objective;
        std::int32_t routes;
        std::int32_t i;
    };
    static constexpr std::int32_t rows_per_focus = 0;

    GiantTours<R> tours;

    LOCUS_HD_INLINE gpu::MoveGrid grid() const {
        const auto rows = static_cast<std::uint32_t>(tours.length > 1 ? tours.length - 1 : 0);
        return {rows, rows > 0 ? static_cast<std::uint32_t>(2 * tours.candidates) : 0u};
    }
    LOCUS_HD_INLINE row_type row(std::uint32_t solution, std::uint32_t r) const {
        const auto i = static_cast<std::int32_t>(r);
        const std::int32_t* tour = tours.tour(solution);
        return {tours.segments[solution],
                tour,
                tours.positions(solution),
                tours.where + static_cast<std::int64_t>(solution) * tours.nodes,
                tours.neighbors + static_cast<std::int64_t>(tour[i]) * tours.candidates,
                tours.objectives[solution],
                tours.routes[solution],
                i};
    }
    /// The move (a, b) of cell `col` of row `i`; false when it is not a move.
    LOCUS_HD_INLINE bool pair(std::int32_t i, const std::int32_t* where, const std::int32_t* list,
                              std::uint32_t col, std::int32_t& a, std::int32_t& b) const {
        const auto k =
            static_cast<std::int32_t>(col % static_cast<std::uint32_t>(tours.candidates));
        const std::int32_t j = where[list[k]];
        const std::int32_t shift = col < static_cast<std::uint32_t>(tours.candidates) ? 0 : 1;
        a = (i < j ? i : j) - shift;
        b = (i < j ? j : i) - shift;
        return a >= 0 && b >= a + 2 && b <= tours.length - 2;
    }
    LOCUS_HD_INLINE delta_type bound(const row_type& x, std::uint32_t col) const {
        std::int32_t a = 0;
        std::int32_t b = 0;
        if (!pair(x.i, x.where, x.list, col, a, b)) return gpu::invalid_delta<delta_type>();
        const double added =
            tours.between(x.pos, x.tour, a, b) + tours.between(x.pos, x.tour, a + 1, b + 1);
        const double removed = x.segments.edges[a + 1] + x.segments.edges[b + 1];
        return GiantTours<R>::clamp(added - removed, x.objective);
    }
    LOCUS_HD_INLINE delta_type operator()(const row_type& x, std::uint32_t col) const {
        const double delta = bound(x, col);
        if (delta == gpu::invalid_delta<delta_type>()) return delta;
        std::int32_t a = 0;
        std::int32_t b = 0;
        pair(x.i, x.where, x.list, col, a, b);
        const std::int32_t last = tours.length - 1;
        const R& r = x.segments.resources;
        const DistanceMatrix& d = tours.distance;
        typename R::Segment s =
            r.join(x.segments.segment(0, a), R::reversed(x.segments.segment(a + 1, b)),
                   d(x.tour[a], x.tour[b]));
        s = r.join(s, x.segments.segment(b + 1, last), d(x.tour[a + 1], x.tour[b + 1]));
        return tours.admissible(s, x.routes) ? delta : gpu::invalid_delta<delta_type>();
    }
    LOCUS_HD_INLINE move_type decode(std::uint32_t solution, std::uint64_t index) const {
        const std::uint64_t cols = grid().cols;
        const auto i = static_cast<std::int32_t>(cols == 0 ? 0 : index / cols);
        const std::int32_t* tour = tours.tour(solution);
        move_type m;
        pair(i, tours.where + static_cast<std::int64_t>(solution) * tours.nodes,
             tours.neighbors + static_cast<std::int64_t>(tour[i]) * tours.candidates,
             static_cast<std::uint32_t>(index % cols), m.i, m.j);
        return m;
    }
    LOCUS_HD_INLINE bool well_formed(std::uint32_t solution, std::uint64_t index) const {
        if (index >= grid().size()) return false;
        const std::uint64_t cols = grid().cols;
        const auto i = static_cast<std::int32_t>(index / cols);
        const std::int32_t* tour = tours.tour(solution);
        std::int32_t a = 0;
        std::int32_t b = 0;
        return pair(i, tours.where + static_cast<std::int64_t>(solution) * tours.nodes,
                    tours.neighbors + static_cast<std::int64_t>(tour[i]) * tours.candidates,
                    static_cast<std::uint32_t>(index % cols), a, b);
    }
};

/// The move filter of GiantTwoOptNear on GiantTwoOpt's grid (neighborhood_parts.hpp): cell
/// (i, j) is kept when an added edge, (t[i], t[j]) or (t[i+1], t[j+1]), joins a node to one of
/// its candidates (either way round) — the moves GiantTwoOptNear generates, each once.
template <class R> struct GiantTwoOptNearFilter {
    GiantTours<R> tours;
    LOCUS_HD_INLINE bool operator()(std::uint32_t solution, std::uint64_t index) const {
        const auto side = static_cast<std::uint64_t>(tours.length > 1 ? tours.length - 1 : 0);
        const auto i = static_cast<std::int32_t>(index / side);
        const auto j = static_cast<std::int32_t>(index - static_cast<std::uint64_t>(i) * side);
        if (j < i + 2 || j > tours.length - 2) return false;
        const std::int32_t* t = tours.tour(solution);
        const auto pair = [&](std::int32_t u, std::int32_t v) {
            return is_candidate(tours, u, v) || is_candidate(tours, v, u);
        };
        return pair(t[i], t[j]) || pair(t[i + 1], t[j + 1]);
    }
};

} // namespace locus::routing
