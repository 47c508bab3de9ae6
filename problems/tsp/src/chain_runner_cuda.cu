// The TSP chains on the CUDA backend of the many-chain engine: dispatch on the metric to its
// instantiation (chain_runner_cuda.cuh), compiled in a generated unit of its own.

#include <memory>

#include "chain_runner_cuda.cuh"
#include "locus/gpu/device.hpp"

namespace locus::tsp {

#define LOCUS_TSP_EXTERN_RUNNER(M)                                                                 \
    extern template std::unique_ptr<gpu::ChainRunner> make_cuda_chain_runner_for<M>(               \
        const TspProblem&, const TspChainOptions&, std::uint32_t, const gpu::ChainParams&,         \
        const gpu::MemoryBudget&, const std::shared_ptr<const ChainDeviceData>&);
LOCUS_TSP_EXTERN_RUNNER(EucIntMetric)
LOCUS_TSP_EXTERN_RUNNER(CeilIntMetric)
LOCUS_TSP_EXTERN_RUNNER(EucRealMetric)
LOCUS_TSP_EXTERN_RUNNER(CeilRealMetric)
LOCUS_TSP_EXTERN_RUNNER(AttMetric)
LOCUS_TSP_EXTERN_RUNNER(MatrixMetric)
#undef LOCUS_TSP_EXTERN_RUNNER

std::unique_ptr<gpu::ChainRunner> make_cuda_chain_runner(const TspProblem& problem,
                                                         const TspChainOptions& options,
                                                         std::uint32_t chains,
                                                         const gpu::ChainParams& params, int device,
                                                         const gpu::MemoryBudget& budget) {
    gpu::require_device(device);
    const auto data = std::make_shared<const ChainDeviceData>(problem, options);
    return visit_metric(problem.instance().metric,
                        [&](auto tag) -> std::unique_ptr<gpu::ChainRunner> {
                            using Metric = typename decltype(tag)::type;
                            return make_cuda_chain_runner_for<Metric>(problem, options, chains,
                                                                      params, budget, data);
                        });
}

} // namespace locus::tsp
