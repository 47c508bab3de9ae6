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

[[gnu::always_inline]] inline RowBest row_body(const IntPoint* A, const IntPoint* B,
                                               const std::int32_t* DA, const std::int32_t* DB,
                                               std::int32_t count) {
    RowBest best{std::numeric_limits<std::int32_t>::max(), -1};
    // link[c] = d(A[c], B[c]) for c <= m: each added edge once, shared by two cells.
    alignas(64) std::int32_t link[kBlock + 1];
    alignas(64) std::int32_t delta[kBlock];
    for (std::int32_t first = 0; first < count; first += kBlock) {
        const std::int32_t m = std::min(kBlock, count - first);
        const IntPoint* a = A + first;
        const IntPoint* b = B + first;
        for (std::int32_t c = 0; c <= m; ++c) {
            const double dx = static_cast<double>(a[c].x) - static_cast<double>(b[c].x);
            const double dy = static_cast<double>(a[c].y) - static_cast<double>(b[c].y);
            link[c] = static_cast<std::int32_t>(std::sqrt(dx * dx + dy * dy) + 0.5);
        }
        const std::int32_t* da = DA + first;
        const std::int32_t* db = DB + first;
        for (std::int32_t c = 0; c < m; ++c)
            delta[c] = link[c] + link[c + 1] - da[c] - db[c];
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

RowBest row_baseline(const IntPoint* A, const IntPoint* B, const std::int32_t* DA,
                     const std::int32_t* DB, std::int32_t count) {
    return row_body(A, B, DA, DB, count);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define LOCUS_X86_VECTORS 1
[[gnu::target("avx2")]] RowBest row_avx2(const IntPoint* A, const IntPoint* B,
                                         const std::int32_t* DA, const std::int32_t* DB,
                                         std::int32_t count) {
    return row_body(A, B, DA, DB, count);
}
[[gnu::target("avx512f,avx512vl,avx512dq")]] RowBest row_avx512(const IntPoint* A,
                                                                const IntPoint* B,
                                                                const std::int32_t* DA,
                                                                const std::int32_t* DB,
                                                                std::int32_t count) {
    return row_body(A, B, DA, DB, count);
}
#endif

using RowScan = RowBest (*)(const IntPoint*, const IntPoint*, const std::int32_t*,
                            const std::int32_t*, std::int32_t);

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

RowBest euc_int_two_opt_diagonal(const IntPoint* A, const IntPoint* B, const std::int32_t* DA,
                                 const std::int32_t* DB, std::int32_t count, VectorUnit unit) {
    static const RowScan widest = scan_for(widest_vector_unit());
    return (unit == VectorUnit::widest ? widest : scan_for(unit))(A, B, DA, DB, count);
}

} // namespace locus::tsp
