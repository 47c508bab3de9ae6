#include <algorithm>
#include <fmt/format.h>
#include <string>
#include <utility>

#include "locus/gpu/cuda_check.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/neighborhood_engine.hpp"

namespace locus::gpu {

EngineWorkspace::EngineWorkspace(EngineWorkspace&& other) noexcept
    : control_(std::exchange(other.control_, nullptr)),
      control_capacity_(std::exchange(other.control_capacity_, 0)),
      scratch_(std::exchange(other.scratch_, nullptr)),
      scratch_bytes_(std::exchange(other.scratch_bytes_, 0)),
      device_(std::exchange(other.device_, -1)),
      multiprocessors_(std::exchange(other.multiprocessors_, 0)),
      pools_(std::exchange(other.pools_, false)) {}

EngineWorkspace& EngineWorkspace::operator=(EngineWorkspace&& other) noexcept {
    if (this != &other) {
        release();
        control_ = std::exchange(other.control_, nullptr);
        control_capacity_ = std::exchange(other.control_capacity_, 0);
        scratch_ = std::exchange(other.scratch_, nullptr);
        scratch_bytes_ = std::exchange(other.scratch_bytes_, 0);
        device_ = std::exchange(other.device_, -1);
        multiprocessors_ = std::exchange(other.multiprocessors_, 0);
        pools_ = std::exchange(other.pools_, false);
    }
    return *this;
}

EngineWorkspace::~EngineWorkspace() { release(); }

void EngineWorkspace::release() noexcept {
    // NOTE: cudaFree also releases memory of cudaMallocAsync; it waits for the device first,
    // so no kernel still uses the memory.
    if (control_ != nullptr)
        (void)cudaFree(control_);
    if (scratch_ != nullptr)
        (void)cudaFree(scratch_);
    control_ = nullptr;
    scratch_ = nullptr;
    control_capacity_ = 0;
    scratch_bytes_ = 0;
}

std::size_t EngineWorkspace::bytes_needed(MoveGrid grid, std::uint32_t batch) {
    const std::size_t control = static_cast<std::size_t>(batch) * 12;
    const std::size_t partials =
        (static_cast<std::size_t>(batch) + detail::kMaxWaveBlocks) * detail::kPartialBytes;
    // NOTE: a launch has at most rows + ceil(kMaxSplitUnits / batch) units per solution.
    const std::size_t unit_counts =
        (static_cast<std::size_t>(batch) * (grid.rows + 1) + detail::kMaxSplitUnits) * 4;
    return control + std::max(partials, unit_counts);
}

void EngineWorkspace::reserve_for(MoveGrid grid, std::uint32_t batch, cudaStream_t stream) {
    const std::size_t scratch = bytes_needed(grid, batch) - static_cast<std::size_t>(batch) * 12;
    int multiprocessors = 0;
    LOCUS_CUDA_CHECK(attach(multiprocessors));
    const cudaError_t status = prepare(batch, scratch, stream);
    if (status != cudaSuccess) {
        throw_allocation_error(status, bytes_needed(grid, batch),
                               fmt::format("the neighborhood engine workspace ({} solutions of "
                                           "{} x {} moves)",
                                           batch, grid.rows, grid.cols));
    }
    LOCUS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

cudaError_t EngineWorkspace::attach(int& multiprocessors) noexcept {
    int device = 0;
    cudaError_t status = cudaGetDevice(&device);
    if (status != cudaSuccess)
        return status;
    if (device_ < 0) {
        int count = 0;
        status = cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);
        if (status != cudaSuccess)
            return status;
        int pools = 0;
        status = cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device);
        if (status != cudaSuccess)
            return status;
        device_ = device;
        multiprocessors_ = count;
        pools_ = pools != 0;
    } else if (device != device_) {
        return cudaErrorInvalidDevice;
    }
    multiprocessors = multiprocessors_;
    return cudaSuccess;
}

cudaError_t EngineWorkspace::allocate(void** pointer, std::size_t bytes,
                                      cudaStream_t stream) noexcept {
    const cudaError_t status =
        pools_ ? cudaMallocAsync(pointer, bytes, stream) : cudaMalloc(pointer, bytes);
    if (status != cudaSuccess) {
        (void)cudaGetLastError();
        *pointer = nullptr;
    }
    return status;
}

void EngineWorkspace::free_async(void* pointer, cudaStream_t stream) noexcept {
    if (pointer == nullptr)
        return;
    if (pools_)
        (void)cudaFreeAsync(pointer, stream);
    else
        (void)cudaFree(pointer);
}

cudaError_t EngineWorkspace::prepare(std::uint32_t batch, std::size_t scratch_bytes,
                                     cudaStream_t stream) noexcept {
    if (device_ < 0) {
        int multiprocessors = 0;
        const cudaError_t status = attach(multiprocessors);
        if (status != cudaSuccess)
            return status;
    }
    if (batch > control_capacity_) {
        free_async(control_, stream);
        control_ = nullptr;
        control_capacity_ = 0;
        cudaError_t status = allocate(&control_, static_cast<std::size_t>(batch) * 12, stream);
        if (status != cudaSuccess)
            return status;
        control_capacity_ = batch;
        // found[] = kNoMove (all bits set), tickets[] = 0.
        status = cudaMemsetAsync(control_, 0xFF, static_cast<std::size_t>(batch) * 8, stream);
        if (status != cudaSuccess)
            return status;
        status = cudaMemsetAsync(tickets(), 0, static_cast<std::size_t>(batch) * 4, stream);
        if (status != cudaSuccess)
            return status;
    }
    if (scratch_bytes > scratch_bytes_) {
        free_async(scratch_, stream);
        scratch_ = nullptr;
        scratch_bytes_ = 0;
        const cudaError_t status = allocate(&scratch_, scratch_bytes, stream);
        if (status != cudaSuccess)
            return status;
        scratch_bytes_ = scratch_bytes;
    }
    return cudaSuccess;
}

std::uint64_t* EngineWorkspace::found() const { return static_cast<std::uint64_t*>(control_); }

std::uint32_t* EngineWorkspace::tickets() const {
    return reinterpret_cast<std::uint32_t*>(static_cast<std::uint64_t*>(control_) +
                                            control_capacity_);
}

} // namespace locus::gpu
