#pragma once
/// \file
/// The 2-opt operator: remove two edges (i, i+1) and (j, j+1), i < j, and reconnect by
/// reversing the path between them. TourMove: i, j (positions of the tour before the move).
///
/// Index spaces (n cities, K candidates per city; index = row * cols + col):
/// - TwoOptFull: rows n/2 - 1, cols n. Row r is the diagonal k = r + 2 of the cyclic move table:
///   cell c removes the edges after positions c and c + k (mod n), normalised to (i < j); for
///   even n the cells c >= n/2 of the last row repeat its first half and hold no move. Along a
///   diagonal, neighbouring cells share an added edge (the engine's linked sweep).
/// - TwoOptCandidates: rows n (position i), cols 2K: new edge (t[i], c) for the k-th candidate
///   c of t[i], with successors (col 2k) or predecessors (col 2k+1) reconnected.
///   With focus, row r is the r-th focused city instead of position r (rows focus_rows).
///
/// Independence (Riise & Burke 2014, sec. 5.3): two 2-opt moves are dependent if and only if
/// their edge pairs interleave (i < k < j < l or k < i < l < j) or share an edge; nested and
/// disjoint moves are independent, so their gains add up (symmetric distances) and they can be
/// applied together.

#include <algorithm>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "locus/tsp/moves.hpp"
#include "locus/tsp/neighborhood_spec.hpp"
#include "locus/tsp/tour_view.hpp"
#include "locus/tsp/two_opt_rows.hpp"

namespace locus::tsp {

struct TwoOpt;

/// Delta of 2-opt (i, j), 0 <= i < j < n, j >= i + 2: replaces edges (i,i+1), (j,j+1) by
/// (i,j), (i+1,j+1).
template <class Delta, class Metric, class Point>
LOCUS_HD_INLINE Delta two_opt_delta(const Metric& d, const Point* P, const std::int32_t* D,
                                    std::int32_t i, std::int32_t j) {
    return static_cast<Delta>(d(P[i], P[j])) + d(P[i + 1], P[j + 1]) - D[i] - D[j];
}

template <class Metric, class Delta = std::int64_t> struct TwoOptFull {
    using operator_type = TwoOpt;
    using delta_type = Delta;
    using point_type = typename Metric::point_type;
    using link_type = std::int32_t;
    struct row_type {
        const point_type* P;
        const std::int32_t* D;
        std::int32_t k; ///< the diagonal: cell c removes the edges after positions c and c + k
        std::int32_t n; ///< cities (positions wrap at n)
    };
    TourBatchView<Metric> v;

    /// Grid rows per focused city (0: the space ignores focus).
    static constexpr std::int32_t rows_per_focus = 0;
    /// Rows are the diagonals k = 2 .. n/2 of the cyclic move table, columns the positions c:
    /// cell (k - 2, c) removes the edges (P[c], P[c+1]) and (P[c+k], P[c+k+1]) (positions mod
    /// n) and adds (P[c], P[c+k]) and (P[c+1], P[c+k+1]). Diagonal k and n - k hold the same
    /// moves, so k stops at n/2, and for even n the second half of the last diagonal repeats its
    /// first (invalid cells, outside columns()).
    LOCUS_HD_INLINE gpu::MoveGrid grid() const {
        return {static_cast<std::uint32_t>(v.n < 4 ? 0 : v.n / 2 - 1),
                static_cast<std::uint32_t>(v.n)};
    }
    LOCUS_HD_INLINE row_type row(std::uint32_t s, std::uint32_t r) const {
        return {opaque_global(v.points(s)), opaque_global(v.dists(s)),
                static_cast<std::int32_t>(r) + 2, v.n};
    }
    LOCUS_HD_INLINE gpu::ColumnRange columns(const row_type& x) const {
        return {0u, static_cast<std::uint32_t>(2 * x.k == v.n ? x.k : v.n)};
    }
    /// Position c + k (mod n) for c <= n.
    /// NOTE: unsigned positions and the row's own n keep the device's address arithmetic to
    /// one 32 x 64-bit multiply-add per load (the 2-opt sweep is bound by instruction issue).
    LOCUS_HD_INLINE std::uint32_t across(const row_type& x, std::uint32_t c) const {
        const std::uint32_t b = c + static_cast<std::uint32_t>(x.k);
        return b >= static_cast<std::uint32_t>(x.n) ? b - static_cast<std::uint32_t>(x.n) : b;
    }
    /// The added edge shared by cells c - 1 and c of a diagonal: d(P[c], P[c + k]), c <= n
    /// (the engine's linked sweep computes it once for both; LinkedEvaluator).
    LOCUS_HD_INLINE link_type link(const row_type& x, std::uint32_t col) const {
        return v.metric(load_point(x.P + col), load_point(x.P + across(x, col)));
    }
    /// The delta of cell c from link(c) and link(c + 1).
    LOCUS_HD_INLINE delta_type linked(const row_type& x, std::uint32_t col, link_type here,
                                      link_type next) const {
        return static_cast<delta_type>(here + next - x.D[col] - x.D[across(x, col)]);
    }
    LOCUS_HD_INLINE delta_type operator()(const row_type& x, std::uint32_t col) const {
        if (2 * x.k == v.n && static_cast<std::int32_t>(col) >= x.k)
            return gpu::invalid_delta<delta_type>();
        return linked(x, col, link(x, col), link(x, col + 1));
    }
    /// Host (RowScanningEvaluator, EUC_2D on integral coordinates only; other metrics take the
    /// engine's cell loop): the best cell of columns [begin, end) of a row, vectorised.
    gpu::MoveResult<delta_type> best_in_row(const row_type& x, std::uint32_t begin,
                                            std::uint32_t end) const
        requires(Metric::kind == MetricKind::euc_2d_int && std::is_integral_v<Delta>) {
        gpu::MoveResult<delta_type> best{gpu::invalid_delta<delta_type>(), kNoMove};
        const auto last = static_cast<std::int32_t>(std::min(end, columns(x).end));
        // Columns below n - k pair P + c with P + c + k; the rest wrap to P + c + k - n (both
        // runs read one point past their last cell, at most P[n] = P[0]).
        const auto run = [&](std::int32_t b, std::int32_t e, std::int32_t shift) {
            if (b >= e) return;
            const RowBest r =
                euc_int_two_opt_diagonal(x.P + b, x.P + b + shift, x.D + b, x.D + b + shift, e - b);
            if (r.offset >= 0 && static_cast<delta_type>(r.delta) < best.delta)
                best = {static_cast<delta_type>(r.delta), static_cast<std::uint64_t>(b + r.offset)};
        };
        const std::int32_t wrap_at = v.n - x.k;
        run(static_cast<std::int32_t>(begin), std::min(last, wrap_at), x.k);
        run(std::max(static_cast<std::int32_t>(begin), wrap_at), last, x.k - v.n);
        return best;
    }
    LOCUS_HD_INLINE TourMove decode(std::uint32_t, std::uint64_t index) const {
        const auto cols = static_cast<std::uint64_t>(v.n);
        const auto k = static_cast<std::int32_t>(index / cols) + 2;
        const auto c = static_cast<std::int32_t>(index % cols);
        const std::int32_t b = c + k >= v.n ? c + k - v.n : c + k;
        TourMove m;
        m.kind = MoveKind::two_opt;
        m.i = c < b ? c : b;
        m.j = c < b ? b : c;
        m.valid = 2 * k <= v.n && !(2 * k == v.n && c >= k);
        return m;
    }
};

template <class Metric, class Delta = std::int64_t> struct TwoOptCandidates {
    using operator_type = TwoOpt;
    using delta_type = Delta;
    using point_type = typename Metric::point_type;
    struct row_type {
        std::uint32_t s;
        std::int32_t i; ///< position of the row's city, -1 for an unused focus row
        std::int32_t city;
    };
    TourBatchView<Metric> v;

    /// Grid rows per focused city (0: the space ignores focus).
    static constexpr std::int32_t rows_per_focus = 1;
    LOCUS_HD_INLINE gpu::MoveGrid grid() const {
        const std::int32_t rows = v.focus_list != nullptr ? v.focus_rows : v.n;
        return {static_cast<std::uint32_t>(v.n < 4 ? 0 : rows),
                static_cast<std::uint32_t>(2 * v.K)};
    }
    LOCUS_HD_INLINE row_type row(std::uint32_t s, std::uint32_t r) const {
        const auto q = static_cast<std::int32_t>(r);
        if (v.focus_list == nullptr) return {s, q, v.tour_of(s)[r]};
        if (q >= v.focus_count[s]) return {s, -1, 0};
        const std::int32_t city = v.focus_list[static_cast<std::int64_t>(s) * v.n + q];
        return {s, v.pos_of(s)[city], city};
    }
    /// The normalised 2-opt (x < y) of grid cell (s, i, col).
    LOCUS_HD_INLINE TourMove move_of(std::uint32_t s, std::int32_t i, std::int32_t city,
                                     std::uint32_t col) const {
        const std::int32_t other = v.candidates[static_cast<std::int64_t>(city) * v.K + (col >> 1)];
        const std::int32_t j = v.pos_of(s)[other];
        std::int32_t x = i, y = j;
        if ((col & 1u) != 0) {
            x = wrap(i - 1, v.n);
            y = wrap(j - 1, v.n);
        }
        TourMove m;
        m.kind = MoveKind::two_opt;
        m.i = x < y ? x : y;
        m.j = x < y ? y : x;
        m.valid = m.j - m.i >= 2 && !(m.i == 0 && m.j == v.n - 1);
        return m;
    }
    LOCUS_HD_INLINE delta_type operator()(const row_type& x, std::uint32_t col) const {
        if (x.i < 0) return gpu::invalid_delta<delta_type>();
        const TourMove m = move_of(x.s, x.i, x.city, col);
        if (!m.valid) return gpu::invalid_delta<delta_type>();
        return two_opt_delta<Delta>(v.metric, v.points(x.s), v.dists(x.s), m.i, m.j);
    }
    LOCUS_HD_INLINE TourMove decode(std::uint32_t s, std::uint64_t index) const {
        const auto cols = static_cast<std::uint64_t>(2 * v.K);
        const row_type x = row(s, static_cast<std::uint32_t>(index / cols));
        if (x.i < 0) return TourMove{};
        return move_of(s, x.i, x.city, static_cast<std::uint32_t>(index % cols));
    }
};

/// Riise & Burke's dependency rule for two 2-opt moves.
LOCUS_HD_INLINE bool two_opt_conflict(const TourMove& a, const TourMove& b) {
    const std::int32_t i = a.i, j = a.j, k = b.i, l = b.j;
    return (i < k && k < j && j < l) || (k < i && i < l && l < j) || k == j || k == i || l == i ||
           l == j;
}

/// Applies pairwise non-conflicting 2-opt moves (valid, i < j) together: each reverses
/// t[i+1 .. j] — never the complement, which would move other moves' positions — shortest
/// first, so that a nested move is applied while its positions still hold its segment.
template <class T> void apply_independent_two_opt(std::span<T> tour, std::vector<TourMove> moves) {
    std::stable_sort(moves.begin(), moves.end(),
                     [](const TourMove& a, const TourMove& b) { return a.j - a.i < b.j - b.i; });
    const auto n = static_cast<std::int32_t>(tour.size());
    for (const TourMove& m : moves)
        reverse_range(tour.data(), n, m.i + 1, m.j - m.i);
}

/// The 2-opt operator (see the file comment).
struct TwoOpt {
    static constexpr MoveKind kind = MoveKind::two_opt;
    static constexpr const char* name = "two_opt";
    static constexpr const char* description =
        "2-opt: remove two edges and reconnect by reversing the path between them. Full: "
        "n(n-3)/2 moves; with candidates K: 2nK moves that add an edge to one of the K nearest "
        "cities.";

    /// Reverse t[i+1..j], or (same cycle) the complement t[j+1..i] when that is shorter.
    LOCUS_HD_INLINE static ReversalPlan plan(const TourMove& m, std::int32_t n) {
        ReversalPlan plan;
        const std::int32_t inner = m.j - m.i;
        if (2 * inner <= n)
            plan.add(m.i + 1, inner);
        else
            plan.add(wrap(m.j + 1, n), n - inner);
        return plan;
    }
    /// The ends of the two removed edges.
    LOCUS_HD_INLINE static int touched(const TourMove& m, const std::int32_t* tour, std::int32_t n,
                                       std::int32_t* out) {
        out[0] = tour[m.i];
        out[1] = tour[wrap(m.i + 1, n)];
        out[2] = tour[m.j];
        out[3] = tour[wrap(m.j + 1, n)];
        return 4;
    }
    static bool conflicts(const TourMove& a, const TourMove& b, std::int32_t) {
        return two_opt_conflict(a, b);
    }
    static void apply_independent(std::span<std::int32_t> tour, std::span<const TourMove> moves) {
        apply_independent_two_opt<std::int32_t>(tour, {moves.begin(), moves.end()});
    }

    template <class Schema> static void declare(Schema& schema) {
        schema.integer("candidates", "0", "candidate-list size K (0 = full neighborhood)", 0, 1024);
    }
    template <class Metric, class Delta> using candidate_space = TwoOptCandidates<Metric, Delta>;
    /// Calls f(SpaceTag<Evaluator>{}) for the index space of `spec`.
    template <class Metric, class Delta, class F>
    static decltype(auto) visit_space(const NeighborhoodSpec& spec, F&& f) {
        if (spec.candidates > 0) return f(SpaceTag<TwoOptCandidates<Metric, Delta>>{});
        return f(SpaceTag<TwoOptFull<Metric, Delta>>{});
    }
};

} // namespace locus::tsp
