#pragma once
/// \file
/// Independence of TSP 2-opt moves for the parallel descent of Riise and Burke (paper 002,
/// sec. 5.3): two 2-opt moves (edges (i, i+1) and (j, j+1), i < j, positions of the tour before
/// the moves) are dependent if and only if their edge pairs interleave (i < k < j < l or
/// k < i < l < j) or share an edge; nested and disjoint moves are independent, so their gains
/// add up (symmetric distances) and they can be applied together.

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "locus/hd.hpp"
#include "locus/tsp/moves.hpp"

namespace locus::tsp {

/// Paper 002's dependency rule for two 2-opt moves.
LOCUS_HD_INLINE bool two_opt_conflict(const TourMove& a, const TourMove& b) {
    const std::int32_t i = a.i, j = a.j, k = b.i, l = b.j;
    return (i < k && k < j && j < l) || (k < i && i < l && l < j) || k == j || k == i ||
           l == i || l == j;
}

/// Applies pairwise non-conflicting 2-opt moves (valid, i < j) together: each reverses
/// t[i+1 .. j] — never the complement, which would move other moves' positions — shortest
/// first, so that a nested move is applied while its positions still hold its segment.
template <class T> void apply_independent_two_opt(std::span<T> tour, std::vector<TourMove> moves) {
    std::stable_sort(moves.begin(), moves.end(), [](const TourMove& a, const TourMove& b) {
        return a.j - a.i < b.j - b.i;
    });
    const auto n = static_cast<std::int32_t>(tour.size());
    for (const TourMove& m : moves)
        reverse_range(tour.data(), n, m.i + 1, m.j - m.i);
}

} // namespace locus::tsp
