#pragma once
/// \file
/// TSP moves as host/device code, shared by the CPU and CUDA backends (single source). A
/// solution is a tour: a permutation of the cities 0..n-1; "position" means an index into the
/// tour array; all position arithmetic is cyclic.
///
/// This file holds what every operator shares: the decoded move (TourMove), cyclic positions and
/// reversal plans. Each operator — its deltas, index spaces, how its moves are applied, its
/// independence rule and its registration facts — lives in a file of its own under operators/
/// (operators.hpp lists them).

#include <cstdint>

#include "locus/hd.hpp"

namespace locus::tsp {

/// The operator a TourMove belongs to: a compact tag, one per operator type (operators/*.hpp
/// name theirs as `kind`; the engines read the operator through the evaluator's type, and only
/// the chain policy and OperatorList dispatch on the tag at run time).
enum class MoveKind : std::uint8_t { two_opt, or_opt, swap, three_opt, two_h_opt };

/// A decoded TSP move (positions refer to the tour before the move); each operator documents
/// what its fields mean.
struct TourMove {
    MoveKind kind = MoveKind::two_opt;
    bool valid = false;
    std::int32_t i = 0;
    std::int32_t j = 0;
    std::int32_t length = 0;
    std::int32_t p = 0;
    bool reversed = false;
};

LOCUS_HD_INLINE std::int32_t wrap(std::int32_t pos, std::int32_t n) {
    return pos >= n ? pos - n : (pos < 0 ? pos + n : pos);
}

/// Up to three reversals of cyclic position ranges [first, first+length) that together apply a
/// move. Host and device execute exactly these reversals, so the resulting arrays are equal.
struct ReversalPlan {
    int count = 0;
    std::int32_t first[3] = {0, 0, 0};
    std::int32_t length[3] = {0, 0, 0};
    LOCUS_HD_INLINE void add(std::int32_t f, std::int32_t len) {
        if (len > 1) {
            first[count] = f;
            length[count] = len;
            ++count;
        }
    }
};

/// Sequential reversal of a cyclic range (host, or one device thread).
template <class T>
LOCUS_HD_INLINE void reverse_range(T* tour, std::int32_t n, std::int32_t first,
                                   std::int32_t length) {
    std::int32_t a = first;
    std::int32_t b = wrap(first + length - 1, n);
    for (std::int32_t k = 0; k < length / 2; ++k) {
        const T tmp = tour[a];
        tour[a] = tour[b];
        tour[b] = tmp;
        a = wrap(a + 1, n);
        b = wrap(b - 1, n);
    }
}

/// Executes a reversal plan sequentially.
template <class T>
LOCUS_HD_INLINE void apply_plan(T* tour, std::int32_t n, const ReversalPlan& plan) {
    for (int r = 0; r < plan.count; ++r)
        reverse_range(tour, n, plan.first[r], plan.length[r]);
}

/// Most cities an operator's touched() writes: the six ends of the three edges a move removes.
inline constexpr int kMaxTouchedCities = 6;

/// Deltas are computed in Delta: std::int32_t when 4 * (largest distance) < 2^31 (always for
/// TSPLIB instances; TspProblem::narrow_deltas), else std::int64_t.

} // namespace locus::tsp
