#pragma once
/// \file
/// A thread that polls a stop test and raises a one-byte halt flag that long CPU loops read
/// (chain descents, multi-start searches, explorations of large neighborhoods). The stop test
/// (SearchContext::should_stop) is not thread safe: while a watchdog runs it is its only caller.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>

namespace locus::gpu {

class Watchdog {
public:
    /// Starts polling `stop` every 2 ms when `enabled` and `stop` is set; otherwise the flag
    /// stays down unless raise() is called. `stop` must outlive the watchdog.
    Watchdog(const std::function<bool()>& stop, bool enabled) {
        if (!enabled || !stop) return;
        thread_ = std::thread([this, &stop] {
            while (!done_.load(std::memory_order_acquire)) {
                if (stop()) {
                    raise();
                    return;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            }
        });
    }
    ~Watchdog() {
        done_.store(true, std::memory_order_release);
        if (thread_.joinable()) thread_.join();
    }
    Watchdog(const Watchdog&) = delete;
    Watchdog& operator=(const Watchdog&) = delete;

    /// Whether a thread polls the stop test (else the caller must).
    bool watching() const { return thread_.joinable(); }
    /// The flag long loops read (volatile: raised from another thread while they run).
    const volatile std::uint8_t* flag() const { return &halt_; }
    bool raised() const { return halt_ != 0; }
    void raise() { halt_ = 1; }

private:
    volatile std::uint8_t halt_ = 0;
    std::atomic<bool> done_{false};
    std::thread thread_;
};

} // namespace locus::gpu
