// Alpha-nearness candidate lists: the sparse computation against the all-pairs reference, the
// 1-tree bound against tours, and the lists against the optimal tours of TSPLIB instances.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "test_support.hpp"
#include "locus/error.hpp"
#include "locus/tsp/alpha_nearness.hpp"
#include "locus/tsp/candidate_lists.hpp"
#include "locus/tsp/generator.hpp"
#include "locus/tsp/heuristics.hpp"
#include "locus/tsp/tour_io.hpp"
#include "locus/tsp/tsp_problem.hpp"
#include "locus/tsp/tsplib.hpp"
#include "tsp_test_instances.hpp"

using namespace locus;
using namespace locus::tsp;

namespace {

/// n cities on a circle of radius 1000 (integral coordinates: a convex polygon).
Instance polygon(std::size_t n) {
    Instance inst;
    inst.name = "polygon";
    inst.n = n;
    inst.type = EdgeWeightType::euc_2d;
    for (std::size_t i = 0; i < n; ++i) {
        const double a = 2.0 * M_PI * static_cast<double>(i) / static_cast<double>(n);
        inst.x.push_back(std::round(1000.0 * std::cos(a)));
        inst.y.push_back(std::round(1000.0 * std::sin(a)));
    }
    prepare_metric(inst, "polygon");
    return inst;
}

/// The fraction of `tour`'s edges (a, b) for which b is in a's list or a in b's.
double coverage(const std::vector<std::int32_t>& lists, std::int32_t k,
                const std::vector<std::int32_t>& tour) {
    const std::size_t n = tour.size();
    std::size_t found = 0;
    const auto listed = [&](std::int32_t a, std::int32_t b) {
        const auto row = lists.begin() + static_cast<std::ptrdiff_t>(a) * k;
        return std::find(row, row + k, b) != row + k;
    };
    for (std::size_t i = 0; i < n; ++i) {
        const std::int32_t a = tour[i], b = tour[(i + 1) % n];
        if (listed(a, b) || listed(b, a)) ++found;
    }
    return static_cast<double>(found) / static_cast<double>(n);
}

void check_lists(const std::vector<std::int32_t>& lists, std::size_t n, std::int32_t k) {
    REQUIRE(lists.size() == n * static_cast<std::size_t>(k));
    for (std::size_t a = 0; a < n; ++a) {
        std::set<std::int32_t> row;
        for (std::int32_t q = 0; q < k; ++q) {
            const std::int32_t b = lists[a * static_cast<std::size_t>(k) + static_cast<std::size_t>(q)];
            CHECK(b >= 0);
            CHECK(static_cast<std::size_t>(b) < n);
            CHECK(static_cast<std::size_t>(b) != a);
            row.insert(b);
        }
        CHECK(row.size() == static_cast<std::size_t>(k));
    }
}

} // namespace

TEST_CASE("alpha-values over the complete graph equal the all-pairs reference") {
    for (const bool matrix : {false, true}) {
        CAPTURE(matrix);
        const Instance inst = matrix ? locus::tsp::test::matrix_instance(40, 5) : locus::tsp::test::real_instance(60, 7);
        const std::size_t n = inst.n;
        for (const std::int32_t ascent : {0, 50}) {
            CAPTURE(ascent);
            const AlphaNearness a =
                alpha_nearness(inst, {static_cast<std::int32_t>(n - 1), ascent});
            REQUIRE(a.offsets.size() == n + 1);
            REQUIRE(a.adjacent.size() == n * (n - 1)); // the complete graph
            CHECK(a.iterations <= ascent);
            const auto reference = alpha_all_pairs(inst, a.pi);
            std::size_t zeros = 0;
            for (std::size_t u = 0; u < n; ++u)
                for (auto e = a.offsets[u]; e < a.offsets[u + 1]; ++e) {
                    const auto v = static_cast<std::size_t>(a.adjacent[static_cast<std::size_t>(e)]);
                    CHECK(a.alpha[static_cast<std::size_t>(e)] ==
                          doctest::Approx(reference[u * n + v]).epsilon(1e-9));
                    if (a.alpha[static_cast<std::size_t>(e)] < 1e-9) ++zeros;
                }
            // The spanning tree's n - 1 edges, both ways, have alpha 0 (ties may add more).
            CHECK(zeros >= 2 * (n - 1));
        }
    }
}

TEST_CASE("the ascent raises the 1-tree bound, which stays below tour lengths") {
    const Instance inst = generate_random_uniform(400, 3);
    const AlphaNearness plain = alpha_nearness(inst, {20, 0});
    const AlphaNearness raised = alpha_nearness(inst, {20, 300});
    CHECK(plain.iterations == 0);
    CHECK(raised.iterations > 0);
    CHECK(raised.bound > plain.bound);
    const auto lists = locus::tsp::candidate_lists(inst, 10, false);
    std::int64_t shortest = INT64_MAX;
    for (std::int32_t start = 0; start < 20; ++start) {
        std::vector<std::int32_t> tour(inst.n);
        nearest_neighbor_tour(inst, start, tour, lists.data(), 10);
        shortest = std::min(shortest, inst.tour_length(tour));
    }
    CHECK(raised.bound <= static_cast<double>(shortest));
    // The Held-Karp bound is within a few per cent of the optimum on uniform instances, far
    // closer than nearest-neighbor tours (about 25 % above it).
    CHECK(raised.bound > 0.75 * static_cast<double>(shortest));
}

TEST_CASE("a convex polygon's 1-tree is its tour and its alpha lists are its neighbours") {
    const Instance inst = polygon(24);
    const AlphaNearness a = alpha_nearness(inst, {10, 100});
    CHECK(a.tour);
    std::vector<std::int32_t> order(24);
    for (std::int32_t i = 0; i < 24; ++i) order[static_cast<std::size_t>(i)] = i;
    CHECK(a.bound == doctest::Approx(static_cast<double>(inst.tour_length(order))));
    const auto lists = alpha_candidate_lists(inst, 2, {10, 100});
    for (std::int32_t i = 0; i < 24; ++i) {
        const std::set<std::int32_t> row(lists.begin() + 2 * i, lists.begin() + 2 * i + 2);
        CHECK(row == std::set<std::int32_t>{(i + 1) % 24, (i + 23) % 24});
    }
}

TEST_CASE("alpha lists are valid on uniform, clustered-duplicate and matrix instances") {
    check_lists(alpha_candidate_lists(generate_random_uniform(500, 9), 6, {}), 500, 6);
    check_lists(alpha_candidate_lists(locus::tsp::test::matrix_instance(50, 2), 5, {8, 30}), 50, 5);
    // Forty cities on four points: the quadrant graph falls apart and a spanning tree of the
    // complete graph joins it.
    Instance dup;
    dup.name = "dup";
    dup.n = 40;
    dup.type = EdgeWeightType::euc_2d;
    for (std::size_t i = 0; i < 40; ++i) {
        dup.x.push_back(static_cast<double>(1000 * (i % 4 == 1 || i % 4 == 2)));
        dup.y.push_back(static_cast<double>(1000 * (i % 4 >= 2)));
    }
    prepare_metric(dup, "dup");
    check_lists(alpha_candidate_lists(dup, 4, {4, 20}), 40, 4);
}

TEST_CASE("alpha lists hold more optimal-tour edges than quadrant lists (TSPLIB)") {
    for (const char* name : {"pr1002", "pr2392"}) {
        const auto file = locus::test::data_file(std::string("tsplib/") + name + ".tsp");
        const auto opt = locus::test::data_file(std::string("tsplib/opt-tours/") + name +
                                                ".opt.tour");
        const Instance inst = read_tsplib(file);
        const auto tour = read_tour(opt, inst.n);
        for (const std::int32_t k : {5, 8}) {
            const double alpha = coverage(alpha_candidate_lists(inst, k, {}), k, tour);
            const double quadrant = coverage(locus::tsp::candidate_lists(inst, k, true), k, tour);
            MESSAGE(std::string(name) << " k=" << k << ": optimal edges in alpha lists " << alpha
                         << ", in quadrant lists " << quadrant);
            CHECK(alpha > quadrant);
        }
    }
}
