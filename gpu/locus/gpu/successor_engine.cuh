#pragma once
/// \file
/// Kernels, launchers and the device engine of the successor engine (nvcc only). Types, the
/// shared per-state routine and the CPU twin are in successor_engine.hpp; both backends produce
/// bit-identical successors.
///
/// Thread mapping: one thread block (a team of `group_threads` threads, a multiple of the warp
/// size) per state. Possibilities are rated and mapped in block-stride loops; aggregators are
/// merged with warp shuffles then across warps in shared memory; weights are prefix-summed in
/// 64-bit integers with warp shuffles then across warps; the segment lookup (one 64-bit right
/// boundary per 32 possibilities) lives in dynamic shared memory; the segment search is a
/// block-stride loop with a block minimum per round; the in-segment match runs on the first
/// warp. Launchers enqueue work on `stream` and return without synchronizing; launch errors
/// come back as cudaError_t.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "locus/gpu/cuda_check.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/successor_engine.hpp"

namespace locus::gpu {

namespace detail {

inline constexpr unsigned kSuccessorFullMask = 0xFFFFFFFFu;

/// Shuffle of any trivially copyable value across the lanes of a warp, word by word.
template <class V>
__device__ __forceinline__ V shuffle_down_any(const V& value, unsigned offset) {
    constexpr unsigned kWords = (sizeof(V) + 3) / 4;
    unsigned words[kWords] = {};
    memcpy(words, &value, sizeof(V));
    for (unsigned w = 0; w < kWords; ++w)
        words[w] = __shfl_down_sync(kSuccessorFullMask, words[w], offset);
    V out;
    memcpy(&out, words, sizeof(V));
    return out;
}

/// The team of a thread block: collectives over all its threads (every thread must call them;
/// each starts and ends with no pending shared-memory reads of its own storage).
template <class A>
struct BlockTeam {
    std::uint64_t* scan;   ///< shared, one word per warp
    std::uint32_t* minima; ///< shared, one word per warp
    A* aggregators;        ///< shared, one per warp

    __device__ std::uint32_t rank() const { return threadIdx.x; }
    __device__ std::uint32_t size() const { return blockDim.x; }
    __device__ void sync() const { __syncthreads(); }

    /// The merge of every thread's aggregator (the same value in every thread): a tree over the
    /// lanes of each warp, then the warps' results in warp order.
    __device__ A reduce(A value) const {
        for (unsigned offset = 16; offset > 0; offset >>= 1)
            value.combine(shuffle_down_any(value, offset));
        const unsigned warps = blockDim.x / 32;
        if (threadIdx.x % 32 == 0)
            aggregators[threadIdx.x / 32] = value;
        __syncthreads();
        A total = aggregators[0];
        for (unsigned w = 1; w < warps; ++w)
            total.combine(aggregators[w]);
        __syncthreads();
        return total;
    }

    /// Inclusive prefix sum of `value` over the block (thread order); `total` = block sum.
    __device__ std::uint64_t inclusive_scan(std::uint64_t value, std::uint64_t& total) const {
        const unsigned lane = threadIdx.x % 32;
        const unsigned warp = threadIdx.x / 32;
        for (unsigned offset = 1; offset < 32; offset <<= 1) {
            const std::uint64_t other = __shfl_up_sync(kSuccessorFullMask, value, offset);
            if (lane >= offset)
                value += other;
        }
        if (lane == 31)
            scan[warp] = value;
        __syncthreads();
        std::uint64_t before = 0;
        std::uint64_t sum = 0;
        const unsigned warps = blockDim.x / 32;
        for (unsigned w = 0; w < warps; ++w) {
            before += w < warp ? scan[w] : 0;
            sum += scan[w];
        }
        __syncthreads();
        total = sum;
        return before + value;
    }

    /// The minimum of `value` over the block (the same in every thread).
    __device__ std::uint32_t min(std::uint32_t value) const {
        for (unsigned offset = 16; offset > 0; offset >>= 1) {
            const std::uint32_t other = __shfl_down_sync(kSuccessorFullMask, value, offset);
            value = other < value ? other : value;
        }
        if (threadIdx.x % 32 == 0)
            minima[threadIdx.x / 32] = value;
        __syncthreads();
        std::uint32_t result = kNoIndex;
        for (unsigned w = 0; w < blockDim.x / 32; ++w)
            result = minima[w] < result ? minima[w] : result;
        __syncthreads();
        return result;
    }
};

/// Clone kernel: target slot t = source slot t / k, successor value successor_value(seed, t).
/// One thread per target word (grid-stride). A template so that the header defines no
/// non-inline kernel.
template <unsigned kThreads>
__global__ void __launch_bounds__(kThreads)
    clone_states_kernel(SuccessorLayout layout, const std::int32_t* source, std::uint64_t targets,
                        std::uint32_t k, std::uint64_t seed, std::int32_t* target) {
    const std::uint64_t words = targets * layout.slot_words;
    const std::uint64_t seed_word = layout.user_words + layout.mask_words;
    for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
         i < words; i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
        const std::uint64_t t = i / layout.slot_words;
        const std::uint64_t w = i - t * layout.slot_words;
        std::int32_t value = source[(t / k) * layout.slot_words + w];
        if (w == seed_word || w == seed_word + 1) {
            const std::uint64_t successor = successor_value(seed, t);
            value = static_cast<std::int32_t>(
                static_cast<std::uint32_t>(w == seed_word ? successor : successor >> 32));
        }
        target[i] = value;
    }
}

/// Assignment kernel: block s assigns every active variable of slot s (FANG Algorithm 1).
/// Dynamic shared memory: segment_count(bound) 64-bit words.
template <class P>
__global__ void assign_states_kernel(const P problem, SuccessorLayout layout, std::int32_t* slots,
                                     std::uint32_t bound, typename P::rating_type* ratings,
                                     std::uint64_t* prefix, bool random_order) {
    using A = typename P::aggregator_type;
    static_assert(alignof(A) <= 16, "aggregator_type must not need more than 16-byte alignment");
    extern __shared__ std::uint64_t s_segments[];
    __shared__ std::uint64_t s_scan[32];
    __shared__ std::uint32_t s_min[32];
    __shared__ __align__(16) unsigned char s_agg[32 * sizeof(A)];
    const BlockTeam<A> team{s_scan, s_min, reinterpret_cast<A*>(s_agg)};
    const std::uint64_t state = blockIdx.x;
    const Scratch<typename P::rating_type> scratch{ratings + state * bound, prefix + state * bound,
                                                   s_segments};
    assign_state(team, problem, layout, slots + state * layout.slot_words, bound, scratch,
                 random_order);
}

} // namespace detail

/// Enqueues the clone step on `stream`: target slot t (t < sources * k) = source slot t / k
/// with successor value successor_value(seed, t). Device pointers; source and target must not
/// overlap.
inline cudaError_t clone_states(const SuccessorLayout& layout, const std::int32_t* source,
                                std::uint32_t sources, std::uint32_t k, std::uint64_t seed,
                                std::int32_t* target, cudaStream_t stream) {
    const std::uint64_t targets = static_cast<std::uint64_t>(sources) * k;
    const std::uint64_t words = targets * layout.slot_words;
    if (words == 0)
        return cudaSuccess;
    const std::uint64_t blocks = std::min<std::uint64_t>((words + 255) / 256, 65535);
    detail::clone_states_kernel<256><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(
        layout, source, targets, k, seed, target);
    return cudaGetLastError();
}

/// Enqueues the assignment step on `stream` for the `count` device slots at `slots`.
/// `ratings` and `prefix` hold count * max_possibilities() elements each. One block of
/// config.group_threads threads per state (fewer, in multiples of 32, when the kernel's
/// register use does not allow that many; results are the same). Precondition:
/// check_successor_config(config, problem.max_possibilities()) passed.
template <class P>
cudaError_t assign_states(const P& problem, const SuccessorConfig& config, std::int32_t* slots,
                          std::uint32_t count, typename P::rating_type* ratings,
                          std::uint64_t* prefix, cudaStream_t stream) {
    static_assert(SuccessorProblem<P>, "P does not model locus::gpu::SuccessorProblem");
    if (count == 0)
        return cudaSuccess;
    const std::uint32_t bound = problem.max_possibilities();
    const std::size_t shared = 8 * static_cast<std::size_t>(segment_count(bound));
    // NOTE: a lookup beyond the default 48 KiB of shared memory per block (static included)
    // needs the kernel's opt-in.
    if (shared > 32 * 1024) {
        const cudaError_t status =
            cudaFuncSetAttribute(detail::assign_states_kernel<P>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(shared));
        if (status != cudaSuccess)
            return status;
    }
    // NOTE: decisions do not depend on the team size, so a group smaller than requested
    // (when the kernel's register use does not allow group_threads) gives the same successors.
    cudaFuncAttributes attributes{};
    const cudaError_t status = cudaFuncGetAttributes(&attributes, detail::assign_states_kernel<P>);
    if (status != cudaSuccess)
        return status;
    const unsigned most = static_cast<unsigned>(attributes.maxThreadsPerBlock) / 32 * 32;
    const unsigned threads = config.group_threads < most ? config.group_threads : most;
    detail::assign_states_kernel<P><<<count, threads, shared, stream>>>(
        problem, successor_layout(problem), slots, bound, ratings, prefix, config.random_order);
    return cudaGetLastError();
}

/// Successor generation on the device with double buffering (FANG §3.3): every buffer is
/// allocated at construction for up to `capacity` states (bytes_needed()).
template <class P>
class SuccessorEngine {
    static_assert(SuccessorProblem<P>, "P does not model locus::gpu::SuccessorProblem");

public:
    /// Validates `config` (throws locus::Error) and allocates every buffer (throws CudaError
    /// naming the buffer when the device is out of memory).
    SuccessorEngine(const P& problem, std::uint32_t capacity, SuccessorConfig config = {})
        : problem_(problem), layout_(successor_layout(problem)), config_(config),
          capacity_(capacity) {
        check_successor_config(config_, problem_.max_possibilities());
        const std::size_t slots = static_cast<std::size_t>(capacity) * layout_.slot_words;
        const std::size_t entries = static_cast<std::size_t>(capacity) * problem_.max_possibilities();
        source_.allocate(slots, "successor source states");
        target_.allocate(slots, "successor target states");
        ratings_.allocate(entries, "successor rating storage");
        prefix_.allocate(entries, "successor prefix-sum storage");
    }

    /// Device bytes of an engine for `capacity` states (successor_bytes_needed).
    static std::size_t bytes_needed(const P& problem, std::uint32_t capacity) {
        return successor_bytes_needed(problem, capacity);
    }

    /// Replaces the current states by `count` host slots copied from `slots`. Blocking: waits
    /// for the device first, so that no generation in flight still uses the buffer.
    void load(const std::int32_t* slots, std::uint32_t count) {
        check_count(count);
        LOCUS_CUDA_CHECK(cudaDeviceSynchronize());
        source_.upload(slots, static_cast<std::size_t>(count) * layout_.slot_words);
        size_ = count;
    }

    /// Replaces the current states by their successors (same contract as
    /// CpuSuccessorEngine::generate), ordered on `stream`; does not wait for the device.
    /// Successive generations must use the same stream (or be ordered by the caller).
    void generate(std::uint32_t k, std::uint64_t seed, cudaStream_t stream = nullptr) {
        const std::uint64_t targets = static_cast<std::uint64_t>(size_) * k;
        check_count(targets);
        LOCUS_CUDA_CHECK(
            clone_states(layout_, source_.data(), size_, k, seed, target_.data(), stream));
        LOCUS_CUDA_CHECK(assign_states(problem_, config_, target_.data(),
                                       static_cast<std::uint32_t>(targets), ratings_.data(),
                                       prefix_.data(), stream));
        std::swap(source_, target_);
        size_ = static_cast<std::uint32_t>(targets);
    }

    /// Copies the current states into `host` (size() slots; blocking, waits for the device).
    void download(std::int32_t* host) const {
        LOCUS_CUDA_CHECK(cudaDeviceSynchronize());
        source_.download(host, static_cast<std::size_t>(size_) * layout_.slot_words);
    }

    /// Number of current states.
    std::uint32_t size() const { return size_; }
    /// The current states on the device (size() slots).
    const std::int32_t* slots() const { return source_.data(); }
    const SuccessorLayout& layout() const { return layout_; }

private:
    void check_count(std::uint64_t count) const {
        if (count > capacity_)
            throw Error("successor engine: " + std::to_string(count) +
                        " states exceed the capacity of " + std::to_string(capacity_) +
                        " states; construct the engine with a larger capacity");
    }

    P problem_;
    SuccessorLayout layout_;
    SuccessorConfig config_;
    std::uint32_t capacity_;
    std::uint32_t size_ = 0;
    DeviceBuffer<std::int32_t> source_;
    DeviceBuffer<std::int32_t> target_;
    DeviceBuffer<typename P::rating_type> ratings_;
    DeviceBuffer<std::uint64_t> prefix_;
};

} // namespace locus::gpu
