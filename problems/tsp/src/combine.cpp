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

double tour_distance(std::span<const std::int32_t> a, std::span<const std::int32_t> b) {
    const std::size_t n = a.size();
    if (n < 3) return 0.0;
    std::vector<std::int32_t> next(n), prev(n);
    for (std::size_t k = 0; k < n; ++k) {
        const auto city = static_cast<std::size_t>(b[k]);
        next[city] = b[k + 1 == n ? 0 : k + 1];
        prev[city] = b[k == 0 ? n - 1 : k - 1];
    }
    std::size_t broken = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const auto city = static_cast<std::size_t>(a[k]);
        const std::int32_t after = a[k + 1 == n ? 0 : k + 1];
        if (next[city] != after && prev[city] != after) ++broken;
    }
    return static_cast<double>(broken) / static_cast<double>(n);
}

} // namespace locus::tsp
