#pragma once
/// \file
/// Multi-start local search for the QAP on the multi-start engine (locus/gpu/multistart.hpp):
/// a runner per backend (CPU twin on all cores, or the CUDA engine with a chosen mapping) and
/// the "multistart" algorithm component (many searches per round, best of all reported,
/// optional elite restarts between rounds).

#include <cstdint>
#include <functional>
#include <memory>

#include "locus/gpu/device.hpp"
#include "locus/gpu/multistart.hpp"
#include "locus/qap/instance.hpp"

namespace locus {
class Registry;
}

namespace locus::qap {

/// Runs one round of searches on one backend.
class MultiStartRunner {
public:
    virtual ~MultiStartRunner() = default;
    /// `searches` searches from `starts` (searches * n); best permutations to `best`
    /// (searches * n), results to `results`. Blocking. `stop` is polled between searches (the
    /// CPU twin) or between launches (CUDA, when a round does not fit in one): searches not
    /// started when it returns true keep their start as their best, with their cost and zero
    /// moves. Returns the number of searches that ran. The instance must outlive the runner.
    virtual std::uint32_t run(const gpu::MultiStartConfig& config, std::uint32_t searches,
                     const std::int32_t* starts, std::int32_t* best, gpu::SearchResult* results,
                     const std::function<bool()>& stop = {}) = 0;
};

/// The CPU twin on `threads` OpenMP threads (0 = all cores).
std::unique_ptr<MultiStartRunner> make_cpu_multistart(const Instance& instance, int threads);
/// The CUDA engine for rounds of up to `capacity` searches with `mapping` (split into several
/// launches when they do not fit in device memory at once); builds tabu matrices when
/// `strategy` is tabu search; launches are sized to `budget`. Throws CudaError without a
/// usable device or when not even one search fits the budget.
std::unique_ptr<MultiStartRunner> make_cuda_multistart(const Instance& instance,
                                                       std::uint32_t capacity, gpu::Mapping mapping,
                                                       gpu::Strategy strategy, int device,
                                                       const gpu::MemoryBudget& budget = {});

/// Registers the "multistart" algorithm and the "greedy" construction of the QAP plugin.
void register_multistart(Registry& registry);

} // namespace locus::qap
