#pragma once
/// \file
/// The TSP as a policy of the many-chain engine (locus/gpu/chain_engine.hpp): tours of n
/// cities; a VND over candidate-list 2-opt, Or-opt and (optionally) sequential 3-opt with focus
/// (don't-look bits on cities);
/// the local double bridge as perturbation. Per chain it keeps the derived arrays of the
/// neighborhood evaluators — city positions, tour-ordered points P (P[n] = P[0]) and edge
/// lengths D — and updates them after a move only where the move's reversals changed the tour.

#include <cstdint>

#include "locus/gpu/storage.hpp"
#include "locus/hd.hpp"
#include "locus/rng.hpp"
#include "locus/tsp/candidate_lists.hpp"
#include "locus/tsp/combine.hpp"
#include "locus/tsp/double_bridge.hpp"
#include "locus/tsp/evaluators.hpp"
#include "locus/tsp/moves.hpp"

namespace locus::tsp {

/// Parameters of the TSP chains.
struct TspChainOptions {
    std::int32_t candidates = 10;    ///< candidate-list size K of both neighborhoods
    std::int32_t window = 100;       ///< double-bridge window (0 = whole tour)
    std::int32_t three_opt = 0;      ///< candidate-list size of the 3-opt neighborhood (0 = off)
    std::int32_t depth = 0;          ///< most 2-opt steps of the variable-depth move (0 = off)
    std::int32_t second_breadth = 1; ///< second steps tried per first step (1..kMaxSecondBreadth)
    CandidateKind lists = CandidateKind::quadrant; ///< how the candidate lists are chosen
    std::int32_t ascent = 200; ///< subgradient iterations of alpha-nearness lists
};

/// Most steps of the TSP chains' variable-depth move.
inline constexpr std::int32_t kMaxDepth = 16;
/// First steps the variable-depth move tries per side of its start city (the best first, then
/// the next best when the chain from it does not improve), as Lin-Kernighan's breadth at the
/// first level.
inline constexpr int kFirstBreadth = 3;
/// Most second steps the variable-depth move tries per first step (Lin-Kernighan's breadth at
/// the second level; TspChainOptions::second_breadth).
inline constexpr int kMaxSecondBreadth = 5;

template <class Metric, class Delta> struct TspChainPolicy {
    using delta_type = Delta;
    using move_type = TourMove;
    using Point = typename Metric::point_type;
    /// 0: 2-opt, 1: Or-opt, 2: sequential 3-opt (candidate lists; 3-opt empty when K3 = 0)
    static constexpr int kNeighborhoods = 3;
    static constexpr int kMaxTouched = 6;
    static constexpr bool kThreadMapping = true; ///< mapping: thread (paper 004's FI-thread)

    Metric metric;
    const std::int32_t* candidates = nullptr; ///< n x K
    std::int32_t n = 0;
    std::int32_t K = 0;
    std::int32_t window = 0;
    const std::int32_t* candidates3 = nullptr; ///< n x K3 (3-opt)
    std::int32_t K3 = 0;
    std::int32_t depth = 0; ///< variable-depth move: most steps (0 = off, at most kMaxDepth)
    std::int32_t second_breadth = 1; ///< second steps per first step (1..kMaxSecondBreadth)
    // Per-chain workspace.
    std::int32_t* pos = nullptr;     ///< chains x n
    Point* P = nullptr;              ///< chains x (n + 1)
    std::int32_t* D = nullptr;       ///< chains x n
    std::int32_t* scratch = nullptr; ///< chains x n (double bridge)

    template <int k> LOCUS_HD_INLINE static constexpr bool focused() { return true; }
    LOCUS_HD_INLINE std::int32_t width() const { return n; }
    LOCUS_HD_INLINE std::int32_t elements() const { return n; }

    void declare(gpu::ArrayList& list, std::size_t chains) {
        const auto count = static_cast<std::size_t>(n);
        list.add(pos, chains * count, "TSP city positions");
        list.add(P, chains * (count + 1), "TSP tour-ordered points");
        list.add(D, chains * count, "TSP edge lengths");
        list.add(scratch, chains * count, "TSP double-bridge scratch");
    }

    LOCUS_HD_INLINE std::int32_t* pos_of(std::uint32_t c) const {
        return pos + static_cast<std::int64_t>(c) * n;
    }
    LOCUS_HD_INLINE Point* points_of(std::uint32_t c) const {
        return P + static_cast<std::int64_t>(c) * (n + 1);
    }
    LOCUS_HD_INLINE std::int32_t* dists_of(std::uint32_t c) const {
        return D + static_cast<std::int64_t>(c) * n;
    }

    /// pos, P and D of chain c from its tour.
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD void refresh(const Team& team, std::uint32_t c, const std::int32_t* tour) const {
        for (std::int32_t k = static_cast<std::int32_t>(team.rank()); k < n;
             k += static_cast<std::int32_t>(team.size()))
            prepare_entry(metric, tour, points_of(c), dists_of(c), pos_of(c), n, k);
        team.sync();
    }

    /// Neighborhood k over the chain's arrays, rows from the `*count` active cities.
    template <int k>
    LOCUS_HD_INLINE auto evaluator(std::uint32_t c, const std::int32_t* tour,
                                   const std::int32_t* active, const std::int32_t* count) const {
        TourBatchView<Metric> v;
        v.metric = metric;
        v.tour = tour;
        v.P = points_of(c);
        v.D = dists_of(c);
        v.pos = pos_of(c);
        v.candidates = candidates;
        v.focus_list = active;
        v.focus_count = count;
        v.n = n;
        v.K = K;
        v.focus_rows = *count;
        if constexpr (k == 0) {
            return TwoOptCandidates<Metric, Delta>{v};
        } else if constexpr (k == 1) {
            return OrOptCandidates<Metric, Delta>{v};
        } else {
            v.candidates = candidates3;
            v.K = K3;
            return ThreeOptCandidates<Metric, Delta>{v};
        }
    }

    LOCUS_HD_INLINE int touched(const std::int32_t* tour, const TourMove& m,
                                std::int32_t* out) const {
        return touched_cities(m, tour, n, out);
    }

    /// Applies the move's reversals, then refreshes pos and P on the reversed positions and D on
    /// the edges around them (O(reversed length), not O(n)).
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD void apply(const Team& team, std::uint32_t c, std::int32_t* tour,
                        const TourMove& m) const {
        const ReversalPlan plan = plan_reversals(m, n);
        Point* points = points_of(c);
        std::int32_t* dists = dists_of(c);
        std::int32_t* where = pos_of(c);
        const auto rank = static_cast<std::int32_t>(team.rank());
        const auto size = static_cast<std::int32_t>(team.size());
        for (int q = 0; q < plan.count; ++q) {
            const std::int32_t first = plan.first[q];
            const std::int32_t length = plan.length[q];
            for (std::int32_t k = rank; k < length / 2; k += size) {
                const std::int32_t x = wrap(first + k, n);
                const std::int32_t y = wrap(first + length - 1 - k, n);
                const std::int32_t t = tour[x];
                tour[x] = tour[y];
                tour[y] = t;
            }
            team.sync();
            for (std::int32_t k = rank; k < length; k += size) {
                const std::int32_t x = wrap(first + k, n);
                points[x] = metric.point(tour[x]);
                where[tour[x]] = x;
                if (x == 0) points[n] = points[0];
            }
            team.sync();
            // Edges (x, x + 1) for x from first - 1 to first + length - 1.
            const std::int32_t edges = length < n ? length + 1 : n;
            for (std::int32_t k = rank; k < edges; k += size) {
                const std::int32_t x = wrap(first - 1 + k, n);
                dists[x] = metric(points[x], points[x + 1]);
            }
            team.sync();
        }
    }

    /// The 2-opt move that removes the tour edges (a, b) and (c, d) and adds (b, c) and (a, d)
    /// (every rank alike; the cities are distinct and the result is one tour).
    LOCUS_HD_INLINE TourMove two_opt_between(const std::int32_t* where, const std::int32_t* tour,
                                             std::int32_t a, std::int32_t b, std::int32_t c,
                                             std::int32_t d) const {
        // With b after a the move pairs a's position with d's (c after d); with b before a,
        // b's with c's (d after c): removing edges (x, x+1) and (y, y+1) adds (x, y), (x+1, y+1).
        const bool forward = tour[wrap(where[a] + 1, n)] == b;
        const std::int32_t x = forward ? where[a] : where[b];
        const std::int32_t y = forward ? where[d] : where[c];
        TourMove m;
        m.kind = MoveKind::two_opt;
        m.valid = true;
        m.i = x < y ? x : y;
        m.j = x < y ? y : x;
        return m;
    }

    /// The variable-depth move (Lin-Kernighan style, 2-opt steps; issue 15, paper 004's "deeper
    /// moves"), tried when the VND's neighborhoods have no improving move left: from each city
    /// t1 of `from` and each of its tour neighbours t2, repeatedly close the chain's open edge
    /// (t1, t2) by a 2-opt step that removes (t1, t2) and (t3, t4) for a candidate t3 of t2 with
    /// positive partial gain g - d(t2, t3), choosing the t3 with the largest g - d(t2, t3) +
    /// d(t3, t4), adds (t2, t3) and (t1, t4), and goes on from t2 = t4; edges added by the chain
    /// are never removed by it; when a chain does not improve, the next best first step
    /// (kFirstBreadth per side) starts another. The steps are applied as they are chosen (team
    /// reversals) and those after the best closed tour are undone. Stops at the first
    /// improving chain: returns its objective change (< 0) on every rank, and the leader writes
    /// the cities whose edges changed to `out` (each once, so at most n), every rank their
    /// count to `touched`; 0 when no chain improves (tour unchanged).
    /// `tried`: the entries of `from` searched from. Every rank makes the same choices from the
    /// same memory.
    LOCUS_HD_INLINE bool deepens() const { return depth > 0 && n >= 8; }

    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD std::int64_t deepen(const Team& team, std::uint32_t c, std::int32_t* tour,
                                 const std::int32_t* from, std::int32_t count, std::int32_t& tried,
                                 std::int32_t* out, std::int32_t& touched) const {
        touched = 0;
        tried = count;
        if (!deepens()) return 0;
        const std::int32_t* where = pos_of(c);
        const std::int32_t limit = depth < kMaxDepth ? depth : kMaxDepth;
        const auto succ = [&](std::int32_t x) { return tour[wrap(where[x] + 1, n)]; };
        const auto pred = [&](std::int32_t x) { return tour[wrap(where[x] - 1, n)]; };
        const auto d = [&](std::int32_t x, std::int32_t y) {
            return static_cast<std::int64_t>(metric.distance(x, y));
        };
        std::int32_t t2s[kMaxDepth], t3s[kMaxDepth], t4s[kMaxDepth];
        std::int32_t first_t3[kFirstBreadth];
        std::int32_t second_t3[kMaxSecondBreadth];
        int firsts = 0, seconds = 0;
        const int breadth2 = second_breadth < 1                   ? 1
                             : second_breadth > kMaxSecondBreadth ? kMaxSecondBreadth
                                                                  : second_breadth;
        const int per_side = kFirstBreadth * breadth2;
        for (std::int32_t f = 0; f < count; ++f) {
            const std::int32_t t1 = from[f];
            for (int trial = 0; trial < 2 * per_side; ++trial) {
                // Each side, then each of the kFirstBreadth best first steps not tried yet and,
                // after each, each of its breadth2 best second steps not tried yet (the same
                // first step is chosen again: the tour is restored and its own earlier choices
                // are excluded the same way).
                const int side = trial / per_side;
                const int alternative = trial % per_side / breadth2;
                const int alternative2 = trial % breadth2;
                if (alternative == 0 && alternative2 == 0)
                    firsts = 0;
                else if (firsts < alternative + (alternative2 == 0 ? 0 : 1))
                    continue; // this first step (or one to exclude before it) does not exist
                if (alternative2 == 0)
                    seconds = 0;
                else if (seconds < alternative2)
                    continue; // fewer second steps
                std::int32_t t2 = side == 0 ? succ(t1) : pred(t1);
                std::int64_t g = d(t1, t2);
                std::int64_t best_gain = 0;
                std::int32_t best_steps = 0;
                std::int32_t steps = 0;
                while (steps < limit) {
                    // t2 follows t1 in array order (forward) or precedes it.
                    const bool forward = succ(t1) == t2;
                    std::int32_t t3 = -1, t4 = -1;
                    std::int64_t best_score = 0;
                    const std::int32_t* list = candidates + static_cast<std::int64_t>(t2) * K;
                    for (std::int32_t q = 0; q < K; ++q) {
                        const std::int32_t y = list[q];
                        const std::int64_t g1 = g - d(t2, y);
                        if (g1 <= 0) continue;
                        if (y == t1 || y == succ(t2) || y == pred(t2)) continue;
                        const std::int32_t z = forward ? pred(y) : succ(y);
                        if (z == t1 || z == t2) continue;
                        bool added = false; // (y, z) added earlier in this chain?
                        for (std::int32_t k = 0; k < steps && !added; ++k)
                            added = (t2s[k] == y && t3s[k] == z) || (t2s[k] == z && t3s[k] == y);
                        for (int k = 0; steps == 0 && k < alternative && !added; ++k)
                            added = first_t3[k] == y; // a first step tried before
                        for (int k = 0; steps == 1 && k < alternative2 && !added; ++k)
                            added = second_t3[k] == y; // a second step tried before
                        if (added) continue;
                        const std::int64_t score = g1 + d(y, z);
                        if (t3 < 0 || score > best_score) {
                            best_score = score;
                            t3 = y;
                            t4 = z;
                        }
                    }
                    if (t3 < 0) break;
                    if (steps == 0 && alternative2 == 0) first_t3[firsts++] = t3;
                    if (steps == 1) second_t3[seconds++] = t3;
                    const TourMove step = two_opt_between(where, tour, t1, t2, t3, t4);
                    team.sync(); // every rank has read the tour before the reversal writes it
                    apply(team, c, tour, step);
                    t2s[steps] = t2;
                    t3s[steps] = t3;
                    t4s[steps] = t4;
                    ++steps;
                    g = best_score;
                    const std::int64_t closed = g - d(t4, t1);
                    if (closed > best_gain) {
                        best_gain = closed;
                        best_steps = steps;
                    }
                    t2 = t4;
                }
                // Undo the steps after the best closed tour, last first: step k left the edges
                // (t2, t3) and (t1, t4); removing them restores (t1, t2) and (t3, t4).
                while (steps > best_steps) {
                    --steps;
                    const TourMove undo =
                        two_opt_between(where, tour, t2s[steps], t3s[steps], t4s[steps], t1);
                    team.sync();
                    apply(team, c, tour, undo);
                }
                if (best_steps > 0) {
                    // Each city once (a chain may pass a city twice), so at most n entries:
                    // t1, t2 of the first step, then t3 and t4 of every step (the next step's
                    // t2 is this one's t4). Every rank keeps the list; the leader writes it.
                    std::int32_t ends[2 + 2 * kMaxDepth];
                    std::int32_t listed = 0;
                    const auto note = [&](std::int32_t city) {
                        for (std::int32_t k = 0; k < listed; ++k)
                            if (ends[k] == city) return;
                        if (team.rank() == 0) out[listed] = city;
                        ends[listed++] = city;
                    };
                    note(t1);
                    note(t2s[0]);
                    for (std::int32_t k = 0; k < best_steps; ++k) {
                        note(t3s[k]);
                        note(t4s[k]);
                    }
                    touched = listed;
                    tried = f + 1;
                    return -best_gain;
                }
            }
        }
        return 0;
    }

    /// Leader only: a local double bridge; the touched cities are the six ends of the removed
    /// edges.
    LOCUS_HD std::int64_t perturb(std::uint32_t c, std::int32_t* tour, Rng& rng, std::int32_t* out,
                                  std::int32_t& count) const {
        count = 0;
        if (n < 8) return 0;
        const BridgeCut cut = draw_bridge(rng, n, window);
        const Metric& m = metric;
        const auto distance = [&m](std::int32_t x, std::int32_t y) { return m.distance(x, y); };
        const std::int64_t delta =
            apply_bridge(tour, n, cut, distance, scratch + static_cast<std::int64_t>(c) * n, out);
        count = 6;
        return delta;
    }

    /// Leader only: the child is `first` improved with every shorter interchangeable sub-path of
    /// `second` (Combine, paper 002; exchange recombine / population), sub-paths of at most
    /// 1000 cities. Deterministic: the random stream is not used.
    LOCUS_HD void recombine(std::uint32_t c, const std::int32_t* first, const std::int32_t* second,
                            std::int32_t* child, Rng&) const {
        for (std::int32_t k = 0; k < n; ++k)
            child[k] = first[k];
        const Metric& m = metric;
        const auto distance = [&m](std::int32_t x, std::int32_t y) {
            return static_cast<std::int64_t>(m.distance(x, y));
        };
        combine_into(child, second, scratch + static_cast<std::int64_t>(c) * n, n, 1000, distance);
    }

    /// Tour length (every thread gets it).
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD std::int64_t evaluate(const Team& team, std::uint32_t,
                                   const std::int32_t* tour) const {
        std::int64_t sum = 0;
        for (std::int32_t k = static_cast<std::int32_t>(team.rank()); k < n;
             k += static_cast<std::int32_t>(team.size()))
            sum += metric.distance(tour[k], tour[k + 1 == n ? 0 : k + 1]);
        return team.sum(sum);
    }
};

} // namespace locus::tsp
