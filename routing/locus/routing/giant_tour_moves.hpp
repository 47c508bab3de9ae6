#pragma once
/// \file
/// Moves on a giant tour evaluated through segment resources (segment_resources.hpp): the delta
/// of a move is the change of the total length of the route set, from the summaries of the
/// segments the move reconnects (Schulz 2011, §4.3), in O(1) per move. Moves whose result exceeds
/// a capacity or a duration limit, or uses more routes than the fleet allows, are not moves
/// (invalid_delta). Host-device evaluators of the neighborhood engine (MoveEvaluator), for the
/// CPU twin and kernels alike.
///
/// A tour here is closed and linear: t[0] and t[L-1] are depot copies, and a move keeps both
/// ends. Every move is described by where each position of the new tour comes from
/// (source(k): the old position now at k), which is how the CPU and the device apply it.

#include <cstdint>

#include "locus/gpu/neighborhood_engine.hpp"
#include "locus/gpu/neighborhood_parts.hpp"
#include "locus/routing/segment_resources.hpp"
#include "locus/hd.hpp"

namespace locus::routing {

/// Relative size below which a decrease of a real-valued objective is rounding, not improvement.
inline constexpr double kImprovementTolerance = 1e-12;

/// The share of the summed lengths a float bound subtracts to stay below the exact delta: a sum
/// of a few float terms errs by a few 2^-24 of the summed magnitudes; 2^-18 covers it 16-fold.
inline constexpr float kCoarseMargin = 1.0f / 262144.0f;

/// Distances of a routing instance: an n x n row-major matrix (host or device pointer).
struct DistanceMatrix {
    const double* d = nullptr;
    std::int32_t n = 0;
    LOCUS_HD_INLINE double operator()(std::int32_t u, std::int32_t v) const {
        return d[static_cast<std::int64_t>(u) * n + v];
    }
};

/// The tours of a batch as the giant-tour evaluators read them (host or device pointers).
struct GiantTours {
    const SegmentView* segments = nullptr; ///< per tour: its hierarchy
    const std::int32_t* tours = nullptr;   ///< batch x length node ids
    const double* objectives = nullptr;    ///< per tour: total length (from its summary)
    const std::int32_t* routes = nullptr;  ///< per tour: non-empty routes
    std::int32_t length = 0;               ///< L, positions of every tour
    DistanceMatrix distance;
    std::int32_t vehicles = 0;             ///< fleet size (0: unlimited)
    /// Optional: batch x L x L distances between tour positions (entry (i, j) = d(t[i], t[j])),
    /// so that a row's lookups along a column sweep are contiguous; null: the node matrix. The
    /// values are the same either way.
    const double* by_position = nullptr;
    /// Optional (3-opt): batch x L x L float distances by position; bound() then filters with
    /// a float sum less a margin that covers its rounding, so it stays a lower bound, and the
    /// exact double delta is computed only for the cells that pass.
    const float* coarse = nullptr;

    /// Candidate lists (the *_near evaluators): the `candidates` nearest customers of every
    /// node (nodes x candidates ids), and per tour the position of every node in it (batch x
    /// nodes; the depot's entry unused).
    const std::int32_t* neighbors = nullptr;
    std::int32_t candidates = 0;
    const std::int32_t* where = nullptr;
    std::int32_t nodes = 0;

    /// The float distances between positions of `solution` (null without coarse).
    LOCUS_HD_INLINE const float* coarse_positions(std::uint32_t solution) const {
        return coarse == nullptr
                   ? nullptr
                   : coarse + static_cast<std::int64_t>(solution) * length * length;
    }

    /// The distances between positions of `solution` (null without by_position).
    LOCUS_HD_INLINE const double* positions(std::uint32_t solution) const {
        return by_position == nullptr
                   ? nullptr
                   : by_position + static_cast<std::int64_t>(solution) * length * length;
    }
    /// d(tour[i], tour[j]) through `pos` (positions(solution)) or the node matrix.
    LOCUS_HD_INLINE double between(const double* pos, const std::int32_t* tour, std::int32_t i,
                                   std::int32_t j) const {
        return pos != nullptr ? pos[static_cast<std::int64_t>(i) * length + j]
                              : distance(tour[i], tour[j]);
    }

    LOCUS_HD_INLINE const std::int32_t* tour(std::uint32_t solution) const {
        return tours + static_cast<std::int64_t>(solution) * length;
    }

    /// Whether a move whose new tour has summary `after`, from a tour with `routes_before`
    /// routes, is a move: no capacity or duration excess, and no more routes than
    /// max(vehicles, routes_before).
    LOCUS_HD_INLINE bool admissible(const RouteSegment& after, std::int32_t routes_before) const {
        if (after.excess_load != 0 || after.excess_duration != 0.0)
            return false;
        return !(vehicles > 0 && after.routes > vehicles && after.routes > routes_before);
    }

    /// A length change `d` of a tour of length `objective` as a delta: changes within rounding
    /// of zero are 0.
    LOCUS_HD_INLINE static double clamp(double d, double objective) {
        // NOTE: the added and removed edges are summed in different orders, so a move to an
        // equally long tour may come out a few ulps below zero; such a move is not improving
        // (otherwise a descent could cycle between equal tours).
        const double scale = objective > 1.0 ? objective : 1.0;
        return d > -kImprovementTolerance * scale ? (d > 0.0 ? d : 0.0) : d;
    }
};

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
struct GiantTwoOpt {
    using delta_type = double;
    using move_type = GiantTwoOptMove;
    /// The row's context holds what bound() reads; the summaries of the feasibility check are
    /// looked up only for the cells evaluated in full.
    struct row_type {
        const std::int32_t* tour;  ///< the tour
        const double* pos;         ///< its distances by position (or null)
        const double* edges;       ///< edges[k] = d(t[k-1], t[k]) (the hierarchy's)
        double removed;            ///< d(t[i], t[i+1])
        double objective;          ///< its length
        std::uint32_t solution;
        std::int32_t i;
    };
    static constexpr std::int32_t rows_per_focus = 0;

    GiantTours tours;

    LOCUS_HD_INLINE gpu::MoveGrid grid() const {
        const auto side = static_cast<std::uint32_t>(tours.length > 1 ? tours.length - 1 : 0);
        return {side, side};
    }
    LOCUS_HD_INLINE row_type row(std::uint32_t solution, std::uint32_t r) const {
        const auto i = static_cast<std::int32_t>(r);
        const double* edges = tours.segments[solution].edges;
        return {tours.tour(solution), tours.positions(solution), edges, edges[i + 1],
                tours.objectives[solution], solution, i};
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
        if (j < x.i + 2 || j > tours.length - 2)
            return gpu::invalid_delta<delta_type>();
        const double added =
            tours.between(x.pos, x.tour, x.i, j) + tours.between(x.pos, x.tour, x.i + 1, j + 1);
        const double removed = x.removed + x.edges[j + 1];
        return GiantTours::clamp(added - removed, x.objective);
    }
    LOCUS_HD_INLINE delta_type operator()(const row_type& x, std::uint32_t col) const {
        const double delta = bound(x, col);
        if (delta == gpu::invalid_delta<delta_type>())
            return delta;
        const auto j = static_cast<std::int32_t>(col);
        const std::int32_t last = tours.length - 1;
        const SegmentView& view = tours.segments[x.solution];
        const RouteResources& r = view.resources;
        const DistanceMatrix& d = tours.distance;
        RouteSegment s = r.join(view.segment(0, x.i),
                                RouteResources::reversed(view.segment(x.i + 1, j)),
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
        if (k <= x || k > z)
            return k;
        if (p == 0)
            return k <= y ? x + 1 + y - k : y + 1 + z - k;
        const std::int32_t split = x + (z - y); // the first part (C or C') ends here
        if (k <= split)
            return p == 3 ? z - (k - x - 1) : y + 1 + (k - x - 1);
        return p == 2 ? y - (k - split - 1) : x + 1 + (k - split - 1);
    }
};

/// Pure 3-opt over a batch of giant tours as a grid per tour. Rows: 4 per pair x < y <= L - 3,
/// row 4 y (y - 1) / 2 + p y + x (split_row); columns: z in [0, L - 1). Cell
/// (x, y, p; z) is a move when y < z <= L - 2 and its result is admissible
/// (GiantTours::admissible). Delta: the three added edges less the three removed ones;
/// bound(): the same without the feasibility check. One reconnection per row keeps a warp on
/// one code path; the feasibility check joins A X Y D with X, Y picked from B, B', C, C'.
struct GiantThreeOpt {
    using delta_type = double;
    using move_type = GiantThreeOptMove;
    /// The row's context holds what bound() reads; the summaries the feasibility check joins
    /// are looked up only for the cells evaluated in full (few, with a bound), which keeps the
    /// context small (registers) while a row is swept.
    struct row_type {
        const std::int32_t* tour;  ///< the tour
        const double* pos;         ///< its distances by position (or null)
        const float* near_row;     ///< float distances from t[near] by position (or null)
        const float* far_row;      ///< float distances from t[far] to t[k + 1] at k (or null)
        const double* edges;       ///< edges[k] = d(t[k-1], t[k]) (the hierarchy's)
        double removed;            ///< d(t[x], t[x+1]) + d(t[y], t[y+1])
        double fixed;              ///< the added edge that does not depend on z
        double objective;          ///< the tour's length
        float removed_f;           ///< removed and fixed as floats
        float fixed_f;
        std::uint32_t solution;
        std::int32_t x;
        std::int32_t y;
        std::int32_t p;
        std::int32_t near;  ///< position joined to t[z] by an added edge
        std::int32_t far;   ///< position joined to t[z+1] by an added edge
    };
    static constexpr std::int32_t rows_per_focus = 0;

    GiantTours tours;

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
        c.near_row = coarse == nullptr ? nullptr : coarse + static_cast<std::int64_t>(c.near) * tours.length;
        c.far_row = coarse == nullptr ? nullptr : coarse + static_cast<std::int64_t>(c.far) * tours.length + 1;
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
        if (r.near_row == nullptr)
            return delta_of(r, col);
        const auto z = static_cast<std::int32_t>(col);
        if (z <= r.y || z > tours.length - 2)
            return gpu::invalid_delta<delta_type>();
        const float added = r.fixed_f + r.near_row[z] + r.far_row[z];
        const float removed = r.removed_f + static_cast<float>(r.edges[z + 1]);
        return static_cast<double>((added - removed) - kCoarseMargin * (added + removed));
    }
    /// The length change of the move, or invalid_delta when the cell is not a move.
    LOCUS_HD_INLINE delta_type delta_of(const row_type& r, std::uint32_t col) const {
        const auto z = static_cast<std::int32_t>(col);
        if (z <= r.y || z > tours.length - 2)
            return gpu::invalid_delta<delta_type>();
        const double added = r.fixed + tours.between(r.pos, r.tour, r.near, z) +
                             tours.between(r.pos, r.tour, r.far, z + 1);
        const double removed = r.removed + r.edges[z + 1];
        return GiantTours::clamp(added - removed, r.objective);
    }
    LOCUS_HD_INLINE delta_type operator()(const row_type& r, std::uint32_t col) const {
        const double delta = delta_of(r, col);
        if (delta == gpu::invalid_delta<delta_type>())
            return delta;
        const auto z = static_cast<std::int32_t>(col);
        const SegmentView& view = tours.segments[r.solution];
        const RouteResources& res = view.resources;
        const DistanceMatrix& d = tours.distance;
        const RouteSegment b = view.segment(r.x + 1, r.y);
        const RouteSegment c = view.segment(r.y + 1, z);
        // NOTE: by value, not by reference to one of several locals (which would put them on
        // the stack); p is the same for the whole row.
        RouteSegment first;
        RouteSegment second;
        switch (r.p) {
        case 0:
            first = RouteResources::reversed(b);
            second = RouteResources::reversed(c);
            break;
        case 1:
            first = c;
            second = b;
            break;
        case 2:
            first = c;
            second = RouteResources::reversed(b);
            break;
        default:
            first = RouteResources::reversed(c);
            second = b;
            break;
        }
        const RouteSegment a = view.segment(0, r.x);
        RouteSegment s = res.join(a, first, d(a.last, first.first));
        s = res.join(s, second, d(first.last, second.first));
        const RouteSegment rest = view.segment(z + 1, tours.length - 1);
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
        if (index >= grid().size())
            return false;
        const move_type m = decode(0, index);
        return m.x < m.y && m.y < m.z && m.z <= tours.length - 2;
    }

    /// The position joined to t[z] by an added edge in reconnection p.
    LOCUS_HD_INLINE static std::int32_t near_of(std::int32_t x, std::int32_t y, std::int32_t p) {
        return p == 2 ? y : (p == 3 ? x : x + 1);
    }
};

/// 2-opt restricted to moves that add an edge between a node and one of its `candidates`
/// nearest customers (GiantTours::neighbors): rows i in [0, L-1), columns 2K. Column v K + k
/// joins t[i] to its k-th candidate at position j: v = 0 adds the edge as (t[a], t[b]) with a =
/// min(i, j), b = max(i, j); v = 1 as (t[a+1], t[b+1]), a = min(i, j) - 1. Move (a, b) is then the
/// 2-opt move of GiantTwoOpt (valid when a >= 0, a + 2 <= b <= L - 2), with the same delta.
struct GiantTwoOptNear {
    using delta_type = double;
    using move_type = GiantTwoOptMove;
    struct row_type {
        SegmentView segments;
        const std::int32_t* tour;
        const double* pos;
        const std::int32_t* where; ///< this tour's positions of the nodes
        const std::int32_t* list;  ///< the candidates of t[i]
        double objective;
        std::int32_t routes;
        std::int32_t i;
    };
    static constexpr std::int32_t rows_per_focus = 0;

    GiantTours tours;

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
        const auto k = static_cast<std::int32_t>(col % static_cast<std::uint32_t>(tours.candidates));
        const std::int32_t j = where[list[k]];
        const std::int32_t shift = col < static_cast<std::uint32_t>(tours.candidates) ? 0 : 1;
        a = (i < j ? i : j) - shift;
        b = (i < j ? j : i) - shift;
        return a >= 0 && b >= a + 2 && b <= tours.length - 2;
    }
    LOCUS_HD_INLINE delta_type bound(const row_type& x, std::uint32_t col) const {
        std::int32_t a = 0;
        std::int32_t b = 0;
        if (!pair(x.i, x.where, x.list, col, a, b))
            return gpu::invalid_delta<delta_type>();
        const double added =
            tours.between(x.pos, x.tour, a, b) + tours.between(x.pos, x.tour, a + 1, b + 1);
        const double removed = x.segments.edges[a + 1] + x.segments.edges[b + 1];
        return GiantTours::clamp(added - removed, x.objective);
    }
    LOCUS_HD_INLINE delta_type operator()(const row_type& x, std::uint32_t col) const {
        const double delta = bound(x, col);
        if (delta == gpu::invalid_delta<delta_type>())
            return delta;
        std::int32_t a = 0;
        std::int32_t b = 0;
        pair(x.i, x.where, x.list, col, a, b);
        const std::int32_t last = tours.length - 1;
        const RouteResources& r = x.segments.resources;
        const DistanceMatrix& d = tours.distance;
        RouteSegment s = r.join(x.segments.segment(0, a),
                                RouteResources::reversed(x.segments.segment(a + 1, b)),
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
        if (index >= grid().size())
            return false;
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

/// Pure 3-opt restricted to moves whose added edge at t[z] joins it to a candidate of its
/// partner: rows as GiantThreeOpt, columns k < K: z = the position of the k-th candidate of
/// t[near_of(x, y, p)] (a move when y < z <= L - 2), evaluated by GiantThreeOpt.
struct GiantThreeOptNear {
    using delta_type = double;
    using move_type = GiantThreeOptMove;
    struct row_type {
        GiantThreeOpt::row_type base;
        const std::int32_t* where; ///< this tour's positions of the nodes
        const std::int32_t* list;  ///< the candidates of t[near]
    };
    static constexpr std::int32_t rows_per_focus = 0;

    GiantThreeOpt base;

    LOCUS_HD_INLINE gpu::MoveGrid grid() const {
        const gpu::MoveGrid full = base.grid();
        return {full.rows, full.rows > 0 ? static_cast<std::uint32_t>(base.tours.candidates) : 0u};
    }
    LOCUS_HD_INLINE row_type row(std::uint32_t solution, std::uint32_t r) const {
        const GiantThreeOpt::row_type b = base.row(solution, r);
        const GiantTours& t = base.tours;
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
        GiantThreeOpt::split_row(static_cast<std::uint32_t>(cols == 0 ? 0 : index / cols), m.x,
                                 m.y, m.p);
        const GiantTours& t = base.tours;
        const std::int32_t node = t.tour(solution)[GiantThreeOpt::near_of(m.x, m.y, m.p)];
        const std::int32_t candidate =
            t.neighbors[static_cast<std::int64_t>(node) * t.candidates +
                        static_cast<std::int64_t>(cols == 0 ? 0 : index % cols)];
        m.z = t.where[static_cast<std::int64_t>(solution) * t.nodes + candidate];
        return m;
    }
    LOCUS_HD_INLINE bool well_formed(std::uint32_t solution, std::uint64_t index) const {
        if (index >= grid().size())
            return false;
        const move_type m = decode(solution, index);
        return m.x < m.y && m.y < m.z && m.z <= base.tours.length - 2;
    }
};

/// Whether `node`'s candidate list (GiantTours::neighbors) holds `other`.
LOCUS_HD_INLINE bool is_candidate(const GiantTours& t, std::int32_t node, std::int32_t other) {
    const std::int32_t* list = t.neighbors + static_cast<std::int64_t>(node) * t.candidates;
    for (std::int32_t k = 0; k < t.candidates; ++k)
        if (list[k] == other)
            return true;
    return false;
}

/// The move filter of GiantTwoOptNear on GiantTwoOpt's grid (neighborhood_parts.hpp): cell
/// (i, j) is kept when an added edge, (t[i], t[j]) or (t[i+1], t[j+1]), joins a node to one of
/// its candidates (either way round) — the moves GiantTwoOptNear generates, each once.
struct GiantTwoOptNearFilter {
    GiantTours tours;
    LOCUS_HD_INLINE bool operator()(std::uint32_t solution, std::uint64_t index) const {
        const auto side = static_cast<std::uint64_t>(tours.length > 1 ? tours.length - 1 : 0);
        const auto i = static_cast<std::int32_t>(index / side);
        const auto j = static_cast<std::int32_t>(index - static_cast<std::uint64_t>(i) * side);
        if (j < i + 2 || j > tours.length - 2)
            return false;
        const std::int32_t* t = tours.tour(solution);
        const auto pair = [&](std::int32_t u, std::int32_t v) {
            return is_candidate(tours, u, v) || is_candidate(tours, v, u);
        };
        return pair(t[i], t[j]) || pair(t[i + 1], t[j + 1]);
    }
};

/// The move filter of GiantThreeOptNear on GiantThreeOpt's grid: cell (x, y, p; z) is kept
/// when t[z] is a candidate of t[near_of(x, y, p)] — the moves GiantThreeOptNear generates.
struct GiantThreeOptNearFilter {
    GiantTours tours;
    LOCUS_HD_INLINE bool operator()(std::uint32_t solution, std::uint64_t index) const {
        const auto cols = static_cast<std::uint64_t>(tours.length > 1 ? tours.length - 1 : 0);
        const auto row = static_cast<std::uint32_t>(index / cols);
        const auto z = static_cast<std::int32_t>(index - static_cast<std::uint64_t>(row) * cols);
        std::int32_t x = 0;
        std::int32_t y = 0;
        std::int32_t p = 0;
        GiantThreeOpt::split_row(row, x, y, p);
        if (z <= y || z > tours.length - 2)
            return false;
        const std::int32_t* t = tours.tour(solution);
        return is_candidate(tours, t[GiantThreeOpt::near_of(x, y, p)], t[z]);
    }
};

/// The candidate filter of a whole-grid giant-tour evaluator (KeepEveryCell for the others).
template <class E> struct NearFilterOf {
    using type = gpu::KeepEveryCell;
};
template <> struct NearFilterOf<GiantTwoOpt> {
    using type = GiantTwoOptNearFilter;
};
template <> struct NearFilterOf<GiantThreeOpt> {
    using type = GiantThreeOptNearFilter;
};

/// An evaluator of type E over the tours `t` (the wrapped evaluator's, for GiantThreeOptNear).
template <class E> LOCUS_HD_INLINE E with_tours(const GiantTours& t) {
    E eval;
    if constexpr (requires { eval.base.tours; })
        eval.base.tours = t;
    else
        eval.tours = t;
    return eval;
}

} // namespace locus::routing
