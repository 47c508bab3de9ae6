#include "locus/gridpath/beam_search.hpp"

#include "beam_driver.hpp"

namespace locus::gridpath {

BeamResult beam_search_cpu(const Instance& instance, const BeamOptions& options,
                           const std::function<bool(const BeamResult&)>& on_step) {
    detail::check_beam_options(options);
    const std::vector<std::int32_t> goals = detail::goal_words(instance);
    const GridMovesPolicy policy =
        detail::make_policy(instance, options, instance.grid.blocked.data(), goals.data());
    gpu::CpuSuccessorEngine<GridMovesPolicy> engine(
        policy, static_cast<std::uint32_t>(options.width * options.successors), {},
        options.threads);
    return detail::run_beam(engine, instance, options, gpu::successor_layout(policy), on_step);
}

} // namespace locus::gridpath
