#pragma once
/// \file
/// Construction heuristics of the DCVRP, as route lists (encode them with encode_routes).
///
/// Every construction respects the capacity and the maximum duration (each customer alone is
/// feasible by the instance invariants) and, where it can, the vehicle limit K (vehicles > 0).
/// When a construction cannot stay within K it still returns routes that respect capacity and
/// duration; the construction components then fit them into K routes with fit_fleet (over the
/// limits if need be, for a penalised search to repair). Distances are read through
/// Instance::distance only; savings on candidate lists, sweep and space_filling_curve scale to
/// 100,000 customers and read the stop flag every few thousand steps (throw_if_stopped: Stopped
/// ends them when a run's time limit passes).

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "locus/dcvrp/giant_tour.hpp"
#include "locus/dcvrp/instance.hpp"

namespace locus::dcvrp {

/// The VRPTW insertion construction: customers by earliest deadline (then earliest start, then
/// index), each inserted where it adds the least distance among the places that keep every
/// window of its route (leaving the depot at its earliest time, waiting where early), the
/// capacity and the duration limit (ties: lowest route, then place); a new route when none
/// fits, so the routes are always feasible but may number more than a vehicle limit (verify
/// reports that; fit_fleet would break windows). O(n (n + R)) time with O(1) checks from the
/// routes' time-window pieces (routing/time_window_route.hpp). Throws ConfigError
/// "time_window_insertion needs an instance with time windows; <name> has none (...)".
Routes time_window_insertion(const Instance& instance);

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

/// Fits `routes` into a fleet of `vehicles` (> 0) routes when it has more: the routes of least
/// load are dissolved one by one, each of their customers (in route order) inserted where the
/// capacity and duration excess of the receiving route grows least, then where it adds the
/// least distance (ties: lowest route, then position) — over the capacity or the duration
/// limit when no route can take it within them. The result has exactly `vehicles` routes and
/// may be infeasible: a search with penalised limits (the route chains' `penalties`) repairs
/// it, and never opens a route. Deterministic; O(n^2) per dissolved route at most.
void fit_fleet(const Instance& instance, Routes& routes, std::int32_t vehicles);

/// The savings construction pairs each customer with this many nearest customers when its
/// `candidates` is 0 and the instance has more than kSavingsAllPairsCustomers customers.
inline constexpr std::int32_t kSavingsDefaultCandidates = 50;

/// Up to this many customers, savings with `candidates` = 0 considers every pair.
inline constexpr std::int32_t kSavingsAllPairsCustomers = 1000;

/// The nearest customers per customer that savings uses for `candidates`: 0 for all pairs
/// (`candidates` = 0 on at most kSavingsAllPairsCustomers customers), else `candidates` (or
/// kSavingsDefaultCandidates when 0), at most customers - 1.
std::int32_t savings_candidates(const Instance& instance, std::int32_t candidates);

/// Clarke & Wright parallel savings: start from one route per customer; for the pairs (i, j)
/// by decreasing saving d(0,i) + d(0,j) - shape * d(i,j) (ties: lowest i, then j), join the
/// route ending at i and the route starting at j (reversing routes as needed) when i and j
/// are ends of different routes and the joined route is within capacity and duration (with
/// time windows: routes are not reversed, i's route is followed by j's or j's by i's, and the
/// joined route keeps every window, priced from the routes' time-window pieces in O(1)); only
/// positive savings are used. With vehicles > 0 and more routes than that, the remaining
/// pairs (non-positive savings included) are then joined in the same order until the routes
/// fit in the fleet or no join is feasible. Deterministic.
///
/// The pairs are every pair of customers (O(n^2 log n) time, O(n^2) memory) or, when
/// savings_candidates(instance, candidates) = k > 0, the pairs (i, j) where j is one of the k
/// nearest customers of i or i one of j's (nearest_customers), each once: O(n k log(n k)) time
/// besides the candidate lists and the joins (O(route length) each), O(n k) memory. A pair
/// list without every pair can leave more routes than `vehicles` where all pairs would not;
/// verify then reports the fleet, as for any construction that cannot meet it.
Routes savings(const Instance& instance, std::int32_t vehicles, double shape = 1.0,
               std::int32_t candidates = 0);

/// Where sweep and space_filling_curve start their order of the customers.
enum class OrderStart {
    random, ///< at a point drawn from the key (a different giant tour per solution)
    zero,   ///< at angle 0 (sweep) or at the start of the curve (deterministic)
};

/// The customers by polar angle around the depot, counterclockwise in [0, 2 pi) from the x
/// axis (atan2 of the coordinates relative to the depot; ties: distance from the depot, then
/// index), rotated to start at the first angle at or after the start angle: 0, or drawn
/// uniformly from Rng(key, 0). Throws ConfigError when the instance has no coordinates
/// (require_coordinates). O(n log n).
std::vector<std::int32_t> sweep_order(const Instance& instance, OrderStart start,
                                      std::uint64_t key);

/// The customers along a Hilbert curve of order 16 per axis over the square that holds the
/// bounding box of every node's coordinates (ties: index), rotated to start at the curve's
/// first customer or at one drawn from Rng(key, 0). Throws ConfigError when the instance has no
/// coordinates (require_coordinates). O(n log n).
std::vector<std::int32_t> curve_order(const Instance& instance, OrderStart start,
                                      std::uint64_t key);

/// Throws ConfigError "<construction>: ..." naming savings as the alternative when the
/// instance has no coordinates (EXPLICIT edge weights without them).
void require_coordinates(const Instance& instance, std::string_view construction);

/// The optimal division of `order` (customers, each once), kept in its order, into consecutive
/// routes within capacity and duration (routing::split_routes in fixed point: scale 1 when the
/// distances and the service time are integral, else 10^6 with every term rounded and the
/// duration limit lowered by n units, so a route feasible in fixed point is feasible in the
/// instance's doubles). Every route is checked again with route_figures and within_duration;
/// one that fails (or the whole order, when the fixed-point split finds no division) is cut
/// greedily instead: customers in order, a new route when the next one does not fit.
/// O(n C) for C the most consecutive customers of `order` within capacity.
Routes split_order(const Instance& instance, std::span<const std::int32_t> order);

/// 2-opt inside every route: reversals of route[i, j) (the depot at both ends) with j - i at
/// most `window`, taken when they shorten the route, in passes over the route until none
/// does. Loads are unchanged and lengths only decrease, so every route stays within capacity
/// and duration. O(passes x customers x window).
void two_opt_routes(const Instance& instance, Routes& routes, std::int32_t window);

/// Sweep: split_order(sweep_order(...)). O(n log n + n C).
Routes sweep(const Instance& instance, OrderStart start, std::uint64_t key);

/// Space-filling-curve construction: split_order(curve_order(...)).
/// O(n log n + n C).
Routes space_filling_curve(const Instance& instance, OrderStart start, std::uint64_t key);

} // namespace locus::dcvrp
