#pragma once
/// \file
/// Runners of the many-chain engine over the QAP chain policy (CPU twin or CUDA).

#include <cstdint>
#include <memory>

#include "locus/gpu/chain_engine.hpp"
#include "locus/gpu/device.hpp"
#include "locus/qap/instance.hpp"

namespace locus {
class Registry;
}

namespace locus::qap {

/// Swaps per perturbation for `kick` (0 = n / 10 + 2), at most n / 2.
std::int32_t chain_kick(std::int32_t kick, std::int32_t n);

std::unique_ptr<gpu::ChainRunner> make_cpu_chain_runner(const Instance& instance,
                                                        std::int32_t kick, std::uint32_t chains,
                                                        const gpu::ChainParams& params,
                                                        int threads);
/// Throws CudaError when no device is usable or the chains do not fit in `budget`.
std::unique_ptr<gpu::ChainRunner> make_cuda_chain_runner(const Instance& instance,
                                                         std::int32_t kick, std::uint32_t chains,
                                                         const gpu::ChainParams& params,
                                                         int device,
                                                         const gpu::MemoryBudget& budget);

/// Registers the QAP chains (chain_policy `ils` of the many-chain search `chains`) and the
/// deprecated algorithm name `resident_ils` for that search.
void register_resident_ils(Registry& registry);

} // namespace locus::qap
