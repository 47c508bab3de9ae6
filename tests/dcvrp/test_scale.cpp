// The DCVRP at scale: no n x n matrix for instances with coordinates, DIMENSION above the old
// 10,000 limit, candidate lists from the 2-d tree equal to a scan of every pair, and the route
// chains' fixed-point distances from the coordinates equal to the matrix (same search results).

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "dcvrp_test_instances.hpp"
#include "locus/dcvrp/candidate_lists.hpp"
#include "locus/dcvrp/constructions.hpp"
#include "locus/dcvrp/cvrplib.hpp"
#include "locus/dcvrp/dcvrp_problem.hpp"
#include "locus/dcvrp/generator.hpp"
#include "locus/dcvrp/giant_tour.hpp"
#include "locus/dcvrp/giant_tour_search.hpp"
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

namespace {

/// `count` space-filling-curve starts (random start points drawn from seed + s).

struct ManyOutcome {
    std::vector<std::int64_t> start;   ///< the chains' costs of the starts
    std::vector<std::int64_t> descent; ///< after the first descent
    std::vector<std::int64_t> best;    ///< after the epochs
    std::vector<std::vector<std::int32_t>> rows;
    bool checked = false; ///< check_moves found no delta that differs from re-evaluation
};

/// The route chains without apply_many: a step's independent moves applied one by one.
struct OneByOne : RouteChainPolicy {
    void apply_many() const {}
};
static_assert(gpu::ManyMoves<RouteChainPolicy, gpu::SerialTeam>);
static_assert(!gpu::ManyMoves<OneByOne, gpu::SerialTeam>);

/// Chains with pivot independent from curve starts: the first descent, then `epochs` epochs of
/// `iterations` iterations. `one_by_one`: the moves of a step applied one by one (OneByOne).
ManyOutcome run_independent(const DcvrpProblem& problem, const RouteChainOptions& options,
                            std::uint32_t chains, int threads, bool check, int epochs,
                            std::uint32_t iterations, bool one_by_one = false) {
    gpu::ChainParams params;
    params.seed = 31;
    params.check_moves = check;
    params.independent_moves = true;
    std::unique_ptr<gpu::ChainRunner> runner;
    if (one_by_one) {
        auto data = std::make_shared<RouteChainData>(problem.instance(), options.candidates,
                                                     options.distances);
        data->vehicles = problem.vehicles();
        runner = std::make_unique<gpu::CpuChainRunner<OneByOne>>(
            OneByOne{data->policy(options)}, chains, params, threads, data);
    } else {
        runner = make_cpu_route_runner(problem, options, chains, params, threads);
    }
    const SolutionBatch batch = dcvrp_test::curve_starts(problem, chains, 3);
    const RouteChainData data(problem.instance(), 0);
    ManyOutcome out;
    for (std::size_t c = 0; c < batch.count(); ++c)
        out.start.push_back(data.cost(batch[c]));
    runner->start(batch.data(), out.start, {}, 0);
    out.descent = runner->best_objectives();
    for (int e = 0; e < epochs; ++e)
        runner->epoch(static_cast<std::uint64_t>(e) * iterations, iterations, {});
    out.best = runner->best_objectives();
    for (std::uint32_t c = 0; c < chains; ++c) {
        std::vector<std::int32_t> row(problem.solution_width());
        runner->best_solution(c, row);
        out.rows.push_back(row);
    }
    out.checked = !runner->check().failed;
    return out;
}

} // namespace

TEST_CASE("DCVRP route chains with independent moves: every delta equals re-evaluation, bests "
          "feasible and exact, the same for every thread count") {
    for (const bool penalties : {false, true}) {
        CAPTURE(penalties);
        const DcvrpProblem problem(generate_random(160, 5, 30, 2500.0));
        RouteChainOptions options;
        options.candidates = 10;
        options.segments = true;
        options.penalties = penalties;
        const ManyOutcome one = run_independent(problem, options, 3, 1, true, 3, 10);
        const ManyOutcome all = run_independent(problem, options, 3, 0, false, 3, 10);
        CHECK(one.checked);
        CHECK(one.best == all.best);
        CHECK(one.rows == all.rows);
        const RouteChainData data(problem.instance(), 0);
        for (std::size_t c = 0; c < one.rows.size(); ++c) {
            CHECK(one.descent[c] < one.start[c]);
            CHECK(one.best[c] <= one.descent[c]);
            CHECK(problem.verify(one.rows[c]).feasible);
            CHECK(data.cost(one.rows[c]) == one.best[c]);
        }
    }
}

TEST_CASE("DCVRP route chains with start_pivot independent: the first descents are pivot "
          "independent's, in fewer evaluations than pivot best's; the epochs are pivot best's") {
    const DcvrpProblem problem(generate_random(300, 5, 30, 2500.0));
    RouteChainOptions options;
    options.candidates = 10;
    options.segments = true;
    options.penalties = true;
    const std::uint32_t chains = 3;
    const RouteChainData data(problem.instance(), 0);
    const auto runner = [&](bool independent, gpu::StartPivot start_pivot) {
        gpu::ChainParams params;
        params.seed = 31;
        params.check_moves = true;
        params.independent_moves = independent;
        params.start_pivot = start_pivot;
        return make_cpu_route_runner(problem, options, chains, params, 0);
    };
    const auto bests = [&](gpu::ChainRunner& r) {
        std::vector<std::int32_t> rows(problem.solution_width() * chains);
        r.best_solutions(rows);
        return rows;
    };
    const SolutionBatch batch = dcvrp_test::curve_starts(problem, chains, 3);
    std::vector<std::int64_t> start;
    for (std::size_t c = 0; c < batch.count(); ++c)
        start.push_back(data.cost(batch[c]));
    const auto split = runner(false, gpu::StartPivot::independent);
    const auto independent = runner(true, gpu::StartPivot::same);
    const auto best = runner(false, gpu::StartPivot::same);
    for (gpu::ChainRunner* r : {split.get(), independent.get(), best.get()})
        r->start(batch.data(), start, {}, 0);
    CHECK(split->best_objectives() == independent->best_objectives());
    CHECK(bests(*split) == bests(*independent));
    CHECK(split->evaluations() == independent->evaluations());
    CHECK(split->evaluations() < best->evaluations());
    for (std::uint32_t c = 0; c < chains; ++c)
        CHECK(split->best_objectives()[c] < start[c]);
    // The independent descent ends where no neighborhood has an improving move: a runner of
    // pivot best started from its solutions finds none, and the epochs of both are the same.
    const std::vector<std::int32_t> optima = bests(*split);
    const auto again = runner(false, gpu::StartPivot::same);
    const std::uint64_t before = again->evaluations();
    again->start(optima, split->best_objectives(), {}, 0);
    CHECK(again->best_objectives() == split->best_objectives());
    CHECK(bests(*again) == optima);
    CHECK(again->evaluations() > before);
    for (std::uint64_t e = 0; e < 3; ++e) {
        split->epoch(e * 10, 10, {});
        again->epoch(e * 10, 10, {});
    }
    CHECK(split->best_objectives() == again->best_objectives());
    CHECK(bests(*split) == bests(*again));
    CHECK_FALSE(split->check().failed);
}

TEST_CASE("DCVRP route chains with independent moves on 12,000 customers: a feasible, verified "
          "solution far below the construction within an iteration budget") {
    const DcvrpProblem problem(
        generate_random(12001, 7, 100, std::numeric_limits<double>::infinity()));
    CHECK(problem.instance().dist.empty());
    RouteChainOptions options;
    options.candidates = 8;
    options.segments = true;
    options.penalties = true;
    const ManyOutcome out = run_independent(problem, options, 2, 0, false, 1, 2);
    const RouteChainData data(problem.instance(), 0);
    CHECK(data.dist.empty()); // distances from the coordinates
    for (std::size_t c = 0; c < out.rows.size(); ++c) {
        CAPTURE(c);
        const auto verdict = problem.verify(out.rows[c]);
        CHECK(verdict.feasible);
        CHECK(data.cost(out.rows[c]) == out.best[c]);
        // The first descent alone removes more than 5 % of the curve construction's cost.
        CHECK(static_cast<double>(out.descent[c]) < 0.95 * static_cast<double>(out.start[c]));
        CHECK(out.best[c] <= out.descent[c]);
    }
}

namespace {

/// Every customer's best improving move of neighborhood k on chain c's refreshed workspace.
template <int k>
void best_moves(const RouteChainPolicy& policy, std::uint32_t c, std::int32_t* row,
                const std::vector<std::int32_t>& customers, std::vector<RouteMove>& moves,
                std::vector<std::int64_t>& deltas) {
    const auto count = static_cast<std::int32_t>(customers.size());
    const auto eval = policy.evaluator<k>(c, row, customers.data(), &count);
    const gpu::MoveGrid grid = eval.grid();
    for (std::uint32_t r = 0; r < grid.rows; ++r) {
        std::int64_t best = 0;
        std::uint64_t index = 0;
        for (std::uint32_t col = 0; col < grid.cols; ++col) {
            const std::int64_t d = eval(eval.row(0, r), col);
            if (d < best) {
                best = d;
                index = std::uint64_t{r} * grid.cols + col;
            }
        }
        if (best < 0) {
            moves.push_back(eval.decode(0, index));
            deltas.push_back(best);
        }
    }
}

} // namespace

TEST_CASE("DCVRP route chains with independent moves on 3,000 customers: apply_many equals "
          "apply one by one, and the descents check out") {
    const Instance instance = generate_random(3001, 9, 60, std::numeric_limits<double>::infinity());
    const DcvrpProblem problem(instance);
    SUBCASE("apply_many on disjoint moves of every neighborhood") {
        const RouteChainData data(instance, 10);
        RouteChainOptions options;
        options.segments = true;
        RouteChainPolicy policy = data.policy(options);
        gpu::ArrayList list;
        policy.declare(list, 2);
        gpu::HostStorage storage;
        storage.allocate(list);
        gpu::SerialTeam team;
        const std::int32_t n = instance.n;
        const std::int32_t w = policy.width();
        const SolutionBatch start = dcvrp_test::curve_starts(problem, 1, 5);
        std::vector<std::int32_t> many(start[0].begin(), start[0].end());
        std::vector<std::int32_t> single = many;
        policy.refresh(team, 0, many.data());
        policy.refresh(team, 1, single.data());
        const std::int32_t routes = w - (n - 1);
        std::vector<std::int32_t> customers;
        for (std::int32_t u = 1; u < n; ++u)
            customers.push_back(u);
        // Round 0: moves all over the row; 1: only on the routes of the middle sixth of those
        // with customers; 2: one move.
        for (int round = 0; round < 3; ++round) {
            CAPTURE(round);
            const std::int64_t before = policy.evaluate(team, 0, many.data());
            std::vector<RouteMove> candidates;
            std::vector<std::int64_t> deltas;
            best_moves<0>(policy, 0, many.data(), customers, candidates, deltas);
            best_moves<1>(policy, 0, many.data(), customers, candidates, deltas);
            best_moves<2>(policy, 0, many.data(), customers, candidates, deltas);
            best_moves<3>(policy, 0, many.data(), customers, candidates, deltas);
            best_moves<4>(policy, 0, many.data(), customers, candidates, deltas);
            // Interleave the neighborhoods (every 7th candidate first), then keep the moves
            // whose routes no kept move changes.
            std::vector<std::size_t> order;
            for (std::size_t phase = 0; phase < 7; ++phase)
                for (std::size_t i = phase; i < candidates.size(); i += 7)
                    order.push_back(i);
            std::vector<std::int32_t> used_routes; // routes with customers, in row order
            for (std::int32_t r = 0; r < routes; ++r)
                if (policy.view(0).length(r) > 0) used_routes.push_back(r);
            REQUIRE(used_routes.size() > 30u);
            const std::int32_t low = round == 1 ? used_routes[used_routes.size() / 3] : 0;
            const std::int32_t high = round == 1 ? used_routes[used_routes.size() / 2] : routes;
            std::vector<std::uint8_t> used(static_cast<std::size_t>(n), 0);
            RouteMove* moves = policy.move_buffer(0);
            std::int32_t count = 0;
            std::int64_t total = 0;
            int kinds[5] = {0, 0, 0, 0, 0};
            int within = 0;
            for (const std::size_t i : order) {
                if (round == 2 && count == 1) break;
                std::int32_t groups[2];
                const int g = policy.move_groups(0, candidates[i], groups);
                if (used[groups[0]] != 0 || used[groups[g - 1]] != 0) continue;
                if (groups[0] < low || groups[0] >= high || groups[g - 1] < low ||
                    groups[g - 1] >= high)
                    continue;
                used[groups[0]] = used[groups[g - 1]] = 1;
                moves[count++] = candidates[i];
                total += deltas[i];
                ++kinds[candidates[i].kind];
                within += g == 1 ? 1 : 0;
            }
            CAPTURE(count);
            if (round == 0) {
                REQUIRE(count > 100);
                for (const int kind : kinds)
                    CHECK(kind > 0);
                CHECK(within > 0);
                CHECK(within < count);
            } else {
                REQUIRE(count >= 1);
                if (round == 1) CHECK(count > 5);
            }
            // One by one on chain 1, each move decoded again on its current state.
            for (std::int32_t s = 0; s < count; ++s) {
                RouteMove m = moves[s];
                const RouteChainPolicy::View v1 = policy.view(1);
                m.pu = v1.pos[m.u];
                m.pv = v1.pos[m.v];
                REQUIRE(RouteChainPolicy::delta(v1, m) ==
                        RouteChainPolicy::delta(policy.view(0), moves[s]));
                policy.apply(team, 1, single.data(), m);
            }
            const std::vector<std::int32_t> previous = many;
            policy.apply_many(team, 0, many.data(), moves, count);
            CHECK(many != previous);
            CHECK(many == single);
            CHECK(problem.verify(many).feasible);
            CHECK(policy.evaluate(team, 0, many.data()) == before + total);
            CHECK(policy.evaluate(team, 1, single.data()) == before + total);
            const RouteChainPolicy::View a = policy.view(0);
            const RouteChainPolicy::View b = policy.view(1);
            std::int64_t differ = 0;
            for (std::int32_t q = 0; q < w; ++q)
                differ += a.lin[q] != b.lin[q] || a.lin[q] != many[q];
            for (std::int32_t u = 1; u < n; ++u) {
                differ += a.pos[u] != b.pos[u] || many[static_cast<std::size_t>(a.pos[u])] != u;
                differ += a.route[u] != b.route[u];
                differ += a.pre_load[u] != b.pre_load[u] || a.pre_dur[u] != b.pre_dur[u];
            }
            for (std::int32_t r = 0; r < routes; ++r) {
                differ += a.route_begin[r] != b.route_begin[r] || a.route_end[r] != b.route_end[r];
                differ += a.load[r] != b.load[r] || a.dur[r] != b.dur[r];
                differ += many[static_cast<std::size_t>(a.route_begin[r])] != 0;
                differ += policy.route_move[r] != 0; // reset after use
            }
            CHECK(differ == 0);
            // A refresh from the row rebuilds the same workspace.
            single = many;
            policy.refresh(team, 1, single.data());
            for (std::int32_t u = 1; u < n; ++u)
                differ += a.pos[u] != b.pos[u] || a.route[u] != b.route[u] ||
                          a.pre_load[u] != b.pre_load[u] || a.pre_dur[u] != b.pre_dur[u];
            for (std::int32_t r = 0; r < routes; ++r)
                differ += a.route_begin[r] != b.route_begin[r] ||
                          a.route_end[r] != b.route_end[r] || a.load[r] != b.load[r] ||
                          a.dur[r] != b.dur[r];
            CHECK(differ == 0);
        }
    }
    SUBCASE("descents with check_moves, the same for every thread count") {
        for (const bool penalties : {false, true}) {
            CAPTURE(penalties);
            RouteChainOptions options;
            options.candidates = 8;
            options.segments = true;
            options.penalties = penalties;
            const ManyOutcome one = run_independent(problem, options, 2, 1, true, 1, 3);
            const ManyOutcome all = run_independent(problem, options, 2, 0, false, 1, 3);
            const ManyOutcome plain = run_independent(problem, options, 2, 0, false, 1, 3, true);
            CHECK(one.checked);
            CHECK(one.descent == all.descent);
            CHECK(one.best == all.best);
            CHECK(one.rows == all.rows);
            // The same search as with the moves applied one by one.
            CHECK(plain.descent == all.descent);
            CHECK(plain.best == all.best);
            CHECK(plain.rows == all.rows);
            const RouteChainData data(instance, 0);
            for (std::size_t c = 0; c < one.rows.size(); ++c) {
                CHECK(static_cast<double>(one.descent[c]) <
                      0.95 * static_cast<double>(one.start[c]));
                CHECK(problem.verify(one.rows[c]).feasible);
                CHECK(data.cost(one.rows[c]) == one.best[c]);
            }
        }
    }
}

TEST_CASE("DCVRP bad instances above 10,000 nodes get the same one-line errors") {
    Instance instance = generate_random(15001, 4, 100, std::numeric_limits<double>::infinity());
    instance.demand[12345] = 101;
    const std::string text = format_cvrplib(instance);
    CHECK(test::error_message<InstanceError>([&] { parse_cvrplib(text, "big.vrp"); }) ==
          "big.vrp:27354: customer node 12346 has demand 101, more than CAPACITY 100");
    Instance far = generate_random(15001, 4, 100, std::numeric_limits<double>::infinity());
    far.x[9000] = std::numeric_limits<double>::quiet_NaN();
    CHECK(test::error_message<InstanceError>([&] { validate_instance(far, "far.vrp"); })
              .starts_with("far.vrp: node 9001 has coordinates (nan, "));
}

TEST_CASE("DCVRP giant-tour search above 10,000 nodes: refused with the bytes it would need") {
    const Instance instance = generate_random(10001, 1, 100, std::numeric_limits<double>::infinity());
    CHECK(test::error_message<ConfigError>([&] { const RouteData data(instance); }) ==
          "random-cvrp:n=10001,seed=1,capacity=100: the giant-tour search keeps an n x n distance matrix (8 n^2 "
          "bytes: 0.8 GB for 10001 nodes) and takes at most 10000 nodes; use the route chains "
          "(algorithm chains, configs/dcvrp/large.yaml)");
}
