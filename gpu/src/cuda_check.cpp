#include "locus/gpu/cuda_check.hpp"

#include <cstdio>

#include "out_of_memory.hpp"

namespace locus::gpu {

namespace detail {

std::string mib(std::size_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", static_cast<double>(bytes) / (1024.0 * 1024.0));
    return text;
}

std::string device_memory_note() {
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        return {};
    }
    return "the device has " + mib(free_bytes) + " MiB free of " + mib(total_bytes) + " MiB";
}

} // namespace detail

std::string cuda_error_message(cudaError_t status, const char* what, const char* file, int line) {
    std::string message = "CUDA error in ";
    message += what != nullptr ? what : "CUDA call";
    if (file != nullptr) {
        message += " at ";
        message += file;
        message += ':';
        message += std::to_string(line);
    }
    message += ": ";
    if (status == cudaErrorMemoryAllocation) {
        message += "out of memory (cudaErrorMemoryAllocation)";
        if (const std::string note = detail::device_memory_note(); !note.empty())
            message += "; " + note;
        message += "; ";
        message += detail::kOutOfMemoryAdvice;
        return message;
    }
    message += cudaGetErrorName(status);
    message += ": ";
    message += cudaGetErrorString(status);
    return message;
}

void throw_cuda_error(cudaError_t status, const char* what, const char* file, int line) {
    // NOTE: non-sticky errors stay in the runtime's last-error slot; clear it so that the next
    // LOCUS_CUDA_CHECK_LAUNCH does not report this failure a second time.
    (void)cudaGetLastError();
    throw CudaError(cuda_error_message(status, what, file, line));
}

} // namespace locus::gpu
