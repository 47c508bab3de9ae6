#pragma once
/// \file
/// The objective and the penalising hooks of the DCVRP route chains (chain_engine.hpp,
/// Penalising), as a base of RouteChainPolicy (CRTP): chain objectives of rows and of chain
/// workspaces, the adaptive penalty weights (the rule of Vidal 2022) and the repair descent of an
/// infeasible result. Policy provides the instance and workspace (view(c), width(), tally,
/// weights, the limits and the initial weights), penalty(l, t, tw, wl, wd) and chain_value.

#include <cstdint>

#include "locus/hd.hpp"
#include "locus/routing/time_window_resource.hpp"

namespace locus::dcvrp {

/// The objective and penalising hooks of a route-chain policy `Policy` deriving from it.
template <class Policy> struct RoutePenaltyHooks {
    LOCUS_HD_INLINE const Policy& self() const { return static_cast<const Policy&>(*this); }

    /// One route of `row` read from position `first` (its position q is row[(first + q) mod w],
    /// q = w the closing depot): from position m, taken as the depot, to the next marker,
    /// whose position it returns. Calls visit(load, duration, time warp) there and adds the
    /// route's edges to `cost`.
    template <class F>
    LOCUS_HD std::int32_t walk_route(const std::int32_t* row, std::int32_t first, std::int32_t m,
                                     F&& visit, std::int64_t& cost) const {
        const Policy& p = self();
        const std::int32_t w = p.width();
        const bool windowed = p.windows.active();
        std::int64_t l = 0;
        std::int64_t t = 0;
        std::int32_t last = 0;
        routing::FixedWindowPiece piece;
        if (windowed) piece = p.windows.leaf(0);
        for (std::int32_t q = m + 1; q <= w; ++q) {
            const std::int32_t node = q < w ? row[first + q < w ? first + q : first + q - w] : 0;
            const std::int64_t edge = p.dist(last, node);
            cost += edge;
            t += edge;
            if (windowed) piece = p.windows.extend(piece, node, edge);
            if (node == 0) {
                visit(l, t, windowed ? piece.time_warp : std::int64_t{0});
                return q;
            }
            l += p.demand[node];
            t += p.service;
            last = node;
        }
        return w; // not reached: position w is the closing depot
    }

    /// The position of the row's first marker (width() when it has none).
    LOCUS_HD_INLINE std::int32_t first_marker(const std::int32_t* row) const {
        const std::int32_t w = self().width();
        std::int32_t first = 0;
        while (first < w && row[first] != 0)
            ++first;
        return first;
    }

    /// Routes of `row` in row order (serial): calls visit(load, duration, time warp) for every
    /// route (the empty ones too) and returns the row's cost.
    template <class F> LOCUS_HD std::int64_t scan_routes(const std::int32_t* row, F&& visit) const {
        const std::int32_t w = self().width();
        const std::int32_t first = first_marker(row);
        std::int64_t cost = 0;
        for (std::int32_t m = 0; m < w;)
            m = walk_route(row, first, m, visit, cost);
        return cost;
    }

    /// The routes of `row` shared over a team: each rank calls visit(load, duration, time
    /// warp) for the routes whose opening marker is at one of its positions (rank, rank +
    /// size, ... of the row read from its first marker), with scan_routes' figures; together
    /// the ranks visit every route once. A row without a marker is the leader's (scan_routes).
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team, class F>
    LOCUS_HD void scan_routes(const Team& team, const std::int32_t* row, F&& visit) const {
        const std::int32_t w = self().width();
        const std::int32_t first = first_marker(row);
        if (first == w) {
            if (team.rank() == 0) scan_routes(row, visit);
            return;
        }
        std::int64_t edges = 0; // the team sums the edges apart
        for (std::int32_t m = static_cast<std::int32_t>(team.rank()); m < w;
             m += static_cast<std::int32_t>(team.size()))
            if (row[first + m < w ? first + m : first + m - w] == 0)
                walk_route(row, first, m, visit, edges);
    }

    /// Chain objective of the row (chain_value: the cost when feasible). The team sums the
    /// edges and shares the routes' scan for the limits.
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD std::int64_t evaluate(const Team& team, std::uint32_t, const std::int32_t* row) const {
        const Policy& p = self();
        const std::int32_t w = p.width();
        std::int64_t sum = 0;
        for (std::int32_t k = static_cast<std::int32_t>(team.rank()); k < w;
             k += static_cast<std::int32_t>(team.size()))
            sum += p.dist(row[k], row[k + 1 == w ? 0 : k + 1]);
        sum = team.sum(sum);
        std::int64_t excess = 0; // the rank's routes' penalty under the initial weights
        std::int64_t over = 0;   // the rank's routes over a limit
        scan_routes(team, row, [&](std::int64_t l, std::int64_t t, std::int64_t tw) {
            excess += p.penalty(l, t, tw, p.load_weight, p.duration_weight);
            over += (l > p.capacity || t > p.max_duration || tw > 0) ? 1 : 0;
        });
        over = team.sum(over);
        excess = team.sum(excess);
        return Policy::chain_value(sum, over == 0, excess);
    }

    /// The descent objective of the row under chain c's current weights (cost + penalties):
    /// what the deltas of a penalised descent add up to (check_moves). Leader's scan.
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD std::int64_t descent_evaluate(const Team& team, std::uint32_t c,
                                           const std::int32_t* row) const {
        const Policy& p = self();
        std::int64_t value = 0;
        if (team.rank() == 0) {
            const typename Policy::View v = p.view(c);
            std::int64_t terms = 0;
            const std::int64_t cost =
                scan_routes(row, [&](std::int64_t l, std::int64_t t, std::int64_t tw) {
                    terms += v.term(l, t, tw);
                });
            value = cost + terms;
        }
        return team.sum(value);
    }

    /// Sums over chain c's routes from its workspace: cost, penalty under the current weights,
    /// penalty under the initial weights, routes over the capacity, routes over the duration or
    /// with time warp.
    struct RouteSums {
        std::int64_t cost = 0;
        std::int64_t penalty = 0;
        std::int64_t initial = 0;
        std::int64_t over_load = 0;
        std::int64_t over_duration = 0;
    };
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team> LOCUS_HD RouteSums route_sums(const Team& team, std::uint32_t c) const {
        const Policy& p = self();
        const typename Policy::View v = p.view(c);
        RouteSums s;
        for (std::int32_t r = static_cast<std::int32_t>(team.rank()); r < p.n - 1;
             r += static_cast<std::int32_t>(team.size())) {
            s.cost += v.dur[r] - p.service * v.length(r);
            const std::int64_t tw = v.route_warp(r);
            s.penalty += v.term(v.load[r], v.dur[r], tw);
            s.initial += p.penalty(v.load[r], v.dur[r], tw, p.load_weight, p.duration_weight);
            s.over_load += v.load[r] > p.capacity ? 1 : 0;
            s.over_duration += (v.dur[r] > p.max_duration || tw > 0) ? 1 : 0;
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
    /// duration limit (and the time windows, under the duration's tally and weight) and adapts
    /// the weights every adapt_every descents (x 1.2 below the target share of feasible
    /// descents, x 0.85 above it down to the floors, as Vidal 2022 does); with penalties and
    /// an infeasible solution the weights are multiplied by repair_boost and true is returned:
    /// the engine then runs a repair descent and calls end_repair. Ends synchronised.
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team> LOCUS_HD bool needs_repair(const Team& team, std::uint32_t c) const {
        const Policy& p = self();
        if (p.penalties == 0) return false;
        const RouteSums s = route_sums(team, c);
        if (team.rank() == 0) {
            std::int32_t* t = p.tally + 4 * c;
            std::int64_t* wgt = p.weights + 2 * c;
            ++t[0];
            t[1] += s.over_load == 0 ? 1 : 0;
            t[2] += s.over_duration == 0 ? 1 : 0;
            if (t[0] >= p.adapt_every) {
                const auto adapt = [&](std::int64_t& weight, std::int32_t feasible,
                                       std::int64_t floor, std::int64_t cap) {
                    const std::int64_t share = 1000 * static_cast<std::int64_t>(feasible) / t[0];
                    if (share < p.target_feasible - 50) {
                        weight = weight + weight / 5 + 1 < cap ? weight + weight / 5 + 1 : cap;
                    } else if (share > p.target_feasible + 50) {
                        const std::int64_t lower = weight - (weight * 3) / 20;
                        weight = lower > floor ? lower : floor;
                    }
                };
                adapt(wgt[0], t[1], p.min_load_weight, Policy::kMaxLoadWeight);
                adapt(wgt[1], t[2], p.min_duration_weight, Policy::kMaxDurationWeight);
                t[0] = t[1] = t[2] = 0;
            }
        }
        const bool repair = (s.over_load + s.over_duration) > 0 && p.repair_boost > 1;
        if (team.rank() == 0 && repair) p.tally[4 * c + 3] = p.repair_boost;
        team.sync();
        return repair;
    }

    /// Leader: the customers of chain c's routes over a limit, where a repair starts.
    LOCUS_HD std::int32_t repair_focus(std::uint32_t c, std::int32_t* out) const {
        const Policy& p = self();
        const typename Policy::View v = p.view(c);
        std::int32_t count = 0;
        for (std::int32_t r = 0; r < p.n - 1; ++r) {
            if (v.load[r] <= p.capacity && v.dur[r] <= p.max_duration && v.route_warp(r) == 0)
                continue;
            for (std::int32_t q = v.route_begin[r] + 1; q < v.route_end[r]; ++q)
                out[count++] = v.lin[q];
        }
        return count;
    }

    /// After the repair descent: the weights back to the chain's own. Ends synchronised.
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team> LOCUS_HD void end_repair(const Team& team, std::uint32_t c) const {
        const Policy& p = self();
        if (team.rank() == 0) p.tally[4 * c + 3] = 1;
        team.sync();
    }

    /// The chain objective of chain c's solution from its workspace (chain_value).
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team> LOCUS_HD std::int64_t settle(const Team& team, std::uint32_t c) const {
        const RouteSums s = route_sums(team, c);
        return Policy::chain_value(s.cost, s.over_load + s.over_duration == 0, s.initial);
    }
};

} // namespace locus::dcvrp
