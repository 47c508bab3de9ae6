// The DCVRP route chains on the many-chain engine (CPU twin): every relocate, swap, 2-opt*, 2-opt,
// segment-relocate, segment-swap and SWAP* move's delta against full re-evaluation and its workspace against a rebuild, exact
// costs, feasibility of every chain's best, determinism across thread counts, check_moves.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "chain_policy_harness.hpp"
#include "dcvrp_test_instances.hpp"
#include "thread_team.hpp"
#include "locus/dcvrp/constructions.hpp"
#include "locus/dcvrp/cvrplib.hpp"
#include "locus/dcvrp/dcvrp_problem.hpp"
#include "locus/dcvrp/generator.hpp"
#include "locus/dcvrp/giant_tour.hpp"
#include "locus/dcvrp/route_chains.hpp"
#include "locus/gpu/chain_engine.hpp"
#include "locus/rng.hpp"
#include "route_kick_check.hpp"
#include "test_support.hpp"

using namespace locus;
using namespace locus::dcvrp;

namespace {

using dcvrp_test::HostWorkspace;

SolutionBatch starts(const DcvrpProblem& problem, std::size_t count, std::uint64_t seed) {
    return dcvrp_test::insertion_starts(problem, count, seed);
}

/// The chains' costs of `batch` (fixed point).
std::vector<std::int64_t> chain_costs(const DcvrpProblem& problem, const SolutionBatch& batch) {
    return dcvrp_test::chain_costs(problem.instance(), batch);
}

/// Every chain's best is feasible and its cost is the chain's best objective.
void check_bests(const DcvrpProblem& problem, gpu::ChainRunner& runner, std::uint32_t chains) {
    const RouteChainData data(problem.instance(), 0);
    const auto best = runner.best_objectives();
    for (std::uint32_t c = 0; c < chains; ++c) {
        std::vector<std::int32_t> row(problem.solution_width());
        runner.best_solution(c, row);
        CHECK(problem.verify(row).feasible);
        CHECK(data.cost(row) == best[c]);
    }
}

struct Outcome {
    std::vector<std::int64_t> best;
    std::vector<std::vector<std::int32_t>> rows;
};

Outcome run(const DcvrpProblem& problem, std::uint32_t chains, int threads, bool check) {
    RouteChainOptions options;
    options.candidates = 8;
    options.kicks = 2;
    options.segments = true;
    gpu::ChainParams params;
    params.seed = 23;
    params.check_moves = check;
    auto runner = make_cpu_route_runner(problem, options, chains, params, threads);
    const SolutionBatch batch = starts(problem, chains, 5);
    const std::vector<std::int64_t> objectives = chain_costs(problem, batch);
    runner->start(batch.data(), objectives, {}, 0);
    const auto first = runner->best_objectives();
    for (std::uint32_t c = 0; c < chains; ++c)
        CHECK(first[c] < objectives[c]);
    for (int e = 0; e < 3; ++e)
        runner->epoch(static_cast<std::uint64_t>(e) * 20, 20, {});
    Outcome out{runner->best_objectives(), {}};
    for (std::uint32_t c = 0; c < chains; ++c) {
        std::vector<std::int32_t> row(problem.solution_width());
        runner->best_solution(c, row);
        out.rows.push_back(row);
        CHECK(out.best[c] <= first[c]);
    }
    CHECK_FALSE(runner->check().failed);
    return out;
}

} // namespace

TEST_CASE("DCVRP route chains: every move's delta equals re-evaluation, workspace equals rebuild") {
    struct Case {
        std::int32_t n;
        std::uint64_t seed;
        std::int64_t capacity;
        double distance;
    };
    // Tight capacity and duration limits (many moves refused), and a loose instance.
    std::uint64_t two_opt_moves = 0;
    std::uint64_t segment_moves = 0;
    std::uint64_t swap_moves = 0;
    std::uint64_t star_moves = 0;
    for (const Case c : {Case{30, 1, 25, 1300.0}, Case{45, 2, 60, 2500.0}, Case{25, 3, 200, 1e18}}) {
        const Instance instance = c.distance < 1e17
                                      ? generate_random(c.n, c.seed, c.capacity, c.distance)
                                      : generate_random(c.n, c.seed, c.capacity);
        const DcvrpProblem problem(instance);
        const RouteChainData data(instance, 7);
        const SolutionBatch batch = starts(problem, 2, c.seed);
        for (std::size_t s = 0; s < 2; ++s) {
            const std::vector<std::int32_t> row(batch[s].begin(), batch[s].end());
            locus::test::HarnessCount count;
            locus::test::check_neighborhood<0>(data.policy(2), row, count);
            const std::uint64_t relocations = count.moves;
            locus::test::check_neighborhood<1>(data.policy(2), row, count);
            locus::test::check_neighborhood<2>(data.policy(2), row, count);
            const std::uint64_t before_two_opt = count.moves;
            locus::test::check_neighborhood<3>(data.policy(2), row, count);
            const std::uint64_t before_segments = count.moves;
            locus::test::check_neighborhood<4>(data.policy(2), row, count);
            const std::uint64_t before_swaps = count.moves;
            locus::test::check_neighborhood<5>(data.policy(2), row, count);
            const std::uint64_t before_star = count.moves;
            locus::test::check_neighborhood<6>(data.policy(2), row, count);
            star_moves += count.moves - before_star;
            swap_moves += before_star - before_swaps;
            segment_moves += before_swaps - before_segments;
            two_opt_moves += before_segments - before_two_opt;
            CAPTURE(c.n);
            CHECK(relocations > 20);
            CHECK(count.wrong_delta == 0);
            CHECK(count.wrong_workspace == 0);
        }
    }
    CHECK(two_opt_moves > 20); // long routes of the loose instance
    CHECK(segment_moves > 100);
    CHECK(swap_moves > 100);
    CHECK(star_moves > 100);
}

TEST_CASE("DCVRP route chains with penalties: every move's delta equals the change of cost plus "
          "penalty terms, also from overloaded and too long routes") {
    std::uint64_t moves = 0;
    std::uint64_t over_limits = 0;
    for (const double distance : {1300.0, 1e18}) {
        const Instance instance = distance < 1e17 ? generate_random(35, 5, 30, distance)
                                                  : generate_random(35, 5, 30);
        const DcvrpProblem problem(instance);
        const RouteChainData data(instance, 7);
        RouteChainOptions options;
        options.kicks = 2;
        options.segments = true;
        options.segment_swaps = true;
        options.swap_star = true;
        options.penalties = true;
        const RouteChainPolicy policy = data.policy(options);
        const SolutionBatch batch = starts(problem, 1, 4);
        std::vector<std::int32_t> feasible(batch[0].begin(), batch[0].end());
        // Merge the first routes pairwise (drop every other marker after a route): overloaded
        // and too long routes.
        std::vector<std::int32_t> merged;
        int markers = 0;
        for (const std::int32_t node : feasible) {
            if (node == 0 && (markers++ % 2) == 1) continue;
            merged.push_back(node);
        }
        while (merged.size() < feasible.size())
            merged.push_back(0);
        CHECK_FALSE(problem.verify(merged).feasible);
        for (const auto& row : {feasible, merged}) {
            locus::test::HarnessCount count;
            locus::test::check_neighborhood<0>(policy, row, count);
            locus::test::check_neighborhood<1>(policy, row, count);
            locus::test::check_neighborhood<2>(policy, row, count);
            locus::test::check_neighborhood<3>(policy, row, count);
            locus::test::check_neighborhood<4>(policy, row, count);
            locus::test::check_neighborhood<5>(policy, row, count);
            locus::test::check_neighborhood<6>(policy, row, count);
            CHECK(count.wrong_delta == 0);
            CHECK(count.wrong_workspace == 0);
            moves += count.moves;
        }
        // With penalties, moves over the limits are moves: more than with hard limits.
        locus::test::HarnessCount hard;
        locus::test::HarnessCount soft;
        locus::test::check_neighborhood<0>(data.policy(2), feasible, hard);
        locus::test::check_neighborhood<0>(policy, feasible, soft);
        if (distance < 1e17) CHECK(soft.moves > hard.moves);
        over_limits += soft.moves - hard.moves;
    }
    CHECK(moves > 1000);
    CHECK(over_limits > 0);
}

namespace {
__extension__ typedef __int128 Wide; // the penalty's reference products, never overflowing
} // namespace

TEST_CASE("DCVRP route chains: a route's penalty is each part's excess times its weight, "
          "capped at 2^50 per part, up to the largest weights a repair makes") {
    RouteChainPolicy policy;
    policy.capacity = 1000;
    policy.max_duration = 50000;
    const Wide cap = Wide{1} << 50;
    // The reference in 128 bits: min(load excess (at most 2^22) x wl, 2^50) + min(time excess
    // (at most 2^50) x wd / 1024, 2^50).
    const auto reference = [&](std::int64_t l, std::int64_t t, std::int64_t tw, std::int64_t wl,
                               std::int64_t wd) {
        const Wide le = std::min<Wide>(std::max<std::int64_t>(l - 1000, 0), 1 << 22);
        const Wide te = std::min<Wide>(std::max<std::int64_t>(t - 50000, 0) + tw, cap);
        const Wide a = std::min<Wide>(le * wl, cap);
        const Wide b = std::min<Wide>((te * wd) >> 10, cap);
        return static_cast<std::int64_t>(a + b);
    };
    Rng rng(derive_key(41, 0), 0);
    std::uint64_t wrong = 0;
    std::uint64_t capped = 0;
    std::uint64_t zero = 0;
    for (int i = 0; i < 200000; ++i) {
        // Excesses and weights from 0 to beyond the caps, log-uniform, with the boundaries.
        const auto draw = [&](int bits) -> std::int64_t {
            const auto b = static_cast<int>(rng.next_u64() % static_cast<std::uint64_t>(bits + 1));
            const auto v = static_cast<std::int64_t>(rng.next_u64() >> (64 - 62));
            return b == 0 ? 0 : v >> (62 - b);
        };
        const std::int64_t l = 1000 + (i % 3 == 0 ? 0 : draw(30));
        const std::int64_t t = 50000 + (i % 5 == 0 ? -draw(10) : draw(52));
        const std::int64_t tw = i % 2 == 0 ? 0 : draw(52);
        const std::int64_t wl = i % 7 == 0 ? (std::int64_t{1000} << 36) : draw(46);
        const std::int64_t wd = i % 11 == 0 ? (std::int64_t{1000} << 20) : draw(30);
        const std::int64_t p = policy.penalty(l, t, tw, wl, wd);
        const std::int64_t r = reference(l, t, tw, wl, wd);
        wrong += p != r ? 1 : 0;
        capped += r >= static_cast<std::int64_t>(cap) ? 1 : 0;
        zero += r == 0 ? 1 : 0;
    }
    CHECK(wrong == 0);
    CHECK(capped > 1000);
    CHECK(zero > 1000);
    // At the caps' edges.
    CHECK(policy.penalty(1000 + (1 << 22), 0, 0, std::int64_t{1} << 28, 0) == std::int64_t{1} << 50);
    CHECK(policy.penalty(1000 + (1 << 22) - 1, 0, 0, std::int64_t{1} << 28, 0) ==
          (std::int64_t{1} << 50) - (std::int64_t{1} << 28));
    CHECK(policy.penalty(0, 50000, std::int64_t{1} << 40, 0, 1024) == std::int64_t{1} << 40);
    CHECK(policy.penalty(0, 50000, std::int64_t{1} << 50, 0, 2048) == std::int64_t{1} << 50);
    CHECK(policy.penalty(1000, 50000, 0, std::int64_t{1} << 40, std::int64_t{1} << 30) == 0);
}

TEST_CASE("DCVRP route chains: the adapted penalty weights fall towards a run of feasible "
          "descents down to 0.1 per unit of excess, not below") {
    RouteChainOptions options;
    options.penalties = true;
    // Integral distances (fixed point x 1): floors of 1 and 0.1 x 1024 per unit of time.
    const RouteChainData line(dcvrp_test::line5(), 5);
    CHECK(line.scale == 1.0);
    CHECK(line.policy(options).min_load_weight == 1);
    CHECK(line.policy(options).min_duration_weight == 102);
    // Real distances (x 10^6) with a duration limit.
    const Instance instance = generate_random(40, 8, 60, 3000.0);
    const DcvrpProblem problem(instance);
    const RouteChainData data(instance, 5);
    RouteChainPolicy policy = data.policy(options);
    CHECK(data.scale == 1e6);
    CHECK(policy.min_load_weight == 100'000);
    CHECK(policy.min_duration_weight == 102);
    gpu::ArrayList list;
    policy.declare(list, 1);
    gpu::HostStorage storage;
    storage.allocate(list);
    std::vector<std::int32_t> row(problem.solution_width());
    encode_routes(cheapest_insertion(instance, insertion_order(instance, InsertionOrder::random, 3)),
                  row);
    REQUIRE(problem.verify(row).feasible);
    policy.refresh(gpu::SerialTeam{}, 0, row.data());
    CHECK(policy.weights[0] == data.load_weight); // the start
    CHECK(policy.weights[0] > policy.min_load_weight);
    CHECK(policy.weights[1] > policy.min_duration_weight);
    // Every descent feasible: x 0.85 per adaptation; 400 adaptations reach both floors.
    std::int64_t lowest_load = policy.weights[0];
    std::int64_t lowest_duration = policy.weights[1];
    for (int d = 0; d < 400 * policy.adapt_every; ++d) {
        CHECK_FALSE(policy.needs_repair(gpu::SerialTeam{}, 0));
        lowest_load = std::min(lowest_load, policy.weights[0]);
        lowest_duration = std::min(lowest_duration, policy.weights[1]);
    }
    CHECK(lowest_load == policy.min_load_weight);
    CHECK(lowest_duration == policy.min_duration_weight);
    CHECK(policy.weights[0] == policy.min_load_weight);
    CHECK(policy.weights[1] == policy.min_duration_weight);
}

TEST_CASE("DCVRP route chains: the initial load weight is the longest distance over the "
          "heaviest demand, over it capped at half the capacity, or over the mean demand") {
    // line5: longest distance 5, capacity 8, demands 3 4 2 5 1 (heaviest 5, mean 3), fixed
    // point x 1.
    const RouteChainData line(dcvrp_test::line5(), 5);
    CHECK(line.load_weight == 1);
    CHECK(line.half_capacity_load_weight == 1); // 5 / 4 rounded
    CHECK(line.mean_load_weight == 2);          // 5 / 3 rounded
    RouteChainOptions options;
    options.penalties = true;
    CHECK(line.policy(options).load_weight == 1);
    options.load_weight_basis = LoadWeightBasis::mean;
    CHECK(line.policy(options).load_weight == 2);
    // A heaviest demand above half the capacity is priced as half the capacity; one below it
    // as itself.
    std::string heavy = dcvrp_test::kLine5;
    heavy.replace(heavy.find("CAPACITY : 8"), 12, "CAPACITY : 6");
    heavy.replace(heavy.find("5 5\n"), 4, "5 6\n"); // customer 4: demand 6, the capacity
    const RouteChainData capped(parse_cvrplib(heavy, "heavy.vrp"), 5);
    CHECK(capped.load_weight == 1);               // 5 / 6 rounded
    CHECK(capped.half_capacity_load_weight == 2); // 5 / 3 rounded
    options.load_weight_basis = LoadWeightBasis::half_capacity;
    CHECK(capped.policy(options).load_weight == 2);
    std::string light = dcvrp_test::kLine5;
    light.replace(light.find("CAPACITY : 8"), 12, "CAPACITY : 20");
    const RouteChainData uncapped(parse_cvrplib(light, "light.vrp"), 5);
    CHECK(uncapped.half_capacity_load_weight == uncapped.load_weight);

    // Real distances (x 10^6): the two weights stand as the heaviest demand to the mean one.
    const Instance instance = generate_random(60, 10, 40);
    const RouteChainData data(instance, 5);
    REQUIRE(data.scale == 1e6);
    double heaviest = 0.0;
    double total = 0.0;
    for (std::int32_t v = 1; v < instance.n; ++v) {
        heaviest =
            std::max(heaviest, static_cast<double>(instance.demand[static_cast<std::size_t>(v)]));
        total += static_cast<double>(instance.demand[static_cast<std::size_t>(v)]);
    }
    const double mean = total / (instance.n - 1);
    REQUIRE(heaviest > mean);
    CHECK(static_cast<double>(data.mean_load_weight) / static_cast<double>(data.load_weight) ==
          doctest::Approx(heaviest / mean).epsilon(1e-5));
    // A chain starts its descents at the chosen weight.
    const DcvrpProblem problem(instance);
    std::vector<std::int32_t> row(problem.solution_width());
    encode_routes(
        cheapest_insertion(instance, insertion_order(instance, InsertionOrder::random, 3)), row);
    CHECK(data.half_capacity_load_weight == data.load_weight); // demands up to 10 of 40
    for (const LoadWeightBasis basis : {LoadWeightBasis::heaviest, LoadWeightBasis::mean}) {
        options.load_weight_basis = basis;
        HostWorkspace host(data.policy(options), 1);
        host.policy.refresh(gpu::SerialTeam{}, 0, row.data());
        CHECK(host.policy.weights[0] ==
              (basis == LoadWeightBasis::mean ? data.mean_load_weight : data.load_weight));
    }
}

namespace {

/// A row of `width` words holding every customer of `instance` in one route, in index order.
std::vector<std::int32_t> one_route(const Instance& instance, std::size_t width) {
    std::vector<std::int32_t> row(width, 0);
    for (std::int32_t v = 1; v < instance.n; ++v)
        row[static_cast<std::size_t>(v)] = v;
    return row;
}

} // namespace

TEST_CASE("DCVRP route chains: chain objective ranks feasible rows by cost before every "
          "infeasible one") {
    const Instance instance = generate_random(30, 6, 40, 1500.0);
    const DcvrpProblem problem(instance);
    const RouteChainData data(instance, 5);
    const SolutionBatch batch = starts(problem, 1, 3);
    const std::vector<std::int32_t> row(batch[0].begin(), batch[0].end());
    CHECK(data.value(row) == data.cost(row));
    // One route for every customer is over the capacity: above every feasible value, and its
    // value grows with the excess.
    const std::vector<std::int32_t> one = one_route(instance, row.size());
    CHECK_FALSE(problem.verify(one).feasible);
    CHECK(data.value(one) >= RouteChainPolicy::kInfeasible);
    CHECK(data.value(one) > data.value(row));
}

TEST_CASE("DCVRP route chains: fixed-point costs, exact for integral distances") {
    const Instance instance = generate_random(40, 9, 50, 3000.0);
    const RouteChainData data(instance, 5);
    const DcvrpProblem problem(instance);
    const SolutionBatch batch = starts(problem, 1, 2);
    const double scaled = static_cast<double>(data.cost(batch[0])) / data.scale;
    CHECK(scaled == doctest::Approx(batch.objective(0)).epsilon(1e-9));
    if (data.scale == 1.0)
        CHECK(static_cast<double>(data.cost(batch[0])) == batch.objective(0));
    CHECK(data.K == 5);
    CHECK(data.max_duration <= static_cast<std::int64_t>(3000.0 * data.scale));
}

TEST_CASE("DCVRP route chains improve feasible starts, stay feasible, and do not depend on the "
          "thread count") {
    const DcvrpProblem problem(generate_random(70, 4, 50, 2600.0));
    const Outcome one = run(problem, 4, 1, true);
    const Outcome all = run(problem, 4, 0, false);
    CHECK(one.best == all.best);
    CHECK(one.rows == all.rows);
    const RouteChainData data(problem.instance(), 0);
    for (std::size_t c = 0; c < one.rows.size(); ++c) {
        const auto verdict = problem.verify(one.rows[c]);
        CHECK(verdict.feasible);
        CHECK(data.cost(one.rows[c]) == one.best[c]);
    }
}

TEST_CASE("DCVRP route chains: teams of 3 and 8 CPU threads recombine the same children and "
          "evaluate rows, feasible or not, to the same values as one thread") {
    const Instance instance = generate_random(90, 8, 40, 1800.0);
    const DcvrpProblem problem(instance);
    const RouteChainData data(instance, 6);
    const SolutionBatch parents = starts(problem, 2, 11);
    const auto w = static_cast<std::size_t>(problem.solution_width());
    // Every customer in one route: over the capacity and the duration limit.
    const std::vector<std::int32_t> crowded = one_route(instance, w);
    HostWorkspace one(data.policy(2), 1);
    const std::int64_t crowded_value = one.policy.evaluate(gpu::SerialTeam{}, 0, crowded.data());
    CHECK(crowded_value != data.cost(crowded)); // the evaluation saw the excess
    for (std::uint64_t draw = 0; draw < 12; ++draw) {
        std::vector<std::int32_t> serial(w, -1);
        Rng rng(derive_key(7, draw), 0);
        one.policy.recombine(gpu::SerialTeam{}, 0, parents[0].data(), parents[1].data(),
                             serial.data(), rng);
        const std::int64_t value = one.policy.evaluate(gpu::SerialTeam{}, 0, serial.data());
        for (const std::uint32_t threads : {3u, 8u}) {
            CAPTURE(draw);
            CAPTURE(threads);
            HostWorkspace many(data.policy(2), 1);
            std::vector<std::int32_t> child(w, -1);
            std::vector<std::int64_t> values(threads, -1);
            std::vector<std::int64_t> crowded_values(threads, -1);
            locus::test::run_team(threads, [&](const locus::test::ThreadTeam& team) {
                Rng mine(derive_key(7, draw), 0); // every rank's copy of the stream
                many.policy.recombine(team, 0, parents[0].data(), parents[1].data(), child.data(),
                                      mine);
                values[team.rank()] = many.policy.evaluate(team, 0, child.data());
                crowded_values[team.rank()] = many.policy.evaluate(team, 0, crowded.data());
            });
            CHECK(child == serial);
            for (std::uint32_t r = 0; r < threads; ++r) {
                CHECK(values[r] == value);
                CHECK(crowded_values[r] == crowded_value);
            }
        }
    }
}

TEST_CASE("DCVRP route chains: order crossover and Split give feasible children of both "
          "parents' customers") {
    for (const double distance : {1800.0, 1e18}) {
        const Instance instance = distance < 1e17 ? generate_random(60, 8, 40, distance)
                                                  : generate_random(60, 8, 40);
        const DcvrpProblem problem(instance);
        const RouteChainData data(instance, 6);
        HostWorkspace host(data.policy(2), 1);
        const RouteChainPolicy& policy = host.policy;
        const SolutionBatch parents = starts(problem, 2, 11);
        std::vector<std::int32_t> child(problem.solution_width());
        for (std::uint64_t draw = 0; draw < 20; ++draw) {
            Rng rng(derive_key(5, draw), 0);
            policy.recombine(gpu::SerialTeam{}, 0, parents[0].data(), parents[1].data(),
                             child.data(), rng);
            CAPTURE(draw);
            const auto verdict = problem.verify(child);
            CHECK(verdict.feasible);
            CHECK(child[0] == 0);
            // Split is optimal for the child's sequence: no worse than splitting it one route
            // per customer, and the cost is the row's cycle cost.
            std::int64_t single = 0;
            for (const std::int32_t node : child)
                if (node != 0) single += 2 * data.distance()(0, node);
            CHECK(data.cost(child) <= single);
        }
    }
}

TEST_CASE("DCVRP route chains with recombination stay feasible and exact") {
    const DcvrpProblem problem(generate_random(60, 12, 45, 2400.0));
    RouteChainOptions options;
    options.candidates = 8;
    gpu::ChainParams params;
    params.seed = 3;
    params.check_moves = true;
    const std::uint32_t chains = 6;
    auto runner = make_cpu_route_runner(problem, options, chains, params, 0);
    const SolutionBatch batch = starts(problem, chains, 21);
    runner->start(batch.data(), chain_costs(problem, batch), {}, 0);
    for (std::uint64_t round = 0; round < 4; ++round) {
        const auto pairs =
            dcvrp_test::neighbour_pairs(chains, static_cast<std::uint32_t>(round));
        runner->recombine(pairs.a, pairs.b, round);
        runner->epoch(round * 10, 10, {});
    }
    CHECK_FALSE(runner->check().failed);
    check_bests(problem, *runner, chains);
}

TEST_CASE("DCVRP route chains: ruin and recreate puts every removed customer back; its change is "
          "exact, the limits hold and the workspace equals a rebuild, under hard limits and "
          "penalties") {
    std::uint64_t kicks = 0;
    std::uint64_t removed = 0;
    std::uint64_t routes_changed = 0;
    for (const bool penalties : {false, true}) {
        for (const double distance : {1500.0, 1e18}) {
            const Instance instance = distance < 1e17 ? generate_random(80, 8, 40, distance)
                                                      : generate_random(80, 8, 40);
            const DcvrpProblem problem(instance);
            const RouteChainData data(instance, 8);
            RouteChainOptions options;
            options.ruin = 10;
            options.penalties = penalties;
            HostWorkspace host(data.policy(options), 1);
            const SolutionBatch batch = starts(problem, 1, 6);
            std::vector<std::int32_t> row(batch[0].begin(), batch[0].end());
            for (std::uint64_t k = 0; k < 150; ++k) {
                CAPTURE(penalties);
                CAPTURE(distance);
                CAPTURE(k);
                const auto kick =
                    dcvrp_test::checked_kick(host, penalties, row, Rng(derive_key(99, k), 0));
                const std::vector<std::int32_t>& trial = kick.row;
                if (!penalties) CHECK(problem.verify(trial).feasible);
                CHECK(std::ranges::adjacent_find(kick.moved) == kick.moved.end()); // once each
                if (!kick.moved.empty()) {
                    ++kicks;
                    removed += kick.moved.size();
                    routes_changed += trial != row ? 1 : 0;
                } else {
                    CHECK(trial == row); // a dropped kick leaves the row
                }
                row = trial;
            }
        }
    }
    CHECK(kicks > 500);
    CHECK(removed > 2 * kicks); // strings, not single customers
    CHECK(routes_changed > kicks / 4);
}

TEST_CASE("DCVRP route chains with ruin and recreate as the kick stay exact and feasible, and do "
          "not depend on the number of threads") {
    const DcvrpProblem problem(generate_random(120, 12, 50, 2500.0));
    RouteChainOptions options;
    options.candidates = 10;
    options.ruin = 12;
    gpu::ChainParams params;
    params.seed = 31;
    params.check_moves = true;
    constexpr std::uint32_t kChains = 4;
    std::vector<std::vector<std::int64_t>> bests;
    for (const int threads : {1, 2}) {
        auto runner = make_cpu_route_runner(problem, options, kChains, params, threads);
        const SolutionBatch batch = starts(problem, kChains, 3);
        const auto objectives = chain_costs(problem, batch);
        runner->start(batch.data(), objectives, {}, 0);
        const auto first = runner->best_objectives();
        runner->epoch(0, 40, {});
        CHECK_FALSE(runner->check().failed);
        check_bests(problem, *runner, kChains);
        bests.push_back(runner->best_objectives());
        for (std::uint32_t c = 0; c < kChains; ++c)
            CHECK(bests.back()[c] < first[c]); // 40 kicks and descents improve on the descent
    }
    CHECK(bests[0] == bests[1]);
}

TEST_CASE("DCVRP route chains on tiny instances with many kicks stay exact and feasible") {
    for (const std::int32_t n : {3, 5, 9}) {
        const DcvrpProblem problem(generate_random(n, 31, 20));
        RouteChainOptions options;
        options.candidates = 8;
        options.kicks = 64;
        options.segments = true;
        gpu::ChainParams params;
        params.seed = 7;
        params.check_moves = true;
        const std::uint32_t chains = 3;
        auto runner = make_cpu_route_runner(problem, options, chains, params, 1);
        const SolutionBatch batch = starts(problem, chains, 2);
        runner->start(batch.data(), chain_costs(problem, batch), {}, 0);
        runner->epoch(0, 30, {});
        CAPTURE(n);
        CHECK_FALSE(runner->check().failed);
        check_bests(problem, *runner, chains);
    }
}

TEST_CASE("DCVRP broken-pairs distance: 0 for the same routes in any order and orientation, "
          "the share of broken links otherwise") {
    const std::int32_t n = 7;
    // Routes (1 2 3) (4 5) (6), written in two row orders and orientations.
    const std::vector<std::int32_t> a = {0, 1, 2, 3, 0, 4, 5, 0, 6, 0, 0, 0};
    const std::vector<std::int32_t> b = {0, 6, 0, 5, 4, 0, 3, 2, 1, 0, 0, 0};
    CHECK(broken_pairs_distance(a, b, n) == 0.0);
    CHECK(broken_pairs_distance(a, a, n) == 0.0);
    // (1 2 3 4 5) (6): of a's links, 3-depot and depot-4 are missing in c: 2 of 12.
    const std::vector<std::int32_t> c = {0, 1, 2, 3, 4, 5, 0, 6, 0, 0, 0, 0};
    CHECK(broken_pairs_distance(a, c, n) == doctest::Approx(2.0 / 12.0));
    // Every customer alone: a's customer-customer links (1-2, 2-3, 4-5, each seen from both
    // ends) are missing: 6 of 12.
    const std::vector<std::int32_t> d = {0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6};
    CHECK(broken_pairs_distance(a, d, n) == doctest::Approx(6.0 / 12.0));
    // The population compares kept links (route_links) with broken_pairs: the same values.
    for (const auto* x : {&a, &b, &c, &d})
        for (const auto* y : {&a, &b, &c, &d})
            CHECK(broken_pairs(route_links(*x, n), route_links(*y, n)) ==
                  broken_pairs_distance(*x, *y, n));
    // route_links of c by hand: per node, predecessor and successor (0: the depot).
    CHECK(route_links(c, n) ==
          std::vector<std::int32_t>{0, 0, 0, 2, 1, 3, 2, 4, 3, 5, 4, 0, 0, 0});
}

TEST_CASE("DCVRP population: auto keeps 50 members when routes hold at most 15 customers by the "
          "capacity bound, else 25") {
    // customers / ceil(total demand / capacity): the bound counts a route for any remainder.
    const auto instance = [](std::int32_t customers, std::int64_t demand, std::int64_t capacity) {
        Instance i;
        i.n = customers + 1;
        i.capacity = capacity;
        i.demand.assign(static_cast<std::size_t>(i.n), demand);
        i.demand[0] = 0;
        return i;
    };
    // 30 customers of demand 10 in routes of 150: 2 routes of 15.
    CHECK(auto_population(instance(30, 10, 150)) == 50);
    // 31 customers: 3 routes (310 / 150 rounds up), about 10 per route.
    CHECK(auto_population(instance(31, 10, 150)) == 50);
    // 31 customers of demand 10 in routes of 160: 2 routes of 15.5.
    CHECK(auto_population(instance(31, 10, 160)) == 25);
    // Every customer in one route: 100 per route.
    CHECK(auto_population(instance(100, 1, 1000)) == 25);
    // No demand at all: one route.
    CHECK(auto_population(instance(10, 0, 5)) == 50);
    CHECK(auto_population(instance(16, 0, 5)) == 25);
    // The instances of data/: X-n101-k25 (100 customers, 25 routes) and Golden_1 (240
    // customers, 9 routes).
    CHECK(auto_population(read_cvrplib(locus::test::data_file("cvrplib/X-n101-k25.vrp"))) == 50);
    CHECK(auto_population(read_cvrplib(locus::test::data_file("cvrplib/Golden_1.vrp"))) == 25);
}

TEST_CASE("DCVRP route chains restart from recombined host rows: feasible children that become "
          "the chains' bests, the same for every thread count, with and without a descent") {
    const DcvrpProblem problem(generate_random(60, 14, 45, 2400.0));
    RouteChainOptions options;
    options.candidates = 8;
    gpu::ChainParams params;
    params.seed = 9;
    params.check_moves = true;
    const std::uint32_t chains = 5;
    const std::size_t w = problem.solution_width();
    for (const bool descent : {false, true}) {
        params.child_descent = descent;
        std::vector<std::vector<std::int64_t>> bests;
        for (const int threads : {1, 0}) {
            auto runner = make_cpu_route_runner(problem, options, chains, params, threads);
            const SolutionBatch batch = starts(problem, chains, 3);
            runner->start(batch.data(), chain_costs(problem, batch), {}, 0);
            for (std::uint64_t round = 0; round < 3; ++round) {
                std::vector<std::int32_t> rows(w * chains), other(w * chains);
                runner->best_solutions(rows);
                for (std::uint32_t c = 0; c < chains; ++c)
                    std::copy_n(rows.begin() + ((c + 1) % chains) * w, w,
                                other.begin() + c * w);
                runner->restart_from(rows, other, round);
                // The children (descended or not) are the chains' bests now: feasible,
                // objective = cost; without the descent, the recombined rows themselves.
                check_bests(problem, *runner, chains);
                runner->epoch(round * 10, 10, {});
            }
            CHECK_FALSE(runner->check().failed);
            check_bests(problem, *runner, chains);
            bests.push_back(runner->best_objectives());
        }
        CAPTURE(descent);
        CHECK(bests[0] == bests[1]);
    }
}

TEST_CASE("DCVRP route chains: a swap of segments exchanges 2 customers with 1 or 2, each segment "
          "in its orientation, in one route or two") {
    const Instance instance = generate_random(6, 3, 1000); // five customers, a loose capacity
    const RouteChainData data(instance, 4);
    HostWorkspace host(data.policy(1), 1);
    const RouteChainPolicy& workspace = host.policy;
    // Routes [1 2 3] and [4 5]; returns the row after the move (empty when it is not a move).
    const auto moved = [&](std::int32_t variant, std::int32_t u, std::int32_t v) {
        std::vector<std::int32_t> row{0, 1, 2, 3, 0, 4, 5, 0, 0, 0};
        workspace.refresh(gpu::SerialTeam{}, 0, row.data());
        const RouteMove m{5, variant, u, v};
        const std::int64_t before = data.cost(row);
        const std::int64_t delta = RouteChainPolicy::delta(workspace.view(0), m);
        if (delta == gpu::invalid_delta<std::int64_t>()) return std::vector<std::int32_t>{};
        workspace.apply(gpu::SerialTeam{}, 0, row.data(), m);
        CHECK(data.cost(row) == before + delta);
        return row;
    };
    using Row = std::vector<std::int32_t>;
    CHECK(moved(0, 1, 4) == Row{0, 4, 3, 0, 1, 2, 5, 0, 0, 0}); // [1 2] <-> [4]
    CHECK(moved(1, 3, 4) == Row{0, 1, 2, 4, 5, 0, 3, 0, 0, 0}); // [3] <-> [4 5]
    CHECK(moved(2, 2, 4) == Row{0, 1, 4, 5, 0, 2, 3, 0, 0, 0}); // [2 3] <-> [4 5]
    CHECK(moved(0, 1, 3) == Row{0, 3, 1, 2, 0, 4, 5, 0, 0, 0}); // adjacent in one route
    CHECK(moved(1, 3, 1) == Row{0, 3, 1, 2, 0, 4, 5, 0, 0, 0}); // [3] <-> [1 2]
    CHECK(moved(2, 3, 4).empty()); // [3 ...] would leave its route
    CHECK(moved(0, 1, 2).empty()); // [1 2] and [2] overlap
}

TEST_CASE("DCVRP route chains: SWAP* puts each customer at its cheapest granular place in the "
          "other's route, the one the other left included") {
    // Customers on a line at x = 1..6 (depot at 0): routes [1 4 5] and [2 3 6].
    const Instance instance = parse_cvrplib("NAME : line6\nTYPE : CVRP\nDIMENSION : 7\n"
                                            "CAPACITY : 100\nEDGE_WEIGHT_TYPE : EUC_2D\n"
                                            "NODE_COORD_SECTION\n1 0 0\n2 1 0\n3 2 0\n4 3 0\n"
                                            "5 4 0\n6 5 0\n7 6 0\nDEMAND_SECTION\n1 0\n2 1\n"
                                            "3 1\n4 1\n5 1\n6 1\n7 1\nDEPOT_SECTION\n1\n-1\n"
                                            "EOF\n",
                                            "line6.vrp");
    const RouteChainData data(instance, 5);
    HostWorkspace host(data.policy(1), 1);
    const RouteChainPolicy& workspace = host.policy;
    std::vector<std::int32_t> row{0, 1, 4, 5, 0, 2, 3, 6, 0, 0, 0, 0};
    workspace.refresh(gpu::SerialTeam{}, 0, row.data());
    const std::int64_t before = data.cost(row);
    // 4 goes to its cheapest place in [3 6] (between 3 and 6: +0, where 2's place costs +2);
    // 2 to its cheapest in [1 5], the place 4 left (+0; beside its candidates nothing is
    // cheaper).
    const RouteMove m{6, 0, 4, 2};
    const std::int64_t delta = RouteChainPolicy::delta(workspace.view(0), m);
    REQUIRE(delta != gpu::invalid_delta<std::int64_t>());
    workspace.apply(gpu::SerialTeam{}, 0, row.data(), m);
    CHECK(row == std::vector<std::int32_t>{0, 1, 2, 5, 0, 3, 4, 6, 0, 0, 0, 0});
    CHECK(data.cost(row) == before + delta);
    // Within one route it is not a move.
    workspace.refresh(gpu::SerialTeam{}, 0, row.data());
    CHECK(RouteChainPolicy::delta(workspace.view(0), RouteMove{6, 0, 1, 5}) ==
          gpu::invalid_delta<std::int64_t>());
}

TEST_CASE("DCVRP batch auto on a device: four chains per multiprocessor from 450 customers, 64 "
          "below, the engine's one per multiprocessor with time windows or without a device") {
    const auto instance = [](std::int32_t customers) {
        Instance i;
        i.n = customers + 1;
        i.capacity = 100;
        i.demand.assign(static_cast<std::size_t>(i.n), 1);
        i.demand[0] = 0;
        return i;
    };
    CHECK(auto_chains(instance(449), 132) == 64);
    CHECK(auto_chains(instance(450), 132) == 528);
    CHECK(auto_chains(instance(1000), 108) == 432);
    CHECK(auto_chains(instance(1000), 0) == 0);
    Instance windows = instance(1000);
    windows.ready.assign(static_cast<std::size_t>(windows.n), 0);
    windows.due.assign(static_cast<std::size_t>(windows.n), 1000);
    CHECK(auto_chains(windows, 132) == 0);
    // The instances of data/: X-n502-k39 (501 customers), Golden_20 (420).
    CHECK(auto_chains(read_cvrplib(locus::test::data_file("cvrplib/X-n502-k39.vrp")), 132) == 528);
    CHECK(auto_chains(read_cvrplib(locus::test::data_file("cvrplib/Golden_20.vrp")), 132) == 64);
}
