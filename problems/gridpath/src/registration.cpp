// The grid-path components: problem, start construction and the FANG beam search.

#include <memory>

#include "locus/algorithm.hpp"
#include "locus/error.hpp"
#include "locus/gridpath/beam_search.hpp"
#include "locus/gridpath/gridpath_problem.hpp"
#include "locus/params.hpp"
#include "locus/registry.hpp"
#include "locus/search_context.hpp"

namespace locus::gridpath {
namespace {

const GridpathProblem& gridpath_of(const BuildContext& build) {
    // NOTE: gridpath-scoped components only exist for problem "gridpath" (Registry).
    if (build.problem == nullptr || build.problem->problem_name() != "gridpath")
        throw ConfigError("grid-path components need a loaded grid-path problem");
    return static_cast<const GridpathProblem&>(*build.problem);
}

/// Every solution of the batch: the start state.
class StartState final : public Construction {
public:
    explicit StartState(const GridpathProblem& problem) : problem_(problem) {}
    void construct(SolutionBatch& batch, std::uint64_t) override {
        const auto start = problem_.start_state();
        for (std::size_t i = 0; i < batch.count(); ++i) {
            std::copy(start.begin(), start.end(), batch[i].begin());
            batch.objective(i) = problem_.evaluate(batch[i]);
        }
    }

private:
    const GridpathProblem& problem_;
};

/// Beam search over FANG successors from the start state (the batch's first solution is
/// replaced by the best state found).
class BeamSearch final : public Algorithm {
public:
    BeamSearch(const GridpathProblem& problem, BeamOptions options, Backend backend)
        : problem_(problem), options_(options), backend_(backend) {}

    void run(SolutionBatch& batch, SearchContext& ctx) override {
        ctx.offer(batch);
        BeamOptions options = options_;
        options.seed = ctx.seed();
        const auto on_step = [&](const BeamResult& r) {
            ctx.add_iterations(1);
            std::vector<std::int32_t> state = r.positions;
            state.push_back(static_cast<std::int32_t>(r.total_moves));
            ctx.offer(state, problem_.evaluate(state));
            return ctx.should_stop();
        };
        const BeamResult result = backend_ == Backend::cuda
                                      ? beam_search_cuda(problem_.instance(), options, on_step)
                                      : beam_search_cpu(problem_.instance(), options, on_step);
        if (result.solved) ctx.set_converged();
        if (ctx.has_best()) {
            const auto best = ctx.best_solution();
            std::copy(best.begin(), best.end(), batch[0].begin());
            batch.objective(0) = ctx.best_objective();
        }
    }

private:
    const GridpathProblem& problem_;
    BeamOptions options_;
    Backend backend_;
};

} // namespace

void register_gridpath_components(Registry& registry) {
    ComponentSchema problem{"problem", "gridpath", "",
                            "Multi-agent movement on a 2D grid (FANG's evaluation domain): agents "
                            "move within a window around them towards their goals; objective = "
                            "moves + 10^6 x remaining Manhattan distance."};
    problem.string("instance", "", "'random-grid:size=S,agents=A,obstacles=D,seed=N' or a Moving AI .map file")
        .required();
    problem.string("scenario", "\"\"", "Moving AI .scen file with the agents (for .map instances)");
    problem.integer("agents", "0", "use the first N agents of the scenario (0 = all)", 0);
    problem.file_extensions = {".map"};
    registry.add(problem, [](const Params& p, BuildContext&) -> std::unique_ptr<Component> {
        return GridpathProblem::load(p.get_string("instance"), p.get_string("scenario"),
                                     p.get_int("agents"));
    });

    ComponentSchema start{"construction", "start", "gridpath", "Every agent on its start cell."};
    registry.add(start, [](const Params&, BuildContext& b) -> std::unique_ptr<Component> {
        return std::make_unique<StartState>(gridpath_of(b));
    });

    ComponentSchema beam{"algorithm", "beam_search", "gridpath",
                         "Beam search over FANG successors: every state is expanded into "
                         "`successors` states by the successor engine, the best `width` (least "
                         "remaining distance, then fewest moves) are kept; stops when all agents "
                         "are on their goals. Iterations count beam steps."};
    beam.integer("width", "64", "states kept per step (|X|)", 1, 65536);
    beam.integer("successors", "8", "successors per state", 1, 4096);
    beam.integer("window", "5", "j: agents move within the j x j window (odd, |R| = j*j-1)", 3, 181);
    beam.integer("load", "1", "distance evaluations per rating (FANG's load factor)", 1, 1024);
    beam.integer("greed", "2", "weight = (max - d + 1)^greed over allowed cells (0 = uniform)", 0, 4);
    beam.integer("max_steps", "100000", "most beam steps", 1);
    registry.add(beam, [](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
        BeamOptions o;
        o.width = static_cast<std::int32_t>(p.get_int("width"));
        o.successors = static_cast<std::int32_t>(p.get_int("successors"));
        o.window = static_cast<std::int32_t>(p.get_int("window"));
        if (o.window % 2 == 0)
            throw ConfigError(p.path() + ".window: " + std::to_string(o.window) +
                              " must be odd (the agent sits in the middle of the window)");
        o.load = static_cast<std::int32_t>(p.get_int("load"));
        o.greed = static_cast<std::int32_t>(p.get_int("greed"));
        o.max_steps = static_cast<std::int32_t>(p.get_int("max_steps"));
        o.threads = b.threads;
        return std::make_unique<BeamSearch>(gridpath_of(b), o, b.backend);
    });
}

} // namespace locus::gridpath
