#pragma once
/// \file
/// CUDA backend of the many-chain engine (nvcc only): one block per chain runs the chain routine
/// of chain_engine.hpp with the block as its team; one launch per epoch. Include it in the
/// plugin's own .cu file (kernels are instantiated where they are launched).
///
/// The kernels are launched through three groups (ChainIterationLaunch, ChainRestartLaunch,
/// ChainExchangeLaunch), each a class template whose members are defined out of line. A plugin
/// whose policy makes large kernels may compile the groups in translation units of their own:
/// where the runner is named, `extern template struct gpu::ChainRestartLaunch<P>;` (and the
/// others) keeps a group out of that unit, and `template struct gpu::ChainRestartLaunch<P>;`
/// in another .cu file instantiates it there (problems/dcvrp/src/route_chains_cuda*.cu). The
/// iterations and the restarts each inline the whole chain routine, so nvcc compiles them in
/// parallel instead of one after the other.

#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "locus/error.hpp"
#include "locus/gpu/chain_engine.hpp"
#include "locus/gpu/cuda_check.hpp"
#include "locus/gpu/device.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/stream.hpp"
#include "locus/gpu/team.cuh"
#include "locus/gpu/tuning.hpp"

namespace locus::gpu {

namespace detail {

template <class P, unsigned kThreads>
__global__ void __launch_bounds__(kThreads)
    chain_kernel(const P policy, const ChainArrays a, const ChainParams params, std::uint64_t first,
                 std::uint32_t iterations, bool initialize, std::uint32_t leaders) {
    if (!descends_at_start(blockIdx.x, leaders, gridDim.x)) return;
    __shared__ typename BlockTeam<kThreads>::Storage s_team;
    run_chain(BlockTeam<kThreads>{&s_team}, policy, a, params, blockIdx.x, first, iterations,
              initialize);
}

/// Thread per chain (Delévacq et al.'s FI-thread mapping): each thread runs its chain's routine
/// alone (SerialTeam), as one CPU thread does in the twin.
template <class P>
__global__ void chain_thread_kernel(const P policy, const ChainArrays a, const ChainParams params,
                                    std::uint64_t first, std::uint32_t iterations, bool initialize,
                                    std::uint32_t leaders, std::uint32_t chains) {
    const std::uint32_t chain = blockIdx.x * blockDim.x + threadIdx.x;
    if (chain >= chains || !descends_at_start(chain, leaders, chains)) return;
    run_chain(SerialTeam{}, policy, a, params, chain, first, iterations, initialize);
}

/// Thread per (chain, word): chain c's current solution becomes the best of sources[c].
inline __global__ void continue_kernel(const ChainArrays a, const std::uint32_t* sources,
                                       std::uint32_t chains) {
    const std::uint64_t total = static_cast<std::uint64_t>(chains) * a.width;
    for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
         i < total; i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
        const auto c = static_cast<std::uint32_t>(i / a.width);
        const auto k = static_cast<std::int64_t>(i % a.width);
        a.current[a.solution(c) + k] = a.best[a.solution(sources[c]) + k];
        if (k == 0) a.current_objective[c] = a.best_objective[sources[c]];
    }
}

/// Block per chain: the leader recombines two best solutions into the chain's current one, the
/// block evaluates it.
template <class P, unsigned kThreads>
__global__ void __launch_bounds__(kThreads)
    recombine_kernel(const P policy, const ChainArrays a, const std::uint32_t* first,
                     const std::uint32_t* second, std::uint64_t seed, std::uint64_t round) {
    if constexpr (Recombining<P>) {
        __shared__ typename BlockTeam<kThreads>::Storage s_team;
        const BlockTeam<kThreads> team{&s_team};
        const std::uint32_t c = blockIdx.x;
        const std::int64_t value =
            recombine_child(team, policy, seed, c, round, a.best + a.solution(first[c]),
                            a.best + a.solution(second[c]), a.current + a.solution(c));
        if (team.rank() == 0) a.current_objective[c] = value;
    }
}

/// Block per pair: merge_pair of slots[p] and others[p].
template <class P, unsigned kThreads>
__global__ void __launch_bounds__(kThreads)
    merge_kernel(const P policy, const ChainArrays a, const std::uint32_t* slots,
                 const std::uint32_t* others, std::uint64_t seed, std::uint64_t round) {
    if constexpr (Recombining<P>) {
        __shared__ typename BlockTeam<kThreads>::Storage s_team;
        merge_pair(BlockTeam<kThreads>{&s_team}, policy, a, seed, slots[blockIdx.x],
                   others[blockIdx.x], round);
    }
}

/// Block per chain: restart_chain from rows first[c] and second[c].
template <class P, unsigned kThreads>
__global__ void __launch_bounds__(kThreads)
    restart_kernel(const P policy, const ChainArrays a, const ChainParams params,
                   const std::int32_t* first, const std::int32_t* second, std::uint64_t round) {
    if constexpr (Recombining<P>) {
        __shared__ typename BlockTeam<kThreads>::Storage s_team;
        const BlockTeam<kThreads> team{&s_team};
        const std::uint32_t c = blockIdx.x;
        restart_chain(team, policy, a, params, c, round, first + a.solution(c),
                      second + a.solution(c));
    }
}

} // namespace detail

/// The epochs' launch (block per chain, or thread per chain where the policy allows it).
template <class P, unsigned kThreads = ChainTuning<kTuningArch>::kBlockThreads>
struct ChainIterationLaunch {
    static void run(const P& policy, const ChainArrays& a, const ChainParams& params,
                    std::uint64_t first, std::uint32_t iterations, bool initialize,
                    std::uint32_t leaders, std::uint32_t chains, cudaStream_t stream);
};

/// The population's restarts (block per chain: a child of two rows, then its first iteration).
template <class P, unsigned kThreads = ChainTuning<kTuningArch>::kBlockThreads>
struct ChainRestartLaunch {
    static void run(const P& policy, const ChainArrays& a, const ChainParams& params,
                    const std::int32_t* first, const std::int32_t* second, std::uint64_t round,
                    std::uint32_t chains, cudaStream_t stream);
};

/// The other exchanges: recombination of two bests into a chain, and merges of pairs.
template <class P, unsigned kThreads = ChainTuning<kTuningArch>::kBlockThreads>
struct ChainExchangeLaunch {
    static void recombine(const P& policy, const ChainArrays& a, const std::uint32_t* first,
                          const std::uint32_t* second, std::uint64_t seed, std::uint64_t round,
                          std::uint32_t chains, cudaStream_t stream);
    static void merge(const P& policy, const ChainArrays& a, const std::uint32_t* slots,
                      const std::uint32_t* others, std::uint64_t seed, std::uint64_t round,
                      std::uint32_t pairs, cudaStream_t stream);
};

template <class P, unsigned kThreads>
void ChainIterationLaunch<P, kThreads>::run(const P& policy, const ChainArrays& a,
                                            const ChainParams& params, std::uint64_t first,
                                            std::uint32_t iterations, bool initialize,
                                            std::uint32_t leaders, std::uint32_t chains,
                                            cudaStream_t stream) {
    if (params.thread_per_chain) {
        if constexpr (ThreadMapped<P>) {
            constexpr unsigned kPerBlock = ChainTuning<kTuningArch>::kThreadMappedBlock;
            detail::chain_thread_kernel<P>
                <<<(chains + kPerBlock - 1) / kPerBlock, kPerBlock, 0, stream>>>(
                    policy, a, params, first, iterations, initialize, leaders, chains);
        } else {
            throw ConfigError("mapping: thread is not available for this problem's chains "
                              "(one block per chain only); use mapping: block");
        }
    } else {
        detail::chain_kernel<P, kThreads><<<chains, kThreads, 0, stream>>>(
            policy, a, params, first, iterations, initialize, leaders);
    }
    LOCUS_CUDA_CHECK(cudaGetLastError());
}

template <class P, unsigned kThreads>
void ChainRestartLaunch<P, kThreads>::run(const P& policy, const ChainArrays& a,
                                          const ChainParams& params, const std::int32_t* first,
                                          const std::int32_t* second, std::uint64_t round,
                                          std::uint32_t chains, cudaStream_t stream) {
    detail::restart_kernel<P, kThreads>
        <<<chains, kThreads, 0, stream>>>(policy, a, params, first, second, round);
    LOCUS_CUDA_CHECK(cudaGetLastError());
}

template <class P, unsigned kThreads>
void ChainExchangeLaunch<P, kThreads>::recombine(const P& policy, const ChainArrays& a,
                                                 const std::uint32_t* first,
                                                 const std::uint32_t* second, std::uint64_t seed,
                                                 std::uint64_t round, std::uint32_t chains,
                                                 cudaStream_t stream) {
    detail::recombine_kernel<P, kThreads>
        <<<chains, kThreads, 0, stream>>>(policy, a, first, second, seed, round);
    LOCUS_CUDA_CHECK(cudaGetLastError());
}

template <class P, unsigned kThreads>
void ChainExchangeLaunch<P, kThreads>::merge(const P& policy, const ChainArrays& a,
                                             const std::uint32_t* slots,
                                             const std::uint32_t* others, std::uint64_t seed,
                                             std::uint64_t round, std::uint32_t pairs,
                                             cudaStream_t stream) {
    detail::merge_kernel<P, kThreads>
        <<<pairs, kThreads, 0, stream>>>(policy, a, slots, others, seed, round);
    LOCUS_CUDA_CHECK(cudaGetLastError());
}

/// The CUDA runner: `policy` holds device pointers to its instance data; its workspace and the
/// chains' arrays are one device block sized by their storage lists, checked against `budget`.
template <class P, unsigned kThreads = ChainTuning<kTuningArch>::kBlockThreads>
requires ChainPolicy<P> && ChainPolicy<P, BlockTeam<kThreads>>
class CudaChainRunner final : public ChainRunner {
public:
    /// Throws CudaError when the chains do not fit in the budget (naming the largest arrays).
    /// `resources` (may be null) is kept alive with the runner: the device data the policy's
    /// pointers refer to (instance arrays, candidate lists).
    CudaChainRunner(const P& policy, std::uint32_t chains, const ChainParams& params,
                    const MemoryBudget& budget, std::shared_ptr<const void> resources = {})
        : resources_(std::move(resources)), policy_(policy), chains_(chains), params_(params) {
        a_.width = policy.width();
        a_.elements = policy.elements();
        a_.independent = applies_independent_moves(params);
        enable_regions(policy_, params);
        ArrayList list;
        a_.declare(list, chains);
        policy_.declare(list, chains);
        storage_.allocate(list, budget, "many-chain engine (" + std::to_string(chains) + " chains)",
                          "use fewer chains (batch) or raise memory_budget / memory_fraction");
        sources_.allocate(chains, "chain exchange sources");
        second_.allocate(chains, "chain exchange sources");
    }

    void start(std::span<const std::int32_t> starts, std::span<const std::int64_t> objectives,
               const std::function<bool()>& stop, std::uint32_t leaders) override {
        const std::size_t words = static_cast<std::size_t>(a_.width) * chains_;
        // One upload, two copies on the device (1024 chains of 10^6 cities: 4 GB each).
        LOCUS_CUDA_CHECK(cudaMemcpyAsync(a_.current, starts.data(), words * 4,
                                         cudaMemcpyHostToDevice, stream_.get()));
        for (std::int32_t* to : {a_.trial, a_.best})
            LOCUS_CUDA_CHECK(cudaMemcpyAsync(to, a_.current, words * 4, cudaMemcpyDeviceToDevice,
                                             stream_.get()));
        for (std::int64_t* to : {a_.trial_objective, a_.current_objective, a_.best_objective})
            LOCUS_CUDA_CHECK(cudaMemcpyAsync(to, objectives.data(), chains_ * 8,
                                             cudaMemcpyHostToDevice, stream_.get()));
        launch(0, 0, true, leaders, true);
        wait(stop, true);
    }
    void epoch(std::uint64_t first, std::uint32_t iterations,
               const std::function<bool()>& stop) override {
        const bool watched = a_.width >= kWatchedChainWidth;
        launch(first, iterations, false, 0, watched);
        wait(stop, watched);
    }
    std::vector<std::int64_t> best_objectives() override {
        std::vector<std::int64_t> values(chains_);
        LOCUS_CUDA_CHECK(cudaMemcpyAsync(values.data(), a_.best_objective, chains_ * 8,
                                         cudaMemcpyDeviceToHost, stream_.get()));
        stream_.synchronize();
        return values;
    }
    void best_solution(std::uint32_t chain, std::span<std::int32_t> out) override {
        LOCUS_CUDA_CHECK(cudaMemcpyAsync(out.data(), a_.best + a_.solution(chain),
                                         static_cast<std::size_t>(a_.width) * 4,
                                         cudaMemcpyDeviceToHost, stream_.get()));
        stream_.synchronize();
    }
    void continue_from(std::span<const std::uint32_t> sources) override {
        sources_.upload_async(sources.data(), chains_, stream_.get());
        const std::uint64_t total = static_cast<std::uint64_t>(chains_) * a_.width;
        using Launch = ElementwiseTuning<kTuningArch>;
        detail::continue_kernel<<<Launch::blocks(total), Launch::kBlockThreads, 0, stream_.get()>>>(
            a_, sources_.data(), chains_);
        LOCUS_CUDA_CHECK(cudaGetLastError());
        stream_.synchronize();
    }
    void recombine(std::span<const std::uint32_t> first, std::span<const std::uint32_t> second,
                   std::uint64_t round) override {
        if constexpr (Recombining<P>) {
            sources_.upload_async(first.data(), chains_, stream_.get());
            second_.upload_async(second.data(), chains_, stream_.get());
            ChainExchangeLaunch<P, kThreads>::recombine(policy_, a_, sources_.data(),
                                                        second_.data(), params_.seed, round,
                                                        chains_, stream_.get());
            stream_.synchronize();
        } else {
            (void)first, (void)second, (void)round;
            refuse_exchange("recombine");
        }
    }
    void merge(std::span<const std::uint32_t> slots, std::span<const std::uint32_t> others,
               std::uint64_t round) override {
        if constexpr (Recombining<P>) {
            const auto pairs = static_cast<std::uint32_t>(slots.size());
            if (pairs == 0) return;
            sources_.upload_async(slots.data(), pairs, stream_.get());
            second_.upload_async(others.data(), pairs, stream_.get());
            ChainExchangeLaunch<P, kThreads>::merge(policy_, a_, sources_.data(), second_.data(),
                                                    params_.seed, round, pairs, stream_.get());
            stream_.synchronize();
        } else {
            (void)slots, (void)others, (void)round;
            refuse_exchange("merge");
        }
    }
    void best_solutions(std::span<std::int32_t> out) override {
        LOCUS_CUDA_CHECK(cudaMemcpyAsync(out.data(), a_.best,
                                         static_cast<std::size_t>(a_.width) * chains_ * 4,
                                         cudaMemcpyDeviceToHost, stream_.get()));
        stream_.synchronize();
    }
    void restart_from(std::span<const std::int32_t> first, std::span<const std::int32_t> second,
                      std::uint64_t round) override {
        if constexpr (Recombining<P>) {
            const std::size_t words = static_cast<std::size_t>(a_.width) * chains_;
            if (first_rows_.size() < words) {
                first_rows_.allocate(words, "parents of restarted chains");
                second_rows_.allocate(words, "parents of restarted chains");
            }
            first_rows_.upload_async(first.data(), words, stream_.get());
            second_rows_.upload_async(second.data(), words, stream_.get());
            ChainRestartLaunch<P, kThreads>::run(policy_, a_, params_, first_rows_.data(),
                                                 second_rows_.data(), round, chains_,
                                                 stream_.get());
            stream_.synchronize();
        } else {
            (void)first, (void)second, (void)round;
            refuse_exchange("population");
        }
    }
    void reset(std::span<const std::int32_t> solution, std::int64_t objective) override {
        // One upload into chain 0's current row, copied to every chain's rows on the device.
        LOCUS_CUDA_CHECK(cudaMemcpyAsync(a_.best, solution.data(),
                                         static_cast<std::size_t>(a_.width) * 4,
                                         cudaMemcpyHostToDevice, stream_.get()));
        const std::vector<std::uint32_t> zeros(chains_, 0);
        const std::vector<std::int64_t> objectives(chains_, objective);
        LOCUS_CUDA_CHECK(cudaMemcpyAsync(a_.best_objective, objectives.data(), chains_ * 8,
                                         cudaMemcpyHostToDevice, stream_.get()));
        continue_from(zeros); // every current row and objective from chain 0's best
        const std::size_t words = static_cast<std::size_t>(a_.width) * chains_;
        for (std::int32_t* to : {a_.trial, a_.best})
            LOCUS_CUDA_CHECK(cudaMemcpyAsync(to, a_.current, words * 4, cudaMemcpyDeviceToDevice,
                                             stream_.get()));
        for (std::int64_t* to : {a_.trial_objective, a_.best_objective})
            LOCUS_CUDA_CHECK(cudaMemcpyAsync(to, objectives.data(), chains_ * 8,
                                             cudaMemcpyHostToDevice, stream_.get()));
        stream_.synchronize();
    }
    void restrict_chains(std::span<const std::int32_t> elements,
                         std::span<const std::uint32_t> offsets) override {
        const std::size_t cells = static_cast<std::size_t>(a_.elements) * chains_;
        std::vector<std::uint8_t> mask(cells);
        std::vector<std::int32_t> list(cells);
        std::vector<std::int32_t> count(chains_);
        fill_regions(policy_, elements, offsets, chains_, a_.elements, mask.data(), list.data(),
                     count.data());
        if constexpr (Regional<P>) {
            LOCUS_CUDA_CHECK(cudaMemcpyAsync(policy_.region_mask, mask.data(), cells,
                                             cudaMemcpyHostToDevice, stream_.get()));
            LOCUS_CUDA_CHECK(cudaMemcpyAsync(policy_.region_list, list.data(), cells * 4,
                                             cudaMemcpyHostToDevice, stream_.get()));
            LOCUS_CUDA_CHECK(cudaMemcpyAsync(policy_.region_count, count.data(), chains_ * 4,
                                             cudaMemcpyHostToDevice, stream_.get()));
            stream_.synchronize();
        }
    }
    std::uint64_t evaluations() override {
        std::vector<unsigned long long> values(chains_);
        LOCUS_CUDA_CHECK(cudaMemcpyAsync(values.data(), a_.evaluations, chains_ * 8,
                                         cudaMemcpyDeviceToHost, stream_.get()));
        stream_.synchronize();
        std::uint64_t sum = 0;
        for (const auto v : values)
            sum += v;
        return sum;
    }
    ChainCheck check() override {
        if (!params_.check_moves) return {};
        std::vector<std::int64_t> errors(static_cast<std::size_t>(chains_) * 4);
        LOCUS_CUDA_CHECK(cudaMemcpyAsync(errors.data(), a_.errors, errors.size() * 8,
                                         cudaMemcpyDeviceToHost, stream_.get()));
        stream_.synchronize();
        for (std::uint32_t c = 0; c < chains_; ++c)
            if (errors[4 * c] != 0)
                return {true, c, static_cast<int>(errors[4 * c + 1]), errors[4 * c + 2],
                        errors[4 * c + 3]};
        return {};
    }
    std::size_t bytes() const override { return storage_.bytes(); }

private:
    /// Waits for the launch. Where a chain's descent can be long (the start, or large
    /// solutions) it polls `stop` meanwhile and raises the halt flag the kernel's descents and
    /// iteration loops read, as the CPU twin's watchdog does; otherwise it only synchronizes.
    void wait(const std::function<bool()>& stop, bool guarded) {
        if (stop && guarded) halt_.watch(stream_.get(), stop);
        stream_.synchronize();
    }

    /// `watched`: the kernel reads the halt flag (the host raises it while waiting). Unwatched
    /// launches get none: every read of mapped host memory crosses the bus, and a launch of
    /// short descents reading it at every exploration ran 40 times slower.
    void launch(std::uint64_t first, std::uint32_t iterations, bool initialize,
                std::uint32_t leaders, bool watched) {
        halt_.lower();
        ChainParams params = initialize ? start_params(params_) : params_;
        params.halt = watched ? halt_.device() : nullptr;
        ChainIterationLaunch<P, kThreads>::run(policy_, a_, params, first, iterations, initialize,
                                               leaders, chains_, stream_.get());
    }

    std::shared_ptr<const void> resources_;
    P policy_;
    std::uint32_t chains_;
    ChainParams params_;
    MappedFlag halt_;
    Stream stream_;
    ChainArrays a_{};
    DeviceStorage storage_;
    DeviceBuffer<std::uint32_t> sources_;
    DeviceBuffer<std::uint32_t> second_;
    DeviceBuffer<std::int32_t> first_rows_;
    DeviceBuffer<std::int32_t> second_rows_;
};

} // namespace locus::gpu
