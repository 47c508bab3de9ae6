#pragma once
/// \file
/// Independence of TSP 2-opt moves for the parallel descent of Riise & Burke (2014,
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

/// Riise & Burke's dependency rule for two 2-opt moves.
LOCUS_HD_INLINE bool two_opt_conflict(const TourMove& a, const TourMove& b) {
    const std::int32_t i = a.i, j = a.j, k = b.i, l = b.j;
    return (i < k && k < j && j < l) || (k < i && i < l && l < j) || k == j || k == i ||
           l == i || l == j;
}

/// Dependency of two Or-opt moves (segment t[i..e], e = i+L-1, moved between t[p] and t[p+1],
/// possibly reversed), generalising Riise & Burke's relocation rule to segments: dependent when they
/// remove a common edge ((i-1, i), (e, e+1), (p, p+1), by first position), their segments
/// overlap, or one is inserted next to or inside the other's segment. Otherwise every removed
/// edge of one survives the other, the cities each reconnects stay where the move expects them,
/// and the gains add up (cyclic positions). For relocations (L = 1) this calls independent every
/// pair the paper's rule does, and a few more (e.g. Rel(i, q) and Rel(k, k+1) with k = i+1...).
LOCUS_HD_INLINE bool or_opt_conflict(const TourMove& a, const TourMove& b, std::int32_t n) {
    const auto within = [n](std::int32_t x, std::int32_t first, std::int32_t length) {
        return wrap(x - first + n, n) < length; // x in the cyclic range [first, first + length)
    };
    const std::int32_t ea = wrap(a.i + a.length - 1, n);
    const std::int32_t eb = wrap(b.i + b.length - 1, n);
    const std::int32_t ra[3] = {wrap(a.i - 1, n), ea, a.p};
    const std::int32_t rb[3] = {wrap(b.i - 1, n), eb, b.p};
    for (const std::int32_t x : ra)
        for (const std::int32_t y : rb)
            if (x == y) return true;
    return within(b.i, a.i, a.length) || within(a.i, b.i, b.length) ||
           within(a.p, wrap(b.i - 1, n), b.length + 1) ||
           within(b.p, wrap(a.i - 1, n), a.length + 1);
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

/// Applies pairwise independent Or-opt moves (or_opt_conflict) together on a doubly linked
/// tour: every segment is unlinked from its neighbours, then linked in between t[p] and t[p+1]
/// (reversed where the move says so). The result starts at the first city not moved, in the
/// tour's direction.
template <class T> void apply_independent_or_opt(std::span<T> tour, std::span<const TourMove> moves) {
    const auto n = static_cast<std::int32_t>(tour.size());
    const auto at = [&](std::int32_t q) { return tour[static_cast<std::size_t>(wrap(q, n))]; };
    std::vector<T> next(tour.size());
    std::vector<T> prev(tour.size());
    std::vector<std::uint8_t> moved(tour.size(), 0);
    for (std::int32_t q = 0; q < n; ++q) {
        next[static_cast<std::size_t>(at(q))] = at(q + 1);
        prev[static_cast<std::size_t>(at(q))] = at(q - 1);
    }
    const auto link = [&](T from, T to) {
        next[static_cast<std::size_t>(from)] = to;
        prev[static_cast<std::size_t>(to)] = from;
    };
    for (const TourMove& m : moves) {
        for (std::int32_t k = 0; k < m.length; ++k)
            moved[static_cast<std::size_t>(at(m.i + k))] = 1;
        link(at(m.i - 1), at(m.i + m.length));
    }
    for (const TourMove& m : moves) {
        const T first = at(m.i);
        const T last = at(m.i + m.length - 1);
        if (m.reversed) {
            for (std::int32_t k = 0; k < m.length; ++k) {
                const auto city = static_cast<std::size_t>(at(m.i + k));
                std::swap(next[city], prev[city]);
            }
        }
        const T x = at(m.p);
        const T y = at(m.p + 1);
        link(x, m.reversed ? last : first);
        link(m.reversed ? first : last, y);
    }
    std::int32_t start = 0;
    while (start < n && moved[static_cast<std::size_t>(at(start))]) ++start;
    if (start == n) return;
    T city = at(start);
    for (std::int32_t q = 0; q < n; ++q) {
        tour[static_cast<std::size_t>(q)] = city;
        city = next[static_cast<std::size_t>(city)];
    }
}

/// Applies pairwise independent swaps (swap_conflict) together.
template <class T> void apply_independent_swaps(std::span<T> tour, std::span<const TourMove> moves) {
    for (const TourMove& m : moves)
        std::swap(tour[static_cast<std::size_t>(m.i)], tour[static_cast<std::size_t>(m.j)]);
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

/// The independence rule of the TSP neighborhoods, shared by both backends of the parallel
/// descent: the dependency rule of the move kind, and the application of pairwise independent
/// moves of one kind together.
struct TourIndependence {
    std::int32_t n = 0;

    bool conflicts(const TourMove& a, const TourMove& b) const {
        if (a.kind == MoveKind::two_opt) return two_opt_conflict(a, b);
        if (a.kind == MoveKind::or_opt) return or_opt_conflict(a, b, n);
        if (a.kind == MoveKind::swap) return swap_conflict(a, b, n);
        return true; // no rule for 3-opt moves: every pair is dependent

    }

    /// Applies `moves` (pairwise independent, one kind) to `tour`; with a focus (non-empty),
    /// marks the cities at the ends of every removed edge, as a single move does.
    void apply(std::span<std::int32_t> tour, std::span<std::uint8_t> focus,
               std::span<const TourMove> moves) const {
        if (moves.empty()) return;
        if (!focus.empty()) {
            for (const TourMove& m : moves) {
                std::int32_t touched[kMaxTouchedCities];
                const int count = touched_cities(m, tour.data(), n, touched);
                for (int k = 0; k < count; ++k)
                    focus[static_cast<std::size_t>(touched[k])] = 1;
            }
        }
        if (moves.front().kind == MoveKind::two_opt)
            apply_independent_two_opt<std::int32_t>(tour, {moves.begin(), moves.end()});
        else if (moves.front().kind == MoveKind::or_opt)
            apply_independent_or_opt<std::int32_t>(tour, moves);
        else
            apply_independent_swaps<std::int32_t>(tour, moves);
    }
};

} // namespace locus::tsp

namespace locus::tsp {

/// What a parallel descent did.
struct ParallelDescentStats {
    std::uint64_t iterations = 0; ///< full neighborhood evaluations
    std::uint64_t applied = 0;    ///< moves applied
    std::int64_t change = 0;      ///< sum of the applied moves' deltas
};

/// Riise & Burke's ParallelDescent over the full 2-opt neighborhood on the host (the reference of
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
