// The constructions that order the customers into one giant tour by their coordinates (sweep,
// space-filling curve) and split it optimally into routes.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <span>
#include <vector>

#include "locus/dcvrp/constructions.hpp"
#include "locus/error.hpp"
#include "locus/rng.hpp"
#include "locus/routing/split.hpp"
#include "locus/search_context.hpp"

namespace locus::dcvrp {
namespace {

/// The duration limit of a split when the instance has none: far above any route's fixed-point
/// duration, and far below the split's unreached label (2^62).
constexpr std::int64_t kNoLimit = std::int64_t{1} << 60;

/// Fixed-point sums stay below this bound (with room below the split's 2^62).
constexpr double kLargestSum = 0x1p58;

/// A 2-opt move inside a route is taken when it shortens the route by more than this share of
/// its length (far above the rounding of the summed doubles, so lengths only decrease).
constexpr double kTwoOptGain = 1e-9;

/// Steps between two reads of the stop flag.
constexpr std::uint64_t kStopStride = 4096;

/// The instance's distances in fixed point, as routing::split_routes reads them; every
/// kStopStride-th distance read checks the stop flag.
class FixedDistance {
public:
    FixedDistance(const Instance& instance, double scale) : instance_(instance), scale_(scale) {}

    std::int64_t operator()(std::int32_t a, std::int32_t b) const {
        if (++reads_ % kStopStride == 0) throw_if_stopped();
        return std::llround(instance_.distance(a, b) * scale_);
    }

private:
    const Instance& instance_;
    double scale_;
    mutable std::uint64_t reads_ = 0;
};

/// The fixed-point scale of a split, and whether the distances are exact in it.
struct Scale {
    double factor = 1.0;
    bool exact = false;
};

/// 1 when every distance and the service time are integral (TSPLIB nint rounding of
/// coordinates), else 10^6 — lowered by factors of 10 (down to 1) while one route per customer,
/// which bounds the split's labels, would pass kLargestSum.
Scale split_scale(const Instance& instance) {
    if (instance.rounding == Rounding::nint && !instance.explicit_weights &&
        std::floor(instance.service_time) == instance.service_time)
        return {1.0, true};
    double bound = instance.service_time * static_cast<double>(instance.customers());
    for (std::int32_t c = 1; c < instance.n; ++c) {
        if (c % static_cast<std::int32_t>(kStopStride) == 0) throw_if_stopped();
        bound += 2.0 * instance.distance(kDepot, c);
    }
    if (instance.has_duration_limit()) bound = std::max(bound, instance.max_duration);
    Scale scale{1e6, false};
    while (scale.factor > 1.0 && bound * scale.factor > kLargestSum)
        scale.factor /= 10.0;
    return scale;
}

/// `order` cut greedily into routes: a customer starts a new route when it does not fit (load,
/// duration in the instance's doubles, summed as route_figures sums) on the current one.
void cut_greedily(const Instance& instance, std::span<const std::int32_t> order, Routes& out) {
    std::vector<std::int32_t> route;
    std::int64_t load = 0;
    double travel = 0.0; // depot to the route's last customer
    for (const std::int32_t c : order) {
        const std::int64_t demand = instance.demand[static_cast<std::size_t>(c)];
        if (!route.empty()) {
            const double reach = travel + instance.distance(route.back(), c);
            const double duration = reach + instance.distance(c, kDepot) +
                                    instance.service_time * static_cast<double>(route.size() + 1);
            if (load + demand <= instance.capacity &&
                within_duration(duration, instance.max_duration)) {
                load += demand;
                travel = reach;
                route.push_back(c);
                continue;
            }
            out.push_back(std::move(route));
            route.clear();
        }
        // NOTE: a customer alone fits (the instance invariants).
        load = demand;
        travel = instance.distance(kDepot, c);
        route.push_back(c);
    }
    if (!route.empty()) out.push_back(std::move(route));
}

/// True when `route` respects the capacity and the duration limit in the instance's doubles.
bool feasible(const Instance& instance, std::span<const std::int32_t> route) {
    const RouteFigures figures = route_figures(instance, route);
    return figures.load <= instance.capacity &&
           within_duration(figures.duration(instance), instance.max_duration);
}

/// `order` rotated to start at position `first`.
void rotate_to(std::vector<std::int32_t>& order, std::size_t first) {
    if (first < order.size())
        std::rotate(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(first),
                    order.end());
}

/// Index of (x, y) on the Hilbert curve that fills the 2^16 x 2^16 grid, from 0 at (0, 0) to
/// (2^16 - 1, 0), visiting each quadrant as a rotated copy of the whole curve.
std::uint64_t hilbert_index(std::uint32_t x, std::uint32_t y) {
    constexpr std::uint32_t side = 1u << 16;
    std::uint64_t d = 0;
    for (std::uint32_t s = side / 2; s > 0; s /= 2) {
        const std::uint32_t rx = (x & s) != 0 ? 1u : 0u;
        const std::uint32_t ry = (y & s) != 0 ? 1u : 0u;
        d += static_cast<std::uint64_t>(s) * s * ((3u * rx) ^ ry);
        // The lower quadrants are the curve turned: reflect, then exchange the axes.
        if (ry == 0) {
            if (rx == 1) {
                x = side - 1 - x;
                y = side - 1 - y;
            }
            std::swap(x, y);
        }
    }
    return d;
}

/// The grid cell of coordinate `v` on an axis that starts at `low` and spans `span`.
std::uint32_t cell(double v, double low, double span) {
    if (!(span > 0.0)) return 0;
    const double t = std::floor((v - low) / span * 65536.0);
    return static_cast<std::uint32_t>(std::clamp(t, 0.0, 65535.0));
}

/// Reverses route[i, j) when that shortens the route by more than a rounding error; true then.
/// `length` is the route's travel (for the threshold).
bool try_reversal(const Instance& instance, std::vector<std::int32_t>& route, std::size_t i,
                  std::size_t j, double length) {
    // Positions i - 1 and j are the neighbours of the reversed part (the depot at the ends).
    const std::int32_t a = i == 0 ? kDepot : route[i - 1];
    const std::int32_t b = route[i];
    const std::int32_t c = route[j - 1];
    const std::int32_t e = j == route.size() ? kDepot : route[j];
    const double delta = instance.distance(a, c) + instance.distance(b, e) -
                         instance.distance(a, b) - instance.distance(c, e);
    if (!(delta < -kTwoOptGain * std::max(1.0, length))) return false;
    std::reverse(route.begin() + static_cast<std::ptrdiff_t>(i),
                 route.begin() + static_cast<std::ptrdiff_t>(j));
    return true;
}

} // namespace

void require_coordinates(const Instance& instance, std::string_view construction) {
    if (!instance.x.empty()) return;
    throw ConfigError(fmt::format(
        "construction {}: instance {} has no node coordinates (EXPLICIT edge weights), and {} "
        "orders the customers by them; use the construction savings, which needs only "
        "distances",
        construction, instance.name, construction));
}

std::vector<std::int32_t> sweep_order(const Instance& instance, OrderStart start,
                                      std::uint64_t key) {
    require_coordinates(instance, "sweep");
    struct Polar {
        double angle;
        double radius;
        std::int32_t customer;
    };
    std::vector<Polar> polar;
    polar.reserve(static_cast<std::size_t>(instance.customers()));
    const double x0 = instance.x[kDepot];
    const double y0 = instance.y[kDepot];
    for (std::int32_t c = 1; c < instance.n; ++c) {
        const auto k = static_cast<std::size_t>(c);
        double angle = std::atan2(instance.y[k] - y0, instance.x[k] - x0);
        if (angle < 0.0) angle += 2.0 * std::numbers::pi;
        if (angle >= 2.0 * std::numbers::pi) angle = 0.0;
        polar.push_back({angle, instance.distance(kDepot, c), c});
    }
    throw_if_stopped();
    std::sort(polar.begin(), polar.end(), [](const Polar& a, const Polar& b) {
        if (a.angle != b.angle) return a.angle < b.angle;
        if (a.radius != b.radius) return a.radius < b.radius;
        return a.customer < b.customer;
    });
    std::vector<std::int32_t> order;
    order.reserve(polar.size());
    for (const Polar& p : polar)
        order.push_back(p.customer);
    if (start == OrderStart::random) {
        Rng rng(key, 0);
        const double from = rng.uniform() * 2.0 * std::numbers::pi;
        const auto first = std::partition_point(polar.begin(), polar.end(),
                                                [from](const Polar& p) { return p.angle < from; });
        rotate_to(order, static_cast<std::size_t>(first - polar.begin()));
    }
    return order;
}

std::vector<std::int32_t> curve_order(const Instance& instance, OrderStart start,
                                      std::uint64_t key) {
    require_coordinates(instance, "space_filling_curve");
    const auto [x_low, x_high] = std::minmax_element(instance.x.begin(), instance.x.end());
    const auto [y_low, y_high] = std::minmax_element(instance.y.begin(), instance.y.end());
    const double span = std::max(*x_high - *x_low, *y_high - *y_low);
    struct Point {
        std::uint64_t index;
        std::int32_t customer;
    };
    std::vector<Point> points;
    points.reserve(static_cast<std::size_t>(instance.customers()));
    for (std::int32_t c = 1; c < instance.n; ++c) {
        const auto k = static_cast<std::size_t>(c);
        points.push_back({hilbert_index(cell(instance.x[k], *x_low, span),
                                        cell(instance.y[k], *y_low, span)),
                          c});
    }
    throw_if_stopped();
    std::sort(points.begin(), points.end(), [](const Point& a, const Point& b) {
        return a.index != b.index ? a.index < b.index : a.customer < b.customer;
    });
    std::vector<std::int32_t> order;
    order.reserve(points.size());
    for (const Point& p : points)
        order.push_back(p.customer);
    if (start == OrderStart::random && !order.empty()) {
        Rng rng(key, 0);
        rotate_to(order, rng.below(static_cast<std::uint32_t>(order.size())));
    }
    return order;
}

Routes split_order(const Instance& instance, std::span<const std::int32_t> order) {
    Routes routes;
    const auto count = static_cast<std::int32_t>(order.size());
    if (count == 0) return routes;
    const Scale scale = split_scale(instance);
    routing::SplitLimits limits;
    limits.demand = instance.demand.data();
    limits.capacity = instance.capacity;
    limits.service = std::llround(instance.service_time * scale.factor);
    limits.max_duration = kNoLimit;
    if (instance.has_duration_limit()) {
        // As the route chains do: a route has at most 2n rounded terms of at most 1/2 unit
        // each, so n units below the scaled limit a route feasible in fixed point is feasible
        // in the instance's distances (no margin when they are integral).
        const double limit = std::min(std::floor(instance.max_duration * scale.factor),
                                      static_cast<double>(kNoLimit));
        limits.max_duration = static_cast<std::int64_t>(limit) - (scale.exact ? 0 : instance.n);
    }
    std::vector<std::int64_t> label(static_cast<std::size_t>(count) + 1);
    std::vector<std::int32_t> from(static_cast<std::size_t>(count) + 1);
    const FixedDistance distance(instance, scale.factor);
    const std::int32_t split =
        routing::split_routes(order.data(), count, distance, limits, label.data(), from.data());
    if (split < 0) {
        cut_greedily(instance, order, routes);
        return routes;
    }
    std::vector<std::int32_t> row(static_cast<std::size_t>(count + split));
    routing::write_split(order.data(), count, from.data(), split, row.data(),
                         static_cast<std::int32_t>(row.size()));
    routes.reserve(static_cast<std::size_t>(split));
    // The row holds a marker before every route: [0, r1..., 0, r2..., ...].
    std::size_t q = 0;
    while (q < row.size()) {
        std::size_t end = q + 1;
        while (end < row.size() && row[end] != kDepot)
            ++end;
        const std::span<const std::int32_t> route(row.data() + q + 1, end - q - 1);
        if (feasible(instance, route))
            routes.emplace_back(route.begin(), route.end());
        else
            cut_greedily(instance, route, routes);
        q = end;
    }
    return routes;
}

void two_opt_routes(const Instance& instance, Routes& routes, std::int32_t window) {
    const auto reach = static_cast<std::size_t>(std::max(window, 2));
    std::uint64_t steps = 0;
    for (std::vector<std::int32_t>& route : routes) {
        if (route.size() < 2) continue;
        const std::vector<std::int32_t> before = route;
        const double length = route_figures(instance, route).travel;
        for (bool improved = true; improved;) {
            improved = false;
            for (std::size_t i = 0; i + 1 < route.size(); ++i) {
                const std::size_t last = std::min(route.size(), i + reach);
                for (std::size_t j = i + 2; j <= last; ++j)
                    improved = try_reversal(instance, route, i, j, length) || improved;
                steps += last - i;
                if (steps >= kStopStride) {
                    steps = 0;
                    throw_if_stopped();
                }
            }
        }
        // NOTE: only the order changed and the travel decreased; the check keeps a route
        // whose recomputed duration would pass the limit by a rounding error as it was.
        if (!feasible(instance, route)) route = before;
    }
}

Routes sweep(const Instance& instance, OrderStart start, std::uint64_t key) {
    const std::vector<std::int32_t> order = sweep_order(instance, start, key);
    return split_order(instance, order);
}

Routes space_filling_curve(const Instance& instance, OrderStart start, std::uint64_t key) {
    const std::vector<std::int32_t> order = curve_order(instance, start, key);
    return split_order(instance, order);
}

} // namespace locus::dcvrp
