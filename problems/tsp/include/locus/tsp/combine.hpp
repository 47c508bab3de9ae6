#pragma once
/// \file
/// Combine of two TSP tours (Riise & Burke, paper 002, sec. 2.3): where tour `into` visits a
/// set of cities between two cities x and y, and tour `from` visits exactly the same set on
/// its path from x to y (either direction), the two sub-paths are interchangeable; `into`
/// takes `from`'s when it is shorter. Symmetric distances.

#include <cstdint>
#include <span>

#include "locus/problem.hpp"
#include "locus/tsp/tsp_problem.hpp"

namespace locus::tsp {

/// Replaces every sub-path of `into` (at most `max_length` cities) by the interchangeable
/// sub-path of `from` when that is shorter, scanning `into` once from position 0. Returns the
/// change of the tour length (<= 0). `from` must be a tour of the same cities.
std::int64_t combine_tours(const Instance& instance, std::span<std::int32_t> into,
                           std::span<const std::int32_t> from, std::int32_t max_length);

/// The combination "segment_exchange" (combine_tours on every pair of a batch).
class SegmentExchange final : public Combination {
public:
    SegmentExchange(const TspProblem& problem, std::int32_t max_length)
        : problem_(problem), max_length_(max_length) {}
    Objective combine(SolutionBatch& into, std::size_t i, const SolutionBatch& from,
                      std::size_t j) override;

private:
    const TspProblem& problem_;
    std::int32_t max_length_;
};

} // namespace locus::tsp
