#pragma once
/// \file
/// The TSP as a policy of the many-chain engine (locus/gpu/chain_engine.hpp): tours of n
/// cities; a VND over candidate-list 2-opt, Or-opt and (optionally) sequential 3-opt with focus
/// (don't-look bits on cities);
/// the local double bridge as perturbation. Per chain it keeps the derived arrays of the
/// neighborhood evaluators — city positions, tour-ordered points P (P[n] = P[0]) and edge
/// lengths D — and updates them after a move only where the move's reversals changed the tour.

#include <cstdint>
#include <type_traits>

#include "locus/gpu/storage.hpp"
#include "locus/hd.hpp"
#include "locus/rng.hpp"
#include "locus/tsp/candidate_lists.hpp"
#include "locus/tsp/combine.hpp"
#include "locus/tsp/double_bridge.hpp"
#include "locus/tsp/moves.hpp"
#include "locus/tsp/operators.hpp"

namespace locus::tsp {

/// Parameters of the TSP chains.
struct TspChainOptions {
    std::int32_t candidates = 10;    ///< candidate-list size K of both neighborhoods
    std::int32_t window = 100;       ///< double-bridge window (0 = whole tour)
    std::int32_t three_opt = 0;      ///< candidate-list size of the 3-opt neighborhood (0 = off)
    std::int32_t depth = 0;          ///< most 2-opt steps of the variable-depth move (0 = off)
    std::int32_t second_breadth = 1; ///< second steps tried per first step (1..kMaxSecondBreadth)
    std::int32_t step = 2; ///< variable-depth steps: 2-opt (2) or also sequential 3-opt (3)
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
/// The variable-depth move's step keys (smaller first): none found, and the offset that puts
/// a step closing better than the chain's best so far before every other (gains stay far below
/// 2^61: at most kMaxDepth steps of 32-bit lengths).
inline constexpr std::int64_t kNoStep = INT64_MAX;
inline constexpr std::int32_t kNoIndex = INT32_MAX;
inline constexpr std::int64_t kClosesFirst = std::int64_t{1} << 61;

template <class Metric, class Delta> struct TspChainPolicy {
    using delta_type = Delta;
    using move_type = TourMove;
    using Point = typename Metric::point_type;
    /// The VND's operators, in order, each over its candidate space (3-opt: the sequential
    /// 3-opt of ThreeOptCandidates, over the K3 lists; empty when K3 = 0).
    using Operators = OperatorList<TwoOpt, OrOpt, ThreeOpt>;
    static constexpr int kNeighborhoods = Operators::size;
    static constexpr int kMaxTouched = kMaxTouchedCities; ///< cities one move touches
    static constexpr bool kThreadMapping = true; ///< mapping: thread (Delévacq et al.'s FI-thread)

    Metric metric;
    const std::int32_t* candidates = nullptr; ///< n x K
    std::int32_t n = 0;
    std::int32_t K = 0;
    std::int32_t window = 0;
    const std::int32_t* candidates3 = nullptr; ///< n x K3 (3-opt)
    std::int32_t K3 = 0;
    std::int32_t depth = 0; ///< variable-depth move: most steps (0 = off, at most kMaxDepth)
    std::int32_t second_breadth = 1; ///< second steps per first step (1..kMaxSecondBreadth)
    std::int32_t step = 2; ///< the variable-depth move's steps: 2-opt (2) or also 3-opt (3)
    // Per-chain workspace.
    std::int32_t* pos = nullptr;     ///< chains x n
    Point* P = nullptr;              ///< chains x (n + 1)
    std::int32_t* D = nullptr;       ///< chains x n
    std::int32_t* scratch = nullptr; ///< chains x n (double bridge)

    /// Sets the options and the tour size (the runner binds the metric and candidate lists).
    void configure(const TspChainOptions& options, std::int32_t cities) {
        n = cities;
        K = options.candidates;
        window = options.window;
        K3 = options.three_opt;
        depth = options.depth;
        second_breadth = options.second_breadth;
        step = options.step;
    }

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
        using Op = typename Operators::template at<k>;
        if constexpr (std::is_same_v<Op, ThreeOpt>) {
            v.candidates = candidates3;
            v.K = K3;
        }
        return typename Op::template candidate_space<Metric, Delta>{v};
    }

    LOCUS_HD_INLINE int touched(const std::int32_t* tour, const TourMove& m,
                                std::int32_t* out) const {
        return Operators::touched(m, tour, n, out);
    }

    /// Applies the move's reversals, then refreshes pos and P on the reversed positions and D on
    /// the edges around them (O(reversed length), not O(n)).
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD void apply(const Team& team, std::uint32_t c, std::int32_t* tour,
                        const TourMove& m) const {
        const ReversalPlan plan = Operators::plan(m, n);
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

    /// Whether the edge (x, y) was added by one of the first `steps` steps of a variable-depth
    /// chain (per step its t2 and its t3..t6, as deepen keeps them).
    LOCUS_HD_INLINE static bool added_by_chain(const std::int32_t* t2s,
                                               const std::int32_t (*ends)[4], std::int32_t steps,
                                               std::int32_t x, std::int32_t y) {
        for (std::int32_t k = 0; k < steps; ++k) {
            const std::int32_t a = t2s[k], b = ends[k][0];
            if ((a == x && b == y) || (a == y && b == x)) return true;
            const std::int32_t e = ends[k][1], h = ends[k][2];
            if (h >= 0 && ((e == x && h == y) || (e == y && h == x))) return true;
        }
        return false;
    }

    /// One level of the variable-depth move (deepen): each rank's best step closing the open
    /// edge (t1, t2) of a chain with open gain g (`forward`: the direction from t1 to t2 is array
    /// order) lowers best_key / best_index (the caller's team argmin then agrees on one). Steps
    /// whose t3 is one of the `tried_count` entries of `tried_t3` are not taken, nor steps that
    /// remove an edge added by the chain's `steps` steps (t2s, ends).
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD void scan_steps(const Team& team, const std::int32_t* tour, const std::int32_t* where,
                             bool forward, std::int32_t t1, std::int32_t t2, std::int64_t g,
                             std::int64_t best_gain, const std::int32_t* t2s,
                             const std::int32_t (*ends)[4], std::int32_t steps,
                             const std::int32_t* tried_t3, int tried_count, std::int64_t& best_key,
                             std::int32_t& best_index) const {
        const bool three = step == 3;
        const auto succ = [&](std::int32_t x) { return tour[wrap(where[x] + 1, n)]; };
        const auto pred = [&](std::int32_t x) { return tour[wrap(where[x] - 1, n)]; };
        const auto next = [&](std::int32_t x) { return forward ? succ(x) : pred(x); };
        const auto back = [&](std::int32_t x) { return forward ? pred(x) : succ(x); };
        const auto d = [&](std::int32_t x, std::int32_t y) {
            return static_cast<std::int64_t>(metric.distance(x, y));
        };
        // Offset of x from t2 walking in direction dir (0..n-1).
        const auto offset = [&](std::int32_t x) {
            const std::int32_t o = forward ? where[x] - where[t2] : where[t2] - where[x];
            return o < 0 ? o + n : o;
        };
        // The level's candidate steps in one order (index): per candidate q of
        // t2 its 2-opt step, then (3-opt steps) per candidate r of t4 its two t6.
        // The ranks share the items (q, slot) and keep the first best by key; a
        // team argmin picks the first best of all, so every team size chooses as
        // one thread scanning in order would. Key: with 3-opt steps a step whose
        // closed tour beats the chain's best so far comes first (best closed tour
        // first: a 3-opt step's larger open gain often leads away from a 2-opt
        // step that closes with a gain), then every other by largest open gain.
        const std::int32_t slots = three ? K + 1 : 1;
        const std::int32_t items = K * slots;
        const auto key_of = [&](std::int64_t score, std::int32_t open) {
            const std::int64_t closed = score - d(open, t1);
            return three && closed > best_gain ? -closed - kClosesFirst : -score;
        };
        const std::int32_t* list = candidates + static_cast<std::int64_t>(t2) * K;
        for (std::int32_t item = static_cast<std::int32_t>(team.rank()); item < items;
             item += static_cast<std::int32_t>(team.size())) {
            const std::int32_t q = item / slots;
            const std::int32_t slot = item % slots;
            const std::int32_t y = list[q];
            const std::int64_t g1 = g - d(t2, y);
            if (g1 <= 0) continue;
            if (y == t1 || y == succ(t2) || y == pred(t2)) continue;
            bool excluded = false;
            for (int k = 0; k < tried_count && !excluded; ++k)
                excluded = tried_t3[k] == y; // a step tried before
            if (excluded) continue;
            // (Whether a removed edge was added earlier is asked last: only of a
            // step that would be chosen.)
            if (slot == 0) {
                // The 2-opt step: t4 before t3 in direction dir.
                const std::int32_t z = back(y);
                if (z == t1 || z == t2) continue;
                const std::int64_t key = key_of(g1 + d(y, z), z);
                if (key < best_key && !added_by_chain(t2s, ends, steps, y, z)) {
                    best_key = key;
                    best_index = 2 * item;
                }
                continue;
            }
            // The 3-opt step: t4 after t3, t5 on the path t2..t3, t6 beside it.
            const std::int32_t u = next(y);
            if (u == t1 || u == t2) continue;
            const std::int32_t v = candidates[static_cast<std::int64_t>(u) * K + slot - 1];
            const std::int64_t g2 = g1 + d(y, u) - d(u, v);
            if (g2 <= 0) continue;
            const std::int32_t ov = offset(v);
            if (v == y || ov > offset(y)) continue; // t5 on the path t2..t3, not t3
            int u_added = -1;                       // whether the chain added (y, u), once asked
            for (int w = 0; w < 2; ++w) {
                // w = 0: t6 after t5 (then t5 != t3); w = 1: t6 before t5,
                // neither t2 (the step would be a 2-opt move) nor off the path.
                if (w == 1 && ov < 2) continue;
                const std::int32_t x = w == 0 ? next(v) : back(v);
                const std::int64_t key = key_of(g2 + d(v, x), x);
                if (key >= best_key) continue;
                if (u_added < 0) u_added = added_by_chain(t2s, ends, steps, y, u) ? 1 : 0;
                if (u_added == 0 && !added_by_chain(t2s, ends, steps, v, x)) {
                    best_key = key;
                    best_index = 2 * item + w;
                }
            }
        }
    }

    /// Applies one step of the variable-depth move as 2-opt reversals of the team, each leaving
    /// one tour, and records their two_opt_between cities in `subs`; returns how many. t5 < 0:
    /// a 2-opt step; `t6_back`: t6 lies before t5 in the chain's direction.
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD std::int32_t apply_step(const Team& team, std::uint32_t c, std::int32_t* tour,
                                     std::int32_t t1, std::int32_t t2, std::int32_t t3,
                                     std::int32_t t4, std::int32_t t5, std::int32_t t6,
                                     bool t6_back, std::int32_t (*subs)[4]) const {
        const std::int32_t* where = pos_of(c);
        std::int32_t count = 0;
        const auto sub = [&](std::int32_t a, std::int32_t b, std::int32_t x, std::int32_t y) {
            subs[count][0] = a;
            subs[count][1] = b;
            subs[count][2] = x;
            subs[count][3] = y;
            ++count;
        };
        if (t5 < 0) {
            sub(t1, t2, t3, t4);
        } else if (t6_back) {
            // Path t2..t6 t5..t3: both parts reversed in place.
            sub(t1, t2, t5, t6);
            sub(t5, t2, t3, t4);
        } else {
            // Path t2..t5 t6..t3: the parts swap (the whole path reversed, then each part; a
            // part of one city needs no reversal).
            sub(t1, t2, t4, t3);
            if (t6 != t3) sub(t1, t3, t5, t6);
            if (t5 != t2) sub(t3, t5, t4, t2);
        }
        for (std::int32_t k = 0; k < count; ++k) {
            const std::int32_t* s = subs[k];
            const TourMove move = two_opt_between(where, tour, s[0], s[1], s[2], s[3]);
            team.sync(); // every rank has read the tour before the reversal writes it
            apply(team, c, tour, move);
        }
        return count;
    }

    /// Undoes the steps after the first `best_steps` of a chain of `steps`, last first, each
    /// reversal by its inverse: two_opt_between(a, b, x, y) added (b, x) and (a, y). `applied`:
    /// the entries of `subs` in use; `subs_of`: the entries of each step.
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD void undo_steps(const Team& team, std::uint32_t c, std::int32_t* tour,
                             const std::int32_t (*subs)[4], const std::int32_t* subs_of,
                             std::int32_t steps, std::int32_t best_steps,
                             std::int32_t applied) const {
        const std::int32_t* where = pos_of(c);
        while (steps > best_steps) {
            --steps;
            for (std::int32_t k = 0; k < subs_of[steps]; ++k) {
                const std::int32_t* s = subs[--applied];
                const TourMove undo = two_opt_between(where, tour, s[1], s[2], s[3], s[0]);
                team.sync();
                apply(team, c, tour, undo);
            }
        }
    }

    /// The cities whose edges the first `best_steps` steps of a chain from t1 changed, each once
    /// (a chain may pass a city twice), so at most n entries: t1, t2 of the first step, then
    /// t3..t6 of every step (the next step's t2 is this one's t4 or t6). Every rank keeps the
    /// list; the leader writes it to `out`. Returns its length.
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD std::int32_t list_chain_cities(const Team& team, std::int32_t t1,
                                            const std::int32_t* t2s, const std::int32_t (*ends)[4],
                                            std::int32_t best_steps, std::int32_t* out) const {
        std::int32_t listed_cities[2 + 4 * kMaxDepth];
        std::int32_t listed = 0;
        const auto note = [&](std::int32_t city) {
            if (city < 0) return;
            for (std::int32_t k = 0; k < listed; ++k)
                if (listed_cities[k] == city) return;
            if (team.rank() == 0) out[listed] = city;
            listed_cities[listed++] = city;
        };
        note(t1);
        note(t2s[0]);
        for (std::int32_t k = 0; k < best_steps; ++k)
            for (int e = 0; e < 4; ++e)
                note(ends[k][e]);
        return listed;
    }

    /// The variable-depth move (Lin-Kernighan style; Delévacq et al.'s "deeper moves"),
    /// tried when the VND's neighborhoods have no improving move left: from each city t1 of
    /// `from` and each of its tour neighbours t2, repeatedly close the chain's open edge
    /// (t1, t2) by a step, and go on from the step's new open edge. A 2-opt step removes
    /// (t1, t2) and (t3, t4) for a candidate t3 of t2 with positive partial gain g - d(t2, t3)
    /// and the neighbour t4 of t3 that keeps one tour, adds (t2, t3) and (t1, t4) and goes on
    /// from t2 = t4. With `step` 3 each step may instead be a sequential 3-opt move (LKH's
    /// 3-opt basic move): t4 the other neighbour of t3 (which alone would split the tour), t5
    /// a candidate of t4 on the path t2..t3 with positive partial gain, t6 either neighbour of
    /// t5 on that path; it removes (t1, t2), (t3, t4), (t5, t6), adds (t2, t3), (t4, t5) and
    /// (t6, t1) and goes on from t2 = t6 (for a short path t2..t5 or t6..t3 an Or-opt move).
    /// Each level takes the step with the largest open gain g - d(t2, t3) + d(t3, t4) [- d(t4,
    /// t5) + d(t5, t6)] (with 3-opt steps: the one whose closed tour is best when a step closes
    /// better than the chain's best so far); edges added by the chain are never removed by it; when
    /// a chain does not improve, the next best first step (kFirstBreadth per side) starts another.
    /// The steps are applied as they are chosen (as one to three 2-opt reversals of the team) and
    /// those after the best closed tour are undone. Stops at the first improving chain: returns its
    /// objective change (< 0) on every rank, and the leader writes the cities whose edges
    /// changed to `out` (each once, so at most n), every rank their count to `touched`; 0 when
    /// no chain improves (tour unchanged). `tried`: the entries of `from` searched from. The
    /// team's ranks share each level's candidate scan and agree on its step by a team argmin
    /// (value, then scan order), so every team size makes the choices of one thread.
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
        const bool three = step == 3;
        const auto succ = [&](std::int32_t x) { return tour[wrap(where[x] + 1, n)]; };
        const auto pred = [&](std::int32_t x) { return tour[wrap(where[x] - 1, n)]; };
        const auto d = [&](std::int32_t x, std::int32_t y) {
            return static_cast<std::int64_t>(metric.distance(x, y));
        };
        // Per step: its t2, and t3..t6 (t5 = t6 = -1 for a 2-opt step); the 2-opt reversals
        // applied for it (two_opt_between's cities), to undo them last first.
        std::int32_t t2s[kMaxDepth], ends[kMaxDepth][4];
        std::int32_t subs[kMaxDepth * 3][4];
        std::int32_t subs_of[kMaxDepth];
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
                std::int32_t applied = 0; // entries of subs
                while (steps < limit) {
                    // dir: the direction from t1 to t2 (true: array order).
                    const bool forward = succ(t1) == t2;
                    const auto next = [&](std::int32_t x) { return forward ? succ(x) : pred(x); };
                    const auto back = [&](std::int32_t x) { return forward ? pred(x) : succ(x); };
                    const std::int32_t slots = three ? K + 1 : 1;
                    const std::int32_t* list = candidates + static_cast<std::int64_t>(t2) * K;
                    // First and second steps tried before are excluded.
                    const std::int32_t* tried_t3 = steps == 0 ? first_t3 : second_t3;
                    const int tried_count = steps == 0   ? alternative
                                            : steps == 1 ? alternative2
                                                         : 0;
                    std::int64_t best_key = kNoStep;
                    std::int32_t best_index = kNoIndex;
                    scan_steps(team, tour, where, forward, t1, t2, g, best_gain, t2s, ends, steps,
                               tried_t3, tried_count, best_key, best_index);
                    team.argmin(best_key, best_index);
                    if (best_key == kNoStep) break;
                    // Every rank decodes the chosen step.
                    const std::int32_t item = best_index / 2;
                    const std::int32_t slot = item % slots;
                    const std::int32_t t3 = list[item / slots];
                    std::int32_t t4 = back(t3), t5 = -1, t6 = -1;
                    std::int64_t best_score = g - d(t2, t3);
                    if (slot == 0) {
                        best_score += d(t3, t4);
                    } else {
                        t4 = next(t3);
                        t5 = candidates[static_cast<std::int64_t>(t4) * K + slot - 1];
                        t6 = best_index % 2 == 0 ? next(t5) : back(t5);
                        best_score += d(t3, t4) - d(t4, t5) + d(t5, t6);
                    }
                    if (steps == 0 && alternative2 == 0) first_t3[firsts++] = t3;
                    if (steps == 1) second_t3[seconds++] = t3;
                    const std::int32_t count_subs =
                        apply_step(team, c, tour, t1, t2, t3, t4, t5, t6, t5 >= 0 && t6 == back(t5),
                                   subs + applied);
                    applied += count_subs;
                    subs_of[steps] = count_subs;
                    t2s[steps] = t2;
                    ends[steps][0] = t3;
                    ends[steps][1] = t4;
                    ends[steps][2] = t5;
                    ends[steps][3] = t6;
                    ++steps;
                    g = best_score;
                    const std::int32_t open = t5 < 0 ? t4 : t6;
                    const std::int64_t closed = g - d(open, t1);
                    if (closed > best_gain) {
                        best_gain = closed;
                        best_steps = steps;
                    }
                    t2 = open;
                }
                undo_steps(team, c, tour, subs, subs_of, steps, best_steps, applied);
                if (best_steps > 0) {
                    touched = list_chain_cities(team, t1, t2s, ends, best_steps, out);
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
    /// `second` (Combine, Riise & Burke 2014; exchange recombine / population), sub-paths of at
    /// most 1000 cities. Deterministic: the random stream is not used.
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
