#pragma once
/// \file
/// The 3-opt operator: remove three edges, after positions i < j < p, and reconnect the three
/// paths in one of seven ways (Reconnection). TourMove: i, j, p, length (the reconnection).
///
/// Index spaces:
/// - ThreeOptRandom (the registered neighborhood, sampled): rows k (samples), cols 7: row r
///   removes the edges after three positions drawn from the stream derive_key(seed, s,
///   objective of s, r), col = the reconnection. The objective changes with every applied move,
///   so each exploration of a descent draws a new sample, the same on both backends. A row whose
///   positions coincide holds no move.
/// - ThreeOptCandidates (the chains' sequential 3-opt): see the type.
///
/// No independence rule: every pair of 3-opt moves counts as dependent.

#include <cstdint>

#include "locus/rng.hpp"
#include "locus/tsp/moves.hpp"
#include "locus/tsp/neighborhood_spec.hpp"
#include "locus/tsp/tour_view.hpp"

namespace locus::tsp {

struct ThreeOpt;

/// The seven reconnections of a 3-opt move that removes the edges after positions i < j < p,
/// cutting the tour into A = t[p+1 .. i] (cyclic), B = t[i+1 .. j] and C = t[j+1 .. p]; primes
/// mark reversed segments. The first four change all three edges (pure 3-opt), the last three
/// re-add one of them (2-opt moves).
enum Reconnection : std::int32_t {
    three_opt_b_c_reversed = 0, ///< A B' C'
    three_opt_exchange = 1,     ///< A C B (segment exchange, "or-3opt")
    three_opt_c_b_reversed = 2, ///< A C B'
    three_opt_c_reversed_b = 3, ///< A C' B
    three_opt_b_reversed = 4,   ///< A B' C   (2-opt on the first two edges)
    three_opt_c_only = 5,       ///< A B C'   (2-opt on the last two edges)
    three_opt_bc_reversed = 6,  ///< A C' B'  (2-opt on the first and last edges)
    three_opt_reconnections = 7
};

/// Delta of 3-opt reconnection `type` (Reconnection) of the edges after positions i < j < p.
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

/// Random-k-best 3-opt of Delévacq et al. ( ILS-RKBI): k random triples of removed
/// edges, each with its seven reconnections.
template <class Metric, class Delta = std::int64_t> struct ThreeOptRandom {
    using operator_type = ThreeOpt;
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

    /// The space of `spec`'s samples and seed over `v`.
    static ThreeOptRandom from_spec(const TourBatchView<Metric>& v, const NeighborhoodSpec& spec) {
        return {v, spec.samples, spec.seed};
    }

    static constexpr std::int32_t rows_per_focus = 0;
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
        if (a > b) {
            const std::int32_t t = a;
            a = b;
            b = t;
        }
        if (b > c) {
            const std::int32_t t = b;
            b = c;
            c = t;
        }
        if (a > b) {
            const std::int32_t t = a;
            a = b;
            b = t;
        }
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

/// The reconnection (Reconnection) of the edges after positions i < j < p of `tour` whose added
/// edges are {u0, u1}, {v0, v1}, {w0, w1} (any order), or -1 when none is.
LOCUS_HD_INLINE std::int32_t three_opt_type(const std::int32_t* tour, std::int32_t n,
                                            std::int32_t i, std::int32_t j, std::int32_t p,
                                            std::int32_t u0, std::int32_t u1, std::int32_t v0,
                                            std::int32_t v1, std::int32_t w0, std::int32_t w1) {
    const std::int32_t a1 = tour[i], b0 = tour[i + 1], b1 = tour[j], c0 = tour[j + 1], c1 = tour[p],
                       a0 = tour[wrap(p + 1, n)];
    // Added edges of each reconnection, in Reconnection order.
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
    using operator_type = ThreeOpt;
    using delta_type = Delta;
    using point_type = typename Metric::point_type;
    struct row_type {
        std::uint32_t s;
        std::int32_t t1, t2; ///< t1 = -1: unused focus row
    };
    TourBatchView<Metric> v;

    static constexpr std::int32_t rows_per_focus = 2;
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
        if (e1 > e2) {
            const std::int32_t t = e1;
            e1 = e2;
            e2 = t;
        }
        if (e2 > e3) {
            const std::int32_t t = e2;
            e2 = e3;
            e3 = t;
        }
        if (e1 > e2) {
            const std::int32_t t = e1;
            e1 = e2;
            e2 = t;
        }
        const std::int32_t type = three_opt_type(tour, v.n, e1, e2, e3, x.t2, t3, t4, t5, t6, x.t1);
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

/// The 3-opt operator (see the file comment).
struct ThreeOpt {
    static constexpr MoveKind kind = MoveKind::three_opt;
    static constexpr const char* name = "three_opt";
    static constexpr const char* description =
        "Random-k 3-opt (Delevacq et al., ILS-RKBI): each exploration draws k random triples of "
        "edges to remove and evaluates their seven reconnections (4 pure 3-opt, 3 2-opt); the "
        "sample depends on the job seed and the tour's length, so every exploration of a descent "
        "draws anew. A descent ends when no sampled move improves.";
    /// What one sample is, in labels ("TSP three_opt (1000 random edge triples)").
    static constexpr const char* sample_unit = "random edge triples";

    LOCUS_HD_INLINE static ReversalPlan plan(const TourMove& m, std::int32_t) {
        ReversalPlan plan;
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
        return plan;
    }
    /// The ends of the three removed edges.
    LOCUS_HD_INLINE static int touched(const TourMove& m, const std::int32_t* tour, std::int32_t n,
                                       std::int32_t* out) {
        out[0] = tour[m.i];
        out[1] = tour[m.i + 1];
        out[2] = tour[m.j];
        out[3] = tour[m.j + 1];
        out[4] = tour[m.p];
        out[5] = tour[wrap(m.p + 1, n)];
        return 6;
    }

    template <class Schema> static void declare(Schema& schema) {
        schema.integer("samples", "1000", "edge triples per exploration (k)", 1, 1 << 24);
    }
    /// The samples per exploration, and their seed: the job seed, as every random decision of a
    /// job.
    template <class Params, class Build>
    static void configure(NeighborhoodSpec& spec, const Params& params, const Build& build) {
        spec.samples = static_cast<std::uint32_t>(params.get_int("samples"));
        spec.seed = build.seed;
    }
    template <class Metric, class Delta> using candidate_space = ThreeOptCandidates<Metric, Delta>;
    /// Calls f(SpaceTag<Evaluator>{}) for the index space (the sampled one).
    template <class Metric, class Delta, class F>
    static decltype(auto) visit_space(const NeighborhoodSpec&, F&& f) {
        return f(SpaceTag<ThreeOptRandom<Metric, Delta>>{});
    }
};

} // namespace locus::tsp
