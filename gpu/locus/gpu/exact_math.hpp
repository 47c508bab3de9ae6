#pragma once
/// \file
/// Floating-point arithmetic that rounds alike on host and device: products and sums rounded
/// once each (never contracted into fused multiply-adds) and an exponential built from them, for
/// decisions that must be identical on both backends (annealing acceptance).

#include <cstdint>

#include "locus/hd.hpp"

namespace locus::gpu {

/// a * b and a + b rounded once each, never contracted into a fused multiply-add on the device
/// (the host compilers are run without contraction), so that host and device agree even in
/// targets built without --fmad=false.
LOCUS_HD_INLINE double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}
LOCUS_HD_INLINE double add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}

/// e^x for x <= 0 in IEEE double arithmetic only (+, -, *, / and exact scaling), so that host
/// and device round alike: x = k ln 2 + r with |r| <= ln2 / 2 (ln 2 split in a high part with
/// trailing zero bits and a low part, so that k * ln2_high is exact), e^r by its Taylor series
/// to degree 13, then 2^k by repeated halving. Below -700 it returns 0.
LOCUS_HD_INLINE double exp_nonpositive(double x) {
    if (x > 0.0) x = 0.0;
    if (!(x >= -700.0)) return 0.0; // also NaN
    const double ln2_high = 6.93147180369123816490e-01;
    const double ln2_low = 1.90821492927058770002e-10;
    const double kf = x / 0.6931471805599453 - 0.5;
    const auto k = static_cast<std::int32_t>(kf); // truncation toward zero: k <= 0
    const double r = add_rn(add_rn(x, -mul_rn(static_cast<double>(k), ln2_high)),
                            -mul_rn(static_cast<double>(k), ln2_low));
    double term = 1.0;
    double sum = 1.0;
    for (int i = 1; i <= 13; ++i) {
        term = mul_rn(term, r) / static_cast<double>(i);
        sum = add_rn(sum, term);
    }
    for (std::int32_t i = 0; i > k; --i)
        sum = sum * 0.5;
    return sum;
}

} // namespace locus::gpu
