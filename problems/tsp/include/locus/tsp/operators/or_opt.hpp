#pragma once
/// \file
/// The Or-opt operator: move a segment t[i..i+L-1] of L = 1..3 cities between t[p] and t[p+1]
/// (p outside [i-1, i+L-1]), possibly reversed. TourMove: i (segment start), length (L), p
/// (insertion edge (p, p+1)), reversed (t[p] next to the segment's last city).
///
/// Index spaces (n cities, K candidates per city; index = row * cols + col):
/// - OrOptFull: rows 3n (row = i*3 + L-1: segment of length L starting at position i),
///   cols 2n (col = 2p + reversed: insertion between positions p and p+1).
/// - OrOptCandidates: rows 3n as OrOptFull, cols 4K: the segment's first (cols 4k, 4k+1) or
///   last city (4k+2, 4k+3) placed next to its k-th candidate, on either side. With focus,
///   row r = 6f + 3e + L-1: the segments of length L that start (e = 0) or end (e = 1) at the
///   f-th focused city (rows 6 * focus_rows).

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "locus/tsp/moves.hpp"
#include "locus/tsp/neighborhood_spec.hpp"
#include "locus/tsp/tour_view.hpp"

namespace locus::tsp {

struct OrOpt;

/// Delta of moving segment t[i..i+L-1] between t[p] and t[p+1] (p outside [i-1, i+L-1]).
template <class Delta, class Metric, class Point>
LOCUS_HD_INLINE Delta or_opt_delta(const Metric& d, const Point* P, const std::int32_t* D,
                                   std::int32_t n, std::int32_t i, std::int32_t length,
                                   std::int32_t p, bool reversed) {
    const std::int32_t prev = wrap(i - 1, n);
    const std::int32_t last = wrap(i + length - 1, n);
    const Point s0 = P[i];
    const Point sl = P[last];
    const Point before = P[prev];
    const Point after = P[last + 1]; // P has n+1 entries
    const Point tp = P[p];
    const Point tq = P[p + 1];
    const Delta removed = static_cast<Delta>(D[prev]) + D[last] + D[p];
    const Delta added = static_cast<Delta>(d(before, after)) +
                        (reversed ? static_cast<Delta>(d(tp, sl)) + d(s0, tq)
                                  : static_cast<Delta>(d(tp, s0)) + d(sl, tq));
    return added - removed;
}

/// True if p is a legal insertion edge for the segment [i, i+L-1] (p not in [i-1, i+L-1]).
LOCUS_HD_INLINE bool or_opt_insertion_ok(std::int32_t n, std::int32_t i, std::int32_t length,
                                         std::int32_t p) {
    const std::int32_t offset = wrap(p - (i - 1 + n) % n, n); // 0 .. n-1 from i-1
    return offset > length;
}

template <class Metric, class Delta = std::int64_t> struct OrOptFull {
    using operator_type = OrOpt;
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

template <class Metric, class Delta = std::int64_t> struct OrOptCandidates {
    using operator_type = OrOpt;
    using delta_type = Delta;
    using point_type = typename Metric::point_type;
    struct row_type {
        std::uint32_t s;
        std::int32_t i, length, first_city, last_city; ///< i = -1: unused focus row
    };
    TourBatchView<Metric> v;

    /// Grid rows per focused city (0: the space ignores focus).
    static constexpr std::int32_t rows_per_focus = 6;
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

/// Dependency of two Or-opt moves (segment t[i..e], e = i+L-1, moved between t[p] and t[p+1],
/// possibly reversed), generalising Riise & Burke's relocation rule to segments: dependent when
/// they remove a common edge ((i-1, i), (e, e+1), (p, p+1), by first position), their segments
/// overlap, or one is inserted next to or inside the other's segment. Otherwise every removed
/// edge of one survives the other, the cities each reconnects stay where the move expects them,
/// and the gains add up (cyclic positions). For relocations (L = 1) this calls independent every
/// pair the paper's rule does, and a few more (e.g. Rel(i, q) and Rel(k, k+1) with k = i+1...).
LOCUS_HD_INLINE bool or_opt_conflict(const TourMove& a, const TourMove& b, std::int32_t n) {
    const auto within = [n](std::int32_t x, std::int32_t first, std::int32_t length) {
        return wrap(x - first + n, n) < length; // x in the cyclic range [first, first + length)
    };
    const std::int32_t ea = wrap(a.i + a.length - 1, n);
    const std::int32_t eb = wrap(b.i + b.length - 1, n);
    const std::int32_t ra[3] = {wrap(a.i - 1, n), ea, a.p};
    const std::int32_t rb[3] = {wrap(b.i - 1, n), eb, b.p};
    for (const std::int32_t x : ra)
        for (const std::int32_t y : rb)
            if (x == y) return true;
    return within(b.i, a.i, a.length) || within(a.i, b.i, b.length) ||
           within(a.p, wrap(b.i - 1, n), b.length + 1) ||
           within(b.p, wrap(a.i - 1, n), a.length + 1);
}

/// Applies pairwise independent Or-opt moves (or_opt_conflict) together on a doubly linked
/// tour: every segment is unlinked from its neighbours, then linked in between t[p] and t[p+1]
/// (reversed where the move says so). The result starts at the first city not moved, in the
/// tour's direction.
template <class T>
void apply_independent_or_opt(std::span<T> tour, std::span<const TourMove> moves) {
    const auto n = static_cast<std::int32_t>(tour.size());
    const auto at = [&](std::int32_t q) { return tour[static_cast<std::size_t>(wrap(q, n))]; };
    std::vector<T> next(tour.size());
    std::vector<T> prev(tour.size());
    std::vector<std::uint8_t> moved(tour.size(), 0);
    for (std::int32_t q = 0; q < n; ++q) {
        next[static_cast<std::size_t>(at(q))] = at(q + 1);
        prev[static_cast<std::size_t>(at(q))] = at(q - 1);
    }
    const auto link = [&](T from, T to) {
        next[static_cast<std::size_t>(from)] = to;
        prev[static_cast<std::size_t>(to)] = from;
    };
    for (const TourMove& m : moves) {
        for (std::int32_t k = 0; k < m.length; ++k)
            moved[static_cast<std::size_t>(at(m.i + k))] = 1;
        link(at(m.i - 1), at(m.i + m.length));
    }
    for (const TourMove& m : moves) {
        const T first = at(m.i);
        const T last = at(m.i + m.length - 1);
        if (m.reversed) {
            for (std::int32_t k = 0; k < m.length; ++k) {
                const auto city = static_cast<std::size_t>(at(m.i + k));
                std::swap(next[city], prev[city]);
            }
        }
        const T x = at(m.p);
        const T y = at(m.p + 1);
        link(x, m.reversed ? last : first);
        link(m.reversed ? first : last, y);
    }
    std::int32_t start = 0;
    while (start < n && moved[static_cast<std::size_t>(at(start))])
        ++start;
    if (start == n) return;
    T city = at(start);
    for (std::int32_t q = 0; q < n; ++q) {
        tour[static_cast<std::size_t>(q)] = city;
        city = next[static_cast<std::size_t>(city)];
    }
}

/// The Or-opt operator (see the file comment).
struct OrOpt {
    static constexpr MoveKind kind = MoveKind::or_opt;
    static constexpr const char* name = "or_opt";
    static constexpr const char* description =
        "Or-opt: move a segment of 1-3 cities elsewhere, in either orientation. Full: about 6n^2 "
        "moves; with candidates K: 12nK moves next to the K nearest cities of the segment's ends.";

    /// [S G] -> [G S] (or [G S']) by reversing S (unless inserted reversed), G, then both; or
    /// [G S] -> [S G] (or [S' G]) alike, whichever gap G is shorter.
    LOCUS_HD_INLINE static ReversalPlan plan(const TourMove& m, std::int32_t n) {
        ReversalPlan plan;
        const std::int32_t seg_end = wrap(m.i + m.length - 1, n);
        const std::int32_t forward_gap = wrap(m.p - seg_end, n);  // t[e+1..p]
        const std::int32_t backward_gap = wrap(m.i - 1 - m.p, n); // t[p+1..i-1]
        if (forward_gap <= backward_gap) {
            if (!m.reversed) plan.add(m.i, m.length);
            plan.add(wrap(seg_end + 1, n), forward_gap);
            plan.add(m.i, m.length + forward_gap);
        } else {
            const std::int32_t gap_first = wrap(m.p + 1, n);
            plan.add(gap_first, backward_gap);
            if (!m.reversed) plan.add(m.i, m.length);
            plan.add(gap_first, m.length + backward_gap);
        }
        return plan;
    }
    /// The ends of the three removed edges.
    LOCUS_HD_INLINE static int touched(const TourMove& m, const std::int32_t* tour, std::int32_t n,
                                       std::int32_t* out) {
        out[0] = tour[wrap(m.i - 1, n)];
        out[1] = tour[m.i];
        out[2] = tour[wrap(m.i + m.length - 1, n)];
        out[3] = tour[wrap(m.i + m.length, n)];
        out[4] = tour[m.p];
        out[5] = tour[wrap(m.p + 1, n)];
        return 6;
    }
    static bool conflicts(const TourMove& a, const TourMove& b, std::int32_t n) {
        return or_opt_conflict(a, b, n);
    }
    static void apply_independent(std::span<std::int32_t> tour, std::span<const TourMove> moves) {
        apply_independent_or_opt<std::int32_t>(tour, moves);
    }

    template <class Schema> static void declare(Schema& schema) {
        schema.integer("candidates", "0", "candidate-list size K (0 = full neighborhood)", 0, 1024);
    }
    template <class Metric, class Delta> using candidate_space = OrOptCandidates<Metric, Delta>;
    /// Calls f(SpaceTag<Evaluator>{}) for the index space of `spec`.
    template <class Metric, class Delta, class F>
    static decltype(auto) visit_space(const NeighborhoodSpec& spec, F&& f) {
        if (spec.candidates > 0) return f(SpaceTag<OrOptCandidates<Metric, Delta>>{});
        return f(SpaceTag<OrOptFull<Metric, Delta>>{});
    }
};

} // namespace locus::tsp
