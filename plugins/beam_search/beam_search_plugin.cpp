// Beam search over generated successors: every state of the beam is expanded by the problem's
// successor generator (FANG), the successors are ranked by objective (ties: lowest index), the
// best `width` form the next beam; it stops at a goal state or when the budget ends.

#include <algorithm>
#include <memory>
#include <numeric>
#include <vector>

#include "locus/algorithm.hpp"
#include "locus/params.hpp"
#include "locus/plugin.hpp"
#include "locus/registry.hpp"
#include "locus/rng.hpp"
#include "locus/rng_salts.hpp"
#include "locus/search_context.hpp"
#include "locus/successor.hpp"

namespace locus {
namespace {

class BeamSearch final : public Algorithm {
public:
    BeamSearch(const Params& params, BuildContext& build)
        : generator_(
              build.registry->create<SuccessorGenerator>(params.get_component("generator"), build)),
          width_(static_cast<std::size_t>(params.get_int("width"))),
          successors_(static_cast<std::uint32_t>(params.get_int("successors"))),
          max_steps_(static_cast<std::uint64_t>(params.get_int("max_steps"))),
          trajectory_(params.get_bool("trajectory")) {}

    void run(SolutionBatch& batch, SearchContext& ctx) override {
        SolutionBatch beam(std::min(width_, batch.count()), batch.width());
        for (std::size_t i = 0; i < beam.count(); ++i)
            beam.copy_from(i, batch, i);
        // The beams of every step and each state's parent in the previous beam, to hand the
        // run the states that lead to its best solution (SearchContext::set_trajectory).
        std::vector<SolutionBatch> beams;
        std::vector<std::vector<std::uint32_t>> parents;
        std::size_t best_step = 0;
        std::size_t best_index = 0;
        const auto offer = [&](std::size_t step) {
            std::size_t leader = 0;
            for (std::size_t i = 1; i < beam.count(); ++i)
                if (beam.objective(i) < beam.objective(leader)) leader = i;
            if (ctx.offer(beam[leader], beam.objective(leader))) {
                best_step = step;
                best_index = leader;
            }
        };
        ctx.offer(batch);
        offer(0);
        if (trajectory_) {
            beams.push_back(beam);
            parents.emplace_back(beam.count(), 0u);
        }
        SolutionBatch next;
        std::vector<std::size_t> order;
        for (std::uint64_t step = 0; max_steps_ == 0 || step < max_steps_; ++step) {
            if (reached_goal(beam)) {
                ctx.set_converged();
                break;
            }
            if (ctx.should_stop()) break;
            generator_->expand(beam, successors_, derive_key(ctx.seed(), step, salt::kBeamExpansion),
                               next);
            ctx.add_evaluations(next.count());
            order.resize(next.count());
            std::iota(order.begin(), order.end(), std::size_t{0});
            const std::size_t keep = std::min(width_, next.count());
            std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep),
                              order.end(), [&](std::size_t a, std::size_t b) {
                                  return next.objective(a) != next.objective(b)
                                             ? next.objective(a) < next.objective(b)
                                             : a < b;
                              });
            beam = SolutionBatch(keep, next.width());
            for (std::size_t i = 0; i < keep; ++i)
                beam.copy_from(i, next, order[i]);
            ctx.add_iterations(1);
            offer(static_cast<std::size_t>(step) + 1);
            if (trajectory_) {
                beams.push_back(beam);
                // Successor t of an expansion comes from source t / successors.
                std::vector<std::uint32_t> from(keep);
                for (std::size_t i = 0; i < keep; ++i)
                    from[i] = static_cast<std::uint32_t>(order[i] / successors_);
                parents.push_back(std::move(from));
            }
        }
        if (trajectory_ && ctx.has_best() && best_step < beams.size()) {
            std::vector<std::vector<std::int32_t>> states(best_step + 1);
            std::size_t index = best_index;
            for (std::size_t t = best_step + 1; t-- > 0;) {
                const auto state = beams[t][index];
                states[t].assign(state.begin(), state.end());
                index = parents[t][index];
            }
            ctx.set_trajectory(std::move(states));
        }
        for (std::size_t i = 0; i < std::min(beam.count(), batch.count()); ++i)
            batch.copy_from(i, beam, i);
    }

private:
    bool reached_goal(const SolutionBatch& beam) const {
        for (std::size_t i = 0; i < beam.count(); ++i)
            if (generator_->is_goal(beam[i])) return true;
        return false;
    }

    std::unique_ptr<SuccessorGenerator> generator_;
    std::size_t width_;
    std::uint32_t successors_;
    std::uint64_t max_steps_;
    bool trajectory_;
};

void register_components(Registry& registry) {
    ComponentSchema beam{
        "algorithm", "beam_search", "",
        "Beam search: every state of the beam is expanded into `successors` states "
        "by the problem's successor generator; the best `width` by objective (ties: "
        "lowest index) form the next beam; stops at a goal state. Starts from the "
        "first `width` initial solutions. Iterations count beam steps."};
    beam.component("generator", "successor_generator", "", "successor generator of the problem")
        .required();
    beam.integer("width", "64", "states kept per step (|X|)", 1, 1048576);
    beam.integer("successors", "8", "successors per state", 1, 65536);
    beam.integer("max_steps", "0", "most beam steps (0 = until a goal or the termination limits)",
                 0);
    beam.boolean("trajectory", "true",
                 "keep every beam to report the states leading to the best solution (a path file "
                 "for problems that write one)");
    registry.add(beam, [](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
        return std::make_unique<BeamSearch>(p, b);
    });
}

} // namespace
} // namespace locus

LOCUS_PLUGIN("beam_search", "Beam search over FANG successor generation",
             locus::register_components)
