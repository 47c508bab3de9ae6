#pragma once
/// \file
/// Host-side interfaces of a problem plugin: the loaded instance and its heuristics.
/// All are abstract classes crossing the plugin boundary; solutions travel as SolutionBatch.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "locus/component.hpp"
#include "locus/error.hpp"
#include "locus/types.hpp"

namespace locus {

/// Result of an independent solution check.
struct Verdict {
    bool feasible = false;
    Objective objective = 0.0; ///< meaningful when feasible
    std::string message;       ///< why infeasible ("" when feasible)
};

/// A loaded problem instance (kind "problem"). Built from params with at least `instance`
/// (a file path or generator spec). Thread safety: const member functions may be called
/// concurrently.
class Problem : public Component {
public:
    static constexpr std::string_view kind = "problem";

    /// Problem name as registered, e.g. "tsp".
    virtual std::string_view problem_name() const = 0;
    /// Instance name, e.g. "kroA100" (the generator spec for generated instances).
    virtual std::string instance_name() const = 0;
    /// Instance size (cities, facilities, ...).
    virtual std::size_t size() const = 0;
    /// Number of int32 per encoded solution.
    virtual std::size_t solution_width() const = 0;
    /// Full objective of a feasible encoding. Precondition: verify(solution).feasible.
    virtual Objective evaluate(std::span<const std::int32_t> solution) const = 0;
    /// Independent feasibility and objective check; never throws for bad encodings.
    virtual Verdict verify(std::span<const std::int32_t> solution) const = 0;
    /// Whether users maximise the objective (ObjectiveSense): evaluate() and verify() then
    /// return the negated value, which the engines minimise; write_solution() receives it too.
    virtual ObjectiveSense objective_sense() const { return ObjectiveSense::minimize; }
    /// Extension of the standard solution format, e.g. ".tour".
    virtual std::string solution_extension() const = 0;
    /// Writes a solution in the problem's standard format.
    virtual void write_solution(const std::filesystem::path& path,
                                std::span<const std::int32_t> solution,
                                Objective objective) const = 0;
    /// Reads a solution in the standard format. Throws InstanceError on malformed files;
    /// the result may still be infeasible (check with verify).
    virtual std::vector<std::int32_t> read_solution(const std::filesystem::path& path) const = 0;

    /// Problems whose solutions are reached step by step (grid paths) may check and write the
    /// sequence of states an algorithm recorded (SearchContext::set_trajectory). Extension of
    /// the trajectory file, or "" when the problem has none (the default).
    virtual std::string trajectory_extension() const { return ""; }
    /// Checks a trajectory (every state and every step). Only called when
    /// trajectory_extension() is not empty.
    virtual Verdict verify_trajectory(std::span<const std::vector<std::int32_t>> states) const {
        (void)states;
        return {false, 0.0, "this problem has no trajectories"};
    }
    /// Writes a trajectory. Only called when trajectory_extension() is not empty.
    virtual void write_trajectory(const std::filesystem::path& path,
                                  std::span<const std::vector<std::int32_t>> states) const {
        (void)path;
        (void)states;
    }
};

/// Builds initial solutions (kind "construction").
class Construction : public Component {
public:
    static constexpr std::string_view kind = "construction";
    /// Fills every solution of `batch` (width must be solution_width()) and sets objectives.
    /// Solution i draws from the stream derive_key(seed, i).
    virtual void construct(SolutionBatch& batch, std::uint64_t seed) = 0;
    /// As construct(), polling `stop` (may be empty) where building the batch takes long: once
    /// it returns true the solutions not yet built become copies of one that was (at least one
    /// is always built), so a time limit holds during construction. Default: construct().
    virtual void construct_until(SolutionBatch& batch, std::uint64_t seed,
                                 const std::function<bool()>& stop) {
        (void)stop;
        construct(batch, seed);
    }
};

/// Perturbs solutions (kind "perturbation").
class Perturbation : public Component {
public:
    static constexpr std::string_view kind = "perturbation";
    /// Perturbs every solution of `batch` in place and updates objectives.
    /// Solution i draws from the stream derive_key(seed, i).
    virtual void perturb(SolutionBatch& batch, std::uint64_t seed) = 0;
};

/// Improves a solution with interchangeable parts of another (kind "combination"): the Combine
/// of Riise & Burke (2014, sec. 2.3). Where both solutions hold the same elements
/// between the same two neighbours in a different order, `into` takes the cheaper order.
class Combination : public Component {
public:
    static constexpr std::string_view kind = "combination";
    /// Improves solution i of `into` with parts of solution j of `from` (unchanged) and updates
    /// its objective; returns the objective change (<= 0).
    virtual Objective combine(SolutionBatch& into, std::size_t i, const SolutionBatch& from,
                              std::size_t j) = 0;
};

/// Statistics of a descent.
struct DescentStats {
    std::uint64_t steps = 0;       ///< applied moves (summed over the batch)
    std::uint64_t evaluations = 0; ///< evaluated moves (summed over the batch)
    bool stopped = false;          ///< ended by the stop callback, not at a local optimum
    std::uint64_t explorations = 0; ///< neighborhood explorations made (not counting a halted one)
};

/// Improving moves a parallel descent collects per solution and exploration unless configured
/// (the default of the parallel descents' `capacity` parameter).
inline constexpr std::uint32_t kDefaultIndependentCapacity = 8192;

/// Options of a parallel descent (Neighborhood::descend_independent).
struct IndependentDescentOptions {
    std::uint64_t max_steps = 0; ///< explorations (0 = to a local optimum)
    std::uint32_t max_moves = 0; ///< moves applied per solution and exploration (0 = all)
    /// Improving moves collected per solution and exploration.
    std::uint32_t capacity = kDefaultIndependentCapacity;
};

/// One exploration of a descent: moves applied and moves evaluated.
struct DescentStep {
    std::uint64_t applied = 0;
    std::uint64_t evaluations = 0;
    bool halted = false; ///< the exploration was cut short by the stop test (nothing applied)
};

/// The descent loop of neighborhoods that explore on the host: calls `explore_and_apply()`
/// (returning a DescentStep) until an exploration applies nothing, `max_steps` explorations
/// were made (0 = no limit), `stop` returns true before an exploration or an exploration
/// reports that it was halted.
template <class Step>
DescentStats run_descent(std::uint64_t max_steps, const std::function<bool()>& stop,
                         Step&& explore_and_apply) {
    DescentStats stats;
    for (std::uint64_t step = 0; max_steps == 0 || step < max_steps; ++step) {
        if (stop && stop()) {
            stats.stopped = true;
            break;
        }
        const DescentStep done = explore_and_apply();
        if (done.halted) {
            stats.stopped = true;
            break;
        }
        ++stats.explorations;
        stats.steps += done.applied;
        stats.evaluations += done.evaluations;
        if (done.applied == 0) break;
    }
    return stats;
}

/// A move neighborhood (kind "neighborhood"). Moves of a solution form an index space
/// [0, size); the same index means the same move on every backend.
class Neighborhood : public Component {
public:
    static constexpr std::string_view kind = "neighborhood";

    /// Name, e.g. "two_opt".
    virtual std::string_view name() const = 0;
    /// Backend its engine runs on.
    virtual Backend backend() const = 0;
    /// Number of moves of each solution of width solution_width().
    virtual std::uint64_t size() const = 0;
    /// One exploration: fills out[i] with the move chosen for solution i by `pivot`
    /// (best: minimal delta, ties lowest index, found() even when delta >= 0;
    ///  first: lowest-index move with delta < 0, !found() when none).
    virtual void explore(const SolutionBatch& batch, Pivot pivot, std::span<MoveChoice> out) = 0;
    /// Applies out[i] to solution i where out[i].found(); updates objectives by the deltas.
    virtual void apply(SolutionBatch& batch, std::span<const MoveChoice> moves) = 0;
    /// Repeats explore + apply of improving moves until every solution is locally optimal,
    /// `max_steps` explorations were made (0 = unlimited), or `stop()` returns true (checked
    /// between explorations). Backends may keep solutions on the device meanwhile.
    virtual DescentStats descend(SolutionBatch& batch, Pivot pivot, std::uint64_t max_steps,
                                 const std::function<bool()>& stop) = 0;
    /// Whether descend_independent is available: the neighborhood knows which of its moves are
    /// independent (their gains add up when applied together).
    virtual bool has_independence_rule() const { return false; }
    /// Parallel descent of Riise & Burke (2014, Fig. 3): each exploration collects the
    /// improving moves of every solution (the options.capacity of lowest index), selects greedily
    /// by gain a set of pairwise independent ones (at most options.max_moves) and applies them
    /// together, the objective changing by the sum of their deltas; repeated until an
    /// exploration finds no improving move, options.max_steps explorations were made or
    /// `stop()` returns true (checked between explorations, when the batch holds the current
    /// solutions and objectives: callers may offer them there). steps = applied moves.
    /// Throws ConfigError when the neighborhood has no independence rule.
    virtual DescentStats descend_independent(SolutionBatch& batch,
                                             const IndependentDescentOptions& options,
                                             const std::function<bool()>& stop);
};

/// The loaded problem of `build` as its concrete type P, checked by name: components scoped to
/// a problem (Registry) only exist for it, so a mismatch is a plugin bug or a component built
/// without a problem. Throws ConfigError "<component> needs a loaded <name> problem".
template <class P>
const P& problem_as(const BuildContext& build, std::string_view name, std::string_view component) {
    if (build.problem == nullptr || build.problem->problem_name() != name)
        throw ConfigError(std::string(component) + " needs a loaded " + std::string(name) +
                          " problem");
    return static_cast<const P&>(*build.problem);
}

} // namespace locus
