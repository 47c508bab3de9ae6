#pragma once
/// \file
/// The successor engine (FANG successor generation): types, the per-state assignment routine
/// shared by both backends, and the CPU twin (g++-compilable; the CUDA kernels and the device
/// engine are in successor_engine.cuh).
///
/// A state is a slot of int32 words: the problem's own words, then the active-variable bitset
/// (one bit per variable, uint32 words), then the 64-bit successor value (the state's random
/// seed). Generating successors clones every source state k times, gives every clone its own
/// successor value, then assigns every active variable of every clone: the possibilities of the
/// variable are rated by the problem's local heuristic, the ratings are aggregated and mapped to
/// integer weights (0 forbids), and one possibility is drawn with probability proportional to its
/// weight through a segment lookup: the 64-bit prefix sums of the weights at every 32nd
/// possibility (one right boundary per segment of 32). The drawn value is located by a binary
/// search over the lookup, then within its segment by a prefix sum over the segment's 32
/// weights recomputed from the ratings, so no per-possibility prefix sums are stored. The
/// routine is written once over a Team (a group of threads serving one state); the CUDA kernel
/// runs it over a thread block, the CPU twin over a single thread, and both take the same
/// decisions, so that successors are bit-identical.

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "locus/error.hpp"
#include "locus/gpu/cpu_threads.hpp"
#include "locus/gpu/successor_plan.hpp"
#include "locus/gpu/team.hpp"
#include "locus/gpu/tuning.hpp"
#include "locus/hd.hpp"
#include "locus/rng.hpp"

#if defined(_OPENMP)
#include <omp.h>
#define LOCUS_SUCCESSOR_OMP(directive) _Pragma(#directive)
#else
#define LOCUS_SUCCESSOR_OMP(directive)
#endif

namespace locus::gpu {

namespace detail {

/// Merges aggregators (the team reduction operator of assign_variable).
struct CombineAggregators {
    template <class A> LOCUS_HD_INLINE A operator()(A a, const A& b) const {
        a.combine(b);
        return a;
    }
};

/// The context of variable `var` (P::prepare<T> when P has it, else an empty one).
struct NoContext {};

LOCUS_EXEC_CHECK_DISABLE
template <int T, class P>
LOCUS_HD_INLINE auto variable_context(const P& problem, const std::int32_t* state,
                                      std::uint32_t var) {
    if constexpr (requires { problem.template prepare<T>(state, var); })
        return problem.template prepare<T>(state, var);
    else
        return NoContext{};
}

/// Rating of possibility `l` of `var`, with the variable's context when P takes one.
LOCUS_EXEC_CHECK_DISABLE
template <int T, class P, class C>
LOCUS_HD_INLINE typename P::rating_type
rate_possibility(const P& problem, const std::int32_t* state, std::uint32_t var, std::uint32_t l,
                 const C& context) {
    if constexpr (requires { problem.template rate<T>(state, var, l, context); })
        return problem.template rate<T>(state, var, l, context);
    else
        return problem.template rate<T>(state, var, l);
}

/// Index of the lowest set bit (both backends; value != 0).
LOCUS_HD_INLINE std::uint32_t lowest_bit(std::uint32_t value) {
#if defined(__CUDA_ARCH__)
    return static_cast<std::uint32_t>(__ffs(static_cast<int>(value)) - 1);
#else
    return static_cast<std::uint32_t>(__builtin_ctz(value));
#endif
}

LOCUS_HD_INLINE std::uint32_t bit_count(std::uint32_t value) {
#if defined(__CUDA_ARCH__)
    return static_cast<std::uint32_t>(__popc(value));
#else
    return static_cast<std::uint32_t>(__builtin_popcount(value));
#endif
}

/// The next active variable: the lowest one, or (random order) the r-th of the n active ones
/// with r drawn uniformly from `rng`. kNoIndex when none is active.
LOCUS_HD_INLINE std::uint32_t next_active(const std::uint32_t* mask, std::uint32_t words,
                                          bool random_order, XorShift64Star& rng) {
    if (!random_order) {
        for (std::uint32_t w = 0; w < words; ++w)
            if (mask[w] != 0) return w * 32 + lowest_bit(mask[w]);
        return kNoIndex;
    }
    std::uint32_t active = 0;
    for (std::uint32_t w = 0; w < words; ++w)
        active += bit_count(mask[w]);
    if (active == 0) return kNoIndex;
    auto rank = static_cast<std::uint32_t>(rng.below(active));
    for (std::uint32_t w = 0;; ++w) {
        const std::uint32_t in_word = bit_count(mask[w]);
        if (rank < in_word) {
            std::uint32_t bits = mask[w];
            for (; rank > 0; --rank)
                bits &= bits - 1;
            return w * 32 + lowest_bit(bits);
        }
        rank -= in_word;
    }
}

/// Per-group scratch: the ratings of the current variable (max_possibilities entries) and the
/// segment lookup (segment_count(max_possibilities) entries); shared or global memory on the
/// device.
template <class R> struct Scratch {
    R* ratings;
    std::uint64_t* segments;
};

/// The segment s with segments[s-1] <= v < segments[s] (segments[-1] = 0; v <
/// segments[count-1]): a binary search, run by every thread alike (no synchronisation).
LOCUS_HD_INLINE std::uint32_t find_segment(const std::uint64_t* segments, std::uint32_t count,
                                           std::uint64_t v) {
    std::uint32_t low = 0;
    std::uint32_t high = count - 1;
    while (low < high) {
        const std::uint32_t middle = low + (high - low) / 2;
        if (segments[middle] > v)
            high = middle;
        else
            low = middle + 1;
    }
    return low;
}

/// Assigns variable `var` (of type T) of one state (FANG Algorithms 1-4). Every thread of the
/// team calls it with the same arguments and the same `rng`; it returns with `var` inactive
/// and the team synchronised.
LOCUS_EXEC_CHECK_DISABLE
template <int T, class Team, class P>
LOCUS_HD void assign_variable(const Team& team, const P& problem, std::int32_t* state,
                              std::uint32_t* mask, std::uint32_t var, std::uint32_t bound,
                              const Scratch<typename P::rating_type>& scratch,
                              XorShift64Star& rng) {
    using R = typename P::rating_type;
    using A = typename P::aggregator_type;
    const std::uint32_t wanted = problem.template possibilities<T>(state, var);
    const std::uint32_t count = wanted < bound ? wanted : bound;
    const auto context = variable_context<T>(problem, state, var);

    // Rate every possibility and aggregate the ratings (Algorithm 2).
    A aggregator{};
    for (std::uint32_t i = team.rank(); i < count; i += team.size()) {
        const R rating = rate_possibility<T>(problem, state, var, i, context);
        scratch.ratings[i] = rating;
        aggregator.add(rating);
    }
    aggregator = team.reduce(aggregator, CombineAggregators{});

    // Map to weights, sum every segment of 32 and prefix-sum the segment sums into the lookup
    // (Algorithm 3). A thread sums a whole segment, starting at a different possibility than
    // its neighbours (skewed), so that the threads of a warp read distinct shared-memory banks.
    const std::uint32_t segments = segment_count(count);
    for (std::uint32_t s = team.rank(); s < segments; s += team.size()) {
        std::uint64_t sum = 0;
        const std::uint32_t first = s * kSegmentWidth;
        for (std::uint32_t k = 0; k < kSegmentWidth; ++k) {
            const std::uint32_t i = first + ((k + s) & (kSegmentWidth - 1));
            if (i < count) sum += problem.template map<T>(scratch.ratings[i], aggregator);
        }
        scratch.segments[s] = sum;
    }
    team.sync();
    scan_in_place(team, scratch.segments, segments);
    const std::uint64_t total = segments == 0 ? 0 : scratch.segments[segments - 1];

    const std::uint32_t bit = 1u << (var % 32);
    if (total == 0) {
        if (team.rank() == 0) {
            problem.template could_not_assign<T>(state, var);
            mask[var / 32] &= ~bit;
        }
        team.sync();
        return;
    }

    // Draw v, find its segment (Algorithm 4), then the possibility within the segment: the
    // first group recomputes the segment's weights and prefix-sums them.
    const std::uint64_t v = rng.below(total);
    const std::uint32_t segment = find_segment(scratch.segments, segments, v);
    if (team.group() == 0) {
        std::uint64_t before = segment == 0 ? 0 : scratch.segments[segment - 1];
        for (std::uint32_t base = 0; base < kSegmentWidth; base += team.lanes()) {
            const std::uint32_t i = segment * kSegmentWidth + base + team.lane();
            const std::uint64_t weight =
                i < count ? problem.template map<T>(scratch.ratings[i], aggregator) : 0u;
            std::uint64_t round = 0;
            const std::uint64_t right = before + team.group_inclusive_sum(weight, round);
            if (weight != 0 && right - weight <= v && v < right) {
                problem.template assign<T>(state, var, i);
                mask[var / 32] &= ~bit;
            }
            before += round;
        }
    }
    team.sync();
}

/// Calls assign_variable<type> for the run-time `type` in [First, First + Count).
LOCUS_EXEC_CHECK_DISABLE
template <int First, int Count, class Team, class P>
LOCUS_HD_INLINE void
dispatch_variable(int type, const Team& team, const P& problem, std::int32_t* state,
                  std::uint32_t* mask, std::uint32_t var, std::uint32_t bound,
                  const Scratch<typename P::rating_type>& scratch, XorShift64Star& rng) {
    if constexpr (Count > 0) {
        if (type == First)
            assign_variable<First>(team, problem, state, mask, var, bound, scratch, rng);
        else
            dispatch_variable<First + 1, Count - 1>(type, team, problem, state, mask, var, bound,
                                                    scratch, rng);
    }
}

/// Assigns every active variable of `slot` (FANG Algorithm 1), then stores the advanced seed.
/// A variable of a type outside [0, kVariableTypes) is deactivated without a call.
LOCUS_EXEC_CHECK_DISABLE
template <class Team, class P>
LOCUS_HD void assign_state(const Team& team, const P& problem, const SuccessorLayout& layout,
                           std::int32_t* slot, std::uint32_t bound,
                           const Scratch<typename P::rating_type>& scratch, bool random_order) {
    std::uint32_t* mask = layout.mask(slot);
    XorShift64Star rng = XorShift64Star::from(layout.seed(slot));
    team.sync();
    for (;;) {
        const std::uint32_t var = next_active(mask, layout.mask_words, random_order, rng);
        if (var == kNoIndex) break;
        const int type = problem.variable_type(var);
        if (type < 0 || type >= P::kVariableTypes) {
            team.sync();
            if (team.rank() == 0) mask[var / 32] &= ~(1u << (var % 32));
            team.sync();
            continue;
        }
        dispatch_variable<0, P::kVariableTypes>(type, team, problem, slot, mask, var, bound,
                                                scratch, rng);
    }
    team.sync();
    if (team.rank() == 0) layout.set_seed(slot, rng.state);
}

} // namespace detail

/// CPU twin of the clone step: target slot t (t < sources * k) = source slot t / k with its
/// successor value set to successor_value(seed, first + t). Runs on `threads` OpenMP threads
/// (0 = all).
inline void clone_states_cpu(const SuccessorLayout& layout, const std::int32_t* source,
                             std::uint32_t sources, std::uint32_t k, std::uint64_t seed,
                             std::int32_t* target, int threads, std::uint64_t first = 0) {
    const auto targets = static_cast<std::int64_t>(sources) * k;
    [[maybe_unused]] const int team = resolve_threads(threads);
    LOCUS_SUCCESSOR_OMP(omp parallel for schedule(static) num_threads(team))
    for (std::int64_t t = 0; t < targets; ++t) {
        std::int32_t* to = target + static_cast<std::size_t>(t) * layout.slot_words;
        std::memcpy(to, source + static_cast<std::size_t>(t / k) * layout.slot_words,
                    layout.slot_words * sizeof(std::int32_t));
        layout.set_seed(to, successor_value(seed, first + static_cast<std::uint64_t>(t)));
    }
}

/// CPU twin of the assignment step: assigns every active variable of the `count` slots at
/// `slots` (each slot's seed advances). States run in parallel on `threads` OpenMP threads
/// (0 = all cores); results do not depend on it. Throws locus::Error for an invalid `config`.
template <class P>
void assign_states_cpu(const P& problem, const SuccessorConfig& config, std::int32_t* slots,
                       std::uint32_t count, int threads) {
    static_assert(SuccessorProblem<P>, "P does not model locus::gpu::SuccessorProblem");
    using R = typename P::rating_type;
    const std::uint32_t bound = problem.max_possibilities();
    check_successor_config(config, bound);
    const SuccessorLayout layout = successor_layout(problem);
    [[maybe_unused]] const int team = resolve_threads(threads);
    LOCUS_SUCCESSOR_OMP(omp parallel num_threads(team)) {
        std::vector<R> ratings(bound);
        std::vector<std::uint64_t> segments(segment_count(bound));
        const detail::Scratch<R> scratch{ratings.data(), segments.data()};
        LOCUS_SUCCESSOR_OMP(omp for schedule(dynamic, 4))
        for (std::int64_t s = 0; s < static_cast<std::int64_t>(count); ++s)
            detail::assign_state(SerialTeam{}, problem, layout,
                                 slots + static_cast<std::size_t>(s) * layout.slot_words, bound,
                                 scratch, config.random_order);
    }
}

/// Successor generation on the CPU with double buffering (FANG §3.3). Holds up to `capacity`
/// states per buffer.
template <class P> class CpuSuccessorEngine {
    static_assert(SuccessorProblem<P>, "P does not model locus::gpu::SuccessorProblem");

public:
    /// Validates `config` (throws locus::Error) and allocates both buffers.
    CpuSuccessorEngine(const P& problem, std::uint32_t capacity, SuccessorConfig config = {},
                       int threads = 0)
        : problem_(problem), layout_(successor_layout(problem)), config_(config),
          capacity_(capacity), threads_(threads) {
        check_successor_config(config_, problem_.max_possibilities());
        source_.assign(static_cast<std::size_t>(capacity) * layout_.slot_words, 0);
        target_.assign(source_.size(), 0);
    }

    /// Host bytes of the two state buffers (the per-thread scratch is small).
    static std::size_t bytes_needed(const P& problem, std::uint32_t capacity) {
        return 2 * static_cast<std::size_t>(capacity) * successor_layout(problem).slot_words *
               sizeof(std::int32_t);
    }

    /// Replaces the current states by `count` slots (layout() words each) copied from `slots`.
    void load(const std::int32_t* slots, std::uint32_t count) {
        check_count(count);
        std::copy_n(slots, static_cast<std::size_t>(count) * layout_.slot_words, source_.data());
        size_ = count;
    }

    /// Replaces the current states by their successors: each is cloned `k` times, clone t gets
    /// successor_value(seed, first + t), all active variables of every clone are assigned
    /// (`first` numbers the clones of a generation built in parts). Throws locus::Error when
    /// size() * k exceeds the capacity.
    void generate(std::uint32_t k, std::uint64_t seed, std::uint64_t first = 0) {
        const std::uint64_t targets = static_cast<std::uint64_t>(size_) * k;
        check_count(targets);
        clone_states_cpu(layout_, source_.data(), size_, k, seed, target_.data(), threads_, first);
        assign_states_cpu(problem_, config_, target_.data(), static_cast<std::uint32_t>(targets),
                          threads_);
        source_.swap(target_);
        size_ = static_cast<std::uint32_t>(targets);
    }

    /// Number of current states.
    std::uint32_t size() const { return size_; }
    /// The current states (size() slots).
    const std::int32_t* slots() const { return source_.data(); }
    const SuccessorLayout& layout() const { return layout_; }

private:
    void check_count(std::uint64_t count) const { check_successor_capacity(count, capacity_); }

    P problem_;
    SuccessorLayout layout_;
    SuccessorConfig config_;
    std::uint32_t capacity_;
    int threads_;
    std::uint32_t size_ = 0;
    std::vector<std::int32_t> source_;
    std::vector<std::int32_t> target_;
};

} // namespace locus::gpu

#undef LOCUS_SUCCESSOR_OMP
