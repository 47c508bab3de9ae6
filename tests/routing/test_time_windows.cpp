// The time-window resource (Vidal et al. 2013's segment): pieces joined in O(1) against a
// direct simulation of the schedule, at every split point and every start time; composed with
// load and duration on giant tours, summaries from the hierarchies against a direct fold and
// route by route against simulated routes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "locus/rng.hpp"
#include "locus/routing/duration_resource.hpp"
#include "locus/routing/load_resource.hpp"
#include "locus/routing/segment_table.hpp"
#include "locus/routing/time_window_resource.hpp"
#include "locus/routing/time_window_route.hpp"

using locus::routing::TimeWindowResource;
using Piece = TimeWindowResource::Piece;
// Capacity, a duration limit and time windows in one instance.
using TimedResources =
    locus::routing::SegmentResources<locus::routing::LoadResource, locus::routing::DurationResource,
                                     TimeWindowResource>;
using TimedSegment = TimedResources::Segment;

static_assert(locus::routing::Resource<TimeWindowResource>);
static_assert(!TimedResources::symmetric);

namespace {

/// Nodes 0..m (0 the depot) with windows, service times, demands and DIMACS-style travel
/// times (Euclidean, truncated to one decimal).
struct Timed {
    std::vector<double> x, y, ready, due, service;
    std::vector<std::int64_t> demand;
    double travel(std::int32_t u, std::int32_t v) const {
        const double d =
            std::hypot(x[static_cast<std::size_t>(u)] - x[static_cast<std::size_t>(v)],
                       y[static_cast<std::size_t>(u)] - y[static_cast<std::size_t>(v)]);
        return std::floor(d * 10.0) / 10.0;
    }
    TimeWindowResource windows() const { return {ready.data(), due.data(), service.data(), 0}; }
};

/// m customers on a 100 x 100 square, horizon 1000; windows of width `width` around a random
/// time (tight widths force waiting and time warp on random sequences).
Timed random_timed(std::int32_t m, double width, std::uint64_t seed) {
    Timed t;
    locus::Rng rng(seed, 0);
    for (std::int32_t v = 0; v <= m; ++v) {
        t.x.push_back(rng.below(101));
        t.y.push_back(rng.below(101));
        if (v == 0) {
            t.ready.push_back(0.0);
            t.due.push_back(1000.0);
            t.service.push_back(0.0);
            t.demand.push_back(0);
            continue;
        }
        const double centre = 50.0 + rng.below(900);
        t.ready.push_back(std::max(0.0, centre - width / 2));
        t.due.push_back(std::min(1000.0, centre + width / 2));
        t.service.push_back(static_cast<double>(rng.below(11)));
        t.demand.push_back(1 + rng.below(10));
    }
    return t;
}

/// The schedule of `nodes` when service at the first starts at time `start` (a late arrival
/// travels back to the due time): the end of the last service and the total time warp.
struct Schedule {
    double end = 0.0;
    double time_warp = 0.0;
};
Schedule simulate(const Timed& t, const std::vector<std::int32_t>& nodes, double start) {
    Schedule s;
    double time = start;
    for (std::size_t k = 0; k < nodes.size(); ++k) {
        const auto v = static_cast<std::size_t>(nodes[k]);
        if (k > 0) time += t.travel(nodes[k - 1], nodes[k]);
        time = std::max(time, t.ready[v]);
        if (time > t.due[v]) {
            s.time_warp += time - t.due[v];
            time = t.due[v];
        }
        time += t.service[v];
    }
    s.end = time;
    return s;
}

Piece fold(const TimeWindowResource& r, const Timed& t, const std::vector<std::int32_t>& nodes,
           std::size_t from, std::size_t to) {
    Piece p;
    r.leaf(p, nodes[from]);
    for (std::size_t k = from + 1; k <= to; ++k) {
        Piece one;
        r.leaf(one, nodes[k]);
        TimeWindowResource::concat(p, p, one, t.travel(nodes[k - 1], nodes[k]));
    }
    return p;
}

/// Times up to about 10^3 computed in other orders: equal within 10^-6 absolute.
doctest::Approx approx(double x) { return doctest::Approx(x).epsilon(1e-9).scale(1000.0); }

/// Equal times, infinite ones (an open window of the empty piece) exactly.
void check_time(double a, double b) {
    if (std::isinf(a) || std::isinf(b))
        CHECK(a == b);
    else
        CHECK(a == approx(b));
}

void check_same(const Piece& a, const Piece& b) {
    check_time(a.elapsed, b.elapsed);
    check_time(a.time_warp, b.time_warp);
    check_time(a.earliest_start, b.earliest_start);
    check_time(a.latest_start, b.latest_start);
}

/// A giant tour over t's customers in random order with `routes` routes (depot copies at
/// random positions, empty routes possible).
std::vector<std::int32_t> random_tour(std::int32_t m, std::int32_t routes, std::uint64_t seed) {
    locus::Rng rng(seed, 1);
    std::vector<std::int32_t> inner;
    for (std::int32_t v = 1; v <= m; ++v)
        inner.push_back(v);
    for (std::int32_t k = 1; k < routes; ++k)
        inner.push_back(0);
    for (std::size_t k = inner.size() - 1; k > 0; --k)
        std::swap(inner[k], inner[rng.below(static_cast<std::uint32_t>(k + 1))]);
    std::vector<std::int32_t> tour{0};
    tour.insert(tour.end(), inner.begin(), inner.end());
    tour.push_back(0);
    return tour;
}

TimedSegment fold_tour(const TimedResources& r, const Timed& t,
                       const std::vector<std::int32_t>& tour, std::size_t i, std::size_t j) {
    TimedSegment s = r.leaf(tour[i]);
    for (std::size_t k = i + 1; k <= j; ++k)
        s = r.join(s, r.leaf(tour[k]), t.travel(tour[k - 1], tour[k]));
    return s;
}

} // namespace

TEST_CASE("time windows: one route by hand — waiting, then time warp at a due time") {
    // Depot 0 at x = 0 with window [0, 100]; customer 1 at x = 10, window [20, 30], service 5;
    // customer 2 at x = 20, window [0, 32], service 5. Leaving at 0: arrive at 1 at 10, wait
    // to 20, leave at 25, arrive at 2 at 35 > 32: 3 of time warp, leave at 37, back at 57.
    Timed t;
    t.x = {0, 10, 20};
    t.y = {0, 0, 0};
    t.ready = {0, 20, 0};
    t.due = {100, 30, 32};
    t.service = {0, 5, 5};
    const TimeWindowResource r = t.windows();
    const std::vector<std::int32_t> customers{1, 2};
    const Piece p = fold(r, t, customers, 0, 1);
    CHECK(p.time_warp == 3.0);
    CHECK(p.earliest_start == 20.0); // starting service at 1 before 20 only waits
    CHECK(p.latest_start == 20.0);   // every later start adds time warp at 2
    CHECK(p.elapsed == 20.0);        // 5 + 10 + 5, no waiting once started at 20
    // The route with its depot edges (10 out, 20 back): the depot's window closes it.
    Piece out, back;
    TimeWindowResource::concat(out, Piece{}, p, 10.0);
    TimeWindowResource::concat(back, out, Piece{}, 20.0);
    CHECK(back.earliest_start == 10.0); // leave the depot at 10 to start at 1 at 20
    const Piece route = r.route(back);
    CHECK(route.time_warp == 3.0);
    TimeWindowResource::Excess e;
    r.close(e, back);
    CHECK(e.excess_time_warp == 3.0);
    CHECK_FALSE(TimeWindowResource::feasible(e));
    // The depot due at 40: leaving at 10, back at 10 + 50 - 3 = 57, so 17 more time warp.
    CHECK(back.elapsed == 50.0);
    t.due[0] = 40.0;
    TimeWindowResource::Excess late;
    t.windows().close(late, back);
    CHECK(late.excess_time_warp == approx(3.0 + 17.0));
    // A wide window at 2: no time warp, feasible.
    t.due = {100, 30, 60};
    TimeWindowResource::Excess ok;
    t.windows().close(ok, fold(t.windows(), t, customers, 0, 1));
    CHECK(ok.excess_time_warp == 0.0);
    CHECK(TimeWindowResource::feasible(ok));
}

TEST_CASE("time windows: the empty piece is the identity of concatenation") {
    const Timed t = random_timed(30, 60.0, 5);
    const TimeWindowResource r = t.windows();
    std::vector<std::int32_t> nodes;
    for (std::int32_t v = 1; v <= 30; ++v)
        nodes.push_back(v);
    const Piece p = fold(r, t, nodes, 0, nodes.size() - 1);
    Piece left, right;
    TimeWindowResource::concat(left, Piece{}, p, 0.0);
    TimeWindowResource::concat(right, p, Piece{}, 0.0);
    check_same(left, p);
    check_same(right, p);
    Piece both;
    TimeWindowResource::concat(both, Piece{}, Piece{}, 7.5);
    CHECK(both.elapsed == 7.5);
    CHECK(both.time_warp == 0.0);
    CHECK(std::isinf(both.earliest_start));
    CHECK(std::isinf(both.latest_start));
}

TEST_CASE("time windows: every split point of random sequences gives the direct fold, and the "
          "summary predicts the simulated schedule of every start time") {
    int warped = 0, waited = 0;
    for (const double width : {15.0, 60.0, 300.0}) {
        for (std::uint64_t seed = 1; seed <= 6; ++seed) {
            CAPTURE(width);
            CAPTURE(seed);
            const Timed t = random_timed(25, width, seed * 31 + static_cast<std::uint64_t>(width));
            const TimeWindowResource r = t.windows();
            std::vector<std::int32_t> nodes;
            for (std::int32_t v = 1; v <= 25; ++v)
                nodes.push_back(v);
            locus::Rng rng(seed, 7);
            for (std::size_t k = nodes.size() - 1; k > 0; --k)
                std::swap(nodes[k], nodes[rng.below(static_cast<std::uint32_t>(k + 1))]);
            // Every segment [i, j]: joined at every split point equals the left-to-right fold.
            for (std::size_t i = 0; i < nodes.size(); ++i) {
                for (std::size_t j = i; j < nodes.size(); ++j) {
                    const Piece whole = fold(r, t, nodes, i, j);
                    for (std::size_t s = i; s < j; ++s) {
                        Piece joined;
                        TimeWindowResource::concat(joined, fold(r, t, nodes, i, s),
                                                   fold(r, t, nodes, s + 1, j),
                                                   t.travel(nodes[s], nodes[s + 1]));
                        check_same(joined, whole);
                    }
                }
            }
            // The whole sequence against its simulation at start times before E, inside
            // [E, L] and after L: time warp TW + max(s - L, 0), end min(max(s, E), L) + D - TW.
            const Piece p = fold(r, t, nodes, 0, nodes.size() - 1);
            CHECK(p.earliest_start <= p.latest_start);
            for (const double start : {p.earliest_start - 40.0, p.earliest_start,
                                       (p.earliest_start + p.latest_start) / 2, p.latest_start,
                                       p.latest_start + 25.0, 0.0, 500.0, 990.0}) {
                CAPTURE(start);
                const Schedule sim = simulate(t, nodes, start);
                const double clamped = std::min(std::max(start, p.earliest_start), p.latest_start);
                CHECK(sim.time_warp == approx(p.time_warp + std::max(start - p.latest_start, 0.0)));
                CHECK(sim.end == approx(clamped + p.elapsed - p.time_warp));
            }
            // No start has less time warp; no start in [E, L] ends later than it must.
            if (p.time_warp > 0) ++warped;
            double travel = 0.0, service = 0.0;
            for (std::size_t k = 0; k < nodes.size(); ++k) {
                service += t.service[static_cast<std::size_t>(nodes[k])];
                if (k > 0) travel += t.travel(nodes[k - 1], nodes[k]);
            }
            CHECK(p.elapsed >= travel + service - 1e-9);
            if (p.elapsed > travel + service + 1e-9) ++waited;
        }
    }
    // The cases exercise both waiting and time warp.
    CHECK(warped > 0);
    CHECK(waited > 0);
}

TEST_CASE("time windows with capacity and a duration limit on giant tours: hierarchies against "
          "a direct fold, every route's time warp against its simulation from the depot") {
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        CAPTURE(seed);
        Timed t = random_timed(50, seed % 2 == 0 ? 80.0 : 250.0, seed + 100);
        t.due[0] = 600.0 + 100.0 * static_cast<double>(seed); // depot closes before the horizon
        const TimedResources r{{t.demand.data(), 40}, {t.service.data(), 450.0}, t.windows(), 0};
        const std::vector<std::int32_t> tour = random_tour(50, 7, seed);
        const auto n = static_cast<std::int32_t>(tour.size());
        const auto travel = [&t](std::int32_t u, std::int32_t v) { return t.travel(u, v); };
        locus::routing::SegmentTable<TimedResources> table;
        table.build(r, tour, travel, locus::routing::SegmentTable<TimedResources>::part_for(n));
        for (std::int32_t i = 0; i < n; i += 3) {
            for (std::int32_t j = i; j < n; j += 2) {
                const TimedSegment a = table.segment(i, j);
                const TimedSegment b =
                    fold_tour(r, t, tour, static_cast<std::size_t>(i), static_cast<std::size_t>(j));
                CHECK(a.routes == b.routes);
                CHECK(a.excess_load == b.excess_load);
                check_time(a.excess_duration, b.excess_duration);
                check_time(a.excess_time_warp, b.excess_time_warp);
                check_same(a.head, b.head);
                check_same(a.tail, b.tail);
            }
        }
        // Route by route: leave the depot at its ready time (the least time warp), time warp
        // at every customer and on the return after the depot's due time.
        double expected = 0.0;
        std::int64_t excess_load = 0;
        std::vector<std::int32_t> route;
        for (std::size_t k = 1; k < tour.size(); ++k) {
            if (tour[k] != 0) {
                route.push_back(tour[k]);
                continue;
            }
            if (!route.empty()) {
                std::vector<std::int32_t> closed{0};
                closed.insert(closed.end(), route.begin(), route.end());
                closed.push_back(0);
                expected += simulate(t, closed, t.ready[0]).time_warp;
                std::int64_t load = 0;
                for (const std::int32_t v : route)
                    load += t.demand[static_cast<std::size_t>(v)];
                excess_load += std::max<std::int64_t>(load - 40, 0);
            }
            route.clear();
        }
        const TimedSegment all = table.segment(0, n - 1);
        CHECK(all.excess_time_warp == approx(expected));
        CHECK(all.excess_load == excess_load);
        CHECK(expected > 0.0); // random routes under these windows are late somewhere
        CHECK(TimedResources::feasible(all) ==
              (expected == 0.0 && excess_load == 0 && all.excess_duration == 0.0));
    }
}

namespace {

/// The time warp of the route 0 customers 0 left at the depot's earliest time.
double route_time_warp(const Timed& t, const std::vector<std::int32_t>& customers) {
    std::vector<std::int32_t> closed{0};
    closed.insert(closed.end(), customers.begin(), customers.end());
    closed.push_back(0);
    return simulate(t, closed, t.ready[0]).time_warp;
}

struct RoutePieces {
    std::vector<Piece> forward, backward;
};

RoutePieces pieces_of(const Timed& t, const std::vector<std::int32_t>& route) {
    const auto m = static_cast<std::int32_t>(route.size());
    RoutePieces p;
    p.forward.resize(route.size() + 2);
    p.backward.resize(route.size() + 2);
    locus::routing::time_window_pieces(
        t.windows(), route.data(), m,
        [&t](std::int32_t a, std::int32_t b) { return t.travel(a, b); }, p.forward.data(),
        p.backward.data());
    return p;
}

} // namespace

TEST_CASE("time windows: forward and backward pieces of routes give the time warp of every "
          "relocation, removal and 2-opt* in O(1), as the simulated routes") {
    int warped = 0, clean = 0;
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        CAPTURE(seed);
        Timed t = random_timed(30, seed % 2 == 0 ? 120.0 : 1000.0, seed + 200);
        t.due[0] = 1100.0;
        locus::Rng rng(seed, 3);
        std::vector<std::int32_t> order;
        for (std::int32_t v = 1; v <= 30; ++v)
            order.push_back(v);
        for (std::size_t k = order.size() - 1; k > 0; --k)
            std::swap(order[k], order[rng.below(static_cast<std::uint32_t>(k + 1))]);
        const std::vector<std::int32_t> one(order.begin(), order.begin() + 12);
        const std::vector<std::int32_t> two(order.begin() + 12, order.begin() + 16);
        const RoutePieces p1 = pieces_of(t, one);
        const RoutePieces p2 = pieces_of(t, two);
        const auto node = [](const std::vector<std::int32_t>& r, std::size_t k) {
            return k == 0 || k > r.size() ? 0 : r[k - 1]; // 1-based position, 0 the depot
        };
        // The whole routes.
        CHECK(locus::routing::joined_time_warp(p1.forward[one.size()], p1.backward[one.size() + 1],
                                               t.travel(one.back(), 0)) ==
              approx(route_time_warp(t, one)));
        for (std::size_t i = 1; i <= one.size(); ++i) {
            const std::int32_t u = one[i - 1];
            // Removing u from route one.
            std::vector<std::int32_t> without = one;
            without.erase(without.begin() + static_cast<std::ptrdiff_t>(i - 1));
            CHECK(locus::routing::joined_time_warp(p1.forward[i - 1], p1.backward[i + 1],
                                                   t.travel(node(one, i - 1), node(one, i + 1))) ==
                  approx(route_time_warp(t, without)));
            // Inserting u into route two after its j-th customer.
            Piece leaf;
            t.windows().leaf(leaf, u);
            for (std::size_t j = 0; j <= two.size(); ++j) {
                std::vector<std::int32_t> with = two;
                with.insert(with.begin() + static_cast<std::ptrdiff_t>(j), u);
                const double expected = route_time_warp(t, with);
                CHECK(locus::routing::joined_time_warp(
                          p2.forward[j], leaf, p2.backward[j + 1], t.travel(node(two, j), u),
                          t.travel(u, node(two, j + 1))) == approx(expected));
                (expected > 0 ? warped : clean) += 1;
            }
        }
        // 2-opt*: the first a customers of route one, then route two from its b-th customer.
        for (std::size_t a = 0; a <= one.size(); ++a) {
            for (std::size_t b = 1; b <= two.size() + 1; ++b) {
                std::vector<std::int32_t> joined(one.begin(),
                                                 one.begin() + static_cast<std::ptrdiff_t>(a));
                joined.insert(joined.end(), two.begin() + static_cast<std::ptrdiff_t>(b - 1),
                              two.end());
                CHECK(locus::routing::joined_time_warp(p1.forward[a], p2.backward[b],
                                                       t.travel(node(one, a), node(two, b))) ==
                      approx(route_time_warp(t, joined)));
            }
        }
    }
    // Both verdicts occur among the insertions.
    CHECK(warped > 0);
    CHECK(clean > 0);
}
