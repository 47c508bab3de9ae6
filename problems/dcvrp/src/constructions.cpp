#include "locus/dcvrp/constructions.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <utility>

#include "locus/rng.hpp"

namespace locus::dcvrp {

Routes one_per_customer(const Instance& instance) {
    Routes routes;
    routes.reserve(static_cast<std::size_t>(instance.customers()));
    for (std::int32_t c = 1; c < instance.n; ++c)
        routes.push_back({c});
    return routes;
}

std::vector<std::int32_t> insertion_order(const Instance& instance, InsertionOrder order,
                                          std::uint64_t key) {
    std::vector<std::int32_t> customers(static_cast<std::size_t>(instance.customers()));
    std::iota(customers.begin(), customers.end(), 1);
    switch (order) {
    case InsertionOrder::index:
        break;
    case InsertionOrder::random: {
        Rng rng(key, 0);
        for (std::size_t k = customers.size(); k > 1; --k)
            std::swap(customers[k - 1], customers[rng.below(static_cast<std::uint32_t>(k))]);
        break;
    }
    case InsertionOrder::farthest:
        std::stable_sort(customers.begin(), customers.end(), [&](std::int32_t a, std::int32_t b) {
            return instance.distance(kDepot, a) > instance.distance(kDepot, b);
        });
        break;
    }
    return customers;
}

Routes cheapest_insertion(const Instance& instance, std::span<const std::int32_t> order) {
    Routes routes;
    std::vector<RouteFigures> figures;
    for (const std::int32_t c : order) {
        const std::int64_t q = instance.demand[static_cast<std::size_t>(c)];
        double best = std::numeric_limits<double>::infinity();
        std::size_t best_route = routes.size();
        std::size_t best_position = 0;
        for (std::size_t r = 0; r < routes.size(); ++r) {
            if (figures[r].load + q > instance.capacity) continue;
            const std::vector<std::int32_t>& route = routes[r];
            const double service =
                instance.service_time * static_cast<double>(figures[r].customers + 1);
            for (std::size_t p = 0; p <= route.size(); ++p) {
                const std::int32_t a = p == 0 ? kDepot : route[p - 1];
                const std::int32_t b = p == route.size() ? kDepot : route[p];
                const double delta =
                    instance.distance(a, c) + instance.distance(c, b) - instance.distance(a, b);
                if (delta < best &&
                    within_duration(figures[r].travel + delta + service, instance.max_duration)) {
                    best = delta;
                    best_route = r;
                    best_position = p;
                }
            }
        }
        if (best_route == routes.size()) {
            routes.push_back({c});
            figures.push_back(route_figures(instance, routes.back()));
            continue;
        }
        std::vector<std::int32_t>& route = routes[best_route];
        route.insert(route.begin() + static_cast<std::ptrdiff_t>(best_position), c);
        // NOTE: the figures are recomputed rather than updated by the delta, so that the
        // duration checks never drift from route_figures (which verify uses).
        figures[best_route] = route_figures(instance, route);
    }
    return routes;
}

namespace {

/// Routes being joined by the savings algorithm: route r starts as customer r alone.
class SavingsRoutes {
public:
    explicit SavingsRoutes(const Instance& instance)
        : instance_(instance), routes_(static_cast<std::size_t>(instance.n)),
          figures_(static_cast<std::size_t>(instance.n)),
          route_of_(static_cast<std::size_t>(instance.n)), count_(instance.customers()) {
        for (std::int32_t c = 1; c < instance.n; ++c) {
            const auto r = static_cast<std::size_t>(c);
            routes_[r] = {c};
            figures_[r] = route_figures(instance, routes_[r]);
            route_of_[r] = c;
        }
    }

    std::int32_t count() const { return count_; }

    /// Joins the routes of i and j through the edge (i, j) when feasible; true when joined.
    bool join(std::int32_t i, std::int32_t j) {
        const auto ri = static_cast<std::size_t>(route_of_[static_cast<std::size_t>(i)]);
        const auto rj = static_cast<std::size_t>(route_of_[static_cast<std::size_t>(j)]);
        if (ri == rj || !is_end(ri, i) || !is_end(rj, j)) return false;
        const RouteFigures& a = figures_[ri];
        const RouteFigures& b = figures_[rj];
        if (a.load + b.load > instance_.capacity) return false;
        const double travel = a.travel + b.travel - instance_.distance(i, kDepot) -
                              instance_.distance(kDepot, j) + instance_.distance(i, j);
        const double service =
            instance_.service_time * static_cast<double>(a.customers + b.customers);
        if (!within_duration(travel + service, instance_.max_duration)) return false;
        std::vector<std::int32_t>& first = routes_[ri];
        std::vector<std::int32_t>& second = routes_[rj];
        if (first.back() != i) std::reverse(first.begin(), first.end());
        if (second.front() != j) std::reverse(second.begin(), second.end());
        for (const std::int32_t c : second)
            route_of_[static_cast<std::size_t>(c)] = static_cast<std::int32_t>(ri);
        first.insert(first.end(), second.begin(), second.end());
        second.clear();
        figures_[ri] = route_figures(instance_, first);
        figures_[rj] = RouteFigures{};
        --count_;
        return true;
    }

    /// The non-empty routes by index of the route they were built on.
    Routes take() {
        Routes out;
        for (auto& route : routes_)
            if (!route.empty()) out.push_back(std::move(route));
        return out;
    }

private:
    bool is_end(std::size_t r, std::int32_t c) const {
        return routes_[r].front() == c || routes_[r].back() == c;
    }

    const Instance& instance_;
    Routes routes_;
    std::vector<RouteFigures> figures_;
    std::vector<std::int32_t> route_of_;
    std::int32_t count_;
};

struct Saving {
    double value;
    std::int32_t i;
    std::int32_t j;
};

/// The pairs i < j whose saving is positive (`positive`) or not, by decreasing saving, ties by
/// (i, j).
std::vector<Saving> sorted_savings(const Instance& instance, double shape, bool positive) {
    std::vector<Saving> pairs;
    for (std::int32_t i = 1; i < instance.n; ++i) {
        for (std::int32_t j = i + 1; j < instance.n; ++j) {
            const double value = instance.distance(kDepot, i) + instance.distance(kDepot, j) -
                                 shape * instance.distance(i, j);
            if ((value > 0.0) == positive) pairs.push_back({value, i, j});
        }
    }
    std::sort(pairs.begin(), pairs.end(), [](const Saving& a, const Saving& b) {
        if (a.value != b.value) return a.value > b.value;
        if (a.i != b.i) return a.i < b.i;
        return a.j < b.j;
    });
    return pairs;
}

} // namespace

Routes savings(const Instance& instance, std::int32_t vehicles, double shape) {
    SavingsRoutes routes(instance);
    for (const Saving& s : sorted_savings(instance, shape, true))
        routes.join(s.i, s.j);
    if (vehicles > 0 && routes.count() > vehicles) {
        // NOTE: joining routes through non-positive savings lengthens the solution; it is
        // done only to meet the fleet size, and in the same greedy order.
        for (const Saving& s : sorted_savings(instance, shape, false)) {
            if (routes.count() <= vehicles) break;
            routes.join(s.i, s.j);
        }
    }
    return routes.take();
}

} // namespace locus::dcvrp
