// Beam search with the CUDA successor engine (one block per state).

#include "beam_driver.hpp"
#include "locus/gpu/device.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/successor_engine.cuh"

namespace locus::gridpath {

BeamResult beam_search_cuda(const Instance& instance, const BeamOptions& options,
                            const std::function<bool(const BeamResult&)>& on_step) {
    detail::check_beam_options(options);
    gpu::require_device(0);
    const std::vector<std::int32_t> goals = detail::goal_words(instance);
    gpu::DeviceBuffer<std::uint8_t> blocked(instance.grid.blocked.size(), "grid cells");
    blocked.upload(instance.grid.blocked.data(), instance.grid.blocked.size());
    gpu::DeviceBuffer<std::int32_t> device_goals(goals.size(), "agent goals");
    device_goals.upload(goals.data(), goals.size());
    const GridMovesPolicy policy =
        detail::make_policy(instance, options, blocked.data(), device_goals.data());
    gpu::SuccessorEngine<GridMovesPolicy> engine(
        policy, static_cast<std::uint32_t>(options.width * options.successors), {});
    return detail::run_beam(engine, instance, options, gpu::successor_layout(policy), on_step);
}

} // namespace locus::gridpath
