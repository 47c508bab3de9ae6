#pragma once
/// \file
/// A toy problem for the neighborhood adapter tests: a solution is an array of ints, its
/// objective the number of inversions (pairs i < j with x[i] > x[j]), and the neighborhood the
/// swaps of adjacent entries (move i exchanges x[i] and x[i+1]). Swapping an inverted pair
/// removes exactly one inversion (delta -1), any other pair adds one (+1); equal entries are no
/// move. So a descent applies one move per exploration to each unsorted solution, makes
/// max(inversions) + 1 explorations, and ends with every solution sorted.

#include <cstdint>
#include <span>
#include <string>
#include <utility>

#include "locus/error.hpp"
#include "locus/gpu/neighborhood_adapter.hpp"

namespace locus::test {

/// The adjacent-swap neighborhood of a batch of int arrays (host or device pointers): one grid
/// row of width - 1 cells per solution.
struct AdjacentSwapEvaluator {
    using delta_type = std::int32_t;
    struct row_type {
        const std::int32_t* x;
    };
    const std::int32_t* solutions = nullptr; ///< count x width, solution-major
    std::int32_t width = 0;
    std::int32_t bias = 0; ///< added to every improving delta: 0 = exact, else a planted bug

    LOCUS_HD gpu::MoveGrid grid() const { return {1, static_cast<std::uint32_t>(width - 1)}; }
    LOCUS_HD row_type row(std::uint32_t solution, std::uint32_t) const {
        return {solutions + static_cast<std::int64_t>(solution) * width};
    }
    LOCUS_HD delta_type operator()(const row_type& r, std::uint32_t col) const {
        const std::int32_t a = r.x[col];
        const std::int32_t b = r.x[col + 1];
        if (a == b) return gpu::invalid_delta<delta_type>();
        return a > b ? -1 + bias : 1;
    }
};

/// Inversions of `x` (the toy objective), O(width^2).
inline Objective inversions(std::span<const std::int32_t> x) {
    Objective count = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
        for (std::size_t j = i + 1; j < x.size(); ++j)
            count += x[i] > x[j] ? 1 : 0;
    return count;
}

/// Sets every objective of `batch` to its inversions.
inline void evaluate_all(SolutionBatch& batch) {
    for (std::size_t s = 0; s < batch.count(); ++s)
        batch.objective(s) = inversions(std::as_const(batch)[s]);
}

/// The toy neighborhood as a CPU policy of the adapter; moves are named by their position.
struct ToyCpuPolicy {
    using evaluator_type = AdjacentSwapEvaluator;
    using move_type = std::int32_t;

    std::int32_t bias = 0;

    AdjacentSwapEvaluator prepare(const SolutionBatch& batch) const {
        return {batch.data().data(), static_cast<std::int32_t>(batch.width()), bias};
    }
    std::uint64_t evaluations(const AdjacentSwapEvaluator& eval, std::size_t count) const {
        return eval.grid().size() * count;
    }
    std::int32_t apply(const AdjacentSwapEvaluator& eval, SolutionBatch& batch, std::size_t s,
                       std::uint64_t index) const {
        if (index >= eval.grid().size())
            throw Error(gpu::detail::undecodable_move_message("toy", index));
        const auto i = static_cast<std::size_t>(index);
        std::swap(batch[s][i], batch[s][i + 1]);
        return static_cast<std::int32_t>(index);
    }
    Objective evaluate(std::span<const std::int32_t> x) const { return inversions(x); }
    std::string describe(std::int32_t i) const { return "adjacent swap at " + std::to_string(i); }
};

} // namespace locus::test
