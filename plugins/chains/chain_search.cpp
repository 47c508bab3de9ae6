#include "chain_search.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "decomposer.hpp"
#include "islands.hpp"
#include "locus/error.hpp"
#include "locus/rng.hpp"
#include "locus/rng_salts.hpp"
#include "locus/search_context.hpp"

namespace locus::chains {

void check_islands(const Params& p, std::uint32_t islands, std::size_t chains) {
    if (islands > chains)
        throw ConfigError(fmt::format("{}.islands: {} islands need at least as many chains, the "
                                      "batch has {}; raise batch or lower islands",
                                      p.path(), islands, chains));
}

namespace {

/// The run's phases (SearchContext::add_phase_time): each lap adds the time since the last one
/// (or since the clock was made) to a phase.
class PhaseClock {
public:
    void lap(SearchContext& ctx, const std::string& phase) {
        const auto now = std::chrono::steady_clock::now();
        ctx.add_phase_time(phase, std::chrono::duration<double>(now - from_).count());
        from_ = now;
    }

private:
    std::chrono::steady_clock::time_point from_ = std::chrono::steady_clock::now();
};

class ChainSearch final : public Algorithm {
public:
    ChainSearch(Params params, const BuildContext& build, ChainSearchOptions options,
                std::unique_ptr<gpu::ChainPolicyComponent> policy, std::unique_ptr<Algorithm> start,
                std::unique_ptr<Construction> restart)
        : params_(std::move(params)), build_(build), options_(options), policy_(std::move(policy)),
          start_(std::move(start)), restart_(std::move(restart)) {}

    void run(SolutionBatch& batch, SearchContext& ctx) override;

private:
    /// What one run keeps: the starts' objectives in chain units, the runner and the chains'
    /// best objectives after the last report.
    struct RunState {
        RunState(SolutionBatch& b, SearchContext& c) : batch(b), ctx(c) {}
        SolutionBatch& batch;
        SearchContext& ctx;
        std::vector<std::int64_t> starts;
        gpu::ChainObjective chain_objective;
        std::uint32_t leaders = 0; ///< islands whose first chain alone descends at a start
        std::unique_ptr<gpu::ChainRunner> runner;
        std::function<bool()> stop;
        std::uint64_t counted = 0; ///< evaluations added to the context so far
        std::vector<std::int64_t> values;
        bool offered = false; ///< chain units: whether a chain best was offered
        std::int64_t offered_value = 0;
        std::unique_ptr<Decomposer> decomposer; ///< exchange decompose
    };

    /// Whether every chain of an island continues from one solution after each epoch.
    bool single_line() const { return Exchanges::single_line(options_.exchange.exchange); }

    /// Measures the starts (in chain units), with each island's best moved to its first chain
    /// when only that one descends; returns the chain of the best start.
    std::uint32_t measure_starts(RunState& s) const;
    /// Offers a solution with its feasibility: chains whose objective ranks feasible solutions
    /// first (penalised routing) may start from, and keep for a while, infeasible ones.
    void offer(RunState& s, std::span<const std::int32_t> solution, Objective objective) const {
        s.ctx.offer(solution, objective, build_.problem->verify(solution).feasible);
    }
    /// The runner of the chains, its acceptance scaled by the best start's objective.
    std::unique_ptr<gpu::ChainRunner> make_runner(const RunState& s, std::uint32_t chains,
                                                  double scale) const;
    /// Counts the evaluations, reads the chains' bests and offers the leader's when it is new.
    void report(RunState& s) const;
    /// (Re)starts the chains from the batch's solutions, `best` the chain of the best start.
    /// decompose, on problems above regional_start_above elements: the chains hold nothing
    /// until the first redraw, whose confined descents start from the best start; otherwise
    /// every chain descends its own start whole (unconfined) and, with decompose, the best of
    /// them is the first base. Returns how many redraws descend every region from all its
    /// elements (decompose's regional start: the start's descent, then one across the first
    /// round's borders).
    std::uint32_t start_chains(RunState& s, Exchanges& exchanges, std::uint32_t best) const;
    /// The epochs, with the exchanges before each and the restarts after quiet ones; the
    /// first `descents` redraws of decompose descend every region from all its elements.
    void epochs(RunState& s, Exchanges& exchanges, std::uint32_t descents) const;
    /// Copies the chains' bests back into the batch.
    void copy_back(RunState& s) const;
    /// decompose: folds the last epoch's regions into the base and offers it when it improved.
    void fold(RunState& s) const;

    void lead_islands(SolutionBatch& batch, std::vector<std::int64_t>& starts) const;
    void run_start(SolutionBatch& batch, SearchContext& ctx) const;
    void check(gpu::ChainRunner& runner) const;

    Params params_;
    BuildContext build_;
    ChainSearchOptions options_;
    std::unique_ptr<gpu::ChainPolicyComponent> policy_;
    std::unique_ptr<Algorithm> start_;
    std::unique_ptr<Construction> restart_;
};

void ChainSearch::run(SolutionBatch& batch, SearchContext& ctx) {
    const auto chains = static_cast<std::uint32_t>(batch.count());
    check_islands(params_, options_.exchange.islands, chains);
    RunState s(batch, ctx);
    s.starts.resize(chains);
    s.chain_objective = policy_->chain_objective();
    // With copy_best or merge only each island's best start is worth a descent (and the
    // start algorithm): it moves to the island's first chain, the one that descends.
    s.leaders = single_line() ? options_.exchange.islands : 0;
    std::uint32_t first_best = measure_starts(s);
    if (start_) {
        run_start(batch, ctx);
        first_best = measure_starts(s);
    }
    offer(s, batch[first_best], batch.objective(first_best));
    // The construction or the start may have used the whole limit (1024 tours of 10^6
    // cities take minutes to construct): their solutions are the result, and the chains'
    // setup (their memory, a copy of every solution) is not begun after the limit.
    if (ctx.should_stop()) return;
    const double scale = std::abs(static_cast<double>(s.starts[first_best]));
    s.runner = make_runner(s, chains, scale);
    ctx.note_engine_memory(s.runner->bytes());
    Exchanges exchanges(
        options_.exchange, ctx.seed(), static_cast<std::size_t>(build_.problem->solution_width()),
        options_.exchange.exchange == Exchange::population ? policy_->distance()
                                                           : gpu::SolutionDistance{});
    s.stop = [&ctx] { return ctx.should_stop(); };
    if (options_.exchange.exchange == Exchange::decompose) {
        gpu::ChainObjective value = s.chain_objective;
        if (!value) {
            const Problem* problem = build_.problem;
            value = [problem](std::span<const std::int32_t> solution) {
                return static_cast<std::int64_t>(problem->evaluate(solution));
            };
        }
        s.decomposer = std::make_unique<Decomposer>(
            policy_->decomposition(), options_.exchange.group_size, ctx.seed(),
            static_cast<std::size_t>(build_.problem->solution_width()), std::move(value));
    }
    PhaseClock setup;
    const std::uint32_t descents = start_chains(s, exchanges, first_best);
    setup.lap(ctx, "start");
    epochs(s, exchanges, descents);
    if (s.decomposer) fold(s); // the last epoch's improvements, also after the limit
    copy_back(s);
}

void ChainSearch::fold(RunState& s) const {
    if (!s.decomposer->fold(*s.runner, s.values)) return;
    const auto base = s.decomposer->base();
    if (s.chain_objective) {
        offer(s, base, build_.problem->evaluate(base));
        s.offered = true;
        s.offered_value = s.decomposer->base_value();
    } else {
        offer(s, base, static_cast<Objective>(s.decomposer->base_value()));
    }
}

std::uint32_t ChainSearch::measure_starts(RunState& s) const {
    const auto chains = static_cast<std::uint32_t>(s.starts.size());
    for (std::uint32_t c = 0; c < chains; ++c)
        s.starts[c] = s.chain_objective ? s.chain_objective(s.batch[c])
                                        : static_cast<std::int64_t>(s.batch.objective(c));
    if (s.leaders > 0) lead_islands(s.batch, s.starts);
    return static_cast<std::uint32_t>(std::min_element(s.starts.begin(), s.starts.end()) -
                                      s.starts.begin());
}

std::unique_ptr<gpu::ChainRunner> ChainSearch::make_runner(const RunState& s, std::uint32_t chains,
                                                           double scale) const {
    gpu::ChainParams params;
    params.seed = s.ctx.seed();
    params.check_moves = build_.check_moves;
    params.child_descent = options_.child_descent;
    params.first_improvement = options_.first_improvement;
    params.independent_moves = options_.independent_moves;
    params.start_pivot = options_.start_pivot;
    params.thread_per_chain = options_.thread_per_chain;
    params.regions = options_.exchange.exchange == Exchange::decompose;
    params.host_budget = build_.memory_budget;
    params.acceptance.kind = options_.acceptance;
    params.acceptance.threshold = std::llround(options_.threshold * scale);
    params.acceptance.temperature = options_.temperature * scale;
    params.acceptance.log_cooling = std::log(options_.cooling);
    return policy_->make_runner(chains, params);
}

void ChainSearch::report(RunState& s) const {
    check(*s.runner);
    const std::uint64_t evaluations = s.runner->evaluations();
    s.ctx.add_evaluations(evaluations - s.counted);
    s.counted = evaluations;
    s.values = s.runner->best_objectives();
    const auto leader = static_cast<std::uint32_t>(
        std::min_element(s.values.begin(), s.values.end()) - s.values.begin());
    if (s.chain_objective) {
        // Chain units are not the problem's: offer each new chain best with the problem's own
        // objective.
        if (!s.offered || s.values[leader] < s.offered_value) {
            s.offered = true;
            s.offered_value = s.values[leader];
            std::vector<std::int32_t> solution(s.batch.width());
            s.runner->best_solution(leader, solution);
            offer(s, solution, build_.problem->evaluate(solution));
        }
    } else if (!s.ctx.has_best() ||
               static_cast<Objective>(s.values[leader]) < s.ctx.best_objective()) {
        std::vector<std::int32_t> solution(s.batch.width());
        s.runner->best_solution(leader, solution);
        offer(s, solution, static_cast<Objective>(s.values[leader]));
    }
}

std::uint32_t ChainSearch::start_chains(RunState& s, Exchanges& exchanges,
                                        std::uint32_t best) const {
    const auto chains = static_cast<std::uint32_t>(s.starts.size());
    if (s.decomposer && build_.problem->size() > options_.exchange.regional_start_above) {
        s.decomposer->begin(s.batch[best], s.starts[best]);
        s.values.assign(chains, s.starts[best]);
        return 2;
    }
    if (s.decomposer) // a restart: the chains are confined to the last redraw's regions
        s.runner->restrict_chains({}, std::vector<std::uint32_t>(chains + 1, 0));
    s.runner->start(std::as_const(s.batch).data(), s.starts, s.stop, s.leaders);
    exchanges.started();
    report(s);
    if (s.decomposer) {
        const auto leader = static_cast<std::uint32_t>(
            std::min_element(s.values.begin(), s.values.end()) - s.values.begin());
        std::vector<std::int32_t> solution(s.batch.width());
        s.runner->best_solution(leader, solution);
        s.decomposer->begin(solution, s.values[leader]);
    }
    return 0;
}

void ChainSearch::epochs(RunState& s, Exchanges& exchanges, std::uint32_t descents) const {
    // Restarts: after `restart` epochs in which no chain improved on the chains' best since
    // their (re)start by more than a millionth of it, every chain starts again from a fresh
    // construction; the run's best stays offered. Counted in epochs, not seconds, so a seed
    // gives one run. The millionth: on real distances the same routes summed in another order
    // or direction differ in the last units of the fixed point, which is no progress.
    const std::uint64_t seed = s.ctx.seed();
    std::int64_t chains_best = *std::min_element(s.values.begin(), s.values.end());
    std::uint64_t quiet = 0;
    std::uint64_t restarts = 0;
    const auto chains = static_cast<std::uint32_t>(s.values.size());
    PhaseClock clock;
    double report_s = 0.0; // a part of the exchange phase
    for (std::uint64_t first = 0, round = 0; !s.ctx.should_stop();
         first += options_.epoch, ++round) {
        if (s.decomposer) {
            fold(s);
            s.decomposer->redraw(*s.runner, chains, round, descents > 0, s.stop);
            if (descents > 0) --descents;
            if (s.ctx.should_stop()) break;
        } else {
            exchanges.before_epoch(*s.runner, s.values, round);
        }
        clock.lap(s.ctx, "exchange");
        s.runner->epoch(first, options_.epoch, s.stop);
        clock.lap(s.ctx, "epochs");
        s.ctx.add_iterations(options_.epoch);
        const auto reported = std::chrono::steady_clock::now();
        report(s);
        report_s +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - reported).count();
        std::int64_t now = *std::min_element(s.values.begin(), s.values.end());
        if (s.decomposer) now = std::min(now, s.decomposer->base_value());
        quiet = now < chains_best - std::abs(chains_best) / 1000000 ? 0 : quiet + 1;
        chains_best = std::min(chains_best, now);
        if (options_.restart == 0 || quiet < options_.restart || s.ctx.should_stop()) continue;
        ++restarts;
        clock.lap(s.ctx, "exchange");
        restart_->construct_until(s.batch, derive_key(seed, restarts, salt::kChainRestart), s.stop);
        if (!s.ctx.should_stop()) descents = start_chains(s, exchanges, measure_starts(s));
        clock.lap(s.ctx, "start");
        if (s.ctx.should_stop()) break;
        chains_best = *std::min_element(s.values.begin(), s.values.end());
        quiet = 0;
    }
    clock.lap(s.ctx, "exchange"); // the last report, or a redraw the limit cut
    // The parts of the exchange phase, each also counted in it.
    s.ctx.add_phase_time("exchange:report", report_s);
    for (const auto& [part, seconds] : exchanges.part_seconds())
        s.ctx.add_phase_time("exchange:" + part, seconds);
}

void ChainSearch::copy_back(RunState& s) const {
    // At depth 0 nothing reads the batch after the run (its best was offered): the chains'
    // solutions are copied back only for an enclosing algorithm (1024 chains of 10^6 cities
    // are 4 GB to download after the limit).
    if (s.ctx.depth() == 0) return;
    // decompose: before the first redraw the chains hold nothing (the batch keeps its starts).
    if (s.decomposer && s.decomposer->groups() == 0) return;
    // The chains' objectives are known unless chain units differ from the problem's: on 10^5
    // cities a full evaluation per chain took a noticeable time after the limit.
    const std::vector<std::int64_t> bests = s.runner->best_objectives();
    for (std::uint32_t c = 0; c < static_cast<std::uint32_t>(s.starts.size()); ++c) {
        s.runner->best_solution(c, s.batch[c]);
        s.batch.objective(c) = s.chain_objective ? build_.problem->evaluate(s.batch[c])
                                                 : static_cast<Objective>(bests[c]);
    }
    // decompose: the assembled base is better than every chain's best; it takes the first
    // chain's place.
    if (s.decomposer && s.decomposer->groups() > 0 &&
        s.decomposer->base_value() < *std::min_element(bests.begin(), bests.end())) {
        const auto base = s.decomposer->base();
        std::copy(base.begin(), base.end(), s.batch[0].begin());
        s.batch.objective(0) = build_.problem->evaluate(base);
    }
}

/// Swaps each island's best start (by `starts`, the lowest chain among equals) into the
/// island's first chain.
void ChainSearch::lead_islands(SolutionBatch& batch, std::vector<std::int64_t>& starts) const {
    const auto chains = static_cast<std::uint32_t>(batch.count());
    const std::uint32_t islands = options_.exchange.islands;
    const auto sources = island_leaders(starts, islands);
    SolutionBatch one(1, batch.width());
    for (std::uint32_t i = 0; i < islands; ++i) {
        const std::uint32_t first = island_range(i, islands, chains).begin;
        const std::uint32_t best = sources[first];
        if (best == first) continue;
        one.copy_from(0, batch, first);
        batch.copy_from(first, batch, best);
        batch.copy_from(best, one, 0);
        std::swap(starts[first], starts[best]);
    }
}

/// The start algorithm: on each island's first chain (its best start, `lead_islands`) alone
/// when every chain of an island continues from one solution anyway (copy_best, merge), else
/// on the whole batch. Nested: its moves are not the chains' iterations, and its convergence
/// is not the run's.
void ChainSearch::run_start(SolutionBatch& batch, SearchContext& ctx) const {
    const NestedScope nested(ctx);
    if (!single_line()) {
        start_->run(batch, ctx);
        return;
    }
    const std::uint32_t islands = options_.exchange.islands;
    const auto chains = batch.count();
    SolutionBatch firsts(islands, batch.width());
    for (std::uint32_t i = 0; i < islands; ++i)
        firsts.copy_from(i, batch, island_range(i, islands, chains).begin);
    start_->run(firsts, ctx);
    for (std::uint32_t i = 0; i < islands; ++i)
        batch.copy_from(island_range(i, islands, chains).begin, firsts, i);
}

void ChainSearch::check(gpu::ChainRunner& runner) const {
    const gpu::ChainCheck failure = runner.check();
    if (failure.failed)
        throw Error(fmt::format("check_moves: {} chain {} after a move of neighborhood {} has "
                                "objective {} by delta but {} by full evaluation",
                                params_.name(), failure.chain, failure.neighborhood,
                                failure.by_delta, failure.full));
}

} // namespace

std::unique_ptr<Algorithm> make_chain_search(Params params, const BuildContext& build,
                                             ChainSearchOptions options,
                                             std::unique_ptr<gpu::ChainPolicyComponent> policy,
                                             std::unique_ptr<Algorithm> start,
                                             std::unique_ptr<Construction> restart) {
    return std::make_unique<ChainSearch>(std::move(params), build, options, std::move(policy),
                                         std::move(start), std::move(restart));
}

} // namespace locus::chains
