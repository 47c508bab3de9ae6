#pragma once
/// \file
/// Multi-agent grid movement as a locus Problem. A solution is the state of the agents: x and y
/// of every agent (2A words) and the Manhattan length of all moves made (one word). Objective:
/// moves + 1,000,000 x the remaining Manhattan distance to the goals, so every state with all
/// agents on their goals beats every state without.

#include <memory>
#include <string>

#include "locus/gridpath/instance.hpp"
#include "locus/problem.hpp"

namespace locus::gridpath {

/// Penalty per unit of remaining distance in the objective.
inline constexpr double kRemainingPenalty = 1000000.0;

class GridpathProblem final : public Problem {
public:
    explicit GridpathProblem(Instance instance);

    /// A generator spec ("random-grid:size=...") or a Moving AI map with its scenario file
    /// (both found through the data path); `agents` > 0 keeps the first agents of a scenario.
    static std::unique_ptr<GridpathProblem> load(const std::string& instance,
                                                 const std::string& scenario, std::int64_t agents);

    std::string_view problem_name() const override { return "gridpath"; }
    std::string instance_name() const override { return instance_.name; }
    std::size_t size() const override { return instance_.agents.size(); }
    std::size_t solution_width() const override { return 2 * instance_.agents.size() + 1; }
    Objective evaluate(std::span<const std::int32_t> solution) const override;
    Verdict verify(std::span<const std::int32_t> solution) const override;
    std::string solution_extension() const override { return ".agents"; }
    void write_solution(const std::filesystem::path& path, std::span<const std::int32_t> solution,
                        Objective objective) const override;
    std::vector<std::int32_t> read_solution(const std::filesystem::path& path) const override;
    /// Paths: the state after every step, from the start state.
    std::string trajectory_extension() const override { return ".path"; }
    /// A trajectory is valid when it starts at the start state, every state verifies, and
    /// every step adds the Manhattan length of its jumps to the moves.
    Verdict verify_trajectory(std::span<const std::vector<std::int32_t>> states) const override;
    /// One line per agent: its cells after every step.
    void write_trajectory(const std::filesystem::path& path,
                          std::span<const std::vector<std::int32_t>> states) const override;

    const Instance& instance() const { return instance_; }
    /// The start state (every agent on its start cell, no moves).
    std::vector<std::int32_t> start_state() const;
    /// Remaining Manhattan distance of a state.
    std::int64_t remaining(std::span<const std::int32_t> solution) const;

private:
    Instance instance_;
};

/// Registers the grid-path problem, its start construction and its successor generator.
void register_gridpath_components(class Registry& registry);

} // namespace locus::gridpath
