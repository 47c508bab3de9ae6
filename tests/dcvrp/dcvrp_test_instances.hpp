#pragma once
// Hand-computed DCVRP instances shared by the suites.
//
// line5: the depot at x = 0 and customers 1..5 at x = 1..5 on a line, so d(i, j) = |i - j|;
// demands 3 4 2 5 1, CAPACITY 8, DISTANCE 12, SERVICE_TIME 1. A route costs twice its farthest
// customer, and one that reaches customer 5 holds at most two customers (10 + 3 > 12). The
// optimum is 18: {1}, {2, 3}, {4, 5} (loads 3, 6, 6; durations 3, 8, 12), found by checking
// the routes through customer 5: {5, 4} leaves {1, 2, 3} (load 9: two routes, best 2 + 6);
// {5, 3}, {5, 2}, {5, 1} and {5} leave loads of 10 or more for the others, or 3 more routes.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "locus/dcvrp/constructions.hpp"
#include "locus/dcvrp/cvrplib.hpp"
#include "locus/dcvrp/dcvrp_problem.hpp"
#include "locus/dcvrp/giant_tour.hpp"
#include "locus/dcvrp/instance.hpp"
#include "locus/dcvrp/route_chains.hpp"

namespace dcvrp_test {

inline const std::string kLine5 = "NAME : line5\n"
                                  "TYPE : DCVRP\n"
                                  "DIMENSION : 6\n"
                                  "CAPACITY : 8\n"
                                  "DISTANCE : 12\n"
                                  "SERVICE_TIME : 1\n"
                                  "EDGE_WEIGHT_TYPE : EUC_2D\n"
                                  "NODE_COORD_SECTION\n"
                                  "1 0 0\n2 1 0\n3 2 0\n4 3 0\n5 4 0\n6 5 0\n"
                                  "DEMAND_SECTION\n"
                                  "1 0\n2 3\n3 4\n4 2\n5 5\n6 1\n"
                                  "DEPOT_SECTION\n"
                                  "1\n-1\n"
                                  "EOF\n";

inline locus::dcvrp::Instance line5() { return locus::dcvrp::parse_cvrplib(kLine5, "line5.vrp"); }

/// `count` different feasible solutions: cheapest insertion in random orders (seed + s).
inline locus::SolutionBatch insertion_starts(const locus::dcvrp::DcvrpProblem& problem,
                                             std::size_t count, std::uint64_t seed) {
    using namespace locus::dcvrp;
    locus::SolutionBatch batch(count, problem.solution_width());
    for (std::size_t s = 0; s < count; ++s) {
        const auto order = insertion_order(problem.instance(), InsertionOrder::random, seed + s);
        encode_routes(cheapest_insertion(problem.instance(), order), batch[s]);
        batch.objective(s) = problem.evaluate(batch[s]);
    }
    return batch;
}

/// `count` space-filling-curve solutions from start points drawn from seed + s.
inline locus::SolutionBatch curve_starts(const locus::dcvrp::DcvrpProblem& problem,
                                         std::size_t count, std::uint64_t seed) {
    using namespace locus::dcvrp;
    locus::SolutionBatch batch(count, problem.solution_width());
    for (std::size_t s = 0; s < count; ++s) {
        encode_routes(space_filling_curve(problem.instance(), OrderStart::random, seed + s),
                      batch[s]);
        batch.objective(s) = problem.evaluate(batch[s]);
    }
    return batch;
}

/// The route chains' costs (fixed point) of a batch's solutions.
inline std::vector<std::int64_t> chain_costs(const locus::dcvrp::Instance& instance,
                                             const locus::SolutionBatch& batch) {
    const locus::dcvrp::RouteChainData data(instance, 0);
    std::vector<std::int64_t> costs;
    for (std::size_t s = 0; s < batch.count(); ++s)
        costs.push_back(data.cost(batch[s]));
    return costs;
}

/// Parents of a recombination round: chain c with chain (c + 1 + shift) mod chains.
struct ParentPairs {
    std::vector<std::uint32_t> a, b;
};
inline ParentPairs neighbour_pairs(std::uint32_t chains, std::uint32_t shift = 0) {
    ParentPairs pairs{std::vector<std::uint32_t>(chains), std::vector<std::uint32_t>(chains)};
    for (std::uint32_t c = 0; c < chains; ++c) {
        pairs.a[c] = c;
        pairs.b[c] = (c + 1 + shift) % chains;
    }
    return pairs;
}

/// The ranges of ChainRunner::restrict_chains that confine chain c to groups[c mod G].
struct Regions {
    std::vector<std::int32_t> elements;
    std::vector<std::uint32_t> offsets{0};
};
inline Regions regions_of(const std::vector<std::vector<std::int32_t>>& groups,
                          std::uint32_t chains) {
    Regions r;
    for (std::uint32_t c = 0; c < chains; ++c) {
        const auto& group = groups[c % groups.size()];
        r.elements.insert(r.elements.end(), group.begin(), group.end());
        r.offsets.push_back(static_cast<std::uint32_t>(r.elements.size()));
    }
    return r;
}

} // namespace dcvrp_test
