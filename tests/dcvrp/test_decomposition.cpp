// The DCVRP decomposition (route_decomposition.hpp) and chains confined to its regions (the
// decompose exchange): sectors of whole routes that cover every customer once, borders that
// move with the draw, assembly of the parts, and confined chains that change only their
// region's routes, so that the regions' improvements add up.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <set>
#include <span>
#include <vector>

#include "dcvrp_test_instances.hpp"
#include "locus/dcvrp/constructions.hpp"
#include "locus/dcvrp/dcvrp_problem.hpp"
#include "locus/dcvrp/generator.hpp"
#include "locus/dcvrp/giant_tour.hpp"
#include "locus/dcvrp/route_chains.hpp"
#include "locus/dcvrp/route_decomposition.hpp"
#include "locus/error.hpp"
#include "locus/gpu/chain_engine.hpp"
#include "test_support.hpp"

using namespace locus;
using namespace locus::dcvrp;

namespace {

constexpr double kNoLimit = std::numeric_limits<double>::infinity();

std::vector<std::int32_t> curve_row(const DcvrpProblem& problem, std::uint64_t seed) {
    std::vector<std::int32_t> row(problem.solution_width());
    encode_routes(space_filling_curve(problem.instance(), OrderStart::random, seed), row);
    return row;
}

/// The routes of a row as sets of customers (orientation and order of routes ignored).
std::set<std::vector<std::int32_t>> route_sets(std::span<const std::int32_t> row) {
    std::set<std::vector<std::int32_t>> out;
    for (auto route : split_routes(row)) {
        std::sort(route.begin(), route.end());
        out.insert(route);
    }
    return out;
}

} // namespace

TEST_CASE("DCVRP decomposition: sectors of whole routes cover every customer once, about "
          "group_size customers each, borders that move with the draw") {
    const DcvrpProblem problem(generate_random(2001, 3, 40, kNoLimit));
    const RouteDecomposition decomposition(problem.instance());
    const auto row = curve_row(problem, 5);
    const auto routes = split_routes(row);
    REQUIRE(routes.size() > 40);
    const auto groups = decomposition.split(row, 250, 64, 11);
    CHECK(groups.size() == 8); // 2,000 customers / 250
    std::vector<int> seen(2001, 0);
    for (const auto& group : groups) {
        CHECK(group.size() > 150);
        CHECK(group.size() < 400);
        for (const std::int32_t c : group)
            ++seen[static_cast<std::size_t>(c)];
    }
    CHECK(seen[0] == 0);
    CHECK(std::all_of(seen.begin() + 1, seen.end(), [](int k) { return k == 1; }));
    // Whole routes: every route's customers lie in one group.
    std::vector<std::size_t> group_of(2001);
    for (std::size_t g = 0; g < groups.size(); ++g)
        for (const std::int32_t c : groups[g])
            group_of[static_cast<std::size_t>(c)] = g;
    for (const auto& route : routes)
        for (const std::int32_t c : route)
            CHECK(group_of[static_cast<std::size_t>(c)] ==
                  group_of[static_cast<std::size_t>(route.front())]);
    // At most `most` groups; one group holds everything.
    CHECK(decomposition.split(row, 250, 3, 11).size() == 3);
    CHECK(decomposition.split(row, 100000, 64, 11).size() == 1);
    // Another draw moves the borders.
    const auto other = decomposition.split(row, 250, 64, 12);
    CHECK(other.size() == groups.size());
    CHECK(other != groups);
}

TEST_CASE("DCVRP decomposition: assembling unchanged parts gives the same routes; a part that "
          "moved a customer across groups is refused") {
    const DcvrpProblem problem(generate_random(801, 4, 30, kNoLimit));
    const RouteDecomposition decomposition(problem.instance());
    const auto row = curve_row(problem, 2);
    const auto groups = decomposition.split(row, 200, 64, 3);
    REQUIRE(groups.size() == 4);
    std::vector<std::span<const std::int32_t>> parts(groups.size(), std::span<const std::int32_t>(row));
    std::vector<std::int32_t> out(row.size());
    decomposition.assemble(groups, parts, out);
    CHECK(route_sets(out) == route_sets(row));
    CHECK(problem.evaluate(out) == doctest::Approx(problem.evaluate(row)));
    CHECK(out[0] == 0);
    // Group 0's part swaps a customer of group 0 with one of group 1 between their routes.
    std::vector<std::int32_t> broken = row;
    const auto a = std::find(broken.begin(), broken.end(), groups[0].front());
    const auto b = std::find(broken.begin(), broken.end(), groups[1].front());
    std::iter_swap(a, b);
    parts[0] = broken;
    CHECK(test::error_message<Error>([&] { decomposition.assemble(groups, parts, out); })
              .find("left its region") != std::string::npos);
}

TEST_CASE("DCVRP decomposition needs coordinates: explicit weights are refused with the "
          "exchange to use instead") {
    Instance instance = generate_random(30, 1, 10, kNoLimit);
    instance.explicit_weights = true;
    instance.dist.assign(static_cast<std::size_t>(instance.n) * instance.n, 1.0);
    instance.x.clear();
    instance.y.clear();
    CHECK(test::error_message<ConfigError>([&] { RouteDecomposition{instance}; }) ==
          "exchange: decompose groups routes by the polar angle of their barycentres around the "
          "depot and needs node coordinates; this instance has explicit weights only (use "
          "exchange: elite)");
}

TEST_CASE("DCVRP chains confined to regions change only their region's routes; the regions' "
          "best parts assemble into a solution that gains every region's improvement (random "
          "kicks, and ruin and recreate)") {
    const DcvrpProblem problem(generate_random(1201, 6, 40, 4000.0));
    const RouteDecomposition decomposition(problem.instance());
    const RouteChainData data(problem.instance(), 0);
    for (const std::int32_t ruin : {0, 8}) {
        CAPTURE(ruin);
        RouteChainOptions options;
        options.candidates = 10;
        options.segments = true;
        options.ruin = ruin;
        gpu::ChainParams params;
        params.seed = 17;
        params.check_moves = true;
        params.independent_moves = true;
        params.regions = true;
        constexpr std::uint32_t kChains = 8;
        auto runner = make_cpu_route_runner(problem, options, kChains, params, 0);
        // The base: a curve start after one unconfined descent.
        std::vector<std::int32_t> starts;
        std::vector<std::int64_t> values;
        for (std::uint32_t c = 0; c < kChains; ++c) {
            const auto row = curve_row(problem, 40 + c);
            starts.insert(starts.end(), row.begin(), row.end());
            values.push_back(data.cost(row));
        }
        runner->start(starts, values, {}, 0);
        std::vector<std::int32_t> base(problem.solution_width());
        runner->best_solution(0, base);
        const std::int64_t base_value = runner->best_objectives()[0];
        const auto groups = decomposition.split(base, 300, kChains, 9);
        REQUIRE(groups.size() == 4);
        const auto regions = dcvrp_test::regions_of(groups, kChains);
        runner->restrict_chains(regions.elements, regions.offsets);
        runner->reset(base, base_value);
        CHECK(runner->best_objectives() == std::vector<std::int64_t>(kChains, base_value));
        runner->epoch(0, 30, {});
        CHECK_FALSE(runner->check().failed);
        const auto bests = runner->best_objectives();
        // Each chain's best keeps every route outside its region as the base has it.
        const auto base_routes = route_sets(base);
        std::vector<std::vector<std::int32_t>> rows(kChains);
        std::int64_t expected = base_value;
        for (std::uint32_t g = 0; g < 4; ++g) {
            std::uint32_t winner = g;
            for (std::uint32_t c = g; c < kChains; c += 4) {
                CAPTURE(c);
                rows[c].resize(base.size());
                runner->best_solution(c, rows[c]);
                CHECK(problem.verify(rows[c]).feasible);
                CHECK(data.cost(rows[c]) == bests[c]);
                std::vector<std::uint8_t> inside(static_cast<std::size_t>(problem.instance().n), 0);
                for (const std::int32_t e : groups[g])
                    inside[static_cast<std::size_t>(e)] = 1;
                for (const auto& route : route_sets(rows[c]))
                    if (inside[static_cast<std::size_t>(route.front())] == 0)
                        CHECK(base_routes.count(route) == 1);
                if (bests[c] < bests[winner]) winner = c;
            }
            expected += bests[winner] - base_value;
        }
        // The confined chains improved the base (30 iterations on 300 customers each).
        CHECK(*std::min_element(bests.begin(), bests.end()) < base_value);
        std::vector<std::span<const std::int32_t>> parts;
        for (std::uint32_t g = 0; g < 4; ++g) {
            std::uint32_t winner = g;
            for (std::uint32_t c = g; c < kChains; c += 4)
                if (bests[c] < bests[winner]) winner = c;
            parts.emplace_back(rows[winner]);
        }
        std::vector<std::int32_t> assembled(base.size());
        decomposition.assemble(groups, parts, assembled);
        CHECK(problem.verify(assembled).feasible);
        CHECK(data.cost(assembled) == expected); // the improvements of disjoint regions add up
        CHECK(expected <= *std::min_element(bests.begin(), bests.end()));
        // The region of an unconfined chain (empty range) is the whole solution again.
        runner->restrict_chains({}, std::vector<std::uint32_t>(kChains + 1, 0));
        runner->reset(assembled, data.cost(assembled));
        runner->epoch(30, 10, {});
        CHECK_FALSE(runner->check().failed);
    }
}

TEST_CASE("Chains without regions refuse to be confined") {
    const DcvrpProblem problem(generate_random(60, 2, 10, kNoLimit));
    RouteChainOptions options;
    gpu::ChainParams params; // regions off: no region arrays
    auto runner = make_cpu_route_runner(problem, options, 2, params, 1);
    const std::vector<std::int32_t> elements{1, 2, 3};
    const std::vector<std::uint32_t> offsets{0, 3, 3};
    CHECK(test::error_message<NotImplemented>([&] { runner->restrict_chains(elements, offsets); })
              .find("regions") != std::string::npos);
}
