#pragma once
/// \file
/// The solution encoding (Schulz 2013, §4.2): a giant tour, i.e. the customers of every route
/// in visiting order with depot copies as route delimiters, stored as a fixed-width row of
/// int32 that a SolutionBatch holds.
///
/// Encoding of an instance with n nodes (n - 1 customers): width W = 2 (n - 1); the row holds
/// every customer 1..n-1 exactly once and W - (n - 1) = n - 1 depot markers (kDepot = 0). It is
/// read as a cycle: each depot marker starts a route, which holds the customers up to the next
/// marker (wrapping around the end of the row). Consecutive markers are empty routes, which
/// cost nothing. The cost is the length of the closed cycle,
///     sum_{i < W} d(t[i], t[(i + 1) mod W]),
/// i.e. the sum of the route lengths depot -> customers -> depot. The canonical form, which the
/// constructions and the .sol reader produce, starts with a marker and puts the unused markers
/// at the end: [0, r1..., 0, r2..., 0, 0, ..., 0].
///
/// NOTE: there is room for n - 1 routes whatever the fleet, so that solutions over a vehicle
/// limit K (one route per customer, a construction that cannot meet K, the intermediate states
/// of a search with a fleet penalty as in Schulz §4.1) can be held and reported by verify. A
/// neighborhood that wants a shorter row for K << n can drop markers beyond what it needs.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "locus/dcvrp/instance.hpp"

namespace locus::dcvrp {

/// Routes as customer lists (node indices 1..n-1, depot omitted), in visiting order.
using Routes = std::vector<std::vector<std::int32_t>>;

/// Width of the encoding for n nodes: 2 (n - 1).
std::size_t giant_tour_width(std::int32_t n);

/// Why `tour` is not an encoding for n nodes, or nullopt when it is one. Messages:
/// "expected <W> entries, found <k>", "entry <i> = <v> is out of range 0..<n-1>", "customer
/// <c> appears twice (entries <i> and <j>)", "customer <c> is not visited (<k> customers
/// missing)" (0-based entries).
std::optional<std::string> check_giant_tour(std::span<const std::int32_t> tour, std::int32_t n);

/// The non-empty routes of an encoding, in cyclic order from its first depot marker.
/// Precondition: check_giant_tour(tour, n) is nullopt.
Routes split_routes(std::span<const std::int32_t> tour);

/// Writes the canonical encoding of `routes` (empty routes skipped) into `out`.
/// Precondition: the routes hold every customer 1..n-1 exactly once and out.size() =
/// giant_tour_width(n).
void encode_routes(const Routes& routes, std::span<std::int32_t> out);

/// The canonical encoding of `routes` for n nodes (same precondition).
std::vector<std::int32_t> encode_routes(const Routes& routes, std::int32_t n);

/// The cost of an encoding: sum_{i < W} d(t[i], t[(i + 1) mod W]), summed in this order (so
/// that every caller gets the same double); with distances in tenths (Rounding::tenths) summed
/// as whole tenths, so that the cost is the double nearest its decimal value (42444.8, not
/// 42444.799999999916). Precondition: entries in 0..n-1.
double giant_tour_cost(const Instance& instance, std::span<const std::int32_t> tour);

/// Load, travel distance and customer count of one route.
struct RouteFigures {
    std::int64_t load = 0;
    double travel = 0.0; ///< depot -> customers -> depot
    std::int32_t customers = 0;
    /// travel + service time of every customer
    double duration(const Instance& instance) const {
        return travel + instance.service_time * static_cast<double>(customers);
    }
};

/// The figures of a route (customers 1..n-1, depot omitted).
RouteFigures route_figures(const Instance& instance, std::span<const std::int32_t> route);

/// Why `routes` violate a constraint, or nullopt when they respect all of them. Checked in
/// this order: each route's load <= CAPACITY ("route <k> carries <load>, more than CAPACITY
/// <q>"), each route's duration within DISTANCE ("route <k> takes <duration> (travel <t> +
/// service <s>), more than DISTANCE <l>"), with time windows each route leaving the depot at
/// its earliest time and waiting where early: every service started by its customer's latest
/// time ("route <k> starts serving customer node <id> at <t>, after its latest time <l>"; <id> the
/// file's node id) and the
/// return by the depot's ("route <k> returns to the depot at <t>, after its latest time <l>"),
/// and the number of non-empty routes <= vehicles
/// when vehicles > 0 ("<r> routes, more than the <K> vehicles"). Routes are numbered from 1
/// among the non-empty ones, as in the .sol file.
std::optional<std::string> check_routes(const Instance& instance, const Routes& routes,
                                        std::int32_t vehicles);

} // namespace locus::dcvrp
