#pragma once
/// \file
/// Selection of pairwise independent improving moves, the step of the parallel descent of Riise
/// and Burke (Riise & Burke 2014, sec. 5.2): after a whole neighborhood is evaluated, a set of improving
/// moves of which no two conflict is chosen and all of them are applied at once; their gains
/// add up when the neighborhood's conflict rule is exact (two moves that do not conflict change
/// disjoint parts of the objective). The selection is greedy by gain — moves taken from the
/// most improving, each kept when it conflicts with none kept so far — as the paper found a
/// sequential selection on the host faster than one on the device (few improving moves per
/// iteration). Problem-independent: the neighborhood supplies the conflict predicate.

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <span>
#include <vector>

namespace locus::gpu {

/// Indices of a greedy set of pairwise non-conflicting moves among `moves` with `deltas`
/// (negative: improving; others are skipped): by increasing delta, ties to the lower index,
/// each move kept when conflicts(move, kept) is false for every kept one. At most `limit`
/// moves (0: no limit). The first index is the best improving move when there is one.
template <class Move, class Delta, class Conflicts>
std::vector<std::size_t> select_independent(std::span<const Move> moves,
                                            std::span<const Delta> deltas,
                                            Conflicts&& conflicts, std::size_t limit = 0) {
    std::vector<std::size_t> order;
    for (std::size_t m = 0; m < moves.size(); ++m)
        if (deltas[m] < Delta(0)) order.push_back(m);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return deltas[a] < deltas[b]; });
    std::vector<std::size_t> kept;
    for (const std::size_t m : order) {
        if (limit != 0 && kept.size() == limit) break;
        bool free = true;
        for (const std::size_t k : kept) {
            if (conflicts(moves[m], moves[k])) {
                free = false;
                break;
            }
        }
        if (free) kept.push_back(m);
    }
    return kept;
}

} // namespace locus::gpu
