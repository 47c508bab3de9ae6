#include "locus/gpu/device_buffer.hpp"

#include <fmt/format.h>
#include <cstdio>

namespace locus::gpu {

namespace {

std::string mib(std::size_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", static_cast<double>(bytes) / (1024.0 * 1024.0));
    return text;
}

} // namespace

void throw_allocation_error(cudaError_t status, std::size_t bytes, const std::string& what) {
    (void)cudaGetLastError();
    if (status != cudaErrorMemoryAllocation) {
        throw CudaError("cannot allocate " + mib(bytes) + " MiB of GPU memory for " + what + ": " +
                        cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
    }
    std::string message =
        "GPU out of memory allocating " + what + ": requested " + mib(bytes) + " MiB";
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
        message +=
            ", the device has " + mib(free_bytes) + " MiB free of " + mib(total_bytes) + " MiB";
    } else {
        (void)cudaGetLastError();
    }
    message += "; reduce the batch size or the instance size, set a smaller GPU memory budget, "
               "or use --backend cpu";
    throw CudaError(message);
}

void throw_size_overflow(std::size_t count, std::size_t element_size, const std::string& what) {
    throw CudaError(fmt::format("GPU out of memory allocating {}: {} elements of {} bytes exceed "
                                "the address space",
                                what, count, element_size));
}

} // namespace locus::gpu
