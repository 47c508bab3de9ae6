// The grid-path components: problem, start construction and the FANG successor generator.

#include <fmt/format.h>
#include <memory>

#include "locus/error.hpp"
#include "locus/gridpath/window_moves.hpp"
#include "locus/gridpath/gridpath_problem.hpp"
#include "locus/params.hpp"
#include "locus/registry.hpp"

namespace locus::gridpath {
namespace {

const GridpathProblem& gridpath_of(const BuildContext& build) {
    return problem_as<GridpathProblem>(build, "gridpath", "this grid-path component");
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

} // namespace

void register_gridpath_components(Registry& registry) {
    ComponentSchema problem{"problem", "gridpath", "",
                            "Multi-agent movement on a 2D grid (FANG's evaluation domain): agents "
                            "move within a window around them towards their goals; objective = "
                            "moves + 10^6 x remaining Manhattan distance."};
    problem
        .string("instance", "",
                "'random-grid:size=S,agents=A,obstacles=D,seed=N' or a Moving AI .map file")
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

    ComponentSchema moves{
        "successor_generator", "window_moves", "gridpath",
        "FANG successor generation: every agent not on its goal moves to one of "
        "the j*j-1 cells of the j x j window around it, drawn by Manhattan "
        "distance to its goal (cells outside the grid, blocked or held by another "
        "agent are forbidden); CPU twin or CUDA engine by backend."};
    moves.integer("window", "5", "j: agents move within the j x j window (odd, |R| = j*j-1)", 3,
                  181);
    moves.integer("load", "1", "distance evaluations per rating (FANG's load factor)", 1, 1024);
    moves.integer("greed", "2", "weight = (max - d + 1)^greed over allowed cells (0 = uniform)", 0,
                  4);
    registry.add(moves, [](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
        WindowMovesOptions o;
        o.window = static_cast<std::int32_t>(p.get_int("window"));
        if (o.window % 2 == 0)
            throw ConfigError(fmt::format("{}.window: {} must be odd (the agent sits in the middle "
                                          "of the window)",
                                          p.path(), o.window));
        o.load = static_cast<std::int32_t>(p.get_int("load"));
        o.greed = static_cast<std::int32_t>(p.get_int("greed"));
        o.threads = b.threads;
        return std::make_unique<WindowMoves>(gridpath_of(b), o, b.backend);
    });
}

} // namespace locus::gridpath
