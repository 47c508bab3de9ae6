// The DCVRP route chains under time windows (CPU twin): every move's delta against full
// re-evaluation of the time warp, hard and penalised, from feasible and late starts; the
// fixed-point time warp against check_routes; Split under windows; ruin and recreate under
// windows; whole chain runs that end feasible, exact and independent of the thread count.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "chain_policy_harness.hpp"
#include "dcvrp_test_instances.hpp"
#include "route_kick_check.hpp"
#include "locus/dcvrp/constructions.hpp"
#include "locus/dcvrp/dcvrp_problem.hpp"
#include "locus/dcvrp/generator.hpp"
#include "locus/dcvrp/giant_tour.hpp"
#include "locus/dcvrp/route_chains.hpp"
#include "locus/gpu/chain_engine.hpp"
#include "locus/rng.hpp"

using namespace locus;
using namespace locus::dcvrp;

namespace {

/// time_window_insertion's routes as a row.
std::vector<std::int32_t> insertion_row(const Instance& instance) {
    return encode_routes(time_window_insertion(instance), instance.n);
}

/// The row with every other depot marker dropped: routes merged pairwise, most of them late
/// (and overloaded).
std::vector<std::int32_t> merged(const std::vector<std::int32_t>& row) {
    std::vector<std::int32_t> out;
    int markers = 0;
    for (const std::int32_t node : row) {
        if (node == 0 && (markers++ % 2) == 1) continue;
        out.push_back(node);
    }
    while (out.size() < row.size())
        out.push_back(0);
    return out;
}

/// Random rows: the customers shuffled and cut into routes of 1..`longest` customers.
std::vector<std::int32_t> random_row(std::int32_t n, std::int32_t longest, Rng& rng) {
    std::vector<std::int32_t> customers(static_cast<std::size_t>(n - 1));
    std::iota(customers.begin(), customers.end(), 1);
    for (std::size_t i = customers.size() - 1; i > 0; --i)
        std::swap(customers[i], customers[rng.next_u64() % (i + 1)]);
    std::vector<std::int32_t> row;
    std::size_t at = 0;
    while (at < customers.size()) {
        row.push_back(0);
        const auto length = 1 + rng.next_u64() % static_cast<std::uint64_t>(longest);
        for (std::uint64_t k = 0; k < length && at < customers.size(); ++k)
            row.push_back(customers[at++]);
    }
    row.resize(2 * static_cast<std::size_t>(n - 1), 0);
    return row;
}

} // namespace

TEST_CASE("VRPTW route chains: every move's delta equals re-evaluation with time warp, hard and "
          "penalised, from feasible and late starts; the workspace equals a rebuild") {
    std::uint64_t hard_moves = 0;
    std::uint64_t soft_moves = 0;
    std::uint64_t plain_moves = 0;
    // Tight windows (width 60) and loose ones (600); capacity 40 and 200; the last case adds a
    // duration limit, so that capacity, duration and windows bind together.
    for (const auto& [seed, capacity, width, duration] :
         {std::tuple{1, 40, 60, 0.0}, std::tuple{2, 200, 600, 0.0}, std::tuple{3, 200, 60, 0.0},
          std::tuple{4, 60, 300, 1500.0}}) {
        Instance instance = generate_random_vrptw(36, static_cast<std::uint64_t>(seed), capacity,
                                                  10, width);
        if (duration > 0.0) instance.max_duration = duration;
        const DcvrpProblem problem(instance);
        const RouteChainData data(instance, 7);
        const std::vector<std::int32_t> start = insertion_row(instance);
        REQUIRE(problem.verify(start).feasible);
        const std::vector<std::int32_t> late = merged(start);
        REQUIRE_FALSE(problem.verify(late).feasible);
        RouteChainOptions options;
        options.segments = true;
        options.segment_swaps = true;
        options.swap_star = true;
        // Every delta exact here; the descents' lower bounds are checked in the next case.
        RouteChainPolicy hard = data.policy(options);
        hard.exact_deltas = 1;
        options.penalties = true;
        RouteChainPolicy soft = data.policy(options);
        soft.exact_deltas = 1;
        CAPTURE(seed);
        for (const auto* row : {&start, &late}) {
            for (const RouteChainPolicy* policy : {&hard, &soft}) {
                locus::test::HarnessCount count;
                locus::test::check_neighborhood<0>(*policy, *row, count);
                locus::test::check_neighborhood<1>(*policy, *row, count);
                locus::test::check_neighborhood<2>(*policy, *row, count);
                locus::test::check_neighborhood<3>(*policy, *row, count);
                locus::test::check_neighborhood<4>(*policy, *row, count);
                locus::test::check_neighborhood<5>(*policy, *row, count);
                locus::test::check_neighborhood<6>(*policy, *row, count);
                CHECK(count.wrong_delta == 0);
                CHECK(count.wrong_workspace == 0);
                (policy == &hard ? hard_moves : soft_moves) += count.moves;
            }
        }
        // The same customers without windows: the windows refuse moves.
        Instance plain = instance;
        plain.ready.clear();
        plain.due.clear();
        const RouteChainData plain_data(plain, 7);
        options.penalties = false;
        locus::test::HarnessCount count;
        locus::test::check_neighborhood<0>(plain_data.policy(options), start, count);
        locus::test::check_neighborhood<1>(plain_data.policy(options), start, count);
        plain_moves += count.moves;
        locus::test::HarnessCount windowed;
        locus::test::check_neighborhood<0>(hard, start, windowed);
        locus::test::check_neighborhood<1>(hard, start, windowed);
        CHECK(windowed.moves < count.moves);
    }
    CHECK(hard_moves > 500);
    CHECK(soft_moves > hard_moves); // penalised moves into time warp are moves
    CHECK(plain_moves > 0);
}

TEST_CASE("VRPTW route chains: a move's routes priced from the kept forward and backward "
          "pieces have the time warp of the whole routes folded, for every move") {
    std::uint64_t pieced = 0;
    std::uint64_t folded_only = 0;
    std::uint64_t wrong = 0;
    std::uint64_t late = 0;
    Rng rng(derive_key(29, 0), 0);
    for (const auto& [seed, width] : {std::tuple{1, 60}, std::tuple{2, 600}, std::tuple{3, 150}}) {
        CAPTURE(seed);
        const Instance instance =
            generate_random_vrptw(40, static_cast<std::uint64_t>(seed), 1000, 10, width);
        const RouteChainData data(instance, 9);
        RouteChainOptions options;
        options.penalties = true; // every move a move, late routes included
        options.segments = true;
        options.segment_swaps = true;
        options.swap_star = true;
        RouteChainPolicy policy = data.policy(options);
        gpu::ArrayList list;
        policy.declare(list, 1);
        gpu::HostStorage storage;
        storage.allocate(list);
        for (int trial = 0; trial < 3; ++trial) {
            // The construction's routes, then random routes of up to 16 customers.
            std::vector<std::int32_t> row =
                trial == 0 ? insertion_row(instance) : random_row(instance.n, 16, rng);
            policy.refresh(gpu::SerialTeam{}, 0, row.data());
            const RouteChainPolicy::View v = policy.view(0);
            for (int kind = 0; kind < 7; ++kind) {
                const int variants = kind == 4 ? 4 : kind == 5 ? 3 : (kind == 0 || kind == 2) ? 2 : 1;
                for (int variant = 0; variant < variants; ++variant) {
                    for (std::int32_t u = 1; u < instance.n; ++u) {
                        for (std::int32_t x = 1; x < instance.n; ++x) {
                            const routing::RouteMove m{kind, variant, u, x};
                            if (routing::route_move_delta(v, m) == gpu::invalid_delta<std::int64_t>())
                                continue;
                            for (const std::int32_t r : {v.route[u], v.route[x]}) {
                                const std::int64_t fast = routing::pieced_route_warp(v, m, r);
                                const std::int64_t slow = routing::folded_route_warp(v, m, r);
                                if (fast < 0) {
                                    ++folded_only;
                                    continue;
                                }
                                ++pieced;
                                late += slow > 0 ? 1 : 0;
                                wrong += fast != slow ? 1 : 0;
                            }
                        }
                    }
                }
            }
        }
    }
    CHECK(wrong == 0);
    CHECK(pieced > 100000);
    CHECK(late > pieced / 10); // late routes priced, not only punctual ones
    CHECK(folded_only > 0);    // 2-opt* with reversed heads keeps the fold
    CHECK(folded_only < pieced / 10);
}

namespace {

/// Neighborhood k's cells of `policy` on `row`: the descents' deltas (time warp not folded for
/// moves that cannot improve) against the exact ones. Returns the cells whose value differs.
template <int k>
std::uint64_t compare_bounds(RouteChainPolicy policy, const std::vector<std::int32_t>& row,
                             std::uint64_t& wrong) {
    gpu::ArrayList list;
    policy.declare(list, 1);
    gpu::HostStorage storage;
    storage.allocate(list);
    std::vector<std::int32_t> solution = row;
    policy.exact_deltas = 0;
    policy.refresh(gpu::SerialTeam{}, 0, solution.data());
    RouteChainPolicy exact = policy;
    exact.exact_deltas = 1;
    std::vector<std::int32_t> active(static_cast<std::size_t>(policy.elements()));
    std::iota(active.begin(), active.end(), 0);
    const std::int32_t count = policy.elements();
    const auto fast = policy.evaluator<k>(0, solution.data(), active.data(), &count);
    const auto slow = exact.evaluator<k>(0, solution.data(), active.data(), &count);
    const gpu::MoveGrid grid = fast.grid();
    std::uint64_t bounded = 0;
    for (std::uint64_t index = 0; index < grid.size(); ++index) {
        const auto r = static_cast<std::uint32_t>(index / grid.cols);
        const auto c = static_cast<std::uint32_t>(index % grid.cols);
        const std::int64_t d = fast(fast.row(0, r), c);
        const std::int64_t e = slow(slow.row(0, r), c);
        if (d == e) continue;
        ++bounded;
        // Only a move that cannot improve may differ, and then it stays one that cannot.
        if (e < 0 || d < 0 || d > e) ++wrong;
    }
    return bounded;
}

} // namespace

TEST_CASE("VRPTW route chains: the descents skip the time-warp fold only of moves that cannot "
          "improve: every improving delta exact, every other one a lower bound that does not "
          "improve") {
    std::uint64_t bounded = 0;
    std::uint64_t wrong = 0;
    for (const auto& [seed, capacity, width] :
         {std::tuple{1, 40, 60}, std::tuple{2, 200, 600}, std::tuple{3, 200, 60}}) {
        CAPTURE(seed);
        const Instance instance = generate_random_vrptw(36, static_cast<std::uint64_t>(seed),
                                                        capacity, 10, width);
        const RouteChainData data(instance, 7);
        const std::vector<std::int32_t> start = insertion_row(instance);
        const std::vector<std::int32_t> late = merged(start);
        RouteChainOptions options;
        options.segments = true;
        options.segment_swaps = true;
        options.swap_star = true;
        for (const bool penalties : {false, true}) {
            options.penalties = penalties;
            const RouteChainPolicy policy = data.policy(options);
            for (const auto* row : {&start, &late}) {
                bounded += compare_bounds<0>(policy, *row, wrong);
                bounded += compare_bounds<1>(policy, *row, wrong);
                bounded += compare_bounds<2>(policy, *row, wrong);
                bounded += compare_bounds<3>(policy, *row, wrong);
                bounded += compare_bounds<4>(policy, *row, wrong);
                bounded += compare_bounds<5>(policy, *row, wrong);
                bounded += compare_bounds<6>(policy, *row, wrong);
            }
        }
    }
    CHECK(wrong == 0);
    CHECK(bounded > 1000); // the shortcut is taken
}

TEST_CASE("VRPTW route chains: hard-limit moves from a feasible start keep every window, the "
          "capacity and the duration limit") {
    Instance instance = generate_random_vrptw(40, 7, 60, 10, 120);
    instance.max_duration = 1500.0;
    const DcvrpProblem problem(instance);
    const RouteChainData data(instance, 8);
    RouteChainOptions options;
    options.segments = true;
    options.segment_swaps = true;
    options.swap_star = true;
    const RouteChainPolicy policy = data.policy(options);
    std::vector<std::int32_t> row = insertion_row(instance);
    gpu::ArrayList list;
    RouteChainPolicy p = policy;
    p.declare(list, 1);
    gpu::HostStorage storage;
    storage.allocate(list);
    p.refresh(gpu::SerialTeam{}, 0, row.data());
    std::vector<std::int32_t> active(static_cast<std::size_t>(p.elements()));
    std::iota(active.begin(), active.end(), 0);
    const std::int32_t active_count = p.elements();
    // Apply 30 improving moves in turn (the first found of each neighborhood): each result is
    // feasible, windows included, and costs what the deltas say.
    std::int64_t cost = data.cost(row);
    int applied = 0;
    for (int step = 0; step < 30; ++step) {
        bool moved = false;
        const auto try_kind = [&](auto kind) {
            constexpr int k = decltype(kind)::value;
            if (moved) return;
            const auto eval = p.evaluator<k>(0, row.data(), active.data(), &active_count);
            const gpu::MoveGrid grid = eval.grid();
            for (std::uint64_t index = 0; index < grid.size() && !moved; ++index) {
                const auto r = static_cast<std::uint32_t>(index / grid.cols);
                const std::int64_t d =
                    eval(eval.row(0, r), static_cast<std::uint32_t>(index % grid.cols));
                if (d == gpu::invalid_delta<std::int64_t>() || d >= 0) continue;
                p.apply(gpu::SerialTeam{}, 0, row.data(), eval.decode(0, index));
                cost += d;
                moved = true;
            }
        };
        try_kind(std::integral_constant<int, 0>{});
        try_kind(std::integral_constant<int, 1>{});
        try_kind(std::integral_constant<int, 2>{});
        try_kind(std::integral_constant<int, 6>{});
        try_kind(std::integral_constant<int, 4>{});
        try_kind(std::integral_constant<int, 5>{});
        try_kind(std::integral_constant<int, 3>{});
        if (!moved) break;
        ++applied;
        const auto verdict = problem.verify(row);
        CHECK_MESSAGE(verdict.feasible, verdict.message);
        CHECK(data.cost(row) == cost);
    }
    CHECK(applied >= 10);
}

TEST_CASE("VRPTW route chains: a route's fixed-point time warp is 0 exactly when check_routes "
          "accepts it (tenths: exact times); with real distances a route without it is feasible") {
    Rng rng(derive_key(17, 0), 0);
    int feasible_rows = 0;
    int late_rows = 0;
    for (const bool tenths : {true, false}) {
        Instance instance = generate_random_vrptw(30, 4, 500, 10, 400);
        if (!tenths) use_coordinates(instance, Rounding::exact);
        const DcvrpProblem problem(instance);
        const RouteChainData data(instance, 0);
        CHECK(data.slack == (tenths ? 0 : 1));
        constexpr std::int64_t kInfeasible = RouteChainPolicy::kInfeasible;
        for (int draw = 0; draw < 400; ++draw) {
            const std::vector<std::int32_t> row = random_row(instance.n, 1 + draw % 4, rng);
            const bool chains_feasible = data.value(row) < kInfeasible;
            const bool feasible = problem.verify(row).feasible;
            CAPTURE(draw);
            if (tenths) CHECK(chains_feasible == feasible);
            else if (chains_feasible) CHECK(feasible);
            (feasible ? feasible_rows : late_rows) += 1;
        }
    }
    CHECK(feasible_rows > 50);
    CHECK(late_rows > 50);
}

TEST_CASE("VRPTW route chains: order crossover and Split give children that keep every window") {
    const Instance instance = generate_random_vrptw(60, 8, 80, 10, 200);
    const DcvrpProblem problem(instance);
    const RouteChainData data(instance, 6);
    RouteChainPolicy policy = data.policy(2);
    gpu::ArrayList list;
    policy.declare(list, 1);
    gpu::HostStorage storage;
    storage.allocate(list);
    const std::vector<std::int32_t> a = insertion_row(instance);
    // The second parent: the first one's row reversed (the same routes, other orders of
    // their customers for the crossover's sequence).
    std::vector<std::int32_t> b = a;
    std::reverse(b.begin(), b.end());
    std::vector<std::int32_t> child(problem.solution_width());
    int distinct = 0;
    for (std::uint64_t draw = 0; draw < 20; ++draw) {
        Rng rng(derive_key(5, draw), 0);
        policy.recombine(locus::gpu::SerialTeam{}, 0, a.data(), b.data(), child.data(),
                         rng);
        CAPTURE(draw);
        const auto verdict = problem.verify(child);
        CHECK_MESSAGE(verdict.feasible, verdict.message);
        distinct += child != a ? 1 : 0;
    }
    CHECK(distinct > 0); // not only copies of the first parent
}

TEST_CASE("VRPTW route chains improve time_window_insertion, end feasible, exact and independent "
          "of the thread count: hard and penalised, random kicks and ruin, independent moves, "
          "the penalised Split, route elimination") {
    const DcvrpProblem problem(generate_random_vrptw(80, 6, 100, 10, 300));
    const std::vector<std::int32_t> start = insertion_row(problem.instance());
    const RouteChainData data(problem.instance(), 0);
    // Hard and penalised descents, random kicks and ruin and recreate, a step's independent
    // moves applied together (apply_many), and children split with late routes priced.
    for (const auto& [penalties, ruin, independent, split_warp, eliminate] :
         {std::tuple{false, 0, false, 0, 0}, std::tuple{true, 0, false, 0, 0},
          std::tuple{true, 8, false, 0, 0}, std::tuple{true, 0, true, 0, 0},
          std::tuple{true, 0, false, 2, 0}, std::tuple{true, 0, false, 0, 30},
          std::tuple{false, 8, false, 0, 30}}) {
        CAPTURE(penalties);
        CAPTURE(ruin);
        CAPTURE(independent);
        CAPTURE(split_warp);
        CAPTURE(eliminate);
        std::vector<std::vector<std::int64_t>> bests;
        for (const int threads : {1, 0}) {
            RouteChainOptions options;
            options.candidates = 8;
            options.segments = true;
            options.segment_swaps = true;
            options.swap_star = true;
            options.penalties = penalties;
            options.ruin = ruin;
            options.split_warp_weight = split_warp;
            options.eliminate = eliminate;
            gpu::ChainParams params;
            params.seed = 11;
            params.check_moves = threads == 1;
            params.independent_moves = independent;
            const std::uint32_t chains = 4;
            auto runner = make_cpu_route_runner(problem, options, chains, params, threads);
            SolutionBatch batch(chains, problem.solution_width());
            std::vector<std::int64_t> objectives;
            for (std::uint32_t c = 0; c < chains; ++c) {
                std::copy(start.begin(), start.end(), batch[c].begin());
                objectives.push_back(data.cost(start));
            }
            runner->start(batch.data(), objectives, {}, 0);
            for (std::uint64_t round = 0; round < 3; ++round) {
                const auto pairs = dcvrp_test::neighbour_pairs(chains);
                runner->recombine(pairs.a, pairs.b, round);
                runner->epoch(round * 10, 10, {});
            }
            CHECK_FALSE(runner->check().failed);
            const auto best = runner->best_objectives();
            for (std::uint32_t c = 0; c < chains; ++c) {
                std::vector<std::int32_t> row(problem.solution_width());
                runner->best_solution(c, row);
                const auto verdict = problem.verify(row);
                CHECK_MESSAGE(verdict.feasible, verdict.message);
                CHECK(data.cost(row) == best[c]);
                CHECK(best[c] < objectives[c]);
            }
            bests.push_back(best);
        }
        CHECK(bests[0] == bests[1]);
    }
}

TEST_CASE("VRPTW route chains: ruin and recreate puts every removed customer back; its change is "
          "exact with time warp, hard kicks keep every window") {
    std::uint64_t kicks = 0;
    std::uint64_t late_kicks = 0;
    for (const bool penalties : {false, true}) {
        const Instance instance = generate_random_vrptw(80, 8, 60, 10, 200);
        const DcvrpProblem problem(instance);
        const RouteChainData data(instance, 8);
        RouteChainOptions options;
        options.ruin = 10;
        options.penalties = penalties;
        dcvrp_test::HostWorkspace host(data.policy(options), 1);
        std::vector<std::int32_t> row = insertion_row(instance);
        for (std::uint64_t k = 0; k < 150; ++k) {
            CAPTURE(penalties);
            CAPTURE(k);
            const auto kick =
                dcvrp_test::checked_kick(host, penalties, row, Rng(derive_key(77, k), 0));
            const std::vector<std::int32_t>& trial = kick.row;
            const auto verdict = problem.verify(trial);
            if (!penalties) CHECK_MESSAGE(verdict.feasible, verdict.message);
            if (penalties && !verdict.feasible) ++late_kicks;
            kicks += kick.moved.empty() ? 0 : 1;
            row = trial;
        }
    }
    CHECK(kicks > 200);
    CHECK(late_kicks > 0); // penalised kicks may put customers where they are late
}

TEST_CASE("Route chains: route elimination empties one route into the others and opens none; its "
          "change is exact and the workspace equals a rebuild (capacity and duration, windows; "
          "hard and penalised)") {
    // The routes of a row as sorted customer sets (empty routes left out).
    const auto routes_of = [](const std::vector<std::int32_t>& row) {
        std::vector<std::vector<std::int32_t>> routes;
        for (const std::int32_t node : row) {
            if (node == 0) routes.emplace_back();
            else routes.back().push_back(node);
        }
        std::erase_if(routes, [](const auto& r) { return r.empty(); });
        for (auto& r : routes)
            std::ranges::sort(r);
        return routes;
    };
    for (const bool windowed : {false, true}) {
        for (const bool penalties : {false, true}) {
            CAPTURE(windowed);
            CAPTURE(penalties);
            const Instance instance = windowed ? generate_random_vrptw(80, 8, 60, 10, 200)
                                               : generate_random(80, 8, 40, 1500.0);
            const DcvrpProblem problem(instance);
            const RouteChainData data(instance, 8);
            RouteChainOptions options;
            options.eliminate = 100;
            options.penalties = penalties;
            dcvrp_test::HostWorkspace host(data.policy(options), 1);
            // The construction's routes each split in two: more routes than needed, so that
            // elimination within the hard limits has room too.
            Routes halves;
            for (const auto& route : windowed ? time_window_insertion(instance)
                                              : savings(instance, 0)) {
                const auto middle = route.begin() + static_cast<std::ptrdiff_t>(route.size() / 2);
                if (middle != route.begin()) halves.emplace_back(route.begin(), middle);
                halves.emplace_back(middle, route.end());
            }
            const std::vector<std::int32_t> start = encode_routes(halves, instance.n);
            REQUIRE(problem.verify(start).feasible);
            std::vector<std::int32_t> row = start;
            std::int32_t eliminated = 0;
            for (std::uint64_t k = 0; k < 120; ++k) {
                CAPTURE(k);
                const auto routes = routes_of(row);
                const auto kick =
                    dcvrp_test::checked_kick(host, penalties, row, Rng(derive_key(61, k), 0));
                const std::vector<std::int32_t>& trial = kick.row;
                const auto verdict = problem.verify(trial);
                if (!penalties) CHECK_MESSAGE(verdict.feasible, verdict.message);
                const auto after = routes_of(trial);
                CHECK(after.size() <= routes.size()); // no route opened
                const std::vector<std::int32_t>& moved = kick.moved;
                if (moved.size() > 2 && std::ranges::find(routes, moved) != routes.end()) {
                    // A whole route moved: it is gone, its customers are in the other routes.
                    CHECK(after.size() + 1 == routes.size());
                    CHECK(std::ranges::find(after, moved) == after.end());
                    ++eliminated;
                }
                row = trial;
            }
            CHECK(eliminated > 2);
            CHECK(routes_of(row).size() + 5 < routes_of(start).size());
        }
    }
}

namespace {

/// Checks a kick gated by the routes' mean length on the insertion start of an 80-customer
/// VRPTW instance, 20 keys: `gate(options, length)` turns the kick on with its gate at `length`
/// (0: no gate). Below the start's mean route length the kick (row and moved customers) equals
/// the kick with it off, at the mean it equals the kick without the gate, and the kick with it
/// on differs from it off for most keys, so that both comparisons can fail.
template <class Gate> void check_length_gate(const Gate& gate) {
    const Instance instance = generate_random_vrptw(80, 8, 60, 10, 200);
    const RouteChainData data(instance, 8);
    const std::vector<std::int32_t> start = insertion_row(instance);
    std::int32_t used = 0;
    for (std::size_t i = 0; i < start.size(); ++i)
        used += start[i] == 0 && i + 1 < start.size() && start[i + 1] != 0 ? 1 : 0;
    const std::int32_t customers = instance.n - 1;
    REQUIRE(used > 1);
    struct Kick {
        std::vector<std::int32_t> row;
        std::vector<std::int32_t> moved;
        bool operator==(const Kick&) const = default;
    };
    const auto kick = [&](bool on, std::int32_t length, std::uint64_t key) {
        RouteChainOptions options;
        options.penalties = true;
        if (on) gate(options, length);
        dcvrp_test::HostWorkspace host(data.policy(options), 1);
        Kick k{start, std::vector<std::int32_t>(start.size())};
        Rng rng(derive_key(67, key), 0);
        std::int32_t count = 0;
        host.policy.perturb(gpu::SerialTeam{}, 0, k.row.data(), rng, k.moved.data(), count);
        k.moved.resize(static_cast<std::size_t>(count));
        return k;
    };
    std::int32_t differ = 0;
    for (std::uint64_t key = 0; key < 20; ++key) {
        CAPTURE(key);
        const Kick off = kick(false, 0, key);
        const Kick ungated = kick(true, 0, key);
        differ += off != ungated ? 1 : 0;
        CHECK(kick(true, customers / used + 1, key) == off); // the mean is below the length
        CHECK(kick(true, customers / used, key) == ungated); // the mean reaches it
    }
    CHECK(differ > 10);
}

} // namespace

TEST_CASE("Route chains: route elimination waits for routes of eliminate_length customers on "
          "average; below it the kicks are those of eliminate = 0, at or above it those of no "
          "length limit") {
    check_length_gate([](RouteChainOptions& options, std::int32_t length) {
        options.eliminate = 100;
        options.eliminate_length = length;
    });
}

TEST_CASE("Route chains: ruin and recreate waits for routes of ruin_length customers on average; "
          "below it the kicks are the random ones of ruin = 0, at or above it those of no length "
          "limit") {
    check_length_gate([](RouteChainOptions& options, std::int32_t length) {
        options.ruin = 10;
        options.ruin_length = length;
    });
}
