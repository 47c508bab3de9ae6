#pragma once
/// \file
/// TSP moves as host/device code: index spaces, deltas and application, shared by the CPU and
/// CUDA backends (single source). A solution is a tour: a permutation of the cities 0..n-1;
/// "position" means an index into the tour array; all position arithmetic is cyclic.
///
/// Evaluators see one solution through a TourView: P[pos] is the metric point of tour[pos]
/// (with P[n] == P[0]), D[pos] = d(tour[pos], tour[pos+1]); pos_of[city] is the inverse
/// permutation (candidate-list neighborhoods only).

#include <cstdint>

#include "locus/hd.hpp"

namespace locus::tsp {

/// Move kinds of the TSP plugin.
enum class MoveKind : std::uint8_t { two_opt, or_opt, swap, three_opt };

/// A decoded TSP move (positions refer to the tour before the move).
struct TourMove {
    MoveKind kind = MoveKind::two_opt;
    bool valid = false;
    std::int32_t i = 0;      ///< two_opt: edge (i,i+1); or_opt: segment start; swap: first position;
                             ///< three_opt: first removed edge (i,i+1)
    std::int32_t j = 0;      ///< two_opt: edge (j,j+1), i < j; swap: second position, i < j;
                             ///< three_opt: second removed edge (j,j+1), i < j
    std::int32_t length = 0; ///< or_opt: segment length 1..3; three_opt: reconnection (ThreeOpt)
    std::int32_t p = 0;      ///< or_opt: insertion edge (p,p+1); three_opt: third edge, j < p
    bool reversed = false;   ///< or_opt: segment inserted reversed (t[p] next to its last city)
};

LOCUS_HD_INLINE std::int32_t wrap(std::int32_t pos, std::int32_t n) {
    return pos >= n ? pos - n : (pos < 0 ? pos + n : pos);
}

/// Up to three reversals of cyclic position ranges [first, first+length) that together apply a
/// move. Host and device execute exactly these reversals, so the resulting arrays are equal.
struct ReversalPlan {
    int count = 0;
    std::int32_t first[3] = {0, 0, 0};
    std::int32_t length[3] = {0, 0, 0};
    LOCUS_HD_INLINE void add(std::int32_t f, std::int32_t len) {
        if (len > 1) {
            first[count] = f;
            length[count] = len;
            ++count;
        }
    }
};

/// The seven reconnections of a 3-opt move that removes the edges after positions i < j < p,
/// cutting the tour into A = t[p+1 .. i] (cyclic), B = t[i+1 .. j] and C = t[j+1 .. p]; primes
/// mark reversed segments. The first four change all three edges (pure 3-opt), the last three
/// re-add one of them (2-opt moves).
enum ThreeOpt : std::int32_t {
    three_opt_b_c_reversed = 0, ///< A B' C'
    three_opt_exchange = 1,     ///< A C B (segment exchange, "or-3opt")
    three_opt_c_b_reversed = 2, ///< A C B'
    three_opt_c_reversed_b = 3, ///< A C' B
    three_opt_b_reversed = 4,   ///< A B' C   (2-opt on the first two edges)
    three_opt_c_only = 5,       ///< A B C'   (2-opt on the last two edges)
    three_opt_bc_reversed = 6,  ///< A C' B'  (2-opt on the first and last edges)
    three_opt_reconnections = 7
};

/// Reversals applying a valid move to a tour of n cities.
LOCUS_HD_INLINE ReversalPlan plan_reversals(const TourMove& m, std::int32_t n) {
    ReversalPlan plan;
    if (m.kind == MoveKind::two_opt) {
        // Reverse t[i+1..j], or (same cycle) the complement t[j+1..i] when that is shorter.
        const std::int32_t inner = m.j - m.i;
        if (2 * inner <= n)
            plan.add(m.i + 1, inner);
        else
            plan.add(wrap(m.j + 1, n), n - inner);
    } else if (m.kind == MoveKind::or_opt) {
        const std::int32_t seg_end = wrap(m.i + m.length - 1, n);
        const std::int32_t forward_gap = wrap(m.p - seg_end, n);  // t[e+1..p]
        const std::int32_t backward_gap = wrap(m.i - 1 - m.p, n); // t[p+1..i-1]
        if (forward_gap <= backward_gap) {
            // [S G] -> [G S] (or [G S']): reverse S (unless inserted reversed), G, then both.
            if (!m.reversed) plan.add(m.i, m.length);
            plan.add(wrap(seg_end + 1, n), forward_gap);
            plan.add(m.i, m.length + forward_gap);
        } else {
            // [G S] -> [S G] (or [S' G]).
            const std::int32_t gap_first = wrap(m.p + 1, n);
            plan.add(gap_first, backward_gap);
            if (!m.reversed) plan.add(m.i, m.length);
            plan.add(gap_first, m.length + backward_gap);
        }
    } else if (m.kind == MoveKind::three_opt) {
        const std::int32_t b = m.j - m.i; // |B|, B starts at i+1
        const std::int32_t c = m.p - m.j; // |C|, C starts at j+1
        switch (m.length) {
        case three_opt_b_c_reversed:
            plan.add(m.i + 1, b);
            plan.add(m.j + 1, c);
            break;
        case three_opt_exchange: // (B' C')' = C B
            plan.add(m.i + 1, b);
            plan.add(m.j + 1, c);
            plan.add(m.i + 1, b + c);
            break;
        case three_opt_c_b_reversed: // (B C')' = C B'
            plan.add(m.j + 1, c);
            plan.add(m.i + 1, b + c);
            break;
        case three_opt_c_reversed_b: // (B' C)' = C' B
            plan.add(m.i + 1, b);
            plan.add(m.i + 1, b + c);
            break;
        case three_opt_b_reversed:
            plan.add(m.i + 1, b);
            break;
        case three_opt_c_only:
            plan.add(m.j + 1, c);
            break;
        default: // three_opt_bc_reversed
            plan.add(m.i + 1, b + c);
            break;
        }
    } else {
        // swap of positions i < j: handled by apply_swap (not a reversal).
    }
    return plan;
}

/// Sequential reversal of a cyclic range (host, or one device thread).
template <class T>
LOCUS_HD_INLINE void reverse_range(T* tour, std::int32_t n, std::int32_t first,
                                   std::int32_t length) {
    std::int32_t a = first;
    std::int32_t b = wrap(first + length - 1, n);
    for (std::int32_t k = 0; k < length / 2; ++k) {
        const T tmp = tour[a];
        tour[a] = tour[b];
        tour[b] = tmp;
        a = wrap(a + 1, n);
        b = wrap(b - 1, n);
    }
}

/// Applies a valid move sequentially.
template <class T> LOCUS_HD_INLINE void apply_move(T* tour, std::int32_t n, const TourMove& m) {
    if (m.kind == MoveKind::swap) {
        const T tmp = tour[m.i];
        tour[m.i] = tour[m.j];
        tour[m.j] = tmp;
        return;
    }
    const ReversalPlan plan = plan_reversals(m, n);
    for (int r = 0; r < plan.count; ++r)
        reverse_range(tour, n, plan.first[r], plan.length[r]);
}

/// Most cities touched_cities writes: the six ends of the three edges a move removes.
inline constexpr int kMaxTouchedCities = 6;

/// The cities at the ends of the edges a valid move removes (up to kMaxTouchedCities,
/// duplicates possible); read from the tour before the move. Returns how many were written to
/// `out`.
LOCUS_HD_INLINE int touched_cities(const TourMove& m, const std::int32_t* tour, std::int32_t n,
                                   std::int32_t* out) {
    if (m.kind == MoveKind::two_opt) {
        out[0] = tour[m.i];
        out[1] = tour[wrap(m.i + 1, n)];
        out[2] = tour[m.j];
        out[3] = tour[wrap(m.j + 1, n)];
        return 4;
    }
    if (m.kind == MoveKind::three_opt) {
        out[0] = tour[m.i];
        out[1] = tour[m.i + 1];
        out[2] = tour[m.j];
        out[3] = tour[m.j + 1];
        out[4] = tour[m.p];
        out[5] = tour[wrap(m.p + 1, n)];
        return 6;
    }
    if (m.kind == MoveKind::or_opt) {
        out[0] = tour[wrap(m.i - 1, n)];
        out[1] = tour[m.i];
        out[2] = tour[wrap(m.i + m.length - 1, n)];
        out[3] = tour[wrap(m.i + m.length, n)];
        out[4] = tour[m.p];
        out[5] = tour[wrap(m.p + 1, n)];
        return 6;
    }
    out[0] = tour[wrap(m.i - 1, n)];
    out[1] = tour[m.i];
    out[2] = tour[wrap(m.i + 1, n)];
    out[3] = tour[wrap(m.j - 1, n)];
    out[4] = tour[m.j];
    out[5] = tour[wrap(m.j + 1, n)];
    return 6;
}

// ---------------------------------------------------------------------------------------------
// Deltas of fully specified moves (shared by full and candidate-list index spaces).

/// Deltas are computed in Delta: std::int32_t when 4 * (largest distance) < 2^31 (always for
/// TSPLIB instances; TspProblem::narrow_deltas), else std::int64_t.

/// Delta of 2-opt (i, j), 0 <= i < j < n, j >= i + 2: replaces edges (i,i+1), (j,j+1) by
/// (i,j), (i+1,j+1).
template <class Delta, class Metric, class Point>
LOCUS_HD_INLINE Delta two_opt_delta(const Metric& d, const Point* P, const std::int32_t* D,
                                    std::int32_t i, std::int32_t j) {
    return static_cast<Delta>(d(P[i], P[j])) + d(P[i + 1], P[j + 1]) - D[i] - D[j];
}

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

/// Delta of 3-opt reconnection `type` (ThreeOpt) of the edges after positions i < j < p.
template <class Delta, class Metric, class Point>
LOCUS_HD_INLINE Delta three_opt_delta(const Metric& d, const Point* P, const std::int32_t* D,
                                      std::int32_t i, std::int32_t j, std::int32_t p,
                                      std::int32_t type) {
    const Point a1 = P[i], b0 = P[i + 1], b1 = P[j], c0 = P[j + 1], c1 = P[p];
    const Point a0 = P[p + 1]; // P has n+1 entries
    Delta added = 0;
    switch (type) {
    case three_opt_b_c_reversed:
        added = static_cast<Delta>(d(a1, b1)) + d(b0, c1) + d(c0, a0);
        break;
    case three_opt_exchange:
        added = static_cast<Delta>(d(a1, c0)) + d(c1, b0) + d(b1, a0);
        break;
    case three_opt_c_b_reversed:
        added = static_cast<Delta>(d(a1, c0)) + d(c1, b1) + d(b0, a0);
        break;
    case three_opt_c_reversed_b:
        added = static_cast<Delta>(d(a1, c1)) + d(c0, b0) + d(b1, a0);
        break;
    case three_opt_b_reversed:
        added = static_cast<Delta>(d(a1, b1)) + d(b0, c0) + D[p];
        break;
    case three_opt_c_only:
        added = static_cast<Delta>(D[i]) + d(b1, c1) + d(c0, a0);
        break;
    default: // three_opt_bc_reversed
        added = static_cast<Delta>(d(a1, c1)) + d(b0, a0) + D[j];
        break;
    }
    return added - D[i] - D[j] - D[p];
}

/// Delta of swapping the cities at positions i < j.
template <class Delta, class Metric, class Point>
LOCUS_HD_INLINE Delta swap_delta(const Metric& d, const Point* P, const std::int32_t* D,
                                 std::int32_t n, std::int32_t i, std::int32_t j) {
    if (j == i + 1 || (i == 0 && j == n - 1)) {
        // Adjacent: a is directly followed by b.
        const std::int32_t a = (j == i + 1) ? i : j;
        const std::int32_t b = (j == i + 1) ? j : i;
        const std::int32_t pa = wrap(a - 1, n);
        const Point before = P[pa];
        const Point after = P[b + 1];
        return static_cast<Delta>(d(before, P[b])) + d(P[a], after) - D[pa] - D[b];
    }
    const std::int32_t pi = wrap(i - 1, n);
    const std::int32_t pj = j - 1;
    const Delta removed = static_cast<Delta>(D[pi]) + D[i] + D[pj] + D[j];
    const Delta added =
        static_cast<Delta>(d(P[pi], P[j])) + d(P[j], P[i + 1]) + d(P[pj], P[i]) + d(P[i], P[j + 1]);
    return added - removed;
}

} // namespace locus::tsp
