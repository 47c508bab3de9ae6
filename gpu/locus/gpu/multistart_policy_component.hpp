#pragma once
/// \file
/// How a problem offers its searches to the multi-start algorithm (`multistart` of
/// plugins/multistart, Luong et al.): a runner of one round of many independent searches
/// (hill climbing, simulated annealing or tabu search, multistart.hpp) on one backend, and a
/// component of kind `multistart_policy`, scoped to the problem, that makes it. The QAP
/// registers its swap searches under the name `swap`, the algorithm's default policy.
///
/// A problem registers its policy with one call, register_multistart_policy: its documentation,
/// the evaluations one move of a scanning search costs, and two factories (CPU twin, CUDA) that
/// receive the engine settings; the choice of backend is made here, once for every problem.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "locus/component.hpp"
#include "locus/gpu/multistart.hpp"
#include "locus/gpu/neighborhood_adapter.hpp"
#include "locus/params.hpp"
#include "locus/registry.hpp"

namespace locus::gpu {

/// A problem's multi-start searches (component kind `multistart_policy`).
class MultiStartPolicyComponent : public Component {
public:
    static constexpr std::string_view kind = "multistart_policy";

    /// The runner of rounds of up to `capacity` searches on the job's backend (CUDA: with
    /// `mapping`, sized for `strategy`).
    virtual std::unique_ptr<MultiStartRunner> make_runner(std::uint32_t capacity, Mapping mapping,
                                                          Strategy strategy) const = 0;
    /// Moves a scanning search (hill climbing, tabu search) evaluates per applied move: the size
    /// of the neighborhood of one solution.
    virtual std::uint64_t evaluations_per_move() const = 0;
};

/// What a problem registers: its policy's name and documentation, the neighborhood size of a
/// solution and the factories of its runners on both backends.
struct MultiStartPolicySpec {
    /// A factory of a runner: the build context (the problem), the round's capacity, the CUDA
    /// mapping and strategy, and the engine settings (CPU threads, device, memory budget).
    using RunnerFactory = std::function<std::unique_ptr<MultiStartRunner>(
        const BuildContext& build, std::uint32_t capacity, Mapping mapping, Strategy strategy,
        const EngineSettings& settings)>;

    std::string problem;       ///< problem the policy is scoped to, e.g. "qap"
    std::string name = "swap"; ///< policy name (`swap` is the multistart algorithm's default)
    std::string doc;           ///< one paragraph for `locus plugins --verbose`
    /// The neighborhood size of one solution of the loaded problem.
    std::function<std::uint64_t(const BuildContext& build)> evaluations_per_move;
    RunnerFactory cpu;  ///< the CPU twin's runner
    RunnerFactory cuda; ///< the CUDA runner
};

namespace detail {

class SpecMultiStartPolicy final : public MultiStartPolicyComponent {
public:
    SpecMultiStartPolicy(std::shared_ptr<const MultiStartPolicySpec> spec,
                         const BuildContext& build)
        : spec_(std::move(spec)), build_(build) {}

    std::unique_ptr<MultiStartRunner> make_runner(std::uint32_t capacity, Mapping mapping,
                                                  Strategy strategy) const override {
        const auto& factory = build_.backend == Backend::cuda ? spec_->cuda : spec_->cpu;
        return factory(build_, capacity, mapping, strategy, engine_settings(build_));
    }
    std::uint64_t evaluations_per_move() const override {
        return spec_->evaluations_per_move(build_);
    }

private:
    std::shared_ptr<const MultiStartPolicySpec> spec_;
    BuildContext build_;
};

} // namespace detail

/// Registers the problem's multi-start policy (kind `multistart_policy`, scoped to
/// spec.problem; it has no parameters of its own).
inline void register_multistart_policy(Registry& registry, MultiStartPolicySpec spec) {
    ComponentSchema schema{std::string(MultiStartPolicyComponent::kind), spec.name, spec.problem,
                           spec.doc};
    auto owned = std::make_shared<const MultiStartPolicySpec>(std::move(spec));
    registry.add(std::move(schema),
                 [owned](const Params&, BuildContext& b) -> std::unique_ptr<Component> {
                     return std::make_unique<detail::SpecMultiStartPolicy>(owned, b);
                 });
}

} // namespace locus::gpu
