// The DCVRP at scale: no n x n matrix for instances with coordinates, DIMENSION above the old
// 10,000 limit, candidate lists from the 2-d tree equal to a scan of every pair, and the route
// chains' fixed-point distances from the coordinates equal to the matrix (same search results).

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "dcvrp_test_instances.hpp"
#include "locus/dcvrp/candidate_lists.hpp"
#include "locus/dcvrp/cvrplib.hpp"
#include "locus/dcvrp/dcvrp_problem.hpp"
#include "locus/dcvrp/generator.hpp"
#include "locus/dcvrp/route_chains.hpp"
#include "locus/gpu/chain_engine.hpp"
#include "test_support.hpp"

using namespace locus;
using namespace locus::dcvrp;

TEST_CASE("DCVRP candidate lists: the 2-d tree gives the lists of the scan, ties and nint "
          "rounding included") {
    const auto check = [](const Instance& instance, std::int32_t k) {
        CAPTURE(instance.name);
        CAPTURE(k);
        CHECK(nearest_customers(instance, k) == nearest_customers_by_scan(instance, k));
    };
    const Instance exact = generate_random(1500, 3, 100, std::numeric_limits<double>::infinity());
    check(exact, 20);
    check(exact, 1);
    // nint on integral coordinates in [0, 1000): many equal distances, ties broken by id.
    const auto rounded = DcvrpProblem::load("random-cvrp:n=1200,seed=8", RoundingOption::nint);
    check(rounded->instance(), 30);
    // A stored X instance (nint, clustered customers) and a tiny one (k = customers - 1).
    check(read_cvrplib(test::data_file("cvrplib/X-n401-k29.vrp")), 24);
    check(generate_random(6, 1, 10, std::numeric_limits<double>::infinity()), 4);
}

TEST_CASE("DCVRP fixed-point distances from the coordinates equal the matrix's, both roundings") {
    for (const RoundingOption rounding : {RoundingOption::exact, RoundingOption::nint}) {
        const auto problem = DcvrpProblem::load("random-cvrp:n=300,seed=4", rounding);
        const Instance& instance = problem->instance();
        CHECK(instance.dist.empty());
        const RouteChainData matrix(instance, 8, DistanceMode::matrix);
        const RouteChainData computed(instance, 8, DistanceMode::coordinates);
        REQUIRE(matrix.dist.size() == 300u * 300u);
        CHECK(computed.dist.empty());
        CHECK(matrix.scale == computed.scale);
        CHECK(matrix.load_weight == computed.load_weight);
        const FixedDistance a = matrix.distance();
        const FixedDistance b = computed.distance();
        std::int64_t mismatches = 0;
        for (std::int32_t u = 0; u < instance.n; ++u)
            for (std::int32_t v = 0; v < instance.n; ++v) {
                mismatches += a(u, v) != b(u, v);
                mismatches += b(u, v) != std::llround(instance.distance(u, v) * matrix.scale);
            }
        CHECK(mismatches == 0);
    }
}

TEST_CASE("DCVRP route chains search alike on the matrix and on the coordinates") {
    const DcvrpProblem problem(generate_random(120, 6, 40, std::numeric_limits<double>::infinity()));
    std::vector<std::vector<std::int64_t>> bests;
    for (const DistanceMode mode : {DistanceMode::matrix, DistanceMode::coordinates}) {
        RouteChainOptions options;
        options.candidates = 10;
        options.segments = true;
        options.penalties = true;
        options.distances = mode;
        gpu::ChainParams params;
        params.seed = 7;
        auto runner = make_cpu_route_runner(problem, options, 3, params, 1);
        const SolutionBatch batch = dcvrp_test::insertion_starts(problem, 3, 11);
        const RouteChainData data(problem.instance(), 0);
        std::vector<std::int64_t> objectives;
        for (std::size_t c = 0; c < batch.count(); ++c)
            objectives.push_back(data.cost(batch[c]));
        runner->start(batch.data(), objectives, {}, 0);
        for (int e = 0; e < 3; ++e)
            runner->epoch(static_cast<std::uint64_t>(e) * 10, 10, {});
        bests.push_back(runner->best_objectives());
        for (std::size_t c = 0; c < batch.count(); ++c)
            CHECK(bests.back()[c] < objectives[c]);
    }
    CHECK(bests[0] == bests[1]);
}

TEST_CASE("DCVRP instances above 10,000 nodes: read without a matrix, candidate lists in "
          "O(n k log n)") {
    const Instance generated = generate_random(12001, 2, 100, std::numeric_limits<double>::infinity());
    const std::string text = format_cvrplib(generated);
    const Instance read = parse_cvrplib(text, "big.vrp");
    CHECK(read.n == 12001);
    CHECK(read.dist.empty());
    CHECK(read.x == generated.x);
    const std::vector<std::int32_t> near = nearest_customers(read, 10);
    REQUIRE(near.size() == 12001u * 10u);
    // Spot checks against a scan of one row.
    for (const std::int32_t u : {0, 1, 5000, 12000}) {
        double kth = read.distance(u, near[static_cast<std::size_t>(u) * 10 + 9]);
        std::int32_t closer = 0;
        for (std::int32_t v = 1; v < read.n; ++v)
            if (v != u && read.distance(u, v) < kth) ++closer;
        CHECK(closer <= 9);
    }
    CHECK(test::error_message<InstanceError>([] { generate_from_spec("random-cvrp:n=1"); })
              .ends_with("n = 1 is out of range 2..268435456"));
}
