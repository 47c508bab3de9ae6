#include "exchanges.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include "islands.hpp"
#include "locus/rng.hpp"
#include "locus/rng_salts.hpp"

namespace locus::chains {

Exchanges::Exchanges(const ExchangeOptions& options, std::uint64_t seed, std::size_t width,
                     gpu::SolutionDistance distance)
    : options_(options), seed_(seed), width_(width) {
    if (options_.exchange == Exchange::population)
        population_ = std::make_unique<Population>(options_.population, std::move(distance));
}

void Exchanges::before_epoch(gpu::ChainRunner& runner, std::span<const std::int64_t> values,
                             std::uint64_t round) {
    switch (options_.exchange) {
    case Exchange::none:
        return;
    case Exchange::copy_best:
        copy_best(runner, values, round);
        return;
    case Exchange::elite:
        elite(runner, values);
        return;
    case Exchange::recombine:
        recombine(runner, values, round);
        return;
    case Exchange::merge:
        merge(runner, values, round);
        return;
    case Exchange::population:
        repopulate(runner, values, round);
        return;
    case Exchange::decompose: // the search's Decomposer
        return;
    }
}

void Exchanges::copy_best(gpu::ChainRunner& runner, std::span<const std::int64_t> values,
                          std::uint64_t round) const {
    const auto chains = static_cast<std::uint32_t>(values.size());
    const auto leaders = island_leaders(values, options_.islands);
    if (options_.cross_islands) {
        std::vector<std::uint32_t> heads(options_.islands);
        for (std::uint32_t i = 0; i < options_.islands; ++i)
            heads[i] = leaders[island_range(i, options_.islands, chains).begin];
        fold_islands(runner, heads, values, round);
    }
    runner.continue_from(leaders);
}

void Exchanges::elite(gpu::ChainRunner& runner, std::span<const std::int64_t> values) const {
    const auto chains = static_cast<std::uint32_t>(values.size());
    std::vector<std::uint32_t> sources(chains);
    const auto elite = elite_chains(values, options_.elite);
    for (std::uint32_t c = 0; c < chains; ++c)
        sources[c] = elite[c % elite.size()];
    runner.continue_from(sources);
}

void Exchanges::recombine(gpu::ChainRunner& runner, std::span<const std::int64_t> values,
                          std::uint64_t round) const {
    const auto chains = static_cast<std::uint32_t>(values.size());
    std::vector<std::uint32_t> sources(chains);
    const auto elite = elite_chains(values, options_.elite);
    const auto e = static_cast<std::uint32_t>(elite.size());
    std::vector<std::uint32_t> second(chains);
    for (std::uint32_t c = 0; c < chains; ++c) {
        sources[c] = elite[c % e];
        second[c] =
            elite[(c % e + 1 + static_cast<std::uint32_t>(round % std::max(e - 1, 1u))) % e];
    }
    runner.recombine(sources, second, round);
}

void Exchanges::merge(gpu::ChainRunner& runner, std::span<const std::int64_t> values,
                      std::uint64_t round) {
    // Per island, a binary tree over the chains ranked by objective: in round r (stride
    // s = 2^r) the entry at rank i (i a multiple of 2s) takes in the one at rank i + s,
    // so the leader's slot ends holding every chain's improvements that recombine.
    // After the first epoch from one solution only the chains that improved on it
    // take part: the others hold that solution, which adds nothing to the fold.
    const auto chains = static_cast<std::uint32_t>(values.size());
    const std::uint32_t islands = options_.islands;
    std::vector<std::vector<std::uint32_t>> ranked(islands);
    std::size_t longest = 0;
    for (std::uint32_t i = 0; i < islands; ++i) {
        const auto [begin, end] = island_range(i, islands, chains);
        auto& order = ranked[i];
        for (std::uint32_t c = begin; c < end; ++c)
            order.push_back(c);
        std::ranges::stable_sort(order, {}, [&](std::uint32_t c) { return values[c]; });
        if (single_start_ && !order.empty()) {
            const std::int64_t start = island_start_[i];
            const auto improved =
                std::ranges::count_if(order, [&](std::uint32_t c) { return values[c] < start; });
            order.resize(std::max<std::size_t>(1, static_cast<std::size_t>(improved)));
        }
        longest = std::max(longest, order.size());
    }
    std::vector<std::uint32_t> slots;
    std::vector<std::uint32_t> others;
    for (std::uint32_t s = 1, step = 0; s < longest; s *= 2, ++step) {
        slots.clear();
        others.clear();
        for (const auto& order : ranked)
            for (std::uint32_t i = 0; i + s < order.size(); i += 2 * s) {
                slots.push_back(order[i]);
                others.push_back(order[i + s]);
            }
        runner.merge(slots, others, round * 64 + step);
    }
    std::vector<std::uint32_t> sources(chains);
    std::vector<std::uint32_t> heads(islands);
    for (std::uint32_t i = 0; i < islands; ++i) {
        const auto [begin, end] = island_range(i, islands, chains);
        heads[i] = ranked[i].empty() ? begin : ranked[i][0];
        std::fill(sources.begin() + begin, sources.begin() + end, heads[i]);
    }
    if (options_.cross_islands) fold_islands(runner, heads, runner.best_objectives(), round);
    runner.continue_from(sources);
    const std::vector<std::int64_t> merged = runner.best_objectives();
    island_start_.assign(islands, 0);
    for (std::uint32_t i = 0; i < islands; ++i)
        if (!ranked[i].empty()) island_start_[i] = merged[ranked[i][0]];
    single_start_ = true;
}

void Exchanges::repopulate(gpu::ChainRunner& runner, std::span<const std::int64_t> values,
                           std::uint64_t round) {
    using Clock = std::chrono::steady_clock;
    auto from = Clock::now();
    const auto lap = [&](const char* part) {
        const auto now = Clock::now();
        parts_[part] += std::chrono::duration<double>(now - from).count();
        from = now;
    };
    const auto chains = static_cast<std::uint32_t>(values.size());
    const std::size_t width = width_;
    std::vector<std::int32_t> rows(width * chains);
    runner.best_solutions(rows);
    lap("download");
    population_->update(rows, width, values);
    std::vector<std::int32_t> first(width * chains);
    std::vector<std::int32_t> second(width * chains);
    Rng rng(derive_key(seed_, round, salt::kChainPopulation), 0);
    for (std::uint32_t c = 0; c < chains; ++c) {
        const auto [a, b] = population_->parents(rng);
        std::ranges::copy(population_->row(a), first.begin() + c * width);
        std::ranges::copy(population_->row(b), second.begin() + c * width);
    }
    lap("population");
    runner.restart_from(first, second, round);
    lap("restart");
}

void Exchanges::fold_islands(gpu::ChainRunner& runner, std::span<const std::uint32_t> heads,
                             std::span<const std::int64_t> values, std::uint64_t round) {
    // The runner's merge: the better parent improved by the other's shorter interchangeable
    // parts, one fold after the other; the other islands keep their own leaders, so each
    // stays in its own region while the best tour gains what the others found.
    std::uint64_t step = 0;
    for (const auto& [target, other] : island_folds(heads, values)) {
        const std::uint32_t slot[1] = {target};
        const std::uint32_t from[1] = {other};
        // NOTE: 64 seeds per round are the merge tree's; the folds take the ones above.
        runner.merge(slot, from, round * 64 + 32 + step++);
    }
}

} // namespace locus::chains
