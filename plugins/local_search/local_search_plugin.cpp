// Local search plugin: best/first-improvement descent over one neighborhood, and variable
// neighborhood descent (VND) over an ordered list of neighborhoods.

#include <memory>
#include <string>
#include <vector>

#include "locus/algorithm.hpp"
#include "locus/params.hpp"
#include "locus/plugin.hpp"
#include "locus/problem.hpp"
#include "locus/registry.hpp"
#include "locus/search_context.hpp"

namespace locus {
namespace {

Pivot parse_pivot(const std::string& text) { return text == "first" ? Pivot::first : Pivot::best; }

/// Runs `neighborhood` to a local optimum (or the stop condition) and books the work.
DescentStats descend(Neighborhood& neighborhood, SolutionBatch& batch, Pivot pivot,
                     std::uint64_t max_steps, SearchContext& ctx) {
    const DescentStats stats =
        neighborhood.descend(batch, pivot, max_steps, [&ctx] { return ctx.should_stop(); });
    ctx.add_evaluations(stats.evaluations);
    if (ctx.depth() == 0) ctx.add_iterations(stats.steps);
    return stats;
}

/// Repeatedly applies the best (or first) improving move of one neighborhood.
class Descent final : public Algorithm {
public:
    Descent(const Params& params, BuildContext& build)
        : neighborhood_(
              build.registry->create<Neighborhood>(params.get_component("neighborhood"), build)),
          pivot_(parse_pivot(params.get_string("pivot"))),
          max_steps_(static_cast<std::uint64_t>(params.get_int("max_steps"))) {}

    void run(SolutionBatch& batch, SearchContext& ctx) override {
        ctx.offer(batch);
        const DescentStats stats = descend(*neighborhood_, batch, pivot_, max_steps_, ctx);
        ctx.offer(batch);
        if (!stats.stopped && ctx.depth() == 0) ctx.set_converged();
    }

private:
    std::unique_ptr<Neighborhood> neighborhood_;
    Pivot pivot_;
    std::uint64_t max_steps_;
};

/// Variable neighborhood descent: descends in neighborhood k; after an improvement found by
/// neighborhood k > 0 restarts from the first one; ends when no neighborhood improves any
/// solution of the batch (every solution is then locally optimal for all neighborhoods).
class Vnd final : public Algorithm {
public:
    Vnd(const Params& params, BuildContext& build)
        : pivot_(parse_pivot(params.get_string("pivot"))) {
        for (const auto& child : params.get_components("neighborhoods"))
            neighborhoods_.push_back(build.registry->create<Neighborhood>(*child, build));
    }

    void run(SolutionBatch& batch, SearchContext& ctx) override {
        ctx.offer(batch);
        std::size_t k = 0;
        bool stopped = false;
        while (k < neighborhoods_.size()) {
            const DescentStats stats = descend(*neighborhoods_[k], batch, pivot_, 0, ctx);
            if (stats.stopped) {
                stopped = true;
                break;
            }
            k = (stats.steps > 0 && k > 0) ? 0 : k + 1;
        }
        ctx.offer(batch);
        if (!stopped && ctx.depth() == 0) ctx.set_converged();
    }

private:
    std::vector<std::unique_ptr<Neighborhood>> neighborhoods_;
    Pivot pivot_;
};

void register_components(Registry& registry) {
    ComponentSchema descent{"algorithm", "descent", "",
                            "Descent: applies the best (or lowest-index improving) move of one "
                            "neighborhood until no move improves."};
    descent.component("neighborhood", "neighborhood", "", "neighborhood to descend in").required();
    descent.choice("pivot", "best", {"best", "first"},
                   "best: minimal delta (ties: lowest index); first: lowest-index improving move");
    descent.integer("max_steps", "0",
                    "maximum number of explorations, each applying at most one move per solution "
                    "(0 = to a local optimum)",
                    0);
    registry.add(descent, [](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
        return std::make_unique<Descent>(p, b);
    });

    ComponentSchema vnd{"algorithm", "vnd", "",
                        "Variable neighborhood descent over an ordered list of neighborhoods."};
    vnd.component_list("neighborhoods", "neighborhood", "", "neighborhoods in order").required();
    vnd.choice("pivot", "best", {"best", "first"}, "pivoting rule of each descent");
    registry.add(vnd, [](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
        return std::make_unique<Vnd>(p, b);
    });
}

} // namespace
} // namespace locus

LOCUS_PLUGIN("local_search", "Descent (best/first improvement) and variable neighborhood descent",
             locus::register_components)
