#pragma once
/// \file
/// The DCVRP's distance of two planar points, written once for the host (Instance::euclidean)
/// and the device (FixedDistance): sqrt(dx^2 + dy^2) with each operation rounded once
/// (gpu/exact_math.hpp; sqrt is correctly rounded on both), then TSPLIB nint's floor(d + 0.5).

#include <math.h>

#include "locus/gpu/exact_math.hpp"
#include "locus/hd.hpp"

namespace locus::dcvrp {

LOCUS_HD_INLINE double rounded_euclidean(double dx, double dy, bool nint) {
    const double d = ::sqrt(gpu::add_rn(gpu::mul_rn(dx, dx), gpu::mul_rn(dy, dy)));
    return nint ? ::floor(d + 0.5) : d;
}

} // namespace locus::dcvrp
