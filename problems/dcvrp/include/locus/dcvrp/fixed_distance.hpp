#pragma once
/// \file
/// The route chains' fixed-point distance: an n x n matrix of integers, or computed from the
/// coordinates on every call (no n^2 memory). Both give llround(d x scale) of the instance's
/// distance d (Instance::distance), bit for bit on the host and the device: sqrt is correctly
/// rounded on both, and the products and sums are rounded once each (gpu/exact_math.hpp).

#include <math.h>

#include <cstdint>

#include "locus/dcvrp/euclidean.hpp"
#include "locus/gpu/exact_math.hpp"
#include "locus/hd.hpp"

namespace locus::dcvrp {

struct FixedDistance {
    const std::int64_t* matrix = nullptr; ///< n x n (null: from the coordinates)
    const double* x = nullptr;            ///< n coordinates (coordinate mode)
    const double* y = nullptr;
    double scale = 1.0;
    std::int32_t n = 0;
    /// The rounding of the Euclidean distance: kRoundExact, kRoundNint or kRoundTenths.
    std::int32_t nint = 0;

    /// Euclidean distance of a and b with the rounding, before scaling (coordinate mode).
    LOCUS_HD_INLINE double euclidean(std::int32_t a, std::int32_t b) const {
        return rounded_euclidean(x[a] - x[b], y[a] - y[b], nint);
    }
    LOCUS_HD_INLINE std::int64_t operator()(std::int32_t a, std::int32_t b) const {
        if (matrix != nullptr) return matrix[static_cast<std::int64_t>(a) * n + b];
        return ::llround(gpu::mul_rn(euclidean(a, b), scale));
    }
};

} // namespace locus::dcvrp
