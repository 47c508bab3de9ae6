#pragma once
/// \file
/// The DCVRP's distance of two planar points, written once for the host (Instance::euclidean)
/// and the device (FixedDistance): sqrt(dx^2 + dy^2) with each operation rounded once
/// (gpu/exact_math.hpp; sqrt is correctly rounded on both), then TSPLIB nint's floor(d + 0.5)
/// or the DIMACS VRPTW convention's truncation to one decimal.

#include <math.h>

#include "locus/gpu/exact_math.hpp"
#include "locus/hd.hpp"

namespace locus::dcvrp {

/// How a distance is rounded: the values of Rounding (instance.hpp) as integers, so that device
/// structures carry them as plain words.
inline constexpr int kRoundExact = 0;  ///< the real distance
inline constexpr int kRoundNint = 1;   ///< TSPLIB nint: floor(d + 0.5)
inline constexpr int kRoundTenths = 2; ///< DIMACS VRPTW: floor(10 d + 1e-9) / 10

LOCUS_HD_INLINE double rounded_euclidean(double dx, double dy, int rounding) {
    const double d = ::sqrt(gpu::add_rn(gpu::mul_rn(dx, dx), gpu::mul_rn(dy, dy)));
    if (rounding == kRoundNint) return ::floor(d + 0.5);
    // NOTE: 1e-9 keeps a distance whose tenfold is a whole number in a correctly rounded sqrt
    // from losing a tenth (as the convention's checkers do); the division is correctly rounded.
    if (rounding == kRoundTenths) return ::floor(gpu::add_rn(gpu::mul_rn(d, 10.0), 1e-9)) / 10.0;
    return d;
}

} // namespace locus::dcvrp
