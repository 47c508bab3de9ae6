#pragma once
/// \file
/// The QAP swap neighborhood as an evaluator of the neighborhood engine: cell (r, s) of an
/// n x n grid is the exchange of the locations of facilities r < s (other cells are not moves).
/// Same object on the CPU twin (host pointers) and in kernels (device pointers).

#include <cstdint>

#include "locus/gpu/neighborhood_engine.hpp"
#include "locus/qap/swap.hpp"

namespace locus::qap {

struct SwapEvaluator {
    using delta_type = std::int64_t;
    struct row_type {
        const std::int32_t* p;
        std::int32_t r;
    };
    const std::int64_t* a = nullptr;
    const std::int64_t* b = nullptr;
    const std::int32_t* perms = nullptr; ///< batch x n permutations
    std::int32_t n = 0;

    LOCUS_HD_INLINE gpu::MoveGrid grid() const {
        return {static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(n)};
    }
    LOCUS_HD_INLINE row_type row(std::uint32_t solution, std::uint32_t r) const {
        return {perms + static_cast<std::int64_t>(solution) * n, static_cast<std::int32_t>(r)};
    }
    LOCUS_HD_INLINE delta_type operator()(const row_type& x, std::uint32_t col) const {
        const auto s = static_cast<std::int32_t>(col);
        if (s <= x.r) return gpu::invalid_delta<delta_type>();
        return swap_delta(a, b, n, x.p, x.r, s);
    }
    /// The swap of a move index with the locations of solution `solution` (r >= s: no move).
    LOCUS_HD_INLINE QapSwap decode(std::uint32_t solution, std::uint64_t index) const {
        QapSwap m;
        decode(index, n, m.r, m.s);
        const std::int32_t* p = perms + static_cast<std::int64_t>(solution) * n;
        if (m.r < n && m.s < n) {
            m.pr = p[m.r];
            m.ps = p[m.s];
        }
        return m;
    }
    /// Facilities (r, s) of a move index (valid when r < s).
    LOCUS_HD_INLINE static void decode(std::uint64_t index, std::int32_t n, std::int32_t& r,
                                       std::int32_t& s) {
        r = static_cast<std::int32_t>(index / static_cast<std::uint64_t>(n));
        s = static_cast<std::int32_t>(index % static_cast<std::uint64_t>(n));
    }
};

} // namespace locus::qap
