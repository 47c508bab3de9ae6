#pragma once
/// \file
/// Giant-tour pure 3-opt over segment summaries (Schulz 2011, §5): the whole grid
/// (GiantThreeOpt), the moves generated from candidate lists (GiantThreeOptNear) and the filter
/// that keeps the same moves on the whole grid (GiantThreeOptNearFilter). Host-device
/// evaluators of the neighborhood engine (MoveEvaluator), for the CPU twin and kernels alike;
/// every move says where each new position comes from (source(k)).

#include <cmath>
#include <cstdint>

#include "locus/gpu/neighborhood_engine.hpp"
#include "locus/hd.hpp"
#include "locus/routing/giant_tours.hpp"

namespace locus::routing {

/// A pure 3-opt move on a closed giant tour (Schulz 2011, §5: the reconnections of three removed
/// edges that no 2-opt move gives): remove the edges after positions x < y < z (z <= L - 2),
/// which leaves A = [0, x], B = [x+1, y], C = [y+1, z], D = [z+1, L-1], and reconnect
///   p = 0: A B' C' D   p = 1: A C B D   p = 2: A C B' D   p = 3: A C' B D
/// (' = reversed). Parts may span routes.
struct GiantThreeOptMove {
    std::int32_t x = 0;
    std::int32_t y = 0;
    std::int32_t z = 0;
    std::int32_t p = 0;

    /// The old position at new position k.
    LOCUS_HD_INLINE std::int32_t source(std::int32_t k) const {
        if (k <= x || k > z) return k;
        if (p == 0) return k <= y ? x + 1 + y - k : y + 1 + z - k;
        const std::int32_t split = x + (z - y); // the first part (C or C') ends here
        if (k <= split) return p == 3 ? z - (k - x - 1) : y + 1 + (k - x - 1);
        return p == 2 ? y - (k - split - 1) : x + 1 + (k - split - 1);
    }
};

/// Pure 3-opt over a batch of giant tours as a grid per tour. Rows: 4 per pair x < y <= L - 3,
/// row 4 y (y - 1) / 2 + p y + x (split_row); columns: z in [0, L - 1). Cell
/// (x, y, p; z) is a move when y < z <= L - 2 and its result is admissible
/// (GiantTours::admissible). Delta: the three added edges less the three removed ones;
/// bound(): the same without the feasibility check. One reconnection per row keeps a warp on
/// one code path; the feasibility check joins A X Y D with X, Y picked from B, B', C, C'.
template <class R> struct GiantThreeOpt {
    using delta_type = double;
    using move_type = GiantThreeOptMove;
    /// The row's context holds what bound() reads; the summaries the feasibility check joins
    /// are looked up only for the cells evaluated in full (few, with a bound), which keeps the
    /// context small (registers) while a row is swept.
    struct row_type {
        const std::int32_t* tour; ///< the tour
        const double* pos;        ///< its distances by position (or null)
        const float* near_row;    ///< float distances from t[near] by position (or null)
        const float* far_row;     ///< float distances from t[far] to t[k + 1] at k (or null)
        const double* edges;      ///< edges[k] = d(t[k-1], t[k]) (the hierarchy's)
        double removed;           ///< d(t[x], t[x+1]) + d(t[y], t[y+1])
        double fixed;             ///< the added edge that does not depend on z
        double objective;         ///< the tour's length
        float removed_f;          ///< removed and fixed as floats
        float fixed_f;
        std::uint32_t solution;
        std::int32_t x;
        std::int32_t y;
        std::int32_t p;
        std::int32_t near; ///< position joined to t[z] by an added edge
        std::int32_t far;  ///< position joined to t[z+1] by an added edge
    };
    static constexpr std::int32_t rows_per_focus = 0;

    GiantTours<R> tours;

    /// The pair (x, y) of pair index r (triangular order; exact for every r < 2^32).
    LOCUS_HD_INLINE static void pair_of(std::uint32_t r, std::int32_t& x, std::int32_t& y) {
        // NOTE: the square root guesses y; the two loops make it exact on host and device.
        auto yy = static_cast<std::int64_t>((1.0 + sqrt(1.0 + 8.0 * static_cast<double>(r))) / 2.0);
        while (yy * (yy - 1) / 2 > static_cast<std::int64_t>(r))
            --yy;
        while ((yy + 1) * yy / 2 <= static_cast<std::int64_t>(r))
            ++yy;
        y = static_cast<std::int32_t>(yy);
        x = static_cast<std::int32_t>(static_cast<std::int64_t>(r) - yy * (yy - 1) / 2);
    }

    /// Row r as (x, y, p): rows come y by y (4y rows each, from 4 y (y - 1) / 2), within a y
    /// p by p, within a p x by x; so neighbouring rows share y, p and one distance row.
    LOCUS_HD_INLINE static void split_row(std::uint32_t r, std::int32_t& x, std::int32_t& y,
                                          std::int32_t& p) {
        std::int32_t unused = 0;
        pair_of(r >> 2, unused, y);
        const auto start = static_cast<std::uint32_t>(2 * static_cast<std::int64_t>(y) * (y - 1));
        const std::uint32_t k = r - start;
        p = static_cast<std::int32_t>(k / static_cast<std::uint32_t>(y));
        x = static_cast<std::int32_t>(k % static_cast<std::uint32_t>(y));
    }

    LOCUS_HD_INLINE gpu::MoveGrid grid() const {
        const std::int64_t top = tours.length - 3; // largest y
        const std::int64_t pairs = top >= 1 ? top * (top + 1) / 2 : 0;
        const auto cols = static_cast<std::uint32_t>(tours.length > 1 ? tours.length - 1 : 0);
        return {static_cast<std::uint32_t>(4 * pairs), pairs > 0 ? cols : 0u};
    }
    LOCUS_HD_INLINE row_type row(std::uint32_t solution, std::uint32_t r) const {
        row_type c;
        split_row(r, c.x, c.y, c.p);
        c.solution = solution;
        c.tour = tours.tour(solution);
        c.pos = tours.positions(solution);
        c.edges = tours.segments[solution].edges;
        c.removed = c.edges[c.x + 1] + c.edges[c.y + 1];
        c.objective = tours.objectives[solution];
        // Added edges per reconnection (' = reversed), as positions:
        //   p = 0  A B' C' D: (x, y)     (x+1, z) (y+1, z+1)
        //   p = 1  A C B D:   (x, y+1)   (x+1, z) (y, z+1)
        //   p = 2  A C B' D:  (x, y+1)   (y, z)   (x+1, z+1)
        //   p = 3  A C' B D:  (x+1, y+1) (x, z)   (y, z+1)
        const std::int32_t fixed_a = c.p == 3 ? c.x + 1 : c.x;
        const std::int32_t fixed_b = c.p == 0 ? c.y : c.y + 1;
        c.fixed = tours.between(c.pos, c.tour, fixed_a, fixed_b);
        c.removed_f = static_cast<float>(c.removed);
        c.fixed_f = static_cast<float>(c.fixed);
        c.near = near_of(c.x, c.y, c.p);
        c.far = c.p == 0 ? c.y + 1 : (c.p == 2 ? c.x + 1 : c.y);
        const float* coarse = tours.coarse_positions(solution);
        c.near_row =
            coarse == nullptr ? nullptr : coarse + static_cast<std::int64_t>(c.near) * tours.length;
        c.far_row = coarse == nullptr
                        ? nullptr
                        : coarse + static_cast<std::int64_t>(c.far) * tours.length + 1;
        return c;
    }
    /// The columns that can be moves: z in (y, L - 2].
    LOCUS_HD_INLINE gpu::ColumnRange columns(const row_type& r) const {
        return {static_cast<std::uint32_t>(r.y + 1), grid().cols};
    }
    /// A lower bound of the cell's delta: the exact length change (delta_of), or with coarse
    /// distances their float sum less kCoarseMargin of the summed lengths; invalid_delta when
    /// the cell is not a move.
    LOCUS_HD_INLINE delta_type bound(const row_type& r, std::uint32_t col) const {
        if (r.near_row == nullptr) return delta_of(r, col);
        const auto z = static_cast<std::int32_t>(col);
        if (z <= r.y || z > tours.length - 2) return gpu::invalid_delta<delta_type>();
        const float added = r.fixed_f + r.near_row[z] + r.far_row[z];
        const float removed = r.removed_f + static_cast<float>(r.edges[z + 1]);
        return static_cast<double>((added - removed) - kCoarseMargin * (added + removed));
    }
    /// The length change of the move, or invalid_delta when the cell is not a move.
    LOCUS_HD_INLINE delta_type delta_of(const row_type& r, std::uint32_t col) const {
        const auto z = static_cast<std::int32_t>(col);
        if (z <= r.y || z > tours.length - 2) return gpu::invalid_delta<delta_type>();
        const double added = r.fixed + tours.between(r.pos, r.tour, r.near, z) +
                             tours.between(r.pos, r.tour, r.far, z + 1);
        const double removed = r.removed + r.edges[z + 1];
        return GiantTours<R>::clamp(added - removed, r.objective);
    }
    LOCUS_HD_INLINE delta_type operator()(const row_type& r, std::uint32_t col) const {
        const double delta = delta_of(r, col);
        if (delta == gpu::invalid_delta<delta_type>()) return delta;
        const auto z = static_cast<std::int32_t>(col);
        const SegmentView<R>& view = tours.segments[r.solution];
        const R& res = view.resources;
        const DistanceMatrix& d = tours.distance;
        const typename R::Segment b = view.segment(r.x + 1, r.y);
        const typename R::Segment c = view.segment(r.y + 1, z);
        // NOTE: by value, not by reference to one of several locals (which would put them on
        // the stack); p is the same for the whole row.
        typename R::Segment first;
        typename R::Segment second;
        switch (r.p) {
        case 0:
            first = R::reversed(b);
            second = R::reversed(c);
            break;
        case 1:
            first = c;
            second = b;
            break;
        case 2:
            first = c;
            second = R::reversed(b);
            break;
        default:
            first = R::reversed(c);
            second = b;
            break;
        }
        const typename R::Segment a = view.segment(0, r.x);
        typename R::Segment s = res.join(a, first, d(a.last, first.first));
        s = res.join(s, second, d(first.last, second.first));
        const typename R::Segment rest = view.segment(z + 1, tours.length - 1);
        s = res.join(s, rest, d(second.last, rest.first));
        return tours.admissible(s, tours.routes[r.solution]) ? delta
                                                             : gpu::invalid_delta<delta_type>();
    }
    LOCUS_HD_INLINE move_type decode(std::uint32_t, std::uint64_t index) const {
        const std::uint64_t cols = grid().cols;
        move_type m;
        const std::uint64_t row = cols == 0 ? 0 : index / cols;
        split_row(static_cast<std::uint32_t>(row), m.x, m.y, m.p);
        m.z = static_cast<std::int32_t>(cols == 0 ? 0 : index % cols);
        return m;
    }
    /// Whether `index` is a cell of the grid that can be a move.
    LOCUS_HD_INLINE bool well_formed(std::uint32_t, std::uint64_t index) const {
        if (index >= grid().size()) return false;
        const move_type m = decode(0, index);
        return m.x < m.y && m.y < m.z && m.z <= tours.length - 2;
    }

    /// The position joined to t[z] by an added edge in reconnection p.
    LOCUS_HD_INLINE static std::int32_t near_of(std::int32_t x, std::int32_t y, std::int32_t p) {
        return p == 2 ? y : (p == 3 ? x : x + 1);
    }
};

/// Pure 3-opt restricted to moves whose added edge at t[z] joins it to a candidate of its
/// partner: rows as GiantThreeOpt, columns k < K: z = the position of the k-th candidate of
/// t[near_of(x, y, p)] (a move when y < z <= L - 2), evaluated by GiantThreeOpt.
template <class R> struct GiantThreeOptNear {
    using delta_type = double;
    using move_type = GiantThreeOptMove;
    struct row_type {
        typename GiantThreeOpt<R>::row_type base;
        const std::int32_t* where; ///< this tour's positions of the nodes
        const std::int32_t* list;  ///< the candidates of t[near]
    };
    static constexpr std::int32_t rows_per_focus = 0;

    GiantThreeOpt<R> base;

    LOCUS_HD_INLINE gpu::MoveGrid grid() const {
        const gpu::MoveGrid full = base.grid();
        return {full.rows, full.rows > 0 ? static_cast<std::uint32_t>(base.tours.candidates) : 0u};
    }
    LOCUS_HD_INLINE row_type row(std::uint32_t solution, std::uint32_t r) const {
        const typename GiantThreeOpt<R>::row_type b = base.row(solution, r);
        const GiantTours<R>& t = base.tours;
        return {b, t.where + static_cast<std::int64_t>(solution) * t.nodes,
                t.neighbors + static_cast<std::int64_t>(b.tour[b.near]) * t.candidates};
    }
    LOCUS_HD_INLINE delta_type bound(const row_type& r, std::uint32_t col) const {
        return base.bound(r.base, static_cast<std::uint32_t>(r.where[r.list[col]]));
    }
    LOCUS_HD_INLINE delta_type operator()(const row_type& r, std::uint32_t col) const {
        return base(r.base, static_cast<std::uint32_t>(r.where[r.list[col]]));
    }
    LOCUS_HD_INLINE move_type decode(std::uint32_t solution, std::uint64_t index) const {
        const std::uint64_t cols = grid().cols;
        move_type m;
        GiantThreeOpt<R>::split_row(static_cast<std::uint32_t>(cols == 0 ? 0 : index / cols), m.x,
                                    m.y, m.p);
        const GiantTours<R>& t = base.tours;
        const std::int32_t node = t.tour(solution)[GiantThreeOpt<R>::near_of(m.x, m.y, m.p)];
        const std::int32_t candidate =
            t.neighbors[static_cast<std::int64_t>(node) * t.candidates +
                        static_cast<std::int64_t>(cols == 0 ? 0 : index % cols)];
        m.z = t.where[static_cast<std::int64_t>(solution) * t.nodes + candidate];
        return m;
    }
    LOCUS_HD_INLINE bool well_formed(std::uint32_t solution, std::uint64_t index) const {
        if (index >= grid().size()) return false;
        const move_type m = decode(solution, index);
        return m.x < m.y && m.y < m.z && m.z <= base.tours.length - 2;
    }
};

/// The move filter of GiantThreeOptNear on GiantThreeOpt's grid: cell (x, y, p; z) is kept
/// when t[z] is a candidate of t[near_of(x, y, p)] — the moves GiantThreeOptNear generates.
template <class R> struct GiantThreeOptNearFilter {
    GiantTours<R> tours;
    LOCUS_HD_INLINE bool operator()(std::uint32_t solution, std::uint64_t index) const {
        const auto cols = static_cast<std::uint64_t>(tours.length > 1 ? tours.length - 1 : 0);
        const auto row = static_cast<std::uint32_t>(index / cols);
        const auto z = static_cast<std::int32_t>(index - static_cast<std::uint64_t>(row) * cols);
        std::int32_t x = 0;
        std::int32_t y = 0;
        std::int32_t p = 0;
        GiantThreeOpt<R>::split_row(row, x, y, p);
        if (z <= y || z > tours.length - 2) return false;
        const std::int32_t* t = tours.tour(solution);
        return is_candidate(tours, t[GiantThreeOpt<R>::near_of(x, y, p)], t[z]);
    }
};

} // namespace locus::routing
