#pragma once
/// \file
/// Portability macros for code shared between host (g++) and device (nvcc) translation units.

#if defined(__CUDACC__)
/// Marks a function callable from host and device code.
#define LOCUS_HD __host__ __device__
/// Forces inlining on host and device.
#define LOCUS_HD_INLINE __host__ __device__ __forceinline__
#else
#define LOCUS_HD
#define LOCUS_HD_INLINE inline
#endif

// NOTE: routines written once over a team or a policy are host-device templates instantiated
// with host-only types (the CPU twins) and device-only types (kernels); each instantiation only
// runs on its own side, so nvcc's cross-space call check is disabled for them.
#if defined(__CUDACC__)
/// Put before a host-device template that is instantiated with host-only or device-only types.
#define LOCUS_EXEC_CHECK_DISABLE _Pragma("nv_exec_check_disable")
#else
#define LOCUS_EXEC_CHECK_DISABLE
#endif

#if defined(__CUDA_ARCH__)
/// Asks nvcc to unroll the next loop (fixed trip count) in device code; nothing on the host.
#define LOCUS_UNROLL _Pragma("unroll")
#else
#define LOCUS_UNROLL
#endif

/// Marks a symbol as exported from a shared object (everything else is hidden).
#define LOCUS_EXPORT __attribute__((visibility("default")))
