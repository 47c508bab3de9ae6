#pragma once
/// \file
/// RAII wrappers of CUDA streams and events. Host-compilable; failures throw locus::CudaError.

#include <cuda_runtime_api.h>

#include <utility>

#include "locus/gpu/cuda_check.hpp"

namespace locus::gpu {

/// An owned, non-blocking CUDA stream (it does not synchronize with the legacy default stream).
/// Move-only; the destructor destroys the stream (pending work still completes).
class Stream {
public:
    /// Creates a stream on the current device.
    Stream() { LOCUS_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
    Stream& operator=(Stream&& other) noexcept {
        if (this != &other) {
            if (stream_ != nullptr)
                (void)cudaStreamDestroy(stream_);
            stream_ = std::exchange(other.stream_, nullptr);
        }
        return *this;
    }
    ~Stream() {
        if (stream_ != nullptr)
            (void)cudaStreamDestroy(stream_);
    }

    /// The raw handle, for launches and asynchronous copies.
    cudaStream_t get() const { return stream_; }
    operator cudaStream_t() const { return stream_; }

    /// Blocks until all work issued on the stream has completed; throws CudaError for any
    /// asynchronous error of that work.
    void synchronize() const { LOCUS_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

private:
    cudaStream_t stream_ = nullptr;
};

/// An owned CUDA event with timing enabled. Move-only.
class Event {
public:
    Event() { LOCUS_CUDA_CHECK(cudaEventCreate(&event_)); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
    Event& operator=(Event&& other) noexcept {
        if (this != &other) {
            if (event_ != nullptr)
                (void)cudaEventDestroy(event_);
            event_ = std::exchange(other.event_, nullptr);
        }
        return *this;
    }
    ~Event() {
        if (event_ != nullptr)
            (void)cudaEventDestroy(event_);
    }

    cudaEvent_t get() const { return event_; }

    /// Records the event at the current end of `stream`.
    void record(cudaStream_t stream) { LOCUS_CUDA_CHECK(cudaEventRecord(event_, stream)); }
    /// Blocks until the recorded work has completed.
    void synchronize() const { LOCUS_CUDA_CHECK(cudaEventSynchronize(event_)); }
    /// Makes later work on `stream` wait for this event (no host blocking).
    void wait_on(cudaStream_t stream) const {
        LOCUS_CUDA_CHECK(cudaStreamWaitEvent(stream, event_, 0));
    }
    /// Milliseconds between `start` and this event; both must have completed.
    float elapsed_ms_since(const Event& start) const {
        float ms = 0.0f;
        LOCUS_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
        return ms;
    }

private:
    cudaEvent_t event_ = nullptr;
};

} // namespace locus::gpu
