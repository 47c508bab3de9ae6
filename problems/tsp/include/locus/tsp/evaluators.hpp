#pragma once
/// \file
/// Move evaluators of the TSP neighborhoods for the neighborhood engine (gpu/): each maps a 2D
/// move grid to deltas and decodes a move index into a TourMove. The same evaluator object
/// runs in the CPU twin (host pointers) and in kernels (device pointers).
///
/// Index spaces (n cities, K candidates per city; index = row * cols + col):
/// - TwoOptFull: rows n/2 - 1, cols n. Row r is the diagonal k = r + 2 of the cyclic move table:
///   cell c removes the edges after positions c and c + k (mod n), normalised to (i < j); for
///   even n the cells c >= n/2 of the last row repeat its first half and hold no move. Along a
///   diagonal, neighbouring cells share an added edge (the engine's linked sweep).
/// - OrOptFull: rows 3n (row = i*3 + L-1: segment of length L starting at position i),
///   cols 2n (col = 2p + reversed: insertion between positions p and p+1).
/// - SwapFull: rows n, cols n (positions i < j).
/// - TwoOptCandidates: rows n (position i), cols 2K: new edge (t[i], c) for the k-th candidate
///   c of t[i], with successors (col 2k) or predecessors (col 2k+1) reconnected.
///   With focus, row r is the r-th focused city instead of position r (rows focus_rows).
/// - OrOptCandidates: rows 3n as OrOptFull, cols 4K: the segment's first (cols 4k, 4k+1) or
///   last city (4k+2, 4k+3) placed next to its k-th candidate, on either side. With focus,
///   row r = 6f + 3e + L-1: the segments of length L that start (e = 0) or end (e = 1) at the
///   f-th focused city (rows 6 * focus_rows).
/// - ThreeOptRandom: rows k (samples), cols 7: row r removes the edges after three positions
///   drawn from the stream derive_key(seed, s, objective of s, r), col = the reconnection
///   (ThreeOpt). The objective changes with every applied move, so each exploration of a descent
///   draws a new sample, the same on both backends. A row whose positions coincide holds no move.

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "locus/gpu/neighborhood_engine.hpp"
#include "locus/rng.hpp"
#include "locus/tsp/metric.hpp"
#include "locus/tsp/moves.hpp"
#include "locus/tsp/two_opt_rows.hpp"

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

template <class Metric, class Delta = std::int64_t> struct TwoOptFull {
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
    static constexpr MoveKind kind = MoveKind::two_opt;
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
        requires(Metric::kind == MetricKind::euc_2d_int && std::is_integral_v<Delta>)
    {
        gpu::MoveResult<delta_type> best{gpu::invalid_delta<delta_type>(), kNoMove};
        const auto last = static_cast<std::int32_t>(std::min(end, columns(x).end));
        // Columns below n - k pair P + c with P + c + k; the rest wrap to P + c + k - n (both
        // runs read one point past their last cell, at most P[n] = P[0]).
        const auto run = [&](std::int32_t b, std::int32_t e, std::int32_t shift) {
            if (b >= e) return;
            const RowBest r = euc_int_two_opt_diagonal(x.P + b, x.P + b + shift, x.D + b,
                                                       x.D + b + shift, e - b);
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

template <class Metric, class Delta = std::int64_t> struct OrOptFull {
    using delta_type = Delta;
    using point_type = typename Metric::point_type;
    struct row_type {
        const point_type* P;
        const std::int32_t* D;
        point_type s0, sl;
        Delta base; ///< d(before, after) - d(before, s0) - d(sl, after)
        std::int32_t i, length;
    };
    TourBatchView<Metric> v;

    /// Grid rows per focused city (0: the space ignores focus).
    static constexpr std::int32_t rows_per_focus = 0;
    static constexpr MoveKind kind = MoveKind::or_opt;
    LOCUS_HD_INLINE gpu::MoveGrid grid() const {
        return {static_cast<std::uint32_t>(v.n < 5 ? 0 : 3 * v.n),
                static_cast<std::uint32_t>(2 * v.n)};
    }
    LOCUS_HD_INLINE row_type row(std::uint32_t s, std::uint32_t r) const {
        row_type x;
        x.P = v.points(s);
        x.D = v.dists(s);
        x.i = static_cast<std::int32_t>(r / 3);
        x.length = static_cast<std::int32_t>(r % 3) + 1;
        const std::int32_t prev = wrap(x.i - 1, v.n);
        const std::int32_t last = wrap(x.i + x.length - 1, v.n);
        x.s0 = x.P[x.i];
        x.sl = x.P[last];
        x.base = static_cast<Delta>(v.metric(x.P[prev], x.P[last + 1])) - x.D[prev] - x.D[last];
        return x;
    }
    LOCUS_HD_INLINE delta_type operator()(const row_type& x, std::uint32_t col) const {
        const auto p = static_cast<std::int32_t>(col >> 1);
        const bool reversed = (col & 1u) != 0;
        if ((reversed && x.length == 1) || !or_opt_insertion_ok(v.n, x.i, x.length, p))
            return gpu::invalid_delta<delta_type>();
        const point_type tp = x.P[p];
        const point_type tq = x.P[p + 1];
        const Delta added = reversed ? static_cast<Delta>(v.metric(tp, x.sl)) + v.metric(x.s0, tq)
                                     : static_cast<Delta>(v.metric(tp, x.s0)) + v.metric(x.sl, tq);
        return x.base - x.D[p] + added;
    }
    LOCUS_HD_INLINE TourMove decode(std::uint32_t, std::uint64_t index) const {
        const auto cols = static_cast<std::uint64_t>(2 * v.n);
        const auto r = static_cast<std::int32_t>(index / cols);
        const auto c = static_cast<std::int32_t>(index % cols);
        TourMove m;
        m.kind = MoveKind::or_opt;
        m.i = r / 3;
        m.length = r % 3 + 1;
        m.p = c >> 1;
        m.reversed = (c & 1) != 0;
        m.valid = !(m.reversed && m.length == 1) && or_opt_insertion_ok(v.n, m.i, m.length, m.p);
        return m;
    }
};

template <class Metric, class Delta = std::int64_t> struct SwapFull {
    using delta_type = Delta;
    using point_type = typename Metric::point_type;
    struct row_type {
        const point_type* P;
        const std::int32_t* D;
        std::int32_t i;
    };
    TourBatchView<Metric> v;

    /// Grid rows per focused city (0: the space ignores focus).
    static constexpr std::int32_t rows_per_focus = 0;
    static constexpr MoveKind kind = MoveKind::swap;
    LOCUS_HD_INLINE gpu::MoveGrid grid() const {
        return {static_cast<std::uint32_t>(v.n < 4 ? 0 : v.n), static_cast<std::uint32_t>(v.n)};
    }
    LOCUS_HD_INLINE row_type row(std::uint32_t s, std::uint32_t r) const {
        return {v.points(s), v.dists(s), static_cast<std::int32_t>(r)};
    }
    LOCUS_HD_INLINE delta_type operator()(const row_type& x, std::uint32_t col) const {
        const auto j = static_cast<std::int32_t>(col);
        if (j <= x.i) return gpu::invalid_delta<delta_type>();
        return swap_delta<Delta>(v.metric, x.P, x.D, v.n, x.i, j);
    }
    LOCUS_HD_INLINE TourMove decode(std::uint32_t, std::uint64_t index) const {
        TourMove m;
        m.kind = MoveKind::swap;
        m.i = static_cast<std::int32_t>(index / static_cast<std::uint64_t>(v.n));
        m.j = static_cast<std::int32_t>(index % static_cast<std::uint64_t>(v.n));
        m.valid = m.j > m.i;
        return m;
    }
};

template <class Metric, class Delta = std::int64_t> struct TwoOptCandidates {
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
    static constexpr MoveKind kind = MoveKind::two_opt;
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

template <class Metric, class Delta = std::int64_t> struct OrOptCandidates {
    using delta_type = Delta;
    using point_type = typename Metric::point_type;
    struct row_type {
        std::uint32_t s;
        std::int32_t i, length, first_city, last_city; ///< i = -1: unused focus row
    };
    TourBatchView<Metric> v;

    /// Grid rows per focused city (0: the space ignores focus).
    static constexpr std::int32_t rows_per_focus = 6;
    static constexpr MoveKind kind = MoveKind::or_opt;
    LOCUS_HD_INLINE gpu::MoveGrid grid() const {
        const std::int32_t rows = v.focus_list != nullptr ? 6 * v.focus_rows : 3 * v.n;
        return {static_cast<std::uint32_t>(v.n < 5 ? 0 : rows),
                static_cast<std::uint32_t>(4 * v.K)};
    }
    LOCUS_HD_INLINE row_type row(std::uint32_t s, std::uint32_t r) const {
        row_type x;
        x.s = s;
        if (v.focus_list == nullptr) {
            x.i = static_cast<std::int32_t>(r / 3);
            x.length = static_cast<std::int32_t>(r % 3) + 1;
        } else {
            const auto f = static_cast<std::int32_t>(r / 6);
            const auto rest = static_cast<std::int32_t>(r % 6);
            x.length = rest % 3 + 1;
            if (f >= v.focus_count[s]) {
                x.i = -1;
                return x;
            }
            const std::int32_t city = v.focus_list[static_cast<std::int64_t>(s) * v.n + f];
            x.i = v.pos_of(s)[city];
            if (rest >= 3) x.i = wrap(x.i - x.length + 1, v.n);
        }
        const std::int32_t* t = v.tour_of(s);
        x.first_city = t[x.i];
        x.last_city = t[wrap(x.i + x.length - 1, v.n)];
        return x;
    }
    LOCUS_HD_INLINE TourMove move_of(const row_type& x, std::uint32_t col) const {
        const std::uint32_t variant = col & 3u;
        const std::int32_t anchor = variant < 2 ? x.first_city : x.last_city;
        const std::int32_t other =
            v.candidates[static_cast<std::int64_t>(anchor) * v.K + (col >> 2)];
        const std::int32_t q = v.pos_of(x.s)[other];
        TourMove m;
        m.kind = MoveKind::or_opt;
        m.i = x.i;
        m.length = x.length;
        // c = t[q] ends next to the anchor: 0: t[q] s0..sl   1: sl..s0 t[q]   2: s0..sl t[q]
        // 3: t[q] sl..s0 (1 and 3 insert the segment reversed).
        m.reversed = variant == 1 || variant == 3;
        m.p = (variant == 0 || variant == 3) ? q : wrap(q - 1, v.n);
        m.valid = !(m.reversed && m.length == 1) && or_opt_insertion_ok(v.n, m.i, m.length, m.p);
        return m;
    }
    LOCUS_HD_INLINE delta_type operator()(const row_type& x, std::uint32_t col) const {
        if (x.i < 0) return gpu::invalid_delta<delta_type>();
        const TourMove m = move_of(x, col);
        if (!m.valid) return gpu::invalid_delta<delta_type>();
        return or_opt_delta<Delta>(v.metric, v.points(x.s), v.dists(x.s), v.n, m.i, m.length, m.p,
                                   m.reversed);
    }
    LOCUS_HD_INLINE TourMove decode(std::uint32_t s, std::uint64_t index) const {
        const auto cols = static_cast<std::uint64_t>(4 * v.K);
        const row_type x = row(s, static_cast<std::uint32_t>(index / cols));
        if (x.i < 0) return TourMove{};
        return move_of(x, static_cast<std::uint32_t>(index % cols));
    }
};

/// Random-k-best 3-opt of Delévacq et al. ( ILS-RKBI): k random triples of removed
/// edges, each with its seven reconnections.
template <class Metric, class Delta = std::int64_t> struct ThreeOptRandom {
    using delta_type = Delta;
    using point_type = typename Metric::point_type;
    struct row_type {
        const point_type* P;
        const std::int32_t* D;
        std::int32_t i, j, p; ///< i = -1: no move in this row
    };
    TourBatchView<Metric> v;
    std::uint32_t samples = 0;
    std::uint64_t seed = 0;

    static constexpr std::int32_t rows_per_focus = 0;
    static constexpr MoveKind kind = MoveKind::three_opt;
    LOCUS_HD_INLINE gpu::MoveGrid grid() const {
        return {v.n < 6 ? 0u : samples, static_cast<std::uint32_t>(three_opt_reconnections)};
    }
    LOCUS_HD_INLINE row_type row(std::uint32_t s, std::uint32_t r) const {
        const auto state = static_cast<std::uint64_t>(static_cast<std::int64_t>(v.objective[s]));
        Rng rng(derive_key(seed, s, state, r), 0);
        const auto n = static_cast<std::uint32_t>(v.n);
        std::int32_t a = static_cast<std::int32_t>(rng.below(n));
        std::int32_t b = static_cast<std::int32_t>(rng.below(n));
        std::int32_t c = static_cast<std::int32_t>(rng.below(n));
        if (a > b) { const std::int32_t t = a; a = b; b = t; }
        if (b > c) { const std::int32_t t = b; b = c; c = t; }
        if (a > b) { const std::int32_t t = a; a = b; b = t; }
        row_type x{v.points(s), v.dists(s), a, b, c};
        if (a == b || b == c) x.i = -1;
        return x;
    }
    LOCUS_HD_INLINE delta_type operator()(const row_type& x, std::uint32_t col) const {
        if (x.i < 0) return gpu::invalid_delta<delta_type>();
        return three_opt_delta<Delta>(v.metric, x.P, x.D, x.i, x.j, x.p,
                                      static_cast<std::int32_t>(col));
    }
    LOCUS_HD_INLINE TourMove decode(std::uint32_t s, std::uint64_t index) const {
        const row_type x = row(s, static_cast<std::uint32_t>(index / three_opt_reconnections));
        TourMove m;
        m.kind = MoveKind::three_opt;
        m.valid = x.i >= 0;
        m.i = x.i;
        m.j = x.j;
        m.p = x.p;
        m.length = static_cast<std::int32_t>(index % three_opt_reconnections);
        return m;
    }
};

/// Whether {a, b} and {c, d} are the same undirected edge.
LOCUS_HD_INLINE bool same_edge(std::int32_t a, std::int32_t b, std::int32_t c, std::int32_t d) {
    return (a == c && b == d) || (a == d && b == c);
}

/// The reconnection (ThreeOpt) of the edges after positions i < j < p of `tour` whose added
/// edges are {u0, u1}, {v0, v1}, {w0, w1} (any order), or -1 when none is.
LOCUS_HD_INLINE std::int32_t three_opt_type(const std::int32_t* tour, std::int32_t n,
                                            std::int32_t i, std::int32_t j, std::int32_t p,
                                            std::int32_t u0, std::int32_t u1, std::int32_t v0,
                                            std::int32_t v1, std::int32_t w0, std::int32_t w1) {
    const std::int32_t a1 = tour[i], b0 = tour[i + 1], b1 = tour[j], c0 = tour[j + 1],
                       c1 = tour[p], a0 = tour[wrap(p + 1, n)];
    // Added edges of each reconnection, in ThreeOpt order.
    const std::int32_t added[7][6] = {{a1, b1, b0, c1, c0, a0}, {a1, c0, c1, b0, b1, a0},
                                      {a1, c0, c1, b1, b0, a0}, {a1, c1, c0, b0, b1, a0},
                                      {a1, b1, b0, c0, c1, a0}, {a1, b0, b1, c1, c0, a0},
                                      {a1, c1, b0, a0, b1, c0}};
    for (std::int32_t type = 0; type < three_opt_reconnections; ++type) {
        const std::int32_t* e = added[type];
        bool matched[3] = {false, false, false};
        const std::int32_t given[3][2] = {{u0, u1}, {v0, v1}, {w0, w1}};
        bool all = true;
        for (int g = 0; g < 3 && all; ++g) {
            bool found = false;
            for (int q = 0; q < 3 && !found; ++q) {
                if (!matched[q] && same_edge(given[g][0], given[g][1], e[2 * q], e[2 * q + 1])) {
                    matched[q] = true;
                    found = true;
                }
            }
            all = found;
        }
        if (all) return type;
    }
    return -1;
}

/// Sequential 3-opt over candidate lists (Delévacq et al.'s 3-opt with neighbor lists, as in
/// Lin-Kernighan's first three levels): remove (t1, t2), add (t2, t3) with t3 a candidate of
/// t2, remove (t3, t4), add (t4, t5) with t5 a candidate of t4, remove (t5, t6), close with
/// (t6, t1); t2, t4 and t6 are either tour neighbour. Rows: 2 per focused city (t1, and t2 its
/// successor or predecessor), cols 4K^2 (k1, t4 side, k2, t6 side). A cell holds a move when the
/// three removed edges differ and the added ones make one of the seven reconnections; the move
/// is that reconnection (TourMove three_opt).
template <class Metric, class Delta = std::int64_t> struct ThreeOptCandidates {
    using delta_type = Delta;
    using point_type = typename Metric::point_type;
    struct row_type {
        std::uint32_t s;
        std::int32_t t1, t2; ///< t1 = -1: unused focus row
    };
    TourBatchView<Metric> v;

    static constexpr std::int32_t rows_per_focus = 2;
    static constexpr MoveKind kind = MoveKind::three_opt;
    LOCUS_HD_INLINE gpu::MoveGrid grid() const {
        const std::int32_t rows = v.focus_list != nullptr ? 2 * v.focus_rows : 2 * v.n;
        return {static_cast<std::uint32_t>(v.n < 8 || v.K == 0 ? 0 : rows),
                static_cast<std::uint32_t>(4 * v.K * v.K)};
    }
    LOCUS_HD_INLINE row_type row(std::uint32_t s, std::uint32_t r) const {
        const auto f = static_cast<std::int32_t>(r / 2);
        std::int32_t t1 = f;
        if (v.focus_list != nullptr) {
            if (f >= v.focus_count[s]) return {s, -1, 0};
            t1 = v.focus_list[static_cast<std::int64_t>(s) * v.n + f];
        } else {
            t1 = v.tour_of(s)[f];
        }
        const std::int32_t p1 = v.pos_of(s)[t1];
        const std::int32_t p2 = (r & 1u) == 0 ? wrap(p1 + 1, v.n) : wrap(p1 - 1, v.n);
        return {s, t1, v.tour_of(s)[p2]};
    }
    /// The move of cell `col` (invalid when the cell holds none).
    LOCUS_HD_INLINE TourMove move_of(const row_type& x, std::uint32_t col) const {
        TourMove m;
        m.kind = MoveKind::three_opt;
        const std::int32_t* tour = v.tour_of(x.s);
        const std::int32_t* pos = v.pos_of(x.s);
        const auto c = static_cast<std::int32_t>(col);
        const std::int32_t k1 = c / (4 * v.K);
        const std::int32_t side4 = (c / (2 * v.K)) & 1;
        const std::int32_t k2 = (c >> 1) % v.K;
        const std::int32_t side6 = c & 1;
        const std::int32_t t3 = v.candidates[static_cast<std::int64_t>(x.t2) * v.K + k1];
        const std::int32_t q3 = pos[t3];
        const std::int32_t q4 = side4 == 0 ? wrap(q3 + 1, v.n) : wrap(q3 - 1, v.n);
        const std::int32_t t4 = tour[q4];
        const std::int32_t t5 = v.candidates[static_cast<std::int64_t>(t4) * v.K + k2];
        const std::int32_t q5 = pos[t5];
        const std::int32_t q6 = side6 == 0 ? wrap(q5 + 1, v.n) : wrap(q5 - 1, v.n);
        const std::int32_t t6 = tour[q6];
        // Removed edges by the position of their first end (edge (e, e+1)).
        const auto edge = [&](std::int32_t qa, std::int32_t qb) {
            return wrap(qb - qa, v.n) == 1 ? qa : qb;
        };
        std::int32_t e1 = edge(pos[x.t1], pos[x.t2]);
        std::int32_t e2 = edge(q3, q4);
        std::int32_t e3 = edge(q5, q6);
        if (e1 == e2 || e2 == e3 || e1 == e3) return m;
        if (e1 > e2) { const std::int32_t t = e1; e1 = e2; e2 = t; }
        if (e2 > e3) { const std::int32_t t = e2; e2 = e3; e3 = t; }
        if (e1 > e2) { const std::int32_t t = e1; e1 = e2; e2 = t; }
        const std::int32_t type =
            three_opt_type(tour, v.n, e1, e2, e3, x.t2, t3, t4, t5, t6, x.t1);
        if (type < 0) return m;
        m.valid = true;
        m.i = e1;
        m.j = e2;
        m.p = e3;
        m.length = type;
        return m;
    }
    LOCUS_HD_INLINE delta_type operator()(const row_type& x, std::uint32_t col) const {
        if (x.t1 < 0) return gpu::invalid_delta<delta_type>();
        const TourMove m = move_of(x, col);
        if (!m.valid) return gpu::invalid_delta<delta_type>();
        return three_opt_delta<Delta>(v.metric, v.points(x.s), v.dists(x.s), m.i, m.j, m.p,
                                      m.length);
    }
    LOCUS_HD_INLINE TourMove decode(std::uint32_t s, std::uint64_t index) const {
        const auto cols = static_cast<std::uint64_t>(4 * v.K * v.K);
        const row_type x = row(s, static_cast<std::uint32_t>(index / cols));
        if (x.t1 < 0) return TourMove{};
        return move_of(x, static_cast<std::uint32_t>(index % cols));
    }
};

} // namespace locus::tsp
