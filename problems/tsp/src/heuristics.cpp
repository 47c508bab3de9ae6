#include "locus/tsp/heuristics.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

#include "locus/rng.hpp"

namespace locus::tsp {

namespace {
std::int32_t as_i32(std::size_t v) { return static_cast<std::int32_t>(v); }
} // namespace

void RandomTour::construct(SolutionBatch& batch, std::uint64_t seed) {
    const auto n = as_i32(problem_.size());
    const auto count = static_cast<std::int64_t>(batch.count());
#pragma omp parallel for schedule(dynamic)
    for (std::int64_t s = 0; s < count; ++s) {
        const auto i = static_cast<std::size_t>(s);
        auto tour = batch[i];
        std::iota(tour.begin(), tour.end(), 0);
        Rng rng(derive_key(seed, i), 0);
        for (std::int32_t k = n - 1; k > 0; --k) {
            const auto r = static_cast<std::int32_t>(rng.below(static_cast<std::uint32_t>(k + 1)));
            std::swap(tour[static_cast<std::size_t>(k)], tour[static_cast<std::size_t>(r)]);
        }
        batch.objective(i) = problem_.evaluate(tour);
    }
}

void nearest_neighbor_tour(const Instance& instance, std::int32_t start, std::span<std::int32_t> tour,
                           const std::int32_t* nearest, std::int32_t k) {
    const auto n = as_i32(instance.n);
    // Unvisited cities in a compact array with each city's slot, for O(1) removal.
    std::vector<std::int32_t> unvisited(static_cast<std::size_t>(n)), slot(static_cast<std::size_t>(n));
    std::iota(unvisited.begin(), unvisited.end(), 0);
    std::iota(slot.begin(), slot.end(), 0);
    std::vector<std::uint8_t> visited(static_cast<std::size_t>(n), 0);
    auto visit = [&](std::int32_t city) {
        visited[static_cast<std::size_t>(city)] = 1;
        const std::int32_t last = unvisited.back();
        const std::int32_t at = slot[static_cast<std::size_t>(city)];
        unvisited[static_cast<std::size_t>(at)] = last;
        slot[static_cast<std::size_t>(last)] = at;
        unvisited.pop_back();
    };
    std::int32_t current = start;
    tour[0] = start;
    visit(start);
    for (std::int32_t step = 1; step < n; ++step) {
        std::int32_t next = -1;
        // NOTE: the lists are ordered by (distance, city), so their first unvisited entry is the
        // nearest unvisited city with ties to the lowest index, as the full scan below finds.
        if (nearest != nullptr)
            for (std::int32_t c = 0; c < k && next < 0; ++c) {
                const std::int32_t city = nearest[static_cast<std::size_t>(current) * static_cast<std::size_t>(k) + static_cast<std::size_t>(c)];
                if (visited[static_cast<std::size_t>(city)] == 0) next = city;
            }
        if (next < 0) {
            std::int32_t best_d = std::numeric_limits<std::int32_t>::max();
            for (const std::int32_t city : unvisited) {
                const std::int32_t d = instance.distance(current, city);
                if (d < best_d || (d == best_d && city < next)) {
                    best_d = d;
                    next = city;
                }
            }
        }
        current = next;
        tour[static_cast<std::size_t>(step)] = current;
        visit(current);
    }
}

void NearestNeighborTour::construct(SolutionBatch& batch, std::uint64_t seed) {
    const auto n = as_i32(problem_.size());
    const std::int32_t k = std::min<std::int32_t>(16, n - 1);
    const std::int32_t* lists = problem_.nearest(k).data();
    const auto count = static_cast<std::int64_t>(batch.count());
#pragma omp parallel for schedule(dynamic)
    for (std::int64_t s = 0; s < count; ++s) {
        const auto i = static_cast<std::size_t>(s);
        std::int32_t start = start_;
        if (start < 0) {
            Rng rng(derive_key(seed, i), 0);
            start = static_cast<std::int32_t>(rng.below(static_cast<std::uint32_t>(n)));
        }
        nearest_neighbor_tour(problem_.instance(), start % n, batch[i], lists, k);
        batch.objective(i) = problem_.evaluate(batch[i]);
    }
}

std::int64_t double_bridge(const Instance& instance, std::span<std::int32_t> tour, std::int32_t s,
                           std::int32_t o1, std::int32_t o2, std::int32_t o3,
                           std::span<std::uint8_t> focus) {
    const auto n = as_i32(tour.size());
    auto at = [&](std::int32_t offset) -> std::int32_t& {
        return tour[static_cast<std::size_t>((s + offset) % n)];
    };
    // Cyclic view from s: [X = offsets 0..o1-1][B = o1..o2-1][C = o2..o3-1][Y = o3..].
    const std::int32_t x_last = at(o1 - 1), b_first = at(o1), b_last = at(o2 - 1);
    const std::int32_t c_first = at(o2), c_last = at(o3 - 1), y_first = at(o3 % n);
    const std::int64_t delta =
        static_cast<std::int64_t>(instance.distance(x_last, c_first)) +
        instance.distance(c_last, b_first) + instance.distance(b_last, y_first) -
        instance.distance(x_last, b_first) - instance.distance(b_last, c_first) -
        instance.distance(c_last, y_first);
    if (!focus.empty()) {
        std::fill(focus.begin(), focus.end(), std::uint8_t{0});
        for (std::int32_t city : {x_last, b_first, b_last, c_first, c_last, y_first})
            focus[static_cast<std::size_t>(city)] = 1;
    }
    std::vector<std::int32_t> middle;
    middle.reserve(static_cast<std::size_t>(o3 - o1));
    for (std::int32_t o = o2; o < o3; ++o) middle.push_back(at(o));
    for (std::int32_t o = o1; o < o2; ++o) middle.push_back(at(o));
    for (std::int32_t o = o1; o < o3; ++o) at(o) = middle[static_cast<std::size_t>(o - o1)];
    return delta;
}

void DoubleBridge::perturb(SolutionBatch& batch, std::uint64_t seed) {
    const auto n = as_i32(problem_.size());
    if (n < 8) return; // too small for three distinct non-trivial cuts
    const std::int32_t span = (window_ <= 0 || window_ >= n) ? n - 1 : window_;
    const auto count = static_cast<std::int64_t>(batch.count());
#pragma omp parallel for schedule(static) if (count > 16)
    for (std::int64_t b = 0; b < count; ++b) {
        const auto i = static_cast<std::size_t>(b);
        Rng rng(derive_key(seed, i), 0);
        const std::int32_t s =
            span == n - 1 ? 0 : static_cast<std::int32_t>(rng.below(static_cast<std::uint32_t>(n)));
        // Three distinct offsets in 1..span, sorted.
        std::int32_t o[3];
        for (int k = 0; k < 3; ++k) {
            bool fresh = false;
            while (!fresh) {
                o[k] = 1 + static_cast<std::int32_t>(rng.below(static_cast<std::uint32_t>(span)));
                fresh = true;
                for (int q = 0; q < k; ++q) fresh = fresh && o[q] != o[k];
            }
        }
        std::sort(o, o + 3);
        batch.objective(i) += static_cast<Objective>(
            double_bridge(problem_.instance(), batch[i], s, o[0], o[1], o[2],
                          batch.has_focus() ? batch.focus(i) : std::span<std::uint8_t>{}));
    }
}

} // namespace locus::tsp
