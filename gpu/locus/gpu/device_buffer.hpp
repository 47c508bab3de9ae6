#pragma once
/// \file
/// RAII owners of device memory (DeviceBuffer) and page-locked host memory (PinnedBuffer).
/// Host-compilable (g++ with the CUDA runtime headers). All failures throw locus::CudaError.

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>

#include "locus/gpu/cuda_check.hpp"

namespace locus::gpu {

/// Throws the CudaError of a failed device allocation of `bytes` for `what`: "GPU out of memory
/// allocating <what>: requested X MiB, the device has Y MiB free of Z MiB; ..." (or the CUDA
/// error text when `status` is not an out-of-memory error).
[[noreturn]] void throw_allocation_error(cudaError_t status, std::size_t bytes,
                                         const std::string& what);

/// Throws the CudaError for a request of `count` elements of `element_size` bytes whose size
/// does not fit in std::size_t.
[[noreturn]] void throw_size_overflow(std::size_t count, std::size_t element_size,
                                      const std::string& what);

/// Owner of `size()` elements of T in device memory (cudaMalloc). Move-only; the memory is
/// released by the destructor (cudaFree, which waits for the device). Contents are
/// uninitialised after allocate().
template <class T>
class DeviceBuffer {
    static_assert(std::is_trivially_copyable_v<T>, "device buffers hold trivially copyable data");

public:
    DeviceBuffer() = default;
    /// Allocates `count` elements; `what` names the data in error messages.
    explicit DeviceBuffer(std::size_t count, const std::string& what = "device buffer") {
        allocate(count, what);
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        if (this != &other) {
            release();
            data_ = std::exchange(other.data_, nullptr);
            size_ = std::exchange(other.size_, 0);
        }
        return *this;
    }
    ~DeviceBuffer() { release(); }

    /// Replaces the contents by `count` uninitialised elements (count 0 frees). Throws
    /// CudaError naming `what`, the requested MiB and the free/total device memory when the
    /// device is out of memory; the buffer is empty then.
    void allocate(std::size_t count, const std::string& what = "device buffer") {
        release();
        if (count == 0)
            return;
        if (count > std::numeric_limits<std::size_t>::max() / sizeof(T))
            throw_size_overflow(count, sizeof(T), what);
        void* pointer = nullptr;
        const cudaError_t status = cudaMalloc(&pointer, count * sizeof(T));
        if (status != cudaSuccess)
            throw_allocation_error(status, count * sizeof(T), what);
        data_ = static_cast<T*>(pointer);
        size_ = count;
    }

    /// Frees the memory (synchronizes with the device, as cudaFree does).
    void release() noexcept {
        if (data_ != nullptr)
            (void)cudaFree(data_);
        data_ = nullptr;
        size_ = 0;
    }

    // NOTE: the blocking copies run on the legacy default stream, which is not ordered with
    // non-blocking streams (Stream): after work on such a stream, use the *_async variants.

    /// Copies `count` elements from host memory into elements [0, count). Blocking: returns
    /// when the data is in device memory. Precondition: count <= size().
    void upload(const T* host, std::size_t count) {
        if (count == 0)
            return;
        LOCUS_CUDA_CHECK(cudaMemcpy(data_, host, count * sizeof(T), cudaMemcpyHostToDevice));
        // NOTE: from pageable memory, cudaMemcpy may return once the data is staged, before the
        // DMA has reached device memory; work on a non-blocking stream is not ordered after
        // it, so wait for the legacy stream here.
        LOCUS_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
    }
    /// Copies elements [0, count) into host memory. Blocking. Precondition: count <= size().
    void download(T* host, std::size_t count) const {
        LOCUS_CUDA_CHECK(cudaMemcpy(host, data_, count * sizeof(T), cudaMemcpyDeviceToHost));
    }
    /// Asynchronous upload ordered on `stream`; `host` must stay valid (and should be pinned
    /// for true overlap) until the stream reaches the copy.
    void upload_async(const T* host, std::size_t count, cudaStream_t stream) {
        LOCUS_CUDA_CHECK(
            cudaMemcpyAsync(data_, host, count * sizeof(T), cudaMemcpyHostToDevice, stream));
    }
    /// Asynchronous download ordered on `stream`; `host` is written when the stream reaches
    /// the copy (synchronize the stream before reading it).
    void download_async(T* host, std::size_t count, cudaStream_t stream) const {
        LOCUS_CUDA_CHECK(
            cudaMemcpyAsync(host, data_, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
    }
    /// Sets every byte of the buffer to `byte`, ordered on `stream`.
    void fill_bytes_async(int byte, cudaStream_t stream) {
        if (size_ != 0)
            LOCUS_CUDA_CHECK(cudaMemsetAsync(data_, byte, bytes(), stream));
    }

    /// Device pointer (null when empty).
    T* data() { return data_; }
    const T* data() const { return data_; }
    /// Number of elements.
    std::size_t size() const { return size_; }
    /// Size in bytes.
    std::size_t bytes() const { return size_ * sizeof(T); }
    bool empty() const { return size_ == 0; }

private:
    T* data_ = nullptr;
    std::size_t size_ = 0;
};

/// Owner of `size()` elements of T in page-locked host memory (cudaMallocHost), for
/// asynchronous copies that overlap with kernels. Move-only.
template <class T>
class PinnedBuffer {
    static_assert(std::is_trivially_copyable_v<T>, "pinned buffers hold trivially copyable data");

public:
    PinnedBuffer() = default;
    /// Allocates `count` uninitialised elements; throws CudaError naming `what` on failure.
    explicit PinnedBuffer(std::size_t count, const std::string& what = "pinned host buffer") {
        if (count == 0)
            return;
        if (count > std::numeric_limits<std::size_t>::max() / sizeof(T))
            throw_size_overflow(count, sizeof(T), what);
        void* pointer = nullptr;
        const cudaError_t status = cudaMallocHost(&pointer, count * sizeof(T));
        if (status != cudaSuccess) {
            (void)cudaGetLastError();
            throw CudaError("cannot allocate " + std::to_string(count * sizeof(T)) +
                            " bytes of pinned host memory for " + what + ": " +
                            cudaGetErrorString(status));
        }
        data_ = static_cast<T*>(pointer);
        size_ = count;
    }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    PinnedBuffer(PinnedBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
    PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
        if (this != &other) {
            if (data_ != nullptr)
                (void)cudaFreeHost(data_);
            data_ = std::exchange(other.data_, nullptr);
            size_ = std::exchange(other.size_, 0);
        }
        return *this;
    }
    ~PinnedBuffer() {
        if (data_ != nullptr)
            (void)cudaFreeHost(data_);
    }

    T* data() { return data_; }
    const T* data() const { return data_; }
    std::size_t size() const { return size_; }
    T& operator[](std::size_t i) { return data_[i]; }
    const T& operator[](std::size_t i) const { return data_[i]; }

private:
    T* data_ = nullptr;
    std::size_t size_ = 0;
};

/// One byte of mapped page-locked host memory that the host raises while a kernel runs and the
/// kernel reads (a halt flag): the host writes through raise()/lower(), kernels read device().
/// Move-only.
class MappedFlag {
public:
    /// Allocates the flag, lowered; throws CudaError on failure.
    MappedFlag() {
        void* pointer = nullptr;
        cudaError_t status = cudaHostAlloc(&pointer, 1, cudaHostAllocMapped);
        if (status == cudaSuccess) {
            host_ = static_cast<volatile std::uint8_t*>(pointer);
            *host_ = 0;
            void* device = nullptr;
            status = cudaHostGetDevicePointer(&device, pointer, 0);
            device_ = static_cast<const volatile std::uint8_t*>(device);
        }
        if (status != cudaSuccess) {
            (void)cudaGetLastError();
            throw CudaError(std::string("cannot allocate the mapped halt flag: ") +
                            cudaGetErrorString(status));
        }
    }
    MappedFlag(const MappedFlag&) = delete;
    MappedFlag& operator=(const MappedFlag&) = delete;
    MappedFlag(MappedFlag&& other) noexcept
        : host_(std::exchange(other.host_, nullptr)), device_(std::exchange(other.device_, nullptr)) {}
    MappedFlag& operator=(MappedFlag&&) = delete;
    ~MappedFlag() {
        if (host_ != nullptr)
            (void)cudaFreeHost(const_cast<std::uint8_t*>(host_));
    }

    void raise() { *host_ = 1; }
    void lower() { *host_ = 0; }
    bool raised() const { return *host_ != 0; }
    /// Waits until the work queued on `stream` is done, meanwhile calling `stop` every 200 us
    /// once `after` has passed and raising the flag when it returns true (the kernels reading
    /// it then end early). Does not synchronize: the caller does, and checks for errors there.
    void watch(cudaStream_t stream, const std::function<bool()>& stop,
               std::chrono::steady_clock::duration after = {}) {
        const auto start = std::chrono::steady_clock::now();
        while (cudaStreamQuery(stream) == cudaErrorNotReady) {
            if (!raised() && std::chrono::steady_clock::now() - start >= after && stop()) raise();
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
    }
    /// The address kernels read.
    const volatile std::uint8_t* device() const { return device_; }

private:
    volatile std::uint8_t* host_ = nullptr;
    const volatile std::uint8_t* device_ = nullptr;
};

} // namespace locus::gpu
