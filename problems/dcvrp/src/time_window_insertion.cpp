// The VRPTW's insertion construction: customers by earliest deadline, each at its cheapest
// place that keeps every window, the capacity and the duration limit (time-window pieces of the
// routing library price a place in O(1)).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "locus/dcvrp/constructions.hpp"
#include "locus/error.hpp"
#include "locus/routing/time_window_route.hpp"
#include "locus/search_context.hpp"

namespace locus::dcvrp {

namespace {

using routing::TimeWindowResource;
using Piece = TimeWindowResource::Piece;

/// One route under construction with its pieces and figures.
struct TimedRoute {
    std::vector<std::int32_t> customers;
    std::vector<Piece> forward, backward;
    std::int64_t load = 0;
    double travel = 0.0;
};

} // namespace

Routes time_window_insertion(const Instance& instance) {
    if (!instance.has_time_windows())
        throw ConfigError(fmt::format("time_window_insertion needs an instance with time "
                                      "windows; {} has none (use savings or cheapest_insertion)",
                                      instance.name));
    const auto n = static_cast<std::size_t>(instance.n);
    std::vector<double> service(n, instance.service_time);
    service[static_cast<std::size_t>(kDepot)] = 0.0;
    const TimeWindowResource windows{instance.ready.data(), instance.due.data(), service.data(),
                                     kDepot};
    const auto travel = [&instance](std::int32_t a, std::int32_t b) {
        return instance.distance(a, b);
    };
    // Earliest deadline first; ties by earliest start, then index.
    std::vector<std::int32_t> order(n - 1);
    std::iota(order.begin(), order.end(), 1);
    std::sort(order.begin(), order.end(), [&instance](std::int32_t a, std::int32_t b) {
        const auto i = static_cast<std::size_t>(a);
        const auto j = static_cast<std::size_t>(b);
        if (instance.due[i] != instance.due[j]) return instance.due[i] < instance.due[j];
        if (instance.ready[i] != instance.ready[j]) return instance.ready[i] < instance.ready[j];
        return a < b;
    });
    std::vector<TimedRoute> routes;
    const auto refresh = [&](TimedRoute& r) {
        const auto m = static_cast<std::int32_t>(r.customers.size());
        r.forward.resize(r.customers.size() + 2);
        r.backward.resize(r.customers.size() + 2);
        routing::time_window_pieces(windows, r.customers.data(), m, travel, r.forward.data(),
                                    r.backward.data());
    };
    std::size_t step = 0;
    for (const std::int32_t u : order) {
        if (++step % 256 == 0) throw_if_stopped();
        const std::int64_t q = instance.demand[static_cast<std::size_t>(u)];
        Piece alone;
        windows.leaf(alone, u);
        double best = std::numeric_limits<double>::infinity();
        std::size_t best_route = routes.size();
        std::size_t best_place = 0;
        for (std::size_t r = 0; r < routes.size(); ++r) {
            const TimedRoute& route = routes[r];
            if (route.load + q > instance.capacity) continue;
            const std::size_t m = route.customers.size();
            for (std::size_t j = 0; j <= m; ++j) { // after the j-th customer (0: the depot)
                const std::int32_t a = j == 0 ? kDepot : route.customers[j - 1];
                const std::int32_t b = j == m ? kDepot : route.customers[j];
                const double into = travel(a, u);
                const double out = travel(u, b);
                const double added = into + out - travel(a, b);
                if (added >= best) continue;
                if (instance.has_duration_limit() &&
                    !within_duration(route.travel + added +
                                         instance.service_time * static_cast<double>(m + 1),
                                     instance.max_duration))
                    continue;
                if (routing::joined_time_warp(route.forward[j], alone, route.backward[j + 1], into,
                                              out) > 0.0)
                    continue;
                best = added;
                best_route = r;
                best_place = j;
            }
        }
        if (best_route == routes.size()) {
            // A route of its own: feasible by the instance invariants (validate_instance).
            routes.emplace_back();
            best_place = 0;
            best = travel(kDepot, u) + travel(u, kDepot);
        }
        TimedRoute& route = routes[best_route];
        route.customers.insert(route.customers.begin() + static_cast<std::ptrdiff_t>(best_place),
                               u);
        route.load += q;
        route.travel += best;
        refresh(route);
    }
    Routes result;
    result.reserve(routes.size());
    for (TimedRoute& route : routes)
        result.push_back(std::move(route.customers));
    return result;
}

} // namespace locus::dcvrp
