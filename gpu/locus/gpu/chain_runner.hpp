#pragma once
/// \file
/// The backends of the many-chain engine (ChainRunner) and its CPU twin (CpuChainRunner: one
/// chain per OpenMP thread). The CUDA runner is in chain_engine.cuh.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "locus/error.hpp"
#include "locus/gpu/chain_arrays.hpp"
#include "locus/gpu/chain_policy.hpp"
#include "locus/gpu/chain_routine.hpp"
#include "locus/gpu/cpu_threads.hpp"
#include "locus/gpu/storage.hpp"
#include "locus/gpu/team.hpp"
#include "locus/gpu/watchdog.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace locus::gpu {

/// A check_moves failure of a chain, as the host reads it.
struct ChainCheck {
    bool failed = false;
    std::uint32_t chain = 0;
    int neighborhood = 0;
    std::int64_t by_delta = 0;
    std::int64_t full = 0;
};

/// A backend of the many-chain engine: the chains of a batch on the CPU twin or a CUDA device.
class ChainRunner {
public:
    virtual ~ChainRunner() = default;
    /// Takes `starts` (chains x width words, objectives per chain), descends from each and makes
    /// the results the chains' current and best solutions. `stop` (may be empty) is polled
    /// between chains on the CPU: chains not started when it returns true keep their start.
    /// With `leaders` > 0 only the first chain of each of that many islands descends
    /// (`descends_at_start`; none when `leaders` exceeds the chains); the others keep their
    /// start.
    virtual void start(std::span<const std::int32_t> starts,
                       std::span<const std::int64_t> objectives, const std::function<bool()>& stop,
                       std::uint32_t leaders) = 0;
    /// Runs `iterations` iterations of every chain, numbered from `first`.
    virtual void epoch(std::uint64_t first, std::uint32_t iterations,
                       const std::function<bool()>& stop) = 0;
    /// Best objective of every chain.
    virtual std::vector<std::int64_t> best_objectives() = 0;
    /// Best solution of one chain (width words).
    virtual void best_solution(std::uint32_t chain, std::span<std::int32_t> out) = 0;
    /// Chain c continues from the best solution of chain sources[c] (sources[c] == c: its own).
    virtual void continue_from(std::span<const std::uint32_t> sources) = 0;
    /// Chain c continues from a recombination of the best solutions of chains a[c] and b[c]
    /// (throws NotImplemented when the policy has no recombination).
    virtual void recombine(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                           std::uint64_t round) = 0;
    /// One round of the merging exchange: for every pair p, the bests of chains slots[p] and
    /// others[p] fold into slots[p]'s (merge_pair); the slots are distinct and no slot is
    /// another pair's other (throws NotImplemented when the policy has no recombination).
    virtual void merge(std::span<const std::uint32_t> slots, std::span<const std::uint32_t> others,
                       std::uint64_t round) = 0;
    /// Every chain's best solution, chain after chain (chains x width words).
    virtual void best_solutions(std::span<std::int32_t> out) = 0;
    /// Chain c restarts from a recombination of the solutions first[c] and second[c] (rows of
    /// width words, chain after chain): the child, descended from every element as a start is,
    /// becomes its current and its best solution (throws NotImplemented when the policy has no
    /// recombination).
    virtual void restart_from(std::span<const std::int32_t> first,
                              std::span<const std::int32_t> second, std::uint64_t round) = 0;
    /// Every chain's trial, current and best solution become `solution` (width words) with
    /// chain objective `objective`, without a descent.
    virtual void reset(std::span<const std::int32_t> solution, std::int64_t objective) = 0;
    /// Confines chain c to the elements elements[offsets[c], offsets[c + 1]) (offsets: chains
    /// + 1 entries; an empty range: not confined) until the next call (Regional policies with
    /// ChainParams::regions; throws NotImplemented otherwise).
    virtual void restrict_chains(std::span<const std::int32_t> elements,
                                 std::span<const std::uint32_t> offsets) = 0;
    /// Moves evaluated so far by all chains.
    virtual std::uint64_t evaluations() = 0;
    /// The first check_moves failure, if any.
    virtual ChainCheck check() = 0;
    /// Bytes of the chains' storage (host or device).
    virtual std::size_t bytes() const = 0;
};

/// The policy's region arrays (Regional) for chains confined to elements[offsets[c],
/// offsets[c + 1]) (restrict_chains), written to host arrays: `mask` chains x n flags, `list`
/// chains x n elements, `count` per chain. Throws NotImplemented when P has none.
template <class P>
void fill_regions(const P& policy, std::span<const std::int32_t> elements,
                  std::span<const std::uint32_t> offsets, std::uint32_t chains, std::int32_t n,
                  std::uint8_t* mask, std::int32_t* list, std::int32_t* count) {
    if constexpr (Regional<P>) {
        if (policy.regions == 0)
            throw NotImplemented("chains confined to regions need ChainParams::regions");
        const auto nodes = static_cast<std::size_t>(n);
        std::fill_n(mask, nodes * chains, std::uint8_t{0});
        for (std::uint32_t c = 0; c < chains; ++c) {
            const std::uint32_t begin = offsets[c];
            const std::uint32_t end = offsets[c + 1];
            if (end - begin > nodes)
                throw Error("restrict_chains: a region has more elements than the problem");
            count[c] = static_cast<std::int32_t>(end - begin);
            for (std::uint32_t k = begin; k < end; ++k) {
                const std::int32_t e = elements[k];
                if (e < 0 || e >= n) throw Error("restrict_chains: an element out of range");
                mask[c * nodes + static_cast<std::size_t>(e)] = 1;
                list[c * nodes + (k - begin)] = e;
            }
        }
    } else {
        (void)policy, (void)elements, (void)offsets, (void)chains, (void)n, (void)mask,
            (void)list, (void)count;
        throw NotImplemented("this problem's chains cannot be confined to regions (no "
                             "decomposition); use another exchange than decompose");
    }
}

/// Sets the policy's `regions` flag from the params before it declares its arrays.
template <class P> void enable_regions(P& policy, const ChainParams& params) {
    if constexpr (Regional<P>) policy.regions = params.regions ? 1 : 0;
    else if (params.regions)
        throw NotImplemented("this problem's chains cannot be confined to regions (no "
                             "decomposition); use another exchange than decompose");
}

/// The CPU twin: every chain runs the chain routine on one thread (OpenMP, all cores).
template <ChainPolicy P> class CpuChainRunner final : public ChainRunner {
public:
    /// `policy` holds host pointers; its workspace is allocated here for `chains` chains.
    /// `resources` (may be null) is kept alive with the runner: the host data the policy's
    /// pointers refer to.
    CpuChainRunner(const P& policy, std::uint32_t chains, const ChainParams& params, int threads,
                   std::shared_ptr<const void> resources = {})
        : resources_(std::move(resources)), policy_(policy), chains_(chains), params_(params),
          threads_(threads) {
        a_.width = policy.width();
        a_.elements = policy.elements();
        a_.independent = applies_independent_moves(params);
        enable_regions(policy_, params);
        ArrayList list;
        a_.declare(list, chains);
        policy_.declare(list, chains);
        storage_.allocate(list, params.host_budget);
    }

    void start(std::span<const std::int32_t> starts, std::span<const std::int64_t> objectives,
               const std::function<bool()>& stop, std::uint32_t leaders) override {
        const std::size_t words = static_cast<std::size_t>(a_.width) * chains_;
        std::copy_n(starts.data(), words, a_.trial);
        std::copy_n(starts.data(), words, a_.current);
        std::copy_n(starts.data(), words, a_.best);
        for (std::uint32_t c = 0; c < chains_; ++c)
            a_.trial_objective[c] = a_.current_objective[c] = a_.best_objective[c] = objectives[c];
        run(0, 0, true, stop, leaders);
    }
    void epoch(std::uint64_t first, std::uint32_t iterations,
               const std::function<bool()>& stop) override {
        run(first, iterations, false, stop, 0);
    }
    std::vector<std::int64_t> best_objectives() override {
        return {a_.best_objective, a_.best_objective + chains_};
    }
    void best_solution(std::uint32_t chain, std::span<std::int32_t> out) override {
        std::copy_n(a_.best + a_.solution(chain), a_.width, out.data());
    }
    void continue_from(std::span<const std::uint32_t> sources) override {
        for (std::uint32_t c = 0; c < chains_; ++c) {
            std::copy_n(a_.best + a_.solution(sources[c]), a_.width, a_.current + a_.solution(c));
            a_.current_objective[c] = a_.best_objective[sources[c]];
        }
    }
    void recombine(std::span<const std::uint32_t> first, std::span<const std::uint32_t> second,
                   std::uint64_t round) override {
        if constexpr (Recombining<P>) {
            for (std::uint32_t c = 0; c < chains_; ++c)
                a_.current_objective[c] = recombine_child(
                    SerialTeam{}, policy_, params_.seed, c, round, a_.best + a_.solution(first[c]),
                    a_.best + a_.solution(second[c]), a_.current + a_.solution(c));
        } else {
            (void)first, (void)second, (void)round;
            refuse_exchange("recombine");
        }
    }
    void merge(std::span<const std::uint32_t> slots, std::span<const std::uint32_t> others,
               std::uint64_t round) override {
        if constexpr (Recombining<P>) {
            const auto pairs = static_cast<std::int64_t>(slots.size());
#if defined(_OPENMP)
            const int team = resolve_threads(threads_);
#pragma omp parallel for schedule(dynamic, 1) num_threads(team)
#endif
            for (std::int64_t p = 0; p < pairs; ++p)
                merge_pair(SerialTeam{}, policy_, a_, params_.seed, slots[p], others[p], round);
        } else {
            (void)slots, (void)others, (void)round;
            refuse_exchange("merge");
        }
    }
    void best_solutions(std::span<std::int32_t> out) override {
        std::copy_n(a_.best, static_cast<std::size_t>(a_.width) * chains_, out.data());
    }
    void restart_from(std::span<const std::int32_t> first, std::span<const std::int32_t> second,
                      std::uint64_t round) override {
        if constexpr (Recombining<P>) {
            const auto count = static_cast<std::int64_t>(chains_);
#if defined(_OPENMP)
            const int team = resolve_threads(threads_);
#pragma omp parallel for schedule(dynamic, 1) num_threads(team)
#endif
            for (std::int64_t k = 0; k < count; ++k) {
                const auto c = static_cast<std::uint32_t>(k);
                restart_chain(SerialTeam{}, policy_, a_, params_, c, round,
                              first.data() + a_.solution(c), second.data() + a_.solution(c));
            }
        } else {
            (void)first, (void)second, (void)round;
            refuse_exchange("population");
        }
    }
    void reset(std::span<const std::int32_t> solution, std::int64_t objective) override {
        for (std::uint32_t c = 0; c < chains_; ++c) {
            for (std::int32_t* to : {a_.trial, a_.current, a_.best})
                std::copy_n(solution.data(), a_.width, to + a_.solution(c));
            a_.trial_objective[c] = a_.current_objective[c] = a_.best_objective[c] = objective;
        }
    }
    void restrict_chains(std::span<const std::int32_t> elements,
                         std::span<const std::uint32_t> offsets) override {
        if constexpr (Regional<P>)
            fill_regions(policy_, elements, offsets, chains_, a_.elements, policy_.region_mask,
                         policy_.region_list, policy_.region_count);
        else
            fill_regions(policy_, elements, offsets, chains_, a_.elements, nullptr, nullptr,
                         nullptr);
    }
    std::uint64_t evaluations() override {
        std::uint64_t sum = 0;
        for (std::uint32_t c = 0; c < chains_; ++c)
            sum += a_.evaluations[c];
        return sum;
    }
    ChainCheck check() override {
        for (std::uint32_t c = 0; c < chains_; ++c)
            if (a_.errors[4 * c] != 0)
                return {true, c, static_cast<int>(a_.errors[4 * c + 1]), a_.errors[4 * c + 2],
                        a_.errors[4 * c + 3]};
        return {};
    }
    std::size_t bytes() const override { return storage_.bytes(); }

private:
    void run(std::uint64_t first, std::uint32_t iterations, bool initialize,
             const std::function<bool()>& stop, std::uint32_t leaders) {
        const auto count = static_cast<std::int64_t>(chains_);
        // NOTE: `stop` (SearchContext) is not thread safe: one caller at a time. Where a
        // chain's descent can be long (the start, or large solutions) a watchdog thread is that
        // caller and raises the halt flag the descents and iteration loops read, so a long
        // descent ends within one exploration of the limit; otherwise thread 0 polls between
        // chains (a thread per short epoch would cost more than it saves).
        const bool guarded = stop && (initialize || a_.width >= kWatchedChainWidth);
        Watchdog watchdog(stop, guarded);
        ChainParams params = initialize ? start_params(params_) : params_;
        params.halt = watchdog.flag();
#if defined(_OPENMP)
        const int team = resolve_threads(threads_);
#pragma omp parallel for schedule(dynamic, 1) num_threads(team)
#endif
        for (std::int64_t c = 0; c < count; ++c) {
            if (watchdog.raised() ||
                !descends_at_start(static_cast<std::uint32_t>(c), leaders, chains_))
                continue;
#if defined(_OPENMP)
            const bool poller = omp_get_thread_num() == 0;
#else
            const bool poller = true;
#endif
            if (stop && !guarded && poller && stop()) {
                watchdog.raise();
                continue;
            }
            run_chain(SerialTeam{}, policy_, a_, params, static_cast<std::uint32_t>(c), first,
                      iterations, initialize);
        }
    }

    std::shared_ptr<const void> resources_;
    P policy_;
    std::uint32_t chains_;
    ChainParams params_;
    int threads_;
    ChainArrays a_{};
    HostStorage storage_;
};

} // namespace locus::gpu
