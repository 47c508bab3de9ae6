#pragma once
/// \file
/// Tuning constants of the device toolkit, one policy struct per engine and architecture, as CUB
/// keeps its tuning policies. The build compiles for one architecture list
/// (CMAKE_CUDA_ARCHITECTURES); its first entry selects the policies (kTuningArch, set by CMake
/// as LOCUS_TUNING_ARCH, e.g. 900 for sm_90). Add a specialisation to tune for another
/// architecture; the primary templates are the defaults. Host-compilable.

#include <cstddef>
#include <cstdint>

#include "locus/defaults.hpp"

#if !defined(LOCUS_TUNING_ARCH)
#define LOCUS_TUNING_ARCH 900
#endif

namespace locus::gpu {

/// The architecture (major * 100 + minor * 10) whose policies this build uses.
inline constexpr int kTuningArch = LOCUS_TUNING_ARCH;

/// Neighborhood engine (neighborhood_engine.cuh).
template <int Arch>
struct NeighborhoodTuning {
    static constexpr unsigned kBlockThreads = 256;           ///< threads of every sweep kernel
    static constexpr std::uint32_t kMaxWaveBlocks = 8192;    ///< blocks beyond one per solution
    static constexpr std::uint64_t kMaxSplitUnits = 1u << 20; ///< units from splitting rows
    static constexpr unsigned kScanThreads = 1024;           ///< improving_moves scan block
    static constexpr unsigned kScanItems = 4;                ///< counts per scan thread and round
    static constexpr std::uint64_t kCpuCellsPerThread = 16384; ///< CPU twin: cells per thread
    static constexpr unsigned kApplyBlockThreads = 128; ///< move application, thread per solution
    static constexpr unsigned kPartsBeginThreads = 128; ///< parts_begin_kernel, thread per solution
    static constexpr unsigned kDecodeThreads = 256;     ///< decode_improving_kernel block
    static constexpr unsigned kDecodeMaxBlocks = 4096;  ///< decode_improving_kernel grid cap
    static constexpr unsigned kFocusListThreads = 256;  ///< block listing one solution's focus
};

/// Element-wise helper kernels (solution copies, per-position preparation): one thread per
/// element in a grid-stride loop, so the grid is capped and the threads stride beyond it.
template <int Arch>
struct ElementwiseTuning {
    static constexpr unsigned kBlockThreads = 256;     ///< threads per block
    static constexpr std::uint64_t kMaxBlocks = 65535; ///< grid cap
    /// Blocks for `elements` elements: one per kBlockThreads, at most kMaxBlocks.
    static constexpr unsigned blocks(std::uint64_t elements) {
        const std::uint64_t wanted = (elements + kBlockThreads - 1) / kBlockThreads;
        return static_cast<unsigned>(wanted < kMaxBlocks ? wanted : kMaxBlocks);
    }
};

/// Batched descents of the neighborhood adapter (host loop).
template <int Arch>
struct DescentTuning {
    static constexpr std::uint32_t kSyncEvery = 4; ///< device steps between convergence checks
};

/// Multi-start engine (multistart.cuh).
template <int Arch>
struct MultiStartTuning {
    static constexpr unsigned kBlockThreads = 128;          ///< threads per block, every mapping
    static constexpr std::size_t kChipDataBytes = 24 * 1024; ///< largest policy data on chip
};

/// Many-chain engine (chain_engine.cuh).
template <int Arch>
struct ChainTuning {
    static constexpr unsigned kBlockThreads = 128; ///< threads of one chain's block
    static constexpr unsigned kThreadMappedBlock = 32; ///< chains per block, mapping: thread
    /// batch: auto — chains per streaming multiprocessor (auto_batch, device.hpp).
    static constexpr std::size_t kChainsPerMultiprocessor = 1;
};

/// Successor engine (successor_engine.cuh); measured on an H200 (docs/benchmarks.md).
template <int Arch>
struct SuccessorTuning {
    static constexpr std::uint32_t kGroupThreads = 128;      ///< threads per state, small |R|
    static constexpr std::uint32_t kWideGroupThreads = 256;  ///< threads per state, large |R|
    static constexpr std::uint32_t kWideFrom = 4609;         ///< possibilities that need wide
    static constexpr std::size_t kLookupBytes = 24576;       ///< shared memory of the lookup
    static constexpr std::size_t kChipBytes = 96 * 1024;     ///< shared memory for ratings/state
};

/// Memory budget defaults (the job key memory_fraction).
template <int Arch>
struct MemoryTuning {
    static constexpr double kFreeFraction = kDefaultMemoryFraction; ///< share of the free memory
                                                                    ///< an engine may use
};

} // namespace locus::gpu
