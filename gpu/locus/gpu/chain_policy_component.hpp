#pragma once
/// \file
/// How a problem offers its chains to the many-chain search (the `chains` algorithm of
/// plugins/chains): a component of kind `chain_policy`, scoped to the problem, whose object
/// makes a ChainRunner of the many-chain engine for (chains, ChainParams) and may give the
/// chains' own objective and a distance between solutions. Every problem registers its policy
/// under the name `ils`, so that the algorithm's default policy resolves on each of them.
///
/// A problem registers its policy with one call, register_chain_policy: its parameters, a
/// parser of its options and two factories (CPU twin, CUDA) that receive the engine settings;
/// the choice of backend is made here, once for every problem.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "locus/component.hpp"
#include "locus/gpu/chain_engine.hpp"
#include "locus/gpu/neighborhood_adapter.hpp"
#include "locus/params.hpp"
#include "locus/registry.hpp"

namespace locus::gpu {

/// Distance between two solutions in [0, 1] (e.g. the broken-pairs distance of routes), for the
/// population exchange's diversity, which calls `form` and `between` from several threads at
/// once. `between` compares two solutions' forms; the optional `form` turns a solution row into
/// the form `between` compares (empty: the row itself). A population
/// computes a member's form once, so that the distances of every child to every member compare
/// kept forms instead of rebuilding them per pair.
struct SolutionDistance {
    using Between =
        std::function<double(std::span<const std::int32_t>, std::span<const std::int32_t>)>;
    using Form = std::function<std::vector<std::int32_t>(std::span<const std::int32_t>)>;

    Between between; ///< the distance of two forms, in [0, 1]
    Form form;       ///< optional: a row's form (empty: the row itself)

    SolutionDistance() = default;
    SolutionDistance(Between b, Form f) : between(std::move(b)), form(std::move(f)) {}
    /// A distance that compares rows as they are.
    template <class F>
        requires(!std::is_same_v<std::remove_cvref_t<F>, SolutionDistance> &&
                 std::is_invocable_r_v<double, const F&, std::span<const std::int32_t>,
                                       std::span<const std::int32_t>>)
    SolutionDistance(F f) : between(std::move(f)) {} // NOLINT(google-explicit-constructor)

    explicit operator bool() const { return static_cast<bool>(between); }
    /// The form of a row (a copy of it when no form is given).
    std::vector<std::int32_t> form_of(std::span<const std::int32_t> row) const {
        return form ? form(row) : std::vector<std::int32_t>(row.begin(), row.end());
    }
};

/// The chains' objective of a solution, in the chains' own integer units.
using ChainObjective = std::function<std::int64_t(std::span<const std::int32_t>)>;

/// A problem's decomposition of solutions into regions that chains search at once (the
/// decompose exchange of the chains algorithm): each region is a group of elements whose part
/// of the solution a chain confined to it (Regional policies) changes without touching the
/// other groups' parts, so that the best part found for every group assembles into one
/// solution.
class Decomposition {
public:
    virtual ~Decomposition() = default;
    /// Splits `solution` into groups of about `size` elements each, at most `most` groups
    /// (DCVRP: the customers of whole routes, sectors of routes by the polar angle of their
    /// barycentres); `draw` moves the borders from one call to the next. Returns each group's
    /// elements.
    virtual std::vector<std::vector<std::int32_t>> split(std::span<const std::int32_t> solution,
                                                         std::uint32_t size, std::uint32_t most,
                                                         std::uint64_t draw) const = 0;
    /// Writes to `out` the solution that has each group g's part as parts[g] has it (parts[g]:
    /// a solution that differs from the split one only within group g). Throws Error when a
    /// part changed elements of another group.
    virtual void assemble(std::span<const std::vector<std::int32_t>> groups,
                          std::span<const std::span<const std::int32_t>> parts,
                          std::span<std::int32_t> out) const = 0;
};

/// A problem's chains, as the many-chain search uses them (component kind `chain_policy`).
class ChainPolicyComponent : public Component {
public:
    static constexpr std::string_view kind = "chain_policy";

    /// The runner of `chains` chains with `params` on the job's backend (CPU twin or CUDA).
    virtual std::unique_ptr<ChainRunner> make_runner(std::uint32_t chains,
                                                     const ChainParams& params) const = 0;
    /// For chains that count cost in their own integer units (e.g. fixed point for real-valued
    /// distances): the chains' objective of a solution. The starts are then measured with it,
    /// chains are compared in those units, and the solutions offered to the search context
    /// carry the problem's own objective. Empty (the default): the chains' objective is the
    /// problem's.
    virtual ChainObjective chain_objective() const { return {}; }
    /// Whether distance() gives a distance (the population exchange needs one).
    virtual bool has_distance() const { return false; }
    /// The distance between solutions that the population exchange ranks diversity by; empty
    /// when has_distance() is false.
    virtual SolutionDistance distance() const { return {}; }
    /// Whether the policy's moves name their groups (IndependentMoves), so that the chains may
    /// descend with pivot `independent`.
    virtual bool independent_moves() const { return false; }
    /// The problem's decomposition of solutions for chains confined to regions (the decompose
    /// exchange); null when its chains cannot be confined.
    virtual std::shared_ptr<const Decomposition> decomposition() const { return {}; }
    /// The number of members the population exchange keeps when the chains algorithm's
    /// `population` is `auto`, chosen from the instance (DCVRP: from the routes' expected
    /// length); 0 when the problem has no preference (the algorithm's default then).
    virtual std::size_t population() const { return 0; }
    /// The chains of `batch: auto` on a CUDA device of `multiprocessors` streaming
    /// multiprocessors, chosen from the instance (DCVRP: from its size); 0 when the problem has
    /// no preference (one chain per multiprocessor then).
    virtual std::size_t chains(std::size_t multiprocessors) const {
        (void)multiprocessors;
        return 0;
    }
};

/// What a problem registers: its policy's name, documentation and parameters, the parser of
/// its options (Params -> Options) and the factories of its runners on both backends.
template <class Options> struct ChainPolicySpec {
    /// A factory of a runner: the build context (the problem), the parsed options, the chains,
    /// the engine's per-launch constants and the engine settings (threads of the CPU twin,
    /// CUDA device, memory budget).
    using RunnerFactory = std::function<std::unique_ptr<ChainRunner>(
        const BuildContext& build, const Options& options, std::uint32_t chains,
        const ChainParams& params, const EngineSettings& settings)>;

    std::string problem;      ///< problem the policy is scoped to, e.g. "tsp"
    std::string name = "ils"; ///< policy name (`ils` is the default of the `chains` algorithm)
    std::string doc;          ///< one paragraph for `locus plugins --verbose`
    /// Adds the problem's own parameters to the schema.
    std::function<void(ComponentSchema&)> parameters;
    /// Reads the options from validated params (the problem is loaded).
    std::function<Options(const Params& params, const BuildContext& build)> options;
    RunnerFactory cpu;  ///< the CPU twin's runner
    RunnerFactory cuda; ///< the CUDA runner
    /// Optional: the chains' objective (ChainPolicyComponent::chain_objective).
    std::function<ChainObjective(const BuildContext& build)> chain_objective;
    /// Optional: the distance between solutions (ChainPolicyComponent::distance).
    std::function<SolutionDistance(const BuildContext& build)> distance;
    /// The policy supports the pivot `independent` (IndependentMoves).
    bool independent_moves = false;
    /// Optional: the decomposition of solutions for chains confined to regions (Regional
    /// policies; ChainPolicyComponent::decomposition). May throw ConfigError (e.g. an instance
    /// without what the split needs).
    std::function<std::shared_ptr<const Decomposition>(const BuildContext& build)> decomposition;
    /// Optional: the population of `population: auto` (ChainPolicyComponent::population).
    std::function<std::size_t(const BuildContext& build)> population;
    /// Optional: the chains of `batch: auto` (ChainPolicyComponent::chains).
    std::function<std::size_t(const BuildContext& build, std::size_t multiprocessors)> chains;
};

namespace detail {

/// The policy object of a ChainPolicySpec: options parsed once when it is built, runners made
/// on the backend of its build context.
template <class Options> class SpecChainPolicy final : public ChainPolicyComponent {
public:
    SpecChainPolicy(std::shared_ptr<const ChainPolicySpec<Options>> spec, Options options,
                    const BuildContext& build)
        : spec_(std::move(spec)), options_(std::move(options)), build_(build) {}

    std::unique_ptr<ChainRunner> make_runner(std::uint32_t chains,
                                             const ChainParams& params) const override {
        const EngineSettings settings = engine_settings(build_);
        const auto& factory = build_.backend == Backend::cuda ? spec_->cuda : spec_->cpu;
        return factory(build_, options_, chains, params, settings);
    }
    ChainObjective chain_objective() const override {
        return spec_->chain_objective ? spec_->chain_objective(build_) : ChainObjective{};
    }
    bool has_distance() const override { return static_cast<bool>(spec_->distance); }
    bool independent_moves() const override { return spec_->independent_moves; }
    std::shared_ptr<const Decomposition> decomposition() const override {
        return spec_->decomposition ? spec_->decomposition(build_)
                                    : std::shared_ptr<const Decomposition>{};
    }
    SolutionDistance distance() const override {
        return spec_->distance ? spec_->distance(build_) : SolutionDistance{};
    }
    std::size_t population() const override {
        return spec_->population ? spec_->population(build_) : 0;
    }
    std::size_t chains(std::size_t multiprocessors) const override {
        return spec_->chains ? spec_->chains(build_, multiprocessors) : 0;
    }

private:
    std::shared_ptr<const ChainPolicySpec<Options>> spec_;
    Options options_;
    BuildContext build_;
};

} // namespace detail

/// Registers the problem's chain policy (kind `chain_policy`, scoped to spec.problem).
template <class Options>
void register_chain_policy(Registry& registry, ChainPolicySpec<Options> spec) {
    ComponentSchema schema{std::string(ChainPolicyComponent::kind), spec.name, spec.problem,
                           spec.doc};
    if (spec.parameters) spec.parameters(schema);
    auto owned = std::make_shared<const ChainPolicySpec<Options>>(std::move(spec));
    registry.add(std::move(schema),
                 [owned](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
                     return std::make_unique<detail::SpecChainPolicy<Options>>(
                         owned, owned->options(p, b), b);
                 });
}

/// The name of the many-chain search algorithm (plugins/chains) and of its policy parameter.
inline constexpr std::string_view kChainsAlgorithm = "chains";
inline constexpr std::string_view kChainsPolicyParam = "policy";

/// Registers `name` (an algorithm scoped to `problem` that this problem's chains ran under
/// before) as a deprecated alias of the `chains` algorithm: its keys that `chains` does not
/// know go to the policy.
inline void register_chains_alias(Registry& registry, const std::string& name,
                                  const std::string& problem) {
    registry.add_alias(ComponentAlias{"algorithm", name, problem, std::string(kChainsAlgorithm),
                                      std::string(kChainsPolicyParam)});
}

} // namespace locus::gpu
