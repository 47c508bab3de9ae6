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
    std::vector<std::size_t> order(costs.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return costs[a] < costs[b]; });
    std::size_t admitted = 0;
    for (std::size_t next = 0; admitted < options_.generation && next < order.size();) {
        // The next children in cost order, as many as may still be admitted: their forms and
        // distances measured together, then admitted one by one as before.
        const std::size_t take = std::min(options_.generation - admitted, order.size() - next);
        const std::span<const std::size_t> batch(order.data() + next, take);
        next += take;
        admitted += admit(batch, rows, width, costs);
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

std::size_t Population::admit(std::span<const std::size_t> batch,
                              std::span<const std::int32_t> rows, std::size_t width,
                              std::span<const std::int64_t> costs) {
    // Below this many words compared in all, one thread measures.
    constexpr std::int64_t kParallelWork = 1 << 16;
    const int threads = gpu::resolve_threads(options_.threads);
    const auto b = static_cast<std::int64_t>(batch.size());
    const auto members = static_cast<std::int64_t>(costs_.size());
    const auto child = [&](std::int64_t i) {
        return rows.subspan(batch[static_cast<std::size_t>(i)] * width, width);
    };
    // Every child's distances to the members, then to the children before it in the batch:
    // child i's row of `to` holds members + i values. Each distance is its pair's alone, so
    // the values, and every decision, are the same on any number of threads.
    std::vector<std::vector<std::int32_t>> forms(batch.size());
    std::vector<std::vector<double>> to(batch.size());
    std::vector<std::int64_t> first(batch.size() + 1, 0); // pair index of child i's first
    for (std::int64_t i = 0; i < b; ++i) {
        to[static_cast<std::size_t>(i)].resize(static_cast<std::size_t>(members + i));
        first[static_cast<std::size_t>(i) + 1] = first[static_cast<std::size_t>(i)] + members + i;
    }
    const std::int64_t pairs = first.back();
    const bool parallel = (pairs + b) * static_cast<std::int64_t>(width) >= kParallelWork;
#pragma omp parallel num_threads(threads) if (parallel)
    {
#pragma omp for schedule(static)
        for (std::int64_t i = 0; i < b; ++i)
            forms[static_cast<std::size_t>(i)] = distance_.form_of(child(i));
#pragma omp for schedule(static)
        for (std::int64_t k = 0; k < pairs; ++k) {
            const auto i = static_cast<std::size_t>(
                std::upper_bound(first.begin(), first.end(), k) - first.begin() - 1);
            const std::int64_t j = k - first[i];
            const auto& other = j < members ? forms_[static_cast<std::size_t>(j)]
                                            : forms[static_cast<std::size_t>(j - members)];
            to[i][static_cast<std::size_t>(j)] = distance_.between(forms[i], other);
        }
    }
    // Admission in cost order: a clone (distance 0 and the same cost as a member or an
    // admitted child) is dropped.
    std::vector<char> kept(batch.size(), 0);
    std::size_t admitted = 0;
    for (std::int64_t i = 0; i < b; ++i) {
        const std::size_t c = batch[static_cast<std::size_t>(i)];
        const auto& d = to[static_cast<std::size_t>(i)];
        // Its distances to the population as it is now: the members, then the children
        // admitted before it.
        std::vector<double> row(d.begin(), d.begin() + members);
        for (std::int64_t j = 0; j < i; ++j)
            if (kept[static_cast<std::size_t>(j)] != 0)
                row.push_back(d[static_cast<std::size_t>(members + j)]);
        bool clone = false;
        for (std::size_t m = 0; m < costs_.size() && !clone; ++m)
            clone = row[m] <= 0.0 && costs_[m] == costs[c];
        if (clone) continue;
        for (std::size_t m = 0; m < costs_.size(); ++m)
            distances_[m].push_back(row[m]);
        row.push_back(0.0);
        kept[static_cast<std::size_t>(i)] = 1;
        distances_.push_back(std::move(row));
        const auto one = child(i);
        rows_.emplace_back(one.begin(), one.end());
        forms_.push_back(std::move(forms[static_cast<std::size_t>(i)]));
        costs_.push_back(costs[c]);
        ++admitted;
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
