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

#include "locus/gpu/independent_moves.hpp"
#include "locus/hd.hpp"
#include "locus/tsp/moves.hpp"

namespace locus::tsp {

/// Paper 002's dependency rule for two 2-opt moves.
LOCUS_HD_INLINE bool two_opt_conflict(const TourMove& a, const TourMove& b) {
    const std::int32_t i = a.i, j = a.j, k = b.i, l = b.j;
    return (i < k && k < j && j < l) || (k < i && i < l && l < j) || k == j || k == i ||
           l == i || l == j;
}

/// Paper 002's dependency rule for two relocations (Or-opt moves of one city: Rel(i, p) moves
/// t[i] to after t[p]), with cyclic position distances since tours are cycles: dependent when
/// the moved cities are neighbours, one is moved next to the other's position, or both go
/// after the same city.
LOCUS_HD_INLINE bool relocate_conflict(const TourMove& a, const TourMove& b, std::int32_t n) {
    const auto near = [n](std::int32_t x, std::int32_t y) {
        const std::int32_t gap = x > y ? x - y : y - x;
        return gap <= 1 || n - gap <= 1;
    };
    return near(a.i, b.i) || near(a.i, b.p) || near(b.i, a.p) || a.p == b.p;
}

/// Dependency of two swaps of the cities at positions (i, j): a swap changes the four edges at
/// its two positions, so two swaps are independent when no position of one is a position of the
/// other or next to one (cyclic distances).
LOCUS_HD_INLINE bool swap_conflict(const TourMove& a, const TourMove& b, std::int32_t n) {
    const auto near = [n](std::int32_t x, std::int32_t y) {
        const std::int32_t gap = x > y ? x - y : y - x;
        return gap <= 1 || n - gap <= 1;
    };
    return near(a.i, b.i) || near(a.i, b.j) || near(a.j, b.i) || near(a.j, b.j);
}

/// Applies pairwise non-conflicting relocations of one city together: every moved city is
/// unlinked from its neighbours, then linked in after its target city (neither moved nor the
/// target of another move, by the rule). The result starts at the first city that stays.
template <class T> void apply_independent_relocations(std::span<T> tour,
                                                      const std::vector<TourMove>& moves) {
    const auto n = static_cast<std::int32_t>(tour.size());
    std::vector<T> next(tour.size());
    std::vector<T> prev(tour.size());
    std::vector<std::uint8_t> moved(tour.size(), 0);
    for (std::int32_t q = 0; q < n; ++q) {
        const T city = tour[static_cast<std::size_t>(q)];
        next[static_cast<std::size_t>(city)] = tour[static_cast<std::size_t>(wrap(q + 1, n))];
        prev[static_cast<std::size_t>(city)] = tour[static_cast<std::size_t>(wrap(q - 1, n))];
    }
    for (const TourMove& m : moves) {
        const T city = tour[static_cast<std::size_t>(m.i)];
        moved[static_cast<std::size_t>(city)] = 1;
        next[static_cast<std::size_t>(prev[static_cast<std::size_t>(city)])] =
            next[static_cast<std::size_t>(city)];
        prev[static_cast<std::size_t>(next[static_cast<std::size_t>(city)])] =
            prev[static_cast<std::size_t>(city)];
    }
    for (const TourMove& m : moves) {
        const T city = tour[static_cast<std::size_t>(m.i)];
        const T after = tour[static_cast<std::size_t>(m.p)];
        const T before = next[static_cast<std::size_t>(after)];
        next[static_cast<std::size_t>(after)] = city;
        next[static_cast<std::size_t>(city)] = before;
        prev[static_cast<std::size_t>(before)] = city;
        prev[static_cast<std::size_t>(city)] = after;
    }
    std::int32_t first = 0;
    while (first < n && moved[static_cast<std::size_t>(tour[static_cast<std::size_t>(first)])])
        ++first;
    if (first == n) return;
    T city = tour[static_cast<std::size_t>(first)];
    for (std::int32_t q = 0; q < n; ++q) {
        tour[static_cast<std::size_t>(q)] = city;
        city = next[static_cast<std::size_t>(city)];
    }
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

namespace locus::tsp {

/// What a parallel descent did.
struct ParallelDescentStats {
    std::uint64_t iterations = 0; ///< full neighborhood evaluations
    std::uint64_t applied = 0;    ///< moves applied
    std::int64_t change = 0;      ///< sum of the applied moves' deltas
};

/// Paper 002's ParallelDescent over the full 2-opt neighborhood on the host (the reference of
/// the parallel search): every iteration evaluates every move with `d(a, b)` (symmetric
/// integer distances between cities), selects pairwise independent improving moves greedily by
/// gain (at most `limit`, 0: all) and applies them together, until no move improves. With
/// limit 1 it is the best-improvement descent.
template <class Distance>
ParallelDescentStats parallel_two_opt_descent(std::span<std::int32_t> tour, Distance&& d,
                                              std::size_t limit = 0) {
    const auto n = static_cast<std::int32_t>(tour.size());
    ParallelDescentStats stats;
    if (n < 4) return stats;
    std::vector<TourMove> moves;
    std::vector<std::int64_t> deltas;
    for (;;) {
        moves.clear();
        deltas.clear();
        for (std::int32_t i = 0; i < n; ++i) {
            const std::int32_t a = tour[static_cast<std::size_t>(i)];
            const std::int32_t a1 = tour[static_cast<std::size_t>(i + 1 == n ? 0 : i + 1)];
            for (std::int32_t j = i + 2; j < n; ++j) {
                if (i == 0 && j == n - 1) continue;
                const std::int32_t b = tour[static_cast<std::size_t>(j)];
                const std::int32_t b1 = tour[static_cast<std::size_t>(j + 1 == n ? 0 : j + 1)];
                const std::int64_t delta = d(a, b) + d(a1, b1) - d(a, a1) - d(b, b1);
                if (delta >= 0) continue;
                TourMove m;
                m.kind = MoveKind::two_opt;
                m.valid = true;
                m.i = i;
                m.j = j;
                moves.push_back(m);
                deltas.push_back(delta);
            }
        }
        ++stats.iterations;
        if (moves.empty()) return stats;
        const auto picked = gpu::select_independent<TourMove, std::int64_t>(
            moves, deltas, [](const TourMove& x, const TourMove& y) { return two_opt_conflict(x, y); },
            limit);
        std::vector<TourMove> chosen;
        for (const std::size_t k : picked) {
            chosen.push_back(moves[k]);
            stats.change += deltas[k];
        }
        stats.applied += chosen.size();
        apply_independent_two_opt<std::int32_t>(tour, std::move(chosen));
    }
}

} // namespace locus::tsp
