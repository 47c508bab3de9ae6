// Segment resources of a giant tour: hand-computed routes, summaries from the zero- and
// one-level hierarchies against a direct fold, and 2-opt recombinations (segments reversed and
// spanning routes) against the summary of the moved tour.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "locus/rng.hpp"
#include "locus/routing/duration_resource.hpp"
#include "locus/routing/giant_tour_moves.hpp"
#include "locus/routing/load_resource.hpp"
#include "locus/routing/segment_table.hpp"

// The composition of a capacitated, duration-limited routing problem.
using RouteResources = locus::routing::SegmentResources<locus::routing::LoadResource,
                                                        locus::routing::DurationResource>;
using RouteSegment = RouteResources::Segment;
using SegmentTable = locus::routing::SegmentTable<RouteResources>;

namespace {

struct Plane {
    std::vector<double> x, y;
    bool integral = true;
    double operator()(std::int32_t u, std::int32_t v) const {
        const double d = std::hypot(x[static_cast<std::size_t>(u)] - x[static_cast<std::size_t>(v)],
                                    y[static_cast<std::size_t>(u)] - y[static_cast<std::size_t>(v)]);
        return integral ? std::nearbyint(d) : d;
    }
};

RouteSegment fold(const RouteResources& r, const std::vector<std::int32_t>& tour, std::size_t i,
                  std::size_t j, const Plane& d) {
    RouteSegment s = r.leaf(tour[i]);
    for (std::size_t k = i + 1; k <= j; ++k)
        s = r.join(s, r.leaf(tour[k]), d(tour[k - 1], tour[k]));
    return s;
}

void check_same(const RouteSegment& a, const RouteSegment& b) {
    CHECK(a.first == b.first);
    CHECK(a.last == b.last);
    CHECK(a.cost == doctest::Approx(b.cost).epsilon(1e-12));
    CHECK(a.depot == b.depot);
    CHECK(a.head.load == b.head.load);
    CHECK(a.head.customers == b.head.customers);
    CHECK(a.head.duration == doctest::Approx(b.head.duration).epsilon(1e-12));
    CHECK(a.tail.load == b.tail.load);
    CHECK(a.tail.customers == b.tail.customers);
    CHECK(a.tail.duration == doctest::Approx(b.tail.duration).epsilon(1e-12));
    CHECK(a.routes == b.routes);
    CHECK(a.excess_load == b.excess_load);
    CHECK(a.excess_duration == doctest::Approx(b.excess_duration).epsilon(1e-12));
}

struct Case {
    Plane plane;
    std::vector<std::int64_t> demand;
    std::vector<double> service;
    std::vector<std::int32_t> tour;
};

/// Customers 1..m in random order with `routes` - 1 extra depot copies inserted at random
/// positions (empty routes possible), the tour starting and ending at the depot 0.
Case random_case(std::int32_t m, std::int32_t routes, std::uint64_t seed, bool integral) {
    Case c;
    locus::Rng rng(seed, 0);
    c.plane.integral = integral;
    for (std::int32_t v = 0; v <= m; ++v) {
        c.plane.x.push_back(rng.below(1000));
        c.plane.y.push_back(rng.below(1000));
        c.demand.push_back(v == 0 ? 0 : 1 + rng.below(10));
        c.service.push_back(v == 0 ? 0.0 : static_cast<double>(rng.below(20)));
    }
    std::vector<std::int32_t> inner;
    for (std::int32_t v = 1; v <= m; ++v) inner.push_back(v);
    for (std::int32_t k = 1; k < routes; ++k) inner.push_back(0);
    for (std::size_t k = inner.size() - 1; k > 0; --k)
        std::swap(inner[k], inner[rng.below(static_cast<std::uint32_t>(k + 1))]);
    c.tour.push_back(0);
    c.tour.insert(c.tour.end(), inner.begin(), inner.end());
    c.tour.push_back(0);
    return c;
}

/// The largest load and duration of the routes of `c`'s tour.
void largest_route(const Case& c, std::int64_t& most_load, double& most_duration) {
    std::int64_t load = 0;
    double duration = 0.0;
    most_load = 0;
    most_duration = 0.0;
    for (std::size_t k = 1; k < c.tour.size(); ++k) {
        const std::int32_t v = c.tour[k];
        duration += c.plane(c.tour[k - 1], v) + c.service[static_cast<std::size_t>(v)];
        load += c.demand[static_cast<std::size_t>(v)];
        if (v != 0) continue;
        most_load = std::max(most_load, load);
        most_duration = std::max(most_duration, duration);
        load = 0;
        duration = 0.0;
    }
}

/// The distances of `c` as an n x n matrix.
std::vector<double> matrix_of(const Case& c) {
    const auto nodes = static_cast<std::int32_t>(c.plane.x.size());
    std::vector<double> matrix(static_cast<std::size_t>(nodes) * nodes);
    for (std::int32_t u = 0; u < nodes; ++u)
        for (std::int32_t v = 0; v < nodes; ++v)
            matrix[static_cast<std::size_t>(u) * nodes + v] = c.plane(u, v);
    return matrix;
}

} // namespace

TEST_CASE("segment resources: two routes on a line, hand-computed") {
    // Depot at 0; customers 1..4 at x = 1, 2, 3, 4; tour 0 1 2 0 3 4 0.
    Plane line;
    line.x = {0, 1, 2, 3, 4};
    line.y = {0, 0, 0, 0, 0};
    const std::vector<std::int64_t> demand{0, 4, 5, 3, 6};
    const std::vector<double> service{0, 1, 1, 1, 1};
    RouteResources r{{demand.data(), 8}, {service.data(), 9.0}, 0};
    const std::vector<std::int32_t> tour{0, 1, 2, 0, 3, 4, 0};
    const RouteSegment all = fold(r, tour, 0, tour.size() - 1, line);
    // Route 1: 0-1-2-0, length 4, load 9 (1 over 8), duration 4 + 2 = 6.
    // Route 2: 0-3-4-0, length 8, load 9 (1 over), duration 8 + 2 = 10 (1 over 9).
    CHECK(all.cost == 12.0);
    CHECK(all.routes == 2);
    CHECK(all.excess_load == 2);
    CHECK(all.excess_duration == 1.0);
    const auto verdict = locus::routing::closed_tour(all, 1, 1000.0);
    CHECK_FALSE(verdict.feasible);
    CHECK(verdict.objective == 1012.0);
    // The segment 2 0 3: head = customer 2 into the depot, tail = depot to customer 3.
    const RouteSegment mid = fold(r, tour, 2, 4, line);
    CHECK(mid.depot);
    CHECK(mid.head.load == 5);
    CHECK(mid.head.duration == 3.0); // service 1 + edge 2 -> 0 of length 2
    CHECK(mid.tail.load == 3);
    CHECK(mid.tail.duration == 4.0); // edge 0 -> 3 of length 3 + service 1
    CHECK(mid.routes == 0);
    const RouteSegment back = RouteResources::reversed(mid);
    CHECK(back.first == 3);
    CHECK(back.head.load == 3);
    CHECK(back.tail.load == 5);
    // Feasible with capacity 9 and duration 10.
    RouteResources loose{{demand.data(), 9}, {service.data(), 10.0}, 0};
    CHECK(locus::routing::closed_tour(fold(loose, tour, 0, tour.size() - 1, line), 2, 1.0).feasible);
}

TEST_CASE("segment resources: hierarchies give the summaries of a direct fold") {
    for (const bool integral : {true, false}) {
        const Case c = random_case(60, 9, integral ? 3 : 4, integral);
        RouteResources r{{c.demand.data(), 25}, {c.service.data(), 400.0}, 0};
        const auto n = static_cast<std::int32_t>(c.tour.size());
        for (const std::int32_t part : {0, SegmentTable::part_for(n), 5}) {
            CAPTURE(part);
            SegmentTable table;
            table.build(r, c.tour, c.plane, part);
            for (std::int32_t i = 0; i < n; i += 3)
                for (std::int32_t j = i; j < n; j += 2)
                    check_same(table.segment(i, j), fold(r, c.tour, static_cast<std::size_t>(i),
                                                         static_cast<std::size_t>(j), c.plane));
        }
        SegmentTable one;
        one.build(r, c.tour, c.plane, SegmentTable::part_for(n));
        SegmentTable zero;
        zero.build(r, c.tour, c.plane, 0);
        CHECK(one.summaries() * 5 < zero.summaries());
    }
}

TEST_CASE("segment resources: every 2-opt move from three summaries, one reversed") {
    const Case c = random_case(40, 7, 11, true);
    RouteResources r{{c.demand.data(), 30}, {c.service.data(), 500.0}, 0};
    const auto n = static_cast<std::int32_t>(c.tour.size());
    SegmentTable table;
    table.build(r, c.tour, c.plane, SegmentTable::part_for(n));
    int checked = 0;
    for (std::int32_t i = 0; i + 2 < n - 1; ++i) {
        for (std::int32_t j = i + 2; j < n - 1; ++j) {
            // Remove edges (i, i+1) and (j, j+1); reverse positions i+1..j.
            std::vector<std::int32_t> moved = c.tour;
            std::reverse(moved.begin() + i + 1, moved.begin() + j + 1);
            const RouteSegment expected = fold(r, moved, 0, moved.size() - 1, c.plane);
            const auto& t = c.tour;
            RouteSegment s = r.join(table.segment(0, i),
                                    RouteResources::reversed(table.segment(i + 1, j)),
                                    c.plane(t[static_cast<std::size_t>(i)], t[static_cast<std::size_t>(j)]));
            s = r.join(s, table.segment(j + 1, n - 1),
                       c.plane(t[static_cast<std::size_t>(i + 1)], t[static_cast<std::size_t>(j + 1)]));
            check_same(s, expected);
            const auto a = locus::routing::closed_tour(s, 6, 100.0);
            const auto b = locus::routing::closed_tour(expected, 6, 100.0);
            CHECK(a.feasible == b.feasible);
            CHECK(a.objective == b.objective);
            ++checked;
        }
    }
    CHECK(checked > 600);
}

TEST_CASE("giant-tour 2-opt evaluator: deltas of feasible moves, infeasible ones excluded, "
          "the engine's best move") {
    const Case c = random_case(45, 8, 21, true);
    const auto nodes = static_cast<std::int32_t>(c.plane.x.size());
    const std::vector<double> matrix = matrix_of(c);
    // Limits just above the start's largest route: the start is feasible, some moves are not.
    std::int64_t most_load = 0;
    double most_duration = 0.0;
    largest_route(c, most_load, most_duration);
    RouteResources r{{c.demand.data(), most_load + 5}, {c.service.data(), most_duration + 100.0}, 0};
    const auto n = static_cast<std::int32_t>(c.tour.size());
    const RouteSegment whole = fold(r, c.tour, 0, c.tour.size() - 1, c.plane);
    REQUIRE(whole.excess_load == 0);
    REQUIRE(whole.excess_duration == 0.0);
    SegmentTable table;
    table.build(r, c.tour, c.plane, SegmentTable::part_for(n));
    const locus::routing::SegmentView<RouteResources> view = table.view();
    const double objective = whole.cost;
    const std::int32_t routes = whole.routes;
    // A fleet of 6: moves to more routes than max(6, routes now) are not moves.
    locus::routing::GiantTwoOpt<RouteResources> eval;
    eval.tours.segments = &view;
    eval.tours.tours = c.tour.data();
    eval.tours.objectives = &objective;
    eval.tours.routes = &routes;
    eval.tours.length = n;
    eval.tours.distance = {matrix.data(), nodes};
    eval.tours.vehicles = 6;
    const auto grid = eval.grid();
    int feasible = 0;
    int infeasible = 0;
    double best = locus::gpu::invalid_delta<double>();
    std::uint64_t best_index = locus::kNoMove;
    for (std::uint64_t index = 0; index < grid.size(); ++index) {
        const auto m = eval.decode(0, index);
        const double d = eval(eval.row(0, static_cast<std::uint32_t>(m.i)),
                              static_cast<std::uint32_t>(m.j));
        CHECK(eval.well_formed(0, index) == (m.j >= m.i + 2 && m.j <= n - 2));
        if (m.j < m.i + 2 || m.j > n - 2) {
            CHECK(d == locus::gpu::invalid_delta<double>());
            continue;
        }
        std::vector<std::int32_t> moved = c.tour;
        std::reverse(moved.begin() + m.i + 1, moved.begin() + m.j + 1);
        for (std::int32_t k = 0; k < n; ++k)
            CHECK(moved[static_cast<std::size_t>(k)] == c.tour[static_cast<std::size_t>(m.source(k))]);
        const RouteSegment s = fold(r, moved, 0, moved.size() - 1, c.plane);
        if (s.excess_load != 0 || s.excess_duration != 0.0 ||
            s.routes > std::max(6, routes)) {
            CHECK(d == locus::gpu::invalid_delta<double>());
            ++infeasible;
            continue;
        }
        ++feasible;
        const double expected = s.cost - objective;
        CHECK(d == doctest::Approx(expected).epsilon(1e-12));
        if (d < best) {
            best = d;
            best_index = index;
        }
    }
    CHECK(feasible > 300);
    CHECK(infeasible > 10);
    locus::gpu::MoveResult<double> chosen{};
    locus::gpu::select_moves_cpu(eval, 1, locus::Pivot::best, &chosen, 2);
    CHECK(chosen.index == best_index);
    CHECK(chosen.delta == best);
}

TEST_CASE("giant-tour pure 3-opt evaluator: every reconnection against direct evaluation, "
          "triangular rows, the engine's best and first moves") {
    const Case c = random_case(30, 6, 33, false);
    const auto nodes = static_cast<std::int32_t>(c.plane.x.size());
    const std::vector<double> matrix = matrix_of(c);
    const auto n = static_cast<std::int32_t>(c.tour.size());
    const RouteSegment start = fold(RouteResources{{c.demand.data(), 1000}, {c.service.data(), 1e9}, 0},
                                    c.tour, 0, c.tour.size() - 1, c.plane);
    // Capacity and duration that the start just meets, so that many moves break them.
    std::int64_t most_load = 0;
    double most_duration = 0.0;
    largest_route(c, most_load, most_duration);
    const RouteResources r{{c.demand.data(), most_load}, {c.service.data(), most_duration + 1e-7}, 0};
    for (const std::int32_t part : {0, SegmentTable::part_for(n)}) {
        CAPTURE(part);
        SegmentTable table;
        table.build(r, c.tour, c.plane, part);
        const locus::routing::SegmentView<RouteResources> view = table.view();
        const double objective = view.segment(0, n - 1).cost;
        const std::int32_t routes = view.segment(0, n - 1).routes;
        CHECK(objective == doctest::Approx(start.cost).epsilon(1e-12));
        locus::routing::GiantThreeOpt<RouteResources> eval;
        eval.tours.segments = &view;
        eval.tours.tours = c.tour.data();
        eval.tours.objectives = &objective;
        eval.tours.routes = &routes;
        eval.tours.length = n;
        eval.tours.distance = {matrix.data(), nodes};
        const auto grid = eval.grid();
        REQUIRE(grid.rows == static_cast<std::uint32_t>(4 * (n - 3) * (n - 2) / 2));
        REQUIRE(grid.cols == static_cast<std::uint32_t>(n - 1));
        std::uint64_t moves = 0;
        int feasible = 0;
        int infeasible = 0;
        double best = locus::gpu::invalid_delta<double>();
        std::uint64_t best_index = locus::kNoMove;
        std::uint64_t first_index = locus::kNoMove;
        std::int32_t last_y = 1, last_p = 0, last_x = -1;
        for (std::uint32_t row = 0; row < grid.rows; ++row) {
            const auto context = eval.row(0, row);
            // Rows enumerate y, then p, then x < y.
            CHECK(((context.y == last_y && context.p == last_p && context.x == last_x + 1) ||
                   (context.y == last_y && context.p == last_p + 1 && context.x == 0) ||
                   (context.y == last_y + 1 && context.p == 0 && context.x == 0)));
            last_y = context.y;
            last_p = context.p;
            last_x = context.x;
            const auto range = eval.columns(context);
            for (std::uint32_t col = 0; col < grid.cols; ++col) {
                const std::uint64_t index = static_cast<std::uint64_t>(row) * grid.cols + col;
                const auto m = eval.decode(0, index);
                CHECK(m.x == context.x);
                CHECK(m.y == context.y);
                CHECK(m.p == context.p);
                CHECK(m.z == static_cast<std::int32_t>(col));
                const double d = eval(context, col);
                const double lower = eval.bound(context, col);
                CHECK(lower <= d);
                const bool cell = m.z > m.y && m.z <= n - 2;
                CHECK(eval.well_formed(0, index) == cell);
                CHECK(cell == (col >= range.begin && col < range.end));
                if (!cell) {
                    CHECK(d == locus::gpu::invalid_delta<double>());
                    continue;
                }
                ++moves;
                // The moved tour, part by part.
                const auto at = [&](std::int32_t k) { return c.tour[static_cast<std::size_t>(k)]; };
                std::vector<std::int32_t> a, b, cc, rest, moved;
                for (std::int32_t k = 0; k <= m.x; ++k) a.push_back(at(k));
                for (std::int32_t k = m.x + 1; k <= m.y; ++k) b.push_back(at(k));
                for (std::int32_t k = m.y + 1; k <= m.z; ++k) cc.push_back(at(k));
                for (std::int32_t k = m.z + 1; k < n; ++k) rest.push_back(at(k));
                std::vector<std::int32_t> br(b.rbegin(), b.rend()), cr(cc.rbegin(), cc.rend());
                const std::vector<std::int32_t>* order[4][2] = {
                    {&br, &cr}, {&cc, &b}, {&cc, &br}, {&cr, &b}};
                moved = a;
                moved.insert(moved.end(), order[m.p][0]->begin(), order[m.p][0]->end());
                moved.insert(moved.end(), order[m.p][1]->begin(), order[m.p][1]->end());
                moved.insert(moved.end(), rest.begin(), rest.end());
                REQUIRE(moved.size() == c.tour.size());
                for (std::int32_t k = 0; k < n; ++k)
                    CHECK(moved[static_cast<std::size_t>(k)] == at(m.source(k)));
                const RouteSegment s = fold(r, moved, 0, moved.size() - 1, c.plane);
                if (s.excess_load != 0 || s.excess_duration != 0.0) {
                    CHECK(d == locus::gpu::invalid_delta<double>());
                    ++infeasible;
                    continue;
                }
                ++feasible;
                CHECK(d == lower);
                CHECK(d == doctest::Approx(s.cost - objective)
                               .epsilon(1e-9)
                               .scale(objective));
                if (d < best) {
                    best = d;
                    best_index = index;
                }
                if (d < 0 && first_index == locus::kNoMove) first_index = index;
            }
        }
        const std::uint64_t edges = static_cast<std::uint64_t>(n - 1);
        CHECK(moves == 4 * edges * (edges - 1) * (edges - 2) / 6);
        CHECK(feasible > 1000);
        CHECK(infeasible > 1000);
        REQUIRE(best < 0);
        locus::gpu::MoveResult<double> chosen{};
        locus::gpu::select_moves_cpu(eval, 1, locus::Pivot::best, &chosen, 2);
        CHECK(chosen.index == best_index);
        CHECK(chosen.delta == best);
        locus::gpu::select_moves_cpu(eval, 1, locus::Pivot::first, &chosen, 2);
        CHECK(chosen.index == first_index);

        // Float distances by position: bound() stays below every cell's delta, and the
        // selections do not change.
        std::vector<float> coarse(static_cast<std::size_t>(n) * n);
        for (std::int32_t i = 0; i < n; ++i)
            for (std::int32_t j = 0; j < n; ++j)
                coarse[static_cast<std::size_t>(i) * n + j] = static_cast<float>(
                    c.plane(c.tour[static_cast<std::size_t>(i)], c.tour[static_cast<std::size_t>(j)]));
        locus::routing::GiantThreeOpt<RouteResources> filtered = eval;
        filtered.tours.coarse = coarse.data();
        std::uint64_t below = 0;
        for (std::uint32_t row = 0; row < grid.rows; ++row) {
            const auto exact = eval.row(0, row);
            const auto rough = filtered.row(0, row);
            for (std::uint32_t col = 0; col < grid.cols; ++col) {
                const double d = eval(exact, col);
                CHECK(filtered(rough, col) == d);
                const double lower = filtered.bound(rough, col);
                CHECK(lower <= eval.delta_of(exact, col));
                below += lower < eval.delta_of(exact, col) ? 1 : 0;
            }
        }
        CHECK(below > moves / 2); // the float bound is a real approximation, not the exact one
        locus::gpu::select_moves_cpu(filtered, 1, locus::Pivot::best, &chosen, 2);
        CHECK(chosen.index == best_index);
        CHECK(chosen.delta == best);
        locus::gpu::select_moves_cpu(filtered, 1, locus::Pivot::first, &chosen, 2);
        CHECK(chosen.index == first_index);
    }
}
