#pragma once
/// \file
/// Exact TSPLIB distance evaluators shared by host and device code.
///
/// One small, trivially copyable struct per MetricKind. Each holds raw pointers to the instance
/// arrays (host pointers for CPU code, device pointers inside kernels: the struct is the same)
/// and offers
///   - `using point_type = ...;` what a kernel caches per city (coordinates, or the city id),
///   - `point_type point(std::int32_t city) const`,
///   - `std::int32_t operator()(point_type a, point_type b) const`, the exact TSPLIB distance,
///   - `std::int32_t distance(std::int32_t a, std::int32_t b) const`, the same by city ids.
/// Every evaluator returns bit-identical results on host and device: integer paths are exact,
/// and the double paths use only IEEE-correct operations (+, -, *, /, sqrt) with contraction
/// disabled on both sides (-ffp-contract=off, nvcc --fmad=false).

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "locus/error.hpp"
#include "locus/hd.hpp"

namespace locus::tsp {

/// The exact evaluator an instance is solved with (chosen at load, see Instance::metric).
enum class MetricKind {
    euc_2d_int,   ///< EUC_2D on integral coordinates, exact integer arithmetic
    ceil_2d_int,  ///< CEIL_2D on integral coordinates, exact integer arithmetic
    euc_2d_real,  ///< EUC_2D in double arithmetic
    ceil_2d_real, ///< CEIL_2D in double arithmetic
    att,          ///< ATT pseudo-Euclidean, double arithmetic
    matrix        ///< full n*n int32 matrix (EXPLICIT, and GEO computed on the host)
};

/// Raw arrays an evaluator may read; which ones depends on the kind (null otherwise).
/// Pointers are host or device pointers alike; `n` is the number of cities.
struct MetricArrays {
    const std::int32_t* xi = nullptr;     ///< integral x (the *_int kinds)
    const std::int32_t* yi = nullptr;     ///< integral y (the *_int kinds)
    const double* x = nullptr;            ///< x (the *_real kinds and att)
    const double* y = nullptr;            ///< y (the *_real kinds and att)
    const std::int32_t* matrix = nullptr; ///< row-major n*n matrix (matrix)
    std::int32_t n = 0;
};

/// Integral point of the *_int evaluators.
struct IntPoint {
    std::int32_t x;
    std::int32_t y;
};

/// Point of the double evaluators.
struct RealPoint {
    double x;
    double y;
};

/// *p; on the device an IntPoint in one 8-byte load (p must be 8-byte aligned there, as every
/// element of a device array of IntPoint that starts at an 8-byte boundary is).
template <class Point> LOCUS_HD_INLINE Point load_point(const Point* p) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<Point, IntPoint>) {
        const int2 v = *reinterpret_cast<const int2*>(p);
        return {v.x, v.y};
    }
#endif
    return *p;
}

/// Squared Euclidean distance, exact in 64 bits for |coordinate| <= 2^30.
LOCUS_HD_INLINE std::int64_t squared_distance(IntPoint a, IntPoint b) {
    const std::int64_t dx = static_cast<std::int64_t>(a.x) - b.x;
    const std::int64_t dy = static_cast<std::int64_t>(a.y) - b.y;
    return dx * dx + dy * dy;
}

/// floor(sqrt(s)) exactly, for 0 <= s < 2^61.
/// NOTE: the double square root is only a first guess (it may be off by a few units, and host
/// and device may even guess differently); the two correction loops make the result the unique
/// r with r*r <= s < (r+1)*(r+1), so it is exact and identical everywhere.
LOCUS_HD_INLINE std::int64_t floor_sqrt(std::int64_t s) {
    auto r = static_cast<std::int64_t>(sqrt(static_cast<double>(s)));
    while (r * r > s)
        --r;
    while ((r + 1) * (r + 1) <= s)
        ++r;
    return r;
}

/// The integer nearest to sqrt(s) (never a tie: (r + 1/2)^2 is not an integer).
LOCUS_HD_INLINE std::int32_t nint_sqrt(std::int64_t s) {
    const std::int64_t r = floor_sqrt(s);
    // sqrt(s) > r + 1/2  <=>  s > r^2 + r + 1/4  <=>  s > r^2 + r (integers).
    return static_cast<std::int32_t>(s > r * r + r ? r + 1 : r);
}

/// The smallest d with d*d >= s, i.e. ceil(sqrt(s)).
LOCUS_HD_INLINE std::int32_t ceil_sqrt(std::int64_t s) {
    const std::int64_t r = floor_sqrt(s);
    return static_cast<std::int32_t>(r * r == s ? r : r + 1);
}

#if defined(__CUDA_ARCH__)
/// Device fast path of nint_sqrt(squared_distance(a, b)) for the integer evaluators, whose
/// coordinates span at most 2^23 per axis (Instance::metric): 32-bit differences, a float
/// square root as first guess, and exact correction with 32x32->64-bit products.
/// NOTE: the result is the unique d with d^2 - d < s <= d^2 + d, i.e. exactly nint_sqrt(s), so
/// host and device agree although they compute differently.
__device__ __forceinline__ std::int32_t device_nint_distance(IntPoint a, IntPoint b) {
    const int dx = a.x - b.x;
    const int dy = a.y - b.y;
    const float fx = static_cast<float>(dx);
    const float fy = static_cast<float>(dy);
    const float fs = __fmaf_rn(fx, fx, __fmul_rn(fy, fy));
    // First guess from the approximate square root (one MUFU.SQRT; relative error ~2^-22,
    // s >= 0 and never denormal, so flushing is harmless).
    float root;
    asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(root) : "f"(fs));
    auto d = static_cast<std::uint32_t>(__float2uint_rn(root));
    // e = s - d^2 is small (|e| < 2^31) whenever d is within a few units of sqrt(s), so it is
    // exact in wrap-around 32-bit arithmetic although s and d^2 need 48 bits.
    const int e = static_cast<int>(static_cast<unsigned>(dx) * static_cast<unsigned>(dx) +
                                   static_cast<unsigned>(dy) * static_cast<unsigned>(dy) - d * d);
    const int di = static_cast<int>(d);
    // The common case, without branches (lanes agree): d + 1 when (d+1)^2 - (d+1) < s <=
    // (d+1)^2 + (d+1), i.e. d < e <= 3d + 2; d - 1 when -3d + 2 < e <= -d; else d (-d < e <= d).
    if (e > -3 * di + 2 && e <= 3 * di + 2)
        return di + static_cast<int>(e > di) - static_cast<int>(e <= -di);
    // Rare (distances beyond ~2^22, or d = 0): exact correction in 64 bits.
    const std::uint64_t s = static_cast<std::uint64_t>(static_cast<std::int64_t>(dx) * dx +
                                                       static_cast<std::int64_t>(dy) * dy);
    std::uint64_t dd = static_cast<std::uint64_t>(d) * d;
    while (s > dd + d) {
        dd += 2ull * d + 1;
        ++d;
    }
    while (d > 0 && s <= dd - d) {
        dd -= 2ull * d - 1;
        --d;
    }
    return static_cast<std::int32_t>(d);
}

/// Device fast path of ceil_sqrt(squared_distance(a, b)): the smallest d with d^2 >= s.
__device__ __forceinline__ std::int32_t device_ceil_distance(IntPoint a, IntPoint b) {
    const int dx = a.x - b.x;
    const int dy = a.y - b.y;
    const std::uint64_t s = static_cast<std::uint64_t>(static_cast<std::int64_t>(dx) * dx +
                                                       static_cast<std::int64_t>(dy) * dy);
    const float fx = static_cast<float>(dx);
    const float fy = static_cast<float>(dy);
    auto d = static_cast<std::uint32_t>(ceilf(sqrtf(__fmaf_rn(fx, fx, __fmul_rn(fy, fy)))));
    std::uint64_t dd = static_cast<std::uint64_t>(d) * d;
    while (dd < s) {
        dd += 2ull * d + 1;
        ++d;
    }
    while (d > 0 && dd - 2ull * d + 1 >= s) {
        dd -= 2ull * d - 1;
        --d;
    }
    return static_cast<std::int32_t>(d);
}
#endif

/// sqrt(dx*dx + dy*dy) in double, evaluated in the same order on host and device.
LOCUS_HD_INLINE double euclidean(RealPoint a, RealPoint b) {
    const double dx = a.x - b.x;
    const double dy = a.y - b.y;
    return sqrt(dx * dx + dy * dy);
}

// NOTE: why the *_int evaluators equal the TSPLIB double formulas. Instances use them only when
// all coordinates are integral with |c| <= 2^30 and each axis spans at most 2^23 (see
// Instance::metric), so s = dx^2 + dy^2 <= 2^47 is exact in double and q = sqrt(s) < 2^23.5.
// The double reference computes r = fl(sqrt(s)), correctly rounded and monotone.
// EUC_2D, (int)(r + 0.5): let k = nint(q). Since s is an integer, |q - (k +- 1/2)| >=
//   1/(4(2k+1)) > 2 ulp(k), because (k + 1/2)^2 < 2^48 for k < 2^24 - 1. Monotone rounding then
//   keeps r and fl(r + 0.5) inside [k, k + 1) on the grid of doubles, so truncation gives k.
// CEIL_2D, ceil(r): if s is a square, r = q exactly. Otherwise k - 1 < q < k with
//   q - (k - 1) >= 1/(2k) > ulp(k), so k - 1 < r <= k and ceil(r) = k.
// Both equal nint_sqrt(s) and ceil_sqrt(s). Larger spans use the *_real evaluators, which are
// the reference formulas themselves.

/// EUC_2D on integral coordinates: nint(sqrt(dx^2 + dy^2)), exact integer arithmetic.
struct EucIntMetric {
    static constexpr MetricKind kind = MetricKind::euc_2d_int;
    using point_type = IntPoint;
    const std::int32_t* x;
    const std::int32_t* y;
    std::int32_t n;

    LOCUS_HD_INLINE static EucIntMetric bind(const MetricArrays& a) { return {a.xi, a.yi, a.n}; }
    LOCUS_HD_INLINE point_type point(std::int32_t city) const { return {x[city], y[city]}; }
    LOCUS_HD_INLINE std::int32_t operator()(point_type a, point_type b) const {
#if defined(__CUDA_ARCH__)
        return device_nint_distance(a, b);
#else
        return nint_sqrt(squared_distance(a, b));
#endif
    }
    LOCUS_HD_INLINE std::int32_t distance(std::int32_t a, std::int32_t b) const {
        return (*this)(point(a), point(b));
    }
};

/// CEIL_2D on integral coordinates: ceil(sqrt(dx^2 + dy^2)), exact integer arithmetic.
struct CeilIntMetric {
    static constexpr MetricKind kind = MetricKind::ceil_2d_int;
    using point_type = IntPoint;
    const std::int32_t* x;
    const std::int32_t* y;
    std::int32_t n;

    LOCUS_HD_INLINE static CeilIntMetric bind(const MetricArrays& a) { return {a.xi, a.yi, a.n}; }
    LOCUS_HD_INLINE point_type point(std::int32_t city) const { return {x[city], y[city]}; }
    LOCUS_HD_INLINE std::int32_t operator()(point_type a, point_type b) const {
#if defined(__CUDA_ARCH__)
        return device_ceil_distance(a, b);
#else
        return ceil_sqrt(squared_distance(a, b));
#endif
    }
    LOCUS_HD_INLINE std::int32_t distance(std::int32_t a, std::int32_t b) const {
        return (*this)(point(a), point(b));
    }
};

/// EUC_2D in double: (int)(sqrt(dx^2 + dy^2) + 0.5), the TSPLIB reference formula.
struct EucRealMetric {
    static constexpr MetricKind kind = MetricKind::euc_2d_real;
    using point_type = RealPoint;
    const double* x;
    const double* y;
    std::int32_t n;

    LOCUS_HD_INLINE static EucRealMetric bind(const MetricArrays& a) { return {a.x, a.y, a.n}; }
    LOCUS_HD_INLINE point_type point(std::int32_t city) const { return {x[city], y[city]}; }
    LOCUS_HD_INLINE std::int32_t operator()(point_type a, point_type b) const {
        return static_cast<std::int32_t>(euclidean(a, b) + 0.5);
    }
    LOCUS_HD_INLINE std::int32_t distance(std::int32_t a, std::int32_t b) const {
        return (*this)(point(a), point(b));
    }
};

/// CEIL_2D in double: (int)ceil(sqrt(dx^2 + dy^2)), the TSPLIB reference formula.
struct CeilRealMetric {
    static constexpr MetricKind kind = MetricKind::ceil_2d_real;
    using point_type = RealPoint;
    const double* x;
    const double* y;
    std::int32_t n;

    LOCUS_HD_INLINE static CeilRealMetric bind(const MetricArrays& a) { return {a.x, a.y, a.n}; }
    LOCUS_HD_INLINE point_type point(std::int32_t city) const { return {x[city], y[city]}; }
    LOCUS_HD_INLINE std::int32_t operator()(point_type a, point_type b) const {
        return static_cast<std::int32_t>(ceil(euclidean(a, b)));
    }
    LOCUS_HD_INLINE std::int32_t distance(std::int32_t a, std::int32_t b) const {
        return (*this)(point(a), point(b));
    }
};

/// ATT pseudo-Euclidean: r = sqrt((dx^2 + dy^2) / 10), t = nint(r), d = t < r ? t + 1 : t.
struct AttMetric {
    static constexpr MetricKind kind = MetricKind::att;
    using point_type = RealPoint;
    const double* x;
    const double* y;
    std::int32_t n;

    LOCUS_HD_INLINE static AttMetric bind(const MetricArrays& a) { return {a.x, a.y, a.n}; }
    LOCUS_HD_INLINE point_type point(std::int32_t city) const { return {x[city], y[city]}; }
    LOCUS_HD_INLINE std::int32_t operator()(point_type a, point_type b) const {
        const double dx = a.x - b.x;
        const double dy = a.y - b.y;
        const double r = sqrt((dx * dx + dy * dy) / 10.0);
        const auto t = static_cast<std::int32_t>(r + 0.5);
        return static_cast<double>(t) < r ? t + 1 : t;
    }
    LOCUS_HD_INLINE std::int32_t distance(std::int32_t a, std::int32_t b) const {
        return (*this)(point(a), point(b));
    }
};

/// Full row-major n*n matrix lookup; the "point" of a city is its id.
struct MatrixMetric {
    static constexpr MetricKind kind = MetricKind::matrix;
    using point_type = std::int32_t;
    const std::int32_t* matrix;
    std::int32_t n;

    LOCUS_HD_INLINE static MatrixMetric bind(const MetricArrays& a) { return {a.matrix, a.n}; }
    LOCUS_HD_INLINE point_type point(std::int32_t city) const { return city; }
    LOCUS_HD_INLINE std::int32_t operator()(point_type a, point_type b) const {
        return matrix[static_cast<std::int64_t>(a) * n + b];
    }
    LOCUS_HD_INLINE std::int32_t distance(std::int32_t a, std::int32_t b) const {
        return (*this)(a, b);
    }
};

/// Type tag passed by visit_metric: `typename decltype(tag)::type` is the evaluator.
template <class Metric> struct MetricTag { using type = Metric; };

/// Calls `f(MetricTag<M>{})` with the evaluator type M of `kind` and returns its result, so
/// that callers instantiate their kernels once per kind. Every branch must return the same
/// type. Host only; throws locus::Error for a value outside the enumeration.
template <class F> decltype(auto) visit_metric(MetricKind kind, F&& f) {
    switch (kind) {
    case MetricKind::euc_2d_int:
        return f(MetricTag<EucIntMetric>{});
    case MetricKind::ceil_2d_int:
        return f(MetricTag<CeilIntMetric>{});
    case MetricKind::euc_2d_real:
        return f(MetricTag<EucRealMetric>{});
    case MetricKind::ceil_2d_real:
        return f(MetricTag<CeilRealMetric>{});
    case MetricKind::att:
        return f(MetricTag<AttMetric>{});
    case MetricKind::matrix:
        return f(MetricTag<MatrixMetric>{});
    }
    throw Error("invalid tsp::MetricKind value " + std::to_string(static_cast<int>(kind)));
}

} // namespace locus::tsp
