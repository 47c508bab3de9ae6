#pragma once
/// \file
/// OpenMP thread counts of the CPU twins.

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace locus::gpu {

/// Number of OpenMP threads for a `threads` argument (0 = all cores; 1 without OpenMP).
inline int resolve_threads(int threads) {
#if defined(_OPENMP)
    return threads > 0 ? threads : omp_get_max_threads();
#else
    (void)threads;
    return 1;
#endif
}

} // namespace locus::gpu
