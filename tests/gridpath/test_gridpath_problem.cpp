// The grid-path Problem: objective, verification, solution files, and a launcher run.

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "locus/error.hpp"
#include "locus/gridpath/generator.hpp"
#include "locus/gridpath/gridpath_problem.hpp"
#include "test_support.hpp"

using namespace locus;
using namespace locus::gridpath;

namespace {
GridpathProblem small_problem() { return GridpathProblem(generate(12, 3, 0.1, 4)); }
} // namespace

TEST_CASE("grid-path objective: moves plus a penalty per unit of remaining distance") {
    const GridpathProblem problem = small_problem();
    auto state = problem.start_state();
    REQUIRE(state.size() == 7);
    std::int64_t bound = 0;
    for (const Agent& a : problem.instance().agents)
        bound += manhattan(a);
    CHECK(problem.remaining(state) == bound);
    CHECK(problem.evaluate(state) == kRemainingPenalty * static_cast<double>(bound));
    for (std::size_t a = 0; a < 3; ++a) {
        state[2 * a] = problem.instance().agents[a].goal_x;
        state[2 * a + 1] = problem.instance().agents[a].goal_y;
    }
    state[6] = 40;
    CHECK(problem.evaluate(state) == 40.0);
    const Verdict v = problem.verify(state);
    CHECK(v.feasible);
    CHECK(v.objective == 40.0);
}

TEST_CASE("grid-path verification names what is wrong") {
    const GridpathProblem problem = small_problem();
    auto state = problem.start_state();
    auto twin = state;
    twin[2] = twin[0];
    twin[3] = twin[1];
    CHECK(problem.verify(twin).message == "agent 1 shares cell (" + std::to_string(twin[0]) + ", " +
                                              std::to_string(twin[1]) + ") with another agent");
    auto outside = state;
    outside[0] = -1;
    CHECK(problem.verify(outside).message ==
          "agent 0 is on (-1, " + std::to_string(outside[1]) + "), not a free cell");
    CHECK(problem.verify(std::vector<std::int32_t>(5, 0)).message ==
          "5 values, expected 7 (x, y of 3 agents and the moves)");
    // Every agent at its goal with fewer moves than the cells it crossed cannot be reached.
    auto claimed = state;
    std::int64_t away = 0;
    for (std::size_t a = 0; a < 3; ++a) {
        const Agent& agent = problem.instance().agents[a];
        claimed[2 * a] = agent.goal_x;
        claimed[2 * a + 1] = agent.goal_y;
        away += manhattan(agent);
    }
    REQUIRE(away > 0);
    claimed[6] = static_cast<std::int32_t>(away - 1);
    CHECK(problem.verify(claimed).message ==
          "moves " + std::to_string(away - 1) + " is fewer than the " + std::to_string(away) +
              " cells the agents stand from their starts, so the state cannot be reached with "
              "them");
    claimed[6] = static_cast<std::int32_t>(away);
    CHECK(problem.verify(claimed).feasible);
}

TEST_CASE("grid-path solution files round-trip and malformed ones are rejected") {
    const GridpathProblem problem = small_problem();
    const auto dir = locus::test::temp_dir("gridpath-solution");
    auto state = problem.start_state();
    state[6] = 17;
    problem.write_solution(dir / "s.agents", state, problem.evaluate(state));
    CHECK(problem.read_solution(dir / "s.agents") == state);
    std::ifstream in(dir / "s.agents");
    const std::string written((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
    CHECK(written.find("\nlower_bound " +
                       std::to_string(manhattan_lower_bound(problem.instance())) + "\n") !=
          std::string::npos);
    locus::test::write_file(dir / "bad.agents", "agents 3\nmoves 2\n1 2\n");
    const std::string short_file = (dir / "bad.agents").string() + ": 1 of 3 agent positions";
    CHECK_THROWS_WITH_AS(problem.read_solution(dir / "bad.agents"), short_file.c_str(),
                         InstanceError);
    locus::test::write_file(dir / "wrong.agents", "agents 4\n");
    const std::string wrong =
        (dir / "wrong.agents").string() +
        ":1: the solution has a different number of agents than the instance (3)";
    CHECK_THROWS_WITH_AS(problem.read_solution(dir / "wrong.agents"), wrong.c_str(), InstanceError);
}

TEST_CASE("a map instance without a scenario is a config error") {
    CHECK_THROWS_WITH_AS(GridpathProblem::load("maps/den312d.map", "", 0),
                         "problem.scenario: the map 'maps/den312d.map' needs a Moving AI scenario "
                         "file (.scen) with the agents",
                         ConfigError);
}

TEST_CASE("locus runs the beam search and its final state verifies") {
    const auto dir = locus::test::temp_dir("gridpath-run");
    const auto bin = (locus::test::bin_dir() / "locus").string();
    const std::string spec = "random-grid:size=64,agents=8,obstacles=0.15,seed=2";
    const auto run = locus::test::run_command(
        bin + " run " + (locus::test::source_dir() / "configs/gridpath/beam.yaml").string() +
        " -q --backend cpu --instance " + spec + " --out " + (dir / "out").string());
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    std::ifstream results(dir / "out" / "results.jsonl");
    std::string line;
    REQUIRE(std::getline(results, line));
    CHECK(line.find("\"stop_reason\":\"converged\"") != std::string::npos);
    CHECK(line.find("\"feasible\":true") != std::string::npos);
    const auto begin = line.find("\"solution_file\":\"") + 17;
    const std::string tour = line.substr(begin, line.find('"', begin) - begin);
    const auto verify = locus::test::run_command(bin + " verify --problem gridpath --instance " +
                                                 spec + " --solution " + tour);
    CHECK(verify.exit_code == 0);
    CHECK(verify.output.rfind("feasible: objective ", 0) == 0);

    // The path file: every agent's cells from its start to its goal, one cell per step.
    CHECK(line.find("\"trajectory_feasible\":true") != std::string::npos);
    const auto at = line.find("\"trajectory_file\":\"") + 19;
    std::ifstream path(line.substr(at, line.find('"', at) - at));
    const auto steps_at = line.find("\"trajectory_steps\":") + 19;
    const auto steps = std::stoul(line.substr(steps_at));
    const GridpathProblem problem(generate(64, 8, 0.15, 2));
    std::string text;
    std::size_t agents_seen = 0;
    while (std::getline(path, text)) {
        if (text.rfind("agent ", 0) != 0) continue;
        std::istringstream fields(text);
        std::string word;
        std::size_t index = 0;
        fields >> word >> index;
        std::vector<int> cells;
        for (int v = 0; fields >> v;)
            cells.push_back(v);
        REQUIRE(cells.size() == 2 * (steps + 1));
        const Agent& agent = problem.instance().agents.at(index);
        CHECK(cells[0] == agent.start_x);
        CHECK(cells[1] == agent.start_y);
        CHECK(cells[cells.size() - 2] == agent.goal_x);
        CHECK(cells[cells.size() - 1] == agent.goal_y);
        ++agents_seen;
    }
    CHECK(agents_seen == 8);
}

TEST_CASE("grid-path trajectories: checked step by step, with the reason when wrong") {
    const GridpathProblem problem = small_problem();
    const auto start = problem.start_state();
    auto moved = start;
    const Agent& agent = problem.instance().agents[0];
    // Agent 0 one cell towards its goal along x (when that cell is free), moves + 1.
    const int step = agent.goal_x > agent.start_x ? 1 : -1;
    moved[0] += step;
    moved[6] = 1;
    std::vector<std::vector<std::int32_t>> states{start, moved};
    const bool free = problem.instance().grid.passable(moved[0], moved[1]) &&
                      !(moved[0] == start[2] && moved[1] == start[3]) &&
                      !(moved[0] == start[4] && moved[1] == start[5]);
    REQUIRE(free);
    const Verdict good = problem.verify_trajectory(states);
    CHECK(good.feasible);
    CHECK(good.objective == problem.evaluate(moved));

    auto wrong_moves = states;
    wrong_moves[1][6] = 3;
    CHECK(problem.verify_trajectory(wrong_moves).message ==
          "step 1: moves grew by 3, but the agents jumped 1 cells");
    auto collision = states;
    collision[1][0] = start[2];
    collision[1][1] = start[3];
    CHECK(problem.verify_trajectory(collision).message.find("step 1: agent ") == 0);
    std::vector<std::vector<std::int32_t>> late{moved};
    CHECK(problem.verify_trajectory(late).message ==
          "the trajectory does not begin at the start state");
    CHECK(problem.verify_trajectory({}).message == "the trajectory has no states");
}
