#pragma once
/// \file
/// Storage lists: the arrays an engine needs, declared once (pointer, element count, name), then
/// measured, checked against a memory budget and allocated as one block on the host or the
/// device. The bytes an engine reports are the bytes the list allocates; there is no separate
/// formula to keep in step with the allocation.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "locus/gpu/device.hpp"

namespace locus::gpu {

/// Arrays declared by add(); bind() points them into one block of bytes() bytes. Every array
/// starts at a multiple of kAlignment bytes.
class ArrayList {
public:
    static constexpr std::size_t kAlignment = 256;

    /// Declares `count` elements of T that `pointer` will point at after bind().
    template <class T>
    void add(T*& pointer, std::size_t count, std::string what) {
        entries_.push_back({reinterpret_cast<void**>(&pointer), count * sizeof(T),
                            std::move(what)});
    }

    /// Bytes of the block: the arrays in declaration order, each aligned.
    std::size_t bytes() const;
    /// Points every declared pointer into `base` (a block of bytes() bytes).
    void bind(void* base) const;
    /// "name (X MiB), name (Y MiB), name (Z MiB)": the three largest arrays, for messages.
    std::string largest() const;

private:
    struct Entry {
        void** pointer;
        std::size_t bytes;
        std::string what;
    };
    std::vector<Entry> entries_;
};

/// One zero-filled host block holding an ArrayList.
class HostStorage {
public:
    /// Allocates zero-filled memory for `list` and binds it. The memory is zero pages until
    /// first written (calloc): a chain that never starts within the time limit costs no
    /// resident memory and no time (1024 chains of 50,000 cities, 256 QAP delta tables of
    /// n = 2000 are gigabytes). Throws Error "out of host memory: the search's arrays need
    /// <m> MiB (largest: ...), ...; use a smaller batch" when it cannot be reserved, and Error
    /// "... need <m> MiB of host memory (...), memory_budget allows <b> MiB; ..." when `budget`
    /// (bytes, 0: none) is set and smaller.
    void allocate(const ArrayList& list, std::size_t budget = 0);
    std::size_t bytes() const { return bytes_; }
    /// The block (bytes() bytes).
    const std::byte* data() const { return block_.get(); }

private:
    struct Free {
        void operator()(std::byte* p) const noexcept { std::free(p); }
    };
    std::unique_ptr<std::byte, Free> block_;
    std::size_t bytes_ = 0;
};

/// One zero-filled device block holding an ArrayList (allocated on the current device).
class DeviceStorage {
public:
    DeviceStorage() = default;
    DeviceStorage(const DeviceStorage&) = delete;
    DeviceStorage& operator=(const DeviceStorage&) = delete;
    ~DeviceStorage();

    /// Checks list.bytes() against budget.allowance(), then allocates, zero-fills (blocking) and
    /// binds. Throws CudaError "<what>: needs X MiB of GPU memory (largest arrays: ...), the
    /// budget allows Y MiB (...); <advice>" when it does not fit or the allocation fails.
    void allocate(const ArrayList& list, const MemoryBudget& budget, const std::string& what,
                  const std::string& advice);
    /// Allocates, zero-fills (blocking) and binds `list` without a budget check (the caller
    /// checked list.bytes() with what else it allocates). Throws CudaError naming `what` when
    /// the device is out of memory.
    void allocate(const ArrayList& list, const std::string& what);
    /// Frees the block (waits for the device).
    void release() noexcept;
    std::size_t bytes() const { return bytes_; }

private:
    void* block_ = nullptr;
    std::size_t bytes_ = 0;
};

} // namespace locus::gpu
