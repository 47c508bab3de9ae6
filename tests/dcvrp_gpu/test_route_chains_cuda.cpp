// The DCVRP route chains on CUDA (one block per chain) against the CPU twin: the same best
// objectives and rows after the start and after epochs with exchanges (copies of the leader,
// recombination, restarts from host rows, chains confined to regions of a decomposition), with
// check_moves; random kicks, ruin and recreate and route elimination; a fleet limit; time
// windows.

#include <doctest/doctest.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "dcvrp_test_instances.hpp"
#include "locus/dcvrp/constructions.hpp"
#include "locus/dcvrp/dcvrp_problem.hpp"
#include "locus/dcvrp/generator.hpp"
#include "locus/dcvrp/giant_tour.hpp"
#include "locus/dcvrp/route_chains.hpp"
#include "locus/dcvrp/route_decomposition.hpp"
#include "test_support.hpp"

using namespace locus;
using namespace locus::dcvrp;

namespace {

/// Both runners hold the same bests (objectives and rows), every best is feasible, neither saw
/// a delta that differs from re-evaluation (check_moves), and they counted the same evaluations.
void check_same_bests(const DcvrpProblem& problem, gpu::ChainRunner& cpu, gpu::ChainRunner& cuda,
                      std::uint32_t chains) {
    CHECK(cpu.best_objectives() == cuda.best_objectives());
    for (std::uint32_t c = 0; c < chains; ++c) {
        std::vector<std::int32_t> a(problem.solution_width()), b(problem.solution_width());
        cpu.best_solution(c, a);
        cuda.best_solution(c, b);
        CHECK(a == b);
        CHECK(problem.verify(a).feasible);
    }
    CHECK_FALSE(cpu.check().failed);
    CHECK_FALSE(cuda.check().failed);
    CHECK(cpu.evaluations() == cuda.evaluations());
}

} // namespace

TEST_CASE("DCVRP route chains: CUDA and the CPU twin reach the same solutions") {
    for (const double distance : {2200.0, 1e18}) {
        const Instance instance = distance < 1e17 ? generate_random(90, 7, 60, distance)
                                                  : generate_random(90, 7, 60);
        const DcvrpProblem problem(instance);
        const std::uint32_t chains = 6;
        // Under compute-sanitizer fewer iterations per epoch (every exchange still runs).
        const std::uint32_t iterations = test::instrumented_run() ? 3 : 15;
        SolutionBatch batch(chains, problem.solution_width());
        for (std::uint32_t s = 0; s < chains; ++s) {
            const auto order = insertion_order(instance, InsertionOrder::random, 30 + s);
            encode_routes(cheapest_insertion(instance, order), batch[s]);
        }
        const RouteChainData data(instance, 0);
        std::vector<std::int64_t> objectives(chains);
        for (std::uint32_t c = 0; c < chains; ++c)
            objectives[c] = data.cost(batch[c]);
        RouteChainOptions options;
        options.candidates = 10;
        options.kicks = 3;
        options.segments = distance < 1e17;
        options.segment_swaps = distance > 1e17; // the sixth and seventh neighborhoods on
        options.swap_star = distance > 1e17;     // long routes
        options.ruin = distance > 1e17 ? 6 : 0;  // ruin and recreate, or random kicks
        gpu::ChainParams params;
        params.seed = 41;
        params.check_moves = true;
        params.child_descent = distance < 1e17; // both ways a restarted chain starts
        auto cpu = make_cpu_route_runner(problem, options, chains, params, 0);
        auto cuda = make_cuda_route_runner(problem, options, chains, params, 0, {});
        cpu->start(batch.data(), objectives, {}, 0);
        cuda->start(batch.data(), objectives, {}, 0);
        CHECK(cpu->best_objectives() == cuda->best_objectives());
        for (std::uint64_t e = 0; e < 4; ++e) {
            const auto values = cpu->best_objectives();
            const auto leader = static_cast<std::uint32_t>(
                std::min_element(values.begin(), values.end()) - values.begin());
            const std::vector<std::uint32_t> sources(chains, leader);
            if (e == 1) {
                // Recombination: order crossover and Split of chain c's and c + 1's bests.
                const auto pairs = dcvrp_test::neighbour_pairs(chains);
                cpu->recombine(pairs.a, pairs.b, e);
                cuda->recombine(pairs.a, pairs.b, e);
            } else if (e == 2) {
                // Restarts from host rows (population exchange): chain c from the bests of
                // chains c and c + 2, read back in one piece.
                const std::size_t w = problem.solution_width();
                std::vector<std::int32_t> rows(w * chains), other(w * chains);
                cpu->best_solutions(rows);
                cuda->best_solutions(other);
                CHECK(rows == other);
                for (std::uint32_t c = 0; c < chains; ++c)
                    std::copy_n(rows.begin() + ((c + 2) % chains) * w, w, other.begin() + c * w);
                cpu->restart_from(rows, other, e);
                cuda->restart_from(rows, other, e);
                CHECK(cpu->best_objectives() == cuda->best_objectives());
            } else {
                cpu->continue_from(sources);
                cuda->continue_from(sources);
            }
            cpu->epoch(e * iterations, iterations, {});
            cuda->epoch(e * iterations, iterations, {});
        }
        check_same_bests(problem, *cpu, *cuda, chains);
    }
}

TEST_CASE("DCVRP route chains with independent moves and distances from the coordinates: CUDA "
          "and the CPU twin reach the same solutions") {
    for (const bool penalties : {false, true}) {
        CAPTURE(penalties);
        // Under compute-sanitizer a smaller instance and fewer iterations.
        const bool small = test::instrumented_run();
        const Instance instance = generate_random(small ? 300 : 2500, 9, 50, 9000.0);
        const DcvrpProblem problem(instance);
        const std::uint32_t chains = 4;
        const std::uint32_t iterations = small ? 2 : 10;
        const SolutionBatch batch = dcvrp_test::curve_starts(problem, chains, 50);
        const std::vector<std::int64_t> objectives = dcvrp_test::chain_costs(instance, batch);
        RouteChainOptions options;
        options.candidates = 12;
        options.segments = true;
        options.segment_swaps = true;
        options.swap_star = true;
        options.penalties = penalties;
        options.ruin = penalties ? 10 : 0; // penalised ruin and recreate, or random kicks
        options.eliminate = penalties ? 0 : 25; // hard route elimination, often refused
        options.distances = DistanceMode::coordinates;
        gpu::ChainParams params;
        params.seed = 43;
        params.check_moves = true;
        params.independent_moves = true;
        auto cpu = make_cpu_route_runner(problem, options, chains, params, 0);
        auto cuda = make_cuda_route_runner(problem, options, chains, params, 0, {});
        cpu->start(batch.data(), objectives, {}, 0);
        cuda->start(batch.data(), objectives, {}, 0);
        CHECK(cpu->best_objectives() == cuda->best_objectives());
        for (std::uint64_t e = 0; e < 3; ++e) {
            const auto values = cpu->best_objectives();
            const auto leader = static_cast<std::uint32_t>(
                std::min_element(values.begin(), values.end()) - values.begin());
            const std::vector<std::uint32_t> sources(chains, leader);
            cpu->continue_from(sources);
            cuda->continue_from(sources);
            cpu->epoch(e * iterations, iterations, {});
            cuda->epoch(e * iterations, iterations, {});
        }
        check_same_bests(problem, *cpu, *cuda, chains);
    }
}

TEST_CASE("DCVRP route chains confined to regions (decompose): CUDA and the CPU twin reach the "
          "same solutions, with random kicks and with ruin and recreate") {
    // Under compute-sanitizer a smaller instance and fewer iterations.
    const bool small = test::instrumented_run();
    const Instance instance = generate_random(small ? 400 : 2000, 13, 50, 9000.0);
    const DcvrpProblem problem(instance);
    const RouteDecomposition decomposition(instance);
    const std::uint32_t chains = 6;
    const std::uint32_t iterations = small ? 3 : 15;
    const SolutionBatch batch = dcvrp_test::curve_starts(problem, chains, 70);
    const std::vector<std::int64_t> objectives = dcvrp_test::chain_costs(instance, batch);
    for (const std::int32_t ruin : {0, 8}) {
        CAPTURE(ruin);
        RouteChainOptions options;
        options.candidates = 12;
        options.segments = true;
        options.ruin = ruin;
        gpu::ChainParams params;
        params.seed = 47;
        params.check_moves = true;
        params.independent_moves = true;
        params.regions = true;
        auto cpu = make_cpu_route_runner(problem, options, chains, params, 0);
        auto cuda = make_cuda_route_runner(problem, options, chains, params, 0, {});
        // The base: the best start, then the leader's best after each epoch.
        const auto first = static_cast<std::size_t>(
            std::min_element(objectives.begin(), objectives.end()) - objectives.begin());
        std::vector<std::int32_t> base(batch[first].begin(), batch[first].end());
        std::int64_t base_value = objectives[first];
        std::int64_t started = 0;
        for (std::uint64_t e = 0; e < 3; ++e) {
            // Chain c confined to group c mod G of the base; in the first epoch every chain
            // first descends its region from the base (a decomposed start).
            const auto groups = decomposition.split(base, small ? 130 : 650, chains, e);
            REQUIRE(groups.size() == 3);
            const auto regions = dcvrp_test::regions_of(groups, chains);
            std::vector<std::int32_t> starts;
            for (std::uint32_t c = 0; c < chains; ++c)
                starts.insert(starts.end(), base.begin(), base.end());
            for (gpu::ChainRunner* runner : {cpu.get(), cuda.get()}) {
                runner->restrict_chains(regions.elements, regions.offsets);
                if (e == 0)
                    runner->start(starts, std::vector<std::int64_t>(chains, base_value), {}, 0);
                else
                    runner->reset(base, base_value);
            }
            if (e == 0) {
                CHECK(cpu->best_objectives() == cuda->best_objectives());
                const auto values = cpu->best_objectives();
                started = *std::min_element(values.begin(), values.end());
                CHECK(started < base_value); // the confined descents improved the start
            }
            for (gpu::ChainRunner* runner : {cpu.get(), cuda.get()})
                runner->epoch(e * iterations, iterations, {});
            const auto values = cpu->best_objectives();
            const auto leader = static_cast<std::uint32_t>(
                std::min_element(values.begin(), values.end()) - values.begin());
            cpu->best_solution(leader, base);
            base_value = values[leader];
        }
        check_same_bests(problem, *cpu, *cuda, chains);
        // The confined chains improved on the best start's descent.
        const auto bests = cpu->best_objectives();
        if (!small) CHECK(*std::min_element(bests.begin(), bests.end()) < started);
    }
}

TEST_CASE("DCVRP route chains under a fleet limit the capacity hardly fits: CUDA and the CPU "
          "twin split the children within the fleet alike") {
    // 90 customers of demand 1..10, capacity 60: the fewest routes the loads allow, plus one.
    // Crossover children rarely split into so few routes with the capacity kept, so with
    // penalties they are split within the fleet (routing::split_routes_within) and repaired.
    Instance instance = generate_random(90, 7, 60);
    std::int64_t total = 0;
    for (const std::int64_t q : instance.demand)
        total += q;
    instance.vehicles = static_cast<std::int32_t>((total + 59) / 60) + 1;
    const DcvrpProblem problem(instance);
    const std::uint32_t chains = 6;
    const std::uint32_t iterations = test::instrumented_run() ? 3 : 15;
    SolutionBatch batch(chains, problem.solution_width());
    for (std::uint32_t s = 0; s < chains; ++s)
        encode_routes(savings(instance, instance.vehicles, 1.0 + 0.1 * s), batch[s]);
    const std::vector<std::int64_t> objectives = dcvrp_test::chain_costs(instance, batch);
    for (std::uint32_t s = 0; s < chains; ++s)
        REQUIRE(problem.verify(batch[s]).feasible); // within the fleet
    RouteChainOptions options;
    options.candidates = 10;
    options.segments = true;
    options.swap_star = true;
    options.penalties = true;
    gpu::ChainParams params;
    params.seed = 41;
    params.check_moves = true;
    const auto run = [&](gpu::ChainRunner& runner) {
        runner.start(batch.data(), objectives, {}, 0);
        for (std::uint64_t e = 0; e < 3; ++e) {
            if (e == 1) {
                const auto pairs = dcvrp_test::neighbour_pairs(chains);
                runner.recombine(pairs.a, pairs.b, e);
            }
            runner.epoch(e * iterations, iterations, {});
        }
    };
    auto cpu = make_cpu_route_runner(problem, options, chains, params, 0);
    auto cuda = make_cuda_route_runner(problem, options, chains, params, 0, {});
    run(*cpu);
    run(*cuda);
    check_same_bests(problem, *cpu, *cuda, chains); // feasible within the fleet
    // The fleet shaped the children: without it the same run ends elsewhere.
    Instance unlimited = instance;
    unlimited.vehicles = 0;
    const DcvrpProblem open(unlimited);
    auto free_cpu = make_cpu_route_runner(open, options, chains, params, 0);
    run(*free_cpu);
    if (!test::instrumented_run()) CHECK(free_cpu->best_objectives() != cpu->best_objectives());
}

TEST_CASE("VRPTW route chains: CUDA and the CPU twin reach the same solutions (every "
          "neighborhood, penalised time warp, random kicks, ruin and recreate and route "
          "elimination, recombination)") {
    // (ruin, eliminate, length): in the last case the ruin and the elimination wait for routes
    // of 8 customers on average (ruin_length = eliminate_length = 8: 11 routes or fewer of the
    // 89 customers), which these chains' 10-12 routes cross, so the gates open and close during
    // the run.
    for (const auto& [ruin, eliminate, length] :
         {std::tuple{0, 0, 0}, std::tuple{6, 0, 0}, std::tuple{0, 40, 0}, std::tuple{6, 40, 8}}) {
        CAPTURE(ruin);
        CAPTURE(eliminate);
        CAPTURE(length);
        const Instance instance = generate_random_vrptw(90, 5, 80, 10, 250);
        const DcvrpProblem problem(instance);
        const std::uint32_t chains = 6;
        const std::uint32_t iterations = test::instrumented_run() ? 3 : 15;
        const std::vector<std::int32_t> start =
            encode_routes(time_window_insertion(instance), instance.n);
        SolutionBatch batch(chains, problem.solution_width());
        for (std::uint32_t s = 0; s < chains; ++s)
            std::copy(start.begin(), start.end(), batch[s].begin());
        const RouteChainData data(instance, 0);
        const std::vector<std::int64_t> objectives(chains, data.cost(start));
        RouteChainOptions options;
        options.candidates = 10;
        options.segments = true;
        options.segment_swaps = true;
        options.swap_star = true;
        options.penalties = true;
        options.ruin = ruin;
        options.eliminate = eliminate;
        options.eliminate_length = length;
        options.ruin_length = length;
        gpu::ChainParams params;
        params.seed = 43;
        params.check_moves = true;
        auto cpu = make_cpu_route_runner(problem, options, chains, params, 0);
        auto cuda = make_cuda_route_runner(problem, options, chains, params, 0, {});
        cpu->start(batch.data(), objectives, {}, 0);
        cuda->start(batch.data(), objectives, {}, 0);
        CHECK(cpu->best_objectives() == cuda->best_objectives());
        for (std::uint64_t e = 0; e < 3; ++e) {
            if (e == 1) {
                const auto pairs = dcvrp_test::neighbour_pairs(chains);
                cpu->recombine(pairs.a, pairs.b, e);
                cuda->recombine(pairs.a, pairs.b, e);
            }
            cpu->epoch(e * iterations, iterations, {});
            cuda->epoch(e * iterations, iterations, {});
        }
        check_same_bests(problem, *cpu, *cuda, chains);
        const auto best = cpu->best_objectives();
        CHECK(*std::min_element(best.begin(), best.end()) < objectives[0]);
    }
}
