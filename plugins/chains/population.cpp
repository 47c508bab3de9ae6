#include "population.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

#include "locus/error.hpp"
#include "locus/gpu/cpu_threads.hpp"

namespace locus::chains {

Population::Population(PopulationOptions options, SolutionDistance distance)
    : options_(options), distance_(std::move(distance)) {
    if (options_.size < 1) throw ConfigError("population: size must be at least 1");
    if (!distance_) throw ConfigError("population: no distance between solutions was given");
}

std::size_t Population::update(std::span<const std::int32_t> rows, std::size_t width,
                               std::span<const std::int64_t> costs) {
    // Below this many words compared per child (members x width), one thread measures.
    constexpr std::int64_t kParallelWork = 4096;
    const int threads = gpu::resolve_threads(options_.threads);
    std::vector<std::size_t> order(costs.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return costs[a] < costs[b]; });
    std::size_t admitted = 0;
    for (const std::size_t c : order) {
        if (admitted == options_.generation) break;
        const std::span<const std::int32_t> child = rows.subspan(c * width, width);
        std::vector<std::int32_t> form = distance_.form_of(child);
        const auto members = static_cast<std::int64_t>(costs_.size());
        std::vector<double> to(costs_.size());
        // Each distance is its pair's alone: the same on any number of threads.
        const bool parallel = members * static_cast<std::int64_t>(width) >= kParallelWork;
#pragma omp parallel for num_threads(threads) schedule(static) if (parallel)
        for (std::int64_t m = 0; m < members; ++m)
            to[static_cast<std::size_t>(m)] =
                distance_.between(form, forms_[static_cast<std::size_t>(m)]);
        bool clone = false;
        for (std::size_t m = 0; m < costs_.size() && !clone; ++m)
            clone = to[m] <= 0.0 && costs_[m] == costs[c];
        if (clone) continue;
        for (std::size_t m = 0; m < costs_.size(); ++m)
            distances_[m].push_back(to[m]);
        to.push_back(0.0);
        distances_.push_back(std::move(to));
        rows_.emplace_back(child.begin(), child.end());
        forms_.push_back(std::move(form));
        costs_.push_back(costs[c]);
        ++admitted;
    }
    rank();
    while (costs_.size() > options_.size) {
        const auto cheapest = static_cast<std::size_t>(
            std::min_element(costs_.begin(), costs_.end()) - costs_.begin());
        std::size_t worst = cheapest == 0 ? 1 : 0;
        for (std::size_t i = 0; i < costs_.size(); ++i)
            if (i != cheapest && fitness_[i] > fitness_[worst]) worst = i;
        remove(worst);
    }
    return admitted;
}

void Population::clear() {
    rows_.clear();
    forms_.clear();
    costs_.clear();
    distances_.clear();
    contribution_.clear();
    nearest_.clear();
    fitness_.clear();
}

std::size_t Population::close_count() const {
    return costs_.size() < 2 ? 0 : std::min(options_.close, costs_.size() - 1);
}

void Population::remove(std::size_t w) {
    const std::size_t close_before = close_count();
    // A member's contribution changes only if w was among its nearest members: its distance
    // to w is at most the largest of the distances it averaged.
    std::vector<char> stale(costs_.size());
    for (std::size_t i = 0; i < costs_.size(); ++i)
        stale[i] = distances_[i][w] <= nearest_[i];
    const auto at = [w](auto& v) { v.erase(v.begin() + static_cast<std::ptrdiff_t>(w)); };
    at(rows_);
    at(forms_);
    at(costs_);
    at(distances_);
    at(contribution_);
    at(nearest_);
    at(stale);
    for (auto& row : distances_)
        at(row);
    const bool all = close_count() != close_before;
    for (std::size_t i = 0; i < costs_.size(); ++i)
        if (all || stale[i]) contribute(i);
    score();
}

void Population::contribute(std::size_t i) {
    // Diversity contribution: the average distance to the `close` nearest other members.
    const std::size_t n = costs_.size();
    const std::size_t close = close_count();
    if (close == 0) {
        contribution_[i] = 0.0;
        nearest_[i] = 0.0;
        return;
    }
    others_.clear();
    for (std::size_t j = 0; j < n; ++j)
        if (j != i) others_.push_back(distances_[i][j]);
    std::partial_sort(others_.begin(), others_.begin() + static_cast<std::ptrdiff_t>(close),
                      others_.end());
    contribution_[i] = std::accumulate(others_.begin(),
                                       others_.begin() + static_cast<std::ptrdiff_t>(close), 0.0) /
                       static_cast<double>(close);
    nearest_[i] = others_[close - 1];
}

void Population::rank() {
    const std::size_t n = costs_.size();
    contribution_.resize(n);
    nearest_.resize(n);
    for (std::size_t i = 0; i < n; ++i)
        contribute(i);
    score();
}

void Population::score() {
    const std::size_t n = costs_.size();
    fitness_.assign(n, 0.0);
    if (n < 2) return;
    std::vector<std::size_t> by_cost(n);
    std::iota(by_cost.begin(), by_cost.end(), std::size_t{0});
    std::vector<std::size_t> by_diversity = by_cost;
    std::stable_sort(by_cost.begin(), by_cost.end(),
                     [&](std::size_t a, std::size_t b) { return costs_[a] < costs_[b]; });
    std::stable_sort(by_diversity.begin(), by_diversity.end(), [&](std::size_t a, std::size_t b) {
        return contribution_[a] > contribution_[b];
    });
    const double last = static_cast<double>(n - 1);
    const double weight = options_.elite >= n
                              ? 0.0
                              : 1.0 - static_cast<double>(options_.elite) / static_cast<double>(n);
    for (std::size_t r = 0; r < n; ++r) {
        fitness_[by_cost[r]] += static_cast<double>(r) / last;
        fitness_[by_diversity[r]] += weight * static_cast<double>(r) / last;
    }
}

double Population::diversity() const {
    const std::size_t n = costs_.size();
    if (n < 2) return 0.0;
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j)
            sum += distances_[i][j];
    return sum / static_cast<double>(n * (n - 1) / 2);
}

std::size_t Population::tournament(Rng& rng) const {
    const auto n = static_cast<std::uint32_t>(costs_.size());
    const std::size_t a = rng.below(n);
    const std::size_t b = rng.below(n);
    if (fitness_[b] < fitness_[a] || (fitness_[b] == fitness_[a] && b < a)) return b;
    return a;
}

std::pair<std::size_t, std::size_t> Population::parents(Rng& rng) const {
    const std::size_t first = tournament(rng);
    std::size_t second = tournament(rng);
    // NOTE: a few redraws make equal parents rare; the last draw is taken as it is.
    for (int redraw = 0; redraw < 8 && second == first && costs_.size() > 1; ++redraw)
        second = tournament(rng);
    if (second == first && costs_.size() > 1) second = (first + 1) % costs_.size();
    return {first, second};
}

} // namespace locus::chains
