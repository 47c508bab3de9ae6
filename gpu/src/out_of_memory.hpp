#pragma once
// Internal: the pieces of the device layer's out-of-memory messages (sizes in MiB, the device's
// free memory, the advice), written once for the allocation, storage and CUDA-check errors.
// Defined in cuda_check.cpp.

#include <cstddef>
#include <string>

namespace locus::gpu::detail {

/// `bytes` in MiB with one decimal ("12.5"), the unit of every memory size the device layer
/// writes into a message.
std::string mib(std::size_t bytes);

/// "the device has Y MiB free of Z MiB" for the current device (cudaMemGetInfo), or "" when
/// the query fails (its error is cleared, so that no later check reports it).
std::string device_memory_note();

/// The advice that ends every out-of-memory message.
inline constexpr const char* kOutOfMemoryAdvice =
    "reduce the batch size or the instance size, set a smaller GPU memory budget, or use "
    "--backend cpu";

} // namespace locus::gpu::detail
