// GridMovesPolicy rates every possibility of every agent on the device exactly as on the host,
// with a reachable load threshold so that the load's extra distance sums decide ratings (the
// device reads them with 16-byte loads from two goal copies; the host reads one copy).

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "locus/gpu/cuda_check.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gridpath/generator.hpp"
#include "locus/gridpath/gridpath_problem.hpp"
#include "locus/gridpath/moves_policy.hpp"
#include "locus/gridpath/window_moves.hpp"

using namespace locus;
using namespace locus::gridpath;

namespace {

__global__ void rate_all(GridMovesPolicy policy, const std::int32_t* state, std::int32_t* ratings) {
    const std::uint32_t possibilities = policy.max_possibilities();
    const std::uint32_t total = static_cast<std::uint32_t>(policy.agents) * possibilities;
    for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < total;
         i += gridDim.x * blockDim.x) {
        const std::uint32_t var = i / possibilities;
        const auto context = policy.prepare<0>(state, var);
        ratings[i] = policy.rate<0>(state, var, i % possibilities, context);
    }
}

} // namespace

TEST_CASE("device ratings equal host ratings for every load shape (odd and even agents and runs)") {
    std::uint64_t bumped = 0;
    std::uint64_t compared = 0;
    for (const std::int32_t agents : {1, 5, 8, 61}) {
        const GridpathProblem problem(
            generate(40, agents, 0.1, static_cast<std::uint64_t>(agents) + 3));
        const Instance& inst = problem.instance();
        const std::vector<std::int32_t> goals = goal_words(inst);
        const std::vector<std::int32_t> state = problem.start_state();
        gpu::DeviceBuffer<std::uint8_t> d_blocked(inst.grid.blocked.size(), "test grid");
        d_blocked.upload(inst.grid.blocked.data(), inst.grid.blocked.size());
        gpu::DeviceBuffer<std::int32_t> d_goals(goals.size(), "test goals");
        d_goals.upload(goals.data(), goals.size());
        gpu::DeviceBuffer<std::int32_t> d_state(state.size(), "test state");
        d_state.upload(state.data(), state.size());
        for (const std::int32_t load : {1, 2, 3, 4, 17, 18, 130}) {
            const std::vector<LoadGoal> load_goals = make_load_goals(goals, load);
            gpu::DeviceBuffer<LoadGoal> d_load_goals(load_goals.size(), "test load goals");
            d_load_goals.upload(load_goals.data(), load_goals.size());
            WindowMovesOptions options;
            options.window = 9;
            options.load = load;
            GridMovesPolicy host = make_policy(inst, options, inst.grid.blocked.data(),
                                               goals.data(), load_goals.data());
            host.never = 13 * load; // about the mean coordinate distance: some ratings bumped
            GridMovesPolicy device = host;
            device.blocked = d_blocked.data();
            device.goals = d_goals.data();
            device.load_goals = d_load_goals.data();
            const std::size_t count = static_cast<std::size_t>(agents) * host.max_possibilities();
            gpu::DeviceBuffer<std::int32_t> d_ratings(count, "test ratings");
            rate_all<<<64, 128>>>(device, d_state.data(), d_ratings.data());
            LOCUS_CUDA_CHECK(cudaGetLastError());
            LOCUS_CUDA_CHECK(cudaDeviceSynchronize());
            std::vector<std::int32_t> from_device(count);
            d_ratings.download(from_device.data(), count);
            std::size_t mismatches = 0;
            for (std::size_t i = 0; i < count; ++i) {
                const auto var = static_cast<std::uint32_t>(i / host.max_possibilities());
                const auto l = static_cast<std::uint32_t>(i % host.max_possibilities());
                const auto context = host.prepare<0>(state.data(), var);
                const std::int32_t expected = host.rate<0>(state.data(), var, l, context);
                mismatches += from_device[i] != expected;
                ++compared;
            }
            CAPTURE(agents);
            CAPTURE(load);
            CHECK(mismatches == 0);
            // The threshold must matter: with it out of reach, some ratings change.
            GridMovesPolicy unreachable = host;
            unreachable.never = 0x7FFFFFFF;
            for (std::size_t i = 0; load > 1 && i < count; ++i) {
                const auto var = static_cast<std::uint32_t>(i / host.max_possibilities());
                const auto l = static_cast<std::uint32_t>(i % host.max_possibilities());
                const auto context = host.prepare<0>(state.data(), var);
                bumped += unreachable.rate<0>(state.data(), var, l, context) != from_device[i];
            }
        }
    }
    CHECK(compared > 0);
    CHECK(bumped > 0);
}
