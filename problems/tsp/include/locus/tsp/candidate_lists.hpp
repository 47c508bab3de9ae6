#pragma once
/// \file
/// Candidate lists of a TSP instance: k other cities per city, ordered by (distance, index).
/// With quadrant lists (Johnson & McGeoch) the k/4 nearest cities of each of the four
/// quadrants around a city come first and its nearest other cities fill the rest.

#include <cstdint>
#include <vector>

#include "locus/tsp/instance.hpp"

namespace locus::tsp {

/// How a TSP component's candidate lists are chosen: the k nearest cities, quadrant lists
/// (below) or alpha-nearness (locus/tsp/alpha_nearness.hpp).
enum class CandidateKind : std::uint8_t { nearest, quadrant, alpha };

/// The lists (row-major n x k). Planar instances (EUC_2D, CEIL_2D, ATT), whose distance never
/// decreases with the Euclidean distance of the coordinates, are searched in a k-d tree in
/// O(n k log n); GEO and EXPLICIT instances by comparing every pair. Both give the same lists.
/// `quadrant` uses quadrant lists when the instance has coordinates. Precondition:
/// 1 <= k <= n - 1.
std::vector<std::int32_t> candidate_lists(const Instance& instance, std::int32_t k,
                                          bool quadrant);

/// The same lists by comparing every pair, O(n^2 log n): the reference of the tests.
std::vector<std::int32_t> candidate_lists_all_pairs(const Instance& instance, std::int32_t k,
                                                    bool quadrant);

} // namespace locus::tsp
