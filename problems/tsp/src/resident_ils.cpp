// The "resident_ils" algorithm of the TSP plugin: many ILS chains resident on the device (or on
// all CPU cores), synchronised after every epoch.

#include <algorithm>
#include <memory>

#include "locus/algorithm.hpp"
#include "locus/params.hpp"
#include "locus/registry.hpp"
#include "locus/search_context.hpp"
#include "locus/tsp/chain_runner.hpp"

namespace locus::tsp {
namespace {

class ResidentIls final : public Algorithm {
public:
    ResidentIls(const TspProblem& problem, ResidentIlsOptions options, Backend backend, int device,
                int threads)
        : problem_(problem), options_(options), backend_(backend), device_(device), threads_(threads) {}

    void run(SolutionBatch& batch, SearchContext& ctx) override {
        const auto chains = static_cast<std::uint32_t>(batch.count());
        auto runner = backend_ == Backend::cuda
                          ? make_cuda_chain_runner(problem_, options_, chains, device_)
                          : make_cpu_chain_runner(problem_, options_, chains, threads_);
        ctx.offer(batch);
        const std::function<bool()> stop = [&ctx] { return ctx.should_stop(); };
        // NOTE: with share_best every chain continues from the best tour after the first epoch,
        // so only the best constructed tour is worth a descent.
        std::int64_t only = -1;
        if (options_.share_best)
            for (std::size_t c = 0; c < batch.count(); ++c)
                if (only < 0 || batch.objective(c) < batch.objective(static_cast<std::size_t>(only)))
                    only = static_cast<std::int64_t>(c);
        runner->start(batch, stop, only);
        std::uint64_t counted = 0;
        auto report = [&]() -> std::uint32_t {
            const std::uint64_t evaluations = runner->evaluations();
            ctx.add_evaluations(evaluations - counted);
            counted = evaluations;
            const auto values = runner->best_objectives();
            const auto leader = static_cast<std::uint32_t>(
                std::min_element(values.begin(), values.end()) - values.begin());
            if (!ctx.has_best() || static_cast<Objective>(values[leader]) < ctx.best_objective()) {
                std::vector<std::int32_t> tour(problem_.size());
                runner->best_tour(leader, tour);
                ctx.offer(tour, static_cast<Objective>(values[leader]));
            }
            return leader;
        };
        std::uint32_t leader = report();
        for (std::uint64_t first = 0; !ctx.should_stop(); first += options_.epoch) {
            if (options_.share_best) runner->share(leader);
            runner->epoch(ctx.seed(), first, options_.epoch, stop);
            ctx.add_iterations(options_.epoch);
            leader = report();
        }
        for (std::uint32_t c = 0; c < chains; ++c) {
            runner->best_tour(c, batch[c]);
            batch.objective(c) = problem_.evaluate(batch[c]);
        }
    }

private:
    const TspProblem& problem_;
    ResidentIlsOptions options_;
    Backend backend_;
    int device_;
    int threads_;
};

} // namespace

void register_resident_ils(Registry& registry) {
    ComponentSchema schema{"algorithm", "resident_ils", "tsp",
                           "Resident iterated local search: one ILS chain per solution of the batch, "
                           "each running its whole loop (local double bridge, VND over candidate "
                           "2-opt and Or-opt with focus, better-or-equal acceptance) in one CUDA "
                           "block or one CPU thread; after every epoch all chains may continue "
                           "from the best tour. Iterations count ILS iterations per chain."};
    schema.integer("candidates", "10", "candidate-list size K", 1, 1024);
    schema.integer("window", "100", "double-bridge window in positions (0 = whole tour)", 0);
    schema.integer("epoch", "20", "ILS iterations per chain between synchronisations", 1, 1000000);
    schema.boolean("share_best", "true", "after every epoch, every chain continues from the best tour");
    registry.add(schema, [](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
        if (b.problem == nullptr || b.problem->problem_name() != "tsp")
            throw ConfigError("resident_ils needs a loaded TSP problem");
        const auto& problem = static_cast<const TspProblem&>(*b.problem);
        ResidentIlsOptions options;
        options.candidates = static_cast<std::int32_t>(
            std::min<std::int64_t>(p.get_int("candidates"), static_cast<std::int64_t>(problem.size()) - 1));
        options.window = static_cast<std::int32_t>(p.get_int("window"));
        options.epoch = static_cast<std::uint32_t>(p.get_int("epoch"));
        options.share_best = p.get_bool("share_best");
        return std::make_unique<ResidentIls>(problem, options, b.backend, b.device, b.threads);
    });
}

} // namespace locus::tsp
