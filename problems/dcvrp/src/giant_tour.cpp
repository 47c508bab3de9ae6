#include "locus/dcvrp/giant_tour.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

namespace locus::dcvrp {

std::size_t giant_tour_width(std::int32_t n) { return 2 * static_cast<std::size_t>(n - 1); }

std::optional<std::string> check_giant_tour(std::span<const std::int32_t> tour, std::int32_t n) {
    const std::size_t width = giant_tour_width(n);
    if (tour.size() != width)
        return fmt::format("expected {} entries, found {}", width, tour.size());
    std::vector<std::int64_t> seen_at(static_cast<std::size_t>(n), -1);
    for (std::size_t i = 0; i < tour.size(); ++i) {
        const std::int32_t v = tour[i];
        if (v < 0 || v >= n) return fmt::format("entry {} = {} is out of range 0..{}", i, v, n - 1);
        if (v == kDepot) continue;
        std::int64_t& first = seen_at[static_cast<std::size_t>(v)];
        if (first >= 0)
            return fmt::format("customer {} appears twice (entries {} and {})", v, first, i);
        first = static_cast<std::int64_t>(i);
    }
    std::int32_t missing = 0;
    std::int32_t first_missing = 0;
    for (std::int32_t c = n - 1; c >= 1; --c) {
        if (seen_at[static_cast<std::size_t>(c)] >= 0) continue;
        ++missing;
        first_missing = c;
    }
    if (missing > 0)
        return fmt::format("customer {} is not visited ({} customers missing)", first_missing,
                           missing);
    return std::nullopt;
}

Routes split_routes(std::span<const std::int32_t> tour) {
    Routes routes;
    const std::size_t width = tour.size();
    std::size_t start = 0;
    while (start < width && tour[start] != kDepot)
        ++start;
    if (start == width) return routes; // NOTE: no marker: not an encoding (precondition)
    std::vector<std::int32_t> current;
    for (std::size_t k = 1; k <= width; ++k) {
        const std::int32_t v = tour[(start + k) % width];
        if (v != kDepot) {
            current.push_back(v);
            continue;
        }
        if (!current.empty()) routes.push_back(std::move(current));
        current.clear();
    }
    return routes;
}

void encode_routes(const Routes& routes, std::span<std::int32_t> out) {
    std::size_t k = 0;
    for (const auto& route : routes) {
        if (route.empty()) continue;
        out[k++] = kDepot;
        for (const std::int32_t c : route)
            out[k++] = c;
    }
    while (k < out.size())
        out[k++] = kDepot;
}

std::vector<std::int32_t> encode_routes(const Routes& routes, std::int32_t n) {
    std::vector<std::int32_t> out(giant_tour_width(n));
    encode_routes(routes, out);
    return out;
}

double giant_tour_cost(const Instance& instance, std::span<const std::int32_t> tour) {
    const std::size_t width = tour.size();
    if (instance.rounding == Rounding::tenths && !instance.explicit_weights) {
        // Whole tenths, exact in integers: the cost is the double nearest the decimal total.
        std::int64_t tenths = 0;
        for (std::size_t i = 0; i < width; ++i)
            tenths += std::llround(instance.distance(tour[i], tour[(i + 1) % width]) * 10.0);
        return static_cast<double>(tenths) / 10.0;
    }
    double cost = 0.0;
    for (std::size_t i = 0; i < width; ++i)
        cost += instance.distance(tour[i], tour[(i + 1) % width]);
    return cost;
}

RouteFigures route_figures(const Instance& instance, std::span<const std::int32_t> route) {
    RouteFigures figures;
    std::int32_t previous = kDepot;
    for (const std::int32_t c : route) {
        figures.load += instance.demand[static_cast<std::size_t>(c)];
        figures.travel += instance.distance(previous, c);
        previous = c;
    }
    figures.travel += instance.distance(previous, kDepot);
    figures.customers = static_cast<std::int32_t>(route.size());
    return figures;
}

std::optional<std::string> check_routes(const Instance& instance, const Routes& routes,
                                        std::int32_t vehicles) {
    std::int32_t number = 0;
    for (const auto& route : routes) {
        if (route.empty()) continue;
        ++number;
        const RouteFigures figures = route_figures(instance, route);
        if (figures.load > instance.capacity)
            return fmt::format("route {} carries {}, more than CAPACITY {}", number, figures.load,
                               instance.capacity);
        const double duration = figures.duration(instance);
        if (instance.has_duration_limit() && !within_duration(duration, instance.max_duration))
            return fmt::format("route {} takes {} (travel {} + service {}), more than DISTANCE {}",
                               number, format_number(duration), format_number(figures.travel),
                               format_number(instance.service_time * figures.customers),
                               format_number(instance.max_duration));
        if (!instance.has_time_windows()) continue;
        // Leaving the depot at its earliest time gives every customer its earliest start.
        double time = instance.ready[static_cast<std::size_t>(kDepot)];
        std::int32_t previous = kDepot;
        for (const std::int32_t c : route) {
            const auto k = static_cast<std::size_t>(c);
            time = std::max(time + instance.distance(previous, c), instance.ready[k]);
            if (!within_duration(time, instance.due[k]))
                return fmt::format("route {} starts serving customer node {} at {}, after its "
                                   "latest time {}",
                                   number, instance.node_id[k], format_number(time),
                                   format_number(instance.due[k]));
            time += instance.service_time;
            previous = c;
        }
        time += instance.distance(previous, kDepot);
        if (!within_duration(time, instance.due[static_cast<std::size_t>(kDepot)]))
            return fmt::format("route {} returns to the depot at {}, after its latest time {}",
                               number, format_number(time),
                               format_number(instance.due[static_cast<std::size_t>(kDepot)]));
    }
    if (vehicles > 0 && number > vehicles)
        return fmt::format("{} routes, more than the {} vehicles", number, vehicles);
    return std::nullopt;
}

} // namespace locus::dcvrp
