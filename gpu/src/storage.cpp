#include "locus/gpu/storage.hpp"

#include <algorithm>
#include <cstring>
#include <new>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/gpu/cuda_check.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "out_of_memory.hpp"

namespace locus::gpu {
namespace {

std::size_t aligned(std::size_t bytes) {
    return (bytes + ArrayList::kAlignment - 1) / ArrayList::kAlignment * ArrayList::kAlignment;
}

} // namespace

using detail::mib;

std::size_t ArrayList::bytes() const {
    std::size_t total = 0;
    for (const Entry& e : entries_)
        total += aligned(e.bytes);
    return total;
}

void ArrayList::bind(void* base) const {
    auto* at = static_cast<std::byte*>(base);
    for (const Entry& e : entries_) {
        *e.pointer = e.bytes == 0 ? nullptr : at;
        at += aligned(e.bytes);
    }
}

std::string ArrayList::largest() const {
    std::vector<const Entry*> order;
    for (const Entry& e : entries_)
        order.push_back(&e);
    std::stable_sort(order.begin(), order.end(),
                     [](const Entry* a, const Entry* b) { return a->bytes > b->bytes; });
    std::string text;
    for (std::size_t k = 0; k < order.size() && k < 3; ++k)
        text +=
            fmt::format("{}{} ({} MiB)", k == 0 ? "" : ", ", order[k]->what, mib(order[k]->bytes));
    return text;
}

void HostStorage::allocate(const ArrayList& list, std::size_t budget) {
    bytes_ = list.bytes();
    if (budget != 0 && bytes_ > budget)
        throw Error(fmt::format("the search's arrays need {} MiB of host memory (largest: {}), "
                                "memory_budget allows {} MiB; raise memory_budget or use a "
                                "smaller batch",
                                mib(bytes_), list.largest(), mib(budget)));
    // NOTE: calloc of a large block maps zero pages that become resident when written; a
    // value-initialised array (and a memset) wrote every byte before the search could start.
    block_.reset(static_cast<std::byte*>(std::calloc(std::max<std::size_t>(bytes_, 1), 1)));
    if (!block_)
        throw Error(fmt::format("out of host memory: the search's arrays need {} MiB (largest: "
                                "{}), more than this machine can allocate; use a smaller batch",
                                mib(bytes_), list.largest()));
    list.bind(block_.get());
}

DeviceStorage::~DeviceStorage() { release(); }

void DeviceStorage::release() noexcept {
    if (block_ != nullptr)
        (void)cudaFree(block_);
    block_ = nullptr;
    bytes_ = 0;
}

void DeviceStorage::allocate(const ArrayList& list, const MemoryBudget& budget,
                             const std::string& what, const std::string& advice) {
    const std::size_t need = list.bytes();
    const std::size_t allowed = budget.allowance();
    const std::string rule = budget.bytes != 0
                                 ? std::string("memory_budget")
                                 : fmt::format("memory_fraction {} of the free memory",
                                               budget.fraction);
    if (need > allowed)
        throw CudaError(fmt::format("{}: needs {} MiB of GPU memory (largest arrays: {}), "
                                    "the budget allows {} MiB ({}); {}",
                                    what, mib(need), list.largest(), mib(allowed), rule, advice));
    allocate(list, what);
}

void DeviceStorage::allocate(const ArrayList& list, const std::string& what) {
    release();
    const std::size_t need = list.bytes();
    const cudaError_t status = cudaMalloc(&block_, std::max<std::size_t>(need, 1));
    if (status != cudaSuccess) {
        block_ = nullptr;
        throw_allocation_error(status, need, what);
    }
    bytes_ = need;
    LOCUS_CUDA_CHECK(cudaMemset(block_, 0, need));
    LOCUS_CUDA_CHECK(cudaDeviceSynchronize()); // ordered before work on non-blocking streams
    list.bind(block_);
}

} // namespace locus::gpu
