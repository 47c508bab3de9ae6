#pragma once
/// \file
/// The neighborhood adapter, host side (g++-compilable): the settings every neighborhood backend
/// takes from the BuildContext, the descent's step counting, and the CPU wrapper around the
/// neighborhood engine's CPU twin. The device wrapper is in neighborhood_adapter.cuh.
///
/// A problem writes its neighborhood as a *policy*: what the engine cannot know (the arrays an
/// evaluator reads, how a selected move index changes a solution, the full objective for
/// check_moves). The adapter supplies the rest, identically for every problem: explore, apply,
/// the descent loop and its counts, check_moves, and (on the device) buffers, transfers, the
/// memory budget and the batched descent. Both wrappers select moves by (delta, index) through
/// the same evaluator, so they give the same solutions, objectives, step and evaluation counts.

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "locus/component.hpp"
#include "locus/error.hpp"
#include "locus/gpu/device.hpp"
#include "locus/gpu/independent_moves.hpp"
#include "locus/gpu/neighborhood_engine.hpp"
#include "locus/gpu/neighborhood_parts.hpp"
#include "locus/gpu/tuning.hpp"
#include "locus/gpu/watchdog.hpp"
#include "locus/problem.hpp"
#include "locus/types.hpp"

namespace locus::gpu {

/// Descent steps the device issues between two host synchronisations unless the settings say
/// otherwise (DescentTuning): more steps hide more launch latency but may run more steps past
/// convergence (they apply nothing and are not counted).
inline constexpr std::uint32_t kDefaultSyncEvery = DescentTuning<kTuningArch>::kSyncEvery;

/// Settings of a neighborhood backend, the same for every problem (engine_settings() builds
/// them from a BuildContext).
struct EngineSettings {
    int threads = 0;                              ///< CPU threads of the CPU twin (0 = all cores)
    int device = 0;                               ///< CUDA device ordinal
    bool check_moves = false;                     ///< re-evaluate every solution after each move
    std::uint32_t sync_every = kDefaultSyncEvery; ///< device descent: steps per synchronisation
    MemoryBudget memory{};                        ///< device memory the backend may allocate
    /// How users read the problem's objective (check_moves messages show it so).
    ObjectiveSense sense = ObjectiveSense::minimize;
};

/// The settings of `build`: threads, device, check_moves, the memory budget (memory_budget
/// bytes, memory_fraction) and the problem's objective sense; sync_every = kDefaultSyncEvery.
EngineSettings engine_settings(const BuildContext& build);

/// Steps the device descent issues between synchronisations: 1 with check_moves (every step is
/// checked), else sync_every (at least 1).
inline std::uint32_t steps_per_sync(const EngineSettings& settings) {
    return settings.check_moves ? 1u : std::max<std::uint32_t>(1, settings.sync_every);
}

/// What counts of a group of descent steps issued together.
struct GroupCount {
    std::uint64_t explorations = 0; ///< explorations counted (see count_group)
    bool converged = false;         ///< one of them applied nothing: the descent is over
};

/// Adds to `stats` the applied moves and evaluations of a group of explorations issued without
/// synchronising (applied[k], evaluations[k] of exploration k; equal sizes), exactly as
/// run_descent counts explorations made one by one: up to and including the first exploration
/// that applied nothing. Later ones changed nothing and are not counted.
inline GroupCount count_group(std::span<const std::uint32_t> applied,
                              std::span<const std::uint64_t> evaluations, DescentStats& stats) {
    GroupCount group;
    for (std::size_t k = 0; k < applied.size() && !group.converged; ++k) {
        group.converged = applied[k] == 0;
        stats.steps += applied[k];
        stats.evaluations += evaluations[k];
        ++group.explorations;
    }
    return group;
}

namespace detail {

// NOTE: messages are built in gpu/src/neighborhood_adapter.cpp (fmt): this header is included
// by .cu files, and fmt's compile-time format strings do not compile under nvcc.

/// "check_moves: solution S after MOVE has objective X by delta but Y by full evaluation".
/// The objectives are internal (as the engines minimise them) and shown as users read them.
std::string check_moves_message(std::size_t solution, std::string_view move, Objective by_delta,
                                Objective full, ObjectiveSense sense);

/// The CudaError text of a batch that does not fit the memory budget: names the MiB needed and
/// allowed and asks to reduce `batch` (or raise memory_budget / memory_fraction).
std::string memory_budget_message(std::string_view label, std::uint32_t batch, std::size_t width,
                                  std::size_t need, std::size_t allowed);

/// "move index I is not a move of the LABEL neighborhood" (Error text).
std::string undecodable_move_message(std::string_view label, std::uint64_t index);

/// Median of the timed runs (the first run is a warm-up and ignored); precondition: >= 2 runs.
inline double median_after_warmup(std::vector<double> seconds) {
    seconds.erase(seconds.begin());
    std::sort(seconds.begin(), seconds.end());
    return seconds[seconds.size() / 2];
}

} // namespace detail

/// A neighborhood policy with an independence rule, for the parallel descent of both adapters
/// (Neighborhood::descend_independent):
///   move_type                           a decoded move
///   conflicts(a, b)                     true when moves a and b of one solution (decoded from
///                                       it before either is applied) are dependent: their
///                                       gains may not add up when applied together
///   apply_independent(batch, s, moves)  applies pairwise independent moves to batch[s]
///                                       together (and marks its focus as single moves do);
///                                       leaves the objective alone
/// and its evaluator decodes move indices on host and device: eval.decode(s, index).
template <class P>
concept IndependencePolicy = requires(const P& cp, SolutionBatch& b, std::size_t s,
                                      const typename P::move_type& m,
                                      std::span<const typename P::move_type> set,
                                      const typename P::evaluator_type& e, std::uint32_t u,
                                      std::uint64_t i) {
    { cp.conflicts(m, m) } -> std::same_as<bool>;
    cp.apply_independent(b, s, set);
    { e.decode(u, i) } -> std::same_as<typename P::move_type>;
};

namespace detail {

/// The host part of a parallel-descent step, the same on both backends: from the improving
/// moves of solution s (`found`, index order, with their decoded `moves`), a greedy set of
/// pairwise independent ones by gain (select_independent, at most `max_moves`, 0 = all) is
/// applied together and the objective changes by the sum of their deltas (added in gain
/// order). Returns how many were applied.
template <class Move, class Delta> class IndependentStep {
public:
    template <class Policy>
    std::uint32_t run(const Policy& policy, SolutionBatch& batch, std::size_t s,
                      std::span<const MoveResult<Delta>> found, std::span<const Move> moves,
                      std::uint32_t max_moves) {
        deltas_.resize(found.size());
        for (std::size_t k = 0; k < found.size(); ++k)
            deltas_[k] = found[k].delta;
        const std::vector<std::size_t> picked = select_independent<Move, Delta>(
            moves, deltas_, [&](const Move& a, const Move& b) { return policy.conflicts(a, b); },
            max_moves);
        chosen_.clear();
        for (const std::size_t k : picked) {
            chosen_.push_back(moves[k]);
            batch.objective(s) += static_cast<Objective>(deltas_[k]);
        }
        policy.apply_independent(batch, s, std::span<const Move>(chosen_));
        return static_cast<std::uint32_t>(picked.size());
    }

    /// The moves applied by the last run, in gain order.
    const std::vector<Move>& chosen() const { return chosen_; }

private:
    std::vector<Delta> deltas_;
    std::vector<Move> chosen_;
};

} // namespace detail

/// A problem's neighborhood on the CPU, for CpuNeighborhoodAdapter. P is a class with
///   evaluator_type             a MoveEvaluator over host arrays
///   move_type                  a decoded move (copyable), named in check_moves messages
///   prepare(batch)             derives what the evaluator reads from the solutions of `batch`
///                              and returns the evaluator over them; it stays valid for
///                              decoding until the next prepare, while each solution changed by
///                              at most one move since
///   evaluations(eval, count)   optional: moves one exploration of `count` solutions with
///                              `eval` evaluates (default: every cell of its grid)
///   cell_work(eval)            optional: elementary steps of one cell's delta (default 1),
///                              for the choice of watching an exploration for the stop test
///   apply(eval, batch, s, i)   decodes move index i of solution s with `eval` (prepared for the
///                              solution as it was) and applies it to batch[s] and its focus;
///                              leaves the objective alone; throws Error when i is not a move
///   evaluate(solution)         full objective (check_moves)
///   describe(move)             optional: the move in words, e.g. "swap (3, 7)" (default for
///                              integral moves: "move <value>")
template <class P>
concept CpuNeighborhoodPolicy = MoveEvaluator<typename P::evaluator_type> &&
    std::copyable<typename P::move_type> &&
    requires(P& p, const P& cp, const SolutionBatch& cb, SolutionBatch& b,
             const typename P::evaluator_type& e, const typename P::move_type& m, std::size_t s,
             std::uint64_t i, std::span<const std::int32_t> solution) {
    { p.prepare(cb) } -> std::same_as<typename P::evaluator_type>;
    { p.apply(e, b, s, i) } -> std::same_as<typename P::move_type>;
    { cp.evaluate(solution) } -> std::same_as<Objective>;
};

/// The CPU wrapper of a neighborhood policy: the Neighborhood operations over the engine's CPU
/// twin (select_moves_cpu on settings.threads threads), with the contracts of
/// locus::Neighborhood. Every applied move adds its delta to the objective; with
/// settings.check_moves the solution is then re-evaluated and a disagreement throws Error
/// (detail::check_moves_message). Not thread-safe: one call at a time.
template <class Policy> class CpuNeighborhoodAdapter {
    static_assert(CpuNeighborhoodPolicy<Policy>,
                  "Policy does not model locus::gpu::CpuNeighborhoodPolicy");

public:
    using Evaluator = typename Policy::evaluator_type;
    using Delta = typename Evaluator::delta_type;

    /// Wraps `policy`; settings.threads and settings.check_moves apply (the rest is the
    /// device's).
    CpuNeighborhoodAdapter(Policy policy, EngineSettings settings)
        : policy_(std::move(policy)), settings_(settings) {}

    /// The wrapped policy (e.g. for its cells()).
    Policy& policy() { return policy_; }
    const Policy& policy() const { return policy_; }
    const EngineSettings& settings() const { return settings_; }

    /// One exploration: out[s] = the move chosen for solution s by `pivot` (!found() when none).
    /// Precondition: out.size() >= batch.count().
    void explore(const SolutionBatch& batch, Pivot pivot, std::span<MoveChoice> out) {
        select(batch, pivot);
        for (std::size_t s = 0; s < batch.count(); ++s)
            out[s] = results_[s].found()
                         ? MoveChoice{results_[s].index, static_cast<Objective>(results_[s].delta)}
                         : MoveChoice{};
    }

    /// Applies moves[s] to solution s where found, whatever its delta.
    void apply(SolutionBatch& batch, std::span<const MoveChoice> moves) {
        const Evaluator eval = policy_.prepare(batch);
        for (std::size_t s = 0; s < batch.count(); ++s)
            if (moves[s].found()) apply_one(eval, batch, s, moves[s].index, moves[s].delta);
    }

    /// core's run_descent over explore + apply_improving: until an exploration applies nothing,
    /// `max_steps` explorations were made (0 = no limit) or `stop` returns true (checked before
    /// each exploration).
    DescentStats descend(SolutionBatch& batch, Pivot pivot, std::uint64_t max_steps,
                         const std::function<bool()>& stop) {
        return run_descent(max_steps, stop, [&] {
            const std::optional<Evaluator> selected = select(batch, pivot, stop);
            if (!selected) return DescentStep{0, 0, true};
            const Evaluator& eval = *selected;
            const std::uint64_t evaluations = evaluations_of(eval, batch.count());
            const auto apply = [&](std::size_t s, std::uint64_t index, Delta delta) {
                apply_one(eval, batch, s, index, static_cast<Objective>(delta));
            };
            return DescentStep{apply_improving(results_, apply), evaluations};
        });
    }

    /// The parallel descent (Neighborhood::descend_independent) over improving_moves_cpu.
    DescentStats descend_independent(SolutionBatch& batch, const IndependentDescentOptions& options,
                                     const std::function<bool()>& stop)
        requires IndependencePolicy<Policy>
    {
        using Move = typename Policy::move_type;
        const auto count = static_cast<std::uint32_t>(batch.count());
        const std::uint32_t capacity = std::max<std::uint32_t>(options.capacity, 1);
        std::vector<MoveResult<Delta>> found(static_cast<std::size_t>(count) * capacity);
        std::vector<std::uint32_t> counts(count);
        std::vector<Move> moves;
        detail::IndependentStep<Move, Delta> step;
        std::uint64_t explorations = 0;
        DescentStats stats = run_descent(options.max_steps, stop, [&] {
            const Evaluator eval = policy_.prepare(batch);
            Watchdog watchdog(stop, watched(eval, count));
            improving_moves_cpu(eval, count, capacity, found.data(), counts.data(),
                                settings_.threads, watchdog.watching() ? watchdog.flag() : nullptr);
            if (watchdog.raised()) return DescentStep{0, 0, true};
            ++explorations;
            std::uint64_t applied = 0;
            for (std::uint32_t s = 0; s < count; ++s) {
                const std::span<const MoveResult<Delta>> mine(
                    found.data() + static_cast<std::size_t>(s) * capacity,
                    std::min(counts[s], capacity));
                moves.resize(mine.size());
                for (std::size_t k = 0; k < mine.size(); ++k)
                    moves[k] = eval.decode(s, mine[k].index);
                applied += step.run(policy_, batch, s, mine, std::span<const Move>(moves),
                                    options.max_moves);
                if (settings_.check_moves && !step.chosen().empty()) check_solution(batch, s, step.chosen().front());
            }
            return DescentStep{applied, evaluations_of(eval, count)};
        });
        stats.explorations = explorations;
        return stats;
    }

    /// Benchmark hook: seconds per exploration of the whole batch, prepared once (median of
    /// `repetitions` >= 1 timed runs after one warm-up).
    double time_exploration(const SolutionBatch& batch, Pivot pivot, int repetitions) {
        const Evaluator eval = policy_.prepare(batch);
        results_.resize(batch.count());
        std::vector<double> seconds;
        for (int r = 0; r <= std::max(repetitions, 1); ++r) {
            const auto start = std::chrono::steady_clock::now();
            run_selection(eval, static_cast<std::uint32_t>(batch.count()), pivot);
            const auto end = std::chrono::steady_clock::now();
            seconds.push_back(std::chrono::duration<double>(end - start).count());
        }
        return detail::median_after_warmup(std::move(seconds));
    }

private:
    /// One exploration of `batch` into results_ with the evaluator it prepares; a large one is
    /// watched by a thread polling `stop` (when given) and, once that is raised, cut short:
    /// nullopt, results_ meaningless.
    std::optional<Evaluator> select(const SolutionBatch& batch, Pivot pivot,
                                    const std::function<bool()>& stop = {}) {
        const Evaluator eval = policy_.prepare(batch);
        Watchdog watchdog(stop, watched(eval, batch.count()));
        results_.resize(batch.count());
        run_selection(eval, static_cast<std::uint32_t>(batch.count()), pivot,
                      watchdog.watching() ? watchdog.flag() : nullptr);
        if (watchdog.raised()) return std::nullopt;
        return eval;
    }

    /// Whether one exploration of `count` solutions is large enough (2^26 steps: tens of
    /// milliseconds on the CPU, seconds for full neighborhoods of 10^5 elements) to be watched
    /// by a thread polling the stop test; a cell is one step unless the policy says how many
    /// (cell_work: a QAP swap delta is n steps, so n = 2000 is watched at 2^26 / 2000 cells).
    bool watched(const Evaluator& eval, std::size_t count) const {
        std::uint64_t work = 1;
        if constexpr (requires { policy_.cell_work(eval); })
            work = std::max<std::uint64_t>(policy_.cell_work(eval), 1);
        return eval.grid().size() * count * work >= (std::uint64_t{1} << 26);
    }

    /// select_moves_cpu, or select_moves_parts_cpu when the policy asks for parts; `halt`
    /// (optional) cuts select_moves_cpu short (its result is then discarded).
    void run_selection(const Evaluator& eval, std::uint32_t count, Pivot pivot,
                       const volatile std::uint8_t* halt = nullptr) {
        if constexpr (PartsPolicy<Policy>) {
            const auto plan = policy_.parts(eval);
            if (plan.enabled) {
                select_moves_parts_cpu(eval, plan.filter, count, part_pivot(pivot),
                                       plan.part_cells, results_.data(), settings_.threads);
                return;
            }
        }
        select_moves_cpu(eval, count, pivot, results_.data(), settings_.threads, halt);
    }

    void apply_one(const Evaluator& eval, SolutionBatch& batch, std::size_t s, std::uint64_t index,
                   Objective delta) {
        const auto move = policy_.apply(eval, batch, s, index);
        batch.objective(s) += delta;
        if (settings_.check_moves) check_solution(batch, s, move);
    }

    /// check_moves: solution s against a full evaluation after `move` (Error on disagreement).
    void check_solution(const SolutionBatch& batch, std::size_t s,
                        const typename Policy::move_type& move) const {
        const Objective full = policy_.evaluate(batch[s]);
        if (!objectives_agree(batch.objective(s), full))
            throw Error(
                detail::check_moves_message(s, describe(move), batch.objective(s), full,
                                            settings_.sense));
    }

    std::uint64_t evaluations_of(const Evaluator& eval, std::size_t count) const {
        if constexpr (requires { policy_.evaluations(eval, count); })
            return policy_.evaluations(eval, count);
        else
            return eval.grid().size() * count;
    }
    std::string describe(const typename Policy::move_type& move) const {
        if constexpr (requires { policy_.describe(move); })
            return policy_.describe(move);
        else if constexpr (std::is_integral_v<typename Policy::move_type>)
            return "move " + std::to_string(move);
        else
            return "a move";
    }

    Policy policy_;
    EngineSettings settings_;
    std::vector<MoveResult<Delta>> results_;
};

/// A locus::Neighborhood with the adapters' benchmark hook.
class TimedNeighborhood : public Neighborhood {
public:
    /// Seconds per exploration of the whole batch with the solutions already resident (median
    /// of `repetitions` timed runs after one warm-up), without transfers.
    virtual double time_exploration(const SolutionBatch& batch, Pivot pivot, int repetitions) = 0;
};

/// A locus::Neighborhood that forwards to an adapter (CpuNeighborhoodAdapter or
/// DeviceNeighborhoodAdapter), built in place from `args`: what a problem registers.
template <class Adapter> class AdaptedNeighborhood final : public TimedNeighborhood {
public:
    /// `size` = moves per solution (the policy's grid cells).
    template <class... Args>
    AdaptedNeighborhood(std::string name, Backend backend, std::uint64_t size, Args&&... args)
        : name_(std::move(name)), backend_(backend), size_(size),
          adapter_(std::forward<Args>(args)...) {}

    std::string_view name() const override { return name_; }
    Backend backend() const override { return backend_; }
    std::uint64_t size() const override { return size_; }
    void explore(const SolutionBatch& batch, Pivot pivot, std::span<MoveChoice> out) override {
        adapter_.explore(batch, pivot, out);
    }
    void apply(SolutionBatch& batch, std::span<const MoveChoice> moves) override {
        adapter_.apply(batch, moves);
    }
    DescentStats descend(SolutionBatch& batch, Pivot pivot, std::uint64_t max_steps,
                         const std::function<bool()>& stop) override {
        return adapter_.descend(batch, pivot, max_steps, stop);
    }
    bool has_independence_rule() const override {
        return IndependencePolicy<std::remove_cvref_t<decltype(adapter_.policy())>>;
    }
    DescentStats descend_independent(SolutionBatch& batch, const IndependentDescentOptions& options,
                                     const std::function<bool()>& stop) override {
        if constexpr (IndependencePolicy<std::remove_cvref_t<decltype(adapter_.policy())>>)
            return adapter_.descend_independent(batch, options, stop);
        else
            return Neighborhood::descend_independent(batch, options, stop);
    }

    double time_exploration(const SolutionBatch& batch, Pivot pivot, int repetitions) override {
        return adapter_.time_exploration(batch, pivot, repetitions);
    }

    /// The wrapped adapter (benchmark hooks, the policy).
    Adapter& adapter() { return adapter_; }

private:
    std::string name_;
    Backend backend_;
    std::uint64_t size_;
    Adapter adapter_;
};

} // namespace locus::gpu
