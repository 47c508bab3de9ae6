#pragma once
/// \file
/// The parallel descent of Riise & Burke (2014, sec. 5.3) for the TSP: applying pairwise
/// independent moves of one operator together (each operator's rule: its conflicts(), in
/// operators/), and the host reference of the parallel 2-opt descent.

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "locus/gpu/independent_moves.hpp"
#include "locus/hd.hpp"
#include "locus/tsp/operators.hpp"

namespace locus::tsp {

/// Applies `moves` (pairwise independent by Op::conflicts) to `tour` together; with a focus
/// (non-empty), marks the cities at the ends of every removed edge, as a single move does.
template <IndependentOperator Op>
void apply_independent_moves(std::span<std::int32_t> tour, std::span<std::uint8_t> focus,
                             std::span<const TourMove> moves) {
    if (moves.empty()) return;
    if (!focus.empty()) {
        const auto n = static_cast<std::int32_t>(tour.size());
        for (const TourMove& m : moves) {
            std::int32_t touched[kMaxTouchedCities] = {};
            const int count = Op::touched(m, tour.data(), n, touched);
            for (int k = 0; k < count; ++k)
                focus[static_cast<std::size_t>(touched[k])] = 1;
        }
    }
    Op::apply_independent(tour, moves);
}

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
            moves, deltas,
            [](const TourMove& x, const TourMove& y) { return two_opt_conflict(x, y); }, limit);
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
