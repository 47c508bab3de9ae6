#pragma once
/// \file
/// Backends of the TSP neighborhoods: one operator's index space (optionally restricted to
/// candidate lists) explored for a batch of tours on the CPU (all cores) or on a CUDA device.
/// Both are policies of the neighborhood adapter of gpu/ (gpu::AdaptedNeighborhood over
/// gpu::CpuNeighborhoodAdapter or gpu::DeviceNeighborhoodAdapter) over the same evaluators
/// (operators/), so they select the same moves and produce the same tours.

#include <cstdint>
#include <memory>
#include <string>

#include "locus/gpu/neighborhood_adapter.hpp"
#include "locus/problem.hpp"
#include "locus/tsp/neighborhood_spec.hpp"
#include "locus/tsp/operators.hpp"
#include "locus/tsp/tsp_problem.hpp"

namespace locus::tsp {

/// The neighborhood of `spec` on the CPU twin (settings.threads threads), named `name` (default:
/// the operator's name). Throws ConfigError for a MoveKind no operator has.
std::unique_ptr<gpu::TimedNeighborhood> make_cpu_engine(const TspProblem& problem,
                                                        NeighborhoodSpec spec,
                                                        const gpu::EngineSettings& settings,
                                                        std::string name = {});
/// The neighborhood of `spec` on CUDA device settings.device. Throws CudaError when no device
/// is usable.
std::unique_ptr<gpu::TimedNeighborhood> make_cuda_engine(const TspProblem& problem,
                                                         NeighborhoodSpec spec,
                                                         const gpu::EngineSettings& settings,
                                                         std::string name = {});

/// "TSP two_opt", "TSP or_opt (8 candidates)": the neighborhood in messages.
std::string neighborhood_label(NeighborhoodSpec spec);

/// Throws ConfigError: no operator has `kind`.
[[noreturn]] void throw_unknown_kind(MoveKind kind);

/// Calls f(SpaceTag<Evaluator<Metric, Delta>>{}) for the evaluator of `spec` (its operator's
/// choice of index space). Throws ConfigError when no operator has spec.kind.
template <class Metric, class Delta, class F> void visit_space(NeighborhoodSpec spec, F&& f) {
    const bool found = TourOperators::visit(spec.kind, [&](auto op_tag) {
        using Op = typename decltype(op_tag)::type;
        Op::template visit_space<Metric, Delta>(spec, f);
    });
    if (!found) throw_unknown_kind(spec.kind);
}

/// Calls f(SpaceTag<Evaluator>{}) for the evaluator of `spec` over `problem`'s metric, with
/// 32-bit deltas when they cannot overflow (TspProblem::narrow_deltas).
template <class F> void visit_evaluator(const TspProblem& problem, NeighborhoodSpec spec, F&& f) {
    visit_metric(problem.instance().metric, [&](auto metric_tag) {
        using Metric = typename decltype(metric_tag)::type;
        if (problem.narrow_deltas())
            visit_space<Metric, std::int32_t>(spec, f);
        else
            visit_space<Metric, std::int64_t>(spec, f);
    });
}

/// Moves per solution of one exploration of Eval without focus, over `problem` (its grid).
template <class Eval>
std::uint64_t space_cells(const TspProblem& problem, const NeighborhoodSpec& spec) {
    TourBatchView<decltype(Eval{}.v.metric)> v{};
    v.n = static_cast<std::int32_t>(problem.size());
    v.K = spec.candidates;
    return make_evaluator<Eval>(v, spec).grid().size();
}

} // namespace locus::tsp
