#pragma once
/// \file
/// Forward and backward time-window pieces of a route (Vidal et al. 2013, §4: the "prefix" and
/// "suffix" segments a move is evaluated from). For a route 0 c_1 ... c_m 0 (0 the depot):
///
///   forward[k]  = 0 c_1 ... c_k          k = 0..m (forward[0]: the depot alone)
///   backward[k] = c_k ... c_m 0          k = 1..m+1 (backward[m+1]: the depot alone)
///
/// so that a route made of a prefix of one route, any middle piece and a suffix of another —
/// every relocation, exchange and 2-opt* of the route-chain moves — is summarised by two O(1)
/// concatenations, its time warp read off the result (zero: every window respected, leaving
/// the depot at its earliest time). Host and device code, like the resource.

#include <cstdint>

#include "locus/hd.hpp"
#include "locus/routing/time_window_resource.hpp"

namespace locus::routing {

/// Fills forward[0..m] and backward[1..m+1] (arrays of at least m + 2 pieces; backward[0] is
/// not written) for the route of the m customers route[0..m-1]; `travel(a, b)` is the travel
/// time from node a to node b. O(m).
template <class Travel>
LOCUS_HD void time_window_pieces(const TimeWindowResource& windows, const std::int32_t* route,
                                 std::int32_t m, const Travel& travel,
                                 TimeWindowResource::Piece* forward,
                                 TimeWindowResource::Piece* backward) {
    using Piece = TimeWindowResource::Piece;
    const std::int32_t depot = windows.depot;
    windows.leaf(forward[0], depot);
    std::int32_t previous = depot;
    for (std::int32_t k = 1; k <= m; ++k) {
        Piece one;
        windows.leaf(one, route[k - 1]);
        TimeWindowResource::concat(forward[k], forward[k - 1], one, travel(previous, route[k - 1]));
        previous = route[k - 1];
    }
    windows.leaf(backward[m + 1], depot);
    std::int32_t next = depot;
    for (std::int32_t k = m; k >= 1; --k) {
        Piece one;
        windows.leaf(one, route[k - 1]);
        TimeWindowResource::concat(backward[k], one, backward[k + 1], travel(route[k - 1], next));
        next = route[k - 1];
    }
}

/// The time warp of the route `head` + `middle` + `tail` joined by the travel times `into`
/// (head's last node to middle's first) and `out` (middle's last to tail's first), where head
/// starts and tail ends at the depot (a forward and a backward piece). O(1).
LOCUS_HD_INLINE double joined_time_warp(const TimeWindowResource::Piece& head,
                                        const TimeWindowResource::Piece& middle,
                                        const TimeWindowResource::Piece& tail, double into,
                                        double out) {
    TimeWindowResource::Piece r;
    TimeWindowResource::concat(r, head, middle, into);
    TimeWindowResource::concat(r, r, tail, out);
    return r.time_warp;
}

/// The time warp of the route `head` + `tail` joined by the travel time `edge` (2-opt*, or a
/// removal): O(1).
LOCUS_HD_INLINE double joined_time_warp(const TimeWindowResource::Piece& head,
                                        const TimeWindowResource::Piece& tail, double edge) {
    TimeWindowResource::Piece r;
    TimeWindowResource::concat(r, head, tail, edge);
    return r.time_warp;
}

} // namespace locus::routing
