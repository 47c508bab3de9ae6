#pragma once
// Internal: the 2-d tree (locus/kd_tree.hpp) for the TSP's candidate lists and nearest-neighbor
// tours, and the test that an instance's distance follows the planar Euclidean one.

#include <cmath>

#include "locus/kd_tree.hpp"
#include "locus/tsp/instance.hpp"

namespace locus::tsp::detail {

using locus::KdTree;
using locus::quadrant_of;

/// Whether the instance's distance never decreases as the Euclidean distance of the
/// coordinates grows, and the factor s such that distance <= D implies Euclidean <= s (D + 1).
inline bool planar(const Instance& instance, double& scale) {
    switch (instance.type) {
    case EdgeWeightType::euc_2d:
    case EdgeWeightType::ceil_2d: scale = 1.0; return !instance.x.empty();
    case EdgeWeightType::att: scale = std::sqrt(10.0); return !instance.x.empty();
    default: return false;
    }
}

} // namespace locus::tsp::detail
