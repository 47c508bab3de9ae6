#pragma once
/// \file
/// Kernels, launchers and the device engine of the successor engine (nvcc only). Types, the
/// shared per-state routine and the CPU twin are in successor_engine.hpp; both backends produce
/// bit-identical successors.
///
/// Thread mapping: one thread block (a team of `group_threads` threads, a multiple of the warp
/// size, by default 128 or 256 by the number of possibilities) serves one state at a time; a
/// grid of as many blocks as fit on the device at once walks over the states (grid-stride), so
/// per-group scratch is sized by the device, not by the number of states. Possibilities are rated
/// in block-stride loops into the ratings array (shared memory when the plan keeps it on chip, else
/// the group's global scratch); aggregators are merged through the team layer (CUB warp reductions,
/// then across warps); every thread maps and sums a whole segment of 32 possibilities (skewed
/// start, no bank conflicts); the segment sums are prefix-summed in place into the lookup in shared
/// memory; every thread binary-searches the lookup for the drawn value; the first warp recomputes
/// the 32 weights of the found segment and prefix-sums them with shuffles to find the possibility.
/// The state slot is staged in shared memory when the plan allows. Launchers enqueue work on
/// `stream` and return without synchronizing; launch errors come back as cudaError_t.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "locus/gpu/cuda_check.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/successor_engine.hpp"
#include "locus/gpu/team.cuh"
#include "locus/gpu/tuning.hpp"

namespace locus::gpu {

namespace detail {

/// The block of the assignment kernel as a team (any multiple of 32 threads): its collectives
/// move aggregators and 64-bit sums.
template <class A> using SuccessorTeam = BlockTeam<0, (sizeof(A) > 8 ? sizeof(A) : 8)>;

/// Clone kernel: target slot t = source slot t / k, successor value
/// successor_value(seed, first + t).
/// One thread per target word (grid-stride). A template so that the header defines no
/// non-inline kernel.
template <unsigned kThreads>
__global__ void __launch_bounds__(kThreads)
    clone_states_kernel(SuccessorLayout layout, const std::int32_t* source, std::uint64_t targets,
                        std::uint32_t k, std::uint64_t seed, std::int32_t* target,
                        std::uint64_t first) {
    const std::uint64_t words = targets * layout.slot_words;
    const std::uint64_t seed_word = layout.user_words + layout.mask_words;
    for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
         i < words; i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
        const std::uint64_t t = i / layout.slot_words;
        const std::uint64_t w = i - t * layout.slot_words;
        std::int32_t value = source[(t / k) * layout.slot_words + w];
        if (w == seed_word || w == seed_word + 1) {
            const std::uint64_t successor = successor_value(seed, first + t);
            value = static_cast<std::int32_t>(
                static_cast<std::uint32_t>(w == seed_word ? successor : successor >> 32));
        }
        target[i] = value;
    }
}

/// Assignment kernel: block b assigns every active variable of slots b, b + gridDim.x, ...
/// (FANG Algorithm 1). Dynamic shared memory: plan.shared_bytes (the segment lookup, then the
/// ratings and the staged slot when the plan keeps them on chip). `ratings` (global) holds
/// gridDim.x * bound entries when the ratings are not on chip. kRatingsOnChip must equal
/// plan.ratings_on_chip (one instantiation each, so that the ratings are read and written with
/// shared- or global-memory instructions rather than generic ones).
template <class P, bool kRatingsOnChip>
__global__ void assign_states_kernel(const P problem, SuccessorLayout layout, std::int32_t* slots,
                                     std::uint32_t count, std::uint32_t bound,
                                     typename P::rating_type* ratings, SuccessorPlan plan,
                                     bool random_order) {
    using A = typename P::aggregator_type;
    using R = typename P::rating_type;
    static_assert(alignof(A) <= 16, "aggregator_type must not need more than 16-byte alignment");
    static_assert(alignof(R) <= 16, "rating_type must not need more than 16-byte alignment");
    extern __shared__ __align__(16) unsigned char s_dynamic[];
    __shared__ typename SuccessorTeam<A>::Storage s_team;
    const SuccessorTeam<A> team{&s_team};
    const Scratch<R> scratch{kRatingsOnChip
                                 ? reinterpret_cast<R*>(s_dynamic + plan.ratings_offset)
                                 : ratings + static_cast<std::uint64_t>(blockIdx.x) * bound,
                             reinterpret_cast<std::uint64_t*>(s_dynamic)};
    auto* staged = reinterpret_cast<std::int32_t*>(s_dynamic + plan.state_offset);
    for (std::uint64_t state = blockIdx.x; state < count; state += gridDim.x) {
        std::int32_t* slot = slots + state * layout.slot_words;
        if (plan.state_on_chip) {
            for (std::uint32_t w = threadIdx.x; w < layout.slot_words; w += blockDim.x)
                staged[w] = slot[w];
            __syncthreads();
            assign_state(team, problem, layout, staged, bound, scratch, random_order);
            __syncthreads();
            for (std::uint32_t w = threadIdx.x; w < layout.slot_words; w += blockDim.x)
                slot[w] = staged[w];
            __syncthreads();
        } else {
            assign_state(team, problem, layout, slot, bound, scratch, random_order);
        }
    }
}

/// The assignment kernel for ratings on chip or in global memory.
template <class P> auto assign_kernel(bool ratings_on_chip) {
    return ratings_on_chip ? assign_states_kernel<P, true> : assign_states_kernel<P, false>;
}

} // namespace detail

/// Enqueues the clone step on `stream`: target slot t (t < sources * k) = source slot t / k
/// with successor value successor_value(seed, first + t). Device pointers; source and target
/// must not overlap.
inline cudaError_t clone_states(const SuccessorLayout& layout, const std::int32_t* source,
                                std::uint32_t sources, std::uint32_t k, std::uint64_t seed,
                                std::int32_t* target, cudaStream_t stream,
                                std::uint64_t first = 0) {
    const std::uint64_t targets = static_cast<std::uint64_t>(sources) * k;
    const std::uint64_t words = targets * layout.slot_words;
    if (words == 0) return cudaSuccess;
    using Launch = ElementwiseTuning<kTuningArch>;
    detail::clone_states_kernel<Launch::kBlockThreads>
        <<<Launch::blocks(words), Launch::kBlockThreads, 0, stream>>>(
        layout, source, targets, k, seed, target, first);
    return cudaGetLastError();
}

/// How the assignment kernel of P runs on the current device under `config`: the shared-memory
/// plan (chip_bytes lowered to what the device allows), the threads per block and the number
/// of blocks that fit on the device at once.
struct SuccessorLaunch {
    SuccessorPlan plan;
    unsigned threads = 0;
    std::uint32_t groups = 0; ///< blocks resident on the device at once (the grid size)
    int registers = 0;        ///< registers per thread of the kernel
};

/// Plans the assignment kernel of `problem` for the current device. Throws locus::Error when
/// the segment lookup and the kernel's static shared memory exceed the device's limit, and
/// CudaError on a CUDA failure. Precondition: check_successor_config(config, bound) passed.
template <class P>
SuccessorLaunch plan_successor_launch(const P& problem, const SuccessorConfig& config) {
    int device = 0;
    LOCUS_CUDA_CHECK(cudaGetDevice(&device));
    int optin = 0;
    int processors = 0;
    LOCUS_CUDA_CHECK(
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    LOCUS_CUDA_CHECK(cudaDeviceGetAttribute(&processors, cudaDevAttrMultiProcessorCount, device));
    cudaFuncAttributes attributes{};
    LOCUS_CUDA_CHECK(cudaFuncGetAttributes(&attributes, detail::assign_kernel<P>(true)));
    const std::size_t lookup = align16(8ull * segment_count(problem.max_possibilities()));
    const std::size_t available = static_cast<std::size_t>(optin) - attributes.sharedSizeBytes;
    if (lookup > available)
        throw Error("successor engine: the segment lookup needs " + std::to_string(lookup) +
                    " bytes of shared memory, but the device allows " + std::to_string(available) +
                    " per block; bound the possibilities");
    SuccessorConfig adjusted = config;
    adjusted.chip_bytes = std::min(config.chip_bytes, available - lookup);
    SuccessorLaunch launch;
    launch.plan = successor_plan(problem, adjusted);
    const auto kernel = detail::assign_kernel<P>(launch.plan.ratings_on_chip);
    if (!launch.plan.ratings_on_chip) LOCUS_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    launch.registers = attributes.numRegs;
    // NOTE: decisions do not depend on the team size, so a group smaller than requested
    // (when the kernel's register use does not allow group_threads) gives the same successors.
    const unsigned most = static_cast<unsigned>(attributes.maxThreadsPerBlock) / 32 * 32;
    const unsigned wanted = config.group_threads != 0 ? config.group_threads
                            : problem.max_possibilities() < SuccessorTuning<kTuningArch>::kWideFrom
                                ? SuccessorTuning<kTuningArch>::kGroupThreads
                                : SuccessorTuning<kTuningArch>::kWideGroupThreads;
    launch.threads = wanted < most ? wanted : most;
    if (launch.plan.shared_bytes > 48 * 1024)
        LOCUS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(launch.plan.shared_bytes)));
    int per_processor = 0;
    LOCUS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_processor, kernel, static_cast<int>(launch.threads), launch.plan.shared_bytes));
    if (per_processor < 1)
        throw Error("successor engine: a group of " + std::to_string(launch.threads) +
                    " threads with " + std::to_string(launch.plan.shared_bytes) +
                    " bytes of shared memory does not fit on the device; lower "
                    "SuccessorConfig::group_threads or chip_bytes");
    launch.groups =
        static_cast<std::uint32_t>(per_processor) * static_cast<std::uint32_t>(processors);
    return launch;
}

/// Enqueues the assignment step on `stream` for the `count` device slots at `slots`, planned by
/// plan_successor_launch. When the ratings are not on chip, `ratings` holds launch.groups *
/// max_possibilities() elements.
template <class P>
cudaError_t assign_states(const P& problem, const SuccessorConfig& config,
                          const SuccessorLaunch& launch, std::int32_t* slots, std::uint32_t count,
                          typename P::rating_type* ratings, cudaStream_t stream) {
    static_assert(SuccessorProblem<P>, "P does not model locus::gpu::SuccessorProblem");
    if (count == 0) return cudaSuccess;
    const std::uint32_t blocks = std::min(count, launch.groups);
    const auto kernel = detail::assign_kernel<P>(launch.plan.ratings_on_chip);
    kernel<<<blocks, launch.threads, launch.plan.shared_bytes, stream>>>(
        problem, successor_layout(problem), slots, count, problem.max_possibilities(), ratings,
        launch.plan, config.random_order);
    return cudaGetLastError();
}

/// Successor generation on the device with double buffering (FANG §3.3): every buffer is
/// allocated at construction for up to `capacity` states (device_bytes()).
template <class P> class SuccessorEngine {
    static_assert(SuccessorProblem<P>, "P does not model locus::gpu::SuccessorProblem");

public:
    /// Validates `config` (throws locus::Error), plans the kernel for the current device and
    /// allocates every buffer (throws CudaError naming the buffer when the device is out of
    /// memory).
    SuccessorEngine(const P& problem, std::uint32_t capacity, SuccessorConfig config = {})
        : problem_(problem), layout_(successor_layout(problem)), config_(config),
          capacity_(capacity) {
        check_successor_config(config_, problem_.max_possibilities());
        launch_ = plan_successor_launch(problem_, config_);
        const std::size_t slots = static_cast<std::size_t>(capacity) * layout_.slot_words;
        source_.allocate(slots, "successor source states");
        target_.allocate(slots, "successor target states");
        if (!launch_.plan.ratings_on_chip)
            ratings_.allocate(static_cast<std::size_t>(launch_.groups) *
                                  problem_.max_possibilities(),
                              "successor rating scratch");
    }

    /// Device bytes allocated, measured from the buffers (successor_bytes_needed predicts it
    /// for this device's plan).
    std::size_t device_bytes() const {
        return source_.bytes() + target_.bytes() + ratings_.bytes();
    }
    /// The kernel's plan on this device.
    const SuccessorLaunch& launch() const { return launch_; }

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
    void generate(std::uint32_t k, std::uint64_t seed, cudaStream_t stream = nullptr,
                  std::uint64_t first = 0) {
        const std::uint64_t targets = static_cast<std::uint64_t>(size_) * k;
        check_count(targets);
        LOCUS_CUDA_CHECK(clone_states(layout_, source_.data(), size_, k, seed, target_.data(),
                                      stream, first));
        LOCUS_CUDA_CHECK(assign_states(problem_, config_, launch_, target_.data(),
                                       static_cast<std::uint32_t>(targets), ratings_.data(),
                                       stream));
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
    void check_count(std::uint64_t count) const { check_successor_capacity(count, capacity_); }

    P problem_;
    SuccessorLayout layout_;
    SuccessorConfig config_;
    std::uint32_t capacity_;
    SuccessorLaunch launch_;
    std::uint32_t size_ = 0;
    DeviceBuffer<std::int32_t> source_;
    DeviceBuffer<std::int32_t> target_;
    DeviceBuffer<typename P::rating_type> ratings_;
};

} // namespace locus::gpu
