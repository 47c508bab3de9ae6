// The TSP chains on the CPU twin of the many-chain engine.

#include "locus/tsp/chain_runner.hpp"

namespace locus::tsp {

std::unique_ptr<gpu::ChainRunner>
make_cpu_chain_runner(const TspProblem& problem, const TspChainOptions& options,
                      std::uint32_t chains, const gpu::ChainParams& params, int threads) {
    return visit_metric(
        problem.instance().metric, [&](auto tag) -> std::unique_ptr<gpu::ChainRunner> {
            using Metric = typename decltype(tag)::type;
            const auto build = [&](auto policy) -> std::unique_ptr<gpu::ChainRunner> {
                policy.metric = host_metric<Metric>(problem.instance());
                policy.candidates =
                    problem.lists(options.candidates, options.lists, {20, options.ascent}).data();
                policy.configure(options, static_cast<std::int32_t>(problem.size()));
                policy.candidates3 =
                    options.three_opt > 0
                        ? problem.lists(options.three_opt, options.lists, {20, options.ascent})
                              .data()
                        : nullptr;
                return std::make_unique<gpu::CpuChainRunner<decltype(policy)>>(policy, chains,
                                                                               params, threads);
            };
            if (problem.narrow_deltas()) return build(TspChainPolicy<Metric, std::int32_t>{});
            return build(TspChainPolicy<Metric, std::int64_t>{});
        });
}

} // namespace locus::tsp
