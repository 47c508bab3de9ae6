// Iterated local search: perturbation + local search + acceptance, on every solution of the
// batch in lock step (each solution is an independent chain).

#include <algorithm>
#include <memory>
#include <vector>

#include "acceptance.hpp"
#include "locus/algorithm.hpp"
#include "locus/params.hpp"
#include "locus/plugin.hpp"
#include "locus/problem.hpp"
#include "locus/registry.hpp"
#include "locus/rng.hpp"
#include "locus/search_context.hpp"

namespace locus {
namespace {

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
          focused_(params.get_bool("focused")) {}

    void run(SolutionBatch& batch, SearchContext& ctx) override {
        ctx.offer(batch);
        {
            NestedScope nested(ctx);
            local_search_->run(batch, ctx);
        }
        ctx.offer(batch);
        SolutionBatch best = batch; // best of each chain
        SolutionBatch trial = batch;
        trial.set_focus_enabled(focused_);
        std::vector<std::uint64_t> since_best(batch.count(), 0);
        for (std::uint64_t iteration = 1; !ctx.should_stop(); ++iteration) {
            for (std::size_t i = 0; i < batch.count(); ++i)
                trial.copy_from(i, batch, i);
            // NOTE: everything is in focus unless the perturbation narrows it to what it changed.
            if (focused_)
                std::fill(trial.focus_data().begin(), trial.focus_data().end(), std::uint8_t{1});
            perturbation_->perturb(trial, derive_key(ctx.seed(), iteration, 0x70657274ull));
            {
                NestedScope nested(ctx);
                local_search_->run(trial, ctx);
            }
            acceptance_->next_iteration();
            Rng rng(derive_key(ctx.seed(), iteration, 0x61636370ull), 0);
            for (std::size_t i = 0; i < batch.count(); ++i) {
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
        }
        batch = best;
    }

private:
    std::unique_ptr<Algorithm> local_search_;
    std::unique_ptr<Perturbation> perturbation_;
    std::unique_ptr<Acceptance> acceptance_;
    std::uint64_t restart_after_;
    bool focused_;
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
    registry.add(ils, [](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
        return std::make_unique<IteratedLocalSearch>(p, b);
    });
    register_acceptance(registry);
}

} // namespace
} // namespace locus

LOCUS_PLUGIN("ils", "Iterated local search with better / always / annealing acceptance",
             locus::register_components)
