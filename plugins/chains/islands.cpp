#include "islands.hpp"

#include <algorithm>
#include <numeric>

#include "locus/mixed_construction.hpp"

namespace locus::chains {

IslandRange island_range(std::uint32_t i, std::uint32_t islands, std::size_t chains) {
    return {static_cast<std::uint32_t>(MixedConstruction::block_begin(i, islands, chains)),
            static_cast<std::uint32_t>(MixedConstruction::block_begin(i + 1, islands, chains))};
}

std::vector<std::uint32_t> island_leaders(std::span<const std::int64_t> values,
                                          std::uint32_t islands) {
    const auto chains = static_cast<std::uint32_t>(values.size());
    std::vector<std::uint32_t> sources(chains);
    for (std::uint32_t i = 0; i < islands; ++i) {
        const auto [begin, end] = island_range(i, islands, chains);
        if (begin == end) continue;
        const auto leader = static_cast<std::uint32_t>(
            std::min_element(values.begin() + begin, values.begin() + end) - values.begin());
        std::fill(sources.begin() + begin, sources.begin() + end, leader);
    }
    return sources;
}

std::vector<std::pair<std::uint32_t, std::uint32_t>>
island_folds(std::span<const std::uint32_t> leaders, std::span<const std::int64_t> values) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> folds;
    if (leaders.empty()) return folds;
    std::size_t best = 0;
    for (std::size_t i = 1; i < leaders.size(); ++i)
        if (values[leaders[i]] < values[leaders[best]]) best = i;
    for (std::size_t i = 0; i < leaders.size(); ++i)
        if (i != best) folds.emplace_back(leaders[best], leaders[i]);
    return folds;
}

std::vector<std::uint32_t> elite_chains(std::span<const std::int64_t> values, std::uint32_t e) {
    std::vector<std::uint32_t> order(values.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return values[a] < values[b]; });
    std::vector<std::uint32_t> elite;
    for (const std::uint32_t c : order) {
        if (!elite.empty() && values[elite.back()] == values[c]) continue;
        elite.push_back(c);
        if (elite.size() == e) break;
    }
    return elite;
}

} // namespace locus::chains
