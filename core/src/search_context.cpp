#include "locus/search_context.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "locus/error.hpp"
#include "locus/problem.hpp"
#include "locus/rng.hpp"
#include "locus/rng_salts.hpp"

namespace locus {

namespace {
// NOTE: a lock-free atomic flag is async-signal-safe to set from a signal handler.
std::atomic<bool> g_interrupt{false};
static_assert(std::atomic<bool>::is_always_lock_free);
} // namespace

void request_interrupt() noexcept { g_interrupt.store(true, std::memory_order_relaxed); }
bool interrupt_requested() noexcept { return g_interrupt.load(std::memory_order_relaxed); }
void clear_interrupt() noexcept { g_interrupt.store(false, std::memory_order_relaxed); }

namespace {

std::atomic<bool> g_deadline_passed{false};

/// The deadline timer: one thread (started by the first arm_deadline, detached, never
/// destroyed, so that exit does not wait for it) that sleeps until the armed deadline and
/// then raises g_deadline_passed.
struct DeadlineTimer {
    std::mutex mutex;
    std::condition_variable wake;
    std::optional<std::chrono::steady_clock::time_point> at;
    std::uint64_t token = 0;
    bool started = false;

    void loop() {
        std::unique_lock lock(mutex);
        for (;;) {
            if (!at) {
                wake.wait(lock);
                continue;
            }
            const auto until = *at;
            if (wake.wait_until(lock, until) == std::cv_status::timeout && at && *at == until) {
                g_deadline_passed.store(true, std::memory_order_relaxed);
                at.reset();
            }
        }
    }
};

DeadlineTimer& deadline_timer() {
    static auto* timer = new DeadlineTimer; // NOTE: leaked on purpose (a detached thread uses it)
    return *timer;
}

} // namespace

bool stop_requested() noexcept {
    return g_interrupt.load(std::memory_order_relaxed) ||
           g_deadline_passed.load(std::memory_order_relaxed);
}

std::uint64_t arm_deadline(std::chrono::steady_clock::time_point at) {
    DeadlineTimer& timer = deadline_timer();
    std::lock_guard lock(timer.mutex);
    g_deadline_passed.store(at <= std::chrono::steady_clock::now(), std::memory_order_relaxed);
    timer.at = at;
    const std::uint64_t token = ++timer.token;
    if (!timer.started) {
        std::thread([&timer] { timer.loop(); }).detach();
        timer.started = true;
    }
    timer.wake.notify_all();
    return token;
}

void disarm_deadline(std::uint64_t token) noexcept {
    if (token == 0) return;
    DeadlineTimer& timer = deadline_timer();
    std::lock_guard lock(timer.mutex);
    if (timer.token != token) return;
    timer.at.reset();
    g_deadline_passed.store(false, std::memory_order_relaxed);
    timer.wake.notify_all();
}

std::string_view to_string(StopReason reason) {
    switch (reason) {
    case StopReason::none: return "none";
    case StopReason::time_limit: return "time_limit";
    case StopReason::iterations: return "iterations";
    case StopReason::evaluations: return "evaluations";
    case StopReason::target: return "target";
    case StopReason::stagnation: return "stagnation";
    case StopReason::interrupted: return "interrupted";
    case StopReason::converged: return "converged";
    case StopReason::error: return "error";
    }
    return "none";
}

double gap_percent(Objective objective, Objective best_known) {
    return 100.0 * (objective - best_known) / std::abs(best_known);
}

SearchContext::SearchContext(Problem& problem, Construction* construction,
                             Termination termination, std::uint64_t seed,
                             Clock::time_point start, std::optional<Objective> best_known,
                             Callbacks callbacks)
    : problem_(problem), construction_(construction), termination_(termination),
      job_seed_(seed), best_known_(best_known), callbacks_(std::move(callbacks)),
      run_seed_(seed), run_start_(start) {
    arm_run_deadline();
}

SearchContext::~SearchContext() { disarm_deadline(deadline_token_); }

void SearchContext::arm_run_deadline() {
    disarm_deadline(deadline_token_);
    deadline_token_ = 0;
    if (termination_.time_limit_s > 0.0)
        deadline_token_ = arm_deadline(
            run_start_ + std::chrono::duration_cast<Clock::duration>(
                             std::chrono::duration<double>(termination_.time_limit_s)));
}

double SearchContext::elapsed() const {
    return std::chrono::duration<double>(Clock::now() - run_start_).count();
}

bool SearchContext::should_stop() {
    if (reason_ != StopReason::none && reason_ != StopReason::converged) return true;
    StopReason reason = StopReason::none;
    if (interrupt_requested())
        reason = StopReason::interrupted;
    else if (termination_.max_iterations != 0 && iterations_ >= termination_.max_iterations)
        reason = StopReason::iterations;
    else if (termination_.max_evaluations != 0 && evaluations_ >= termination_.max_evaluations)
        reason = StopReason::evaluations;
    else if (has_best_ && best_feasible_ && termination_.target &&
             best_objective_ <= *termination_.target)
        reason = StopReason::target;
    else if (has_best_ && best_feasible_ && termination_.target_gap && best_known_ &&
             gap_percent(best_objective_, *best_known_) <= *termination_.target_gap)
        reason = StopReason::target;
    else if (termination_.stagnation_iterations != 0 &&
             iterations_ - last_improvement_iteration_ >= termination_.stagnation_iterations)
        reason = StopReason::stagnation;
    else if (termination_.time_limit_s > 0.0 && elapsed() >= termination_.time_limit_s)
        reason = StopReason::time_limit;
    if (reason != StopReason::none) reason_ = reason;
    return reason != StopReason::none;
}

void SearchContext::add_iterations(std::uint64_t n) { iterations_ += n; }

bool SearchContext::offer(std::span<const std::int32_t> solution, Objective objective,
                          bool feasible) {
    if (has_best_) {
        if (best_feasible_ && !feasible) return false;
        if (best_feasible_ == feasible && !(objective < best_objective_)) return false;
    }
    has_best_ = true;
    best_feasible_ = feasible;
    best_objective_ = objective;
    best_.assign(solution.begin(), solution.end());
    time_to_best_ = elapsed();
    last_improvement_iteration_ = iterations_;
    if (callbacks_.on_improvement)
        callbacks_.on_improvement(run_, TracePoint{time_to_best_, iterations_, evaluations_,
                                                   objective, feasible, best_});
    return true;
}

bool SearchContext::offer(const SolutionBatch& batch) {
    // Offer the best of the batch only (lowest index among equals) to keep traces short.
    if (batch.count() == 0) return false;
    std::size_t best = 0;
    for (std::size_t i = 1; i < batch.count(); ++i)
        if (batch.objective(i) < batch.objective(best)) best = i;
    return offer(batch[best], batch.objective(best));
}

void SearchContext::construct(SolutionBatch& batch) {
    if (construction_ == nullptr)
        throw ConfigError("no construction heuristic is configured for this job");
    construction_->construct_until(batch, derive_key(run_seed_, salt::kConstruction),
                                   [this] { return should_stop(); });
}

void SearchContext::finish() {
    if (finished_) return;
    finished_ = true;
    if (!callbacks_.on_run_end) return;
    RunSummary summary;
    summary.run = run_;
    summary.seed = run_seed_;
    summary.has_solution = has_best_;
    summary.best_solution = best_;
    summary.best_objective = best_objective_;
    if (has_best_ && !trajectory_.empty() && trajectory_.back() == best_)
        summary.trajectory = trajectory_;
    summary.time_to_best_s = time_to_best_;
    summary.total_time_s = elapsed();
    summary.iterations = iterations_;
    summary.evaluations = evaluations_;
    summary.engine_memory_bytes = engine_memory_bytes_;
    summary.phase_s = phase_s_;
    summary.stop_reason = reason_ == StopReason::none ? StopReason::converged : reason_;
    summary.error = error_;
    callbacks_.on_run_end(summary);
}

void SearchContext::fail(const std::string& message) {
    if (finished_) return;
    reason_ = StopReason::error;
    error_ = message;
    finish();
}

void SearchContext::next_run() {
    finish();
    ++run_;
    run_seed_ = derive_key(job_seed_, run_);
    reset_run();
}

void SearchContext::reset_run() {
    run_start_ = Clock::now();
    arm_run_deadline();
    iterations_ = 0;
    evaluations_ = 0;
    engine_memory_bytes_ = 0;
    phase_s_.clear();
    last_improvement_iteration_ = 0;
    has_best_ = false;
    best_feasible_ = false;
    best_objective_ = 0.0;
    best_.clear();
    trajectory_.clear();
    time_to_best_ = 0.0;
    reason_ = StopReason::none;
    error_.clear();
    finished_ = false;
}

} // namespace locus
