#pragma once
/// \file
/// Route-chain moves (relocate, swap, 2-opt*, 2-opt, relocate of 2 or 3 customers, swaps of 2
/// consecutive customers with 1 or 2, SWAP* on granular places) over a
/// routing solution kept as routes with per-customer prefix summaries of load and duration:
/// each move's cost change and its routes' new load and duration in O(1), and the routes it
/// writes. Host-device, written once for the CPU twin and kernels, over any chain view that
/// offers the state below; the view decides what a route over a limit costs (hard limits or
/// penalties), so a problem keeps its own limit policy.
///
/// A View offers (all O(1)):
///   d(a, b)            fixed-point distance; next(u), prev(u): u's neighbours in its route
///                      (0: the depot); length(r): customers of route r
///   lin, w             the normalised row (routes from their depot markers) and its width
///   pos, route         per customer: its position in lin and its route
///   pre_load, pre_dur  per customer: load and duration from the depot up to it (its service
///                      included)
///   load, dur          per route; route_begin, route_end: its marker and the next one
///   demand(u), service()
///   candidate(u, i), candidate_count(): u's i-th nearest customer, and how many there are
///   windows()          the instance's time windows in fixed point (FixedWindows, inactive
///                      when it has none)
///   limited(change, ra, la, ta, wa, rb, lb, tb, wb): `change` when routes ra (new load la,
///                      duration ta, time warp wa) and rb (lb, tb, wb; ignored when rb == ra)
///                      may take the move, plus whatever the view charges for them;
///                      invalid_delta to refuse it.
///
/// Time windows (time_window_resource.hpp): a view that keeps each customer's forward and
/// backward time-window pieces (WindowPieceView) has a move's changed routes priced from them
/// (pieced_route_warp): O(1) for the moves between two routes, O(the positions between the
/// move's ends) within one route; other views, and 2-opt* with reversed heads, fold each changed
/// route as the move leaves it, node by node (folded_route_warp, O(route length)). The time
/// warp is 0 without windows and then costs nothing. A descent may skip the pricing of every
/// move that could not improve even without time warp (route_move_delta's improving_only).
///
/// Moves (kind): 0 relocate u after v (variant 0) or before v (1); 1 swap u and v; 2 2-opt*
/// between u's and v's routes, tails exchanged (0) or both heads reversed (1); 3 2-opt inside a
/// route; 4 the 2 or 3 consecutive customers from u moved after v (variant 2 (length - 2) +
/// reversed); 5 the segment from u exchanged with the segment from v, of 2 and 1 (variant 0),
/// 1 and 2 (1) or 2 and 2 (2) consecutive customers, each keeping its orientation (swap 2-1,
/// 1-2, 2-2 of Vidal et al. 2012; in one route or two); 6 SWAP* (Vidal 2022) between u's and
/// v's routes: u and v leave their routes, u goes to its cheapest place in v's route and v to
/// its cheapest in u's, the places sought among the one the other customer left and those beside
/// the incoming customer's candidates in the route (granular: O(K) per move, where HGS-CVRP
/// caches every route's three best places per customer).

#include <concepts>
#include <cstdint>

#include "locus/gpu/neighborhood_engine.hpp"
#include "locus/hd.hpp"
#include "locus/routing/time_window_resource.hpp"

namespace locus::routing {

/// A move of the route neighborhoods.
struct RouteMove {
    std::int32_t kind = 0;    ///< neighborhood: 0 relocate, 1 swap, 2 2-opt*, 3 2-opt,
                              ///< 4 relocate2/3, 5 swap of segments, 6 SWAP*
    std::int32_t variant = 0; ///< relocate: 0 after v, 1 before v; 2-opt*: 0 tails, 1 reversed;
                              ///< relocate2/3: 2 (length - 2) + reversed; swap of segments:
                              ///< 0 2-1, 1 1-2, 2 2-2 (customers from u, from v)
    std::int32_t u = 0;
    std::int32_t v = 0;
    std::int32_t pu = -1; ///< positions of u and v in the row when decoded (-1: not known)
    std::int32_t pv = -1;
};

/// Swap of segments (kind 5): customers of the segment from u and of the one from v.
LOCUS_HD_INLINE std::int32_t swap_length_u(std::int32_t variant) { return variant == 1 ? 1 : 2; }
LOCUS_HD_INLINE std::int32_t swap_length_v(std::int32_t variant) { return variant == 0 ? 1 : 2; }

/// What the moves read of a chain view (the list above).
template <class V>
concept RouteChainView = requires(const V v, std::int32_t node, std::int64_t value) {
    { v.d(node, node) } -> std::convertible_to<std::int64_t>;
    { v.next(node) } -> std::convertible_to<std::int32_t>;
    { v.prev(node) } -> std::convertible_to<std::int32_t>;
    { v.length(node) } -> std::convertible_to<std::int32_t>;
    { v.demand(node) } -> std::convertible_to<std::int64_t>;
    { v.service() } -> std::convertible_to<std::int64_t>;
    { v.candidate(node, node) } -> std::convertible_to<std::int32_t>;
    { v.candidate_count() } -> std::convertible_to<std::int32_t>;
    { v.w } -> std::convertible_to<std::int32_t>;
    { v.lin[node] } -> std::convertible_to<std::int32_t>;
    { v.pos[node] } -> std::convertible_to<std::int32_t>;
    { v.route[node] } -> std::convertible_to<std::int32_t>;
    { v.route_begin[node] } -> std::convertible_to<std::int32_t>;
    { v.route_end[node] } -> std::convertible_to<std::int32_t>;
    { v.pre_load[node] } -> std::convertible_to<std::int64_t>;
    { v.pre_dur[node] } -> std::convertible_to<std::int64_t>;
    { v.load[node] } -> std::convertible_to<std::int64_t>;
    { v.dur[node] } -> std::convertible_to<std::int64_t>;
    { v.windows() } -> std::convertible_to<FixedWindows>;
    {
        v.limited(value, node, value, value, value, node, value, value, value)
        } -> std::convertible_to<std::int64_t>;
};

template <class View, class Put>
LOCUS_HD void visit_moved_route(const View& v, const RouteMove& m, std::int32_t r, Put&& put);

template <class View>
LOCUS_HD std::int64_t swap_star_place(const View& v, std::int32_t c, std::int32_t r,
                                      std::int32_t gone, std::int32_t& after);

/// The time warp of route r (the move's first or second route) after the move: the whole route
/// folded node by node, O(route length) (0 without windows).
template <class View>
LOCUS_HD std::int64_t folded_route_warp(const View& v, const RouteMove& m, std::int32_t r) {
    const FixedWindows& windows = v.windows();
    if (!windows.active()) return 0;
    WindowFold fold(windows);
    std::int32_t last = 0;
    visit_moved_route(v, m, r, [&](std::int32_t node) {
        fold.add(node, v.d(last, node));
        last = node;
    });
    return fold.close(v.d(last, 0));
}

/// A chain view that keeps, per customer u of a route 0 c_1 .. c_m 0, the fixed-point
/// time-window pieces of its prefix 0 c_1 .. u (forward_piece) and of its suffix u .. c_m 0
/// (backward_piece); both of node 0 are the depot's piece (time_window_route.hpp's forward and
/// backward pieces, Vidal et al. 2013, §4).
template <class V>
concept WindowPieceView = requires(const V v, std::int32_t node) {
    { v.forward_piece(node) } -> std::convertible_to<FixedWindowPiece>;
    { v.backward_piece(node) } -> std::convertible_to<FixedWindowPiece>;
};

/// A route after a move, priced from the pieces it keeps: the prefix up to `from`, then nodes
/// one by one, then the suffix from the node given to close().
template <class View> struct PieceWalk {
    const View& v;
    FixedWindows windows;
    FixedWindowPiece piece;
    std::int32_t last;
    LOCUS_HD_INLINE PieceWalk(const View& view, std::int32_t from)
        : v(view), windows(view.windows()), piece(view.forward_piece(from)), last(from) {}
    LOCUS_HD_INLINE void add(std::int32_t node) {
        piece = windows.extend(piece, node, v.d(last, node));
        last = node;
    }
    /// The customers at row positions first..last (inclusive; none when last < first).
    LOCUS_HD_INLINE void add_range(std::int32_t first, std::int32_t last_q) {
        for (std::int32_t q = first; q <= last_q; ++q)
            add(v.lin[q]);
    }
    /// The time warp of the route closed by the suffix from `to` (0: the depot).
    LOCUS_HD_INLINE std::int64_t close(std::int32_t to) const {
        return join_windows(piece, v.backward_piece(to), v.d(last, to) + windows.slack)
            .time_warp;
    }
};

/// The time warp of route r after the move from the kept pieces: O(1) for the moves between
/// two routes (a prefix, at most three customers and a suffix), O(the positions between the
/// move's ends) for those in one route and for SWAP*; -1 for the one move it does not price
/// (2-opt* with both heads reversed, whose reversed pieces are not kept). Joins are exact in
/// fixed point, so this equals folded_route_warp.
template <class View>
LOCUS_HD std::int64_t pieced_route_warp(const View& v, const RouteMove& m, std::int32_t r) {
    const std::int32_t u = m.u;
    const std::int32_t x = m.v;
    const std::int32_t ra = v.route[u];
    const bool same = ra == v.route[x];
    const bool is_a = r == ra;
    const std::int32_t pu = v.pos[u];
    const std::int32_t px = v.pos[x];
    const auto at = [&](std::int32_t q) { return q < v.w ? v.lin[q] : 0; };
    switch (m.kind) {
    case 0: { // relocate u between a and b
        const std::int32_t a = m.variant == 0 ? x : v.prev(x);
        const std::int32_t b = m.variant == 0 ? v.next(x) : x;
        if (!same && is_a) {
            PieceWalk<View> walk(v, v.prev(u));
            return walk.close(v.next(u));
        }
        if (!same) {
            PieceWalk<View> walk(v, a);
            walk.add(u);
            return walk.close(b);
        }
        const std::int32_t pa = a == 0 ? v.route_begin[ra] : v.pos[a];
        if (pa > pu) { // u moves later
            PieceWalk<View> walk(v, v.prev(u));
            walk.add_range(pu + 1, pa);
            walk.add(u);
            return walk.close(b);
        }
        PieceWalk<View> walk(v, a);
        walk.add(u);
        walk.add_range(pa + 1, pu - 1);
        return walk.close(v.next(u));
    }
    case 1: { // swap
        if (!same) {
            const std::int32_t gone = is_a ? u : x;
            PieceWalk<View> walk(v, v.prev(gone));
            walk.add(is_a ? x : u);
            return walk.close(v.next(gone));
        }
        const std::int32_t first = pu < px ? u : x;
        const std::int32_t second = first == u ? x : u;
        const std::int32_t pf = v.pos[first];
        const std::int32_t ps = v.pos[second];
        PieceWalk<View> walk(v, v.prev(first));
        walk.add(second);
        walk.add_range(pf + 1, ps - 1);
        walk.add(first);
        return walk.close(v.next(second));
    }
    case 2: { // 2-opt*: tails exchanged
        if (m.variant != 0) return -1;
        PieceWalk<View> walk(v, is_a ? u : x);
        return walk.close(is_a ? v.next(x) : v.next(u));
    }
    case 4: { // relocate2/3
        const std::int32_t length = 2 + m.variant / 2;
        const bool reversed = (m.variant & 1) != 0;
        const std::int32_t last_pos = pu + length - 1;
        const auto add_segment = [&](PieceWalk<View>& walk) {
            for (std::int32_t t = 0; t < length; ++t)
                walk.add(v.lin[reversed ? last_pos - t : pu + t]);
        };
        if (!same && is_a) {
            PieceWalk<View> walk(v, v.prev(u));
            return walk.close(at(last_pos + 1));
        }
        if (!same || px < pu) { // after x, in x's route or earlier in u's
            PieceWalk<View> walk(v, x);
            add_segment(walk);
            if (same) walk.add_range(px + 1, pu - 1);
            return walk.close(same ? at(last_pos + 1) : v.next(x));
        }
        PieceWalk<View> walk(v, v.prev(u)); // later in u's route
        walk.add_range(last_pos + 1, px);
        add_segment(walk);
        return walk.close(v.next(x));
    }
    case 5: { // swap of segments, each keeping its orientation
        const std::int32_t len_u = swap_length_u(m.variant);
        const std::int32_t len_x = swap_length_v(m.variant);
        if (!same) {
            const std::int32_t p_gone = is_a ? pu : px;
            const std::int32_t len_gone = is_a ? len_u : len_x;
            const std::int32_t p_come = is_a ? px : pu;
            const std::int32_t len_come = is_a ? len_x : len_u;
            PieceWalk<View> walk(v, v.lin[p_gone - 1]);
            walk.add_range(p_come, p_come + len_come - 1);
            return walk.close(at(p_gone + len_gone));
        }
        const bool u_first = pu < px;
        const std::int32_t p1 = u_first ? pu : px;
        const std::int32_t l1 = u_first ? len_u : len_x;
        const std::int32_t p2 = u_first ? px : pu;
        const std::int32_t l2 = u_first ? len_x : len_u;
        PieceWalk<View> walk(v, v.lin[p1 - 1]);
        walk.add_range(p2, p2 + l2 - 1);
        walk.add_range(p1 + l1, p2 - 1);
        walk.add_range(p1, p1 + l1 - 1);
        return walk.close(at(p2 + l2));
    }
    case 6: { // SWAP*: `gone` leaves route r, `come` goes after `after`
        const std::int32_t gone = is_a ? u : x;
        const std::int32_t come = is_a ? x : u;
        std::int32_t after = 0;
        swap_star_place(v, come, r, gone, after);
        const std::int32_t pg = v.pos[gone];
        const std::int32_t pa = after == 0 ? v.route_begin[r] : v.pos[after];
        if (pa < pg) {
            PieceWalk<View> walk(v, after);
            walk.add(come);
            walk.add_range(pa + 1, pg - 1);
            return walk.close(v.next(gone));
        }
        PieceWalk<View> walk(v, v.prev(gone));
        walk.add_range(pg + 1, pa);
        walk.add(come);
        return walk.close(v.next(after));
    }
    default: { // 2-opt: (first + 1 .. second) reversed
        const std::int32_t first = pu < px ? pu : px;
        const std::int32_t second = pu < px ? px : pu;
        PieceWalk<View> walk(v, v.lin[first]);
        for (std::int32_t q = second; q > first; --q)
            walk.add(v.lin[q]);
        return walk.close(at(second + 1));
    }
    }
}

/// The time warp of route r (the move's first or second route) after the move (0 without
/// windows): from the kept pieces when the view keeps them (pieced_route_warp), else folded.
template <class View>
LOCUS_HD std::int64_t moved_route_warp(const View& v, const RouteMove& m, std::int32_t r) {
    if (!v.windows().active()) return 0;
    if constexpr (WindowPieceView<View>) {
        const std::int64_t warp = pieced_route_warp(v, m, r);
        if (warp >= 0) return warp;
    }
    return folded_route_warp(v, m, r);
}

/// SWAP* (kind 6): the cheapest place of customer c in route r once customer `gone` (of r) has
/// left it, among gone's place and the places before and after each of c's candidates in r
/// (the first found among equals). Returns the insertion's cost change; `after` gets the node
/// c follows (0: the route's start).
template <class View>
LOCUS_HD std::int64_t swap_star_place(const View& v, std::int32_t c, std::int32_t r,
                                      std::int32_t gone, std::int32_t& after) {
    const std::int32_t pg = v.prev(gone);
    const std::int32_t sg = v.next(gone);
    std::int64_t best = 0;
    bool found = false;
    const auto consider = [&](std::int32_t a, std::int32_t b) { // c between a and b
        const std::int64_t cost = v.d(a, c) + v.d(c, b) - v.d(a, b);
        if (!found || cost < best) {
            best = cost;
            after = a;
            found = true;
        }
    };
    consider(pg, sg); // gone's place
    const std::int32_t count = v.candidate_count();
    for (std::int32_t i = 0; i < count; ++i) {
        const std::int32_t w = v.candidate(c, i);
        if (w == gone || v.route[w] != r) continue;
        const std::int32_t nw = v.next(w);
        const std::int32_t pw = v.prev(w);
        consider(w, nw == gone ? sg : nw);  // behind w
        consider(pw == gone ? pg : pw, w);  // before w
    }
    return best;
}

/// Delta of move `m` on the chain of view `v`, or invalid_delta when it is not a move (a
/// no-op, or refused by v.limited). With `improving_only` and time windows, a move whose delta
/// without any time warp is not negative gets that value (a lower bound of its delta, or
/// invalid_delta) without the fold of its routes: time warp can only raise a delta (a penalty
/// grows with it; hard limits refuse more of it), so such a move cannot improve, and a descent
/// that applies only improving moves takes the same ones.
template <class View>
LOCUS_HD std::int64_t route_move_delta(const View& v, const RouteMove& m,
                                       bool improving_only = false) {
    static_assert(RouteChainView<View>, "the chain view lacks part of the state the route-chain "
                                        "moves read (see routing/route_chain_moves.hpp)");
    constexpr std::int64_t kInvalid = gpu::invalid_delta<std::int64_t>();
    const std::int32_t u = m.u;
    const std::int32_t x = m.v;
    if (u <= 0 || x <= 0 || u == x) return kInvalid;
    const std::int64_t svc = v.service();
    const std::int32_t ra = v.route[u];
    const std::int32_t rb = v.route[x];
    const bool same = ra == rb;
    // The changed routes' new load, duration and time warp (route ra, and rb when it differs)
    // go to the view, which refuses or prices them.
    const auto limited = [&](std::int64_t change, std::int64_t la, std::int64_t ta, std::int64_t lb,
                             std::int64_t tb) -> std::int64_t {
        std::int64_t wa = 0;
        std::int64_t wb = 0;
        if (v.windows().active()) {
            if (improving_only) {
                const std::int64_t bound = v.limited(change, ra, la, ta, 0, rb, lb, tb, 0);
                if (!(bound < 0)) return bound;
            }
            wa = moved_route_warp(v, m, ra);
            if (!same) wb = moved_route_warp(v, m, rb);
        }
        return v.limited(change, ra, la, ta, wa, rb, lb, tb, wb);
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
        const std::int64_t q = v.demand(u);
        return limited(change, v.load[ra] - q, v.dur[ra] + removal - svc, v.load[rb] + q,
                       v.dur[rb] + insertion + svc);
    }
    case 1: { // swap u and x
        const std::int32_t pu = v.prev(u);
        const std::int32_t su = v.next(u);
        const std::int32_t px = v.prev(x);
        const std::int32_t sx = v.next(x);
        if (su == x) {
            const std::int64_t change = v.d(pu, x) + v.d(u, sx) - v.d(pu, u) - v.d(x, sx);
            return limited(change, v.load[ra], v.dur[ra] + change, 0, 0);
        }
        if (sx == u) {
            const std::int64_t change = v.d(px, u) + v.d(x, su) - v.d(px, x) - v.d(u, su);
            return limited(change, v.load[ra], v.dur[ra] + change, 0, 0);
        }
        const std::int64_t at_u = v.d(pu, x) + v.d(x, su) - v.d(pu, u) - v.d(u, su);
        const std::int64_t at_x = v.d(px, u) + v.d(u, sx) - v.d(px, x) - v.d(x, sx);
        if (same) return limited(at_u + at_x, v.load[ra], v.dur[ra] + at_u + at_x, 0, 0);
        const std::int64_t qu = v.demand(u);
        const std::int64_t qx = v.demand(x);
        return limited(at_u + at_x, v.load[ra] - qu + qx, v.dur[ra] + at_u, v.load[rb] - qx + qu,
                       v.dur[rb] + at_x);
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
            return limited(v.d(u, nx) + v.d(x, nu) - v.d(u, nu) - v.d(x, nx), la + v.load[rb] - lb,
                           ta + v.d(u, nx) + tail_b, lb + v.load[ra] - la,
                           tb + v.d(x, nu) + tail_a);
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
        const std::int64_t seg_load = v.pre_load[last] - v.pre_load[u] + v.demand(u);
        const std::int64_t seg_time = v.pre_dur[last] - v.pre_dur[u] + svc;
        return limited(change, v.load[ra] - seg_load, v.dur[ra] + removal - seg_time,
                       v.load[rb] + seg_load, v.dur[rb] + insertion + seg_time);
    }
    case 5: { // the segment from u exchanged with the segment from x
        const std::int32_t first_u = v.pos[u];
        const std::int32_t last_u = first_u + swap_length_u(m.variant) - 1;
        const std::int32_t first_x = v.pos[x];
        const std::int32_t last_x = first_x + swap_length_v(m.variant) - 1;
        if (last_u >= v.route_end[ra] || last_x >= v.route_end[rb]) return kInvalid;
        if (same && last_u >= first_x && last_x >= first_u) return kInvalid; // they overlap
        const std::int32_t eu = v.lin[last_u]; // the segments' last customers
        const std::int32_t ex = v.lin[last_x];
        const std::int32_t pu = v.prev(u);
        const std::int32_t px = v.prev(x);
        const std::int32_t su = last_u + 1 < v.w ? v.lin[last_u + 1] : 0;
        const std::int32_t sx = last_x + 1 < v.w ? v.lin[last_x + 1] : 0;
        if (same && last_u + 1 == first_x) { // pu [u..eu][x..ex] sx -> pu [x..ex][u..eu] sx
            const std::int64_t change =
                v.d(pu, x) + v.d(ex, u) + v.d(eu, sx) - v.d(pu, u) - v.d(eu, x) - v.d(ex, sx);
            return limited(change, v.load[ra], v.dur[ra] + change, 0, 0);
        }
        if (same && last_x + 1 == first_u) { // px [x..ex][u..eu] su -> px [u..eu][x..ex] su
            const std::int64_t change =
                v.d(px, u) + v.d(eu, x) + v.d(ex, su) - v.d(px, x) - v.d(ex, u) - v.d(eu, su);
            return limited(change, v.load[ra], v.dur[ra] + change, 0, 0);
        }
        const std::int64_t at_u = v.d(pu, x) + v.d(ex, su) - v.d(pu, u) - v.d(eu, su);
        const std::int64_t at_x = v.d(px, u) + v.d(eu, sx) - v.d(px, x) - v.d(ex, sx);
        if (same) return limited(at_u + at_x, v.load[ra], v.dur[ra] + at_u + at_x, 0, 0);
        // Each segment's load and time (inner edges and services) moves with it.
        const std::int64_t load_u = v.pre_load[eu] - v.pre_load[u] + v.demand(u);
        const std::int64_t load_x = v.pre_load[ex] - v.pre_load[x] + v.demand(x);
        const std::int64_t time_u = v.pre_dur[eu] - v.pre_dur[u] + svc;
        const std::int64_t time_x = v.pre_dur[ex] - v.pre_dur[x] + svc;
        return limited(at_u + at_x, v.load[ra] - load_u + load_x,
                       v.dur[ra] + at_u - time_u + time_x, v.load[rb] - load_x + load_u,
                       v.dur[rb] + at_x - time_x + time_u);
    }
    case 6: { // SWAP*: u to its best place in x's route, x to its best in u's
        if (same) return kInvalid;
        std::int32_t after_u = 0;
        std::int32_t after_x = 0;
        const std::int64_t into_b = swap_star_place(v, u, rb, x, after_u);
        const std::int64_t into_a = swap_star_place(v, x, ra, u, after_x);
        const std::int32_t pu = v.prev(u);
        const std::int32_t su = v.next(u);
        const std::int32_t px = v.prev(x);
        const std::int32_t sx = v.next(x);
        const std::int64_t at_a = v.d(pu, su) - v.d(pu, u) - v.d(u, su) + into_a;
        const std::int64_t at_b = v.d(px, sx) - v.d(px, x) - v.d(x, sx) + into_b;
        const std::int64_t qu = v.demand(u);
        const std::int64_t qx = v.demand(x);
        return limited(at_a + at_b, v.load[ra] - qu + qx, v.dur[ra] + at_a, v.load[rb] - qx + qu,
                       v.dur[rb] + at_b);
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

/// Customers of route r (the move's first or second route) after the move.
template <class View>
LOCUS_HD std::int32_t moved_route_length(const View& v, const RouteMove& m, std::int32_t r) {
    static_assert(RouteChainView<View>, "the chain view lacks part of the state the route-chain "
                                        "moves read (see routing/route_chain_moves.hpp)");
    const std::int32_t ra = v.route[m.u];
    const std::int32_t rb = v.route[m.v];
    const std::int32_t length = v.length(r);
    if (ra == rb) return length;
    switch (m.kind) {
    case 0:
        return r == ra ? length - 1 : length + 1;
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
    case 5: {
        const std::int32_t change = swap_length_v(m.variant) - swap_length_u(m.variant);
        return r == ra ? length + change : length - change;
    }
    default:
        return length; // swap, SWAP*
    }
}

/// Calls put(node) for route r's customers after the move, in order (r is one of the move's
/// routes). Serial (one thread).
template <class View, class Put>
LOCUS_HD void visit_moved_route(const View& v, const RouteMove& m, std::int32_t r, Put&& put) {
    const std::int32_t ra = v.route[m.u];
    const std::int32_t rb = v.route[m.v];
    const std::int32_t s = v.route_begin[r];
    const std::int32_t e = v.route_end[r];
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
    case 5: { // swap of segments: each segment written where the other began
        const std::int32_t len_u = swap_length_u(m.variant);
        const std::int32_t len_x = swap_length_v(m.variant);
        for (std::int32_t q = s + 1; q < e; ++q) {
            if (q >= pu && q < pu + len_u) {
                if (q == pu) copy_range(px, px + len_x);
                continue;
            }
            if (q >= px && q < px + len_x) {
                if (q == px) copy_range(pu, pu + len_u);
                continue;
            }
            put(v.lin[q]);
        }
        break;
    }
    case 6: { // SWAP*: the leaving customer dropped, the other one put at its best place
        const bool is_a = r == ra;
        const std::int32_t gone = is_a ? m.u : m.v;
        const std::int32_t come = is_a ? m.v : m.u;
        std::int32_t after = 0;
        swap_star_place(v, come, r, gone, after);
        if (after == 0) put(come);
        for (std::int32_t q = s + 1; q < e; ++q) {
            const std::int32_t node = v.lin[q];
            if (node == gone) continue;
            put(node);
            if (node == after) put(come);
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
}

/// Writes route r's customers after the move to `out` (r is one of the move's routes); returns
/// their count. Serial (one thread).
template <class View>
LOCUS_HD std::int32_t compose_route(const View& v, const RouteMove& m, std::int32_t r,
                                    std::int32_t* out) {
    static_assert(RouteChainView<View>, "the chain view lacks part of the state the route-chain "
                                        "moves read (see routing/route_chain_moves.hpp)");
    std::int32_t count = 0;
    visit_moved_route(v, m, r, [&](std::int32_t node) { out[count++] = node; });
    return count;
}

} // namespace locus::routing
