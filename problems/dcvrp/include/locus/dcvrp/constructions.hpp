#pragma once
/// \file
/// Construction heuristics of the DCVRP, as route lists (encode them with encode_routes).
///
/// Every construction respects the capacity and the maximum duration (each customer alone is
/// feasible by the instance invariants) and, where it can, the vehicle limit K (vehicles > 0).
/// When a construction cannot stay within K it still returns routes that respect capacity and
/// duration, and DcvrpProblem::verify reports the excess routes.

#include <cstdint>
#include <span>
#include <vector>

#include "locus/dcvrp/giant_tour.hpp"
#include "locus/dcvrp/instance.hpp"

namespace locus::dcvrp {

/// Every customer alone on its route, in index order (n - 1 routes).
Routes one_per_customer(const Instance& instance);

/// The order in which cheapest_insertion takes the customers.
enum class InsertionOrder {
    random,   ///< a uniformly random permutation drawn from Rng(key, 0)
    index,    ///< 1, 2, ..., n-1
    farthest, ///< by decreasing distance from the depot (ties: lowest index)
};

/// The customers 1..n-1 in `order`; `key` seeds the random order only.
std::vector<std::int32_t> insertion_order(const Instance& instance, InsertionOrder order,
                                          std::uint64_t key);

/// Cheapest insertion: customers in `order`, each inserted where it adds the least distance
/// among the positions that keep its route within capacity and duration (ties: lowest route,
/// then lowest position); a new route is opened when no position fits (also beyond K, which
/// verify then reports). Deterministic for a given order. O(n^2).
Routes cheapest_insertion(const Instance& instance, std::span<const std::int32_t> order);

/// Clarke & Wright parallel savings: start from one route per customer; for the pairs (i, j)
/// by decreasing saving d(0,i) + d(0,j) - shape * d(i,j) (ties: lowest i, then j), join the
/// route ending at i and the route starting at j (reversing routes as needed) when i and j
/// are ends of different routes and the joined route is within capacity and duration; only
/// positive savings are used. With vehicles > 0 and more routes than that, the remaining
/// pairs (non-positive savings included) are then joined in the same order until the routes
/// fit in the fleet or no join is feasible. Deterministic. O(n^2 log n) time, O(n^2) memory.
Routes savings(const Instance& instance, std::int32_t vehicles, double shape = 1.0);

} // namespace locus::dcvrp
