#pragma once
/// \file
/// Conversion of CUDA runtime errors into locus::CudaError. Host code (g++ or nvcc) checks every
/// CUDA call with LOCUS_CUDA_CHECK and every kernel launch with LOCUS_CUDA_CHECK_LAUNCH; device
/// layers that return cudaError_t are converted at the public boundary with check_cuda.

#include <cuda_runtime_api.h>

#include <string>

#include "locus/error.hpp"

namespace locus::gpu {

/// The message of the CudaError thrown for `status` raised by `what` (an expression or an
/// operation name) at `file`:`line` (`file` may be null: no location then). Format:
/// "CUDA error in <what> at <file>:<line>: <cudaErrorName>: <description>". Out-of-memory
/// errors get an actionable text instead, naming the free and total device memory.
std::string cuda_error_message(cudaError_t status, const char* what, const char* file, int line);

/// Throws CudaError(cuda_error_message(...)). Clears the runtime's last-error state first so
/// that a non-sticky error (such as a failed allocation) is not reported again later.
[[noreturn]] void throw_cuda_error(cudaError_t status, const char* what, const char* file,
                                   int line);

/// Throws CudaError when `status` is not cudaSuccess; `what` names the failed operation.
inline void check_cuda(cudaError_t status, const char* what) {
    if (status != cudaSuccess)
        throw_cuda_error(status, what, nullptr, 0);
}

/// Same, with the source location of the check.
inline void check_cuda(cudaError_t status, const char* what, const char* file, int line) {
    if (status != cudaSuccess)
        throw_cuda_error(status, what, file, line);
}

} // namespace locus::gpu

/// Evaluates a CUDA runtime call and throws locus::CudaError naming the expression and the
/// source location when it does not return cudaSuccess.
#define LOCUS_CUDA_CHECK(expr) ::locus::gpu::check_cuda((expr), #expr, __FILE__, __LINE__)

/// Checks the launch of the kernel just issued (cudaGetLastError); throws locus::CudaError.
/// Asynchronous execution errors are reported by the next synchronizing call instead.
#define LOCUS_CUDA_CHECK_LAUNCH()                                                                  \
    ::locus::gpu::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
