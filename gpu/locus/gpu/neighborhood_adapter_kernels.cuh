#pragma once
/// \file
/// The kernels of the device neighborhood adapter (neighborhood_adapter.cuh) beside the
/// engine's selection: applying the selected moves, and decoding the improving moves of a
/// parallel descent (nvcc only).

#include <cuda_runtime.h>

#include <cstdint>

#include "locus/gpu/neighborhood_engine.cuh"
#include "locus/types.hpp"

namespace locus::gpu {

namespace detail {

/// Threads per block of the apply kernel when the applier takes one thread per solution.
inline constexpr unsigned kApplyBlockThreads = Tuning::kApplyBlockThreads;

/// Applies results[s] of every solution s < batch (only improving ones when `only_improving`):
/// adds the delta to objectives[s] and 1 to *applied; a move the applier rejects lowers *error
/// to its index. Thread mapping: A::threads == 1: thread per solution (blocks of
/// kApplyBlockThreads); else block per solution (A::threads threads, thread 0 counts).
template <class A, class D>
__global__ void apply_moves_kernel(const A apply, const MoveResult<D>* results, std::uint32_t batch,
                                   bool only_improving, Objective* objectives,
                                   std::uint32_t* applied, unsigned long long* error) {
    std::uint32_t s = blockIdx.x;
    if constexpr (A::threads == 1) {
        s = blockIdx.x * blockDim.x + threadIdx.x;
        if (s >= batch) return;
    }
    const MoveResult<D> r = results[s];
    if (!r.found() || (only_improving && r.delta >= D(0))) return;
    const bool done = apply(s, r.index);
    if (A::threads != 1 && threadIdx.x != 0) return;
    if (!done) {
        atomicMin(error, static_cast<unsigned long long>(r.index));
        return;
    }
    objectives[s] += static_cast<Objective>(r.delta);
    atomicAdd(applied, 1u);
}

/// Decodes the improving moves improving_moves() collected: out[s * capacity + k] =
/// eval.decode(s, found[s * capacity + k].index) for k < min(counts[s], capacity). Nothing once
/// `halt` is raised (improving_moves was cut short: its indices are not moves).
template <class E, class M, class D>
__global__ void decode_improving_kernel(const E eval, const MoveResult<D>* found,
                                        const std::uint32_t* counts, std::uint32_t capacity,
                                        std::uint32_t batch, M* out,
                                        const volatile std::uint8_t* halt) {
    if (halt != nullptr) { // one read of the mapped flag per block
        __shared__ bool halted;
        if (threadIdx.x == 0) halted = *halt != 0;
        __syncthreads();
        if (halted) return;
    }
    const std::uint64_t total = static_cast<std::uint64_t>(batch) * capacity;
    for (std::uint64_t idx = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
         idx < total; idx += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
        const auto s = static_cast<std::uint32_t>(idx / capacity);
        const auto k = static_cast<std::uint32_t>(idx % capacity);
        if (k < counts[s]) out[idx] = eval.decode(s, found[idx].index);
    }
}

} // namespace detail

} // namespace locus::gpu
