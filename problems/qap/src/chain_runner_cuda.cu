// The QAP chains on the CUDA backend of the many-chain engine (one block per chain).

#include <memory>
#include <vector>

#include "locus/gpu/chain_engine.cuh"
#include "locus/gpu/device.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/qap/chain_policy.hpp"
#include "locus/qap/chain_runner.hpp"

namespace locus::qap {

std::unique_ptr<gpu::ChainRunner> make_cuda_chain_runner(const Instance& instance,
                                                         std::int32_t kick, std::uint32_t chains,
                                                         const gpu::ChainParams& params,
                                                         int device,
                                                         const gpu::MemoryBudget& budget) {
    gpu::require_device(device);
    const std::vector<std::int32_t> host = matrix_words(instance);
    auto words = std::make_shared<gpu::DeviceBuffer<std::int32_t>>(host.size(), "QAP matrices");
    words->upload(host.data(), host.size());
    QapChainPolicy policy;
    policy.matrices = swap_policy(words->data(), instance.n, true);
    policy.n = instance.n;
    policy.kick = chain_kick(kick, instance.n);
    return std::make_unique<gpu::CudaChainRunner<QapChainPolicy>>(policy, chains, params, budget,
                                                                  std::move(words));
}

} // namespace locus::qap
