// The TSP chains on the CUDA backend of the many-chain engine (one block per chain).

#include <memory>

#include "locus/gpu/chain_engine.cuh"
#include "locus/gpu/device.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/tsp/chain_runner.hpp"
#include "locus/tsp/device_instance.hpp"

namespace locus::tsp {
namespace {

/// The device data the TSP policy points at: instance arrays and candidate lists.
struct DeviceData {
    DeviceData(const TspProblem& problem, const TspChainOptions& options)
        : instance(problem.instance()) {
        DeviceInstance::upload(candidates, problem.lists(options.candidates, options.lists, {20, options.ascent}),
                               "TSP candidate lists");
        if (options.three_opt > 0)
            DeviceInstance::upload(candidates3, problem.lists(options.three_opt, options.lists, {20, options.ascent}),
                                   "TSP 3-opt candidate lists");
    }
    DeviceInstance instance;
    gpu::DeviceBuffer<std::int32_t> candidates;
    gpu::DeviceBuffer<std::int32_t> candidates3;
};

} // namespace

std::unique_ptr<gpu::ChainRunner> make_cuda_chain_runner(const TspProblem& problem,
                                                         const TspChainOptions& options,
                                                         std::uint32_t chains,
                                                         const gpu::ChainParams& params, int device,
                                                         const gpu::MemoryBudget& budget) {
    gpu::require_device(device);
    auto data = std::make_shared<const DeviceData>(problem, options);
    return visit_metric(
        problem.instance().metric, [&](auto tag) -> std::unique_ptr<gpu::ChainRunner> {
            using Metric = typename decltype(tag)::type;
            const auto build = [&](auto policy) -> std::unique_ptr<gpu::ChainRunner> {
                policy.metric = Metric::bind(data->instance.arrays());
                policy.candidates = data->candidates.data();
                policy.n = static_cast<std::int32_t>(problem.size());
                policy.K = options.candidates;
                policy.window = options.window;
                policy.K3 = options.three_opt;
                policy.depth = options.depth;
                policy.second_breadth = options.second_breadth;
                policy.candidates3 = options.three_opt > 0 ? data->candidates3.data() : nullptr;
                return std::make_unique<gpu::CudaChainRunner<decltype(policy)>>(
                    policy, chains, params, budget, data);
            };
            if (problem.narrow_deltas()) return build(TspChainPolicy<Metric, std::int32_t>{});
            return build(TspChainPolicy<Metric, std::int64_t>{});
        });
}

} // namespace locus::tsp
