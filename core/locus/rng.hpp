#pragma once
/// \file
/// Counter-based random numbers (Philox4x32-10, Salmon et al., SC'11), identical on host and
/// device. A stream is keyed by (seed, stream id); the n-th draw of a stream depends only on the
/// key and n, never on thread scheduling. Keys are derived from (seed, run, solution, step) with
/// `derive_key`.

#include <cstdint>

#include "locus/hd.hpp"

namespace locus {

/// Mixes words into a 64-bit key (splitmix64 finaliser chain). Used to derive independent
/// stream keys such as derive_key(seed, run, solution, step).
LOCUS_HD_INLINE std::uint64_t mix64(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

LOCUS_HD_INLINE std::uint64_t derive_key(std::uint64_t a, std::uint64_t b) {
    return mix64(a ^ mix64(b + 0x632BE59BD9B4E019ull));
}
LOCUS_HD_INLINE std::uint64_t derive_key(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
    return derive_key(derive_key(a, b), c);
}
LOCUS_HD_INLINE std::uint64_t derive_key(std::uint64_t a, std::uint64_t b, std::uint64_t c,
                                         std::uint64_t d) {
    return derive_key(derive_key(a, b, c), d);
}

/// Philox4x32-10 block function: 128-bit counter, 64-bit key -> 128 random bits.
struct Philox4x32 {
    std::uint32_t v[4];

    LOCUS_HD_INLINE static Philox4x32 block(std::uint64_t key, std::uint64_t counter_hi,
                                            std::uint64_t counter_lo) {
        std::uint32_t c0 = static_cast<std::uint32_t>(counter_lo);
        std::uint32_t c1 = static_cast<std::uint32_t>(counter_lo >> 32);
        std::uint32_t c2 = static_cast<std::uint32_t>(counter_hi);
        std::uint32_t c3 = static_cast<std::uint32_t>(counter_hi >> 32);
        std::uint32_t k0 = static_cast<std::uint32_t>(key);
        std::uint32_t k1 = static_cast<std::uint32_t>(key >> 32);
        for (int round = 0; round < 10; ++round) {
            const std::uint64_t p0 = static_cast<std::uint64_t>(0xD2511F53u) * c0;
            const std::uint64_t p1 = static_cast<std::uint64_t>(0xCD9E8D57u) * c2;
            const auto hi0 = static_cast<std::uint32_t>(p0 >> 32);
            const auto lo0 = static_cast<std::uint32_t>(p0);
            const auto hi1 = static_cast<std::uint32_t>(p1 >> 32);
            const auto lo1 = static_cast<std::uint32_t>(p1);
            c0 = hi1 ^ c1 ^ k0;
            c1 = lo1;
            c2 = hi0 ^ c3 ^ k1;
            c3 = lo0;
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        return Philox4x32{{c0, c1, c2, c3}};
    }
};

/// A random stream: draws are Philox blocks of (key, stream, n). Cheap to copy; two copies
/// with the same state produce the same numbers on host and device.
class Rng {
public:
    LOCUS_HD Rng(std::uint64_t seed, std::uint64_t stream) : key_(seed), stream_(stream) {}

    /// Next 32 uniformly distributed bits.
    LOCUS_HD_INLINE std::uint32_t next_u32() {
        if (used_ == 4) {
            block_ = Philox4x32::block(key_, stream_, counter_++);
            used_ = 0;
        }
        return block_.v[used_++];
    }

    /// Next 64 uniformly distributed bits.
    LOCUS_HD_INLINE std::uint64_t next_u64() {
        const std::uint64_t hi = next_u32();
        return (hi << 32) | next_u32();
    }

    /// Uniform integer in [0, bound) for bound >= 1 (Lemire's multiply-shift with rejection,
    /// so the result is exactly uniform).
    LOCUS_HD_INLINE std::uint32_t below(std::uint32_t bound) {
        std::uint64_t m = static_cast<std::uint64_t>(next_u32()) * bound;
        auto low = static_cast<std::uint32_t>(m);
        if (low < bound) {
            const std::uint32_t threshold = (0u - bound) % bound;
            while (low < threshold) {
                m = static_cast<std::uint64_t>(next_u32()) * bound;
                low = static_cast<std::uint32_t>(m);
            }
        }
        return static_cast<std::uint32_t>(m >> 32);
    }

    /// Uniform double in [0, 1) with 53 random bits.
    LOCUS_HD_INLINE double uniform() {
        return static_cast<double>(next_u64() >> 11) * (1.0 / 9007199254740992.0);
    }

private:
    std::uint64_t key_;
    std::uint64_t stream_;
    std::uint64_t counter_ = 0;
    Philox4x32 block_{};
    unsigned used_ = 4;
};

} // namespace locus
