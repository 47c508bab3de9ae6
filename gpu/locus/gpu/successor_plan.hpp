#pragma once
/// \file
/// The successor engine's settings, plan and state layout, the SuccessorProblem concept and the
/// host checks shared by both backends (the routine and the CPU twin are in successor_engine.hpp,
/// the CUDA engine in successor_engine.cuh).

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "locus/error.hpp"
#include "locus/gpu/tuning.hpp"
#include "locus/hd.hpp"
#include "locus/rng.hpp"

namespace locus::gpu {

/// Possibilities per segment of the segment lookup (the warp size).
inline constexpr std::uint32_t kSegmentWidth = 32;
/// "No variable" / "no segment".
inline constexpr std::uint32_t kNoIndex = 0xFFFFFFFFu;

/// Settings of the successor engine (both backends).
struct SuccessorConfig {
    /// Device threads per state: a multiple of 32 in 32..1024, or 0 for automatic (128 up to
    /// 4608 possibilities per variable, 256 beyond; measured on an H200, docs/benchmarks.md).
    std::uint32_t group_threads = 0;
    /// Shared memory for the segment lookup (bytes, <= 48 KiB).
    std::size_t lookup_bytes = SuccessorTuning<kTuningArch>::kLookupBytes;
    bool random_order = false; ///< visit active variables in random order (FANG §3.5)
    /// Further shared memory per group (bytes) for keeping the ratings of the current variable
    /// and then the state slot on chip; what does not fit stays in global memory (0: ratings
    /// and states in global memory, FANG's layout). The device engine lowers it to what the
    /// device allows.
    std::size_t chip_bytes = SuccessorTuning<kTuningArch>::kChipBytes;
};

/// Where one group of the device engine keeps its data (successor_plan): dynamic shared memory
/// holds the segment lookup at offset 0, then the ratings (when on chip), then the state slot
/// (when on chip).
struct SuccessorPlan {
    std::uint32_t lookup_bytes = 0;   ///< 8 bytes per 32 possibilities
    bool ratings_on_chip = false;     ///< ratings in shared memory (else per-group global scratch)
    std::uint32_t ratings_offset = 0; ///< byte offset of the ratings in shared memory
    bool state_on_chip = false;       ///< the state slot is staged in shared memory
    std::uint32_t state_offset = 0;   ///< byte offset of the staged slot
    std::uint32_t shared_bytes = 0;   ///< dynamic shared memory per group
};

/// Word layout of a state slot: [user words | active bitset | successor value (2 words)].
struct SuccessorLayout {
    std::uint32_t user_words; ///< the problem's state_words()
    std::uint32_t mask_words; ///< ceil(variables / 32)
    std::uint32_t slot_words; ///< user_words + mask_words + 2

    /// The layout for `state_words` problem words and `variables` variables.
    static constexpr SuccessorLayout of(std::uint32_t state_words, std::uint32_t variables) {
        const std::uint32_t mask = (variables + 31) / 32;
        return {state_words, mask, state_words + mask + 2};
    }
    /// The active-variable bitset of `slot` (bit v % 32 of word v / 32 = variable v active).
    LOCUS_HD_INLINE std::uint32_t* mask(std::int32_t* slot) const {
        return reinterpret_cast<std::uint32_t*>(slot + user_words);
    }
    LOCUS_HD_INLINE const std::uint32_t* mask(const std::int32_t* slot) const {
        return reinterpret_cast<const std::uint32_t*>(slot + user_words);
    }
    /// The successor value (random seed) of `slot`.
    LOCUS_HD_INLINE std::uint64_t seed(const std::int32_t* slot) const {
        const auto* words = reinterpret_cast<const std::uint32_t*>(slot + user_words + mask_words);
        return static_cast<std::uint64_t>(words[0]) | (static_cast<std::uint64_t>(words[1]) << 32);
    }
    LOCUS_HD_INLINE void set_seed(std::int32_t* slot, std::uint64_t value) const {
        auto* words = reinterpret_cast<std::uint32_t*>(slot + user_words + mask_words);
        words[0] = static_cast<std::uint32_t>(value);
        words[1] = static_cast<std::uint32_t>(value >> 32);
    }
    /// Marks variable `var` of `slot` active (or inactive).
    LOCUS_HD_INLINE void set_active(std::int32_t* slot, std::uint32_t var, bool active) const {
        std::uint32_t& word = mask(slot)[var / 32];
        const std::uint32_t bit = 1u << (var % 32);
        word = active ? (word | bit) : (word & ~bit);
    }
    LOCUS_HD_INLINE bool is_active(const std::int32_t* slot, std::uint32_t var) const {
        return (mask(slot)[var / 32] >> (var % 32)) & 1u;
    }
};

/// A problem of the successor engine: a trivially copyable functor, passed by value to kernels
/// and called on the host by the CPU twin (its pointers must then be host pointers). `state`
/// points at the problem's own words of a slot.
///   rating_type, aggregator_type   trivially copyable; `aggregator_type{}` is the neutral
///                                  aggregator, `a.add(rating)` accumulates a rating and
///                                  `a.combine(b)` merges another aggregator; both must be
///                                  associative and commutative (e.g. integer sum, min, max),
///                                  since the device merges per-thread aggregators in a tree
///   kVariableTypes                 number of variable types (static constexpr int, >= 1)
///   state_words()                  problem words per state
///   variables()                    number of variables (<= 2^31)
///   max_possibilities()            upper bound of possibilities() (sizes the buffers)
///   variable_type(var)             the type of variable var, in [0, kVariableTypes)
/// and, per variable type T (member templates `template <int T>`):
///   possibilities<T>(state, var)   number of possibilities of var now (clamped to the bound)
///   rate<T>(state, var, l)         rating of possibility l (pure; state is read only)
/// optionally, per variable type, a per-variable context computed once per assignment by every
/// thread (in registers) and handed to every rating:
///   prepare<T>(state, var)         returns a trivially copyable context c
///   rate<T>(state, var, l, c)      used instead of rate<T>(state, var, l)
///   map<T>(rating, aggregator)     uint32 weight of a rating; 0 forbids the possibility
///   assign<T>(state, var, l)       applies possibility l to var
///   could_not_assign<T>(state, var) called when every weight of var is 0
/// All members are LOCUS_HD, const, do not throw, and return the same values on host and device.
/// The engine deactivates a variable after assign / could_not_assign.
template <class P>
concept SuccessorProblem = std::is_trivially_copyable_v<P> &&
                           std::is_trivially_copyable_v<typename P::rating_type> &&
                           std::is_trivially_copyable_v<typename P::aggregator_type> &&
                           (P::kVariableTypes >= 1) &&
                           requires(const P& p, std::uint32_t u, typename P::aggregator_type a,
                                    const typename P::rating_type& r) {
    { p.state_words() } -> std::convertible_to<std::uint32_t>;
    { p.variables() } -> std::convertible_to<std::uint32_t>;
    { p.max_possibilities() } -> std::convertible_to<std::uint32_t>;
    { p.variable_type(u) } -> std::convertible_to<int>;
    a.add(r);
    a.combine(a);
};

/// The layout of `problem`'s state slots.
template <class P> SuccessorLayout successor_layout(const P& problem) {
    return SuccessorLayout::of(problem.state_words(), problem.variables());
}

/// xorshift64* (Vigna): the per-state random stream of the engine, seeded by the successor value.
struct XorShift64Star {
    std::uint64_t state;

    /// A generator for `seed` (0, a fixed point of xorshift, is replaced by a constant).
    LOCUS_HD_INLINE static XorShift64Star from(std::uint64_t seed) {
        return {seed != 0 ? seed : 0x9E3779B97F4A7C15ull};
    }
    /// Next 64 random bits.
    LOCUS_HD_INLINE std::uint64_t next() {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        return state * 0x2545F4914F6CDD1Dull;
    }
    /// A number in [0, bound) (multiply-high; bound >= 1).
    LOCUS_HD_INLINE std::uint64_t below(std::uint64_t bound) { return mul_high(next(), bound); }

    /// High 64 bits of a * b (the same arithmetic on host and device).
    LOCUS_HD_INLINE static std::uint64_t mul_high(std::uint64_t a, std::uint64_t b) {
        const std::uint64_t a_lo = a & 0xFFFFFFFFull;
        const std::uint64_t a_hi = a >> 32;
        const std::uint64_t b_lo = b & 0xFFFFFFFFull;
        const std::uint64_t b_hi = b >> 32;
        const std::uint64_t lo_lo = a_lo * b_lo;
        const std::uint64_t hi_lo = a_hi * b_lo;
        const std::uint64_t lo_hi = a_lo * b_hi;
        const std::uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xFFFFFFFFull) + lo_hi;
        return a_hi * b_hi + (hi_lo >> 32) + (cross >> 32);
    }
};

/// The successor value of clone `target` of a generation step keyed by `seed` (never 0).
LOCUS_HD_INLINE std::uint64_t successor_value(std::uint64_t seed, std::uint64_t target) {
    const std::uint64_t value = derive_key(seed, target);
    return value != 0 ? value : 1;
}

/// Number of segment-lookup entries for `max_possibilities` possibilities.
constexpr std::uint32_t segment_count(std::uint32_t max_possibilities) {
    return (max_possibilities + kSegmentWidth - 1) / kSegmentWidth;
}

/// Validates `config` for problems of up to `max_possibilities` possibilities per variable.
/// Throws locus::Error naming the limit that is exceeded.
inline void check_successor_config(const SuccessorConfig& config, std::uint32_t max_possibilities) {
    if (config.group_threads != 0 && (config.group_threads < 32 || config.group_threads > 1024 ||
                                      config.group_threads % 32 != 0))
        throw Error("successor engine: group_threads is " + std::to_string(config.group_threads) +
                    "; it must be 0 (automatic) or a multiple of 32 between 32 and 1024");
    if (config.lookup_bytes > 48 * 1024)
        throw Error("successor engine: lookup_bytes is " + std::to_string(config.lookup_bytes) +
                    "; at most 49152 bytes (48 KiB) of shared memory are supported");
    const std::uint64_t needed = 8ull * segment_count(max_possibilities);
    if (needed > config.lookup_bytes)
        throw Error("successor engine: " + std::to_string(max_possibilities) +
                    " possibilities per variable need " + std::to_string(needed) +
                    " bytes of shared memory for the segment lookup (8 bytes per 32 "
                    "possibilities), but lookup_bytes is " +
                    std::to_string(config.lookup_bytes) + " (it holds " +
                    std::to_string(config.lookup_bytes / 8 * kSegmentWidth) +
                    " possibilities); raise SuccessorConfig::lookup_bytes or bound the "
                    "possibilities");
}

/// Throws locus::Error when `count` states exceed an engine's `capacity`.
inline void check_successor_capacity(std::uint64_t count, std::uint32_t capacity) {
    if (count > capacity)
        throw Error("successor engine: " + std::to_string(count) +
                    " states exceed the capacity of " + std::to_string(capacity) +
                    " states; construct the engine with a larger capacity");
}

/// Rounds `bytes` up to a multiple of 16.
constexpr std::uint32_t align16(std::uint64_t bytes) {
    return static_cast<std::uint32_t>((bytes + 15) / 16 * 16);
}

/// The shared-memory plan of `problem` under `config`: the segment lookup always; the ratings
/// of one variable when they fit config.chip_bytes; then the state slot when it fits what is
/// left.
template <class P> SuccessorPlan successor_plan(const P& problem, const SuccessorConfig& config) {
    SuccessorPlan plan;
    const std::uint32_t bound = problem.max_possibilities();
    plan.lookup_bytes = 8 * segment_count(bound);
    std::uint64_t used = align16(plan.lookup_bytes);
    std::uint64_t left = config.chip_bytes;
    const std::uint64_t ratings =
        align16(static_cast<std::uint64_t>(bound) * sizeof(typename P::rating_type));
    if (ratings <= left) {
        plan.ratings_on_chip = true;
        plan.ratings_offset = static_cast<std::uint32_t>(used);
        used += ratings;
        left -= ratings;
    }
    const std::uint64_t slot = align16(4ull * successor_layout(problem).slot_words);
    if (slot <= left) {
        plan.state_on_chip = true;
        plan.state_offset = static_cast<std::uint32_t>(used);
        used += slot;
    }
    plan.shared_bytes = static_cast<std::uint32_t>(used);
    return plan;
}

/// Device bytes of an engine holding up to `capacity` states per buffer and running `groups`
/// groups at once: the double-buffered states (2 * capacity * slot_words * 4) plus, when the
/// ratings are not kept on chip, one rating array per group (groups * max_possibilities *
/// sizeof(rating_type)). FANG's Eq. 1 has one rating and one prefix sum per possibility of
/// every state; the engine stores no per-possibility prefix sums and reuses rating storage
/// across the states a group serves.
template <class P>
std::size_t successor_bytes_needed(const P& problem, std::uint32_t capacity, std::uint32_t groups,
                                   bool ratings_on_chip) {
    const std::size_t slot = successor_layout(problem).slot_words * sizeof(std::int32_t);
    const std::size_t ratings = ratings_on_chip ? 0
                                                : static_cast<std::size_t>(groups) *
                                                      problem.max_possibilities() *
                                                      sizeof(typename P::rating_type);
    return 2 * static_cast<std::size_t>(capacity) * slot + ratings;
}

} // namespace locus::gpu
