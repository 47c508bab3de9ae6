#pragma once
/// \file
/// The DCVRP as a policy of the many-chain engine (locus/gpu/chain_engine.hpp): route
/// neighborhoods on granular candidate lists (each customer's K nearest), every move evaluated in
/// O(1) from per-route prefix summaries (load, duration with service times) and checked against
/// the capacity and the duration limit; moves never open a route, so a fleet limit that the
/// start respects holds throughout. Solutions are the plugin's giant-tour rows (2(n - 1) words,
/// depot markers 0); the policy keeps each chain's row normalised (starting with a marker).
///
/// Costs are fixed point: every distance, service time and the duration limit scaled by
/// `RouteChainData::scale` and rounded (scale 1 when the distances are integral, as with nint),
/// so chains compare integers and both backends agree exactly; the duration limit is lowered by
/// n units, more than the rounding of any route's terms, so that a route feasible in fixed point
/// is feasible in the instance's own distances. The search context re-evaluates offered
/// solutions with the problem's exact objective.
///
/// Neighborhoods (rows: active customers u; columns: u's candidates v):
///   0 relocate   u after v (columns [0, K)) or before v ([K, 2K))
///   1 swap       u and v
///   2 2-opt*     u, v in different routes, x = next(u), y = next(v): tails exchanged
///                (u, y) + (v, x) ([0, K)), or (u, v) + (x, y) with both heads reversed ([K, 2K))
///   3 2-opt      u, v in one route: the part between them reversed, (u, v) + (u+, v+) added
///   4 relocate2/3 the 2 or 3 consecutive customers from u (one route) moved after v, as they
///                were or reversed (columns: (length - 2) 2K + reversed K + candidate)

#include <cstdint>

#include "locus/gpu/neighborhood_engine.hpp"
#include "locus/gpu/storage.hpp"
#include "locus/gpu/team.hpp"
#include "locus/hd.hpp"
#include "locus/rng.hpp"

namespace locus::dcvrp {

/// A move of the route neighborhoods.
struct RouteMove {
    std::int32_t kind = 0;    ///< neighborhood: 0 relocate, 1 swap, 2 2-opt*, 3 2-opt
    std::int32_t variant = 0; ///< relocate: 0 after v, 1 before v; 2-opt*: 0 tails, 1 reversed;
                              ///< relocate2/3: 2 (length - 2) + reversed
    std::int32_t u = 0;
    std::int32_t v = 0;
    std::int32_t pu = -1; ///< positions of u and v in the row when decoded (-1: not known)
    std::int32_t pv = -1;
};

/// "No duration limit" in fixed point.
inline constexpr std::int64_t kNoDurationLimit = std::int64_t{1} << 60;

struct RouteChainPolicy {
    using delta_type = std::int64_t;
    using move_type = RouteMove;
    static constexpr int kNeighborhoods = 5;
    static constexpr int kMaxTouched = 6;
    /// Most tries per kick of the perturbation.
    static constexpr int kKickTries = 32;

    // Instance (host or device pointers), fixed point.
    const std::int64_t* dist = nullptr;     ///< n x n
    const std::int64_t* demand = nullptr;   ///< n (depot 0)
    const std::int32_t* neighbors = nullptr; ///< n x K nearest customers
    /// n x 2: each node's direction from the depot as a fixed-point unit vector (x, y) (zero
    /// for the depot and without coordinates); recombination orders routes by the heading of
    /// their sum, as Vidal's HGS orders routes by polar angle before crossover.
    const std::int32_t* heading = nullptr;
    std::int64_t capacity = 0;
    std::int64_t service = 0;
    std::int64_t max_duration = kNoDurationLimit;
    std::int32_t n = 0; ///< nodes, depot included
    std::int32_t K = 0;
    std::int32_t kicks = 3; ///< random feasible relocations and swaps per perturbation
    std::int32_t vehicles = 0; ///< fleet limit K of recombined children (0: unlimited)
    std::int32_t segments = 0; ///< 1: neighborhood 4 (relocate2/3) searched; 0: left out
    /// 1: capacity and duration excess penalised in the descent with adaptive weights; 0: hard
    /// limits (moves over a limit refused).
    std::int32_t penalties = 0;
    std::int64_t load_weight = 0;          ///< initial cost per unit of load excess
    std::int64_t duration_weight = 1024;   ///< initial cost per unit of duration excess, x 1024
    std::int32_t target_feasible = 200;    ///< target share of feasible descents, per mille
    std::int32_t adapt_every = 100;        ///< descents between weight adaptations
    std::int32_t repair_boost = 10;        ///< weight factor of the repair descent

    // Per-chain workspace (W = 2(n - 1) words per chain; routes numbered in row order).
    std::int32_t* lin = nullptr;         ///< chains x W: the row, normalised
    std::int32_t* pos = nullptr;         ///< chains x n: position of each customer in lin
    std::int32_t* route = nullptr;       ///< chains x n: route of each customer
    std::int64_t* pre_load = nullptr;    ///< chains x n: load of the route up to the customer
    std::int64_t* pre_dur = nullptr;     ///< chains x n: duration from the depot up to it
                                         ///< (its service included)
    std::int32_t* route_begin = nullptr; ///< chains x n: per route, its marker's position
    std::int32_t* route_end = nullptr;   ///< chains x n: per route, the next marker's position
    std::int64_t* load = nullptr;        ///< chains x n: per route, its load
    std::int64_t* dur = nullptr;         ///< chains x n: per route, its duration
    std::int32_t* scratch = nullptr;     ///< chains x W
    std::int64_t* weights = nullptr;     ///< chains x 2: load and duration weights (penalties)
    std::int32_t* tally = nullptr;       ///< chains x 4: descents, load-feasible,
                                         ///< duration-feasible, weight factor (repair)
    std::int32_t* sequence = nullptr;  ///< chains x n: recombination child (customers)
    std::int64_t* potential = nullptr; ///< chains x n: Split labels
    std::int32_t* split_from = nullptr; ///< chains x n: Split predecessors
    std::uint8_t* taken = nullptr;     ///< chains x n: order-crossover flags
    std::int64_t* route_key = nullptr; ///< chains x 2n: crossover route headings (x, y)
    std::int32_t* route_order = nullptr; ///< chains x n: crossover routes by heading

    template <int k> LOCUS_HD_INLINE static constexpr bool focused() { return true; }
    LOCUS_HD_INLINE std::int32_t width() const { return 2 * (n - 1); }
    LOCUS_HD_INLINE std::int32_t elements() const { return n; }

    void declare(gpu::ArrayList& list, std::size_t chains) {
        const auto w = static_cast<std::size_t>(width());
        const auto nodes = static_cast<std::size_t>(n);
        list.add(lin, chains * w, "DCVRP normalised rows");
        list.add(pos, chains * nodes, "DCVRP positions");
        list.add(route, chains * nodes, "DCVRP routes of customers");
        list.add(pre_load, chains * nodes, "DCVRP prefix loads");
        list.add(pre_dur, chains * nodes, "DCVRP prefix durations");
        list.add(route_begin, chains * nodes, "DCVRP route begins");
        list.add(route_end, chains * nodes, "DCVRP route ends");
        list.add(load, chains * nodes, "DCVRP route loads");
        list.add(dur, chains * nodes, "DCVRP route durations");
        list.add(scratch, chains * w, "DCVRP move scratch");
        list.add(weights, chains * 2, "DCVRP penalty weights");
        list.add(tally, chains * 4, "DCVRP feasibility tallies");
        list.add(sequence, chains * nodes, "DCVRP crossover sequences");
        list.add(potential, chains * nodes, "DCVRP split labels");
        list.add(split_from, chains * nodes, "DCVRP split predecessors");
        list.add(taken, chains * nodes, "DCVRP crossover flags");
        list.add(route_key, chains * 2 * nodes, "DCVRP crossover route headings");
        list.add(route_order, chains * nodes, "DCVRP crossover route order");
    }

    /// The arrays of one chain.
    struct View {
        const RouteChainPolicy* p;
        std::int32_t* lin;
        std::int32_t* pos;
        std::int32_t* route;
        std::int64_t* pre_load;
        std::int64_t* pre_dur;
        std::int32_t* route_begin;
        std::int32_t* route_end;
        std::int64_t* load;
        std::int64_t* dur;
        std::int32_t* scratch;
        std::int32_t w;
        std::int64_t wl; ///< load weight (penalties)
        std::int64_t wd; ///< duration weight x 1024 (penalties)

        LOCUS_HD_INLINE std::int64_t d(std::int32_t a, std::int32_t b) const {
            return p->dist[static_cast<std::int64_t>(a) * p->n + b];
        }
        LOCUS_HD_INLINE std::int32_t next(std::int32_t u) const {
            const std::int32_t q = pos[u] + 1;
            return q < w ? lin[q] : 0;
        }
        LOCUS_HD_INLINE std::int32_t prev(std::int32_t u) const { return lin[pos[u] - 1]; }
        /// Hard limits: a route's new load and duration are within the limits or no further
        /// over them than route r's now.
        LOCUS_HD_INLINE bool admissible(std::int64_t l, std::int64_t t, std::int32_t r) const {
            return (l <= p->capacity || l <= load[r]) && (t <= p->max_duration || t <= dur[r]);
        }
        /// Penalty term of a route of load l and duration t under this chain's weights.
        LOCUS_HD_INLINE std::int64_t term(std::int64_t l, std::int64_t t) const {
            return p->penalty(l, t, wl, wd);
        }
        /// Customers of route r.
        LOCUS_HD_INLINE std::int32_t length(std::int32_t r) const {
            return route_end[r] - route_begin[r] - 1;
        }
    };

    LOCUS_HD_INLINE View view(std::uint32_t c) const {
        const std::int64_t w = width();
        const std::int64_t nodes = n;
        return {this,
                lin + c * w,
                pos + c * nodes,
                route + c * nodes,
                pre_load + c * nodes,
                pre_dur + c * nodes,
                route_begin + c * nodes,
                route_end + c * nodes,
                load + c * nodes,
                dur + c * nodes,
                scratch + c * w,
                width(),
                penalties != 0 ? weights[2 * c] * tally[4 * c + 3] : 0,
                penalties != 0 ? weights[2 * c + 1] * tally[4 * c + 3] : 0};
    }

    // Penalties. Weights are capped so that every product fits in 63 bits: load excess x load
    // weight <= 2^22 x 2^36 x boost, duration excess x duration weight <= 2^38 x 2^20 x boost.
    static constexpr std::int64_t kMaxLoadWeight = std::int64_t{1} << 36;
    static constexpr std::int64_t kMaxDurationWeight = std::int64_t{1} << 20;
    static constexpr std::int64_t kMaxTerm = std::int64_t{1} << 50;
    /// Chain objectives of infeasible solutions start here: any feasible one is cheaper.
    static constexpr std::int64_t kInfeasible = std::int64_t{1} << 60;

    /// Penalty of a route of load l and duration t under weights wl (per unit of load) and wd
    /// (per 1024 units of duration): each part capped at 2^50.
    LOCUS_HD_INLINE std::int64_t penalty(std::int64_t l, std::int64_t t, std::int64_t wl,
                                         std::int64_t wd) const {
        std::int64_t load_excess = l > capacity ? l - capacity : 0;
        std::int64_t time_excess = t > max_duration ? t - max_duration : 0;
        load_excess = load_excess < (std::int64_t{1} << 22) ? load_excess : std::int64_t{1} << 22;
        time_excess = time_excess < (std::int64_t{1} << 38) ? time_excess : std::int64_t{1} << 38;
        const std::int64_t a = load_excess * wl;
        const std::int64_t b = (time_excess * wd) >> 10;
        return (a < kMaxTerm ? a : kMaxTerm) + (b < kMaxTerm ? b : kMaxTerm);
    }

    /// The chain objective of a solution of cost `cost` whose routes' penalty under the initial
    /// weights is `initial` (0 when feasible): the cost when feasible, else kInfeasible plus the
    /// penalised cost (capped), so that chains rank feasible solutions by cost before every
    /// infeasible one and infeasible ones by their penalised cost.
    LOCUS_HD_INLINE static std::int64_t chain_value(std::int64_t cost, bool feasible,
                                                    std::int64_t initial) {
        if (feasible) return cost;
        const std::int64_t value = cost + initial;
        constexpr std::int64_t kCap = std::int64_t{1} << 59;
        return kInfeasible + (value < kCap ? value : kCap);
    }

    /// Leader: route r's customer summaries (route, prefix load and duration) and its load and
    /// duration, from lin between its bounds.
    LOCUS_HD void summarise(const View& v, std::int32_t r) const {
        std::int32_t last = 0;
        std::int64_t l = 0;
        std::int64_t t = 0;
        for (std::int32_t q = v.route_begin[r] + 1; q < v.route_end[r]; ++q) {
            const std::int32_t node = v.lin[q];
            l += demand[node];
            t += v.d(last, node) + service;
            v.route[node] = r;
            v.pre_load[node] = l;
            v.pre_dur[node] = t;
            last = node;
        }
        v.load[r] = l;
        v.dur[r] = t + v.d(last, 0);
    }

    /// Rebuilds the chain's workspace from `row`, normalising the row in place first (rotated to
    /// start at its first marker): rows copied and markers listed by the team, then a route per
    /// thread. Ends synchronised.
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD void refresh(const Team& team, std::uint32_t c, std::int32_t* row) const {
        const View v = view(c);
        const std::int32_t w = v.w;
        const auto rank = static_cast<std::int32_t>(team.rank());
        const auto size = static_cast<std::int32_t>(team.size());
        if (row[0] != 0) { // every rank reads the same word before the leader writes
            team.sync();
            if (rank == 0) {
                std::int32_t first = 0;
                while (first < w && row[first] != 0)
                    ++first;
                for (std::int32_t q = 0; q < w; ++q)
                    v.scratch[q] = row[first + q < w ? first + q : first + q - w];
                for (std::int32_t q = 0; q < w; ++q)
                    row[q] = v.scratch[q];
            }
            team.sync();
        }
        for (std::int32_t q = rank; q < w; q += size)
            v.lin[q] = row[q];
        team.sync();
        const auto routes = static_cast<std::int32_t>(gpu::compact(
            team, static_cast<std::uint32_t>(w),
            [](std::uint32_t q) { return static_cast<std::int32_t>(q); },
            [&](std::uint32_t q) { return v.lin[q] == 0; },
            [&](std::uint32_t slot, std::int32_t q) { v.route_begin[slot] = q; }));
        for (std::int32_t r = rank; r < routes; r += size) {
            v.route_end[r] = r + 1 < routes ? v.route_begin[r + 1] : w;
            for (std::int32_t q = v.route_begin[r] + 1; q < v.route_end[r]; ++q)
                v.pos[v.lin[q]] = q;
            summarise(v, r);
        }
        if (rank == 0 && tally[4 * c + 3] == 0) { // first refresh: the initial weights
            weights[2 * c] = load_weight;
            weights[2 * c + 1] = duration_weight;
            tally[4 * c + 3] = 1;
        }
        team.sync();
    }

    /// Delta of a move, or invalid_delta when it is not a move (no-op; with hard limits, a move
    /// that takes a route over the capacity or the duration limit, or further over it). With
    /// penalties the delta includes the change of the routes' penalty terms. Shared by the
    /// evaluators, the perturbation and the tests.
    LOCUS_HD static std::int64_t delta(const View& v, const RouteMove& m) {
        constexpr std::int64_t kInvalid = gpu::invalid_delta<std::int64_t>();
        const std::int32_t u = m.u;
        const std::int32_t x = m.v;
        if (u <= 0 || x <= 0 || u == x) return kInvalid;
        const std::int64_t svc = v.p->service;
        const std::int32_t ra = v.route[u];
        const std::int32_t rb = v.route[x];
        const bool same = ra == rb;
        // The changed routes' new load and duration: route ra, and rb when it differs.
        const auto limited = [&](std::int64_t change, std::int64_t la, std::int64_t ta,
                                std::int64_t lb, std::int64_t tb) -> std::int64_t {
            if (v.p->penalties == 0) {
                if (!v.admissible(la, ta, ra)) return kInvalid;
                if (!same && !v.admissible(lb, tb, rb)) return kInvalid;
                return change;
            }
            change += v.term(la, ta) - v.term(v.load[ra], v.dur[ra]);
            if (!same) change += v.term(lb, tb) - v.term(v.load[rb], v.dur[rb]);
            return change;
        };
        switch (m.kind) {
        case 0: { // relocate u between a and b
            const std::int32_t a = m.variant == 0 ? x : v.prev(x);
            const std::int32_t b = m.variant == 0 ? v.next(x) : x;
            if (a == u || b == u) return kInvalid;
            const std::int32_t p = v.prev(u);
            const std::int32_t s = v.next(u);
            const std::int64_t removal = v.d(p, s) - v.d(p, u) - v.d(u, s);
            const std::int64_t insertion = v.d(a, u) + v.d(u, b) - v.d(a, b);
            const std::int64_t change = removal + insertion;
            if (same) return limited(change, v.load[ra], v.dur[ra] + change, 0, 0);
            const std::int64_t q = v.p->demand[u];
            return limited(change, v.load[ra] - q, v.dur[ra] + removal - svc, v.load[rb] + q,
                          v.dur[rb] + insertion + svc);
        }
        case 1: { // swap u and x
            const std::int32_t pu = v.prev(u);
            const std::int32_t su = v.next(u);
            const std::int32_t px = v.prev(x);
            const std::int32_t sx = v.next(x);
            if (su == x) {
                const std::int64_t change =
                    v.d(pu, x) + v.d(u, sx) - v.d(pu, u) - v.d(x, sx);
                return limited(change, v.load[ra], v.dur[ra] + change, 0, 0);
            }
            if (sx == u) {
                const std::int64_t change =
                    v.d(px, u) + v.d(x, su) - v.d(px, x) - v.d(u, su);
                return limited(change, v.load[ra], v.dur[ra] + change, 0, 0);
            }
            const std::int64_t at_u = v.d(pu, x) + v.d(x, su) - v.d(pu, u) - v.d(u, su);
            const std::int64_t at_x = v.d(px, u) + v.d(u, sx) - v.d(px, x) - v.d(x, sx);
            if (same) return limited(at_u + at_x, v.load[ra], v.dur[ra] + at_u + at_x, 0, 0);
            const std::int64_t qu = v.p->demand[u];
            const std::int64_t qx = v.p->demand[x];
            return limited(at_u + at_x, v.load[ra] - qu + qx, v.dur[ra] + at_u,
                          v.load[rb] - qx + qu, v.dur[rb] + at_x);
        }
        case 2: { // 2-opt* between routes
            if (same) return kInvalid;
            const std::int32_t nu = v.next(u);
            const std::int32_t nx = v.next(x);
            const std::int64_t la = v.pre_load[u];
            const std::int64_t lb = v.pre_load[x];
            const std::int64_t ta = v.pre_dur[u];
            const std::int64_t tb = v.pre_dur[x];
            const std::int64_t tail_a = v.dur[ra] - ta - v.d(u, nu); // from nu to the depot
            const std::int64_t tail_b = v.dur[rb] - tb - v.d(x, nx);
            if (m.variant == 0) {
                if (nu == 0 && nx == 0) return kInvalid; // two empty tails
                return limited(v.d(u, nx) + v.d(x, nu) - v.d(u, nu) - v.d(x, nx),
                              la + v.load[rb] - lb, ta + v.d(u, nx) + tail_b,
                              lb + v.load[ra] - la, tb + v.d(x, nu) + tail_a);
            }
            return limited(v.d(u, x) + v.d(nu, nx) - v.d(u, nu) - v.d(x, nx), la + lb,
                          ta + v.d(u, x) + tb, v.load[ra] - la + v.load[rb] - lb,
                          tail_a + v.d(nu, nx) + tail_b);
        }
        case 4: { // relocate the segment [u .. last] after x
            const std::int32_t length = 2 + m.variant / 2;
            const bool reversed = (m.variant & 1) != 0;
            const std::int32_t first_pos = v.pos[u];
            const std::int32_t last_pos = first_pos + length - 1;
            if (last_pos >= v.route_end[ra]) return kInvalid; // the segment leaves the route
            const std::int32_t last = v.lin[last_pos];
            const std::int32_t b = v.next(x);
            const std::int32_t px = v.pos[x];
            if (same && px >= first_pos - 1 && px <= last_pos) return kInvalid; // no-op or inside
            const std::int32_t p = v.prev(u);
            const std::int32_t s = last_pos + 1 < v.w ? v.lin[last_pos + 1] : 0;
            const std::int64_t removal = v.d(p, s) - v.d(p, u) - v.d(last, s);
            const std::int64_t insertion =
                reversed ? v.d(x, last) + v.d(u, b) - v.d(x, b) : v.d(x, u) + v.d(last, b) - v.d(x, b);
            const std::int64_t change = removal + insertion;
            if (same) return limited(change, v.load[ra], v.dur[ra] + change, 0, 0);
            const std::int64_t seg_load = v.pre_load[last] - v.pre_load[u] + v.p->demand[u];
            const std::int64_t seg_time = v.pre_dur[last] - v.pre_dur[u] + svc;
            return limited(change, v.load[ra] - seg_load, v.dur[ra] + removal - seg_time,
                          v.load[rb] + seg_load, v.dur[rb] + insertion + seg_time);
        }
        default: { // 2-opt within a route
            if (!same) return kInvalid;
            const std::int32_t a = v.pos[u] < v.pos[x] ? u : x;
            const std::int32_t b = a == u ? x : u;
            const std::int32_t an = v.next(a);
            const std::int32_t bn = v.next(b);
            if (an == b) return kInvalid;
            const std::int64_t change = v.d(a, b) + v.d(an, bn) - v.d(a, an) - v.d(b, bn);
            return limited(change, v.load[ra], v.dur[ra] + change, 0, 0);
        }
        }
    }

    /// Neighborhood k of chain c as an engine evaluator: rows are the active customers.
    template <int k> struct Evaluator {
        using delta_type = std::int64_t;
        using row_type = std::int32_t; ///< the customer u (0: not a row of moves)
        static constexpr std::int32_t rows_per_focus = 1;
        View v;
        const std::int32_t* active;
        std::int32_t rows;

        LOCUS_HD_INLINE gpu::MoveGrid grid() const {
            if (k == 4 && v.p->segments == 0) return {0, 0};
            const std::int32_t cols = k == 4 ? 4 * v.p->K : ((k == 0 || k == 2) ? 2 * v.p->K : v.p->K);
            return {static_cast<std::uint32_t>(rows), static_cast<std::uint32_t>(cols)};
        }
        LOCUS_HD_INLINE row_type row(std::uint32_t, std::uint32_t r) const { return active[r]; }
        LOCUS_HD_INLINE RouteMove move(std::int32_t u, std::uint32_t col) const {
            const auto K = static_cast<std::uint32_t>(v.p->K);
            const std::uint32_t c = col % K;
            return {k, static_cast<std::int32_t>(col / K), u,
                    v.p->neighbors[static_cast<std::int64_t>(u) * K + c]};
        }
        LOCUS_HD_INLINE delta_type operator()(row_type u, std::uint32_t col) const {
            if (u <= 0) return gpu::invalid_delta<delta_type>();
            return delta(v, move(u, col));
        }
        LOCUS_HD_INLINE RouteMove decode(std::uint32_t, std::uint64_t index) const {
            const std::uint32_t cols = this->grid().cols;
            RouteMove m = move(active[index / cols], static_cast<std::uint32_t>(index % cols));
            m.pu = v.pos[m.u];
            m.pv = v.pos[m.v];
            return m;
        }
    };

    template <int k>
    LOCUS_HD_INLINE Evaluator<k> evaluator(std::uint32_t c, const std::int32_t*,
                                           const std::int32_t* active,
                                           const std::int32_t* count) const {
        return {view(c), active, *count};
    }

    /// The move's customers and their neighbours in `row` before it: the customers whose moves
    /// it changes (depot markers come out as 0, which has no moves). Reads the positions the
    /// evaluator decoded, or searches the row for moves built without them.
    LOCUS_HD int touched(const std::int32_t* row, const RouteMove& m, std::int32_t* out) const {
        const std::int32_t w = width();
        int count = 0;
        const std::int32_t extra = m.kind == 4 ? 1 + m.variant / 2 : 0; // segment beyond u
        // NOTE: the engine's buffer holds max(width, elements) entries; tiny instances (n = 3)
        // have fewer than the six this can name.
        const std::int32_t room = w > n ? w : n;
        const auto add = [&](std::int32_t node) {
            if (node != 0 && count < room) out[count++] = node; // the depot has no moves
        };
        const auto around = [&](std::int32_t q) {
            const std::int32_t after = row[q] == m.u ? q + 1 + extra : q + 1;
            add(row[q]);
            add(row[q == 0 ? w - 1 : q - 1]);
            add(row[after % w]);
        };
        if (m.pu >= 0 && m.pv >= 0) { // in row order, as the search below finds them
            around(m.pu < m.pv ? m.pu : m.pv);
            around(m.pu < m.pv ? m.pv : m.pu);
            return count;
        }
        int seen = 0;
        for (std::int32_t q = 0; q < w && seen < 2; ++q) {
            if (row[q] != m.u && row[q] != m.v) continue;
            ++seen;
            around(q);
        }
        return count;
    }

    /// Customers of route r (the move's first or second route) after the move.
    LOCUS_HD static std::int32_t moved_length(const View& v, const RouteMove& m, std::int32_t r) {
        const std::int32_t ra = v.route[m.u];
        const std::int32_t rb = v.route[m.v];
        const std::int32_t length = v.length(r);
        if (ra == rb) return length;
        switch (m.kind) {
        case 0: return r == ra ? length - 1 : length + 1;
        case 2: {
            const std::int32_t pu = v.pos[m.u];
            const std::int32_t px = v.pos[m.v];
            const std::int32_t head_a = pu - v.route_begin[ra];
            const std::int32_t head_b = px - v.route_begin[rb];
            const std::int32_t tail_a = v.route_end[ra] - pu - 1;
            const std::int32_t tail_b = v.route_end[rb] - px - 1;
            if (m.variant == 0) return r == ra ? head_a + tail_b : head_b + tail_a;
            return r == ra ? head_a + head_b : tail_a + tail_b;
        }
        case 4: {
            const std::int32_t moved = 2 + m.variant / 2;
            return r == ra ? length - moved : length + moved;
        }
        default: return length; // swap
        }
    }

    /// Leader: writes route r's customers after the move to `out` (r is one of the move's
    /// routes); returns their count.
    LOCUS_HD static std::int32_t compose(const View& v, const RouteMove& m, std::int32_t r,
                                         std::int32_t* out) {
        const std::int32_t ra = v.route[m.u];
        const std::int32_t rb = v.route[m.v];
        const std::int32_t s = v.route_begin[r];
        const std::int32_t e = v.route_end[r];
        std::int32_t count = 0;
        const auto put = [&](std::int32_t node) { out[count++] = node; };
        const auto copy_range = [&](std::int32_t from, std::int32_t to) { // [from, to)
            for (std::int32_t q = from; q < to; ++q)
                put(v.lin[q]);
        };
        const auto copy_reversed = [&](std::int32_t from, std::int32_t to) { // (to - 1 .. from)
            for (std::int32_t q = to - 1; q >= from; --q)
                put(v.lin[q]);
        };
        const std::int32_t pu = v.pos[m.u];
        const std::int32_t px = v.pos[m.v];
        switch (m.kind) {
        case 0: { // relocate: drop u, insert it after a (a = 0: at the front of route rb)
            const std::int32_t a = m.variant == 0 ? m.v : v.prev(m.v);
            if (r == rb && a == 0) put(m.u);
            for (std::int32_t q = s + 1; q < e; ++q) {
                const std::int32_t node = v.lin[q];
                if (node == m.u) continue;
                put(node);
                if (node == a) put(m.u);
            }
            break;
        }
        case 1: // swap
            for (std::int32_t q = s + 1; q < e; ++q) {
                const std::int32_t node = v.lin[q];
                put(node == m.u ? m.v : (node == m.v ? m.u : node));
            }
            break;
        case 2: { // 2-opt*
            const bool is_a = r == ra;
            const std::int32_t cut = is_a ? pu : px;   // last kept of the head
            const std::int32_t other = is_a ? px : pu; // the other route's cut
            const std::int32_t other_end = v.route_end[is_a ? rb : ra];
            const std::int32_t other_start = v.route_begin[is_a ? rb : ra];
            if (m.variant == 0) {
                copy_range(s + 1, cut + 1);       // own head
                copy_range(other + 1, other_end); // the other tail
            } else if (is_a) {
                copy_range(s + 1, cut + 1);                // head of A
                copy_reversed(other_start + 1, other + 1); // head of B reversed
            } else {
                copy_reversed(other + 1, other_end); // tail of A reversed
                copy_range(cut + 1, e);              // tail of B
            }
            break;
        }
        case 4: { // relocate2/3: drop the segment, insert it after v
            const std::int32_t length = 2 + m.variant / 2;
            const bool reversed = (m.variant & 1) != 0;
            for (std::int32_t q = s + 1; q < e; ++q) {
                if (q >= pu && q < pu + length) continue;
                put(v.lin[q]);
                if (q == px) {
                    for (std::int32_t t = 0; t < length; ++t)
                        put(v.lin[reversed ? pu + length - 1 - t : pu + t]);
                }
            }
            break;
        }
        default: { // 2-opt: reverse (first + 1 .. second)
            const std::int32_t first = pu < px ? pu : px;
            const std::int32_t second = pu < px ? px : pu;
            copy_range(s + 1, first + 1);
            copy_reversed(first + 1, second + 1);
            copy_range(second + 1, e);
            break;
        }
        }
        return count;
    }

    /// Applies the move to the row and updates the workspace. The window of the row from the
    /// move's first route (lo) to the end of its second (hi) is rewritten: the leader composes
    /// the two new routes into scratch while the team copies the routes between them after
    /// those; then the team writes the window back (positions of its customers), shifts the
    /// bounds of the routes between by the change of lo's length, and the leader summarises lo
    /// and hi. Ends synchronised.
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD void apply(const Team& team, std::uint32_t c, std::int32_t* row,
                        const RouteMove& m) const {
        const View v = view(c);
        const auto rank = static_cast<std::int32_t>(team.rank());
        const auto size = static_cast<std::int32_t>(team.size());
        const std::int32_t ra = v.route[m.u];
        const std::int32_t rb = v.route[m.v];
        const std::int32_t lo = ra < rb ? ra : rb;
        const std::int32_t hi = ra < rb ? rb : ra;
        const std::int32_t len_lo = moved_length(v, m, lo);
        const std::int32_t len_hi = hi == lo ? 0 : moved_length(v, m, hi);
        const std::int32_t begin_lo = v.route_begin[lo];
        const std::int32_t end_lo = v.route_end[lo];
        const std::int32_t begin_hi = v.route_begin[hi];
        const std::int32_t end_hi = v.route_end[hi];
        const std::int32_t shift = begin_lo + 1 + len_lo - end_lo;
        const std::int32_t composed = len_lo + len_hi;
        if (hi != lo) {
            for (std::int32_t q = end_lo + rank; q < begin_hi; q += size)
                v.scratch[composed + q - end_lo] = v.lin[q];
        }
        if (rank == 0) {
            compose(v, m, lo, v.scratch);
            if (hi != lo) compose(v, m, hi, v.scratch + len_lo);
        }
        team.sync();
        for (std::int32_t q = begin_lo + rank; q < end_hi; q += size) {
            std::int32_t node = 0;
            if (q == begin_lo) {
                node = 0;
            } else if (q <= begin_lo + len_lo) {
                node = v.scratch[q - begin_lo - 1];
            } else if (q < begin_hi + shift) {
                node = v.scratch[composed + q - end_lo - shift];
            } else if (q > begin_hi + shift) {
                node = v.scratch[len_lo + q - begin_hi - shift - 1];
            }
            v.lin[q] = node;
            row[q] = node;
            if (node != 0) v.pos[node] = q;
        }
        team.sync();
        for (std::int32_t r = lo + 1 + rank; r < hi; r += size) {
            v.route_begin[r] += shift;
            v.route_end[r] += shift;
        }
        if (rank == 0) {
            v.route_end[lo] = begin_lo + 1 + len_lo;
            if (hi != lo) v.route_begin[hi] = begin_hi + shift;
            summarise(v, lo);
            if (hi != lo) summarise(v, hi);
        }
        team.sync();
    }

    /// The whole team: `kicks` random feasible relocations or swaps of a customer with one of
    /// its candidates (up to kKickTries draws each, the same on every rank), applied as moves;
    /// returns the cost change and (leader) writes the moved customers. Refreshes the workspace
    /// from the row first and leaves it up to date.
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD std::int64_t perturb(const Team& team, std::uint32_t c, std::int32_t* row, Rng& rng,
                                  std::int32_t* out, std::int32_t& count) const {
        count = 0;
        refresh(team, c, row);
        if (n < 4 || K < 1) return 0;
        const View v = view(c);
        std::int64_t total = 0;
        for (std::int32_t kick = 0; kick < kicks; ++kick) {
            for (int attempt = 0; attempt < kKickTries; ++attempt) {
                RouteMove m;
                m.u = 1 + static_cast<std::int32_t>(rng.next_u64() % static_cast<std::uint64_t>(n - 1));
                m.v = neighbors[static_cast<std::int64_t>(m.u) * K +
                                static_cast<std::int64_t>(rng.next_u64() %
                                                          static_cast<std::uint64_t>(K))];
                const std::uint64_t pick = rng.next_u64() % 3;
                m.kind = pick == 2 ? 1 : 0;
                m.variant = static_cast<std::int32_t>(pick & 1u);
                const std::int64_t change = delta(v, m);
                if (change == gpu::invalid_delta<std::int64_t>() || change == 0) continue;
                apply(team, c, row, m);
                total += change;
                // NOTE: the engine's buffer holds max(width, elements) >= 2 entries a kick for
                // at most width / 2 kicks; later kicks' customers are not refocused.
                if (count + 2 <= width()) {
                    if (team.rank() == 0) {
                        out[count] = m.u;
                        out[count + 1] = m.v;
                    }
                    count += 2;
                }
                break;
            }
        }
        return total;
    }

    /// Whether heading (x1, y1) comes before (x2, y2) counter-clockwise from the positive x
    /// axis (exact integer arithmetic, so both backends order alike; a zero vector is before
    /// none and none is before it).
    LOCUS_HD_INLINE static bool heading_before(std::int64_t x1, std::int64_t y1, std::int64_t x2,
                                               std::int64_t y2) {
        const bool lower1 = y1 < 0 || (y1 == 0 && x1 < 0);
        const bool lower2 = y2 < 0 || (y2 == 0 && x2 < 0);
        if (lower1 != lower2) return lower2;
        return x1 * y2 - y1 * x2 > 0;
    }

    /// Leader only: order crossover of the customer sequences of rows `a` and `b` (each read
    /// from its first marker) — a random slice of a kept in place, the other positions filled
    /// in b's order from after the slice — then an optimal Split of the child sequence into
    /// routes that respect the capacity and the duration limit (Bellman over route ends; loads
    /// only grow, so a route stops growing at the capacity), written as a normalised row. With
    /// a fleet limit the Split may need more routes; the child is then a copy of `a`.
    LOCUS_HD void recombine(std::uint32_t c, const std::int32_t* a, const std::int32_t* b,
                            std::int32_t* child, Rng& rng) const {
        const std::int32_t w = width();
        const std::int32_t count = n - 1;
        const std::int64_t nodes = n;
        std::int32_t* seq = sequence + c * nodes;
        std::int64_t* label = potential + c * nodes;
        std::int32_t* from = split_from + c * nodes;
        std::uint8_t* used = taken + c * nodes;
        std::int64_t* keys = route_key + 2 * c * nodes;
        std::int32_t* order = route_order + c * nodes;
        // The customers of `row`, route after route in the order of the routes' headings.
        const auto customers = [&](const std::int32_t* row, std::int32_t* out) {
            std::int32_t routes = 0;
            for (std::int32_t q = 0; q < w; ++q) {
                if (row[q] == 0 || (q > 0 && row[q - 1] != 0)) continue;
                std::int64_t x = 0;
                std::int64_t y = 0;
                for (std::int32_t t = q; t < w && row[t] != 0; ++t) {
                    x += heading[2 * row[t]];
                    y += heading[2 * row[t] + 1];
                }
                // NOTE: a row that does not start with a marker (chains keep theirs
                // normalised) has its wrapped route listed as two, no customer lost.
                std::int32_t r = routes++;
                keys[2 * r] = x;
                keys[2 * r + 1] = y;
                order[r] = q;
                for (; r > 0 && heading_before(x, y, keys[2 * (r - 1)], keys[2 * (r - 1) + 1]);
                     --r) {
                    const std::int64_t kx = keys[2 * r - 2];
                    const std::int64_t ky = keys[2 * r - 1];
                    keys[2 * r - 2] = keys[2 * r];
                    keys[2 * r - 1] = keys[2 * r + 1];
                    keys[2 * r] = kx;
                    keys[2 * r + 1] = ky;
                    const std::int32_t o = order[r - 1];
                    order[r - 1] = order[r];
                    order[r] = o;
                }
            }
            std::int32_t k = 0;
            for (std::int32_t r = 0; r < routes; ++r)
                for (std::int32_t t = order[r]; t < w && row[t] != 0; ++t)
                    out[k++] = row[t];
        };
        const auto copy_a = [&] {
            for (std::int32_t q = 0; q < w; ++q)
                child[q] = a[q];
        };
        if (count < 2) {
            copy_a();
            return;
        }
        // The child's slice [i, j] comes from a; scratch holds b's sequence meanwhile.
        std::int32_t* other = scratch + static_cast<std::int64_t>(c) * w;
        customers(a, seq);
        customers(b, other);
        const auto i = static_cast<std::int32_t>(rng.next_u64() % static_cast<std::uint64_t>(count));
        const auto j = static_cast<std::int32_t>(rng.next_u64() % static_cast<std::uint64_t>(count));
        const std::int32_t lo = i < j ? i : j;
        const std::int32_t hi = i < j ? j : i;
        for (std::int32_t k = 0; k <= count; ++k)
            used[k] = 0;
        for (std::int32_t k = lo; k <= hi; ++k)
            used[seq[k]] = 1;
        std::int32_t put = hi + 1 == count ? 0 : hi + 1;
        for (std::int32_t t = 0; t < count; ++t) {
            std::int32_t k = hi + 1 + t;
            k = k >= count ? k - count : k;
            const std::int32_t node = other[k];
            if (used[node] != 0) continue;
            used[node] = 1;
            seq[put] = node;
            put = put + 1 == count ? 0 : put + 1;
        }
        // Split: label[k] = least cost of routing seq[0, k); from[k] = where its last route starts.
        constexpr std::int64_t kUnreached = std::int64_t{1} << 62;
        label[0] = 0;
        for (std::int32_t k = 1; k <= count; ++k)
            label[k] = kUnreached;
        const auto d = [&](std::int32_t x, std::int32_t y) {
            return dist[static_cast<std::int64_t>(x) * n + y];
        };
        for (std::int32_t s = 0; s < count; ++s) {
            if (label[s] >= kUnreached) continue;
            std::int64_t l = 0;
            std::int64_t t = 0;
            std::int32_t last = 0;
            for (std::int32_t k = s; k < count; ++k) {
                const std::int32_t node = seq[k];
                l += demand[node];
                if (l > capacity) break;
                t += d(last, node) + service;
                last = node;
                const std::int64_t route_duration = t + d(node, 0);
                if (route_duration > max_duration) continue;
                const std::int64_t cost = route_duration - service * (k - s + 1);
                if (label[s] + cost < label[k + 1]) {
                    label[k + 1] = label[s] + cost;
                    from[k + 1] = s;
                }
            }
        }
        if (label[count] >= kUnreached) {
            copy_a();
            return;
        }
        std::int32_t routes = 0;
        for (std::int32_t k = count; k > 0; k = from[k])
            ++routes;
        if (vehicles > 0 && routes > vehicles) {
            copy_a();
            return;
        }
        // Routes back to front: each [from[k], k) at the end of the row's used part.
        std::int32_t end = count + routes; // positions used by markers and customers
        for (std::int32_t q = end; q < w; ++q)
            child[q] = 0;
        for (std::int32_t k = count; k > 0; k = from[k]) {
            for (std::int32_t q = k - 1; q >= from[k]; --q)
                child[--end] = seq[q];
            child[--end] = 0;
        }
    }

    /// Routes of `row` in row order (serial): calls visit(load, duration) for every route
    /// (the empty ones too) and returns the row's cost.
    template <class F> LOCUS_HD std::int64_t scan_routes(const std::int32_t* row, F&& visit) const {
        const std::int32_t w = width();
        std::int32_t first = 0;
        while (first < w && row[first] != 0)
            ++first;
        std::int64_t cost = 0;
        std::int64_t l = 0;
        std::int64_t t = 0;
        std::int32_t last = 0;
        for (std::int32_t q = 1; q <= w; ++q) { // q = w: the closing depot
            const std::int32_t node = q < w ? row[first + q < w ? first + q : first + q - w] : 0;
            const std::int64_t edge = dist[static_cast<std::int64_t>(last) * n + node];
            cost += edge;
            t += edge;
            if (node == 0) {
                visit(l, t);
                l = 0;
                t = 0;
                last = 0;
                continue;
            }
            l += demand[node];
            t += service;
            last = node;
        }
        return cost;
    }

    /// Chain objective of the row (chain_value: the cost when feasible). The team sums the
    /// edges; the leader scans the routes for the limits.
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD std::int64_t evaluate(const Team& team, std::uint32_t,
                                   const std::int32_t* row) const {
        const std::int32_t w = width();
        std::int64_t sum = 0;
        for (std::int32_t k = static_cast<std::int32_t>(team.rank()); k < w;
             k += static_cast<std::int32_t>(team.size()))
            sum += dist[static_cast<std::int64_t>(row[k]) * n + row[k + 1 == w ? 0 : k + 1]];
        sum = team.sum(sum);
        std::int64_t excess = 0; // the leader's: the routes' penalty under the initial weights
        std::int64_t over = 0;   // the leader's: routes over a limit
        if (team.rank() == 0) {
            scan_routes(row, [&](std::int64_t l, std::int64_t t) {
                excess += penalty(l, t, load_weight, duration_weight);
                over += (l > capacity || t > max_duration) ? 1 : 0;
            });
        }
        over = team.sum(over);
        excess = team.sum(excess);
        return chain_value(sum, over == 0, excess);
    }

    /// The descent objective of the row under chain c's current weights (cost + penalties):
    /// what the deltas of a penalised descent add up to (check_moves). Leader's scan.
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD std::int64_t descent_evaluate(const Team& team, std::uint32_t c,
                                           const std::int32_t* row) const {
        std::int64_t value = 0;
        if (team.rank() == 0) {
            const View v = view(c);
            std::int64_t terms = 0;
            const std::int64_t cost =
                scan_routes(row, [&](std::int64_t l, std::int64_t t) { terms += v.term(l, t); });
            value = cost + terms;
        }
        return team.sum(value);
    }

    /// Sums over chain c's routes from its workspace: cost, penalty under the current weights,
    /// penalty under the initial weights, routes over the capacity, routes over the duration.
    struct RouteSums {
        std::int64_t cost = 0;
        std::int64_t penalty = 0;
        std::int64_t initial = 0;
        std::int64_t over_load = 0;
        std::int64_t over_duration = 0;
    };
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team> LOCUS_HD RouteSums route_sums(const Team& team, std::uint32_t c) const {
        const View v = view(c);
        RouteSums s;
        for (std::int32_t r = static_cast<std::int32_t>(team.rank()); r < n - 1;
             r += static_cast<std::int32_t>(team.size())) {
            s.cost += v.dur[r] - service * v.length(r);
            s.penalty += v.term(v.load[r], v.dur[r]);
            s.initial += penalty(v.load[r], v.dur[r], load_weight, duration_weight);
            s.over_load += v.load[r] > capacity ? 1 : 0;
            s.over_duration += v.dur[r] > max_duration ? 1 : 0;
        }
        s.cost = team.sum(s.cost);
        s.penalty = team.sum(s.penalty);
        s.initial = team.sum(s.initial);
        s.over_load = team.sum(s.over_load);
        s.over_duration = team.sum(s.over_duration);
        return s;
    }

    // Engine hooks of a penalising policy (chain_engine.hpp, Penalising).

    /// The objective a descent of chain c starts from (its workspace refreshed): cost plus
    /// the penalty terms under the chain's weights.
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD std::int64_t descent_objective(const Team& team, std::uint32_t c) const {
        const RouteSums s = route_sums(team, c);
        return s.cost + s.penalty;
    }

    /// After a descent: the leader tallies whether the solution respects the capacity and the
    /// duration limit and adapts the weights every adapt_every descents (x 1.2 below the target
    /// share of feasible descents, x 0.85 above it, as Vidal's HGS does); with penalties and an
    /// infeasible solution the weights are multiplied by repair_boost and true is returned: the
    /// engine then runs a repair descent and calls end_repair. Ends synchronised.
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team> LOCUS_HD bool needs_repair(const Team& team, std::uint32_t c) const {
        if (penalties == 0) return false;
        const RouteSums s = route_sums(team, c);
        if (team.rank() == 0) {
            std::int32_t* t = tally + 4 * c;
            std::int64_t* wgt = weights + 2 * c;
            ++t[0];
            t[1] += s.over_load == 0 ? 1 : 0;
            t[2] += s.over_duration == 0 ? 1 : 0;
            if (t[0] >= adapt_every) {
                const auto adapt = [&](std::int64_t& weight, std::int32_t feasible,
                                       std::int64_t cap) {
                    const std::int64_t share = 1000 * static_cast<std::int64_t>(feasible) / t[0];
                    if (share < target_feasible - 50)
                        weight = weight + weight / 5 + 1 < cap ? weight + weight / 5 + 1 : cap;
                    else if (share > target_feasible + 50)
                        weight = weight - (weight * 3) / 20 > 1 ? weight - (weight * 3) / 20 : 1;
                };
                adapt(wgt[0], t[1], kMaxLoadWeight);
                adapt(wgt[1], t[2], kMaxDurationWeight);
                t[0] = t[1] = t[2] = 0;
            }
        }
        const bool repair = (s.over_load + s.over_duration) > 0 && repair_boost > 1;
        if (team.rank() == 0 && repair) tally[4 * c + 3] = repair_boost;
        team.sync();
        return repair;
    }

    /// Leader: the customers of chain c's routes over a limit, where a repair starts.
    LOCUS_HD std::int32_t repair_focus(std::uint32_t c, std::int32_t* out) const {
        const View v = view(c);
        std::int32_t count = 0;
        for (std::int32_t r = 0; r < n - 1; ++r) {
            if (v.load[r] <= capacity && v.dur[r] <= max_duration) continue;
            for (std::int32_t q = v.route_begin[r] + 1; q < v.route_end[r]; ++q)
                out[count++] = v.lin[q];
        }
        return count;
    }

    /// After the repair descent: the weights back to the chain's own. Ends synchronised.
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team> LOCUS_HD void end_repair(const Team& team, std::uint32_t c) const {
        if (team.rank() == 0) tally[4 * c + 3] = 1;
        team.sync();
    }

    /// The chain objective of chain c's solution from its workspace (chain_value).
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD std::int64_t settle(const Team& team, std::uint32_t c) const {
        const RouteSums s = route_sums(team, c);
        return chain_value(s.cost, s.over_load + s.over_duration == 0, s.initial);
    }
};

} // namespace locus::dcvrp
