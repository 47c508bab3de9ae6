// Repeated runs over seeds: runs an algorithm `runs` times, each run from fresh initial
// solutions built with the job's construction and keyed by the run's own seed. Every run gets
// its own results line, trace and solution file.

#include <memory>

#include "locus/algorithm.hpp"
#include "locus/error.hpp"
#include "locus/params.hpp"
#include "locus/params_check.hpp"
#include "locus/plugin.hpp"
#include "locus/registry.hpp"
#include "locus/search_context.hpp"

namespace locus {
namespace {

/// Refuses a repeat nested in another algorithm (checked while the config is composed).
void check_repeat(const Params& params) {
    // NOTE: a run is the unit of the results (its seed, limits, line and files); an algorithm
    // nested in another runs inside one run and cannot start new ones.
    if (params.path() != "algorithm")
        throw params_error(params, "",
                           "repeat starts whole runs, so it must be the job's algorithm, not "
                           "nested in another; put the other algorithm inside repeat instead");
}

class Repeat final : public Algorithm {
public:
    Repeat(const Params& params, BuildContext& build)
        : algorithm_(build.registry->create<Algorithm>(params.get_component("algorithm"), build)),
          runs_(static_cast<std::uint32_t>(params.get_int("runs"))) {}

    void run(SolutionBatch& batch, SearchContext& ctx) override {
        for (std::uint32_t r = 0; r < runs_; ++r) {
            // A set-up phase ended by the run's limit (Stopped) ends that run only: without a
            // solution when it was the construction, with the constructed ones otherwise.
            if (r > 0) {
                if (interrupt_requested()) return;
                ctx.next_run();
                try {
                    ctx.construct(batch);
                } catch (const Stopped&) {
                    ctx.should_stop();
                    continue;
                }
            }
            ctx.offer(batch);
            try {
                algorithm_->run(batch, ctx);
            } catch (const Stopped&) {
                ctx.should_stop();
            }
        }
    }

private:
    std::unique_ptr<Algorithm> algorithm_;
    std::uint32_t runs_;
};

void register_components(Registry& registry) {
    ComponentSchema repeat{"algorithm", "repeat", "",
                           "Independent runs of an algorithm over derived seeds; one results "
                           "line per run. Termination limits apply to each run."};
    repeat.component("algorithm", "algorithm", "", "algorithm of each run").required();
    repeat.integer("runs", "10", "number of runs", 1, 1000000);
    registry.add(repeat,
                 CheckedFactory{check_repeat,
                                [](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
                                    return std::make_unique<Repeat>(p, b);
                                }});
}

} // namespace
} // namespace locus

LOCUS_PLUGIN("repeat", "Repeated runs of an algorithm over seeds", locus::register_components)
