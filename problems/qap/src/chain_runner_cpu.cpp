// The QAP chains on the CPU twin of the many-chain engine, and their registration as the
// chain_policy `ils` of the many-chain search (with its deprecated name `resident_ils`).

#include <algorithm>
#include <memory>
#include <vector>

#include "locus/gpu/chain_policy_component.hpp"
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

std::unique_ptr<gpu::ChainRunner> make_cpu_chain_runner(const Instance& instance, std::int32_t kick,
                                                        std::uint32_t chains,
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
    gpu::ChainPolicySpec<std::int32_t> spec;
    spec.problem = "qap";
    spec.doc = "QAP chains of the many-chain search (algorithm chains): each chain runs "
               "perturbation (random swaps), a best-improvement swap descent over its own table "
               "of swap deltas (O(1) updates per pair) and acceptance; recombination keeps the "
               "locations both parents agree on.";
    spec.parameters = [](ComponentSchema& schema) {
        schema.integer("kick", "0", "random swaps per perturbation (0 = n/10 + 2, at most n/2)", 0,
                       1000000);
    };
    spec.options = [](const Params& p, const BuildContext&) {
        return static_cast<std::int32_t>(p.get_int("kick"));
    };
    spec.cpu = [](const BuildContext& b, const std::int32_t& kick, std::uint32_t chains,
                  const gpu::ChainParams& params, const gpu::EngineSettings& settings) {
        return make_cpu_chain_runner(
            problem_as<QapProblem>(b, "qap", "chain_policy ils").instance(), kick, chains, params,
            settings.threads);
    };
    spec.cuda = [](const BuildContext& b, const std::int32_t& kick, std::uint32_t chains,
                   const gpu::ChainParams& params, const gpu::EngineSettings& settings) {
        return make_cuda_chain_runner(
            problem_as<QapProblem>(b, "qap", "chain_policy ils").instance(), kick, chains, params,
            settings.device, settings.memory);
    };
    gpu::register_chain_policy(registry, std::move(spec));
    gpu::register_chains_alias(registry, "resident_ils", "qap");
}

} // namespace locus::qap
