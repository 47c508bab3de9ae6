// The grid-path successor generator on the CUDA successor engine.

#include <algorithm>
#include <vector>

#include "locus/gpu/device.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/successor_engine.cuh"
#include "locus/gridpath/window_moves.hpp"

namespace locus::gridpath {
namespace {

int select_device() {
    gpu::require_device(0);
    return 0;
}

class CudaExpander final : public MoveExpander {
public:
    CudaExpander(const Instance& instance, const WindowMovesOptions& options)
        : device_(select_device()), blocked_(instance.grid.blocked.size(), "grid cells") {
        blocked_.upload(instance.grid.blocked.data(), instance.grid.blocked.size());
        const std::vector<std::int32_t> goals = goal_words(instance);
        const std::vector<LoadGoal> load_goals = make_load_goals(goals, options.load);
        goals_.allocate(goals.size(), "agent goals");
        goals_.upload(goals.data(), goals.size());
        load_goals_.allocate(load_goals.size(), "agent goals of the load");
        load_goals_.upload(load_goals.data(), load_goals.size());
        policy_ =
            make_policy(instance, options, blocked_.data(), goals_.data(), load_goals_.data());
    }

    const std::int32_t* expand(const std::int32_t* slots, std::uint32_t count, std::uint32_t k,
                               std::uint64_t seed, std::uint64_t first) override {
        const std::uint32_t needed = count * k;
        if (!engine_ || capacity_ < needed) {
            capacity_ = std::max(needed, capacity_ * 2);
            engine_ = std::make_unique<gpu::SuccessorEngine<GridMovesPolicy>>(
                policy_, capacity_, gpu::SuccessorConfig{});
        }
        engine_->load(slots, count);
        engine_->generate(k, seed, nullptr, first);
        result_.resize(static_cast<std::size_t>(needed) * engine_->layout().slot_words);
        engine_->download(result_.data());
        return result_.data();
    }

    // NOTE: a device part is large (a launch of 2^20 states takes milliseconds).
    std::uint32_t part_states() const override { return 1u << 20; }

private:
    int device_;
    gpu::DeviceBuffer<std::uint8_t> blocked_;
    gpu::DeviceBuffer<std::int32_t> goals_;
    gpu::DeviceBuffer<LoadGoal> load_goals_;
    GridMovesPolicy policy_{};
    std::uint32_t capacity_ = 0;
    std::unique_ptr<gpu::SuccessorEngine<GridMovesPolicy>> engine_;
    std::vector<std::int32_t> result_;
};

} // namespace

std::unique_ptr<MoveExpander> make_cuda_expander(const Instance& instance,
                                                 const WindowMovesOptions& options) {
    return std::make_unique<CudaExpander>(instance, options);
}

} // namespace locus::gridpath
