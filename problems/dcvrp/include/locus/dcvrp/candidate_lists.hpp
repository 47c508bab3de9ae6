#pragma once
/// \file
/// Granular candidate lists of the DCVRP: each node's k nearest customers, or with time windows
/// its k closest customers by a proximity that also counts waiting and lateness.

#include <cstdint>
#include <vector>

#include "locus/dcvrp/instance.hpp"

namespace locus::dcvrp {

/// The `k` nearest customers of every node (n x k ids, row-major; by distance, ties by id;
/// k <= customers - 1). Instances with coordinates: a 2-d tree (locus/kd_tree.hpp), O(n k log n)
/// time and O(n k) memory; explicit weights: a partial sort of every row, O(n^2 log k).
/// Throws Stopped when a run's limit or a signal ends the computation.
std::vector<std::int32_t> nearest_customers(const Instance& instance, std::int32_t k);

/// The same by scanning every pair (the definition; the tests compare the tree against it).
std::vector<std::int32_t> nearest_customers_by_scan(const Instance& instance, std::int32_t k);

/// Weights of the time-window proximity (Vidal, Crainic, Gendreau & Prins 2013, "A hybrid genetic
/// algorithm with adaptive diversity management for a large class of vehicle routing problems
/// with time-windows", the correlation measure of their granular neighbourhoods; their
/// weights, 0.2 and 1).
struct WindowProximity {
    double wait = 0.2; ///< per unit of the least waiting when j follows i
    double warp = 1.0; ///< per unit of the least time warp when j follows i
};

/// Time-window proximity of j following i: d(i, j) + wait x max(e_j - l_i - s - d(i, j), 0) +
/// warp x max(e_i + s + d(i, j) - l_j, 0): the distance, the waiting of a vehicle that leaves
/// i as late as it can, and the lateness of one that leaves it as early as it can (e, l: the
/// ready and due times; s: the service time). Precondition: the instance has time windows.
double window_proximity(const Instance& instance, std::int32_t i, std::int32_t j,
                        const WindowProximity& weights = {});

/// Every node's k closest customers by the symmetric time-window proximity min(γ(u, v), γ(v, u))
/// (ties by id; n x k ids, row-major, as nearest_customers): the candidates of the route
/// neighbourhoods, where u goes after or before v. Instances without windows: nearest_customers.
/// A scan of every pair, O(n^2 log k). Throws Stopped when a run's limit or a signal ends it.
std::vector<std::int32_t> candidate_customers(const Instance& instance, std::int32_t k,
                                              const WindowProximity& weights = {});

} // namespace locus::dcvrp
