// The QAP chains on the CPU twin of the many-chain engine, and their registration.

#include <algorithm>
#include <memory>
#include <vector>

#include "locus/gpu/chain_search.hpp"
#include "locus/params.hpp"
#include "locus/problem.hpp"
#include "locus/qap/chain_policy.hpp"
#include "locus/qap/chain_runner.hpp"
#include "locus/qap/qap_problem.hpp"
#include "locus/registry.hpp"

namespace locus::qap {

std::int32_t chain_kick(std::int32_t kick, std::int32_t n) {
    const std::int32_t wanted = kick > 0 ? kick : n / 10 + 2;
    return std::max(1, std::min(wanted, n / 2));
}

std::unique_ptr<gpu::ChainRunner> make_cpu_chain_runner(const Instance& instance,
                                                        std::int32_t kick, std::uint32_t chains,
                                                        const gpu::ChainParams& params,
                                                        int threads) {
    auto words = std::make_shared<const std::vector<std::int32_t>>(matrix_words(instance));
    QapChainPolicy policy;
    policy.matrices = swap_policy(words->data(), instance.n, false);
    policy.n = instance.n;
    policy.kick = chain_kick(kick, instance.n);
    return std::make_unique<gpu::CpuChainRunner<QapChainPolicy>>(policy, chains, params, threads,
                                                                 words);
}

void register_resident_ils(Registry& registry) {
    gpu::ChainSearchSpec spec;
    spec.problem = "qap";
    spec.name = "resident_ils";
    spec.doc = "Resident iterated local search on the many-chain engine: one chain per solution "
               "of the batch, each running perturbation (random swaps), a best-improvement swap "
               "descent over its own table of swap deltas (O(1) updates per pair) and "
               "acceptance in one CUDA block or one CPU thread; chains exchange solutions "
               "before every epoch (recombine: locations both parents agree on are kept).";
    spec.parameters = [](ComponentSchema& schema) {
        schema.integer("kick", "0", "random swaps per perturbation (0 = n/10 + 2, at most n/2)",
                       0, 1000000);
    };
    spec.make_runner = [](const Params& p, const BuildContext& b, std::uint32_t chains,
                          const gpu::ChainParams& params) -> std::unique_ptr<gpu::ChainRunner> {
        const auto& problem = problem_as<QapProblem>(b, "qap", "resident_ils");
        const auto kick = static_cast<std::int32_t>(p.get_int("kick"));
        if (b.backend == Backend::cuda)
            return make_cuda_chain_runner(problem.instance(), kick, chains, params, b.device,
                                          {b.memory_budget, b.memory_fraction});
        return make_cpu_chain_runner(problem.instance(), kick, chains, params, b.threads);
    };
    gpu::register_chain_search(registry, std::move(spec));
}

} // namespace locus::qap
