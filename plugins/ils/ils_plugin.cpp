// Iterated local search: perturbation + local search + acceptance, on every solution of the
// batch in lock step (each solution is an independent chain).

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <utility>
#include <vector>

#include "acceptance.hpp"
#include "locus/algorithm.hpp"
#include "locus/error.hpp"
#include "locus/params.hpp"
#include "locus/params_check.hpp"
#include "locus/plugin.hpp"
#include "locus/problem.hpp"
#include "locus/registry.hpp"
#include "locus/rng.hpp"
#include "locus/rng_salts.hpp"
#include "locus/search_context.hpp"

namespace locus {
namespace {

/// Refuses soft restarts without a construction of the new solutions (checked while the config
/// is composed).
void check_ils(const Params& params) {
    if (params.get_int("soft_restart") != 0 && !params.has("restart_construction"))
        throw params_error(params, "soft_restart",
                           "soft restarts need a restart_construction (e.g. {name: random}) to "
                           "build the new solutions");
}

/// Iterated local search with the additions of Riise & Burke (2014): Combine of each new
/// local optimum with its chain's best (both improved), an adaptive number of perturbations
/// against cycling, and soft restarts from new solutions whose bests are kept in a pool (the
/// pool's solutions improve each new best, never the reverse).
class IteratedLocalSearch final : public Algorithm {
public:
    IteratedLocalSearch(const Params& params, BuildContext& build)
        : local_search_(
              build.registry->create<Algorithm>(params.get_component("local_search"), build)),
          perturbation_(
              build.registry->create<Perturbation>(params.get_component("perturbation"), build)),
          acceptance_(
              build.registry->create<Acceptance>(params.get_component("acceptance"), build)),
          restart_after_(static_cast<std::uint64_t>(params.get_int("restart_after"))),
          focused_(params.get_bool("focused")), adaptive_(params.get_bool("adaptive_strength")),
          history_(static_cast<std::size_t>(params.get_int("strength_history"))),
          max_strength_(static_cast<std::uint32_t>(params.get_int("max_strength"))),
          soft_restart_(params.get_int("soft_restart")),
          pool_size_(static_cast<std::size_t>(params.get_int("pool"))) {
        if (params.has("combination"))
            combination_ =
                build.registry->create<Combination>(params.get_component("combination"), build);
        if (params.has("restart_construction"))
            restart_construction_ = build.registry->create<Construction>(
                params.get_component("restart_construction"), build);
    }

    void run(SolutionBatch& batch, SearchContext& ctx) override {
        ctx.offer(batch);
        improve(batch, ctx);
        ctx.offer(batch);
        const std::size_t count = batch.count();
        SolutionBatch best = batch;    // best of each chain since its last restart
        SolutionBatch overall = batch; // best of each chain over all restarts
        SolutionBatch trial = batch;
        trial.set_focus_enabled(focused_);
        SolutionBatch spare = trial;
        SolutionBatch old = trial;
        std::vector<std::uint64_t> since_best(count, 0);
        std::vector<Chain> chains(count);
        std::vector<SolutionBatch> pool;
        const std::uint64_t restart_every = soft_restart_ < 0
                                                ? static_cast<std::uint64_t>(batch.width())
                                                : static_cast<std::uint64_t>(soft_restart_);
        std::uint64_t since_restart = 0;
        for (std::uint64_t iteration = 1; !ctx.should_stop(); ++iteration) {
            for (std::size_t i = 0; i < count; ++i)
                trial.copy_from(i, batch, i);
            // NOTE: everything is in focus unless the perturbation narrows it to what it changed.
            if (focused_)
                std::fill(trial.focus_data().begin(), trial.focus_data().end(), std::uint8_t{1});
            perturb(trial, spare, chains, iteration, ctx.seed());
            {
                NestedScope nested(ctx);
                local_search_->run(trial, ctx);
            }
            // NOTE: the local optimum the local search returned, before Combine changes it.
            if (adaptive_)
                for (std::size_t i = 0; i < count; ++i)
                    adapt(chains[i], trial.objective(i), iteration);
            if (combination_) {
                // Combine(s, b): the new local optimum and its chain's best improve each other.
                for (std::size_t i = 0; i < count; ++i) {
                    old.copy_from(i, trial, i);
                    combination_->combine(trial, i, best, i);
                    if (combination_->combine(best, i, old, i) < 0) since_best[i] = 0;
                }
                ctx.offer(best);
            }
            acceptance_->next_iteration(batch, trial);
            Rng rng(derive_key(ctx.seed(), iteration, salt::kIlsAcceptance), 0);
            for (std::size_t i = 0; i < count; ++i) {
                const double u = rng.uniform();
                if (acceptance_->accept(batch.objective(i), trial.objective(i), u))
                    batch.copy_from(i, trial, i);
                if (trial.objective(i) < best.objective(i)) {
                    best.copy_from(i, trial, i);
                    since_best[i] = 0;
                } else if (restart_after_ != 0 && ++since_best[i] >= restart_after_) {
                    // NOTE: a chain that stagnates returns to its best solution.
                    batch.copy_from(i, best, i);
                    since_best[i] = 0;
                }
            }
            ctx.add_iterations(1);
            ctx.offer(trial);
            if (restart_every != 0 && ++since_restart >= restart_every && !ctx.should_stop()) {
                since_restart = 0;
                soft_restart(batch, best, overall, pool, ctx, iteration);
                std::fill(since_best.begin(), since_best.end(), 0);
                chains.assign(count, Chain{});
            }
        }
        keep_better(overall, best);
        batch = overall;
    }

private:
    /// Adaptive perturbation state of one chain.
    struct Chain {
        std::uint32_t strength = 1;                             ///< perturbations per iteration
        std::deque<std::pair<Objective, std::uint64_t>> recent; ///< local optima, last seen
    };

    void improve(SolutionBatch& batch, SearchContext& ctx) {
        NestedScope nested(ctx);
        local_search_->run(batch, ctx);
    }

    /// Applies each chain's number of perturbations (1 without adaptive strength): round r
    /// perturbs the chains whose strength exceeds r, each round from its own random stream.
    void perturb(SolutionBatch& trial, SolutionBatch& spare, const std::vector<Chain>& chains,
                 std::uint64_t iteration, std::uint64_t seed) {
        std::uint32_t rounds = 1;
        for (const Chain& c : chains)
            rounds = std::max(rounds, adaptive_ ? c.strength : 1u);
        for (std::uint32_t r = 0; r < rounds; ++r) {
            const std::uint64_t key = derive_key(seed, iteration, salt::kIlsPerturbation + r);
            const bool all = std::all_of(chains.begin(), chains.end(), [&](const Chain& c) {
                return !adaptive_ || c.strength > r;
            });
            if (all) {
                perturbation_->perturb(trial, key);
                continue;
            }
            for (std::size_t i = 0; i < trial.count(); ++i)
                spare.copy_from(i, trial, i);
            perturbation_->perturb(spare, key);
            for (std::size_t i = 0; i < trial.count(); ++i)
                if (chains[i].strength > r) trial.copy_from(i, spare, i);
        }
    }

    /// Riise & Burke's adaptive diversification: a local optimum seen among the last
    /// `strength_history` ones raises the strength by the iterations since it was seen; a new
    /// one lowers it by the list's length (at least 1). Optima are told apart by objective.
    void adapt(Chain& chain, Objective optimum, std::uint64_t iteration) const {
        auto seen = std::find_if(chain.recent.begin(), chain.recent.end(),
                                 [&](const auto& entry) { return entry.first == optimum; });
        if (seen != chain.recent.end()) {
            const std::uint64_t raise = iteration - seen->second;
            chain.strength = static_cast<std::uint32_t>(
                std::min<std::uint64_t>(max_strength_, chain.strength + raise));
            chain.recent.erase(seen);
        } else {
            const auto lower = static_cast<std::uint32_t>(chain.recent.size());
            chain.strength = chain.strength > lower + 1 ? chain.strength - lower : 1;
        }
        chain.recent.emplace_back(optimum, iteration);
        while (chain.recent.size() > history_)
            chain.recent.pop_front();
    }

    /// Soft restart: each chain's best is improved with parts of the pool's solutions (the pool
    /// is left as it is), kept if it beats the chain's overall best and added to the pool; the
    /// chains then continue from new solutions after a local search.
    void soft_restart(SolutionBatch& batch, SolutionBatch& best, SolutionBatch& overall,
                      std::vector<SolutionBatch>& pool, SearchContext& ctx,
                      std::uint64_t iteration) {
        if (combination_) {
            for (const SolutionBatch& previous : pool)
                for (std::size_t i = 0; i < best.count(); ++i)
                    combination_->combine(best, i, previous, i);
            ctx.offer(best);
        }
        keep_better(overall, best);
        pool.push_back(best);
        if (pool.size() > pool_size_) pool.erase(pool.begin());
        restart_construction_->construct(batch,
                                         derive_key(ctx.seed(), iteration, salt::kIlsRestart));
        improve(batch, ctx);
        ctx.offer(batch);
        best = batch;
    }

    static void keep_better(SolutionBatch& into, const SolutionBatch& from) {
        for (std::size_t i = 0; i < into.count(); ++i)
            if (from.objective(i) < into.objective(i)) into.copy_from(i, from, i);
    }

    std::unique_ptr<Algorithm> local_search_;
    std::unique_ptr<Perturbation> perturbation_;
    std::unique_ptr<Acceptance> acceptance_;
    std::unique_ptr<Combination> combination_;
    std::unique_ptr<Construction> restart_construction_;
    std::uint64_t restart_after_;
    bool focused_;
    bool adaptive_;
    std::size_t history_;
    std::uint32_t max_strength_;
    std::int64_t soft_restart_;
    std::size_t pool_size_;
};

void register_components(Registry& registry) {
    ComponentSchema ils{"algorithm", "ils", "",
                        "Iterated local search: perturb, improve with a local search, accept; "
                        "each solution of the batch is an independent chain."};
    ils.component("local_search", "algorithm", "", "local search applied after each perturbation")
        .required();
    ils.component("perturbation", "perturbation", "", "perturbation of the current solution")
        .required();
    ils.component("acceptance", "acceptance", "better", "acceptance criterion");
    ils.integer("restart_after", "0",
                "iterations without a new best after which a chain returns to its best (0 = never)",
                0);
    ils.boolean("focused", "true",
                "after a perturbation, search only moves near what it changed (focus; used by "
                "neighborhoods that support it, e.g. candidate-list TSP moves)");
    ils.component("combination", "combination", "",
                  "Combine (Riise & Burke): each new local optimum and its chain's best exchange "
                  "their better interchangeable parts, e.g. {name: segment_exchange}; also "
                  "applied from the pool at soft restarts (none by default)");
    ils.boolean("adaptive_strength", "false",
                "perturb an adaptive number of times per iteration: raised by the iterations "
                "since a recently seen local optimum was last seen, lowered by the history's "
                "length after a new one");
    ils.integer("strength_history", "5", "local optima remembered per chain (adaptive_strength)", 1,
                1000);
    ils.integer("max_strength", "50", "most perturbations per iteration (adaptive_strength)", 1,
                100000);
    ils.integer("soft_restart", "0",
                "restart each chain from a new solution every this many iterations (-1 = the "
                "solution width n, the paper's interval; 0 = never); bests go to the pool",
                -1);
    ils.component("restart_construction", "construction", "",
                  "construction of the new solutions of soft restarts, e.g. {name: random}");
    ils.integer("pool", "50", "bests of earlier restarts kept for Combine (oldest dropped)", 0,
                100000);
    registry.add(ils,
                 CheckedFactory{check_ils,
                                [](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
                                    return std::make_unique<IteratedLocalSearch>(p, b);
                                }});
    register_acceptance(registry);
}

} // namespace
} // namespace locus

LOCUS_PLUGIN("ils", "Iterated local search with better / always / annealing acceptance",
             locus::register_components)
