#pragma once
/// \file
/// The DCVRP as a policy of the many-chain engine (locus/gpu/chain_engine.hpp): route
/// neighborhoods on granular candidate lists (each customer's K nearest; with time windows its K
/// closest by a proximity that counts waiting and lateness), every move evaluated in
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
///   5 swap2      the segment from u exchanged with the segment from v: 2 and 1 customers
///                ([0, K)), 1 and 2 ([K, 2K)), 2 and 2 ([2K, 3K))
///   6 SWAP*      u and v (different routes) exchanged, each put at its cheapest granular
///                place in the other's route
///
/// The moves' arithmetic and rewriting are the routing library's (routing/route_chain_moves.hpp)
/// over this policy's View, which prices routes over a limit (hard limits or penalties);
/// recombination is its route crossover and Split. The objective and the penalising hooks are
/// RoutePenaltyHooks (route_penalty_hooks.hpp).

#include <cstdint>

#include "locus/dcvrp/fixed_distance.hpp"
#include "locus/dcvrp/route_penalty_hooks.hpp"
#include "locus/gpu/neighborhood_engine.hpp"
#include "locus/gpu/storage.hpp"
#include "locus/gpu/team.hpp"
#include "locus/hd.hpp"
#include "locus/rng.hpp"
#include "locus/routing/route_chain_moves.hpp"
#include "locus/routing/route_crossover.hpp"
#include "locus/routing/split.hpp"

namespace locus::dcvrp {

/// A move of the route neighborhoods (routing/route_chain_moves.hpp).
using RouteMove = routing::RouteMove;

/// "No duration limit" in fixed point.
inline constexpr std::int64_t kNoDurationLimit = std::int64_t{1} << 60;

struct RouteChainPolicy : RoutePenaltyHooks<RouteChainPolicy> {
    using delta_type = std::int64_t;
    using move_type = RouteMove;
    static constexpr int kNeighborhoods = 7;
    static constexpr int kMaxTouched = 6;
    /// Most tries per kick of the perturbation.
    static constexpr int kKickTries = 32;
    /// Ruin and recreate: the longest string removed from one route (SISR's L_max), and the
    /// most customers removed by one kick.
    static constexpr std::int32_t kMaxString = 10;
    static constexpr std::int32_t kMaxRuined = 256;
    /// Groups of a move (IndependentMoves): the routes it changes.
    static constexpr int kMaxGroups = 2;

    // Instance (host or device pointers), fixed point.
    FixedDistance dist;                     ///< n x n matrix or coordinates
    const std::int64_t* demand = nullptr;   ///< n (depot 0)
    const std::int32_t* neighbors = nullptr; ///< n x K nearest customers
    /// n x 2: each node's direction from the depot as a fixed-point unit vector (x, y) (zero
    /// for the depot and without coordinates); recombination orders routes by the heading of
    /// their sum, as HGS-CVRP (Vidal 2022) orders routes by polar angle before crossover.
    const std::int32_t* heading = nullptr;
    std::int64_t capacity = 0;
    std::int64_t service = 0;
    std::int64_t max_duration = kNoDurationLimit;
    /// Time windows (inactive: none): a route's time warp is priced like its duration excess,
    /// under the duration weight (both are time), and a route with time warp is infeasible.
    routing::FixedWindows windows;
    std::int32_t n = 0; ///< nodes, depot included
    std::int32_t K = 0;
    std::int32_t kicks = 3; ///< random feasible relocations and swaps per perturbation
    /// Ruin and recreate as the kick (SISR, Christiaens & Vanden Berghe 2020): the average
    /// number of customers removed in strings from routes near a random customer and put back
    /// at their cheapest granular places; 0: `kicks` random moves.
    std::int32_t ruin = 0;
    /// Route elimination: the per cent of perturbations that first try to empty a whole route
    /// (the shortest among the routes of a random customer and its candidates) into the other
    /// routes, no route opened; when no place is found, the kick above instead. 0: never.
    std::int32_t eliminate = 0;
    /// Route elimination only while the routes hold this many customers or more on average
    /// (long routes, which single moves rarely empty); 0: at any length.
    std::int32_t eliminate_length = 0;
    /// Ruin and recreate only while the routes hold this many customers or more on average
    /// (below it the random kicks, drawn as with ruin = 0); 0: at any length.
    std::int32_t ruin_length = 0;
    std::int32_t vehicles = 0; ///< fleet limit K of recombined children (0: unlimited)
    std::int32_t segments = 0; ///< 1: neighborhood 4 (relocate2/3) searched; 0: left out
    std::int32_t swaps = 0;    ///< 1: neighborhood 5 (swap of segments) searched; 0: left out
    std::int32_t swap_star = 0; ///< 1: neighborhood 6 (SWAP*) searched; 0: left out
    /// 1: the evaluators price every move exactly (the tests of every delta); 0: with time
    /// windows a move that cannot improve may get a lower bound of its delta, its routes'
    /// time warp not folded (route_move_delta's improving_only): the same moves are applied.
    std::int32_t exact_deltas = 0;
    /// 1: capacity and duration excess penalised in the descent with adaptive weights; 0: hard
    /// limits (moves over a limit refused).
    std::int32_t penalties = 0;
    std::int64_t load_weight = 0;          ///< initial cost per unit of load excess
    std::int64_t duration_weight = 1024;   ///< initial cost per unit of duration excess, x 1024
    /// The adapted weights' floors: 0.1 units of distance per unit of load excess and per
    /// unit of duration excess or time warp, as in Vidal 2022 (HGS-CVRP's penalties never
    /// drop below 0.1); in fixed point, x 1024 for the duration weight.
    std::int64_t min_load_weight = 1;
    std::int64_t min_duration_weight = 1;
    std::int32_t target_feasible = 200;    ///< target share of feasible descents, per mille
    std::int32_t adapt_every = 100;        ///< descents between weight adaptations
    std::int32_t repair_boost = 10;        ///< weight factor of the repair descent
    /// Time windows: the Split of a recombined child prices each unit of a route's time warp
    /// at this many units of distance (routing::SplitLimits::warp_weight; the penalised
    /// descents and the repair then take it out); 0: a route stops at its first time warp.
    std::int32_t split_warp_weight = 0;

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
    std::int64_t* warp = nullptr;        ///< chains x n: per route, its time warp (windows)
    /// chains x n (windows): per customer, the time-window piece of its route from the depot up
    /// to it and from it back to the depot (routing::WindowPieceView), which price a move's
    /// routes without folding them.
    routing::FixedWindowPiece* forward = nullptr;
    routing::FixedWindowPiece* backward = nullptr;
    std::int32_t* scratch = nullptr;     ///< chains x W
    std::int64_t* weights = nullptr;     ///< chains x 2: load and duration weights (penalties)
    std::int32_t* tally = nullptr;       ///< chains x 4: descents, load-feasible,
                                         ///< duration-feasible, weight factor (repair)
    std::int32_t* sequence = nullptr;  ///< chains x n: recombination child (customers)
    std::int64_t* potential = nullptr; ///< chains x n: Split labels
    std::int32_t* split_from = nullptr; ///< chains x n: Split predecessors
    std::uint8_t* taken = nullptr;     ///< chains x n: order-crossover flags
    /// chains x 2n: crossover route headings (x, y), then the Split's prefix loads and lengths
    std::int64_t* route_key = nullptr;
    /// chains x n: crossover route starts, then the Split's route bounds
    std::int32_t* route_order = nullptr;
    std::int64_t* split_back = nullptr; ///< chains x n: the Split's return distances
    /// apply_many (gpu::ManyMoves): the moves (move_buffer), per route 1 + the index of the
    /// move that changes it (0: none; all 0 outside apply_many), and the new route ends within
    /// the rewritten window.
    RouteMove* many_moves = nullptr;     ///< chains x n
    std::int32_t* route_move = nullptr;  ///< chains x n
    std::int32_t* route_start = nullptr; ///< chains x n
    /// Regions (gpu::Regional, the decompose exchange): 1 when the arrays below are declared.
    /// A confined chain's moves and kicks involve only its region's customers, which are the
    /// customers of whole routes, so that it changes those routes only.
    std::int32_t regions = 0;
    std::uint8_t* region_mask = nullptr;  ///< chains x n: the customer is in the chain's region
    std::int32_t* region_list = nullptr;  ///< chains x n: the region's customers
    std::int32_t* region_count = nullptr; ///< chains: customers in the region (0: not confined)

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
        if (windows.active()) {
            list.add(warp, chains * nodes, "DCVRP route time warps");
            list.add(forward, chains * nodes, "DCVRP forward time-window pieces");
            list.add(backward, chains * nodes, "DCVRP backward time-window pieces");
        }
        list.add(scratch, chains * w, "DCVRP move scratch");
        list.add(weights, chains * 2, "DCVRP penalty weights");
        list.add(tally, chains * 4, "DCVRP feasibility tallies");
        list.add(sequence, chains * nodes, "DCVRP crossover sequences");
        list.add(potential, chains * nodes, "DCVRP split labels");
        list.add(split_from, chains * nodes, "DCVRP split predecessors");
        list.add(taken, chains * nodes, "DCVRP crossover flags");
        list.add(route_key, chains * 2 * nodes, "DCVRP crossover route headings");
        list.add(route_order, chains * nodes, "DCVRP crossover route order");
        list.add(split_back, chains * nodes, "DCVRP split return distances");
        list.add(many_moves, chains * nodes, "DCVRP chosen moves");
        list.add(route_move, chains * nodes, "DCVRP chosen move of each route");
        list.add(route_start, chains * nodes, "DCVRP new route ends");
        if (regions != 0) {
            list.add(region_mask, chains * nodes, "DCVRP region flags");
            list.add(region_list, chains * nodes, "DCVRP region customers");
            list.add(region_count, chains, "DCVRP region sizes");
        }
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
        /// The chain's region flags (null: not confined): moves of customers outside are not
        /// moves.
        const std::uint8_t* region;
        std::int64_t* warp; ///< per route, its time warp (null without windows)
        /// Per customer, its route's pieces up to it and from it (null without windows).
        routing::FixedWindowPiece* forward;
        routing::FixedWindowPiece* backward;

        LOCUS_HD_INLINE const routing::FixedWindows& windows() const { return p->windows; }
        /// The time-window piece of u's route from the depot up to u (u = 0: the depot's).
        LOCUS_HD_INLINE routing::FixedWindowPiece forward_piece(std::int32_t u) const {
            return u == 0 ? p->windows.leaf(0) : forward[u];
        }
        /// The time-window piece of u's route from u back to the depot (u = 0: the depot's).
        LOCUS_HD_INLINE routing::FixedWindowPiece backward_piece(std::int32_t u) const {
            return u == 0 ? p->windows.leaf(0) : backward[u];
        }
        /// Route r's time warp (0 without windows).
        LOCUS_HD_INLINE std::int64_t route_warp(std::int32_t r) const {
            return warp != nullptr ? warp[r] : 0;
        }

        LOCUS_HD_INLINE std::int64_t d(std::int32_t a, std::int32_t b) const {
            return p->dist(a, b);
        }
        LOCUS_HD_INLINE std::int32_t next(std::int32_t u) const {
            const std::int32_t q = pos[u] + 1;
            return q < w ? lin[q] : 0;
        }
        LOCUS_HD_INLINE std::int32_t prev(std::int32_t u) const { return lin[pos[u] - 1]; }
        /// Hard limits: a route's new load, duration and time warp are within the limits or
        /// no further over them than route r's now.
        LOCUS_HD_INLINE bool admissible(std::int64_t l, std::int64_t t, std::int64_t tw,
                                        std::int32_t r) const {
            return (l <= p->capacity || l <= load[r]) && (t <= p->max_duration || t <= dur[r]) &&
                   (tw == 0 || tw <= route_warp(r));
        }
        /// Penalty term of a route of load l, duration t and time warp tw under this chain's
        /// weights.
        LOCUS_HD_INLINE std::int64_t term(std::int64_t l, std::int64_t t, std::int64_t tw) const {
            return p->penalty(l, t, tw, wl, wd);
        }
        /// Customers of route r.
        LOCUS_HD_INLINE std::int32_t length(std::int32_t r) const {
            return route_end[r] - route_begin[r] - 1;
        }
        LOCUS_HD_INLINE std::int64_t demand(std::int32_t u) const { return p->demand[u]; }
        LOCUS_HD_INLINE std::int64_t service() const { return p->service; }
        LOCUS_HD_INLINE std::int32_t candidate(std::int32_t u, std::int32_t i) const {
            return p->neighbors[static_cast<std::int64_t>(u) * p->K + i];
        }
        LOCUS_HD_INLINE std::int32_t candidate_count() const { return p->K; }
        /// The move's verdict on its routes (route_chain_moves.hpp): ra gets load la,
        /// duration ta and time warp wa, rb (when not ra) lb, tb and wb. Hard limits: `change`,
        /// or invalid_delta when a route goes over a limit (admissible); penalties: `change`
        /// plus the change of the routes' penalty terms.
        LOCUS_HD_INLINE std::int64_t limited(std::int64_t change, std::int32_t ra,
                                             std::int64_t la, std::int64_t ta, std::int64_t wa,
                                             std::int32_t rb, std::int64_t lb, std::int64_t tb,
                                             std::int64_t wb) const {
            const bool same = ra == rb;
            if (p->penalties == 0) {
                if (!admissible(la, ta, wa, ra)) return gpu::invalid_delta<std::int64_t>();
                if (!same && !admissible(lb, tb, wb, rb))
                    return gpu::invalid_delta<std::int64_t>();
                return change;
            }
            change += term(la, ta, wa) - term(load[ra], dur[ra], route_warp(ra));
            if (!same) change += term(lb, tb, wb) - term(load[rb], dur[rb], route_warp(rb));
            return change;
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
                penalties != 0 ? weights[2 * c + 1] * tally[4 * c + 3] : 0,
                regions != 0 && region_count[c] > 0 ? region_mask + c * nodes : nullptr,
                windows.active() ? warp + c * nodes : nullptr,
                windows.active() ? forward + c * nodes : nullptr,
                windows.active() ? backward + c * nodes : nullptr};
    }

    /// Whether the move stays within the chain's region (always when it is not confined).
    LOCUS_HD_INLINE static bool in_region(const View& v, const RouteMove& m) {
        return v.region == nullptr || (v.region[m.u] != 0 && v.region[m.v] != 0);
    }

    // Penalties. Weights are capped (load 2^36, duration 2^20, before a repair's factor) and
    // each part of a penalty at 2^50 (penalty()).
    static constexpr std::int64_t kMaxLoadWeight = std::int64_t{1} << 36;
    static constexpr std::int64_t kMaxDurationWeight = std::int64_t{1} << 20;
    static constexpr std::int64_t kMaxTerm = std::int64_t{1} << 50;
    /// Chain objectives of infeasible solutions start here: any feasible one is cheaper.
    static constexpr std::int64_t kInfeasible = std::int64_t{1} << 60;

    /// Penalty of a route of load l, duration t and time warp tw under weights wl (per unit of
    /// load) and wd (per 1024 units of time: duration excess plus time warp): each part capped
    /// at 2^50.
    LOCUS_HD_INLINE std::int64_t penalty(std::int64_t l, std::int64_t t, std::int64_t tw,
                                         std::int64_t wl, std::int64_t wd) const {
        std::int64_t load_excess = l > capacity ? l - capacity : 0;
        std::int64_t time_excess = (t > max_duration ? t - max_duration : 0) + tw;
        if (load_excess == 0 && time_excess == 0) return 0; // most routes of a descent
        load_excess = load_excess < (std::int64_t{1} << 22) ? load_excess : std::int64_t{1} << 22;
        time_excess = time_excess < kMaxTerm ? time_excess : kMaxTerm;
        // A product that could overflow (a repair multiplies the weights by up to 1000) is not
        // formed: the guard compares it in doubles, and every product below 2^62 is formed in
        // integers and capped after, so the cap's value is exact without a division (64-bit
        // divisions are slow, on the device most of all).
        constexpr double kGuard = 4611686018427387904.0; // 2^62
        const std::int64_t a =
            static_cast<double>(load_excess) * static_cast<double>(wl) >= kGuard ? kMaxTerm
                                                                                 : load_excess * wl;
        const std::int64_t b = static_cast<double>(time_excess) * static_cast<double>(wd) >= kGuard
                                   ? kMaxTerm
                                   : (time_excess * wd) >> 10;
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

    /// Leader: route r's customer summaries (route, prefix load and duration; with windows the
    /// forward and backward pieces) and its load, duration and time warp, from lin between its
    /// bounds.
    LOCUS_HD void summarise(const View& v, std::int32_t r) const {
        std::int32_t last = 0;
        std::int64_t l = 0;
        std::int64_t t = 0;
        const bool windowed = windows.active();
        routing::FixedWindowPiece piece;
        if (windowed) piece = windows.leaf(0);
        for (std::int32_t q = v.route_begin[r] + 1; q < v.route_end[r]; ++q) {
            const std::int32_t node = v.lin[q];
            const std::int64_t edge = v.d(last, node);
            l += demand[node];
            t += edge + service;
            if (windowed) {
                piece = windows.extend(piece, node, edge);
                v.forward[node] = piece;
            }
            v.route[node] = r;
            v.pre_load[node] = l;
            v.pre_dur[node] = t;
            last = node;
        }
        v.load[r] = l;
        v.dur[r] = t + v.d(last, 0);
        if (!windowed) return;
        v.warp[r] = windows.extend(piece, 0, v.d(last, 0)).time_warp;
        routing::FixedWindowPiece back = windows.leaf(0);
        std::int32_t next = 0;
        for (std::int32_t q = v.route_end[r] - 1; q > v.route_begin[r]; --q) {
            const std::int32_t node = v.lin[q];
            back = routing::join_windows(windows.leaf(node), back, v.d(node, next) + windows.slack);
            v.backward[node] = back;
            next = node;
        }
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
    /// perturbation and the tests; the evaluators skip the time-warp fold of moves that cannot
    /// improve unless exact_deltas is set.
    LOCUS_HD static std::int64_t delta(const View& v, const RouteMove& m) {
        return routing::route_move_delta(v, m);
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
            if (k == 5 && v.p->swaps == 0) return {0, 0};
            if (k == 6 && v.p->swap_star == 0) return {0, 0};
            const std::int32_t cols = k == 4   ? 4 * v.p->K
                                      : k == 5 ? 3 * v.p->K
                                               : ((k == 0 || k == 2) ? 2 * v.p->K : v.p->K);
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
            const RouteMove m = move(u, col);
            if (!in_region(v, m)) return gpu::invalid_delta<delta_type>();
            return routing::route_move_delta(v, m, v.p->exact_deltas == 0);
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
        // Customers of a segment beyond its first (u's for relocate2/3, u's and v's for swaps).
        const std::int32_t extra = m.kind == 4   ? 1 + m.variant / 2
                                   : m.kind == 5 ? routing::swap_length_u(m.variant) - 1
                                                 : 0;
        const std::int32_t extra_v = m.kind == 5 ? routing::swap_length_v(m.variant) - 1 : 0;
        // NOTE: the engine's buffer holds max(width, elements) entries; tiny instances (n = 3)
        // have fewer than the six this can name.
        const std::int32_t room = w > n ? w : n;
        const auto add = [&](std::int32_t node) {
            if (node != 0 && count < room) out[count++] = node; // the depot has no moves
        };
        const auto around = [&](std::int32_t q) {
            const std::int32_t after = row[q] == m.u   ? q + 1 + extra
                                       : row[q] == m.v ? q + 1 + extra_v
                                                       : q + 1;
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

    /// The routes the move changes (one or two), numbered in row order: moves on disjoint
    /// routes do not change each other's delta (every delta reads only its routes' summaries),
    /// so a descent may apply many at once (gpu::IndependentMoves).
    LOCUS_HD int move_groups(std::uint32_t c, const RouteMove& m, std::int32_t* out) const {
        const std::int32_t* r = route + static_cast<std::int64_t>(c) * n;
        out[0] = r[m.u];
        out[1] = r[m.v];
        return out[0] == out[1] ? 1 : 2;
    }

    /// Customers of route r (the move's first or second route) after the move.
    LOCUS_HD static std::int32_t moved_length(const View& v, const RouteMove& m, std::int32_t r) {
        return routing::moved_route_length(v, m, r);
    }

    /// Leader: writes route r's customers after the move to `out` (r is one of the move's
    /// routes); returns their count.
    LOCUS_HD static std::int32_t compose(const View& v, const RouteMove& m, std::int32_t r,
                                         std::int32_t* out) {
        return routing::compose_route(v, m, r, out);
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

    /// Chain c's buffer of at most n moves for apply_many.
    LOCUS_HD_INLINE RouteMove* move_buffer(std::uint32_t c) const {
        return many_moves + static_cast<std::int64_t>(c) * n;
    }

    /// Applies moves[0, count), decoded on the current workspace and changing pairwise disjoint
    /// routes, in one rebuild of the row window from the first changed route to the last: the
    /// same row and workspace as apply of each in turn (the routes keep their number and order;
    /// scratch aside). The window's routes' new lengths, their prefix sum (the new bounds),
    /// every route's new content in scratch (composed or copied), then the window, positions
    /// and bounds written back and the changed routes summarised. Every rank calls it with the
    /// same arguments; ends synchronised.
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD void apply_many(const Team& team, std::uint32_t c, std::int32_t* row,
                             const RouteMove* moves, std::int32_t count) const {
        if (count <= 0) return;
        const View v = view(c);
        const auto rank = static_cast<std::int32_t>(team.rank());
        const auto size = static_cast<std::int32_t>(team.size());
        std::int32_t* owner = route_move + static_cast<std::int64_t>(c) * n;
        std::int32_t* ends = route_start + static_cast<std::int64_t>(c) * n;
        std::int32_t first = 0x7fffffff;
        std::int32_t last = -1;
        for (std::int32_t s = rank; s < count; s += size) {
            const std::int32_t ra = v.route[moves[s].u];
            const std::int32_t rb = v.route[moves[s].v];
            owner[ra] = s + 1;
            owner[rb] = s + 1;
            first = ra < first ? ra : first;
            first = rb < first ? rb : first;
            last = ra > last ? ra : last;
            last = rb > last ? rb : last;
        }
        first = team.min(first);
        last = -team.min(-last);
        const std::int32_t base = v.route_begin[first]; // the window [base, stop) keeps its size
        const std::int32_t stop = v.route_end[last];
        const std::int32_t span = last - first + 1;
        team.sync();
        for (std::int32_t i = rank; i < span; i += size) { // ends[i]: route first + i
            const std::int32_t r = first + i;
            ends[i] = 1 + (owner[r] != 0 ? moved_length(v, moves[owner[r] - 1], r) : v.length(r));
        }
        team.sync();
        gpu::scan_in_place(team, ends, static_cast<std::uint32_t>(span));
        for (std::int32_t i = rank; i < span; i += size) {
            const std::int32_t r = first + i;
            std::int32_t* out = v.scratch + (i == 0 ? 0 : ends[i - 1]);
            out[0] = 0;
            if (owner[r] != 0) {
                compose(v, moves[owner[r] - 1], r, out + 1);
            } else {
                const std::int32_t from = v.route_begin[r];
                for (std::int32_t q = from + 1; q < v.route_end[r]; ++q)
                    out[q - from] = v.lin[q];
            }
        }
        team.sync();
        for (std::int32_t q = base + rank; q < stop; q += size) {
            const std::int32_t node = v.scratch[q - base];
            v.lin[q] = node;
            row[q] = node;
            if (node != 0) v.pos[node] = q;
        }
        for (std::int32_t i = rank; i < span; i += size) {
            v.route_begin[first + i] = base + (i == 0 ? 0 : ends[i - 1]);
            v.route_end[first + i] = base + ends[i];
        }
        team.sync();
        for (std::int32_t r = first + rank; r <= last; r += size) {
            if (owner[r] == 0) continue;
            summarise(v, r);
            owner[r] = 0;
        }
        team.sync();
    }

    /// Whether chain c's routes hold `length` customers or more on average (every rank reads
    /// the same workspace, so every rank decides the same); true for length 0.
    LOCUS_HD bool long_routes(std::uint32_t c, std::int32_t length) const {
        if (length <= 0) return true;
        const View v = view(c);
        std::int64_t used = 0;
        for (std::int32_t r = 0; r < n - 1; ++r)
            used += v.length(r) > 0 ? 1 : 0;
        return static_cast<std::int64_t>(n - 1) >= used * length;
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
        if (eliminate > 0 && long_routes(c, eliminate_length) &&
            rng.next_u64() % 100 < static_cast<std::uint64_t>(eliminate)) {
            const Rng kept = rng; // only the leader draws in ruin_recreate
            bool kicked = false;
            const std::int64_t change = ruin_recreate(team, c, row, rng, out, count, true, kicked);
            if (kicked) return change;
            rng = kept;
            count = 0;
        }
        if (ruin > 0 && long_routes(c, ruin_length)) {
            bool kicked = false;
            return ruin_recreate(team, c, row, rng, out, count, false, kicked);
        }
        const View v = view(c);
        std::int64_t total = 0;
        for (std::int32_t kick = 0; kick < kicks; ++kick) {
            for (int attempt = 0; attempt < kKickTries; ++attempt) {
                RouteMove m;
                if (v.region != nullptr) { // a confined chain kicks within its region
                    const std::int32_t members = region_count[c];
                    m.u = region_list[static_cast<std::int64_t>(c) * n +
                                      static_cast<std::int64_t>(
                                          rng.next_u64() % static_cast<std::uint64_t>(members))];
                } else {
                    m.u = 1 + static_cast<std::int32_t>(rng.next_u64() %
                                                        static_cast<std::uint64_t>(n - 1));
                }
                m.v = neighbors[static_cast<std::int64_t>(m.u) * K +
                                static_cast<std::int64_t>(rng.next_u64() %
                                                          static_cast<std::uint64_t>(K))];
                const std::uint64_t pick = rng.next_u64() % 3;
                m.kind = pick == 2 ? 1 : 0;
                m.variant = static_cast<std::int32_t>(pick & 1u);
                if (!in_region(v, m)) continue;
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

    /// The whole team, the workspace refreshed: ruin and recreate (SISR, Christiaens & Vanden
    /// Berghe 2020). The leader removes strings (at most kMaxString customers) from up to
    /// 4 ruin / (1 + L) - 1 routes met among a random customer and its candidates (L: the
    /// shorter of kMaxString and that customer's route), then puts every removed customer — in
    /// random order or by decreasing demand, decreasing or increasing distance from the depot
    /// (weights 4, 4, 2, 1) — at its cheapest place beside one of its candidates (each place
    /// skipped with probability 1/100, SISR's blinks), within the limits (hard limits) or at the
    /// least penalised cost (with time windows, each place's time warp folded over its route); a
    /// customer without such a place gets an empty route (unconfined chains within the fleet
    /// limit), else the kick is dropped. The routes it changes are held
    /// as linked lists in the recombination arrays (free between recombinations); the team then
    /// writes the new row and refreshes the workspace. Returns the cost change (with penalties,
    /// of the routes' penalty terms too), (leader) the removed customers as touched and (every
    /// rank) whether the row changed. `whole_route`: route elimination instead of strings —
    /// the shortest non-empty route among those of the random customer and its candidates is
    /// emptied (when it has at most kMaxRuined customers) and its customers go to the other
    /// routes only, never to an empty one.
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD std::int64_t ruin_recreate(const Team& team, std::uint32_t c, std::int32_t* row,
                                        Rng& rng, std::int32_t* out, std::int32_t& count,
                                        bool whole_route, bool& kicked) const {
        const View v = view(c);
        const std::int64_t nodes = n;
        const std::int32_t routes = n - 1; // a row holds n - 1 markers
        std::int32_t* succ = sequence + c * nodes;
        std::int32_t* pred = split_from + c * nodes; // -1: removed, not yet put back
        std::int32_t* head = route_order + c * nodes; // per opened route: its first customer
        std::uint8_t* opened = taken + c * nodes;      // per route: held as a linked list
        std::int32_t* lengths = route_start + c * nodes; // per route; [n - 1]: the kick's verdict
        const auto rank = static_cast<std::int32_t>(team.rank());
        const auto size = static_cast<std::int32_t>(team.size());
        for (std::int32_t r = rank; r < routes; r += size)
            opened[r] = 0;
        team.sync();
        std::int64_t change = 0;
        if (rank == 0) {
            const std::int32_t room0 = v.w > n ? v.w : n;
            const std::int32_t room = room0 < kMaxRuined ? room0 : kMaxRuined;
            std::int32_t pool = 0;
            bool ok = true;
            const auto open = [&](std::int32_t r) {
                if (opened[r] != 0) return;
                opened[r] = 1;
                std::int32_t last = 0;
                std::int32_t k = 0;
                head[r] = 0;
                for (std::int32_t q = v.route_begin[r] + 1; q < v.route_end[r]; ++q) {
                    const std::int32_t node = v.lin[q];
                    pred[node] = last;
                    if (last != 0) succ[last] = node;
                    else head[r] = node;
                    last = node;
                    ++k;
                }
                if (last != 0) succ[last] = 0;
                lengths[r] = k;
            };
            // The change of route r's penalty term when its load, duration and time warp
            // become l, t and tw.
            const auto penalty_change = [&](std::int32_t r, std::int64_t l, std::int64_t t,
                                            std::int64_t tw) {
                return penalties != 0 ? v.term(l, t, tw) - v.term(v.load[r], v.dur[r],
                                                                  v.route_warp(r))
                                      : std::int64_t{0};
            };
            // Windows: the time warp of opened route r as linked now, with customer `extra`
            // (when >= 0) put after `after` (0: at its front) — the route folded (O(length)).
            const bool windowed = windows.active();
            const auto list_warp = [&](std::int32_t r, std::int32_t extra, std::int32_t after) {
                routing::WindowFold fold(windows);
                std::int32_t last = 0;
                const auto visit = [&](std::int32_t node) {
                    fold.add(node, v.d(last, node));
                    last = node;
                };
                if (extra >= 0 && after == 0) visit(extra);
                for (std::int32_t node = head[r]; node != 0; node = succ[node]) {
                    visit(node);
                    if (node == after && extra >= 0) visit(extra);
                }
                return fold.close(v.d(last, 0));
            };
            const auto unlink = [&](std::int32_t u) {
                const std::int32_t r = v.route[u];
                const std::int32_t a = pred[u];
                const std::int32_t b = succ[u];
                if (a != 0) succ[a] = b;
                else head[r] = b;
                if (b != 0) pred[b] = a;
                const std::int64_t dd = v.d(a, b) - v.d(a, u) - v.d(u, b);
                const std::int64_t l = v.load[r] - demand[u];
                const std::int64_t t = v.dur[r] + dd - service;
                const std::int64_t tw = windowed ? list_warp(r, -1, 0) : 0;
                change += dd + penalty_change(r, l, t, tw);
                v.load[r] = l;
                v.dur[r] = t;
                if (windowed) v.warp[r] = tw;
                --lengths[r];
                pred[u] = -1;
                out[pool++] = u;
            };
            // Ruin.
            const std::int32_t seed =
                v.region != nullptr
                    ? region_list[static_cast<std::int64_t>(c) * n +
                                  static_cast<std::int64_t>(
                                      rng.next_u64() %
                                      static_cast<std::uint64_t>(region_count[c]))]
                    : 1 + static_cast<std::int32_t>(rng.next_u64() %
                                                    static_cast<std::uint64_t>(n - 1));
            const std::int32_t seed_length = v.length(v.route[seed]);
            const std::int32_t longest = seed_length < kMaxString ? seed_length : kMaxString;
            std::int32_t ruined_routes = 0; // strings to take out (none when a whole route goes)
            if (!whole_route) {
                const std::int32_t most_routes = 4 * ruin / (1 + longest) - 1;
                ruined_routes = static_cast<std::int32_t>(
                    1 + rng.next_u64() % static_cast<std::uint64_t>(
                                             most_routes < 1 ? 1 : most_routes));
            } else {
                std::int32_t target = -1;
                std::int32_t shortest = room + 1;
                for (std::int32_t i = -1; i < K; ++i) {
                    const std::int32_t x =
                        i < 0 ? seed : neighbors[static_cast<std::int64_t>(seed) * K + i];
                    if (x <= 0 || (v.region != nullptr && v.region[x] == 0)) continue;
                    const std::int32_t len = v.length(v.route[x]);
                    if (len > 0 && len < shortest) {
                        shortest = len;
                        target = v.route[x];
                    }
                }
                if (target >= 0) {
                    open(target);
                    while (head[target] != 0)
                        unlink(head[target]);
                } else {
                    ok = false;
                }
            }
            std::int32_t ruined = 0;
            for (std::int32_t i = -1; i < K && ruined < ruined_routes && pool < room; ++i) {
                const std::int32_t x =
                    i < 0 ? seed : neighbors[static_cast<std::int64_t>(seed) * K + i];
                if (x <= 0 || (v.region != nullptr && v.region[x] == 0)) continue;
                const std::int32_t r = v.route[x];
                if (opened[r] != 0) continue; // ruined already
                open(r);
                const std::int32_t len = lengths[r];
                const std::int32_t most = len < longest ? len : longest;
                const auto l = static_cast<std::int32_t>(
                    1 + rng.next_u64() % static_cast<std::uint64_t>(most));
                const std::int32_t at = v.pos[x] - v.route_begin[r] - 1;
                const std::int32_t lo = at - l + 1 > 0 ? at - l + 1 : 0;
                const std::int32_t hi = at < len - l ? at : len - l;
                const auto start = static_cast<std::int32_t>(
                    lo + static_cast<std::int32_t>(rng.next_u64() %
                                                   static_cast<std::uint64_t>(hi - lo + 1)));
                std::int32_t node = head[r];
                for (std::int32_t k = 0; k < start; ++k)
                    node = succ[node];
                for (std::int32_t k = 0; k < l && pool < room; ++k) {
                    const std::int32_t next = succ[node];
                    unlink(node);
                    node = next;
                }
                ++ruined;
            }
            // Recreate, in one of SISR's orders.
            const std::uint64_t order = rng.next_u64() % 11;
            if (order < 4) {
                for (std::int32_t i = pool - 1; i > 0; --i) {
                    const auto j = static_cast<std::int32_t>(
                        rng.next_u64() % static_cast<std::uint64_t>(i + 1));
                    const std::int32_t t = out[i];
                    out[i] = out[j];
                    out[j] = t;
                }
            } else {
                const auto key = [&](std::int32_t u) -> std::int64_t {
                    return order < 8    ? -demand[u]
                           : order < 10 ? -v.d(0, u)
                                        : v.d(0, u);
                };
                for (std::int32_t i = 1; i < pool; ++i) { // insertion sort, ties by customer
                    const std::int32_t u = out[i];
                    std::int32_t j = i;
                    while (j > 0 && (key(out[j - 1]) > key(u) ||
                                     (key(out[j - 1]) == key(u) && out[j - 1] > u))) {
                        out[j] = out[j - 1];
                        --j;
                    }
                    out[j] = u;
                }
            }
            constexpr std::int64_t kNone = std::int64_t{1} << 62;
            for (std::int32_t t = 0; t < pool && ok; ++t) {
                const std::int32_t u = out[t];
                std::int64_t best = kNone;
                std::int32_t best_r = -1;
                std::int32_t best_a = 0;
                std::int32_t best_b = 0;
                std::int64_t best_warp = 0;
                const auto consider = [&](std::int32_t r, std::int32_t a, std::int32_t b,
                                          bool blink) {
                    if (blink && rng.next_u64() % 100 == 0) return;
                    const std::int64_t dd = v.d(a, u) + v.d(u, b) - v.d(a, b);
                    const std::int64_t l = v.load[r] + demand[u];
                    const std::int64_t time = v.dur[r] + dd + service;
                    if (penalties == 0 && (l > capacity || time > max_duration)) return;
                    const std::int64_t tw = windowed ? list_warp(r, u, a) : 0;
                    if (penalties == 0 && tw > 0) return;
                    const std::int64_t cost = dd + penalty_change(r, l, time, tw);
                    if (cost < best) {
                        best = cost;
                        best_r = r;
                        best_a = a;
                        best_b = b;
                        best_warp = tw;
                    }
                };
                for (std::int32_t i = 0; i < K; ++i) {
                    const std::int32_t w = neighbors[static_cast<std::int64_t>(u) * K + i];
                    if (w <= 0 || (v.region != nullptr && v.region[w] == 0)) continue;
                    const std::int32_t r = v.route[w];
                    open(r);
                    if (pred[w] < 0) continue; // removed, not yet put back
                    consider(r, pred[w], w, true);
                    consider(r, w, succ[w], true);
                }
                // An empty route, within the fleet (never when a route is eliminated).
                if (best_r < 0 && v.region == nullptr && !whole_route) {
                    std::int32_t empty = -1;
                    std::int32_t used = 0;
                    for (std::int32_t r = routes - 1; r >= 0; --r) {
                        const std::int32_t len = opened[r] != 0 ? lengths[r] : v.length(r);
                        if (len == 0 && empty < 0) empty = r;
                        if (vehicles == 0 && empty >= 0) break;
                        used += len > 0 ? 1 : 0;
                    }
                    if (empty >= 0 && (vehicles == 0 || used < vehicles)) {
                        open(empty);
                        consider(empty, 0, 0, false);
                    }
                }
                if (best_r < 0) {
                    ok = false;
                    break;
                }
                pred[u] = best_a;
                succ[u] = best_b;
                if (best_a != 0) succ[best_a] = u;
                else head[best_r] = u;
                if (best_b != 0) pred[best_b] = u;
                v.route[u] = best_r;
                v.load[best_r] += demand[u];
                v.dur[best_r] += v.d(best_a, u) + v.d(u, best_b) - v.d(best_a, best_b) + service;
                if (windowed) v.warp[best_r] = best_warp;
                ++lengths[best_r];
                change += best;
            }
            lengths[routes] = ok ? 1 : 0;
            count = ok ? pool : 0;
            if (!ok) change = 0;
        }
        team.sync();
        kicked = lengths[routes] != 0;
        if (kicked) { // the new row: every route's marker and customers
            for (std::int32_t r = rank; r < routes; r += size)
                lengths[r] = 1 + (opened[r] != 0 ? lengths[r] : v.length(r));
            team.sync();
            gpu::scan_in_place(team, lengths, static_cast<std::uint32_t>(routes));
            for (std::int32_t r = rank; r < routes; r += size) {
                std::int32_t* to = v.scratch + (r == 0 ? 0 : lengths[r - 1]);
                std::int32_t q = 0;
                to[q++] = 0;
                if (opened[r] != 0) {
                    for (std::int32_t node = head[r]; node != 0; node = succ[node])
                        to[q++] = node;
                } else {
                    for (std::int32_t p = v.route_begin[r] + 1; p < v.route_end[r]; ++p)
                        to[q++] = v.lin[p];
                }
            }
            team.sync();
            for (std::int32_t q = rank; q < v.w; q += size)
                row[q] = v.scratch[q];
        }
        team.sync();
        refresh(team, c, row);
        return change;
    }

    /// The whole team: order crossover of the customer sequences of rows `a` and `b` (each
    /// read from its first marker, routes in the order of their headings) — a random slice of a
    /// kept in place, the other positions filled in b's order from after the slice — then an
    /// optimal Split of the child sequence into routes that respect the capacity and the
    /// duration limit, written as a normalised row (routing/route_crossover.hpp,
    /// routing/split.hpp). Every rank draws from its copy of the same stream. With a fleet limit
    /// that the capacity alone does not fit and penalties on, the penalised Split within the
    /// fleet (routing::split_routes_within); otherwise, when the Split needs more routes than
    /// the fleet, the child is a copy of `a`. With time windows the leader splits (the serial
    /// Split); without, the team. Ends synchronised.
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD void recombine(const Team& team, std::uint32_t c, const std::int32_t* a,
                            const std::int32_t* b, std::int32_t* child, Rng& rng) const {
        const std::int32_t w = width();
        const std::int32_t count = n - 1;
        const std::int64_t nodes = n;
        const auto rank = static_cast<std::int32_t>(team.rank());
        const auto size = static_cast<std::int32_t>(team.size());
        const auto copy_a = [&] {
            for (std::int32_t q = rank; q < w; q += size)
                child[q] = a[q];
            team.sync();
        };
        if (count < 2) {
            copy_a();
            return;
        }
        std::int32_t* seq = sequence + c * nodes;
        std::int64_t* keys = route_key + 2 * c * nodes;
        std::int32_t* starts = route_order + c * nodes;
        std::int32_t* from = split_from + c * nodes;
        std::int64_t* label = potential + c * nodes;
        // The child's slice comes from a; scratch holds b's sequence meanwhile; the Split's
        // predecessors hold the route lengths until the Split.
        std::int32_t* other = scratch + static_cast<std::int64_t>(c) * w;
        routing::customers_by_heading(team, a, w, heading, keys, starts, from, seq);
        routing::customers_by_heading(team, b, w, heading, keys, starts, from, other);
        routing::order_crossover(team, seq, other, count, taken + c * nodes, rng);
        const auto d = [&](std::int32_t x, std::int32_t y) { return dist(x, y); };
        const routing::SplitLimits limits{demand, capacity, service, max_duration, windows,
                                          split_warp_weight};
        // A fleet the capacity alone does not fit: with penalties, the penalised Split within
        // the fleet (loads over the capacity at the initial load weight), which the descents
        // then repair.
        const auto over_fleet = [&](std::int32_t routes) {
            return vehicles > 0 && penalties != 0 && (routes < 0 || routes > vehicles);
        };
        std::int32_t routes = 0;
        if (windows.active()) {
            if (rank == 0) {
                routes = routing::split_routes(seq, count, d, limits, label, from);
                if (over_fleet(routes))
                    routes = routing::split_routes_within(seq, count, d, limits, vehicles,
                                                          load_weight, label, from);
            }
            routes = team.sum(routes);
        } else {
            const routing::SplitSums sums{keys, keys + nodes, split_back + c * nodes};
            routing::split_sums(team, seq, count, d, demand, sums);
            routes = routing::split_routes(team, seq, count, d, limits, sums, label, from);
            if (over_fleet(routes))
                routes = routing::split_routes_within(team, seq, count, d, limits, sums,
                                                      vehicles, load_weight, label, from);
        }
        if (routes < 0 || (vehicles > 0 && routes > vehicles)) {
            copy_a();
            return;
        }
        routing::write_split(team, seq, count, from, routes, child, w, starts);
    }
};

} // namespace locus::dcvrp
