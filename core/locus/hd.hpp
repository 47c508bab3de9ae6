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
// NOTE: forced on the host as on the device: the CPU twins' inner loops (a move's delta, a
// distance, a penalty term) are these small functions, which g++ otherwise leaves as calls.
#if defined(__GNUC__)
#define LOCUS_HD_INLINE inline __attribute__((always_inline))
#else
#define LOCUS_HD_INLINE inline
#endif
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

/// `p`, a pointer into device global memory in kernels, made opaque to the device compiler's
/// reassociation: a row pointer computed once (base + solution * stride) then stays one
/// register pair that each load indexes with one multiply-add, instead of the whole address
/// being recomputed in 64 bits at every load. Host code gets `p` as is.
template <class T> LOCUS_HD_INLINE T* opaque_global(T* p) {
#if defined(__CUDA_ARCH__)
    asm("" : "+l"(p));
    __builtin_assume(__isGlobal(p));
#endif
    return p;
}

/// Marks a symbol as exported from a shared object (everything else is hidden).
#define LOCUS_EXPORT __attribute__((visibility("default")))
