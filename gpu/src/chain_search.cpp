#include "locus/gpu/chain_search.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "locus/algorithm.hpp"
#include "locus/gpu/population.hpp"
#include "locus/mixed_construction.hpp"
#include "locus/problem.hpp"
#include "locus/registry.hpp"
#include "locus/rng_salts.hpp"
#include "locus/search_context.hpp"

namespace locus::gpu {
namespace {

/// The chains [begin, end) of island i of `islands` over `chains` chains (the blocks of
/// MixedConstruction, so that each island starts from its own construction).
struct IslandRange {
    std::uint32_t begin;
    std::uint32_t end;
};
IslandRange island_range(std::uint32_t i, std::uint32_t islands, std::size_t chains) {
    return {static_cast<std::uint32_t>(MixedConstruction::block_begin(i, islands, chains)),
            static_cast<std::uint32_t>(MixedConstruction::block_begin(i + 1, islands, chains))};
}

/// Settings of the engine's own parameters.
struct ChainSearchOptions {
    std::uint32_t epoch = 20; ///< iterations per chain between exchanges
    AcceptanceKind acceptance = AcceptanceKind::better_or_equal;
    double threshold = 0.0;   ///< threshold acceptance, share of the start objective
    double temperature = 0.0; ///< annealing T0, share of the start objective
    double cooling = 1.0;     ///< annealing factor per iteration
    Exchange exchange = Exchange::copy_best;
    std::uint32_t elite = 8; ///< elite pool size (elite, recombine); protected members
                             ///< of the population's biased fitness (population)
    PopulationOptions population; ///< population exchange
    bool child_descent = false;   ///< population: children descend from every element first
    bool first_improvement = false; ///< pivot: first
    bool thread_per_chain = false;  ///< mapping: thread (CUDA)
    std::uint64_t restart = 0;      ///< epochs without a new chain best before a restart (0: off)
    std::uint32_t islands = 1;      ///< copy_best within each of this many groups of chains
    bool cross_islands = false;     ///< the best island's leader folds in the other leaders
};

/// Refuses more islands than chains (each island needs a chain to lead it).
void check_islands(const Params& p, std::uint32_t islands, std::size_t chains) {
    if (islands > chains)
        throw ConfigError(fmt::format("{}.islands: {} islands need at least as many chains, the "
                                      "batch has {}; raise batch or lower islands",
                                      p.path(), islands, chains));
}

/// The E chains with the lowest distinct best objectives (ties to the lowest chain).
std::vector<std::uint32_t> elite_chains(const std::vector<std::int64_t>& values, std::uint32_t e) {
    std::vector<std::uint32_t> order(values.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return values[a] < values[b]; });
    std::vector<std::uint32_t> elite;
    for (const std::uint32_t c : order) {
        if (!elite.empty() && values[elite.back()] == values[c]) continue;
        elite.push_back(c);
        if (elite.size() == e) break;
    }
    return elite;
}

class ChainSearch final : public Algorithm {
public:
    ChainSearch(std::shared_ptr<const ChainSearchSpec> spec, Params params,
                const BuildContext& build, ChainSearchOptions options,
                std::unique_ptr<Algorithm> start, std::unique_ptr<Construction> restart)
        : spec_(std::move(spec)), params_(std::move(params)), build_(build), options_(options),
          start_(std::move(start)), restart_(std::move(restart)) {}

    void run(SolutionBatch& batch, SearchContext& ctx) override {
        const auto chains = static_cast<std::uint32_t>(batch.count());
        check_islands(params_, options_.islands, chains);
        std::vector<std::int64_t> starts(chains);
        const auto chain_objective =
            spec_->chain_objective ? spec_->chain_objective(build_)
                                   : std::function<std::int64_t(std::span<const std::int32_t>)>{};
        // With copy_best or merge only each island's best start is worth a descent (and the
        // start algorithm): it moves to the island's first chain, the one that descends.
        const std::uint32_t leaders = single_line() ? options_.islands : 0;
        const auto objectives = [&] {
            for (std::uint32_t c = 0; c < chains; ++c)
                starts[c] = chain_objective ? chain_objective(batch[c])
                                            : static_cast<std::int64_t>(batch.objective(c));
            if (leaders > 0) lead_islands(batch, starts);
            return static_cast<std::uint32_t>(std::min_element(starts.begin(), starts.end()) -
                                              starts.begin());
        };
        std::uint32_t first_best = objectives();
        if (start_) {
            run_start(batch, ctx);
            first_best = objectives();
        }
        // Offered with its feasibility: chains whose objective ranks feasible solutions first
        // (penalised routing) may start from, and keep for a while, infeasible ones.
        const Problem& problem = *build_.problem;
        const auto offer = [&](std::span<const std::int32_t> solution, Objective objective) {
            ctx.offer(solution, objective, problem.verify(solution).feasible);
        };
        offer(batch[first_best], batch.objective(first_best));
        // The construction or the start may have used the whole limit (1024 tours of 10^6
        // cities take minutes to construct): their solutions are the result, and the chains'
        // setup (their memory, a copy of every solution) is not begun after the limit.
        if (ctx.should_stop()) return;
        const double scale = std::abs(static_cast<double>(starts[first_best]));

        ChainParams params;
        params.seed = ctx.seed();
        params.check_moves = build_.check_moves;
        params.child_descent = options_.child_descent;
        params.first_improvement = options_.first_improvement;
        params.thread_per_chain = options_.thread_per_chain;
        params.acceptance.kind = options_.acceptance;
        params.acceptance.threshold = std::llround(options_.threshold * scale);
        params.acceptance.temperature = options_.temperature * scale;
        params.acceptance.log_cooling = std::log(options_.cooling);
        auto runner = spec_->make_runner(params_, build_, chains, params);
        ctx.note_engine_memory(runner->bytes());
        seed_ = params.seed;
        if (options_.exchange == Exchange::population)
            population_ = std::make_unique<Population>(options_.population,
                                                       spec_->distance(build_));

        const std::function<bool()> stop = [&ctx] { return ctx.should_stop(); };
        runner->start(std::as_const(batch).data(), starts, stop, leaders);
        single_start_ = false;
        std::uint64_t counted = 0;
        std::vector<std::int64_t> values;
        bool offered = false;
        std::int64_t offered_value = 0;
        auto report = [&]() {
            check(*runner);
            const std::uint64_t evaluations = runner->evaluations();
            ctx.add_evaluations(evaluations - counted);
            counted = evaluations;
            values = runner->best_objectives();
            const auto leader = static_cast<std::uint32_t>(
                std::min_element(values.begin(), values.end()) - values.begin());
            if (chain_objective) {
                // Chain units are not the problem's: offer each new chain best with the
                // problem's own objective.
                if (!offered || values[leader] < offered_value) {
                    offered = true;
                    offered_value = values[leader];
                    std::vector<std::int32_t> solution(batch.width());
                    runner->best_solution(leader, solution);
                    offer(solution, problem.evaluate(solution));
                }
            } else if (!ctx.has_best() ||
                       static_cast<Objective>(values[leader]) < ctx.best_objective()) {
                std::vector<std::int32_t> solution(batch.width());
                runner->best_solution(leader, solution);
                offer(solution, static_cast<Objective>(values[leader]));
            }
        };
        report();
        // Restarts: after `restart` epochs in which no chain improved on the chains' best since
        // their (re)start, every chain starts again from a fresh construction; the run's best
        // stays offered. Counted in epochs, not seconds, so a seed gives one run.
        std::int64_t chains_best = *std::min_element(values.begin(), values.end());
        std::uint64_t quiet = 0;
        std::uint64_t restarts = 0;
        for (std::uint64_t first = 0, round = 0; !ctx.should_stop();
             first += options_.epoch, ++round) {
            exchange(*runner, values, round);
            runner->epoch(first, options_.epoch, stop);
            ctx.add_iterations(options_.epoch);
            report();
            const std::int64_t now = *std::min_element(values.begin(), values.end());
            quiet = now < chains_best ? 0 : quiet + 1;
            chains_best = std::min(chains_best, now);
            if (options_.restart == 0 || quiet < options_.restart || ctx.should_stop()) continue;
            ++restarts;
            restart_->construct_until(batch, derive_key(seed_, restarts, salt::kChainRestart), stop);
            if (ctx.should_stop()) break;
            objectives();
            runner->start(std::as_const(batch).data(), starts, stop, leaders);
            single_start_ = false;
            report();
            chains_best = *std::min_element(values.begin(), values.end());
            quiet = 0;
        }
        // At depth 0 nothing reads the batch after the run (its best was offered): the chains'
        // solutions are copied back only for an enclosing algorithm (1024 chains of 10^6
        // cities are 4 GB to download after the limit).
        if (ctx.depth() == 0) return;
        // The chains' objectives are known unless chain units differ from the problem's: on
        // 10^5 cities a full evaluation per chain took a noticeable time after the limit.
        const std::vector<std::int64_t> bests = runner->best_objectives();
        for (std::uint32_t c = 0; c < chains; ++c) {
            runner->best_solution(c, batch[c]);
            batch.objective(c) = chain_objective ? build_.problem->evaluate(batch[c])
                                                 : static_cast<Objective>(bests[c]);
        }
    }

private:
    /// Whether every chain of an island continues from one solution after each epoch
    /// (copy_best, merge), so only the island's best start is worth a descent.
    bool single_line() const {
        return options_.exchange == Exchange::copy_best || options_.exchange == Exchange::merge;
    }

    /// Swaps each island's best start (by `starts`, the lowest chain among equals) into the
    /// island's first chain.
    void lead_islands(SolutionBatch& batch, std::vector<std::int64_t>& starts) const {
        const auto chains = static_cast<std::uint32_t>(batch.count());
        const auto sources = island_leaders(starts, options_.islands);
        SolutionBatch one(1, batch.width());
        for (std::uint32_t i = 0; i < options_.islands; ++i) {
            const std::uint32_t first = island_range(i, options_.islands, chains).begin;
            const std::uint32_t best = sources[first];
            if (best == first) continue;
            one.copy_from(0, batch, first);
            batch.copy_from(first, batch, best);
            batch.copy_from(best, one, 0);
            std::swap(starts[first], starts[best]);
        }
    }

    /// The start algorithm: on each island's first chain (its best start, `lead_islands`)
    /// alone when every chain of an island continues from one solution anyway (copy_best,
    /// merge), else on the whole batch. Nested: its moves are not the chains' iterations, and
    /// its convergence is not the run's.
    void run_start(SolutionBatch& batch, SearchContext& ctx) const {
        const NestedScope nested(ctx);
        if (!single_line()) {
            start_->run(batch, ctx);
            return;
        }
        const auto chains = batch.count();
        SolutionBatch firsts(options_.islands, batch.width());
        for (std::uint32_t i = 0; i < options_.islands; ++i)
            firsts.copy_from(i, batch, island_range(i, options_.islands, chains).begin);
        start_->run(firsts, ctx);
        for (std::uint32_t i = 0; i < options_.islands; ++i)
            batch.copy_from(island_range(i, options_.islands, chains).begin, firsts, i);
    }

    void exchange(ChainRunner& runner, const std::vector<std::int64_t>& values,
                  std::uint64_t round) {
        const auto chains = static_cast<std::uint32_t>(values.size());
        std::vector<std::uint32_t> sources(chains);
        switch (options_.exchange) {
        case Exchange::none:
            return;
        case Exchange::copy_best: {
            const auto leaders = island_leaders(values, options_.islands);
            if (options_.cross_islands) {
                std::vector<std::uint32_t> heads(options_.islands);
                for (std::uint32_t i = 0; i < options_.islands; ++i)
                    heads[i] = leaders[island_range(i, options_.islands, chains).begin];
                fold_islands(runner, heads, values, round);
            }
            runner.continue_from(leaders);
            return;
        }
        case Exchange::elite: {
            const auto elite = elite_chains(values, options_.elite);
            for (std::uint32_t c = 0; c < chains; ++c)
                sources[c] = elite[c % elite.size()];
            runner.continue_from(sources);
            return;
        }
        case Exchange::recombine: {
            const auto elite = elite_chains(values, options_.elite);
            const auto e = static_cast<std::uint32_t>(elite.size());
            std::vector<std::uint32_t> second(chains);
            for (std::uint32_t c = 0; c < chains; ++c) {
                sources[c] = elite[c % e];
                second[c] =
                    elite[(c % e + 1 + static_cast<std::uint32_t>(round % std::max(e - 1, 1u))) %
                          e];
            }
            runner.recombine(sources, second, round);
            return;
        }
        case Exchange::merge: {
            // Per island, a binary tree over the chains ranked by objective: in round r (stride
            // s = 2^r) the entry at rank i (i a multiple of 2s) takes in the one at rank i + s,
            // so the leader's slot ends holding every chain's improvements that recombine.
            // After the first epoch from one solution only the chains that improved on it
            // take part: the others hold that solution, which adds nothing to the fold.
            const std::uint32_t islands = options_.islands;
            std::vector<std::vector<std::uint32_t>> ranked(islands);
            std::size_t longest = 0;
            for (std::uint32_t i = 0; i < islands; ++i) {
                const auto [begin, end] = island_range(i, islands, chains);
                auto& order = ranked[i];
                for (std::uint32_t c = begin; c < end; ++c)
                    order.push_back(c);
                std::ranges::stable_sort(order, {}, [&](std::uint32_t c) { return values[c]; });
                if (single_start_ && !order.empty()) {
                    const std::int64_t start = island_start_[i];
                    const auto improved = std::ranges::count_if(
                        order, [&](std::uint32_t c) { return values[c] < start; });
                    order.resize(std::max<std::size_t>(1, static_cast<std::size_t>(improved)));
                }
                longest = std::max(longest, order.size());
            }
            std::vector<std::uint32_t> slots;
            std::vector<std::uint32_t> others;
            for (std::uint32_t s = 1, step = 0; s < longest; s *= 2, ++step) {
                slots.clear();
                others.clear();
                for (const auto& order : ranked)
                    for (std::uint32_t i = 0; i + s < order.size(); i += 2 * s) {
                        slots.push_back(order[i]);
                        others.push_back(order[i + s]);
                    }
                runner.merge(slots, others, round * 64 + step);
            }
            std::vector<std::uint32_t> heads(islands);
            for (std::uint32_t i = 0; i < islands; ++i) {
                const auto [begin, end] = island_range(i, islands, chains);
                heads[i] = ranked[i].empty() ? begin : ranked[i][0];
                std::fill(sources.begin() + begin, sources.begin() + end, heads[i]);
            }
            if (options_.cross_islands)
                fold_islands(runner, heads, runner.best_objectives(), round);
            runner.continue_from(sources);
            const std::vector<std::int64_t> merged = runner.best_objectives();
            island_start_.assign(islands, 0);
            for (std::uint32_t i = 0; i < islands; ++i)
                if (!ranked[i].empty()) island_start_[i] = merged[ranked[i][0]];
            single_start_ = true;
            return;
        }
        case Exchange::population: {
            const auto width = static_cast<std::size_t>(build_.problem->solution_width());
            std::vector<std::int32_t> rows(width * chains);
            runner.best_solutions(rows);
            population_->update(rows, width, values);
            std::vector<std::int32_t> first(width * chains);
            std::vector<std::int32_t> second(width * chains);
            Rng rng(derive_key(seed_, round, salt::kChainPopulation), 0);
            for (std::uint32_t c = 0; c < chains; ++c) {
                const auto [a, b] = population_->parents(rng);
                std::ranges::copy(population_->row(a), first.begin() + c * width);
                std::ranges::copy(population_->row(b), second.begin() + c * width);
            }
            runner.restart_from(first, second, round);
            return;
        }
        }
    }

    /// cross_islands: the best island's leader takes in every other island's leader (the
    /// runner's merge: the better parent improved by the other's shorter interchangeable
    /// parts), one fold after the other; the other islands keep their own leaders, so each
    /// stays in its own region while the best tour gains what the others found.
    static void fold_islands(ChainRunner& runner, std::span<const std::uint32_t> heads,
                             std::span<const std::int64_t> values, std::uint64_t round) {
        std::uint64_t step = 0;
        for (const auto& [target, other] : island_folds(heads, values)) {
            const std::uint32_t slot[1] = {target};
            const std::uint32_t from[1] = {other};
            // NOTE: 64 seeds per round are the merge tree's; the folds take the ones above.
            runner.merge(slot, from, round * 64 + 32 + step++);
        }
    }

    void check(ChainRunner& runner) const {
        const ChainCheck failure = runner.check();
        if (failure.failed)
            throw Error(fmt::format("check_moves: {} chain {} after a move of neighborhood {} has "
                                    "objective {} by delta but {} by full evaluation",
                                    spec_->name, failure.chain, failure.neighborhood,
                                    failure.by_delta, failure.full));
    }

    std::shared_ptr<const ChainSearchSpec> spec_;
    Params params_;
    BuildContext build_;
    ChainSearchOptions options_;
    std::uint64_t seed_ = 0;
    std::unique_ptr<Population> population_;
    /// merge: whether every chain of an island started the epoch from one solution (not so
    /// after a (re)start), and that solution's objective per island.
    bool single_start_ = false;
    std::vector<std::int64_t> island_start_;
    std::unique_ptr<Algorithm> start_;
    std::unique_ptr<Construction> restart_;
};

} // namespace

std::vector<std::uint32_t> island_leaders(std::span<const std::int64_t> values,
                                          std::uint32_t islands) {
    const auto chains = static_cast<std::uint32_t>(values.size());
    std::vector<std::uint32_t> sources(chains);
    for (std::uint32_t i = 0; i < islands; ++i) {
        const auto [begin, end] = island_range(i, islands, chains);
        if (begin == end) continue;
        const auto leader = static_cast<std::uint32_t>(
            std::min_element(values.begin() + begin, values.begin() + end) - values.begin());
        std::fill(sources.begin() + begin, sources.begin() + end, leader);
    }
    return sources;
}

std::vector<std::pair<std::uint32_t, std::uint32_t>>
island_folds(std::span<const std::uint32_t> leaders, std::span<const std::int64_t> values) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> folds;
    if (leaders.empty()) return folds;
    std::size_t best = 0;
    for (std::size_t i = 1; i < leaders.size(); ++i)
        if (values[leaders[i]] < values[leaders[best]]) best = i;
    for (std::size_t i = 0; i < leaders.size(); ++i)
        if (i != best) folds.emplace_back(leaders[best], leaders[i]);
    return folds;
}

void register_chain_search(Registry& registry, ChainSearchSpec spec) {
    ComponentSchema schema{"algorithm", spec.name, spec.problem, spec.doc};
    if (spec.parameters) spec.parameters(schema);
    schema.component("start", "algorithm", "",
                     "algorithm run before the chains start: on the best constructed solution "
                     "(exchange copy_best) or on every one, e.g. a parallel VND over the whole "
                     "candidate neighborhood, which reaches a local optimum of 10^5+ cities far "
                     "sooner than one chain's descent; none by default");
    schema.component("restart_construction", "construction", "",
                     "construction of the chains' solutions at a restart (restart > 0), e.g. "
                     "{name: greedy}: a start unlike the run's construction leads the chains "
                     "into other regions");
    schema.integer("epoch", "20", "iterations per chain between exchanges", 1, 1000000)
        .choice("acceptance", "better", {"better", "threshold", "annealing"},
                "better: trial <= current; threshold: trial <= current + threshold x start "
                "objective; annealing: Metropolis at temperature x start objective x cooling^it")
        .real("threshold", "0.001", "threshold acceptance: share of the start objective", 0.0, 1.0)
        .real("temperature", "0.0005",
              "annealing: initial temperature, share of the start "
              "objective",
              0.0, 1.0)
        .real("cooling", "0.9999", "annealing: temperature factor per iteration", 0.5, 1.0)
        .choice("exchange", "copy_best",
                {"none", "copy_best", "elite", "recombine", "population", "merge"},
                "before every epoch: none, every chain from the best (copy_best), chain c from "
                "the (c mod elite)-th best distinct chain (elite), from a recombination of two "
                "elite chains (recombine), or from a recombination of two parents drawn by "
                "binary tournament from a population kept by cost and diversity (population; "
                "the chains' bests since their restart are its children), or from the fold "
                "of every chain's best into one by pairwise recombination, the better parent "
                "first (merge)")
        .integer("elite", "8",
                 "elite pool size (elite, recombine); members protected by cost in the "
                 "population's biased fitness (population)",
                 1, 1048576)
        .integer("population", "25", "population: members kept after every epoch", 2, 100000)
        .integer("generation", "64",
                 "population: most children (the cheapest chains' bests) admitted per epoch", 1,
                 1048576)
        .boolean("child_descent", "false",
                 "population: a restarted chain first descends from every element of its "
                 "child, as from a start (false: its first kick and descent educate it)")
        .choice("pivot", "best", {"best", "first"},
                "pivoting rule of every exploration of the chains' descents: best (smallest "
                "delta) or first (lowest-index improving move)")
        .choice("mapping", "block", {"block", "thread"},
                "CUDA: one block per chain (the block shares each exploration) or one thread per "
                "chain (Delévacq et al.'s FI-thread; TSP chains); the CPU twin runs a chain per core "
                "either way")
        .integer("restart", "0",
                 "epochs in which no chain improves on the chains' best since their start after "
                 "which every chain starts again from a solution of restart_construction (the "
                 "run's best is kept); 0 = never",
                 0, 1000000000)
        .integer("islands", "1",
                 "exchange copy_best or merge: the chains form this many islands of consecutive "
                 "chains (chains [i N / I, (i + 1) N / I)), each continuing from its own leader "
                 "(merge: the fold of its chains), so "
                 "islands started differently (construction mixed) search different regions; "
                 "restarts stay common to all",
                 1, 1048576)
        .boolean("cross_islands", "false",
                 "islands: after every epoch the best island's leader also takes the shorter "
                 "interchangeable parts of every other island's leader (the problem's "
                 "recombination, as merge); the other islands keep their own leaders")
        .integer("close", "5",
                 "population: nearest members a member's diversity contribution averages over", 1,
                 1000);
    auto owned = std::make_shared<ChainSearchSpec>(std::move(spec));
    registry.add(schema, [owned](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
        if (b.problem == nullptr)
            throw ConfigError(fmt::format("{} needs a loaded problem", owned->name));
        ChainSearchOptions o;
        o.epoch = static_cast<std::uint32_t>(p.get_int("epoch"));
        const std::string& acceptance = p.get_string("acceptance");
        o.acceptance = acceptance == "threshold"   ? AcceptanceKind::threshold
                       : acceptance == "annealing" ? AcceptanceKind::annealing
                                                   : AcceptanceKind::better_or_equal;
        o.threshold = p.get_real("threshold");
        o.temperature = p.get_real("temperature");
        o.cooling = p.get_real("cooling");
        const std::string& exchange = p.get_string("exchange");
        o.exchange = exchange == "none"        ? Exchange::none
                     : exchange == "elite"     ? Exchange::elite
                     : exchange == "recombine"  ? Exchange::recombine
                     : exchange == "population" ? Exchange::population
                     : exchange == "merge"      ? Exchange::merge
                                                : Exchange::copy_best;
        o.elite = static_cast<std::uint32_t>(p.get_int("elite"));
        o.population.size = static_cast<std::size_t>(p.get_int("population"));
        o.population.generation = static_cast<std::size_t>(p.get_int("generation"));
        o.population.close = static_cast<std::size_t>(p.get_int("close"));
        o.child_descent = p.get_bool("child_descent");
        o.first_improvement = p.get_string("pivot") == "first";
        o.thread_per_chain = p.get_string("mapping") == "thread";
        o.population.elite = o.elite;
        if (o.exchange == Exchange::population && !owned->distance)
            throw ConfigError(fmt::format(
                "{}: exchange: population needs a distance between solutions, which this "
                "problem's chains do not have; use copy_best, elite, recombine or none",
                owned->name));
        o.restart = static_cast<std::uint64_t>(p.get_int("restart"));
        if (o.restart > 0 && !p.has("restart_construction"))
            throw ConfigError(fmt::format(
                "{}.restart: {} epochs needs a restart_construction, the construction the chains "
                "restart from (e.g. restart_construction: {{name: greedy}})",
                p.path(), o.restart));
        o.islands = static_cast<std::uint32_t>(p.get_int("islands"));
        if (o.islands > 1 && o.exchange != Exchange::copy_best && o.exchange != Exchange::merge)
            throw ConfigError(fmt::format("{}.islands: {} islands work with exchange copy_best "
                                          "or merge (exchange is {})",
                                          p.path(), o.islands, exchange));
        if (b.batch > 0) check_islands(p, o.islands, b.batch);
        o.cross_islands = p.get_bool("cross_islands");
        if (o.cross_islands && o.islands < 2)
            throw ConfigError(fmt::format("{}.cross_islands: folds islands into each other and "
                                          "needs islands >= 2 (islands is {})",
                                          p.path(), o.islands));
        std::unique_ptr<Algorithm> start;
        if (p.has("start"))
            start = b.registry->create<Algorithm>(p.get_component("start"), b);
        std::unique_ptr<Construction> restart;
        if (p.has("restart_construction"))
            restart = b.registry->create<Construction>(p.get_component("restart_construction"), b);
        return std::make_unique<ChainSearch>(owned, p, b, o, std::move(start), std::move(restart));
    });
}

} // namespace locus::gpu
