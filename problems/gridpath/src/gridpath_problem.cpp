#include "locus/gridpath/gridpath_problem.hpp"

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "locus/data_path.hpp"
#include "locus/error.hpp"
#include "locus/gridpath/generator.hpp"
#include "locus/gridpath/movingai.hpp"
#include "locus/text.hpp"

namespace locus::gridpath {

GridpathProblem::GridpathProblem(Instance instance) : instance_(std::move(instance)) {}

std::unique_ptr<GridpathProblem> GridpathProblem::load(const std::string& instance,
                                                       const std::string& scenario,
                                                       std::int64_t agents) {
    if (is_generator_spec(instance)) {
        if (!scenario.empty())
            throw ConfigError("problem.scenario: a generated instance ('" + instance +
                              "') takes no scenario file");
        return std::make_unique<GridpathProblem>(generate_from_spec(instance));
    }
    if (scenario.empty())
        throw ConfigError("problem.scenario: the map '" + instance +
                          "' needs a Moving AI scenario file (.scen) with the agents");
    const auto map = resolve_data_file(instance, "map file");
    const auto scen = resolve_data_file(scenario, "scenario file");
    return std::make_unique<GridpathProblem>(
        load_instance(map, scen, static_cast<std::size_t>(agents)));
}

std::vector<std::int32_t> GridpathProblem::start_state() const {
    std::vector<std::int32_t> state;
    for (const Agent& a : instance_.agents) {
        state.push_back(a.start_x);
        state.push_back(a.start_y);
    }
    state.push_back(0);
    return state;
}

std::int64_t GridpathProblem::remaining(std::span<const std::int32_t> s) const {
    std::int64_t sum = 0;
    for (std::size_t a = 0; a < instance_.agents.size(); ++a)
        sum += std::abs(s[2 * a] - instance_.agents[a].goal_x) +
               std::abs(s[2 * a + 1] - instance_.agents[a].goal_y);
    return sum;
}

Objective GridpathProblem::evaluate(std::span<const std::int32_t> s) const {
    return static_cast<Objective>(s[2 * instance_.agents.size()]) +
           kRemainingPenalty * static_cast<Objective>(remaining(s));
}

Verdict GridpathProblem::verify(std::span<const std::int32_t> s) const {
    const std::size_t agents = instance_.agents.size();
    if (s.size() != 2 * agents + 1)
        return {false, 0.0,
                fmt::format("{} values, expected {} (x, y of {} agents and the moves)", s.size(),
                            2 * agents + 1, agents)};
    std::set<std::pair<std::int32_t, std::int32_t>> cells;
    for (std::size_t a = 0; a < agents; ++a) {
        const std::int32_t x = s[2 * a], y = s[2 * a + 1];
        if (!instance_.grid.passable(x, y))
            return {false, 0.0, fmt::format("agent {} is on ({}, {}), not a free cell", a, x, y)};
        if (!cells.insert({x, y}).second)
            return {false, 0.0,
                    fmt::format("agent {} shares cell ({}, {}) with another agent", a, x, y)};
    }
    if (s[2 * agents] < 0) return {false, 0.0, fmt::format("negative moves {}", s[2 * agents])};
    // Every move shifts one agent by one cell, so the moves are at least the cells the agents
    // stand from their starts (Manhattan distance): a state claiming fewer is unreachable.
    std::int64_t away = 0;
    for (std::size_t a = 0; a < agents; ++a) {
        const Agent& agent = instance_.agents[a];
        away += std::abs(static_cast<std::int64_t>(s[2 * a]) - agent.start_x) +
                std::abs(static_cast<std::int64_t>(s[2 * a + 1]) - agent.start_y);
    }
    if (s[2 * agents] < away)
        return {false, 0.0,
                fmt::format("moves {} is fewer than the {} cells the agents stand from their "
                            "starts, so the state cannot be reached with them",
                            s[2 * agents], away)};
    return {true, evaluate(s), {}};
}

Verdict
GridpathProblem::verify_trajectory(std::span<const std::vector<std::int32_t>> states) const {
    if (states.empty()) return {false, 0.0, "the trajectory has no states"};
    if (states.front() != start_state())
        return {false, 0.0, "the trajectory does not begin at the start state"};
    const std::size_t agents = instance_.agents.size();
    for (std::size_t t = 0; t < states.size(); ++t) {
        const Verdict v = verify(states[t]);
        if (!v.feasible) return {false, 0.0, fmt::format("step {}: {}", t, v.message)};
        if (t == 0) continue;
        std::int64_t jumps = 0;
        for (std::size_t i = 0; i < 2 * agents; ++i)
            jumps += std::abs(static_cast<std::int64_t>(states[t][i]) - states[t - 1][i]);
        const std::int64_t moved =
            static_cast<std::int64_t>(states[t][2 * agents]) - states[t - 1][2 * agents];
        if (moved != jumps)
            return {false, 0.0,
                    fmt::format("step {}: moves grew by {}, but the agents jumped {} cells", t,
                                moved, jumps)};
    }
    return {true, evaluate(states.back()), {}};
}

void GridpathProblem::write_trajectory(const std::filesystem::path& path,
                                       std::span<const std::vector<std::int32_t>> states) const {
    std::ofstream out(path);
    if (!out) throw Error(fmt::format("cannot write '{}'", path.string()));
    const std::size_t agents = instance_.agents.size();
    out << "# locus grid-path trajectory: one line per agent, its cell (x y, 0-based column and "
           "row)\n"
        << "# at step 0 (the start), 1, 2, ...; a step may jump within the move window\n"
        << "instance " << instance_.name << "\n"
        << "agents " << agents << "\n"
        << "steps " << states.size() - 1 << "\n"
        << "moves " << states.back()[2 * agents] << "\n"
        << "lower_bound " << manhattan_lower_bound(instance_) << "\n";
    for (std::size_t a = 0; a < agents; ++a) {
        out << "agent " << a;
        for (const auto& state : states)
            out << ' ' << state[2 * a] << ' ' << state[2 * a + 1];
        out << '\n';
    }
}

void GridpathProblem::write_solution(const std::filesystem::path& path,
                                     std::span<const std::int32_t> s, Objective objective) const {
    std::ofstream out(path);
    if (!out) throw Error(fmt::format("cannot write '{}'", path.string()));
    const std::size_t agents = instance_.agents.size();
    out << "# locus grid-path state: x y of every agent (0-based column, row)\n"
        << "instance " << instance_.name << "\n"
        << "agents " << agents << "\n"
        << "moves " << s[2 * agents] << "\n"
        << "lower_bound " << manhattan_lower_bound(instance_) << "\n"
        << "remaining " << remaining(s) << "\n"
        << "objective " << fmt::format("{}", objective) << "\n";
    for (std::size_t a = 0; a < agents; ++a)
        out << s[2 * a] << ' ' << s[2 * a + 1] << '\n';
}

std::vector<std::int32_t> GridpathProblem::read_solution(const std::filesystem::path& path) const {
    // NOTE: read whole by read_text_file, which refuses devices and files over 1 GiB.
    std::istringstream in(read_text_file(path, "solution"));
    const std::size_t agents = instance_.agents.size();
    std::vector<std::int32_t> s(2 * agents + 1, 0);
    std::string line;
    std::size_t read = 0;
    int line_no = 0;
    bool have_moves = false;
    while (std::getline(in, line)) {
        ++line_no;
        if (line.empty() || line[0] == '#') continue;
        std::istringstream ss(line);
        std::string key;
        ss >> key;
        if (key == "instance" || key == "remaining" || key == "objective" || key == "lower_bound")
            continue;
        if (key == "agents") {
            std::size_t n = 0;
            if (!(ss >> n) || n != agents)
                throw InstanceError(fmt::format("{}:{}: the solution has a different number of "
                                                "agents than the instance ({})",
                                                path.string(), line_no, agents));
            continue;
        }
        if (key == "moves") {
            if (!(ss >> s[2 * agents]))
                throw InstanceError(
                    fmt::format("{}:{}: moves is not an integer", path.string(), line_no));
            have_moves = true;
            continue;
        }
        std::istringstream xy(line);
        std::int32_t x = 0, y = 0;
        if (!(xy >> x >> y) || read >= agents)
            throw InstanceError(fmt::format("{}:{}: expected 'x y' of agent {} (of {})",
                                            path.string(), line_no, read, agents));
        s[2 * read] = x;
        s[2 * read + 1] = y;
        ++read;
    }
    if (read != agents || !have_moves)
        throw InstanceError(fmt::format("{}: {} of {} agent positions{}", path.string(), read,
                                        agents, have_moves ? "" : " and no 'moves' line"));
    return s;
}

} // namespace locus::gridpath
