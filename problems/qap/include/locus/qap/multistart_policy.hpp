#pragma once
/// \file
/// The QAP as a problem policy of the multi-start engine (locus/gpu/multistart.hpp): the swap
/// neighborhood with Taillard's delta updates over 32-bit copies of the flow and distance
/// matrices, stored as one array [a | b] so that the engine can copy both into shared memory.

#include <cstdint>
#include <vector>

#include "locus/hd.hpp"
#include "locus/qap/instance.hpp"
#include "locus/qap/swap.hpp"

namespace locus::qap {

/// Read access to a matrix: plain loads, or (device, global memory) loads through the
/// read-only data cache.
struct MatrixView {
    const std::int32_t* words = nullptr;
    bool read_only_cache = false;
    LOCUS_HD_INLINE std::int64_t operator[](std::int64_t i) const {
#if defined(__CUDA_ARCH__)
        if (read_only_cache) return __ldg(words + i);
#endif
        return words[i];
    }
};

struct QapSwapPolicy {
    MatrixView a; ///< flows, n*n
    MatrixView b; ///< distances, n*n (b.words = a.words + n*n)
    std::int32_t n = 0;

    LOCUS_HD_INLINE std::int32_t size() const { return n; }
    /// Row i of the objective: sum over j of a_ij b_p(i)p(j).
    LOCUS_HD std::int64_t row_cost(const std::int32_t* p, std::int32_t i) const {
        std::int64_t sum = 0;
        const std::int64_t nn = n;
        const std::int64_t pi = p[i];
        for (std::int32_t j = 0; j < n; ++j)
            sum += a[i * nn + j] * b[pi * nn + p[j]];
        return sum;
    }
    LOCUS_HD_INLINE std::int64_t delta(const std::int32_t* p, std::int32_t r,
                                       std::int32_t s) const {
        return swap_delta(a, b, n, p, r, s);
    }
    LOCUS_HD_INLINE std::int64_t updated(const std::int32_t* p, std::int64_t d, std::int32_t r,
                                         std::int32_t s, std::int32_t u, std::int32_t v) const {
        return updated_swap_delta(a, b, n, p, d, r, s, u, v);
    }
    LOCUS_HD_INLINE std::uint32_t data_words() const {
        return 2u * static_cast<std::uint32_t>(n) * static_cast<std::uint32_t>(n);
    }
    LOCUS_HD_INLINE const std::int32_t* data() const { return a.words; }
    /// The policy reading [a | b] at `words` (a shared-memory copy: plain loads).
    LOCUS_HD_INLINE QapSwapPolicy with_data(const std::int32_t* words) const {
        return {{words, false}, {words + static_cast<std::int64_t>(n) * n, false}, n};
    }
};

/// [a | b] as 32-bit words (2 n^2). Throws InstanceError when a value needs more than 31 bits.
std::vector<std::int32_t> matrix_words(const Instance& instance);

/// The policy over `words` = matrix_words(instance) (host or device copy).
inline QapSwapPolicy swap_policy(const std::int32_t* words, std::int32_t n, bool read_only_cache) {
    return {
        {words, read_only_cache}, {words + static_cast<std::int64_t>(n) * n, read_only_cache}, n};
}

} // namespace locus::qap
