#pragma once
/// \file
/// Split (Prins 2004; Bellman over route ends, as in HGS-CVRP (Vidal 2022)): the optimal division
/// of a customer sequence, kept in its order, into consecutive routes that respect the
/// capacity and the duration limit, in fixed point. Host-device code, the same on the CPU twin
/// and kernels: a serial Split (one thread per sequence; time windows) and a team Split over
/// prefix sums (capacity and duration: one team per sequence, the routes ending at every
/// position priced at once, one barrier per route start), which make the same divisions.

#include <cstdint>

#include "locus/gpu/team.hpp"
#include "locus/hd.hpp"
#include "locus/routing/time_window_resource.hpp"

namespace locus::routing {

/// The limits a Split respects, in fixed point (host or device pointers).
struct SplitLimits {
    const std::int64_t* demand = nullptr; ///< per node (depot 0: the node routes start from)
    std::int64_t capacity = 0;            ///< most load of a route
    std::int64_t service = 0;             ///< service time of every customer
    std::int64_t max_duration = 0;        ///< most duration of a route (edges + services)
    FixedWindows windows;                 ///< time windows (inactive: none)
    /// Time windows: 0, no route has time warp (a route stops growing at its first); w > 0,
    /// a route's time warp costs w per unit (the penalised Split of Vidal et al. 2013: a
    /// late route may be cheaper than another route, and a descent repairs it).
    std::int64_t warp_weight = 0;
};

/// The cost of a route's load `l` over the capacity at `excess_weight` per unit, capped at 2^50.
LOCUS_HD_INLINE std::int64_t split_excess_cost(std::int64_t l, std::int64_t capacity,
                                               std::int64_t excess_weight) {
    constexpr std::int64_t kMaxExcessCost = std::int64_t{1} << 50;
    if (l <= capacity) return 0;
    const std::int64_t excess = l - capacity;
    return static_cast<double>(excess) * static_cast<double>(excess_weight) >=
                   static_cast<double>(kMaxExcessCost)
               ? kMaxExcessCost
               : excess * excess_weight;
}

/// The optimal division of split_routes under two prices: `route_cost` added for every route,
/// and, when `excess_weight` > 0, a route's load above the capacity allowed at `excess_weight`
/// per unit (up to twice the capacity; each route's excess cost capped at 2^50) instead of
/// ending the route. Both 0: split_routes.
template <class Distance>
LOCUS_HD std::int32_t split_routes_priced(const std::int32_t* seq, std::int32_t count,
                                          const Distance& d, const SplitLimits& limits,
                                          std::int64_t route_cost, std::int64_t excess_weight,
                                          std::int64_t* label, std::int32_t* from) {
    constexpr std::int64_t kUnreached = std::int64_t{1} << 62;
    const std::int64_t load_cap = excess_weight > 0 ? 2 * limits.capacity : limits.capacity;
    label[0] = 0;
    for (std::int32_t k = 1; k <= count; ++k)
        label[k] = kUnreached;
    for (std::int32_t s = 0; s < count; ++s) {
        if (label[s] >= kUnreached) continue;
        std::int64_t l = 0;
        std::int64_t t = 0;
        std::int32_t last = 0;
        const bool windows = limits.windows.active();
        FixedWindowPiece open;
        if (windows) open = limits.windows.leaf(0);
        for (std::int32_t k = s; k < count; ++k) {
            const std::int32_t node = seq[k];
            l += limits.demand[node];
            if (l > load_cap) break;
            const std::int64_t edge = d(last, node);
            t += edge + limits.service;
            if (t > limits.max_duration) break; // durations only grow along the sequence
            last = node;
            const std::int64_t route_duration = t + d(node, 0);
            std::int64_t late = 0; // the closed route's time-warp cost
            if (windows) {
                open = limits.windows.extend(open, node, edge);
                const bool soft = limits.warp_weight > 0;
                if (open.time_warp > 0 && !soft) break;
                const std::int64_t warp = limits.windows.extend(open, 0, d(node, 0)).time_warp;
                if (warp > 0 && !soft) continue;
                late = warp * limits.warp_weight;
            }
            if (route_duration > limits.max_duration) continue;
            const std::int64_t cost = route_duration - limits.service * (k - s + 1) + late +
                                      split_excess_cost(l, limits.capacity, excess_weight) +
                                      route_cost;
            if (label[s] + cost < label[k + 1]) {
                label[k + 1] = label[s] + cost;
                from[k + 1] = s;
            }
        }
    }
    if (label[count] >= kUnreached) return -1;
    std::int32_t routes = 0;
    for (std::int32_t k = count; k > 0; k = from[k])
        ++routes;
    return routes;
}

/// Splits seq[0, count) into routes of least total length (`d(a, b)`: fixed-point distance of
/// nodes a and b). `label` and `from` hold count + 1 entries: label[k] the least cost of routing
/// seq[0, k), from[k] where the last of those routes starts. Returns the number of routes, or
/// -1 when no split respects the limits. A route stops growing at the capacity, the duration
/// limit or (unless limits.warp_weight prices it) time warp: loads, durations and the time
/// warp of an open route only grow; O(count x longest route).
template <class Distance>
LOCUS_HD std::int32_t split_routes(const std::int32_t* seq, std::int32_t count, const Distance& d,
                                   const SplitLimits& limits, std::int64_t* label,
                                   std::int32_t* from) {
    return split_routes_priced(seq, count, d, limits, 0, 0, label, from);
}

/// The search of split_routes_within over a priced Split: `priced(price)` divides at that
/// price per route, writing `label` (label[count] read here) and returning the routes or -1.
template <class Priced>
LOCUS_HD std::int32_t split_within_fleet(const Priced& priced, const std::int64_t* label,
                                         std::int32_t count, std::int32_t vehicles) {
    constexpr std::int64_t kMaxPrice = std::int64_t{1} << 40;
    // label and from hold the division at the last price tried: kept when it is the answer.
    std::int64_t tried = -1;
    std::int32_t routes = -1;
    const auto fits = [&](std::int64_t price) {
        tried = price;
        routes = priced(price);
        return routes >= 0 && routes <= vehicles;
    };
    if (fits(0)) return routes;
    if (routes < 0) return -1; // the limits alone leave no division: no price helps
    std::int64_t low = 0;      // does not fit
    std::int64_t high = label[count] / (4 * static_cast<std::int64_t>(routes));
    high = high < 1 ? 1 : (high > kMaxPrice ? kMaxPrice : high);
    while (!fits(high)) {
        low = high;
        if (high >= kMaxPrice) return -1;
        high *= 2;
    }
    if (routes == vehicles) return routes;
    while (high - low > 1) {
        const std::int64_t middle = low + (high - low) / 2;
        if (fits(middle)) {
            high = middle;
            if (routes == vehicles) return routes;
        } else {
            low = middle;
        }
    }
    if (tried != high) fits(high);
    return routes;
}

/// A Split into at most `vehicles` routes for a fleet that the capacity alone does not fit
/// (Vidal 2022's penalised Split, with the fleet bound by a price per route instead of a layer
/// per route): loads above the capacity cost `excess_weight` per unit (> 0), and every route
/// costs the least whole price at which the optimal division uses `vehicles` routes or fewer.
/// A price at which the division uses exactly `vehicles` routes ends the search early: that
/// division is then the cheapest of all with `vehicles` routes or fewer (a cheaper one with r
/// routes would be cheaper at that price too, by at least price x (vehicles - r) >= 0). The
/// search doubles from a quarter of the unpriced division's mean route cost, then bisects.
/// Returns the number of routes (label and from as split_routes), or -1 when no price up to
/// 2^40 brings the routes within the fleet (the load cap of twice the capacity, the duration
/// limit or the windows need more). A child from it may be over the capacity: for searches
/// that price the excess.
template <class Distance>
LOCUS_HD std::int32_t split_routes_within(const std::int32_t* seq, std::int32_t count,
                                          const Distance& d, const SplitLimits& limits,
                                          std::int32_t vehicles, std::int64_t excess_weight,
                                          std::int64_t* label, std::int32_t* from) {
    return split_within_fleet(
        [&](std::int64_t price) {
            return split_routes_priced(seq, count, d, limits, price, excess_weight, label, from);
        },
        label, count, vehicles);
}

/// Writes the `routes` routes of a split (split_routes' `from`) of seq[0, count) as a row of
/// `width` words that starts with a depot marker (0) before every route and ends with the
/// unused markers.
LOCUS_HD_INLINE void write_split(const std::int32_t* seq, std::int32_t count,
                                 const std::int32_t* from, std::int32_t routes, std::int32_t* row,
                                 std::int32_t width) {
    // Routes back to front: each [from[k], k) at the end of the row's used part.
    std::int32_t end = count + routes; // positions used by markers and customers
    for (std::int32_t q = end; q < width; ++q)
        row[q] = 0;
    for (std::int32_t k = count; k > 0; k = from[k]) {
        for (std::int32_t q = k - 1; q >= from[k]; --q)
            row[--end] = seq[q];
        row[--end] = 0;
    }
}

/// Per-position sums of a sequence for the team Split (count + 1 entries each; split_sums).
struct SplitSums {
    std::int64_t* load;   ///< load[k]: the demand of seq[0, k)
    std::int64_t* length; ///< length[k]: the edges seq[0] -> ... -> seq[k] (length[0] = 0)
    std::int64_t* back;   ///< back[k]: d(seq[k], 0)
};

/// Fills `sums` for seq[0, count) (count >= 1). Ends synchronised.
LOCUS_EXEC_CHECK_DISABLE
template <class Team, class Distance>
LOCUS_HD void split_sums(const Team& team, const std::int32_t* seq, std::int32_t count,
                         const Distance& d, const std::int64_t* demand, const SplitSums& sums) {
    const auto rank = static_cast<std::int32_t>(team.rank());
    const auto size = static_cast<std::int32_t>(team.size());
    for (std::int32_t k = rank; k <= count; k += size) {
        sums.load[k] = k == 0 ? 0 : demand[seq[k - 1]];
        if (k == count) continue;
        sums.length[k] = k == 0 ? 0 : d(seq[k - 1], seq[k]);
        sums.back[k] = d(seq[k], 0);
    }
    team.sync();
    gpu::scan_in_place(team, sums.load, static_cast<std::uint32_t>(count) + 1);
    gpu::scan_in_place(team, sums.length, static_cast<std::uint32_t>(count));
}

/// The team's split_routes_priced without time windows (limits.windows inactive), over the
/// sums of seq (split_sums): the same division (label, from and the routes). From one route
/// start s after the other, the team prices the routes [s, k] for every end k at once (a
/// route's load, duration and length from the sums in O(1)); one barrier per reached start.
/// Returns the routes (or -1) on every rank; starts with a barrier (the ranks may still read
/// the last division's labels) and ends synchronised.
LOCUS_EXEC_CHECK_DISABLE
template <class Team, class Distance>
LOCUS_HD std::int32_t split_routes_priced(const Team& team, const std::int32_t* seq,
                                          std::int32_t count, const Distance& d,
                                          const SplitLimits& limits, const SplitSums& sums,
                                          std::int64_t route_cost, std::int64_t excess_weight,
                                          std::int64_t* label, std::int32_t* from) {
    constexpr std::int64_t kUnreached = std::int64_t{1} << 62;
    const auto rank = static_cast<std::int32_t>(team.rank());
    const auto size = static_cast<std::int32_t>(team.size());
    const std::int64_t load_cap = excess_weight > 0 ? 2 * limits.capacity : limits.capacity;
    team.sync();
    for (std::int32_t k = rank; k <= count; k += size)
        label[k] = k == 0 ? 0 : kUnreached;
    team.sync();
    for (std::int32_t s = 0; s < count; ++s) {
        const std::int64_t base = label[s]; // final: every start before s has been priced
        if (base >= kUnreached) continue;   // the same on every rank
        // A route [s, k] travels d(0, seq[s]) + length[k] - length[s], serves k - s + 1.
        const std::int64_t lead = d(0, seq[s]) - sums.length[s];
        for (std::int32_t k = s + rank; k < count; k += size) {
            const std::int64_t l = sums.load[k + 1] - sums.load[s];
            if (l > load_cap) break; // loads and durations only grow with k
            const std::int64_t served = limits.service * (k - s + 1);
            const std::int64_t t = lead + sums.length[k] + served;
            if (t > limits.max_duration) break;
            const std::int64_t route_duration = t + sums.back[k];
            if (route_duration > limits.max_duration) continue;
            const std::int64_t cost = route_duration - served +
                                      split_excess_cost(l, limits.capacity, excess_weight) +
                                      route_cost;
            if (base + cost < label[k + 1]) { // each end is one rank's in this round
                label[k + 1] = base + cost;
                from[k + 1] = s;
            }
        }
        team.sync();
    }
    std::int32_t routes = 0;
    if (team.rank() == 0) {
        if (label[count] >= kUnreached) {
            routes = -1;
        } else {
            for (std::int32_t k = count; k > 0; k = from[k])
                ++routes;
        }
    }
    return team.sum(routes);
}

/// The team's split_routes (no time windows) over the sums of seq.
LOCUS_EXEC_CHECK_DISABLE
template <class Team, class Distance>
LOCUS_HD std::int32_t split_routes(const Team& team, const std::int32_t* seq, std::int32_t count,
                                   const Distance& d, const SplitLimits& limits,
                                   const SplitSums& sums, std::int64_t* label, std::int32_t* from) {
    return split_routes_priced(team, seq, count, d, limits, sums, 0, 0, label, from);
}

/// The team's split_routes_within (no time windows) over the sums of seq.
LOCUS_EXEC_CHECK_DISABLE
template <class Team, class Distance>
LOCUS_HD std::int32_t split_routes_within(const Team& team, const std::int32_t* seq,
                                          std::int32_t count, const Distance& d,
                                          const SplitLimits& limits, const SplitSums& sums,
                                          std::int32_t vehicles, std::int64_t excess_weight,
                                          std::int64_t* label, std::int32_t* from) {
    return split_within_fleet(
        [&](std::int64_t price) {
            return split_routes_priced(team, seq, count, d, limits, sums, price, excess_weight,
                                       label, from);
        },
        label, count, vehicles);
}

/// The team's write_split: the same row. `bounds` (routes + 1 entries) is scratch: the routes'
/// first positions in seq. Ends synchronised.
LOCUS_EXEC_CHECK_DISABLE
template <class Team>
LOCUS_HD void write_split(const Team& team, const std::int32_t* seq, std::int32_t count,
                          const std::int32_t* from, std::int32_t routes, std::int32_t* row,
                          std::int32_t width, std::int32_t* bounds) {
    const auto rank = static_cast<std::int32_t>(team.rank());
    const auto size = static_cast<std::int32_t>(team.size());
    if (rank == 0) {
        std::int32_t r = routes;
        bounds[r] = count;
        for (std::int32_t k = count; k > 0; k = from[k])
            bounds[--r] = from[k];
    }
    team.sync();
    // Route i: its marker at bounds[i] + i (one marker before each earlier route), then its
    // customers.
    for (std::int32_t i = rank; i < routes; i += size) {
        std::int32_t q = bounds[i] + i;
        row[q++] = 0;
        for (std::int32_t t = bounds[i]; t < bounds[i + 1]; ++t)
            row[q++] = seq[t];
    }
    for (std::int32_t q = count + routes + rank; q < width; q += size)
        row[q] = 0;
    team.sync();
}

} // namespace locus::routing
