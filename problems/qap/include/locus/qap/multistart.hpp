#pragma once
/// \file
/// Multi-start local search for the QAP on the multi-start engine (locus/gpu/multistart.hpp):
/// a runner per backend (CPU twin on all cores, or the CUDA engine with a chosen mapping),
/// offered to the `multistart` algorithm (plugins/multistart: many searches per round, best of
/// all reported, optional elite restarts between rounds) as the multistart_policy `swap`.

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

/// Runs one round of searches on one backend (the multi-start engine's runner interface).
using MultiStartRunner = gpu::MultiStartRunner;

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

/// Registers the QAP's multistart_policy `swap` (the searches of the multistart algorithm,
/// plugins/multistart) and the "greedy" construction.
void register_multistart(Registry& registry);

} // namespace locus::qap
