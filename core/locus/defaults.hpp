#pragma once
/// \file
/// Job defaults that the config schema, BuildContext and the engines share (one definition).

#include <cstddef>

namespace locus {

/// Share of the free device memory an engine may use when the job sets no memory_budget.
inline constexpr double kDefaultMemoryFraction = 0.8;

/// The largest memory_budget in MiB (2^30 MiB = 1 PiB): the budget in bytes, MiB << 20, stays
/// far within 64 bits.
inline constexpr double kMaxMemoryBudgetMiB = 1073741824.0;

/// `batch: auto` on a machine without a usable CUDA device (with one: its multiprocessors,
/// gpu::auto_batch).
inline constexpr std::size_t kAutoBatchWithoutDevice = 64;

} // namespace locus
