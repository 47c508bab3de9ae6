#pragma once
/// \file
/// Device-side timing of work on a stream with a pair of CUDA events (for benchmarks).

#include "locus/gpu/stream.hpp"

namespace locus::gpu {

/// Measures the device time of the work issued on a stream between start() and stop().
/// Usage: timer.start(s); launches...; timer.stop(s); float ms = timer.elapsed_ms();
class EventTimer {
public:
    /// Records the start event on `stream`.
    void start(cudaStream_t stream) { start_.record(stream); }
    /// Records the stop event on `stream`.
    void stop(cudaStream_t stream) { stop_.record(stream); }
    /// Waits for the stop event and returns the elapsed device time in milliseconds.
    float elapsed_ms() const {
        stop_.synchronize();
        return stop_.elapsed_ms_since(start_);
    }

private:
    Event start_;
    Event stop_;
};

} // namespace locus::gpu
