#pragma once
/// \file
/// Granular candidate lists of the DCVRP: each node's k nearest customers.

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

} // namespace locus::dcvrp
