#include "locus/tsp/heuristics.hpp"

#include "kd_tree.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

#include <algorithm>
#include <atomic>
#include <limits>
#include <numeric>
#include <optional>
#include <vector>

#include "locus/rng.hpp"
#include "locus/search_context.hpp"
#include "locus/tsp/double_bridge.hpp"

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

namespace {

/// nearest_neighbor_tour with, for planar instances, a k-d tree (`tree`, with its `scale`)
/// that finds the nearest unvisited city when the lists have none: the Euclidean-nearest
/// unvisited city, then every unvisited city within scale (D + 1) of its distance D ranked
/// exactly, so the tour is the one of the full scan, in O(log n) instead of O(n). Every 4096
/// cities, `on_stop` says what the stop flag (stop_requested(), or `abandon` when not null)
/// does: nothing (ignore), give the tour up (abandon: returns false, and `tour` is not a tour),
/// or complete it at once with the unvisited cities in ascending order (complete: a tour whose
/// first part is the nearest-neighbor walk).
enum class OnStop : std::uint8_t { ignore, abandon, complete };
bool nearest_neighbor_tour(const Instance& instance, std::int32_t start,
                           std::span<std::int32_t> tour, const std::int32_t* nearest,
                           std::int32_t k, const detail::KdTree* tree, double scale,
                           OnStop on_stop = OnStop::ignore,
                           const std::atomic<bool>* abandon = nullptr) {
    const auto n = as_i32(instance.n);
    // Unvisited cities in a compact array with each city's slot, for O(1) removal.
    std::vector<std::int32_t> unvisited(static_cast<std::size_t>(n)),
        slot(static_cast<std::size_t>(n));
    std::iota(unvisited.begin(), unvisited.end(), 0);
    std::iota(slot.begin(), slot.end(), 0);
    std::vector<std::uint8_t> visited(static_cast<std::size_t>(n), 0);
    std::vector<std::int32_t> left = tree != nullptr ? tree->counts() : std::vector<std::int32_t>{};
    std::vector<std::int32_t> disk;
    auto visit = [&](std::int32_t city) {
        visited[static_cast<std::size_t>(city)] = 1;
        const std::int32_t last = unvisited.back();
        const std::int32_t at = slot[static_cast<std::size_t>(city)];
        unvisited[static_cast<std::size_t>(at)] = last;
        slot[static_cast<std::size_t>(last)] = at;
        unvisited.pop_back();
        if (tree != nullptr) tree->remove(city, left);
    };
    const auto closer = [&](std::int32_t current, std::int32_t city, std::int32_t& next,
                            std::int32_t& best_d) {
        const std::int32_t d = instance.distance(current, city);
        if (d < best_d || (d == best_d && city < next)) {
            best_d = d;
            next = city;
        }
    };
    std::int32_t current = start;
    tour[0] = start;
    visit(start);
    for (std::int32_t step = 1; step < n; ++step) {
        if (on_stop != OnStop::ignore && step % 4096 == 0 &&
            (stop_requested() ||
             (abandon != nullptr && abandon->load(std::memory_order_relaxed)))) {
            if (on_stop == OnStop::abandon) return false;
            for (std::int32_t city = 0; city < n; ++city)
                if (visited[static_cast<std::size_t>(city)] == 0)
                    tour[static_cast<std::size_t>(step++)] = city;
            return true;
        }
        std::int32_t next = -1;
        // NOTE: the lists are ordered by (distance, city), so their first unvisited entry is the
        // nearest unvisited city with ties to the lowest index, as the full scan below finds.
        if (nearest != nullptr)
            for (std::int32_t c = 0; c < k && next < 0; ++c) {
                const std::int32_t city =
                    nearest[static_cast<std::size_t>(current) * static_cast<std::size_t>(k) +
                            static_cast<std::size_t>(c)];
                if (visited[static_cast<std::size_t>(city)] == 0) next = city;
            }
        if (next < 0 && tree != nullptr) {
            const std::int32_t near = tree->nearest_left(current, left, visited.data());
            const double radius = scale *
                                  (static_cast<double>(instance.distance(current, near)) + 1.0) *
                                  (1.0 + 1e-12);
            tree->within_left(current, radius, left, visited.data(), disk);
            std::int32_t best_d = std::numeric_limits<std::int32_t>::max();
            for (const std::int32_t city : disk) closer(current, city, next, best_d);
        } else if (next < 0) {
            std::int32_t best_d = std::numeric_limits<std::int32_t>::max();
            for (const std::int32_t city : unvisited) closer(current, city, next, best_d);
        }
        current = next;
        tour[static_cast<std::size_t>(step)] = current;
        visit(current);
    }
    return true;
}

} // namespace

void nearest_neighbor_tour(const Instance& instance, std::int32_t start,
                           std::span<std::int32_t> tour, const std::int32_t* nearest,
                           std::int32_t k) {
    nearest_neighbor_tour(instance, start, tour, nearest, k, nullptr, 1.0);
}

void NearestNeighborTour::construct(SolutionBatch& batch, std::uint64_t seed) {
    construct_until(batch, seed, {});
}

void NearestNeighborTour::construct_until(SolutionBatch& batch, std::uint64_t seed,
                                          const std::function<bool()>& stop) {
    const auto n = as_i32(problem_.size());
    const std::int32_t k = std::min<std::int32_t>(16, n - 1);
    const std::int32_t* lists = problem_.nearest(k).data();
    const auto count = static_cast<std::int64_t>(batch.count());
    double scale = 1.0;
    const Instance& instance = problem_.instance();
    std::optional<detail::KdTree> tree;
    if (detail::planar(instance, scale)) tree.emplace(instance.x, instance.y);
    std::vector<std::uint8_t> built(static_cast<std::size_t>(count), 0);
    std::atomic<bool> halted{false};
#pragma omp parallel for schedule(dynamic)
    for (std::int64_t s = 0; s < count; ++s) {
        // NOTE: `stop` (SearchContext) is not thread safe: only thread 0 polls it; solution 0
        // is always built, so the batch has a tour to copy.
        if (s > 0 && (halted.load(std::memory_order_relaxed) || stop_requested())) continue;
#if defined(_OPENMP)
        if (s > 0 && stop && omp_get_thread_num() == 0 && stop()) {
#else
        if (s > 0 && stop && stop()) {
#endif
            halted.store(true, std::memory_order_relaxed);
            continue;
        }
        const auto i = static_cast<std::size_t>(s);
        std::int32_t start = start_;
        if (start < 0) {
            Rng rng(derive_key(seed, i), 0);
            start = static_cast<std::int32_t>(rng.below(static_cast<std::uint32_t>(n)));
        }
        // A tour of 10^6 cities takes a second (several on two cores): once halted, those in
        // progress are given up, but solution 0, which is completed in ascending order.
        if (!nearest_neighbor_tour(instance, start % n, batch[i], lists, k,
                                   tree ? &*tree : nullptr, scale,
                                   s > 0 ? OnStop::abandon : OnStop::complete,
                                   s > 0 ? &halted : nullptr))
            continue;
        batch.objective(i) = problem_.evaluate(batch[i]);
        built[i] = 1;
    }
    // Solutions left unbuilt by the limit copy solution 0 (on every core: 1023 copies of 10^6
    // cities are 4 GB to write after the limit).
#pragma omp parallel for schedule(static)
    for (std::int64_t s = 1; s < count; ++s) {
        const auto i = static_cast<std::size_t>(s);
        if (built[i] != 0) continue;
        std::copy(batch[0].begin(), batch[0].end(), batch[i].begin());
        batch.objective(i) = batch.objective(0);
    }
}

void greedy_edge_tour(const Instance& instance, const std::int32_t* nearest, std::int32_t k,
                      std::span<std::int32_t> tour) {
    const auto n = as_i32(instance.n);
    const auto at = [](std::int32_t v) { return static_cast<std::size_t>(v); };
    struct Edge {
        std::int32_t d, a, b;
        auto operator<=>(const Edge&) const = default;
    };
    // The n k list edges in (length, city, city) order: sorted in blocks on every core, then
    // merged pairwise, the stop flag read between blocks and merge rounds (10^7 edges take a
    // second on one core). Edges are distinct after unique(), so the order is the same as one
    // sort's.
    std::vector<Edge> edges(at(n) * at(k));
#pragma omp parallel for schedule(static)
    for (std::int32_t a = 0; a < n; ++a)
        for (std::int32_t c = 0; c < k; ++c) {
            const std::int32_t b = nearest[at(a) * at(k) + at(c)];
            edges[at(a) * at(k) + at(c)] = {instance.distance(a, b), std::min(a, b),
                                            std::max(a, b)};
        }
    constexpr std::size_t kBlock = std::size_t{1} << 16;
    // One block or less takes milliseconds: never stopped (a run stopped while loading still
    // gets its tour).
    const bool checked = edges.size() > kBlock;
    if (checked) throw_if_stopped();
    const std::size_t blocks = (edges.size() + kBlock - 1) / kBlock;
    const auto edge_at = [&](std::size_t i) {
        return edges.begin() + static_cast<std::ptrdiff_t>(std::min(i, edges.size()));
    };
#pragma omp parallel for schedule(dynamic)
    for (std::int64_t b = 0; b < static_cast<std::int64_t>(blocks); ++b) {
        if (checked && stop_requested()) continue;
        std::sort(edge_at(static_cast<std::size_t>(b) * kBlock),
                  edge_at((static_cast<std::size_t>(b) + 1) * kBlock));
    }
    if (checked) throw_if_stopped();
    for (std::size_t width = kBlock; width < edges.size(); width *= 2) {
        const std::size_t pairs = (edges.size() + 2 * width - 1) / (2 * width);
#pragma omp parallel for schedule(dynamic)
        for (std::int64_t p = 0; p < static_cast<std::int64_t>(pairs); ++p) {
            const std::size_t first = static_cast<std::size_t>(p) * 2 * width;
            std::inplace_merge(edge_at(first), edge_at(first + width), edge_at(first + 2 * width));
        }
        throw_if_stopped();
    }
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    // Fragments as paths: two neighbour slots per city (-1: free), a union-find over cities.
    std::vector<std::int32_t> link(2 * at(n), -1), root(at(n));
    std::iota(root.begin(), root.end(), 0);
    const auto find = [&](std::int32_t v) {
        while (root[at(v)] != v) v = root[at(v)] = root[at(root[at(v)])];
        return v;
    };
    const auto degree = [&](std::int32_t v) {
        return (link[2 * at(v)] >= 0 ? 1 : 0) + (link[2 * at(v) + 1] >= 0 ? 1 : 0);
    };
    const auto attach = [&](std::int32_t v, std::int32_t w) {
        link[2 * at(v) + (link[2 * at(v)] >= 0 ? 1 : 0)] = w;
    };
    std::int32_t joined = 0;
    for (const Edge& e : edges) {
        if (joined == n - 1) break;
        if (degree(e.a) == 2 || degree(e.b) == 2) continue;
        const std::int32_t ra = find(e.a), rb = find(e.b);
        if (ra == rb) continue;
        root[at(ra)] = rb;
        attach(e.a, e.b);
        attach(e.b, e.a);
        ++joined;
    }
    // Walk the fragments: from a free end to the fragment's other end, then to the nearest
    // free end of a fragment not yet walked (a k-d tree over the free ends of planar
    // instances, else a scan).
    double scale = 1.0;
    std::optional<detail::KdTree> tree;
    if (detail::planar(instance, scale)) tree.emplace(instance.x, instance.y);
    std::vector<std::int32_t> left = tree ? tree->counts() : std::vector<std::int32_t>{};
    std::vector<std::uint8_t> gone(at(n), 0); // not a free end of an unwalked fragment
    std::vector<std::int32_t> ends;
    for (std::int32_t v = 0; v < n; ++v) {
        if (degree(v) < 2) {
            ends.push_back(v);
            continue;
        }
        gone[at(v)] = 1;
        if (tree) tree->remove(v, left);
    }
    const auto take = [&](std::int32_t v) {
        if (gone[at(v)] != 0) return;
        gone[at(v)] = 1;
        if (tree) tree->remove(v, left);
    };
    // A cycle (every city of degree 2) cannot arise: the union-find refuses its last edge.
    std::int32_t city = ends.empty() ? 0 : ends.front();
    std::int32_t placed = 0;
    while (placed < n) {
        // Walk the fragment from its free end `city`.
        take(city);
        std::int32_t previous = -1;
        for (;;) {
            tour[at(placed++)] = city;
            const std::int32_t l0 = link[2 * at(city)], l1 = link[2 * at(city) + 1];
            const std::int32_t next = l0 >= 0 && l0 != previous ? l0 : (l1 != previous ? l1 : -1);
            if (next < 0) break;
            previous = city;
            city = next;
        }
        take(city);
        if (placed == n) break;
        std::int32_t near = -1;
        if (tree) {
            near = tree->nearest_left(city, left, gone.data());
        } else {
            std::int32_t best = std::numeric_limits<std::int32_t>::max();
            for (const std::int32_t e : ends)
                if (gone[at(e)] == 0 && instance.distance(city, e) < best) {
                    best = instance.distance(city, e);
                    near = e;
                }
        }
        city = near;
    }
}

void GreedyEdgeTour::construct(SolutionBatch& batch, std::uint64_t) {
    const auto n = as_i32(problem_.size());
    std::vector<std::int32_t> tour(static_cast<std::size_t>(n));
    if (n <= 3) {
        std::iota(tour.begin(), tour.end(), 0);
    } else {
        const std::int32_t k = std::min<std::int32_t>(k_, n - 1);
        greedy_edge_tour(problem_.instance(), problem_.nearest(k).data(), k, tour);
    }
    const Objective value = problem_.evaluate(tour);
    const auto count = static_cast<std::int64_t>(batch.count());
#pragma omp parallel for schedule(static) if (count > 16)
    for (std::int64_t s = 0; s < count; ++s) {
        const auto i = static_cast<std::size_t>(s);
        std::copy(tour.begin(), tour.end(), batch[i].begin());
        batch.objective(i) = value;
    }
}

void DoubleBridge::perturb(SolutionBatch& batch, std::uint64_t seed) {
    const auto n = as_i32(problem_.size());
    if (n < 8) return; // too small for three distinct non-trivial cuts
    const Instance& instance = problem_.instance();
    const auto distance = [&instance](std::int32_t a, std::int32_t b) {
        return instance.distance(a, b);
    };
    const auto count = static_cast<std::int64_t>(batch.count());
#pragma omp parallel for schedule(static) if (count > 16)
    for (std::int64_t b = 0; b < count; ++b) {
        const auto i = static_cast<std::size_t>(b);
        Rng rng(derive_key(seed, i), 0);
        const BridgeCut cut = draw_bridge(rng, n, window_);
        std::vector<std::int32_t> scratch(static_cast<std::size_t>(cut.o3 - cut.o1));
        std::int32_t ends[6];
        batch.objective(i) += static_cast<Objective>(
            apply_bridge(batch[i].data(), n, cut, distance, scratch.data(), ends));
        if (batch.has_focus()) {
            auto focus = batch.focus(i);
            std::fill(focus.begin(), focus.end(), std::uint8_t{0});
            for (std::int32_t city : ends)
                focus[static_cast<std::size_t>(city)] = 1;
        }
    }
}

} // namespace locus::tsp
