#include "locus/tsp/two_opt_rows.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

// NOTE: this file is compiled with -fno-math-errno (problems/tsp/CMakeLists.txt) so that sqrt
// vectorises; its inputs are never negative, so errno would never be set anyway. With the
// squared distances exact in double (< 2^47) and sqrt correctly rounded in every lane,
// (int)(sqrt(s) + 0.5) equals nint_sqrt(s) (metric.hpp): every lane computes exactly what
// EucIntMetric does.

namespace locus::tsp {

namespace {

constexpr std::int32_t kBlock = 512;

[[gnu::always_inline]] inline RowBest row_body(const IntPoint* P, const std::int32_t* D,
                                               IntPoint a0, IntPoint a1, std::int32_t base,
                                               std::int32_t count) {
    RowBest best{std::numeric_limits<std::int32_t>::max(), -1};
    const double ax = a0.x, ay = a0.y, bx = a1.x, by = a1.y;
    alignas(64) std::int32_t delta[kBlock];
    for (std::int32_t first = 0; first < count; first += kBlock) {
        const std::int32_t m = std::min(kBlock, count - first);
        const IntPoint* p = P + first;
        const std::int32_t* e = D + first;
        for (std::int32_t c = 0; c < m; ++c) {
            const double dx0 = ax - static_cast<double>(p[c].x);
            const double dy0 = ay - static_cast<double>(p[c].y);
            const double dx1 = bx - static_cast<double>(p[c + 1].x);
            const double dy1 = by - static_cast<double>(p[c + 1].y);
            const auto d0 = static_cast<std::int32_t>(std::sqrt(dx0 * dx0 + dy0 * dy0) + 0.5);
            const auto d1 = static_cast<std::int32_t>(std::sqrt(dx1 * dx1 + dy1 * dy1) + 0.5);
            delta[c] = d0 + d1 - base - e[c];
        }
        std::int32_t least = std::numeric_limits<std::int32_t>::max();
        for (std::int32_t c = 0; c < m; ++c)
            least = std::min(least, delta[c]);
        if (best.offset >= 0 && least >= best.delta) continue;
        for (std::int32_t c = 0; c < m; ++c)
            if (delta[c] == least) {
                best = {least, first + c};
                break;
            }
    }
    return best;
}

RowBest row_baseline(const IntPoint* P, const std::int32_t* D, IntPoint a0, IntPoint a1,
                     std::int32_t base, std::int32_t count) {
    return row_body(P, D, a0, a1, base, count);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define LOCUS_X86_VECTORS 1
[[gnu::target("avx2")]] RowBest row_avx2(const IntPoint* P, const std::int32_t* D, IntPoint a0,
                                         IntPoint a1, std::int32_t base, std::int32_t count) {
    return row_body(P, D, a0, a1, base, count);
}
[[gnu::target("avx512f,avx512vl,avx512dq")]] RowBest row_avx512(const IntPoint* P,
                                                                const std::int32_t* D, IntPoint a0,
                                                                IntPoint a1, std::int32_t base,
                                                                std::int32_t count) {
    return row_body(P, D, a0, a1, base, count);
}
#endif

using RowScan = RowBest (*)(const IntPoint*, const std::int32_t*, IntPoint, IntPoint, std::int32_t,
                            std::int32_t);

RowScan scan_for(VectorUnit unit) {
    switch (unit) {
#ifdef LOCUS_X86_VECTORS
    case VectorUnit::avx512:
        return row_avx512;
    case VectorUnit::avx2:
        return row_avx2;
#endif
    default:
        return row_baseline;
    }
}

} // namespace

bool vector_unit_available(VectorUnit unit) {
    switch (unit) {
    case VectorUnit::baseline:
        return true;
#ifdef LOCUS_X86_VECTORS
    case VectorUnit::avx2:
        return __builtin_cpu_supports("avx2");
    case VectorUnit::avx512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512dq");
#endif
    default:
        return false;
    }
}

VectorUnit widest_vector_unit() {
    static const VectorUnit widest = vector_unit_available(VectorUnit::avx512) ? VectorUnit::avx512
                                     : vector_unit_available(VectorUnit::avx2)
                                         ? VectorUnit::avx2
                                         : VectorUnit::baseline;
    return widest;
}

RowBest euc_int_two_opt_row(const IntPoint* P, const std::int32_t* D, IntPoint a0, IntPoint a1,
                            std::int32_t base, std::int32_t count, VectorUnit unit) {
    static const RowScan widest = scan_for(widest_vector_unit());
    return (unit == VectorUnit::widest ? widest : scan_for(unit))(P, D, a0, a1, base, count);
}

} // namespace locus::tsp
