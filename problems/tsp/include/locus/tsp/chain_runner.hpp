#pragma once
/// \file
/// Runners of the many-chain engine over the TSP chain policy: all chains of a batch on the CPU
/// twin (one thread per chain, all cores) or on a CUDA device (one block per chain).

#include <cstdint>
#include <memory>

#include "locus/gpu/chain_engine.hpp"
#include "locus/gpu/device.hpp"
#include "locus/tsp/chain_policy.hpp"
#include "locus/tsp/tsp_problem.hpp"

namespace locus::tsp {

std::unique_ptr<gpu::ChainRunner> make_cpu_chain_runner(const TspProblem& problem,
                                                        const TspChainOptions& options,
                                                        std::uint32_t chains,
                                                        const gpu::ChainParams& params,
                                                        int threads);
/// Throws CudaError when no device is usable or the chains do not fit in `budget`.
std::unique_ptr<gpu::ChainRunner> make_cuda_chain_runner(const TspProblem& problem,
                                                         const TspChainOptions& options,
                                                         std::uint32_t chains,
                                                         const gpu::ChainParams& params,
                                                         int device,
                                                         const gpu::MemoryBudget& budget);

} // namespace locus::tsp
