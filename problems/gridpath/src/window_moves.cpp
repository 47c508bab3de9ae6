#include "locus/gridpath/window_moves.hpp"
#include "locus/search_context.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <string>

#include "locus/error.hpp"

namespace locus::gridpath {

GridMovesPolicy make_policy(const Instance& instance, const WindowMovesOptions& options,
                            const std::uint8_t* blocked, const std::int32_t* goals,
                            const LoadGoal* load_goals) {
    if (options.window < 3 || options.window % 2 == 0)
        throw ConfigError(fmt::format("window_moves: window {} must be odd and >= 3 (the agent "
                                      "sits in the middle of the window)",
                                      options.window));
    check_load(options.load);
    // NOTE: the policy packs cells as x | y << 16 and indexes cells with 32-bit integers.
    if (instance.grid.width > 65535 || instance.grid.height > 65535 ||
        static_cast<std::int64_t>(instance.grid.width) * instance.grid.height > 0x7FFFFFFF)
        throw ConfigError(fmt::format("window_moves: grid {} x {} is too large (at most 65535 "
                                      "cells per side and 2^31 - 1 cells)",
                                      instance.grid.width, instance.grid.height));
    GridMovesPolicy policy;
    policy.blocked = blocked;
    policy.goals = goals;
    policy.load_goals = load_goals;
    policy.load_copy = options.load > 1 ? load_copy(instance.agents.size(), options.load) : 0;
    policy.width = instance.grid.width;
    policy.height = instance.grid.height;
    policy.agents = static_cast<std::int32_t>(instance.agents.size());
    policy.window = options.window;
    policy.load = options.load;
    policy.greed = options.greed;
    return policy;
}

std::vector<std::int32_t> goal_words(const Instance& instance) {
    std::vector<std::int32_t> goals;
    for (const Agent& a : instance.agents) {
        goals.push_back(a.goal_x);
        goals.push_back(a.goal_y);
    }
    return goals;
}

namespace {

class CpuExpander final : public MoveExpander {
public:
    CpuExpander(const Instance& instance, const WindowMovesOptions& options)
        : goals_(goal_words(instance)), load_goals_(make_load_goals(goals_, options.load)),
          policy_(make_policy(instance, options, instance.grid.blocked.data(), goals_.data(),
                              load_goals_.data())),
          threads_(options.threads) {}

    const std::int32_t* expand(const std::int32_t* slots, std::uint32_t count, std::uint32_t k,
                               std::uint64_t seed, std::uint64_t first) override {
        const std::uint32_t needed = count * k;
        if (!engine_ || capacity_ < needed) {
            capacity_ = std::max(needed, capacity_ * 2);
            engine_ = std::make_unique<gpu::CpuSuccessorEngine<GridMovesPolicy>>(
                policy_, capacity_, gpu::SuccessorConfig{}, threads_);
        }
        engine_->load(slots, count);
        engine_->generate(k, seed, first);
        return engine_->slots();
    }
    // NOTE: 2^14 states take a few tenths of a second on a few cores (65,536 x 8 states of 32
    // agents took 12 s).
    std::uint32_t part_states() const override { return 1u << 14; }

private:
    std::vector<std::int32_t> goals_;
    std::vector<LoadGoal> load_goals_;
    GridMovesPolicy policy_;
    int threads_;
    std::uint32_t capacity_ = 0;
    std::unique_ptr<gpu::CpuSuccessorEngine<GridMovesPolicy>> engine_;
};

} // namespace

std::unique_ptr<MoveExpander> make_cpu_expander(const Instance& instance,
                                                const WindowMovesOptions& options) {
    return std::make_unique<CpuExpander>(instance, options);
}

WindowMoves::WindowMoves(const GridpathProblem& problem, const WindowMovesOptions& options,
                         Backend backend)
    : problem_(problem),
      // make_policy validates the options before the expander touches a device.
      layout_(gpu::successor_layout(
          make_policy(problem.instance(), options, nullptr, nullptr, nullptr))),
      expander_(backend == Backend::cuda ? make_cuda_expander(problem.instance(), options)
                                         : make_cpu_expander(problem.instance(), options)) {}

void WindowMoves::expand(const SolutionBatch& sources, std::uint32_t per_source, std::uint64_t seed,
                         SolutionBatch& out) {
    const auto agents = static_cast<std::int32_t>(problem_.size());
    const auto count = static_cast<std::uint32_t>(sources.count());
    // State slots: agent cells and moves (the solution encoding), then every agent not on its
    // goal active.
    std::vector<std::int32_t> slots(static_cast<std::size_t>(count) * layout_.slot_words, 0);
    for (std::uint32_t s = 0; s < count; ++s) {
        std::int32_t* slot = slots.data() + static_cast<std::size_t>(s) * layout_.slot_words;
        const auto source = sources[s];
        std::copy(source.begin(), source.end(), slot);
        for (std::int32_t a = 0; a < agents; ++a) {
            const Agent& agent = problem_.instance().agents[static_cast<std::size_t>(a)];
            const bool home = slot[2 * a] == agent.goal_x && slot[2 * a + 1] == agent.goal_y;
            layout_.set_active(slot, static_cast<std::uint32_t>(a), !home);
        }
    }
    // NOTE: a generation of many states is expanded in parts, between which the process-wide
    // stop flag is read: once the limit has passed, the states of the parts done are the
    // generation (the search then ends with the best of them). Clones are numbered across
    // parts, so the parts give the states of one whole expansion.
    const std::uint32_t per_part = std::max<std::uint32_t>(expander_->part_states() / per_source, 1);
    out = SolutionBatch(static_cast<std::size_t>(count) * per_source, sources.width());
    std::size_t total = 0;
    for (std::uint32_t begin = 0; begin < count; begin += per_part) {
        if (begin > 0 && stop_requested()) break;
        const std::uint32_t part = std::min(per_part, count - begin);
        const std::int32_t* next =
            expander_->expand(slots.data() + static_cast<std::size_t>(begin) * layout_.slot_words,
                              part, per_source, seed, static_cast<std::uint64_t>(begin) * per_source);
        const std::size_t made = static_cast<std::size_t>(part) * per_source;
        for (std::size_t t = 0; t < made; ++t) {
            std::copy_n(next + t * layout_.slot_words, sources.width(), out[total + t].begin());
            out.objective(total + t) = problem_.evaluate(out[total + t]);
        }
        total += made;
    }
    if (total < out.count()) {
        SolutionBatch done(total, sources.width());
        for (std::size_t t = 0; t < total; ++t)
            done.copy_from(t, out, t);
        out = std::move(done);
    }
}

} // namespace locus::gridpath
