#pragma once
/// \file
/// Host SIMD scan of a row of the full 2-opt neighborhood for EUC_2D on integral coordinates:
/// the CPU twin's fast path of TwoOptFull (RowScanningEvaluator), exactly the deltas of the
/// cell-by-cell evaluator.

#include <cstdint>

#include "locus/tsp/metric.hpp"

namespace locus::tsp {

/// The vector instructions a host scan is compiled for (x86-64; elsewhere only the baseline).
enum class VectorUnit { widest, baseline, avx2, avx512 };

/// Whether this CPU runs `unit`'s code.
bool vector_unit_available(VectorUnit unit);
/// The widest unit this CPU runs (AVX-512 F/VL/DQ, AVX2 or the baseline).
VectorUnit widest_vector_unit();

struct RowBest {
    std::int32_t delta;
    std::int32_t offset;
};

/// The least delta over c < count of d(a0, P[c]) + d(a1, P[c + 1]) - base - D[c] and the least
/// c that has it (offset -1 when count <= 0), d = nint(sqrt(dx^2 + dy^2)) as EucIntMetric
/// computes it (squared distances below 2^47, its range), with `unit`'s instructions (widest:
/// the widest this CPU runs; an explicit unit must be available). Every unit gives the same.
RowBest euc_int_two_opt_row(const IntPoint* P, const std::int32_t* D, IntPoint a0, IntPoint a1,
                            std::int32_t base, std::int32_t count,
                            VectorUnit unit = VectorUnit::widest);

} // namespace locus::tsp
