#include "locus/tsp/combine.hpp"

#include <vector>

namespace locus::tsp {

std::int64_t combine_tours(const Instance& instance, std::span<std::int32_t> into,
                           std::span<const std::int32_t> from, std::int32_t max_length) {
    std::vector<std::int32_t> pos(into.size());
    const auto d = [&](std::int32_t a, std::int32_t b) {
        return static_cast<std::int64_t>(instance.distance(a, b));
    };
    return combine_into(into.data(), from.data(), pos.data(),
                        static_cast<std::int32_t>(into.size()), max_length, d);
}

Objective SegmentExchange::combine(SolutionBatch& into, std::size_t i, const SolutionBatch& from,
                                   std::size_t j) {
    const std::int64_t change =
        combine_tours(problem_.instance(), into[i], from[j], max_length_);
    into.objective(i) += static_cast<Objective>(change);
    return static_cast<Objective>(change);
}

} // namespace locus::tsp
