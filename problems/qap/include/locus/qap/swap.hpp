#pragma once
/// \file
/// The swap neighborhood of the QAP: exchanging the locations of two facilities r < s.
///
/// The raw-pointer functions are LOCUS_HD so that device kernels can call them on device
/// copies of the matrices; the Instance overloads are host conveniences. All formulas hold
/// for general (asymmetric, non-zero diagonal) matrices (Taillard 1991 and 1995).

#include <cstdint>
#include <span>
#include <vector>

#include "locus/hd.hpp"
#include "locus/qap/instance.hpp"

namespace locus::qap {

/// Change of the objective when facilities r and s (r != s, both < n) exchange locations in
/// permutation p: objective(p with p[r], p[s] swapped) - objective(p). O(n). a, b are n*n
/// row-major: pointers to any integer type or accessors with operator[] (arithmetic in 64
/// bits); p holds n entries.
template <class M>
LOCUS_HD_INLINE std::int64_t swap_delta(const M& a, const M& b, std::int32_t n,
                                        const std::int32_t* p, std::int32_t r, std::int32_t s) {
    const std::int64_t nn = n;
    const std::int64_t pr = p[r];
    const std::int64_t ps = p[s];
    const auto A = [&](std::int64_t i, std::int64_t j) {
        return static_cast<std::int64_t>(a[i * nn + j]);
    };
    const auto B = [&](std::int64_t i, std::int64_t j) {
        return static_cast<std::int64_t>(b[i * nn + j]);
    };
    // Diagonal and the (r,s)/(s,r) pair.
    std::int64_t delta = (A(r, r) - A(s, s)) * (B(ps, ps) - B(pr, pr)) +
                         (A(r, s) - A(s, r)) * (B(ps, pr) - B(pr, ps));
    for (std::int32_t k = 0; k < n; ++k) {
        if (k == r || k == s) continue;
        const std::int64_t pk = p[k];
        delta += (A(k, r) - A(k, s)) * (B(pk, ps) - B(pk, pr)) +
                 (A(r, k) - A(s, k)) * (B(ps, pk) - B(pr, pk));
    }
    return delta;
}

/// The swap delta of pair (r, s) after the pair (u, v) was swapped, from its value `before`
/// the (u, v) swap, in O(1). Preconditions: {r, s} and {u, v} are disjoint; p_after is the
/// permutation after the (u, v) swap; `before` = swap_delta(..., p_before, r, s). Valid for
/// asymmetric matrices and non-zero diagonals: only the k = u and k = v terms of the sum in
/// swap_delta change, and they combine into the two products below.
template <class M>
LOCUS_HD_INLINE std::int64_t updated_swap_delta(const M& a, const M& b, std::int32_t n,
                                                const std::int32_t* p_after, std::int64_t before,
                                                std::int32_t r, std::int32_t s, std::int32_t u,
                                                std::int32_t v) {
    const std::int64_t nn = n;
    const std::int64_t pr = p_after[r];
    const std::int64_t ps = p_after[s];
    const std::int64_t pu = p_after[u];
    const std::int64_t pv = p_after[v];
    const auto A = [&](std::int64_t i, std::int64_t j) {
        return static_cast<std::int64_t>(a[i * nn + j]);
    };
    const auto B = [&](std::int64_t i, std::int64_t j) {
        return static_cast<std::int64_t>(b[i * nn + j]);
    };
    const std::int64_t rows = A(r, u) - A(r, v) + A(s, v) - A(s, u);
    const std::int64_t cols = A(u, r) - A(v, r) + A(v, s) - A(u, s);
    return before + rows * (B(ps, pu) - B(ps, pv) + B(pr, pv) - B(pr, pu)) +
           cols * (B(pu, ps) - B(pv, ps) + B(pv, pr) - B(pu, pr));
}

/// A decoded swap: facilities r < s and their locations before the swap.
struct QapSwap {
    std::int32_t r = 0;
    std::int32_t s = 0;
    std::int32_t pr = 0;
    std::int32_t ps = 0;
};

/// How much the delta of swap x changes when the disjoint swap y is applied first: the
/// interaction term of updated_swap_delta with y's locations exchanged. Exact for general
/// matrices.
template <class M>
LOCUS_HD_INLINE std::int64_t swap_interaction(const M& a, const M& b, std::int32_t n,
                                              const QapSwap& x, const QapSwap& y) {
    const std::int64_t nn = n;
    const auto A = [&](std::int64_t i, std::int64_t j) {
        return static_cast<std::int64_t>(a[i * nn + j]);
    };
    const auto B = [&](std::int64_t i, std::int64_t j) {
        return static_cast<std::int64_t>(b[i * nn + j]);
    };
    const std::int64_t r = x.r, s = x.s, u = y.r, v = y.s;
    const std::int64_t pr = x.pr, ps = x.ps;
    const std::int64_t pu = y.ps, pv = y.pr; // y's locations after y
    const std::int64_t rows = A(r, u) - A(r, v) + A(s, v) - A(s, u);
    const std::int64_t cols = A(u, r) - A(v, r) + A(v, s) - A(u, s);
    return rows * (B(ps, pu) - B(ps, pv) + B(pr, pv) - B(pr, pu)) +
           cols * (B(pu, ps) - B(pv, ps) + B(pv, pr) - B(pu, pr));
}

/// The exact independence rule of two swaps for the parallel descent (Riise & Burke's definition:
/// applied together they change the objective by the sum of their deltas): they are dependent
/// when they share a facility or when either changes the other's delta (swap_interaction).
template <class M>
LOCUS_HD_INLINE bool swaps_conflict(const M& a, const M& b, std::int32_t n, const QapSwap& x,
                                    const QapSwap& y) {
    if (x.r == y.r || x.r == y.s || x.s == y.r || x.s == y.s) return true;
    return swap_interaction(a, b, n, x, y) != 0;
}

/// swap_delta on a host instance. Preconditions as above.
std::int64_t swap_delta(const Instance& instance, std::span<const std::int32_t> p, std::int32_t r,
                        std::int32_t s);

/// The swap deltas of one solution: d[r*n+s] = swap_delta(p, r, s) for r < s; the other
/// entries are 0 and unused.
struct DeltaTable {
    std::int32_t n = 0;          ///< size of the instance the table belongs to
    std::vector<std::int64_t> d; ///< n*n entries, row-major, upper triangle used

    /// Delta of swapping r and s, in either order (precondition: r != s, both < n).
    std::int64_t at(std::int32_t r, std::int32_t s) const {
        return r < s ? d[static_cast<std::size_t>(r) * static_cast<std::size_t>(n) +
                         static_cast<std::size_t>(s)]
                     : d[static_cast<std::size_t>(s) * static_cast<std::size_t>(n) +
                         static_cast<std::size_t>(r)];
    }
};

/// Fills `table` for permutation p: n(n-1)/2 swap deltas, O(n^3).
void init_delta_table(const Instance& instance, std::span<const std::int32_t> p, DeltaTable& table);

/// Updates `table` after facilities u != v were swapped; p_after is the permutation after
/// the swap and `table` held the deltas of the permutation before it. Entries (r, s)
/// disjoint from {u, v} take O(1) each (updated_swap_delta, general matrices); the 2n - 3
/// entries involving u or v are recomputed with swap_delta in O(n) each. Total O(n^2).
void update_delta_table(const Instance& instance, std::span<const std::int32_t> p_after,
                        std::int32_t u, std::int32_t v, DeltaTable& table);

} // namespace locus::qap
