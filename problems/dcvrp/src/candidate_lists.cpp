// The DCVRP's candidate lists: k nearest customers by a 2-d tree over the coordinates, or by a
// scan of every row for explicit weights; with time windows, k closest by a proximity that
// counts waiting and lateness, by a scan.

#include "locus/dcvrp/candidate_lists.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>

#include "locus/kd_tree.hpp"
#include "locus/search_context.hpp"

namespace locus::dcvrp {

namespace {

/// Sorts `ids` by (distance from u, id) and copies the first k to `out`.
void keep_nearest(const Instance& instance, std::int32_t u, std::vector<std::int32_t>& ids,
                  std::int32_t k, std::int32_t* out) {
    const auto closer = [&](std::int32_t a, std::int32_t b) {
        const double da = instance.distance(u, a);
        const double db = instance.distance(u, b);
        return da < db || (da == db && a < b);
    };
    std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), closer);
    std::copy(ids.begin(), ids.begin() + k, out);
}

} // namespace

std::vector<std::int32_t> nearest_customers_by_scan(const Instance& instance, std::int32_t k) {
    const std::int32_t n = instance.n;
    std::vector<std::int32_t> out(static_cast<std::size_t>(n) * static_cast<std::size_t>(k));
    std::vector<std::int32_t> order;
#pragma omp parallel for schedule(static) private(order) if (n > 256)
    for (std::int32_t u = 0; u < n; ++u) {
        if (stop_requested()) continue; // a limit or a signal: the rest is skipped, then Stopped
        order.clear();
        for (std::int32_t v = 1; v < n; ++v)
            if (v != u) order.push_back(v);
        keep_nearest(instance, u, order, k, out.data() + static_cast<std::ptrdiff_t>(u) * k);
    }
    throw_if_stopped();
    return out;
}

std::vector<std::int32_t> nearest_customers(const Instance& instance, std::int32_t k) {
    if (instance.explicit_weights || k < 1) return nearest_customers_by_scan(instance, k);
    const std::int32_t n = instance.n;
    std::vector<std::int32_t> out(static_cast<std::size_t>(n) * static_cast<std::size_t>(k));
    const KdTree tree(instance.x, instance.y);
    // The k + 1 Euclidean-nearest nodes other than u hold k customers (the depot is the one
    // non-customer); every customer with a distance (after rounding) up to the k-th of those
    // lies within the radius below, and sorting that set by (distance, id) gives the lists of
    // the scan exactly, ties and rounding included.
    const double slack = instance.rounding == Rounding::nint     ? 0.5
                         : instance.rounding == Rounding::tenths ? 0.1
                                                                 : 0.0;
    std::vector<std::pair<double, std::int32_t>> heap;
    std::vector<std::int32_t> ids;
    std::vector<double> near;
#pragma omp parallel for schedule(dynamic, 256) private(heap, ids, near) if (n > 256)
    for (std::int32_t u = 0; u < n; ++u) {
        if (stop_requested()) continue; // a limit or a signal: the rest is skipped, then Stopped
        tree.nearest(u, -1, static_cast<std::size_t>(k) + 1, heap);
        near.clear();
        for (const auto& [d2, v] : heap)
            if (v != kDepot) near.push_back(instance.distance(u, v));
        std::nth_element(near.begin(), near.begin() + (k - 1), near.end());
        const double radius = (near[static_cast<std::size_t>(k - 1)] + slack) * (1.0 + 1e-12) + 1e-9;
        tree.within(u, -1, radius, ids);
        std::erase(ids, kDepot);
        keep_nearest(instance, u, ids, k, out.data() + static_cast<std::ptrdiff_t>(u) * k);
    }
    throw_if_stopped();
    return out;
}

double window_proximity(const Instance& instance, std::int32_t i, std::int32_t j,
                        const WindowProximity& weights) {
    const auto a = static_cast<std::size_t>(i);
    const auto b = static_cast<std::size_t>(j);
    const double d = instance.distance(i, j);
    const double s = i == kDepot ? 0.0 : instance.service_time;
    const double wait = std::max(instance.ready[b] - instance.due[a] - s - d, 0.0);
    const double warp = std::max(instance.ready[a] + s + d - instance.due[b], 0.0);
    return d + weights.wait * wait + weights.warp * warp;
}

std::vector<std::int32_t> candidate_customers(const Instance& instance, std::int32_t k,
                                              const WindowProximity& weights) {
    if (!instance.has_time_windows()) return nearest_customers(instance, k);
    const std::int32_t n = instance.n;
    std::vector<std::int32_t> out(static_cast<std::size_t>(n) * static_cast<std::size_t>(k));
    std::vector<std::pair<double, std::int32_t>> scored;
#pragma omp parallel for schedule(dynamic, 64) private(scored) if (n > 256)
    for (std::int32_t u = 0; u < n; ++u) {
        if (stop_requested()) continue; // a limit or a signal: the rest is skipped, then Stopped
        scored.clear();
        for (std::int32_t v = 1; v < n; ++v)
            if (v != u)
                scored.emplace_back(std::min(window_proximity(instance, u, v, weights),
                                             window_proximity(instance, v, u, weights)),
                                    v);
        std::partial_sort(scored.begin(), scored.begin() + k, scored.end());
        for (std::int32_t q = 0; q < k; ++q)
            out[static_cast<std::size_t>(u) * static_cast<std::size_t>(k) +
                static_cast<std::size_t>(q)] = scored[static_cast<std::size_t>(q)].second;
    }
    throw_if_stopped();
    return out;
}

} // namespace locus::dcvrp
