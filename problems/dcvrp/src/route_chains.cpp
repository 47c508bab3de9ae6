// The DCVRP route chains: the instance in fixed point, the CPU runner and their registration as
// the chain_policy `ils` of the many-chain search (with its deprecated name `routing_ils`).

#include "locus/dcvrp/route_chains.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "locus/dcvrp/giant_tour_search.hpp"
#include "locus/dcvrp/route_decomposition.hpp"
#include "locus/gpu/chain_policy_component.hpp"
#include "locus/params.hpp"
#include "locus/registry.hpp"

namespace locus::dcvrp {

namespace {

/// What the route chains need to know of all distances: the longest (it sets the initial load
/// weight) and whether every one is a whole number (fixed-point scale 1). Up to
/// kExactLongestNodes nodes (and for explicit weights) every pair is read; above, the longest
/// is the longest from any node to the depot and the four nodes of extreme coordinates (at
/// least half the true one) and only nint distances count as integral.
struct DistanceFacts {
    double longest = 0.0;
    bool integral = true;
};

DistanceFacts distance_facts(const Instance& instance) {
    const std::int32_t n = instance.n;
    DistanceFacts facts;
    if (instance.explicit_weights || n <= kExactLongestNodes) {
        for (std::int32_t a = 0; a < n; ++a)
            for (std::int32_t b = a + 1; b < n; ++b) {
                const double d = instance.distance(a, b);
                facts.longest = std::max(facts.longest, d);
                facts.integral = facts.integral && std::floor(d) == d;
            }
        return facts;
    }
    facts.integral = instance.rounding == Rounding::nint;
    std::int32_t extreme[5] = {kDepot, 0, 0, 0, 0};
    for (std::int32_t v = 1; v < n; ++v) {
        const auto k = static_cast<std::size_t>(v);
        if (instance.x[k] < instance.x[static_cast<std::size_t>(extreme[1])]) extreme[1] = v;
        if (instance.x[k] > instance.x[static_cast<std::size_t>(extreme[2])]) extreme[2] = v;
        if (instance.y[k] < instance.y[static_cast<std::size_t>(extreme[3])]) extreme[3] = v;
        if (instance.y[k] > instance.y[static_cast<std::size_t>(extreme[4])]) extreme[4] = v;
    }
    for (std::int32_t v = 0; v < n; ++v)
        for (const std::int32_t e : extreme)
            facts.longest = std::max(facts.longest, instance.distance(v, e));
    return facts;
}

} // namespace

RouteChainData::RouteChainData(const Instance& instance, std::int32_t candidates,
                               DistanceMode mode)
    : n(instance.n), K(std::min(candidates, instance.customers() - 1)), capacity(instance.capacity),
      demand(instance.demand) {
    const DistanceFacts facts = distance_facts(instance);
    const bool integral =
        facts.integral && std::floor(instance.service_time) == instance.service_time;
    // NOTE: 10^6 keeps the rounding of a route's terms far below the printed precision of the
    // best-known values (two decimals) while costs of thousands stay far below 2^63.
    scale = integral ? 1.0 : 1e6;
    const bool matrix = instance.explicit_weights || mode == DistanceMode::matrix ||
                        (mode == DistanceMode::automatic && n <= kFixedMatrixNodes);
    if (!instance.explicit_weights) {
        x = instance.x;
        y = instance.y;
        nint = rounding_code(instance.rounding);
    }
    if (matrix) {
        const auto nodes = static_cast<std::size_t>(n);
        const FixedDistance computed = distance(); // from the coordinates: no matrix yet
        dist.resize(nodes * nodes);
#pragma omp parallel for schedule(static) if (n > 256)
        for (std::int32_t a = 0; a < n; ++a)
            for (std::int32_t b = 0; b < n; ++b) {
                const std::size_t k = static_cast<std::size_t>(a) * nodes + static_cast<std::size_t>(b);
                dist[k] = instance.explicit_weights ? std::llround(instance.dist[k] * scale)
                                                    : computed(a, b);
            }
    }
    service = std::llround(instance.service_time * scale);
    if (instance.has_duration_limit()) {
        // A route has at most 2n rounded terms of at most 1/2 unit each: n units below the
        // scaled limit, a feasible fixed-point route is feasible in the instance's distances.
        max_duration = static_cast<std::int64_t>(std::floor(instance.max_duration * scale)) -
                       (integral ? 0 : n);
    }
    if (instance.has_time_windows()) {
        // Exact when every scaled time is whole: nint or tenths distances (k x 10^5 at scale
        // 10^6) and whole windows and service times, as in the VRPTW benchmark files.
        const auto whole = [&](double value) {
            const double scaled = value * scale;
            return std::abs(scaled - std::round(scaled)) < 1e-6;
        };
        bool exact = (integral || instance.rounding == Rounding::tenths) &&
                     whole(instance.service_time);
        for (std::int32_t v = 0; v < n && exact; ++v)
            exact = whole(instance.ready[static_cast<std::size_t>(v)]) &&
                    whole(instance.due[static_cast<std::size_t>(v)]);
        slack = exact ? 0 : 1;
        ready.resize(static_cast<std::size_t>(n));
        due.resize(static_cast<std::size_t>(n));
        for (std::size_t v = 0; v < ready.size(); ++v) {
            ready[v] = exact ? std::llround(instance.ready[v] * scale)
                             : static_cast<std::int64_t>(std::ceil(instance.ready[v] * scale));
            due[v] = exact ? std::llround(instance.due[v] * scale)
                           : static_cast<std::int64_t>(std::floor(instance.due[v] * scale));
        }
    }
    if (K > 0) neighbors = candidate_customers(instance, K);
    const double longest = facts.longest;
    std::int64_t heaviest = 1;
    double total = 0.0;
    for (std::int32_t v = 1; v < n; ++v) {
        const std::int64_t q = instance.demand[static_cast<std::size_t>(v)];
        heaviest = std::max(heaviest, q);
        total += static_cast<double>(q);
    }
    const double mean = std::max(1.0, n > 1 ? total / (n - 1) : 1.0);
    const auto weight = [&](double per_unit) {
        return std::max<std::int64_t>(1, std::llround(std::clamp(per_unit, 0.1, 1000.0) * scale));
    };
    load_weight = weight(longest / static_cast<double>(heaviest));
    half_capacity_load_weight =
        weight(longest / std::max(1.0, std::min(static_cast<double>(heaviest),
                                                static_cast<double>(instance.capacity) / 2.0)));
    mean_load_weight = weight(longest / mean);
    heading.assign(2 * static_cast<std::size_t>(n), 0);
    if (!instance.x.empty()) {
        for (std::int32_t i = 1; i < n; ++i) {
            const auto k = static_cast<std::size_t>(i);
            const double dx = instance.x[k] - instance.x[0];
            const double dy = instance.y[k] - instance.y[0];
            const double length = std::hypot(dx, dy);
            if (!(length > 0.0)) continue;
            heading[2 * k] = static_cast<std::int32_t>(std::lround(dx / length * 65536.0));
            heading[2 * k + 1] = static_cast<std::int32_t>(std::lround(dy / length * 65536.0));
        }
    }
}

FixedDistance RouteChainData::distance() const {
    FixedDistance d;
    d.matrix = dist.empty() ? nullptr : dist.data();
    d.x = x.data();
    d.y = y.data();
    d.scale = scale;
    d.n = n;
    d.nint = nint;
    return d;
}

RouteChainPolicy RouteChainData::policy(std::int32_t kicks, bool segments, bool segment_swaps,
                                        bool swap_star) const {
    RouteChainPolicy p;
    p.dist = distance();
    p.demand = demand.data();
    p.neighbors = neighbors.data();
    p.heading = heading.data();
    p.capacity = capacity;
    p.service = service;
    p.max_duration = max_duration;
    if (!ready.empty()) {
        p.windows = {ready.data(), due.data(), service, slack};
        // Time warp starts at the duration weight's cap (1,024 per unit of time), adapted down
        // from there. At 1 per unit (the duration limit's start) a penalised descent trades
        // far too much lateness for distance on tight windows: on R1_10_1 each iteration
        // undid and repaired hundreds of customers, and the weight, adapted every 100
        // descents, stayed low for the whole minute (docs/results.md, "Measurements behind
        // design decisions").
        p.duration_weight = RouteChainPolicy::kMaxDurationWeight;
    }
    p.n = n;
    p.K = K;
    p.kicks = kicks;
    p.vehicles = vehicles;
    p.segments = segments ? 1 : 0;
    p.swaps = segment_swaps ? 1 : 0;
    p.swap_star = swap_star ? 1 : 0;
    p.load_weight = load_weight;
    p.min_load_weight = std::max<std::int64_t>(1, std::llround(0.1 * scale));
    p.min_duration_weight = std::llround(0.1 * 1024.0);
    return p;
}

RouteChainPolicy RouteChainData::policy(const RouteChainOptions& options) const {
    RouteChainPolicy p =
        policy(options.kicks, options.segments, options.segment_swaps, options.swap_star);
    p.penalties = options.penalties ? 1 : 0;
    p.ruin = options.ruin;
    p.eliminate = options.eliminate;
    p.eliminate_length = options.eliminate_length;
    p.ruin_length = options.ruin_length;
    p.target_feasible = static_cast<std::int32_t>(std::lround(options.feasible_target * 1000.0));
    p.repair_boost = options.repair_boost;
    p.split_warp_weight = options.split_warp_weight;
    p.load_weight = options.load_weight_basis == LoadWeightBasis::mean ? mean_load_weight
                    : options.load_weight_basis == LoadWeightBasis::half_capacity
                        ? half_capacity_load_weight
                        : load_weight;
    return p;
}

std::int64_t RouteChainData::value(std::span<const std::int32_t> row) const {
    return policy(1).evaluate(gpu::SerialTeam{}, 0, row.data());
}

std::int64_t RouteChainData::cost(std::span<const std::int32_t> row) const {
    std::int64_t sum = 0;
    const std::size_t w = row.size();
    const FixedDistance d = distance();
    for (std::size_t k = 0; k < w; ++k)
        sum += d(row[k], row[k + 1 == w ? 0 : k + 1]);
    return sum;
}

std::vector<std::int32_t> route_links(std::span<const std::int32_t> row, std::int32_t n) {
    std::vector<std::int32_t> links(2 * static_cast<std::size_t>(std::max(n, 0)), 0);
    const std::size_t w = row.size();
    for (std::size_t q = 0; q < w; ++q) {
        const std::int32_t node = row[q];
        if (node == 0) continue;
        links[2 * static_cast<std::size_t>(node)] = row[q == 0 ? w - 1 : q - 1];
        links[2 * static_cast<std::size_t>(node) + 1] = row[q + 1 == w ? 0 : q + 1];
    }
    return links;
}

double broken_pairs(std::span<const std::int32_t> a, std::span<const std::int32_t> b) {
    const std::size_t n = a.size() / 2;
    if (n < 2) return 0.0;
    std::int32_t broken = 0;
    for (std::size_t k = 2; k < 2 * n; k += 2) {
        const std::int32_t pa = a[k], sa = a[k + 1];
        const std::int32_t pb = b[k], sb = b[k + 1];
        // Each of a's two links of the customer (as an undirected edge) counts when b lacks it.
        broken += (sa != sb && sa != pb) ? 1 : 0;
        broken += (pa != pb && pa != sb) ? 1 : 0;
    }
    return static_cast<double>(broken) / (2.0 * static_cast<double>(n - 1));
}

double broken_pairs_distance(std::span<const std::int32_t> a, std::span<const std::int32_t> b,
                             std::int32_t n) {
    if (n < 2 || a.empty()) return 0.0;
    return broken_pairs(route_links(a, n), route_links(b, n));
}

std::size_t auto_population(const Instance& instance) {
    const std::int64_t customers = instance.customers();
    const std::int64_t routes = std::max<std::int64_t>(
        1, (instance.total_demand() + instance.capacity - 1) / instance.capacity);
    return customers <= kShortRouteCustomers * routes ? 50 : 25;
}

std::size_t auto_chains(const Instance& instance, std::size_t multiprocessors) {
    if (instance.has_time_windows() || multiprocessors == 0) return 0;
    return instance.customers() >= kManyChainsCustomers
               ? kLargeChainsPerMultiprocessor * multiprocessors
               : kSmallInstanceChains;
}

std::unique_ptr<gpu::ChainRunner>
make_cpu_route_runner(const DcvrpProblem& problem, const RouteChainOptions& options,
                      std::uint32_t chains, const gpu::ChainParams& params, int threads) {
    auto data =
        std::make_shared<RouteChainData>(problem.instance(), options.candidates, options.distances);
    data->vehicles = problem.vehicles();
    return std::make_unique<gpu::CpuChainRunner<RouteChainPolicy>>(data->policy(options), chains,
                                                                   params, threads, data);
}

namespace {

RouteChainOptions route_chain_options(const Params& p, const BuildContext&) {
    RouteChainOptions options;
    options.candidates = static_cast<std::int32_t>(p.get_int("candidates"));
    options.kicks = static_cast<std::int32_t>(p.get_int("kicks"));
    options.ruin = static_cast<std::int32_t>(p.get_int("ruin"));
    options.eliminate = static_cast<std::int32_t>(p.get_int("eliminate"));
    options.eliminate_length = static_cast<std::int32_t>(p.get_int("eliminate_length"));
    options.ruin_length = static_cast<std::int32_t>(p.get_int("ruin_length"));
    options.segments = p.get_bool("segments");
    options.segment_swaps = p.get_bool("segment_swaps");
    options.swap_star = p.get_bool("swap_star");
    options.penalties = p.get_bool("penalties");
    options.feasible_target = p.get_real("feasible_target");
    options.repair_boost = static_cast<std::int32_t>(p.get_int("repair_boost"));
    options.split_warp_weight = static_cast<std::int32_t>(p.get_int("split_warp_weight"));
    const std::string basis = p.get_string("load_weight");
    options.load_weight_basis = basis == "mean"            ? LoadWeightBasis::mean
                                : basis == "half_capacity" ? LoadWeightBasis::half_capacity
                                                           : LoadWeightBasis::heaviest;
    const std::string distances = p.get_string("distances");
    options.distances = distances == "matrix"        ? DistanceMode::matrix
                        : distances == "coordinates" ? DistanceMode::coordinates
                                                     : DistanceMode::automatic;
    return options;
}

const DcvrpProblem& dcvrp_of(const BuildContext& b) {
    return problem_as<DcvrpProblem>(b, "dcvrp", "chain_policy ils");
}

} // namespace

void register_routing_ils(Registry& registry) {
    gpu::ChainPolicySpec<RouteChainOptions> spec;
    spec.problem = "dcvrp";
    spec.doc = "Route chains of the many-chain search (algorithm chains): each chain iterates "
               "random feasible relocations and swaps as the kick, a VND over relocate, swap, "
               "2-opt* and 2-opt on granular candidate lists (each move O(1) from route prefix "
               "loads and durations, capacity and duration limits enforced, no route opened; "
               "time windows: candidates by a proximity of distance, waiting and lateness, "
               "each changed route's time warp joined from kept prefix and suffix pieces) and "
               "acceptance. Costs in fixed "
               "point inside the chains; results re-evaluated exactly; the population exchange "
               "ranks diversity by the broken-pairs distance.";
    spec.parameters = [](ComponentSchema& schema) {
        schema.integer("candidates", "20", "granular candidate-list size K", 1, 1024);
        schema.integer("kicks", "3", "random feasible relocations/swaps per perturbation", 1, 64);
        schema.integer("ruin", "0",
                       "ruin and recreate as the kick instead (SISR, Christiaens & Vanden Berghe "
                       "2020): customers removed on average, in strings of at most 10 from "
                       "routes near a random customer, each put back at its cheapest place "
                       "beside one of its candidates (blinks 1/100); 0: the random kicks",
                       0, 64);
        schema.integer("ruin_length", "0",
                       "ruin and recreate only while the chain's routes hold this many "
                       "customers or more on average (below it the random kicks); 0: at any "
                       "length",
                       0, 100000);
        schema.integer("eliminate", "0",
                       "route elimination: the per cent of perturbations that first try to "
                       "empty the shortest route among those of a random customer and its "
                       "candidates, each of its customers put at its cheapest place beside one "
                       "of its candidates in another route (penalised or within the limits), no "
                       "route opened; the kick above when no place is found; 0: never",
                       0, 100);
        schema.integer("eliminate_length", "0",
                       "route elimination only while the chain's routes hold this many "
                       "customers or more on average (long routes, which single moves rarely "
                       "empty); 0: at any length",
                       0, 100000);
        schema.boolean("segments", "false",
                       "also relocate 2 or 3 consecutive customers after a candidate (either "
                       "orientation) as a fifth neighborhood");
        schema.boolean("segment_swaps", "false",
                       "also exchange 2 consecutive customers with 1 or 2 consecutive customers "
                       "of another place, a candidate first (swap 2-1, 1-2 and 2-2), as a sixth "
                       "neighborhood");
        schema.boolean("swap_star", "false",
                       "also SWAP* (Vidal 2022): a customer and a candidate of another route "
                       "exchanged, each put at its cheapest place in the other's route among "
                       "the one the other left and those beside its own candidates there, as a "
                       "seventh neighborhood");
        schema.boolean("penalties", "false",
                       "descents may exceed the capacity, the duration limit and time windows "
                       "(time warp, under the duration's weight) at a cost: "
                       "penalty weights per chain adapted towards feasible_target, infeasible "
                       "results repaired under repair_boost x the weights; bests stay feasible "
                       "once a feasible solution is seen");
        schema.real("feasible_target", "0.2",
                    "penalties: target share of descents that end feasible", 0.01, 0.99);
        schema.integer("repair_boost", "10",
                       "penalties: weight factor of the repair descent (1: no repair)", 1, 1000);
        schema.choice("load_weight", "heaviest", {"heaviest", "half_capacity", "mean"},
                      "penalties: the initial cost of a unit of load excess, adapted from "
                      "there: the longest distance over the heaviest demand (Vidal 2022), over "
                      "the heaviest demand or half the capacity, the smaller (higher where "
                      "demands above half the capacity would make excess cheap), or over the "
                      "mean demand");
        schema.integer("split_warp_weight", "0",
                       "time windows: the Split of recombined children prices a route's time "
                       "warp at this many units of distance per unit (the penalised Split of "
                       "Vidal et al. 2013; the descents and the repair take it out); 0: a route "
                       "ends at its first time warp",
                       0, 1024);
        schema.choice("distances", "auto", {"auto", "matrix", "coordinates"},
                      "fixed-point distances: an n x n matrix (8 n^2 bytes on each backend), "
                      "computed from the coordinates on every use (16 n bytes), or auto: the "
                      "matrix up to 5,000 nodes and for explicit weights; the same results "
                      "either way");
    };
    spec.options = route_chain_options;
    spec.cpu = [](const BuildContext& b, const RouteChainOptions& options, std::uint32_t chains,
                  const gpu::ChainParams& params, const gpu::EngineSettings& settings) {
        return make_cpu_route_runner(dcvrp_of(b), options, chains, params, settings.threads);
    };
    spec.cuda = [](const BuildContext& b, const RouteChainOptions& options, std::uint32_t chains,
                   const gpu::ChainParams& params, const gpu::EngineSettings& settings) {
        return make_cuda_route_runner(dcvrp_of(b), options, chains, params, settings.device,
                                      settings.memory);
    };
    spec.chain_objective = [](const BuildContext& b) -> gpu::ChainObjective {
        auto data = std::make_shared<const RouteChainData>(dcvrp_of(b).instance(), 0,
                                                           DistanceMode::coordinates);
        return [data](std::span<const std::int32_t> row) { return data->value(row); };
    };
    spec.distance = [](const BuildContext& b) -> gpu::SolutionDistance {
        const std::int32_t n = dcvrp_of(b).instance().n;
        return {broken_pairs,
                [n](std::span<const std::int32_t> row) { return route_links(row, n); }};
    };
    spec.independent_moves = true;
    spec.decomposition = [](const BuildContext& b) -> std::shared_ptr<const gpu::Decomposition> {
        return std::make_shared<const RouteDecomposition>(dcvrp_of(b).instance());
    };
    spec.population = [](const BuildContext& b) { return auto_population(dcvrp_of(b).instance()); };
    spec.chains = [](const BuildContext& b, std::size_t multiprocessors) {
        return auto_chains(dcvrp_of(b).instance(), multiprocessors);
    };
    gpu::register_chain_policy(registry, std::move(spec));
    gpu::register_chains_alias(registry, "routing_ils", "dcvrp");
}

} // namespace locus::dcvrp
