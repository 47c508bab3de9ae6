#pragma once
/// \file
/// The search context: termination, counters, best-so-far, improvement trace and repeated
/// runs. One context per job; algorithms see it by reference. Not thread safe: call it from the
/// thread that runs the algorithm.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "locus/types.hpp"

namespace locus {

class Problem;
class Construction;

/// When a run stops. Zero means "no limit" for every field.
struct Termination {
    double time_limit_s = 0.0;               ///< wall clock per run; run 0 includes loading
    std::uint64_t max_iterations = 0;        ///< algorithm iterations
    std::uint64_t max_evaluations = 0;       ///< evaluated moves / solutions
    std::optional<Objective> target;         ///< stop when best <= target
    std::optional<double> target_gap;        ///< stop when gap to best known <= this (percent)
    std::uint64_t stagnation_iterations = 0; ///< stop after this many iterations w/o improvement
};

/// Why a run stopped.
enum class StopReason {
    none,
    time_limit,
    iterations,
    evaluations,
    target,
    stagnation,
    interrupted,
    converged,
    error ///< an internal check failed (check_moves, a move that did not improve); see
          ///< RunSummary::error
};
std::string_view to_string(StopReason reason);

/// Process-wide interrupt flag (set from SIGINT/SIGTERM handlers; async-signal-safe).
void request_interrupt() noexcept;
bool interrupt_requested() noexcept;
void clear_interrupt() noexcept;

/// The process-wide stop flag that every long loop of every phase may read (reading, candidate
/// lists, storage set-up, constructions, single large steps, from any thread): true once an
/// interrupt was requested or the armed deadline has passed. One relaxed atomic load: a timer
/// thread raises it at the deadline, so loops need not read the clock.
bool stop_requested() noexcept;
/// Thrown by a setup phase (candidate lists, a construction's long step) that the stop flag
/// ended before it produced anything usable. The launcher ends the run normally when solutions
/// exist (stop_reason time_limit or interrupted) and with a clear error when none does; a
/// mixed construction treats a block it ends as not built.
class __attribute__((visibility("default"))) Stopped : public std::exception {
public:
    const char* what() const noexcept override {
        return "stopped by the time limit or a signal before the phase finished";
    }
};

/// Throws Stopped when stop_requested().
inline void throw_if_stopped() {
    if (stop_requested()) throw Stopped();
}

/// Arms the process-wide deadline at `at` (replacing any armed one) and returns its token.
/// SearchContext arms the end of its current run's time limit.
std::uint64_t arm_deadline(std::chrono::steady_clock::time_point at);
/// Disarms the deadline armed with `token` (a later arm_deadline's is left alone).
void disarm_deadline(std::uint64_t token) noexcept;

/// One improvement of the best-so-far.
struct TracePoint {
    double time_s = 0.0;
    std::uint64_t iteration = 0;
    std::uint64_t evaluations = 0;
    Objective objective = 0.0;
    bool feasible = true;
    /// The improving solution itself; valid only during the on_improvement callback.
    std::span<const std::int32_t> solution;
};

/// Summary of a finished run, handed to the on_run_end callback.
struct RunSummary {
    std::uint32_t run = 0;
    std::uint64_t seed = 0;
    bool has_solution = false;
    std::vector<std::int32_t> best_solution;
    Objective best_objective = 0.0;
    /// States from a start to best_solution (its last element), when the algorithm recorded
    /// them (set_trajectory); empty otherwise.
    std::vector<std::vector<std::int32_t>> trajectory;
    double time_to_best_s = 0.0;
    double total_time_s = 0.0;
    std::uint64_t iterations = 0;
    std::uint64_t evaluations = 0;
    /// The largest working memory an engine of this run reported (note_engine_memory; 0: none)
    std::size_t engine_memory_bytes = 0;
    /// Seconds the algorithm spent in each of its named phases (add_phase_time; empty when it
    /// names none), e.g. the chains' device epochs against their host exchange.
    std::map<std::string, double> phase_s;
    StopReason stop_reason = StopReason::none;
    /// Why the run failed when stop_reason is error (SearchContext::fail); empty otherwise.
    std::string error;
};

class SearchContext {
public:
    using Clock = std::chrono::steady_clock;

    struct Callbacks {
        std::function<void(std::uint32_t run, const TracePoint&)> on_improvement;
        std::function<void(const RunSummary&)> on_run_end;
    };

    /// `start` is the job start (before loading) so that run 0's time limit includes loading.
    /// `best_known` (if any) enables target_gap.
    SearchContext(Problem& problem, Construction* construction, Termination termination,
                  std::uint64_t seed, Clock::time_point start, std::optional<Objective> best_known,
                  Callbacks callbacks);
    /// Disarms its deadline.
    ~SearchContext();
    SearchContext(const SearchContext&) = delete;
    SearchContext& operator=(const SearchContext&) = delete;

    Problem& problem() { return problem_; }
    /// Seed of the current run: derive_key(job seed, run) for run > 0, the job seed for run 0.
    std::uint64_t seed() const { return run_seed_; }
    std::uint32_t run_index() const { return run_; }

    /// True once any limit of the current run is reached or an interrupt was requested.
    bool should_stop();
    StopReason stop_reason() const { return reason_; }
    /// Marks the run as converged (an algorithm ended by itself); informational.
    void set_converged() {
        if (reason_ == StopReason::none) reason_ = StopReason::converged;
    }

    /// Nesting depth of algorithms: metaheuristics call enter()/leave() around nested
    /// algorithms so that a local search counts its steps as iterations only at depth 0.
    void enter() { ++depth_; }
    void leave() { --depth_; }
    int depth() const { return depth_; }

    void add_iterations(std::uint64_t n = 1);
    void add_evaluations(std::uint64_t n) { evaluations_ += n; }
    /// An engine's working memory (its solutions and workspace on the device or the host); the
    /// run reports the largest.
    void note_engine_memory(std::size_t bytes) {
        engine_memory_bytes_ = bytes > engine_memory_bytes_ ? bytes : engine_memory_bytes_;
    }
    /// Adds `seconds` to the run's time in phase `phase` (reported with the run).
    void add_phase_time(const std::string& phase, double seconds) { phase_s_[phase] += seconds; }
    std::uint64_t iterations() const { return iterations_; }
    std::uint64_t evaluations() const { return evaluations_; }

    /// Offers a solution; records it when it improves the best of this run. Returns true then.
    /// A feasible solution improves on an infeasible best whatever their objectives, an
    /// infeasible one never improves on a feasible best (solutions offered without the flag
    /// count as feasible).
    bool offer(std::span<const std::int32_t> solution, Objective objective,
               bool feasible = true);
    /// Offers every solution of a batch; true if any improved the best.
    bool offer(const SolutionBatch& batch);
    bool has_best() const { return has_best_; }
    Objective best_objective() const { return best_objective_; }
    /// Whether the best of this run was offered as feasible.
    bool best_feasible() const { return best_feasible_; }
    /// Records the states that lead from a start to the current best solution (the last state
    /// must equal it); reported with the run when the best has not changed since. Algorithms
    /// that build solutions step by step (beam search) call it.
    void set_trajectory(std::vector<std::vector<std::int32_t>> states) {
        trajectory_ = std::move(states);
    }
    std::span<const std::int32_t> best_solution() const { return best_; }

    /// Builds initial solutions with the job's construction, keyed by this run's seed.
    void construct(SolutionBatch& batch);

    /// Seconds since the current run started (run 0: since the job started).
    double elapsed() const;

    /// Ends the current run (emits its summary) and starts the next with a derived seed,
    /// fresh counters, best and clock.
    void next_run();
    /// Ends the current run (emits its summary). Idempotent.
    void finish();
    /// Marks the current run as failed (stop reason error, with `message` in its summary) and
    /// ends it: the best solution found so far is still reported. The caller then reports the
    /// failure (the launcher exits nonzero).
    void fail(const std::string& message);

private:
    void reset_run();
    /// Arms the process-wide deadline at the end of this run's time limit (if any).
    void arm_run_deadline();

    Problem& problem_;
    Construction* construction_;
    Termination termination_;
    std::uint64_t job_seed_;
    std::optional<Objective> best_known_;
    Callbacks callbacks_;

    std::uint32_t run_ = 0;
    std::uint64_t run_seed_ = 0;
    Clock::time_point run_start_;
    std::uint64_t iterations_ = 0;
    std::size_t engine_memory_bytes_ = 0;
    std::map<std::string, double> phase_s_;
    std::uint64_t evaluations_ = 0;
    std::uint64_t last_improvement_iteration_ = 0;
    bool has_best_ = false;
    Objective best_objective_ = 0.0;
    bool best_feasible_ = false;
    std::vector<std::int32_t> best_;
    std::vector<std::vector<std::int32_t>> trajectory_;
    double time_to_best_ = 0.0;
    StopReason reason_ = StopReason::none;
    std::string error_;
    bool finished_ = false;
    int depth_ = 0;
    std::uint64_t deadline_token_ = 0; ///< arm_deadline's token for this run (0: none)
};

/// Calls ctx.enter() now and ctx.leave() at scope exit.
class NestedScope {
public:
    explicit NestedScope(SearchContext& ctx) : ctx_(ctx) { ctx_.enter(); }
    ~NestedScope() { ctx_.leave(); }
    NestedScope(const NestedScope&) = delete;
    NestedScope& operator=(const NestedScope&) = delete;

private:
    SearchContext& ctx_;
};

/// Gap in percent of `objective` above `best_known` (best_known != 0).
double gap_percent(Objective objective, Objective best_known);

} // namespace locus
