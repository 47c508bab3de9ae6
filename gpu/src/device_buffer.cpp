#include "locus/gpu/device_buffer.hpp"

#include <fmt/format.h>

#include "out_of_memory.hpp"

namespace locus::gpu {

using detail::mib;

void throw_allocation_error(cudaError_t status, std::size_t bytes, const std::string& what) {
    (void)cudaGetLastError();
    if (status != cudaErrorMemoryAllocation) {
        throw CudaError("cannot allocate " + mib(bytes) + " MiB of GPU memory for " + what + ": " +
                        cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
    }
    std::string message =
        "GPU out of memory allocating " + what + ": requested " + mib(bytes) + " MiB";
    if (const std::string note = detail::device_memory_note(); !note.empty())
        message += ", " + note;
    message += "; ";
    message += detail::kOutOfMemoryAdvice;
    throw CudaError(message);
}

void throw_size_overflow(std::size_t count, std::size_t element_size, const std::string& what) {
    throw CudaError(fmt::format("GPU out of memory allocating {}: {} elements of {} bytes exceed "
                                "the address space",
                                what, count, element_size));
}

} // namespace locus::gpu
