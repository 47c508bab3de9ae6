#pragma once
/// \file
/// The QAP swap neighborhood on the CPU (the engine's CPU twin) or on a CUDA device.

#include <memory>

#include "locus/problem.hpp"
#include "locus/qap/qap_problem.hpp"

namespace locus::qap {

struct SwapOptions {
    int threads = 0;          ///< CPU threads (0 = all cores)
    int device = 0;           ///< CUDA device
    bool check_moves = false; ///< re-evaluate after every applied move
};

std::unique_ptr<Neighborhood> make_cpu_swap(const QapProblem& problem, SwapOptions options);
/// Throws CudaError when no device is usable.
std::unique_ptr<Neighborhood> make_cuda_swap(const QapProblem& problem, SwapOptions options);

/// Throws locus::Error naming the move when `objective` disagrees with a full evaluation.
void check_swap(const QapProblem& problem, std::span<const std::int32_t> p, Objective objective,
                std::int32_t r, std::int32_t s, std::size_t solution);

} // namespace locus::qap
