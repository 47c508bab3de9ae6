#pragma once
/// \file
/// Host SIMD scan of a diagonal of the full 2-opt neighborhood for EUC_2D on integral coordinates:
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

/// The least delta over c < count of d(A[c], B[c]) + d(A[c + 1], B[c + 1]) - DA[c] - DB[c]
/// (a run of one diagonal of the 2-opt table; A and B hold count + 1 points) and the least c
/// that has it (offset -1 when count <= 0), d = nint(sqrt(dx^2 + dy^2)) as EucIntMetric
/// computes it (squared distances below 2^47, its range), each d(A[c], B[c]) computed once, with
/// `unit`'s instructions (widest: the widest this CPU runs; an explicit unit must be
/// available). Every unit gives the same.
RowBest euc_int_two_opt_diagonal(const IntPoint* A, const IntPoint* B, const std::int32_t* DA,
                                 const std::int32_t* DB, std::int32_t count,
                                 VectorUnit unit = VectorUnit::widest);

} // namespace locus::tsp
