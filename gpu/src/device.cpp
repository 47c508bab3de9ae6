#include "locus/gpu/device.hpp"

#include <fmt/format.h>
#include <cuda_runtime_api.h>

#include <cstdio>

#include "locus/error.hpp"
#include "locus/gpu/cuda_check.hpp"

namespace locus::gpu {

namespace {

/// Device count and, on failure, the runtime's error text (count is 0 then).
struct DeviceQuery {
    int count = 0;
    std::string error;
};

DeviceQuery query_devices() noexcept {
    DeviceQuery query;
    try {
        const cudaError_t status = cudaGetDeviceCount(&query.count);
        if (status != cudaSuccess) {
            (void)cudaGetLastError();
            query.count = 0;
            query.error = cudaGetErrorString(status);
        } else if (query.count <= 0) {
            query.count = 0;
            query.error = cudaGetErrorString(cudaErrorNoDevice);
        }
    } catch (...) {
        query.count = 0;
        query.error = "unknown error";
    }
    return query;
}

std::string devices_present(int count) {
    return std::to_string(count) + (count == 1 ? " device present" : " devices present");
}

void require_ordinal(int ordinal) {
    const DeviceQuery query = query_devices();
    if (query.count == 0) {
        throw CudaError("--backend cuda: no CUDA device is available (cudaGetDeviceCount: " +
                        query.error + "); use --backend cpu");
    }
    if (ordinal < 0 || ordinal >= query.count) {
        throw CudaError(fmt::format("CUDA device {} does not exist ({})", ordinal,
                                    devices_present(query.count)));
    }
}

} // namespace

int device_count() noexcept { return query_devices().count; }

std::string device_unavailable_reason() {
    const DeviceQuery query = query_devices();
    if (query.count > 0)
        return "";
    return "cudaGetDeviceCount failed: " + query.error;
}

std::string device_description(int ordinal) {
    require_ordinal(ordinal);
    cudaDeviceProp properties{};
    LOCUS_CUDA_CHECK(cudaGetDeviceProperties(&properties, ordinal));
    char text[512];
    std::snprintf(text, sizeof text, "%s (sm_%d%d, %.1f GiB)", properties.name, properties.major,
                  properties.minor,
                  static_cast<double>(properties.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0));
    return text;
}

int multiprocessor_count(int ordinal) {
    require_ordinal(ordinal);
    int count = 0;
    LOCUS_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, ordinal));
    return count;
}

std::size_t auto_batch(int ordinal) {
    if (device_count() == 0) return kAutoBatchWithoutDevice;
    return static_cast<std::size_t>(multiprocessor_count(ordinal)) *
           ChainTuning<kTuningArch>::kChainsPerMultiprocessor;
}

std::string device_pci_bus_id(int ordinal) {
    require_ordinal(ordinal);
    char id[32] = {};
    LOCUS_CUDA_CHECK(cudaDeviceGetPCIBusId(id, static_cast<int>(sizeof id), ordinal));
    return id;
}

void require_device(int ordinal) {
    require_ordinal(ordinal);
    LOCUS_CUDA_CHECK(cudaSetDevice(ordinal));
}

void memory_info(std::size_t& free_bytes, std::size_t& total_bytes) {
    LOCUS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
}

std::size_t MemoryBudget::allowance() const {
    if (bytes != 0)
        return bytes;
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    memory_info(free_bytes, total_bytes);
    return static_cast<std::size_t>(static_cast<double>(free_bytes) * fraction);
}

} // namespace locus::gpu
