#pragma once
/// \file
/// Backends of the resident ILS (resident_ils.hpp): all chains of a batch on the CPU (one thread
/// per chain, all cores) or on a CUDA device (one block per chain, one launch per epoch).

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "locus/types.hpp"
#include "locus/tsp/resident_ils.hpp"
#include "locus/tsp/tsp_problem.hpp"

namespace locus::tsp {

class ChainRunner {
public:
    virtual ~ChainRunner() = default;
    /// Takes the batch's tours (one chain per solution), descends from each, and makes the
    /// results the chains' current and best tours.
    /// `stop` (may be empty) is polled between chains on the CPU: chains not started when it
    /// returns true keep their tour as it is (start) or skip the epoch, so that a time limit is
    /// honoured promptly; results then differ from an uninterrupted run.
    /// With `only` >= 0, only that chain descends (the others keep their tour until share()).
    virtual void start(const SolutionBatch& batch, const std::function<bool()>& stop,
                       std::int64_t only = -1) = 0;
    /// Runs `iterations` ILS iterations of every chain, numbered from `first`.
    virtual void epoch(std::uint64_t seed, std::uint64_t first, std::uint32_t iterations,
                       const std::function<bool()>& stop) = 0;
    /// Best objective of every chain.
    virtual std::vector<std::int64_t> best_objectives() = 0;
    /// Best tour of one chain.
    virtual void best_tour(std::uint32_t chain, std::span<std::int32_t> out) = 0;
    /// Every chain continues from `chain`'s best tour.
    virtual void share(std::uint32_t chain) = 0;
    /// Moves evaluated so far by all chains.
    virtual std::uint64_t evaluations() = 0;
};

std::unique_ptr<ChainRunner> make_cpu_chain_runner(const TspProblem& problem, const ResidentIlsOptions& options,
                                                   std::uint32_t chains, int threads);
/// Throws CudaError when no device is usable or the chains do not fit in device memory.
std::unique_ptr<ChainRunner> make_cuda_chain_runner(const TspProblem& problem, const ResidentIlsOptions& options,
                                                    std::uint32_t chains, int device);

} // namespace locus::tsp
