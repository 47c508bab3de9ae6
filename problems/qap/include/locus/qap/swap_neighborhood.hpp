#pragma once
/// \file
/// The QAP swap neighborhood on the CPU (the engine's CPU twin) or on a CUDA device: policies of
/// the neighborhood adapter of gpu/ over SwapEvaluator, so both select the same moves.

#include <memory>

#include "locus/gpu/neighborhood_adapter.hpp"
#include "locus/problem.hpp"
#include "locus/qap/qap_problem.hpp"

namespace locus::qap {

/// The swap neighborhood on the CPU twin (settings.threads threads).
std::unique_ptr<Neighborhood> make_cpu_swap(const QapProblem& problem,
                                            const gpu::EngineSettings& settings);
/// The swap neighborhood on CUDA device settings.device. Throws CudaError when no device is
/// usable.
std::unique_ptr<Neighborhood> make_cuda_swap(const QapProblem& problem,
                                             const gpu::EngineSettings& settings);

} // namespace locus::qap
