// FANG-driven beam search for grid paths on the CPU twin: legal steps, determinism, solving.

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "test_support.hpp"

#include "locus/error.hpp"
#include "locus/gpu/successor_engine.hpp"
#include "locus/gridpath/gridpath_problem.hpp"
#include "locus/gridpath/window_moves.hpp"
#include "locus/gridpath/generator.hpp"
#include "locus/gridpath/moves_policy.hpp"

using namespace locus;
using namespace locus::gridpath;

TEST_CASE("one FANG step moves every active agent to a legal free cell within its window") {
    const Instance inst = generate(40, 12, 0.25, 3);
    const std::vector<std::int32_t> goals = goal_words(inst);
    GridMovesPolicy policy;
    policy.blocked = inst.grid.blocked.data();
    policy.goals = goals.data();
    policy.width = inst.grid.width;
    policy.height = inst.grid.height;
    policy.agents = 12;
    policy.window = 5;
    const auto layout = gpu::successor_layout(policy);
    std::vector<std::int32_t> slot(layout.slot_words, 0);
    for (std::int32_t a = 0; a < 12; ++a) {
        slot[2 * a] = inst.agents[a].start_x;
        slot[2 * a + 1] = inst.agents[a].start_y;
        layout.set_active(slot.data(), static_cast<std::uint32_t>(a), true);
    }
    gpu::CpuSuccessorEngine<GridMovesPolicy> engine(policy, 200);
    engine.load(slot.data(), 1);
    engine.generate(200, 9);
    REQUIRE(engine.size() == 200);
    std::int64_t before = 0, after = 0;
    for (std::uint32_t s = 0; s < 200; ++s) {
        const std::int32_t* next = engine.slots() + s * layout.slot_words;
        std::set<std::pair<int, int>> cells;
        std::int32_t moved = 0;
        for (std::int32_t a = 0; a < 12; ++a) {
            const int x = next[2 * a], y = next[2 * a + 1];
            CHECK(inst.grid.passable(x, y));
            CHECK(std::abs(x - slot[2 * a]) <= 2);
            CHECK(std::abs(y - slot[2 * a + 1]) <= 2);
            CHECK(cells.insert({x, y}).second);
            moved += std::abs(x - slot[2 * a]) + std::abs(y - slot[2 * a + 1]);
            before += manhattan(inst.agents[a]);
            after += std::abs(x - inst.agents[a].goal_x) + std::abs(y - inst.agents[a].goal_y);
        }
        CHECK(next[24] == moved);
        CHECK_FALSE(layout.is_active(next, 0));
    }
    CHECK(after < before); // the heuristic pulls agents towards their goals
}

namespace {
/// Runs `locus run configs/gridpath/beam.yaml` on `spec` with extra options; returns the results
/// line.
std::string run_beam(const std::string& spec, const std::string& extra, const std::string& tag) {
    const auto dir = locus::test::temp_dir(tag);
    const auto bin = (locus::test::bin_dir() / "locus").string();
    const auto r = locus::test::run_command(
        bin + " run " + (locus::test::source_dir() / "configs/gridpath/beam.yaml").string() +
        " -q --backend cpu --instance " + spec + " --out " + (dir / "out").string() + " " + extra);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    std::ifstream in(dir / "out" / "results.jsonl");
    std::string line;
    REQUIRE(std::getline(in, line));
    return line;
}
std::string field(const std::string& line, const std::string& key) {
    const auto at = line.find("\"" + key + "\":") + key.size() + 3;
    return line.substr(at, line.find_first_of(",}", at) - at);
}
} // namespace

TEST_CASE("beam search brings every agent to its goal, deterministically") {
    const std::string spec = "random-grid:size=64,agents=8,obstacles=0.15,seed=5";
    const std::string a =
        run_beam(spec, "--set algorithm.width=32 algorithm.successors=4", "beam-a");
    const std::string b =
        run_beam(spec, "--set algorithm.width=32 algorithm.successors=4 threads=1", "beam-b");
    CHECK(field(a, "stop_reason") == "\"converged\"");
    CHECK(field(a, "feasible") == "true");
    // Solved: the objective is the moves alone (no remaining-distance penalty).
    CHECK(std::stoll(field(a, "objective")) < 1000000);
    CHECK(field(a, "objective") == field(b, "objective"));
    CHECK(field(a, "iterations") == field(b, "iterations"));
}

TEST_CASE("beam search solves a generated 256 x 256 instance with 32 agents and 20 % obstacles") {
    const std::string line =
        run_beam("random-grid:size=256,agents=32,obstacles=0.2,seed=1",
                 "--set algorithm.width=16 algorithm.successors=4", "beam-256");
    CHECK(field(line, "stop_reason") == "\"converged\"");
    const long long moves = std::stoll(field(line, "objective"));
    CHECK(moves < 1000000);
    const GridpathProblem problem(generate(256, 32, 0.2, 1));
    MESSAGE("256x256, 32 agents, 20 % obstacles: ", field(line, "iterations"), " steps, ", moves,
            " moves, Manhattan lower bound ", problem.remaining(problem.start_state()));
    CHECK(moves >= problem.remaining(problem.start_state()));
}

TEST_CASE("window_moves expansions are exact states of the problem, reproducible by seed") {
    const GridpathProblem problem(generate(48, 6, 0.1, 3));
    WindowMovesOptions options;
    WindowMoves moves(problem, options, Backend::cpu);
    SolutionBatch start(2, problem.solution_width());
    for (std::size_t i = 0; i < 2; ++i) {
        const auto s = problem.start_state();
        std::copy(s.begin(), s.end(), start[i].begin());
        start.objective(i) = problem.evaluate(start[i]);
    }
    SolutionBatch a, b, c;
    moves.expand(start, 5, 77, a);
    moves.expand(start, 5, 77, b);
    moves.expand(start, 5, 78, c);
    REQUIRE(a.count() == 10);
    CHECK(std::equal(a.data().begin(), a.data().end(), b.data().begin()));
    CHECK_FALSE(std::equal(a.data().begin(), a.data().end(), c.data().begin()));
    for (std::size_t t = 0; t < a.count(); ++t) {
        const Verdict v = problem.verify(a[t]);
        CHECK(v.feasible);
        CHECK(a.objective(t) == v.objective);
        CHECK(a.objective(t) < start.objective(0)); // the heuristic pulls towards the goals
    }
    CHECK_FALSE(moves.is_goal(start[0]));
}

TEST_CASE("window_moves rejects an even window with a clear message") {
    const GridpathProblem problem(generate(16, 2, 0.0, 1));
    WindowMovesOptions options;
    options.window = 4;
    CHECK_THROWS_WITH_AS(WindowMoves(problem, options, Backend::cpu),
                         "window_moves: window 4 must be odd and >= 3 (the agent sits in the "
                         "middle of the window)",
                         ConfigError);
}

TEST_CASE("window_moves rejects a load outside 1..16384 with a clear message") {
    const GridpathProblem problem(generate(16, 2, 0.0, 1));
    for (const std::int32_t load : {0, 16385}) {
        WindowMovesOptions options;
        options.load = load;
        CHECK(test::error_message<ConfigError>([&] {
                  WindowMoves(problem, options, Backend::cpu);
              }) == "window_moves: load " + std::to_string(load) + " must be between 1 and 16384");
    }
}

TEST_CASE("policy ratings equal a direct evaluation: crowded windows, every load path") {
    std::int32_t bumped = 0;
    // Dense agents make windows hold more than kNearby other agents (the fallback path); loads
    // with odd and even numbers of extra goals, wrapping around the agents.
    for (const std::int32_t agents : {5, 60}) {
        const GridpathProblem problem(
            generate(24, agents, 0.15, static_cast<std::uint64_t>(agents)));
        const Instance& inst = problem.instance();
        const std::vector<std::int32_t> goals = goal_words(inst);
        const std::vector<std::int32_t> state = problem.start_state();
        std::int32_t overflowed = 0;
        for (const std::int32_t window : {3, 7, 13}) {
            for (const std::int32_t load : {1, 2, 17, 18, 40, 130}) {
                const std::vector<LoadGoal> load_goals = make_load_goals(goals, load);
                CHECK(load_goals.size() ==
                      (load == 1 ? 0
                                 : 2 * static_cast<std::size_t>(
                                           load_copy(static_cast<std::size_t>(agents), load)) +
                                       kLoadGoalPadding));
                for (std::size_t i = 0; load > 1 && i < static_cast<std::size_t>(agents + load - 2);
                     ++i) {
                    const std::size_t agent = (i + 1) % static_cast<std::size_t>(agents);
                    REQUIRE(load_goals[i].x == goals[2 * agent]);
                    REQUIRE(load_goals[i].y == static_cast<float>(goals[2 * agent + 1]));
                }
                WindowMovesOptions options;
                options.window = window;
                options.load = load;
                GridMovesPolicy policy = make_policy(inst, options, inst.grid.blocked.data(),
                                                     goals.data(), load_goals.data());
                CHECK(policy.load_copy ==
                      (load == 1 ? 0 : load_copy(static_cast<std::size_t>(agents), load)));
                // The second copy (the device's 16-byte aligned runs of odd agents) is the first
                // shifted by one goal.
                for (std::size_t i = 0;
                     load > 1 && i + 1 < static_cast<std::size_t>(agents + load - 2); ++i) {
                    REQUIRE(load_goals[policy.load_copy + i].x == load_goals[i + 1].x);
                    REQUIRE(load_goals[policy.load_copy + i].y == load_goals[i + 1].y);
                }
                // A reachable threshold makes the load's extra distance evaluations visible in
                // the rating (d + 1 when the sum of their x or y terms reaches it), so the test
                // checks which goals they visit.
                policy.never = 9 * load;
                for (std::int32_t var = 0; var < agents; ++var) {
                    const auto v = static_cast<std::uint32_t>(var);
                    const auto context = policy.prepare<0>(state.data(), v);
                    overflowed += context.nearby > GridMovesPolicy::kNearby;
                    for (std::uint32_t l = 0; l < policy.max_possibilities(); ++l) {
                        const std::int32_t cell = static_cast<std::int32_t>(
                            l < policy.max_possibilities() / 2 ? l : l + 1);
                        const std::int32_t x = state[2 * var] + cell % window - window / 2;
                        const std::int32_t y = state[2 * var + 1] + cell / window - window / 2;
                        std::int32_t expected = -1;
                        if (inst.grid.passable(x, y)) {
                            bool taken = false;
                            for (std::int32_t a = 0; a < agents; ++a)
                                taken |= a != var && state[2 * a] == x && state[2 * a + 1] == y;
                            if (!taken) {
                                expected =
                                    std::abs(x - goals[2 * var]) + std::abs(y - goals[2 * var + 1]);
                                std::int32_t extra_x = 0;
                                std::int32_t extra_y = 0;
                                for (std::int32_t k = 1; k < load; ++k) {
                                    const std::int32_t other = (var + k) % agents;
                                    extra_x += std::abs(x - goals[2 * other]);
                                    extra_y += std::abs(y - goals[2 * other + 1]);
                                }
                                const bool bump =
                                    load > 1 && (extra_x >= 9 * load || extra_y >= 9 * load);
                                expected += bump ? 1 : 0;
                                bumped += bump ? 1 : 0;
                            }
                        }
                        CAPTURE(window);
                        CAPTURE(load);
                        REQUIRE(policy.rate<0>(state.data(), v, l, context) == expected);
                    }
                }
            }
        }
        if (agents == 60) CHECK(overflowed > 0);
    }
    CHECK(bumped > 0);
}
