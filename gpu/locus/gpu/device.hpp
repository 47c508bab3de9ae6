#pragma once
/// \file
/// CUDA device discovery for host code (compiled by g++; implemented in the locus_gpu library).

#include <cstddef>
#include <string>

#include "locus/gpu/tuning.hpp"

namespace locus::gpu {

/// Number of usable CUDA devices (0 when there is no driver, no device, or an error).
int device_count() noexcept;

/// Why no CUDA device can be used ("" when at least one can), e.g. the cudaGetDeviceCount
/// error text.
std::string device_unavailable_reason();

/// "NVIDIA H100 80GB HBM3 (sm_90, 79.1 GiB)" for device `ordinal`.
std::string device_description(int ordinal);

/// The streaming multiprocessors of device `ordinal` (132 on an H100 SXM or H200).
int multiprocessor_count(int ordinal);

/// The batch `batch: auto` stands for: the chains that fill device `ordinal` (its
/// multiprocessors x ChainTuning::kChainsPerMultiprocessor, one chain's block per
/// multiprocessor), on either backend so that the CPU twin of a run searches the same chains;
/// kAutoBatchWithoutDevice on a machine without a usable device.
std::size_t auto_batch(int ordinal);

/// The PCI bus id of device `ordinal` ("0000:1A:00.0"): names the physical card whatever
/// CUDA_VISIBLE_DEVICES renumbers.
std::string device_pci_bus_id(int ordinal);

/// Makes `ordinal` the current device. Throws CudaError with an actionable message when no
/// device is present or the ordinal is out of range.
void require_device(int ordinal);

/// Free and total device memory in bytes of the current device.
void memory_info(std::size_t& free_bytes, std::size_t& total_bytes);

/// The device memory an engine may allocate (the job keys memory_budget and memory_fraction).
struct MemoryBudget {
    std::size_t bytes = 0;  ///< fixed budget in bytes; 0 = `fraction` of the free memory
    double fraction = MemoryTuning<kTuningArch>::kFreeFraction; ///< share of the free memory

    /// The bytes allowed now: `bytes` when set, else `fraction` of the free memory of the
    /// current device (queried on every call).
    std::size_t allowance() const;
};

} // namespace locus::gpu
