#include "locus/dcvrp/constructions.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <span>
#include <utility>

#include "locus/dcvrp/giant_tour_search.hpp"
#include "locus/rng.hpp"
#include "locus/routing/time_window_resource.hpp"
#include "locus/search_context.hpp"

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

void fit_fleet(const Instance& instance, Routes& routes, std::int32_t vehicles) {
    if (vehicles <= 0) return;
    std::erase_if(routes, [](const std::vector<std::int32_t>& r) { return r.empty(); });
    if (routes.size() <= static_cast<std::size_t>(vehicles)) return;
    std::vector<RouteFigures> figures;
    for (const auto& route : routes)
        figures.push_back(route_figures(instance, route));
    // Excess of a route of load l and duration t over the limits, the duration's in the
    // instance's distance units and the load's weighted like the chains' initial load weight
    // (the largest depot distance per unit of the largest demand) so both count.
    double longest = 0.0;
    std::int64_t heaviest = 1;
    for (std::int32_t c = 1; c < instance.n; ++c) {
        longest = std::max(longest, instance.distance(kDepot, c));
        heaviest = std::max(heaviest, instance.demand[static_cast<std::size_t>(c)]);
    }
    const double load_weight = std::max(longest, 1.0) / static_cast<double>(heaviest);
    const auto excess = [&](std::int64_t load, double duration) {
        const double over_load =
            static_cast<double>(std::max<std::int64_t>(0, load - instance.capacity));
        const double over_time = within_duration(duration, instance.max_duration)
                                     ? 0.0
                                     : duration - instance.max_duration;
        return over_load * load_weight + over_time;
    };
    while (routes.size() > static_cast<std::size_t>(vehicles)) {
        // Dissolve the route of least load (ties: the last such), keeping its customers.
        std::size_t lightest = 0;
        for (std::size_t r = 1; r < routes.size(); ++r)
            if (figures[r].load <= figures[lightest].load) lightest = r;
        const std::vector<std::int32_t> customers = std::move(routes[lightest]);
        routes.erase(routes.begin() + static_cast<std::ptrdiff_t>(lightest));
        figures.erase(figures.begin() + static_cast<std::ptrdiff_t>(lightest));
        for (const std::int32_t c : customers) {
            const std::int64_t q = instance.demand[static_cast<std::size_t>(c)];
            double best_excess = std::numeric_limits<double>::infinity();
            double best_delta = std::numeric_limits<double>::infinity();
            std::size_t best_route = 0;
            std::size_t best_position = 0;
            for (std::size_t r = 0; r < routes.size(); ++r) {
                const std::vector<std::int32_t>& route = routes[r];
                const double before = excess(figures[r].load, figures[r].duration(instance));
                for (std::size_t p = 0; p <= route.size(); ++p) {
                    const std::int32_t a = p == 0 ? kDepot : route[p - 1];
                    const std::int32_t b = p == route.size() ? kDepot : route[p];
                    const double delta =
                        instance.distance(a, c) + instance.distance(c, b) - instance.distance(a, b);
                    const double grown = excess(figures[r].load + q,
                                                figures[r].duration(instance) + delta +
                                                    instance.service_time) -
                                         before;
                    if (grown < best_excess || (grown == best_excess && delta < best_delta)) {
                        best_excess = grown;
                        best_delta = delta;
                        best_route = r;
                        best_position = p;
                    }
                }
            }
            std::vector<std::int32_t>& route = routes[best_route];
            route.insert(route.begin() + static_cast<std::ptrdiff_t>(best_position), c);
            figures[best_route] = route_figures(instance, route);
        }
    }
}

namespace {

/// Routes being joined by the savings algorithm: route r starts as customer r alone. With
/// time windows each route keeps the time-window piece of its customers (depot left out), so
/// a join's time warp is two O(1) concatenations (Vidal et al. 2013), and routes are joined
/// only in their own direction (a reversed route rarely keeps its windows).
class SavingsRoutes {
public:
    using Piece = routing::TimeWindowResource::Piece;

    explicit SavingsRoutes(const Instance& instance)
        : instance_(instance), routes_(static_cast<std::size_t>(instance.n)),
          figures_(static_cast<std::size_t>(instance.n)),
          route_of_(static_cast<std::size_t>(instance.n)), count_(instance.customers()) {
        if (instance.has_time_windows()) {
            service_.assign(static_cast<std::size_t>(instance.n), instance.service_time);
            service_[static_cast<std::size_t>(kDepot)] = 0.0;
            windows_ = {instance.ready.data(), instance.due.data(), service_.data(), kDepot};
            pieces_.resize(static_cast<std::size_t>(instance.n));
        }
        for (std::int32_t c = 1; c < instance.n; ++c) {
            const auto r = static_cast<std::size_t>(c);
            routes_[r] = {c};
            figures_[r] = route_figures(instance, routes_[r]);
            route_of_[r] = c;
            if (timed()) windows_.leaf(pieces_[r], c);
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
        if (timed()) {
            // i's route then j's (i its last, j its first), else j's then i's.
            Piece joined;
            const bool i_first = first.back() == i && second.front() == j && fits(ri, rj, joined);
            if (!i_first) {
                if (second.back() != j || first.front() != i || !fits(rj, ri, joined))
                    return false;
                std::swap(first, second); // j's route first, kept under index ri
                for (const std::int32_t c : first)
                    route_of_[static_cast<std::size_t>(c)] = static_cast<std::int32_t>(ri);
            }
            pieces_[ri] = joined;
        } else {
            if (first.back() != i) std::reverse(first.begin(), first.end());
            if (second.front() != j) std::reverse(second.begin(), second.end());
        }
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
    bool timed() const { return !pieces_.empty(); }

    /// Time windows: whether route `head` followed by route `tail` keeps every window (and
    /// the depot's); its customers' piece in `joined`.
    bool fits(std::size_t head, std::size_t tail, Piece& joined) const {
        const std::int32_t last = routes_[head].back();
        const std::int32_t first = routes_[tail].front();
        routing::TimeWindowResource::concat(joined, pieces_[head], pieces_[tail],
                                            instance_.distance(last, first));
        Piece depot;
        windows_.leaf(depot, kDepot);
        Piece route;
        routing::TimeWindowResource::concat(route, depot, joined,
                                            instance_.distance(kDepot, routes_[head].front()));
        routing::TimeWindowResource::concat(route, route, depot,
                                            instance_.distance(routes_[tail].back(), kDepot));
        return !(route.time_warp > 0.0);
    }

    bool is_end(std::size_t r, std::int32_t c) const {
        return routes_[r].front() == c || routes_[r].back() == c;
    }

    const Instance& instance_;
    Routes routes_;
    std::vector<RouteFigures> figures_;
    std::vector<std::int32_t> route_of_;
    std::int32_t count_;
    std::vector<double> service_;      ///< per node (the depot's 0): time windows only
    routing::TimeWindowResource windows_{};
    std::vector<Piece> pieces_;        ///< per route, its customers' piece (time windows only)
};

struct Saving {
    double value;
    std::int32_t i;
    std::int32_t j;
};

/// Decreasing saving, ties by (i, j).
bool saving_before(const Saving& a, const Saving& b) {
    if (a.value != b.value) return a.value > b.value;
    if (a.i != b.i) return a.i < b.i;
    return a.j < b.j;
}

/// The pairs i < j whose saving is positive (`positive`) or not, by decreasing saving, ties by
/// (i, j).
std::vector<Saving> sorted_savings(const Instance& instance, double shape, bool positive) {
    std::vector<Saving> pairs;
    for (std::int32_t i = 1; i < instance.n; ++i) {
        throw_if_stopped();
        for (std::int32_t j = i + 1; j < instance.n; ++j) {
            const double value = instance.distance(kDepot, i) + instance.distance(kDepot, j) -
                                 shape * instance.distance(i, j);
            if ((value > 0.0) == positive) pairs.push_back({value, i, j});
        }
    }
    std::sort(pairs.begin(), pairs.end(), saving_before);
    return pairs;
}

/// The pairs (i, j), i < j, with j among the k nearest customers of i or i among j's, each
/// once; the positive savings first, by decreasing saving (ties by (i, j)), then the others in
/// the same order. Returns the pairs and the number of positive ones.
std::pair<std::vector<Saving>, std::size_t> candidate_savings(const Instance& instance,
                                                              double shape, std::int32_t k) {
    const std::vector<std::int32_t> near = nearest_customers(instance, k);
    const auto width = static_cast<std::size_t>(k);
    std::vector<Saving> pairs;
    pairs.reserve(static_cast<std::size_t>(instance.customers()) * width);
    for (std::int32_t i = 1; i < instance.n; ++i) {
        if ((i & 4095) == 0) throw_if_stopped();
        for (std::size_t t = 0; t < width; ++t) {
            const std::int32_t j = near[static_cast<std::size_t>(i) * width + t];
            pairs.push_back({0.0, std::min(i, j), std::max(i, j)});
        }
    }
    std::sort(pairs.begin(), pairs.end(), [](const Saving& a, const Saving& b) {
        return a.i != b.i ? a.i < b.i : a.j < b.j;
    });
    pairs.erase(std::unique(pairs.begin(), pairs.end(),
                            [](const Saving& a, const Saving& b) {
                                return a.i == b.i && a.j == b.j;
                            }),
                pairs.end());
    throw_if_stopped();
    for (Saving& s : pairs)
        s.value = instance.distance(kDepot, s.i) + instance.distance(kDepot, s.j) -
                  shape * instance.distance(s.i, s.j);
    const auto positive_end = std::partition(pairs.begin(), pairs.end(),
                                             [](const Saving& s) { return s.value > 0.0; });
    throw_if_stopped();
    std::sort(pairs.begin(), positive_end, saving_before);
    throw_if_stopped();
    std::sort(positive_end, pairs.end(), saving_before);
    const auto positive = static_cast<std::size_t>(positive_end - pairs.begin());
    return {std::move(pairs), positive};
}

/// Joins the pairs of `pairs` in order; stops early once `vehicles` > 0 routes remain when
/// `to_fleet`.
void join_pairs(SavingsRoutes& routes, std::span<const Saving> pairs, std::int32_t vehicles,
                bool to_fleet) {
    std::size_t step = 0;
    for (const Saving& s : pairs) {
        if (to_fleet && routes.count() <= vehicles) break;
        if ((++step & 4095) == 0) throw_if_stopped();
        routes.join(s.i, s.j);
    }
}

} // namespace

std::int32_t savings_candidates(const Instance& instance, std::int32_t candidates) {
    if (candidates <= 0 && instance.customers() <= kSavingsAllPairsCustomers) return 0;
    const std::int32_t k = candidates > 0 ? candidates : kSavingsDefaultCandidates;
    return std::max(0, std::min(k, instance.customers() - 1));
}

Routes savings(const Instance& instance, std::int32_t vehicles, double shape,
               std::int32_t candidates) {
    SavingsRoutes routes(instance);
    const std::int32_t k = savings_candidates(instance, candidates);
    const bool fleet = vehicles > 0;
    if (k == 0) {
        join_pairs(routes, sorted_savings(instance, shape, true), vehicles, false);
        // NOTE: joining routes through non-positive savings lengthens the solution; it is
        // done only to meet the fleet size, and in the same greedy order.
        if (fleet && routes.count() > vehicles)
            join_pairs(routes, sorted_savings(instance, shape, false), vehicles, true);
        return routes.take();
    }
    const auto [pairs, positive] = candidate_savings(instance, shape, k);
    const std::span<const Saving> all(pairs);
    join_pairs(routes, all.first(positive), vehicles, false);
    if (fleet && routes.count() > vehicles)
        join_pairs(routes, all.subspan(positive), vehicles, true);
    return routes.take();
}

} // namespace locus::dcvrp
