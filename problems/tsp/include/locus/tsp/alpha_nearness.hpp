#pragma once
/// \file
/// Alpha-nearness candidate lists (Helsgaun, "An effective implementation of the Lin-Kernighan
/// traveling salesman heuristic", EJOR 126, 2000, sections 4.1-4.2). The alpha-value of an edge
/// (i, j) is how much longer a minimum spanning tree becomes when it must contain (i, j):
/// w(i, j) minus the heaviest edge on the tree's path from i to j (0 for tree edges). It is
/// computed under node penalties pi from a subgradient ascent on the 1-tree bound of Held and
/// Karp (weights w(i, j) = d(i, j) + pi_i + pi_j), which makes the tree more tour-like: edges
/// of optimal tours then rank near the top of the lists even where the nearest cities lie
/// elsewhere (cities on lines, clusters).
///
/// Everything here runs over a sparse graph: each city's `pool` quadrant candidates, made
/// symmetric, so the ascent and the lists cost O(n pool log n) per tree instead of O(n^2).

#include <cstdint>
#include <vector>

#include "locus/tsp/instance.hpp"

namespace locus::tsp {

struct AlphaOptions {
    /// Quadrant candidates per city in the sparse graph (clamped to n - 1; at least k).
    std::int32_t pool = 20;
    /// Most subgradient iterations (0: none, pi = 0: the plain minimum spanning tree).
    std::int32_t ascent = 200;
    /// Lists: the k/4 lowest alpha-values of each quadrant around a city first (instances with
    /// coordinates), the rest by alpha-value.
    bool quadrant = true;
};

/// The sparse graph, the penalties and the alpha-value of every edge of the graph.
struct AlphaNearness {
    std::vector<std::int64_t> offsets;  ///< n + 1: CSR row starts
    std::vector<std::int32_t> adjacent; ///< neighbours of each city, ascending
    std::vector<double> alpha;          ///< alpha-value of each (city, neighbour) entry
    std::vector<double> pi;             ///< node penalties of the best bound found
    double bound = 0.0;    ///< the best 1-tree lower bound: L(T_pi) - 2 sum pi
    std::int32_t iterations = 0; ///< subgradient iterations run
    bool tour = false;     ///< the best 1-tree was a tour (every degree 2): the bound is optimal
};

/// The sparse graph of `instance` (pool quadrant candidates, symmetric), the ascent and the
/// alpha-values. Throws InstanceError when the graph is disconnected and n > 50,000 (smaller
/// instances then add the edges of a spanning tree of the complete graph).
AlphaNearness alpha_nearness(const Instance& instance, const AlphaOptions& options);

/// Candidate lists of k cities per city (row-major n x k) by ascending alpha-value, ties by
/// distance, then index. Precondition: 1 <= k <= n - 1.
std::vector<std::int32_t> alpha_candidate_lists(const Instance& instance, std::int32_t k,
                                                const AlphaOptions& options);

/// Reference for the tests: the alpha-values of all pairs (n x n, row-major) of the complete
/// graph with the given penalties, from its minimum spanning tree (Prim, O(n^2)) and the
/// heaviest tree edge between every pair.
std::vector<double> alpha_all_pairs(const Instance& instance, const std::vector<double>& pi);

} // namespace locus::tsp
