#pragma once
/// \file
/// Backends of the TSP neighborhoods. A TourEngine evaluates one neighborhood (a move kind,
/// optionally restricted to candidate lists) for a batch of tours on the CPU (all cores) or on
/// a CUDA device. Both are policies of the neighborhood adapter of gpu/ over the same
/// evaluators (evaluators.hpp), so they select the same moves and produce the same tours.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "locus/gpu/neighborhood_adapter.hpp"
#include "locus/problem.hpp"
#include "locus/tsp/evaluators.hpp"
#include "locus/tsp/tsp_problem.hpp"

namespace locus::tsp {

/// Which neighborhood: move kind and candidate-list size (0 = full neighborhood).
struct NeighborhoodSpec {
    MoveKind kind = MoveKind::two_opt;
    std::int32_t candidates = 0;
    std::uint32_t samples = 0; ///< three_opt: random edge triples per exploration (k)
    std::uint64_t seed = 0;    ///< three_opt: seed of the samples (the job seed)
};

/// The evaluator Eval over view `v` with the parameters of `spec`.
template <class Eval, class View> Eval make_evaluator(const View& v, const NeighborhoodSpec& spec) {
    if constexpr (Eval::kind == MoveKind::three_opt)
        return Eval{v, spec.samples, spec.seed};
    else
        return Eval{v};
}

/// A neighborhood backend (see Neighborhood for the contract of each call).
class TourEngine {
public:
    virtual ~TourEngine() = default;
    /// Number of grid cells (evaluated moves) per solution and exploration.
    virtual std::uint64_t cells() const = 0;
    virtual void explore(const SolutionBatch& batch, Pivot pivot, std::span<MoveChoice> out) = 0;
    virtual void apply(SolutionBatch& batch, std::span<const MoveChoice> moves) = 0;
    virtual DescentStats descend(SolutionBatch& batch, Pivot pivot, std::uint64_t max_steps,
                                 const std::function<bool()>& stop) = 0;
    virtual DescentStats descend_independent(SolutionBatch& batch,
                                             const IndependentDescentOptions& options,
                                             const std::function<bool()>& stop) = 0;
    /// Benchmark hook: seconds per exploration of the whole batch with the tours already
    /// resident (median of `repetitions` timed runs after one warm-up), without transfers.
    virtual double time_exploration(const SolutionBatch& batch, Pivot pivot, int repetitions) = 0;
};

/// A TourEngine forwarding to a neighborhood adapter (gpu::CpuNeighborhoodAdapter or
/// gpu::DeviceNeighborhoodAdapter) whose policy reports cells(); built in place from `args`.
template <class Adapter> class AdaptedTourEngine final : public TourEngine {
public:
    template <class... Args>
    explicit AdaptedTourEngine(Args&&... args) : adapter_(std::forward<Args>(args)...) {}

    std::uint64_t cells() const override { return adapter_.policy().cells(); }
    void explore(const SolutionBatch& batch, Pivot pivot, std::span<MoveChoice> out) override {
        adapter_.explore(batch, pivot, out);
    }
    void apply(SolutionBatch& batch, std::span<const MoveChoice> moves) override {
        adapter_.apply(batch, moves);
    }
    DescentStats descend(SolutionBatch& batch, Pivot pivot, std::uint64_t max_steps,
                         const std::function<bool()>& stop) override {
        return adapter_.descend(batch, pivot, max_steps, stop);
    }
    DescentStats descend_independent(SolutionBatch& batch, const IndependentDescentOptions& options,
                                     const std::function<bool()>& stop) override {
        return adapter_.descend_independent(batch, options, stop);
    }
    double time_exploration(const SolutionBatch& batch, Pivot pivot, int repetitions) override {
        return adapter_.time_exploration(batch, pivot, repetitions);
    }

private:
    Adapter adapter_;
};

/// The engine of `spec` on the CPU twin (settings.threads threads).
std::unique_ptr<TourEngine> make_cpu_engine(const TspProblem& problem, NeighborhoodSpec spec,
                                            const gpu::EngineSettings& settings);
/// The engine of `spec` on CUDA device settings.device. Throws CudaError when no device is
/// usable.
std::unique_ptr<TourEngine> make_cuda_engine(const TspProblem& problem, NeighborhoodSpec spec,
                                             const gpu::EngineSettings& settings);

/// "TSP two_opt", "TSP or_opt (8 candidates)": the neighborhood in messages.
std::string neighborhood_label(NeighborhoodSpec spec);

/// Type tag carrying an evaluator type.
template <class Eval> struct SpaceTag { using type = Eval; };

/// Calls f(SpaceTag<Evaluator<Metric, Delta>>{}) for the evaluator of `spec`.
template <class Metric, class Delta, class F>
decltype(auto) visit_space(NeighborhoodSpec spec, F&& f) {
    switch (spec.kind) {
    case MoveKind::two_opt:
        if (spec.candidates > 0) return f(SpaceTag<TwoOptCandidates<Metric, Delta>>{});
        return f(SpaceTag<TwoOptFull<Metric, Delta>>{});
    case MoveKind::or_opt:
        if (spec.candidates > 0) return f(SpaceTag<OrOptCandidates<Metric, Delta>>{});
        return f(SpaceTag<OrOptFull<Metric, Delta>>{});
    case MoveKind::three_opt:
        return f(SpaceTag<ThreeOptRandom<Metric, Delta>>{});
    case MoveKind::swap:
        break;
    }
    return f(SpaceTag<SwapFull<Metric, Delta>>{});
}

/// Calls f(SpaceTag<Evaluator>{}) for the evaluator of `spec` over `problem`'s metric, with
/// 32-bit deltas when they cannot overflow (TspProblem::narrow_deltas).
template <class F>
decltype(auto) visit_evaluator(const TspProblem& problem, NeighborhoodSpec spec, F&& f) {
    return visit_metric(problem.instance().metric, [&](auto metric_tag) {
        using Metric = typename decltype(metric_tag)::type;
        if (problem.narrow_deltas()) return visit_space<Metric, std::int32_t>(spec, f);
        return visit_space<Metric, std::int64_t>(spec, f);
    });
}

} // namespace locus::tsp
