// Segment summaries composed per resource against direct evaluation on random giant tours:
// every segment's summary from O(1) joins equals the one recomputed from its routes, joins are
// associative, and each resource's part depends on that resource only. Split against every
// division of small sequences; the route crossover keeps a permutation and its slice; the team
// forms of both equal the serial ones.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "locus/rng.hpp"
#include "locus/routing/duration_resource.hpp"
#include "locus/routing/load_resource.hpp"
#include "locus/routing/route_crossover.hpp"
#include "locus/routing/route_segment.hpp"
#include "locus/routing/split.hpp"
#include "thread_team.hpp"

namespace {

/// The customers 1..count in a random order.
std::vector<std::int32_t> shuffled_customers(std::int32_t count, locus::Rng& rng) {
    std::vector<std::int32_t> seq(static_cast<std::size_t>(count));
    for (std::int32_t k = 0; k < count; ++k)
        seq[static_cast<std::size_t>(k)] = k + 1;
    for (std::int32_t k = count - 1; k > 0; --k)
        std::swap(seq[static_cast<std::size_t>(k)],
                  seq[rng.below(static_cast<std::uint32_t>(k + 1))]);
    return seq;
}

/// The load and length (from the depot 0 and back) of the route seq[first, end).
struct RouteFigures {
    std::int64_t load = 0;
    std::int64_t length = 0;
};
template <class Distance>
RouteFigures route_figures(const std::vector<std::int32_t>& seq, std::int32_t first,
                           std::int32_t end, const std::vector<std::int64_t>& demand,
                           const Distance& d) {
    RouteFigures f;
    std::int32_t last = 0;
    for (std::int32_t q = first; q < end; ++q) {
        const std::int32_t v = seq[static_cast<std::size_t>(q)];
        f.load += demand[static_cast<std::size_t>(v)];
        f.length += d(last, v);
        last = v;
    }
    f.length += d(last, 0);
    return f;
}

/// Calls route(first, end) for the routes seq[first, end) of the division `cuts` of `count`
/// customers (bit k set: a route ends after seq[k]) while it returns true; returns the number
/// of routes visited.
template <class Route>
std::int32_t each_route(std::uint32_t cuts, std::int32_t count, Route&& route) {
    std::int32_t routes = 0;
    std::int32_t start = 0;
    for (std::int32_t k = 0; k < count; ++k) {
        if (k + 1 < count && (cuts >> k & 1u) == 0) continue;
        ++routes;
        if (!route(start, k + 1)) break;
        start = k + 1;
    }
    return routes;
}

using Both = locus::routing::SegmentResources<locus::routing::LoadResource,
                                              locus::routing::DurationResource>;
using LoadOnly = locus::routing::SegmentResources<locus::routing::LoadResource>;
using Segment = Both::Segment;

// The resources meet the contract of a composed resource; other types do not.
static_assert(locus::routing::Resource<locus::routing::LoadResource>);
static_assert(locus::routing::Resource<locus::routing::DurationResource>);
static_assert(!locus::routing::Resource<int>);
static_assert(std::is_trivially_copyable_v<Segment>);
static_assert(std::is_trivially_copyable_v<Both>);

/// A random instance with integral distances and service times, so that every sum of doubles
/// here is exact and any order of joins gives the same bits.
struct Instance {
    std::vector<std::int32_t> x, y;
    std::vector<std::int64_t> demand;
    std::vector<double> service;
    double d(std::int32_t u, std::int32_t v) const {
        const auto dx =
            static_cast<double>(x[static_cast<std::size_t>(u)] - x[static_cast<std::size_t>(v)]);
        const auto dy =
            static_cast<double>(y[static_cast<std::size_t>(u)] - y[static_cast<std::size_t>(v)]);
        return dx < 0 ? -dx + (dy < 0 ? -dy : dy) : dx + (dy < 0 ? -dy : dy); // Manhattan
    }
};

Instance random_instance(std::int32_t customers, locus::Rng& rng) {
    Instance in;
    for (std::int32_t v = 0; v <= customers; ++v) {
        in.x.push_back(static_cast<std::int32_t>(rng.below(100)));
        in.y.push_back(static_cast<std::int32_t>(rng.below(100)));
        in.demand.push_back(v == 0 ? 0 : 1 + rng.below(9));
        in.service.push_back(v == 0 ? 0.0 : static_cast<double>(rng.below(5)));
    }
    return in;
}

/// A random sequence of nodes (customers and depot copies, any order, both ends free).
std::vector<std::int32_t> random_nodes(std::int32_t customers, std::int32_t length,
                                       locus::Rng& rng) {
    std::vector<std::int32_t> t;
    for (std::int32_t k = 0; k < length; ++k)
        t.push_back(rng.below(4) == 0 ? 0
                                      : 1 + static_cast<std::int32_t>(
                                                rng.below(static_cast<std::uint32_t>(customers))));
    return t;
}

/// The summary of t[i..j] recomputed from its definition: the pieces before the first and
/// after the last depot copy (with their edges to and from it), and the routes complete in
/// between.
Segment direct(const Instance& in, const Both& r, const std::vector<std::int32_t>& t, std::size_t i,
               std::size_t j) {
    Segment s;
    s.first = t[i];
    s.last = t[j];
    std::vector<std::size_t> depots;
    for (std::size_t k = i; k <= j; ++k) {
        if (k > i) s.cost += in.d(t[k - 1], t[k]);
        if (t[k] == 0) depots.push_back(k);
    }
    s.depot = !depots.empty();
    const auto piece = [&](std::size_t a, std::size_t b) { // customers t[a..b) in one route
        Both::Piece p;
        for (std::size_t k = a; k < b; ++k) {
            const auto v = static_cast<std::size_t>(t[k]);
            p.load += in.demand[v];
            p.duration += in.service[v] + (k > a ? in.d(t[k - 1], t[k]) : 0.0);
            ++p.customers;
        }
        return p;
    };
    if (depots.empty()) {
        s.head = piece(i, j + 1);
        return s;
    }
    // An end piece next to a depot copy includes the edge to or from it.
    s.head = piece(i, depots.front());
    if (depots.front() > i) s.head.duration += in.d(t[depots.front() - 1], 0);
    s.tail = piece(depots.back() + 1, j + 1);
    if (depots.back() < j) s.tail.duration += in.d(0, t[depots.back() + 1]);
    for (std::size_t k = 0; k + 1 < depots.size(); ++k) {
        Both::Piece p = piece(depots[k] + 1, depots[k + 1]);
        if (p.customers == 0) continue;
        p.duration += in.d(0, t[depots[k] + 1]) + in.d(t[depots[k + 1] - 1], 0);
        ++s.routes;
        s.excess_load += std::max<std::int64_t>(0, p.load - r.capacity);
        s.excess_duration += std::max(0.0, p.duration - r.max_duration);
    }
    return s;
}

void check_equal(const Segment& a, const Segment& b) {
    CHECK(a.first == b.first);
    CHECK(a.last == b.last);
    CHECK(a.cost == b.cost);
    CHECK(a.depot == b.depot);
    CHECK(a.head.load == b.head.load);
    CHECK(a.head.duration == b.head.duration);
    CHECK(a.head.customers == b.head.customers);
    CHECK(a.tail.load == b.tail.load);
    CHECK(a.tail.duration == b.tail.duration);
    CHECK(a.tail.customers == b.tail.customers);
    CHECK(a.routes == b.routes);
    CHECK(a.excess_load == b.excess_load);
    CHECK(a.excess_duration == b.excess_duration);
}

/// The summary of t[i..j] joined from the summaries of t[i..k] and t[k+1..j].
Segment joined(const Instance& in, const Both& r, const std::vector<std::int32_t>& t, std::size_t i,
               std::size_t k, std::size_t j) {
    return r.join(direct(in, r, t, i, k), direct(in, r, t, k + 1, j), in.d(t[k], t[k + 1]));
}

} // namespace

TEST_CASE("route segments: O(1) joins equal the summary recomputed from the routes") {
    locus::Rng rng(11, 0);
    for (int round = 0; round < 40; ++round) {
        const Instance in = random_instance(12, rng);
        const Both r{{in.demand.data(), 15}, {in.service.data(), 120.0}, 0};
        const std::vector<std::int32_t> t = random_nodes(12, 24, rng);
        for (std::size_t i = 0; i < t.size(); ++i) {
            // Left to right from the leaves: every prefix of t[i..].
            Segment s = r.leaf(t[i]);
            check_equal(s, direct(in, r, t, i, i));
            for (std::size_t j = i + 1; j < t.size(); ++j) {
                s = r.join(s, r.leaf(t[j]), in.d(t[j - 1], t[j]));
                check_equal(s, direct(in, r, t, i, j));
                // Any split point of [i, j] gives the same summary.
                const std::size_t k = i + rng.below(static_cast<std::uint32_t>(j - i));
                check_equal(joined(in, r, t, i, k, j), s);
            }
        }
    }
}

TEST_CASE("route segments: joins are associative") {
    locus::Rng rng(12, 0);
    for (int round = 0; round < 2000; ++round) {
        const Instance in = random_instance(10, rng);
        const Both r{{in.demand.data(), 12}, {in.service.data(), 90.0}, 0};
        const std::vector<std::int32_t> t = random_nodes(10, 16, rng);
        // Three consecutive segments [0, a], [a+1, b], [b+1, 15].
        const auto a = static_cast<std::size_t>(rng.below(14));
        const std::size_t b = a + 1 + rng.below(static_cast<std::uint32_t>(14 - a));
        const Segment x = direct(in, r, t, 0, a);
        const Segment y = direct(in, r, t, a + 1, b);
        const Segment z = direct(in, r, t, b + 1, 15);
        const double xy = in.d(t[a], t[a + 1]);
        const double yz = in.d(t[b], t[b + 1]);
        const Segment left = r.join(r.join(x, y, xy), z, yz);
        const Segment right = r.join(x, r.join(y, z, yz), xy);
        check_equal(left, right);
        check_equal(left, direct(in, r, t, 0, 15));
    }
}

TEST_CASE("route segments: reversal exchanges the ends, a closed tour's verdict") {
    locus::Rng rng(13, 0);
    const Instance in = random_instance(9, rng);
    const Both r{{in.demand.data(), 14}, {in.service.data(), 100.0}, 0};
    for (int round = 0; round < 500; ++round) {
        const std::vector<std::int32_t> t = random_nodes(9, 14, rng);
        std::vector<std::int32_t> back(t.rbegin(), t.rend());
        check_equal(Both::reversed(direct(in, r, t, 0, t.size() - 1)),
                    direct(in, r, back, 0, back.size() - 1));
        // Closed: both ends at the depot, every route complete.
        std::vector<std::int32_t> closed{0};
        closed.insert(closed.end(), t.begin(), t.end());
        closed.push_back(0);
        const Segment s = direct(in, r, closed, 0, closed.size() - 1);
        const auto v = locus::routing::closed_tour(s, 2, 50.0);
        CHECK(v.feasible == (s.excess_load == 0 && s.excess_duration == 0.0));
        CHECK(v.feasible == Both::feasible(s));
        CHECK(v.routes == s.routes);
        CHECK(v.objective == s.cost + 50.0 * std::max(0, s.routes - 2));
    }
}

TEST_CASE("route segments: a resource's part does not depend on the other resources") {
    locus::Rng rng(14, 0);
    for (int round = 0; round < 500; ++round) {
        const Instance in = random_instance(8, rng);
        const Both both{{in.demand.data(), 10}, {in.service.data(), 60.0}, 0};
        const LoadOnly load{{in.demand.data(), 10}, 0};
        const std::vector<std::int32_t> t = random_nodes(8, 12, rng);
        Segment s = both.leaf(t[0]);
        LoadOnly::Segment l = load.leaf(t[0]);
        for (std::size_t k = 1; k < t.size(); ++k) {
            const double edge = in.d(t[k - 1], t[k]);
            s = both.join(s, both.leaf(t[k]), edge);
            l = load.join(l, load.leaf(t[k]), edge);
        }
        CHECK(l.head.load == s.head.load);
        CHECK(l.tail.load == s.tail.load);
        CHECK(l.excess_load == s.excess_load);
        CHECK(l.routes == s.routes);
        CHECK(l.cost == s.cost);
        CHECK(LoadOnly::feasible(l) == (s.excess_load == 0));
    }
}

TEST_CASE("Split: the least cost over every division of small sequences") {
    locus::Rng rng(15, 0);
    for (int round = 0; round < 300; ++round) {
        const auto count = static_cast<std::int32_t>(1 + rng.below(9));
        std::vector<std::int64_t> demand(static_cast<std::size_t>(count) + 1, 0);
        std::vector<std::int64_t> matrix(static_cast<std::size_t>((count + 1) * (count + 1)));
        std::vector<std::int32_t> px, py;
        for (std::int32_t v = 0; v <= count; ++v) {
            px.push_back(static_cast<std::int32_t>(rng.below(50)));
            py.push_back(static_cast<std::int32_t>(rng.below(50)));
            if (v > 0) demand[static_cast<std::size_t>(v)] = 1 + rng.below(6);
        }
        for (std::int32_t u = 0; u <= count; ++u)
            for (std::int32_t v = 0; v <= count; ++v)
                matrix[static_cast<std::size_t>(u * (count + 1) + v)] =
                    std::abs(px[static_cast<std::size_t>(u)] - px[static_cast<std::size_t>(v)]) +
                    std::abs(py[static_cast<std::size_t>(u)] - py[static_cast<std::size_t>(v)]);
        const auto d = [&](std::int32_t u, std::int32_t v) {
            return matrix[static_cast<std::size_t>(u * (count + 1) + v)];
        };
        const locus::routing::SplitLimits limits{demand.data(), 10, 2, 200, {}, 0};
        const std::vector<std::int32_t> seq = shuffled_customers(count, rng);
        // Every division: bit k set = a route ends after seq[k].
        std::int64_t best = -1;
        std::int32_t best_routes = 0;
        for (std::uint32_t cuts = 0; cuts < (1u << (count - 1)); ++cuts) {
            std::int64_t cost = 0;
            bool ok = true;
            const std::int32_t routes =
                each_route(cuts, count, [&](std::int32_t first, std::int32_t end) {
                    const RouteFigures route = route_figures(seq, first, end, demand, d);
                    ok = route.load <= limits.capacity &&
                         route.length + limits.service * (end - first) <= limits.max_duration;
                    cost += route.length;
                    return ok;
                });
            if (ok && (best < 0 || cost < best)) {
                best = cost;
                best_routes = routes;
            }
        }
        std::vector<std::int64_t> label(static_cast<std::size_t>(count) + 1);
        std::vector<std::int32_t> from(static_cast<std::size_t>(count) + 1);
        const std::int32_t routes =
            locus::routing::split_routes(seq.data(), count, d, limits, label.data(), from.data());
        if (best < 0) {
            CHECK(routes == -1);
            continue;
        }
        REQUIRE(routes > 0);
        CHECK(label[static_cast<std::size_t>(count)] == best);
        // The written row: markers before routes, every customer once, the same cost.
        const std::int32_t width = 2 * count;
        std::vector<std::int32_t> row(static_cast<std::size_t>(width), -1);
        locus::routing::write_split(seq.data(), count, from.data(), routes, row.data(), width);
        CHECK(row[0] == 0);
        CHECK(std::count(row.begin(), row.end(), 0) == width - count);
        std::int64_t cost = 0;
        for (std::int32_t q = 0; q < width; ++q)
            cost +=
                d(row[static_cast<std::size_t>(q)], row[static_cast<std::size_t>((q + 1) % width)]);
        CHECK(cost == best);
        CHECK(routes >= 1);
        CHECK(best_routes >= 1);
    }
}

TEST_CASE("Split within a fleet: at most K routes when loads up to twice the capacity allow "
          "them, the least penalised cost among divisions of as many routes (of all within "
          "the fleet when it uses all K); -1 below") {
    locus::Rng rng(29, 0);
    constexpr std::int64_t kCapacity = 10;
    constexpr std::int64_t kWeight = 3; // per unit of load over the capacity
    int fewer_than_hard = 0;            // rounds where the hard Split needed more routes
    for (int round = 0; round < 300; ++round) {
        const auto count = static_cast<std::int32_t>(2 + rng.below(8));
        std::vector<std::int64_t> demand(static_cast<std::size_t>(count) + 1, 0);
        std::vector<std::int32_t> px, py;
        for (std::int32_t v = 0; v <= count; ++v) {
            px.push_back(static_cast<std::int32_t>(rng.below(50)));
            py.push_back(static_cast<std::int32_t>(rng.below(50)));
            if (v > 0) demand[static_cast<std::size_t>(v)] = 1 + rng.below(7);
        }
        const auto d = [&](std::int32_t u, std::int32_t v) -> std::int64_t {
            return std::abs(px[static_cast<std::size_t>(u)] - px[static_cast<std::size_t>(v)]) +
                   std::abs(py[static_cast<std::size_t>(u)] - py[static_cast<std::size_t>(v)]);
        };
        const locus::routing::SplitLimits limits{demand.data(), kCapacity, 2, 1'000'000, {}, 0};
        const std::vector<std::int32_t> seq = shuffled_customers(count, rng);
        // Every division with loads up to 2 Q: its routes and penalised cost (length plus the
        // weight times the load over Q); the least cost for each number of routes.
        std::vector<std::int64_t> least(static_cast<std::size_t>(count) + 1, -1);
        std::int32_t fewest = count + 1;
        for (std::uint32_t cuts = 0; cuts < (1u << (count - 1)); ++cuts) {
            std::int64_t cost = 0;
            bool ok = true;
            const std::int32_t routes =
                each_route(cuts, count, [&](std::int32_t first, std::int32_t end) {
                    const RouteFigures route = route_figures(seq, first, end, demand, d);
                    ok = route.load <= 2 * kCapacity;
                    cost +=
                        route.length + kWeight * std::max<std::int64_t>(0, route.load - kCapacity);
                    return ok;
                });
            if (!ok) continue;
            auto& at = least[static_cast<std::size_t>(routes)];
            if (at < 0 || cost < at) at = cost;
            fewest = std::min(fewest, routes);
        }
        REQUIRE(fewest <= count);
        std::vector<std::int64_t> label(static_cast<std::size_t>(count) + 1);
        std::vector<std::int32_t> from(static_cast<std::size_t>(count) + 1);
        CHECK(locus::routing::split_routes_within(seq.data(), count, d, limits, fewest - 1, kWeight,
                                                  label.data(), from.data()) == -1);
        const std::int32_t hard =
            locus::routing::split_routes(seq.data(), count, d, limits, label.data(), from.data());
        for (const std::int32_t fleet : {fewest, fewest + 1}) {
            INFO("round " << round << ", fleet " << fleet);
            const std::int32_t routes = locus::routing::split_routes_within(
                seq.data(), count, d, limits, fleet, kWeight, label.data(), from.data());
            REQUIRE(routes >= 1);
            CHECK(routes <= fleet);
            if (fleet == fewest && (hard < 0 || hard > fleet)) ++fewer_than_hard;
            // The division written: loads up to 2 Q, and no division of as many routes cheaper.
            std::int64_t cost = 0;
            std::int32_t counted = 0;
            for (std::int32_t k = count; k > 0; k = from[static_cast<std::size_t>(k)]) {
                const RouteFigures route =
                    route_figures(seq, from[static_cast<std::size_t>(k)], k, demand, d);
                CHECK(route.load <= 2 * kCapacity);
                cost += route.length + kWeight * std::max<std::int64_t>(0, route.load - kCapacity);
                ++counted;
            }
            CHECK(counted == routes);
            CHECK(cost == least[static_cast<std::size_t>(routes)]);
            // With the fleet's every route used, no division within the fleet is cheaper.
            if (routes == fleet)
                for (std::int32_t r = 1; r <= fleet; ++r)
                    if (least[static_cast<std::size_t>(r)] >= 0)
                        CHECK(cost <= least[static_cast<std::size_t>(r)]);
        }
    }
    CHECK(fewer_than_hard > 0); // the rounds reached the case the Split is for
}

TEST_CASE("Split under time windows: the least cost over every division, routes with time "
          "warp left out (weight 0) or charged per unit of time warp (penalised Split)") {
    locus::Rng rng(16, 0);
    std::uint64_t late_best = 0; // penalised optima with a late route
    std::uint64_t fewer = 0;     // penalised optima with fewer routes than the hard ones
    for (int round = 0; round < 400; ++round) {
        const auto count = static_cast<std::int32_t>(1 + rng.below(9));
        const std::size_t nodes = static_cast<std::size_t>(count) + 1;
        std::vector<std::int64_t> demand(nodes, 0);
        std::vector<std::int64_t> ready(nodes, 0);
        std::vector<std::int64_t> due(nodes, 400);
        std::vector<std::int64_t> matrix(nodes * nodes);
        std::vector<std::int32_t> px, py;
        for (std::size_t v = 0; v < nodes; ++v) {
            px.push_back(static_cast<std::int32_t>(rng.below(50)));
            py.push_back(static_cast<std::int32_t>(rng.below(50)));
            if (v == 0) continue;
            demand[v] = 1 + rng.below(6);
            ready[v] = rng.below(200);
            due[v] = ready[v] + rng.below(60);
        }
        for (std::size_t u = 0; u < nodes; ++u)
            for (std::size_t v = 0; v < nodes; ++v)
                matrix[u * nodes + v] = std::abs(px[u] - px[v]) + std::abs(py[u] - py[v]);
        const auto d = [&](std::int32_t u, std::int32_t v) {
            return matrix[static_cast<std::size_t>(u) * nodes + static_cast<std::size_t>(v)];
        };
        locus::routing::FixedWindows windows;
        windows.ready = ready.data();
        windows.due = due.data();
        windows.service = 2;
        const std::vector<std::int32_t> seq = shuffled_customers(count, rng);
        std::int32_t hard_routes = -1;
        for (const std::int64_t weight : {std::int64_t{0}, std::int64_t{1}, std::int64_t{7}}) {
            CAPTURE(round);
            CAPTURE(weight);
            const locus::routing::SplitLimits limits{demand.data(), 10, 2, 300, windows, weight};
            // Every division: bit k set = a route ends after seq[k]; each route's time warp by
            // a fold of its nodes.
            std::int64_t best = -1;
            std::int32_t best_routes = 0;
            bool best_late = false;
            for (std::uint32_t cuts = 0; cuts < (1u << (count - 1)); ++cuts) {
                std::int64_t cost = 0;
                std::int32_t routes = 0;
                bool ok = true;
                bool late = false;
                std::int32_t start = 0;
                for (std::int32_t k = 0; k < count && ok; ++k) {
                    if (k + 1 < count && (cuts >> k & 1u) == 0) continue;
                    std::int64_t load = 0;
                    std::int64_t length = 0;
                    std::int32_t last = 0;
                    locus::routing::WindowFold fold(windows);
                    for (std::int32_t q = start; q <= k; ++q) {
                        const std::int32_t v = seq[static_cast<std::size_t>(q)];
                        load += demand[static_cast<std::size_t>(v)];
                        length += d(last, v);
                        fold.add(v, d(last, v));
                        last = v;
                    }
                    length += d(last, 0);
                    const std::int64_t warp = fold.close(d(last, 0));
                    ok = load <= limits.capacity &&
                         length + limits.service * (k - start + 1) <= limits.max_duration &&
                         (weight > 0 || warp == 0);
                    cost += length + weight * warp;
                    late = late || warp > 0;
                    ++routes;
                    start = k + 1;
                }
                if (ok && (best < 0 || cost < best)) {
                    best = cost;
                    best_routes = routes;
                    best_late = late;
                }
            }
            std::vector<std::int64_t> label(nodes);
            std::vector<std::int32_t> from(nodes);
            const std::int32_t routes = locus::routing::split_routes(seq.data(), count, d, limits,
                                                                     label.data(), from.data());
            if (best < 0) {
                CHECK(routes == -1);
                continue;
            }
            REQUIRE(routes > 0);
            CHECK(label[static_cast<std::size_t>(count)] == best);
            if (weight == 0) hard_routes = best_routes;
            if (weight > 0 && best_late) ++late_best;
            if (weight > 0 && hard_routes > 0 && routes < hard_routes) ++fewer;
        }
    }
    CHECK(late_best > 20); // the penalised Split does take late routes
    CHECK(fewer > 10);     // and with them fewer routes
}

TEST_CASE("route crossover: a permutation that keeps the first parent's slice") {
    locus::Rng rng(16, 0);
    for (int round = 0; round < 500; ++round) {
        const auto count = static_cast<std::int32_t>(2 + rng.below(20));
        std::vector<std::int32_t> a(static_cast<std::size_t>(count)), b(a.size());
        for (std::int32_t k = 0; k < count; ++k)
            a[static_cast<std::size_t>(k)] = b[static_cast<std::size_t>(k)] = k + 1;
        for (std::int32_t k = count - 1; k > 0; --k) {
            std::swap(a[static_cast<std::size_t>(k)],
                      a[rng.below(static_cast<std::uint32_t>(k + 1))]);
            std::swap(b[static_cast<std::size_t>(k)],
                      b[rng.below(static_cast<std::uint32_t>(k + 1))]);
        }
        std::vector<std::int32_t> child = a;
        std::vector<std::uint8_t> used(static_cast<std::size_t>(count) + 1);
        locus::Rng draw(static_cast<std::uint64_t>(round), 1);
        locus::Rng same = draw;
        locus::routing::order_crossover(child.data(), b.data(), count, used.data(), draw);
        std::vector<std::int32_t> sorted = child;
        std::sort(sorted.begin(), sorted.end());
        for (std::int32_t k = 0; k < count; ++k)
            CHECK(sorted[static_cast<std::size_t>(k)] == k + 1);
        // The slice [lo, hi] the crossover drew stays where it was in a.
        const auto i =
            static_cast<std::int32_t>(same.next_u64() % static_cast<std::uint64_t>(count));
        const auto j =
            static_cast<std::int32_t>(same.next_u64() % static_cast<std::uint64_t>(count));
        for (std::int32_t k = std::min(i, j); k <= std::max(i, j); ++k)
            CHECK(child[static_cast<std::size_t>(k)] == a[static_cast<std::size_t>(k)]);
    }
}

// The team forms of the route crossover and the Split against the serial ones: teams of 1, 3
// and 8 CPU threads (tests/support/thread_team.hpp) make the same sequences, Split labels,
// predecessors, route counts and rows as one thread, so that a block on the device does too.

namespace {

using locus::test::run_team;
using locus::test::ThreadTeam;

/// A row of `routes` routes over the customers 1..count, markers 0 before each, padded with
/// markers to 2 count words.
std::vector<std::int32_t> random_row(std::int32_t count, std::int32_t routes, locus::Rng& rng) {
    const std::vector<std::int32_t> seq = shuffled_customers(count, rng);
    std::vector<std::int32_t> row;
    std::vector<bool> cut(static_cast<std::size_t>(count), false);
    for (std::int32_t r = 1; r < routes; ++r)
        cut[1 + rng.below(static_cast<std::uint32_t>(count - 1))] = true;
    for (std::int32_t k = 0; k < count; ++k) {
        if (k == 0 || cut[static_cast<std::size_t>(k)]) row.push_back(0);
        row.push_back(seq[static_cast<std::size_t>(k)]);
    }
    row.resize(2 * static_cast<std::size_t>(count), 0);
    return row;
}

} // namespace

TEST_CASE("team route crossover: the same customers by heading and the same child as one "
          "thread, on teams of 1, 3 and 8 threads") {
    locus::Rng rng(41, 0);
    for (int round = 0; round < 60; ++round) {
        const auto count = static_cast<std::int32_t>(2 + rng.below(120));
        const auto routes = static_cast<std::int32_t>(
            1 + rng.below(static_cast<std::uint32_t>(std::min(count, 30))));
        const auto width = 2 * count;
        // Headings of the customers. A route whose headings sum to zero is the one place the
        // orders may differ (the team's takes it as the x axis); at these ranges none does.
        std::vector<std::int32_t> heading(2 * static_cast<std::size_t>(count + 1), 0);
        for (std::int32_t v = 1; v <= count; ++v) {
            heading[2 * static_cast<std::size_t>(v)] =
                static_cast<std::int32_t>(rng.below(201)) - 100;
            heading[2 * static_cast<std::size_t>(v) + 1] =
                static_cast<std::int32_t>(rng.below(201)) - 100;
        }
        const std::vector<std::int32_t> a = random_row(count, routes, rng);
        const std::vector<std::int32_t> b = random_row(count, routes, rng);
        std::vector<std::int64_t> keys(2 * static_cast<std::size_t>(count) + 2);
        std::vector<std::int32_t> order(static_cast<std::size_t>(count) + 1);
        std::vector<std::int32_t> serial_a(static_cast<std::size_t>(count));
        std::vector<std::int32_t> serial_b(serial_a.size());
        locus::routing::customers_by_heading(a.data(), width, heading.data(), keys.data(),
                                             order.data(), serial_a.data());
        locus::routing::customers_by_heading(b.data(), width, heading.data(), keys.data(),
                                             order.data(), serial_b.data());
        std::vector<std::int32_t> serial_child = serial_a;
        std::vector<std::uint8_t> used(static_cast<std::size_t>(count) + 1);
        locus::Rng draw(static_cast<std::uint64_t>(round), 3);
        locus::routing::order_crossover(serial_child.data(), serial_b.data(), count, used.data(),
                                        draw);
        for (const std::uint32_t threads : {1u, 3u, 8u}) {
            INFO("round " << round << ", " << threads << " threads, " << count << " customers");
            std::vector<std::int32_t> seq_a(serial_a.size(), -1);
            std::vector<std::int32_t> seq_b(serial_a.size(), -1);
            std::vector<std::int32_t> starts(static_cast<std::size_t>(count) + 1);
            std::vector<std::int32_t> lengths(starts.size());
            std::vector<std::uint8_t> flags(used.size());
            run_team(threads, [&](const ThreadTeam& team) {
                locus::routing::customers_by_heading(team, a.data(), width, heading.data(),
                                                     keys.data(), starts.data(), lengths.data(),
                                                     seq_a.data());
                locus::routing::customers_by_heading(team, b.data(), width, heading.data(),
                                                     keys.data(), starts.data(), lengths.data(),
                                                     seq_b.data());
            });
            CHECK(seq_a == serial_a);
            CHECK(seq_b == serial_b);
            std::vector<std::int32_t> child = seq_a;
            run_team(threads, [&](const ThreadTeam& team) {
                locus::Rng mine(static_cast<std::uint64_t>(round), 3); // every rank's copy
                locus::routing::order_crossover(team, child.data(), seq_b.data(), count,
                                                flags.data(), mine);
            });
            CHECK(child == serial_child);
        }
    }
}

TEST_CASE("team Split: the same labels, predecessors, routes and row as the serial Split, "
          "priced, within a fleet and unpriced, on teams of 1, 3 and 8 threads") {
    locus::Rng rng(42, 0);
    int within_differs = 0; // rounds where the fleet bound changed the division
    for (int round = 0; round < 60; ++round) {
        const auto count = static_cast<std::int32_t>(1 + rng.below(120));
        const std::int32_t nodes = count + 1;
        std::vector<std::int64_t> demand(static_cast<std::size_t>(nodes), 0);
        std::vector<std::int64_t> px(demand.size());
        std::vector<std::int64_t> py(demand.size());
        for (std::int32_t v = 0; v < nodes; ++v) {
            px[static_cast<std::size_t>(v)] = rng.below(1000);
            py[static_cast<std::size_t>(v)] = rng.below(1000);
            if (v > 0) demand[static_cast<std::size_t>(v)] = 1 + rng.below(20);
        }
        // Asymmetric distances, so the return legs are read as d(node, 0).
        const auto d = [&](std::int32_t u, std::int32_t v) {
            const auto su = static_cast<std::size_t>(u);
            const auto sv = static_cast<std::size_t>(v);
            return std::abs(px[su] - px[sv]) + std::abs(py[su] - py[sv]) + (u < v ? 7 : 0);
        };
        const std::int64_t capacity = 20 + rng.below(40);
        const std::int64_t service = rng.below(3) * 10;
        const std::int64_t duration =
            rng.below(2) == 0 ? std::int64_t{1} << 40 : 3000 + rng.below(6000);
        const locus::routing::SplitLimits limits{demand.data(), capacity, service, duration, {}, 0};
        const std::vector<std::int32_t> seq = shuffled_customers(count, rng);
        const std::int64_t price = rng.below(2) * rng.below(500);
        const std::int64_t weight = rng.below(2) * (1 + rng.below(50));
        std::vector<std::int64_t> label(static_cast<std::size_t>(nodes));
        std::vector<std::int32_t> from(label.size());
        const std::int32_t serial = locus::routing::split_routes_priced(
            seq.data(), count, d, limits, price, weight, label.data(), from.data());
        const std::vector<std::int64_t> serial_label = label;
        const std::vector<std::int32_t> serial_from = from;
        std::int32_t serial_within = -1;
        std::vector<std::int32_t> within_from;
        std::int32_t fleet = 0;
        if (serial > 1) {
            fleet = serial - 1;
            serial_within = locus::routing::split_routes_within(
                seq.data(), count, d, limits, fleet, 1 + weight, label.data(), from.data());
            within_from = from;
            if (serial_within > 0) ++within_differs;
        }
        std::vector<std::int32_t> serial_row;
        if (serial > 0) {
            serial_row.assign(2 * static_cast<std::size_t>(count), -1);
            locus::routing::write_split(seq.data(), count, serial_from.data(), serial,
                                        serial_row.data(), 2 * count);
        }
        for (const std::uint32_t threads : {1u, 3u, 8u}) {
            INFO("round " << round << ", " << threads << " threads, " << count << " customers");
            std::vector<std::int64_t> sums(3 * static_cast<std::size_t>(nodes), -1);
            const locus::routing::SplitSums view{sums.data(), sums.data() + nodes,
                                                 sums.data() + 2 * nodes};
            std::vector<std::int64_t> team_label(label.size(), -1);
            std::vector<std::int32_t> team_from(label.size(), 0); // as the serial run's
            std::vector<std::int32_t> bounds(label.size());
            std::vector<std::int32_t> row(2 * static_cast<std::size_t>(count), -1);
            std::vector<std::int32_t> answers(threads, -2);
            std::vector<std::int32_t> within_answers(threads, -2);
            std::vector<std::int64_t> priced_label;
            std::vector<std::int32_t> priced_from;
            run_team(threads, [&](const ThreadTeam& team) {
                locus::routing::split_sums(team, seq.data(), count, d, demand.data(), view);
                const std::int32_t routes = locus::routing::split_routes_priced(
                    team, seq.data(), count, d, limits, view, price, weight, team_label.data(),
                    team_from.data());
                answers[team.rank()] = routes;
                if (routes > 0)
                    locus::routing::write_split(team, seq.data(), count, team_from.data(), routes,
                                                row.data(), 2 * count, bounds.data());
                if (team.rank() == 0) {
                    priced_label = team_label;
                    priced_from = team_from;
                }
                team.sync();
                if (fleet > 0)
                    within_answers[team.rank()] = locus::routing::split_routes_within(
                        team, seq.data(), count, d, limits, view, fleet, 1 + weight,
                        team_label.data(), team_from.data());
            });
            CHECK(std::all_of(answers.begin(), answers.end(),
                              [&](std::int32_t r) { return r == serial; }));
            if (serial > 0) {
                CHECK(priced_label == serial_label);
                CHECK(priced_from == serial_from);
                CHECK(row == serial_row);
            }
            if (fleet > 0) {
                CHECK(std::all_of(within_answers.begin(), within_answers.end(),
                                  [&](std::int32_t r) { return r == serial_within; }));
                if (serial_within > 0) CHECK(team_from == within_from);
            }
        }
    }
    CHECK(within_differs > 10); // the fleet-bound Split ran with a division to compare
}
