#pragma once
/// \file
/// Kernels and the device engine of the multi-start engine (nvcc only); the shared search
/// routine, the plan and the CPU twin are in multistart.hpp. Every mapping gives the same
/// searches as the CPU twin.
///
/// Mappings (Mapping): one thread per search (Luong et al.; the search's best permutation, swap
/// deltas and tabu matrix are interleaved across searches, element i of search s at
/// i * searches + s, so that the threads of a warp, which scan pairs in the same order, read
/// consecutive words); one warp per search, or one block per search (arrays contiguous per
/// search, the current permutation in shared memory, pairs dealt round-robin to the threads,
/// argmin and sums through the team layer). The policy's read-only data (the QAP matrices) is
/// copied into shared memory when it fits (MultiStartLaunch::data_on_chip); otherwise the kernels
/// read it through the read-only data cache (const __restrict__ global pointers).

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "locus/gpu/cuda_check.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/multistart.hpp"
#include "locus/gpu/team.cuh"
#include "locus/gpu/tuning.hpp"

namespace locus::gpu {

/// Threads per block of each mapping.
inline constexpr unsigned kMultiStartThreads = MultiStartTuning<kTuningArch>::kBlockThreads;
static_assert(kMultiStartThreads % 32 == 0, "teams of whole warps");

namespace detail {

/// One block per search.
using BlockSearchTeam = BlockTeam<kMultiStartThreads>;

/// Copies the policy's read-only data into shared memory (when `stage`) and returns the policy
/// to use.
template <class P> __device__ P stage_data(const P& problem, bool stage, std::int32_t* shared) {
    if (!stage) return problem;
    const std::uint32_t words = problem.data_words();
    const std::int32_t* from = problem.data();
    for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x)
        shared[i] = from[i];
    __syncthreads();
    return problem.with_data(shared);
}

template <class P>
__global__ void multistart_thread_kernel(const P problem, const MultiStartPlan plan,
                                         std::uint32_t searches, MultiStartArrays arrays,
                                         bool stage) {
    extern __shared__ __align__(16) std::int32_t s_words[];
    const P local = stage_data(problem, stage, s_words);
    const std::uint32_t search = blockIdx.x * blockDim.x + threadIdx.x;
    if (search >= searches) return;
    const std::int32_t n = local.size();
    const auto nn = static_cast<std::uint64_t>(n);
    std::int32_t* perm = arrays.perms + search * nn;
    for (std::int32_t i = 0; i < n; ++i)
        perm[i] = arrays.starts[search * nn + static_cast<std::uint64_t>(i)];
    const SearchArrays x{{arrays.best + search, searches},
                         {arrays.delta + search, searches},
                         {arrays.tabu == nullptr ? nullptr : arrays.tabu + search, searches}};
    arrays.results[search] = run_search(SerialTeam{}, local, plan, arrays.first + search, x, perm);
}

template <class P>
__global__ void multistart_warp_kernel(const P problem, const MultiStartPlan plan,
                                       std::uint32_t searches, MultiStartArrays arrays,
                                       std::uint32_t data_words) {
    extern __shared__ __align__(16) std::int32_t s_words[];
    const P local = stage_data(problem, data_words != 0, s_words);
    const std::int32_t n = local.size();
    const auto nn = static_cast<std::uint64_t>(n);
    const std::uint32_t warp = threadIdx.x / 32;
    const std::uint32_t search = blockIdx.x * (blockDim.x / 32) + warp;
    if (search >= searches) return; // whole warps leave; no block-wide barrier follows
    std::int32_t* perm = s_words + data_words + warp * static_cast<std::uint32_t>(n);
    const WarpTeam team;
    for (std::int32_t i = static_cast<std::int32_t>(team.rank()); i < n; i += 32)
        perm[i] = arrays.starts[search * nn + static_cast<std::uint64_t>(i)];
    const SearchArrays x{{arrays.best + search * nn, 1},
                         {arrays.delta + search * nn * nn, 1},
                         {arrays.tabu == nullptr ? nullptr : arrays.tabu + search * nn * nn, 1}};
    const SearchResult result = run_search(team, local, plan, arrays.first + search, x, perm);
    if (team.rank() == 0) arrays.results[search] = result;
}

template <class P>
__global__ void multistart_block_kernel(const P problem, const MultiStartPlan plan,
                                        std::uint32_t searches, MultiStartArrays arrays,
                                        std::uint32_t data_words) {
    extern __shared__ __align__(16) std::int32_t s_words[];
    __shared__ BlockSearchTeam::Storage s_team;
    const P local = stage_data(problem, data_words != 0, s_words);
    const std::int32_t n = local.size();
    const auto nn = static_cast<std::uint64_t>(n);
    const std::uint32_t search = blockIdx.x;
    std::int32_t* perm = s_words + data_words;
    const BlockSearchTeam team{&s_team};
    for (std::int32_t i = static_cast<std::int32_t>(threadIdx.x); i < n;
         i += static_cast<std::int32_t>(blockDim.x))
        perm[i] = arrays.starts[search * nn + static_cast<std::uint64_t>(i)];
    const SearchArrays x{{arrays.best + search * nn, 1},
                         {arrays.delta + search * nn * nn, 1},
                         {arrays.tabu == nullptr ? nullptr : arrays.tabu + search * nn * nn, 1}};
    const SearchResult result = run_search(team, local, plan, arrays.first + search, x, perm);
    if (threadIdx.x == 0) arrays.results[search] = result;
}

} // namespace detail

/// Largest policy data (bytes) copied into shared memory per block.
inline constexpr std::size_t kChipDataBytes = MultiStartTuning<kTuningArch>::kChipDataBytes;

/// Multi-start searches on the device: buffers for up to `capacity` searches allocated at
/// construction; run() launches one kernel per `capacity` searches.

/// The most searches of length n whose buffers fit in `budget` now (at least 1; the engine's
/// constructor says so when even one does not fit). The storage list is linear in the searches
/// up to its alignment, which the per-search bytes of a 1024-search list absorb.
inline std::uint32_t multistart_fitting_searches(std::int32_t n, Mapping mapping, Strategy strategy,
                                                 const MemoryBudget& budget = {}) {
    const std::size_t per_1024 = multistart_bytes_needed(n, 1024, mapping, strategy);
    const std::size_t one = std::max<std::size_t>((per_1024 + 1023) / 1024, 1);
    const std::size_t fit = budget.allowance() / one;
    return static_cast<std::uint32_t>(std::clamp<std::size_t>(fit, 1, 0xFFFFFFFFu));
}

template <class P> class MultiStartEngine {
public:
    /// `problem` holds device pointers. Throws locus::Error when the mapping cannot run (the
    /// permutation does not fit in shared memory) and CudaError naming the buffer when the
    /// device is out of memory.
    MultiStartEngine(const P& problem, std::uint32_t capacity, Mapping mapping, Strategy strategy,
                     const MemoryBudget& budget = {})
        : problem_(problem), capacity_(capacity), mapping_(mapping), strategy_(strategy) {
        if (capacity == 0) throw Error("multi-start engine: a capacity of 0 searches");
        const auto n = static_cast<std::size_t>(problem.size());
        int device = 0;
        LOCUS_CUDA_CHECK(cudaGetDevice(&device));
        int optin = 0;
        LOCUS_CUDA_CHECK(
            cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        const std::size_t perm_bytes = mapping == Mapping::thread ? 0
                                       : mapping == Mapping::warp
                                           ? (kMultiStartThreads / 32) * n * 4
                                           : n * 4;
        const std::size_t data_bytes = static_cast<std::size_t>(problem.data_words()) * 4;
        const std::size_t limit = static_cast<std::size_t>(optin) - 1024; // static shared + slack
        if (perm_bytes > limit)
            throw Error("multi-start engine: the permutations of one block need " +
                        std::to_string(perm_bytes) + " bytes of shared memory, more than the " +
                        std::to_string(limit) + " the device allows; use the thread mapping");
        // NOTE: data on chip costs occupancy (it is copied per block); beyond kChipDataBytes the
        // read-only cache path, which the L1 holds for all resident blocks at once, is faster.
        data_on_chip_ = data_bytes <= kChipDataBytes && data_bytes + perm_bytes <= limit;
        shared_bytes_ = (data_on_chip_ ? data_bytes : 0) + perm_bytes;
        ArrayList list;
        arrays_.declare(list, problem.size(), capacity, mapping, strategy);
        storage_.allocate(list, budget,
                          "multi-start engine (" + std::to_string(capacity) +
                              " searches of n = " + std::to_string(problem.size()) + ")",
                          "run fewer searches per launch (the batch size)");
    }

    /// Device bytes allocated (the storage list's block).
    std::size_t device_bytes() const { return storage_.bytes(); }
    /// Whether the policy's data is copied into shared memory.
    bool data_on_chip() const { return data_on_chip_; }

    /// Runs `searches` searches from the host permutations `starts` (searches * n) and copies
    /// the best permutations (contiguous per search) and the results back. Blocking. More
    /// searches than the capacity run in consecutive launches of at most `capacity` searches;
    /// search i keeps its random stream (and its result) whatever the split. `stop` (optional)
    /// is asked between launches and, once a launch has run 0.2 s, while waiting for it: the
    /// searches under way then end with their best so far. Returns the number of searches run
    /// (a prefix of the round; `best` and `results` of the others are left untouched).
    std::uint32_t run(const MultiStartConfig& config, std::uint32_t searches,
                      const std::int32_t* starts, std::int32_t* best, SearchResult* results,
                      const std::function<bool()>& stop = {}) {
        if (config.strategy == Strategy::ts && strategy_ != Strategy::ts)
            throw Error("multi-start engine: built without tabu matrices; construct it for "
                        "Strategy::ts");
        const MultiStartPlan plan = plan_multistart(config, problem_.size());
        const auto nn = static_cast<std::size_t>(problem_.size());
        std::uint32_t first = 0;
        while (first < searches) {
            if (first > 0 && stop && (halt_.raised() || stop())) break;
            const std::uint32_t count = std::min(capacity_, searches - first);
            launch(plan, first, count, starts + first * nn, best + first * nn, results + first,
                   stop);
            first += count;
        }
        return first;
    }

    /// Number of searches one launch holds.
    std::uint32_t capacity() const { return capacity_; }

private:
    void launch(const MultiStartPlan& search_plan, std::uint32_t first, std::uint32_t searches,
                const std::int32_t* starts, std::int32_t* best, SearchResult* results,
                const std::function<bool()>& stop) {
        // With `stop`, the kernel's searches read a halt flag in mapped host memory, which
        // this thread raises when `stop` says so while it waits (n = 1000: one launch can
        // take minutes). A launch is only watched after kWatchAfter: shorter ones end by
        // themselves and `stop` is asked between launches, as before.
        MultiStartPlan plan = search_plan;
        halt_.lower();
        if (stop) plan.halt = halt_.device();
        const auto nn = static_cast<std::size_t>(problem_.size());
        LOCUS_CUDA_CHECK(
            cudaMemcpy(arrays_.starts, starts, searches * nn * 4, cudaMemcpyHostToDevice));
        MultiStartArrays arrays = arrays_;
        arrays.tabu = plan.strategy == Strategy::ts ? arrays_.tabu : nullptr;
        arrays.first = first;
        const std::uint32_t data_words = data_on_chip_ ? problem_.data_words() : 0;
        if (mapping_ == Mapping::thread) {
            const auto kernel = detail::multistart_thread_kernel<P>;
            set_shared(kernel);
            const unsigned blocks = (searches + kMultiStartThreads - 1) / kMultiStartThreads;
            kernel<<<blocks, kMultiStartThreads, shared_bytes_>>>(problem_, plan, searches, arrays,
                                                                  data_on_chip_);
        } else if (mapping_ == Mapping::warp) {
            const auto kernel = detail::multistart_warp_kernel<P>;
            set_shared(kernel);
            const unsigned per_block = kMultiStartThreads / 32;
            const unsigned blocks = (searches + per_block - 1) / per_block;
            kernel<<<blocks, kMultiStartThreads, shared_bytes_>>>(problem_, plan, searches, arrays,
                                                                  data_words);
        } else {
            const auto kernel = detail::multistart_block_kernel<P>;
            set_shared(kernel);
            kernel<<<searches, kMultiStartThreads, shared_bytes_>>>(problem_, plan, searches,
                                                                    arrays, data_words);
        }
        LOCUS_CUDA_CHECK(cudaGetLastError());
        if (stop) halt_.watch(nullptr, stop, kWatchAfter);
        LOCUS_CUDA_CHECK(cudaDeviceSynchronize());
        if (mapping_ == Mapping::thread) {
            // Interleaved: element i of search s at i * searches + s.
            std::vector<std::int32_t> interleaved(searches * nn);
            LOCUS_CUDA_CHECK(cudaMemcpy(interleaved.data(), arrays_.best, interleaved.size() * 4,
                                        cudaMemcpyDeviceToHost));
            for (std::size_t s = 0; s < searches; ++s)
                for (std::size_t i = 0; i < nn; ++i)
                    best[s * nn + i] = interleaved[i * searches + s];
        } else {
            LOCUS_CUDA_CHECK(
                cudaMemcpy(best, arrays_.best, searches * nn * 4, cudaMemcpyDeviceToHost));
        }
        LOCUS_CUDA_CHECK(cudaMemcpy(results, arrays_.results, searches * sizeof(SearchResult),
                                    cudaMemcpyDeviceToHost));
    }

    template <class K> void set_shared(K kernel) const {
        if (shared_bytes_ > 48 * 1024)
            LOCUS_CUDA_CHECK(cudaFuncSetAttribute(kernel,
                                                  cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                  static_cast<int>(shared_bytes_)));
    }

    P problem_;
    std::uint32_t capacity_;
    Mapping mapping_;
    bool data_on_chip_ = false;
    std::size_t shared_bytes_ = 0;
    Strategy strategy_;
    MultiStartArrays arrays_;
    DeviceStorage storage_;
    MappedFlag halt_;
    static constexpr std::chrono::milliseconds kWatchAfter{200};
};

} // namespace locus::gpu
