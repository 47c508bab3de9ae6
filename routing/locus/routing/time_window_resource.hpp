#pragma once
/// \file
/// The time-window resource of a route (Vidal, Crainic, Gendreau & Prins 2013, "A hybrid genetic
/// algorithm with adaptive diversity management for a large class of vehicle routing problems
/// with time-windows", Computers & Operations Research 40(1), §4: the time-window segment). Every
/// node has a window [ready, due] for the start of its service and a service time; a vehicle that
/// arrives early waits, one that arrives late "travels back in time" to the due time and the
/// difference counts as time warp. A route is feasible when its time warp is zero; a search that
/// allows infeasible routes prices the time warp (as it prices capacity excess). One of the
/// resources a problem composes into its segment summaries (route_segment.hpp).
///
/// A piece summarises, for any sequence of customers, what a start of service at its first node
/// at time s leads to: with E <= s <= L the piece ends at s + duration - time_warp with exactly
/// `time_warp` of time warp and no waiting that a later start would avoid; a start before E
/// waits until E, one after L adds s - L of time warp and ends as a start at L would. Two
/// pieces joined by a travel time t follow in O(1) (Vidal et al. 2013, eqs. (11)-(15)):
///
///   delta     = D1 - TW1 + t                      time from the first start to the arrival
///   waiting   = max(E2 - delta - L1, 0)
///   warp      = max(E1 + delta - L2, 0)
///   D  = D1 + D2 + t + waiting        TW = TW1 + TW2 + warp
///   E  = max(E2 - delta, E1) - waiting             L  = min(L2 - delta, L1) + warp
///
/// The empty piece (the depot side of a route's open end in a segment summary) is the identity
/// of this operation: D = TW = 0, E = -infinity, L = +infinity. A route is closed by the depot's
/// window at both ends (leaving it at or after its ready time, back at or before its due time):
/// its time warp is that of depot + piece + depot joined by zero travel (the piece already holds
/// the edges from and to the depot).
///
/// Not symmetric: a reversed piece has other windows, so the giant-tour moves that reverse a part
/// need summaries built in both directions (docs/routing-library.md).

#include <cmath>
#include <cstdint>

#include "locus/hd.hpp"

namespace locus::routing {

/// `a` followed by `b` over a travel time `edge`: the formulas above, O(1), for any piece of the
/// four quantities (`elapsed`, `time_warp`, `earliest_start`, `latest_start`) in real numbers
/// or in fixed point.
template <class Piece, class T>
LOCUS_HD_INLINE Piece join_window_pieces(const Piece& a, const Piece& b, T edge) {
    const T delta = a.elapsed - a.time_warp + edge;
    const T gap = b.earliest_start - delta - a.latest_start;
    const T waiting = gap > T{0} ? gap : T{0};
    const T late = a.earliest_start + delta - b.latest_start;
    const T warp = late > T{0} ? late : T{0};
    const T from_b = b.earliest_start - delta;
    const T until_b = b.latest_start - delta;
    Piece r;
    r.elapsed = a.elapsed + b.elapsed + edge + waiting;
    r.time_warp = a.time_warp + b.time_warp + warp;
    r.earliest_start = (from_b > a.earliest_start ? from_b : a.earliest_start) - waiting;
    r.latest_start = (until_b < a.latest_start ? until_b : a.latest_start) + warp;
    return r;
}

/// Time windows: waiting allowed, lateness as time warp; feasible when a route has none.
struct TimeWindowResource {
    /// An open route piece's time-window summary (Vidal et al. 2013's D, TW, E, L).
    struct Piece {
        double elapsed = 0.0;              ///< D: travel, service and waiting
        double time_warp = 0.0;            ///< TW: the least time warp of any start
        double earliest_start = -HUGE_VAL; ///< E: the earliest start without avoidable waiting
        double latest_start = HUGE_VAL;    ///< L: the latest start with only TW of time warp
    };
    /// The complete routes' time warp.
    struct Excess {
        double excess_time_warp = 0.0; ///< summed over the complete routes
    };
    /// Windows have a direction: a reversed piece is another piece.
    static constexpr bool symmetric = false;

    const double* ready = nullptr;   ///< per node: earliest start of service (host or device)
    const double* due = nullptr;     ///< per node: latest start of service (depot: latest return)
    const double* service = nullptr; ///< per node: service time (null: none)
    std::int32_t depot = 0;          ///< the node whose window bounds every route

    /// The piece of the one node `node`: its window and service time.
    LOCUS_HD_INLINE void leaf(Piece& p, std::int32_t node) const {
        p.elapsed = service == nullptr ? 0.0 : service[node];
        p.time_warp = 0.0;
        p.earliest_start = ready[node];
        p.latest_start = due[node];
    }

    /// `a` followed by `b` over a travel time `edge`: the formulas above, O(1). `r` may be `a`
    /// or `b`: every input is read before `r` is written.
    LOCUS_HD_INLINE static void concat(Piece& r, const Piece& a, const Piece& b, double edge) {
        r = join_window_pieces(a, b, edge);
    }

    /// The time warp of two disjoint sets of complete routes together.
    LOCUS_HD_INLINE static void add(Excess& r, const Excess& a, const Excess& b) {
        r.excess_time_warp = a.excess_time_warp + b.excess_time_warp;
    }

    /// The complete route of the customers `p` (with the edges from and to the depot): the
    /// depot's window joined at both ends. The depot's service time must be 0 (it would count
    /// at both ends).
    LOCUS_HD_INLINE Piece route(const Piece& p) const {
        Piece d;
        leaf(d, depot);
        Piece r;
        concat(r, d, p, 0.0);
        concat(r, r, d, 0.0);
        return r;
    }

    /// Adds the complete route `p` to `e`.
    LOCUS_HD_INLINE void close(Excess& e, const Piece& p) const {
        e.excess_time_warp += route(p).time_warp;
    }

    /// Whether no complete route of `e` has time warp.
    LOCUS_HD_INLINE static bool feasible(const Excess& e) { return e.excess_time_warp == 0.0; }
};

/// A piece in fixed point (integers): the same four quantities and the same join, for the route
/// chains, whose costs are fixed point so that both backends agree exactly. No infinities: every
/// piece there is built from nodes' leaves.
struct FixedWindowPiece {
    std::int64_t elapsed = 0;        ///< D
    std::int64_t time_warp = 0;      ///< TW
    std::int64_t earliest_start = 0; ///< E
    std::int64_t latest_start = 0;   ///< L
};

/// `a` followed by `b` over a travel time `edge` (the formulas above, in integers; exact, so
/// any order of joins gives the same piece).
LOCUS_HD_INLINE FixedWindowPiece join_windows(const FixedWindowPiece& a, const FixedWindowPiece& b,
                                              std::int64_t edge) {
    return join_window_pieces(a, b, edge);
}

/// The time windows of an instance in fixed point (host or device pointers): per node the
/// earliest and latest start of service (the depot's: leaving and the latest return), every
/// customer's service time, and `slack` units added to every travel and service time. Slack 1
/// makes a fixed-point schedule no earlier than the real one when the fixed-point times are
/// rounded (each rounded by at most half a unit), so that a route without time warp in fixed
/// point has none in the instance's own times; 0 when they are exact.
struct FixedWindows {
    const std::int64_t* ready = nullptr; ///< null: no windows
    const std::int64_t* due = nullptr;
    std::int64_t service = 0;
    std::int64_t slack = 0;

    LOCUS_HD_INLINE bool active() const { return ready != nullptr; }
    /// The piece of node alone (the depot's: no service).
    LOCUS_HD_INLINE FixedWindowPiece leaf(std::int32_t node) const {
        FixedWindowPiece p;
        p.elapsed = node == 0 ? 0 : service + slack;
        p.earliest_start = ready[node];
        p.latest_start = due[node];
        return p;
    }
    /// `p` (ending at a node at distance `edge` from `node`) followed by `node`.
    LOCUS_HD_INLINE FixedWindowPiece extend(const FixedWindowPiece& p, std::int32_t node,
                                            std::int64_t edge) const {
        return join_windows(p, leaf(node), edge + slack);
    }
};

/// Folds a route given node by node from the depot (start(), then add(node, edge from the
/// previous node) for each customer, then close(edge back to the depot)) into its time warp.
struct WindowFold {
    const FixedWindows& windows;
    FixedWindowPiece piece;
    LOCUS_HD_INLINE explicit WindowFold(const FixedWindows& w) : windows(w), piece(w.leaf(0)) {}
    LOCUS_HD_INLINE void add(std::int32_t node, std::int64_t edge) {
        piece = windows.extend(piece, node, edge);
    }
    LOCUS_HD_INLINE std::int64_t close(std::int64_t edge) const {
        return windows.extend(piece, 0, edge).time_warp;
    }
};

} // namespace locus::routing
