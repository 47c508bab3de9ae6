#pragma once
/// \file
/// The QAP as a policy of the many-chain engine (locus/gpu/chain_engine.hpp): permutations of n
/// facilities; one neighborhood, the swap, read from a per-chain table of swap deltas that a
/// move updates in O(1) per pair (O(n) for the 2n - 3 pairs sharing a facility with it, as in
/// Taillard's robust tabu search); `kick` random swaps as perturbation; a recombination that
/// keeps the locations both parents agree on.

#include <cstdint>

#include "locus/gpu/neighborhood_engine.hpp"
#include "locus/gpu/storage.hpp"
#include "locus/hd.hpp"
#include "locus/qap/multistart_policy.hpp"
#include "locus/qap/swap.hpp"
#include "locus/rng.hpp"

namespace locus::qap {

/// A swap of the facilities at positions r < s.
struct SwapMove {
    std::int32_t r = 0;
    std::int32_t s = 0;
};

/// Neighborhood 0 of the chains: the swap deltas of one chain's table as a grid of n x n cells
/// (cell (r, s) is a move for r < s).
struct SwapTable {
    using delta_type = std::int64_t;
    using row_type = std::int32_t;
    static constexpr std::int32_t rows_per_focus = 0;
    const std::int64_t* table = nullptr;
    std::int32_t n = 0;

    LOCUS_HD_INLINE gpu::MoveGrid grid() const {
        return {static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(n)};
    }
    LOCUS_HD_INLINE row_type row(std::uint32_t, std::uint32_t r) const {
        return static_cast<std::int32_t>(r);
    }
    LOCUS_HD_INLINE delta_type operator()(row_type r, std::uint32_t col) const {
        const auto s = static_cast<std::int32_t>(col);
        return s <= r ? gpu::invalid_delta<delta_type>()
                      : table[static_cast<std::int64_t>(r) * n + s];
    }
    LOCUS_HD_INLINE SwapMove decode(std::uint32_t, std::uint64_t index) const {
        return {static_cast<std::int32_t>(index / static_cast<std::uint64_t>(n)),
                static_cast<std::int32_t>(index % static_cast<std::uint64_t>(n))};
    }
};

struct QapChainPolicy {
    using delta_type = std::int64_t;
    using move_type = SwapMove;
    static constexpr int kNeighborhoods = 1;
    static constexpr int kMaxTouched = 2;

    QapSwapPolicy matrices;       ///< flows and distances (32-bit words)
    std::int32_t n = 0;
    std::int32_t kick = 2;        ///< random swaps per perturbation (<= n / 2)
    std::int64_t* table = nullptr; ///< chains x n x n swap deltas
    std::int32_t* used = nullptr;  ///< chains x n (recombination)

    template <int k>
    LOCUS_HD_INLINE static constexpr bool focused() {
        return false;
    }
    LOCUS_HD_INLINE std::int32_t width() const { return n; }
    LOCUS_HD_INLINE std::int32_t elements() const { return n; }

    void declare(gpu::ArrayList& list, std::size_t chains) {
        const auto count = static_cast<std::size_t>(n);
        list.add(table, chains * count * count, "QAP swap-delta tables");
        list.add(used, chains * count, "QAP recombination flags");
    }

    LOCUS_HD_INLINE std::int64_t* table_of(std::uint32_t c) const {
        return table + static_cast<std::int64_t>(c) * n * n;
    }

    /// Every swap delta of chain c from its permutation (n^3 / 2 steps: seconds per chain on a
    /// CPU core at n = 2000), rows of about 2^22 steps between two reads of `halt` (may be
    /// null): once raised, the table is left incomplete and the chain's search ends unread.
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD void refresh(const Team& team, std::uint32_t c, const std::int32_t* p,
                          const volatile std::uint8_t* halt = nullptr) const {
        std::int64_t* d = table_of(c);
        const std::int64_t square = static_cast<std::int64_t>(n) * n;
        const std::int64_t rows = std::max<std::int64_t>((std::int64_t{1} << 22) / square, 1);
        for (std::int64_t r0 = 0; r0 < n; r0 += rows) {
            if (gpu::raised(team, halt)) return;
            const std::int64_t end = (r0 + rows < n ? r0 + rows : n) * n;
            for (std::int64_t k = r0 * n + team.rank(); k < end; k += team.size()) {
                const auto r = static_cast<std::int32_t>(k / n);
                const auto s = static_cast<std::int32_t>(k % n);
                if (r < s)
                    d[k] = matrices.delta(p, r, s);
            }
        }
        team.sync();
    }

    template <int k>
    LOCUS_HD_INLINE SwapTable evaluator(std::uint32_t c, const std::int32_t*, const std::int32_t*,
                                        const std::int32_t*) const {
        return {table_of(c), n};
    }

    LOCUS_HD_INLINE int touched(const std::int32_t*, const SwapMove& m, std::int32_t* out) const {
        out[0] = m.r;
        out[1] = m.s;
        return 2;
    }

    /// Swaps, then updates the table: pairs disjoint from the move in O(1), the others in O(n).
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD void apply(const Team& team, std::uint32_t c, std::int32_t* p,
                        const SwapMove& m) const {
        if (team.rank() == 0) {
            const std::int32_t t = p[m.r];
            p[m.r] = p[m.s];
            p[m.s] = t;
        }
        team.sync();
        std::int64_t* d = table_of(c);
        const std::int64_t cells = static_cast<std::int64_t>(n) * n;
        for (std::int64_t k = team.rank(); k < cells; k += team.size()) {
            const auto r = static_cast<std::int32_t>(k / n);
            const auto s = static_cast<std::int32_t>(k % n);
            if (r >= s)
                continue;
            if (r == m.r || r == m.s || s == m.r || s == m.s)
                d[k] = matrices.delta(p, r, s);
            else
                d[k] = matrices.updated(p, d[k], r, s, m.r, m.s);
        }
        team.sync();
    }

    /// Leader only: `kick` random swaps; touched = the swapped positions.
    LOCUS_HD std::int64_t perturb(std::uint32_t, std::int32_t* p, Rng& rng, std::int32_t* out,
                                  std::int32_t& count) const {
        std::int64_t delta = 0;
        count = 0;
        const auto size = static_cast<std::uint32_t>(n);
        for (std::int32_t k = 0; k < kick && n >= 2; ++k) {
            const auto x = static_cast<std::int32_t>(rng.below(size));
            const auto y = static_cast<std::int32_t>((x + 1 + rng.below(size - 1)) % size);
            const std::int32_t r = x < y ? x : y;
            const std::int32_t s = x < y ? y : x;
            delta += matrices.delta(p, r, s);
            const std::int32_t t = p[r];
            p[r] = p[s];
            p[s] = t;
            out[count++] = r;
            out[count++] = s;
        }
        return delta;
    }

    /// The objective (every thread gets it).
    LOCUS_EXEC_CHECK_DISABLE
    template <class Team>
    LOCUS_HD std::int64_t evaluate(const Team& team, std::uint32_t, const std::int32_t* p) const {
        std::int64_t sum = 0;
        for (std::int32_t i = static_cast<std::int32_t>(team.rank()); i < n;
             i += static_cast<std::int32_t>(team.size()))
            sum += matrices.row_cost(p, i);
        return team.sum(sum);
    }

    /// Leader only: the child keeps every location where the parents agree; each other
    /// position takes parent a's facility, else parent b's, when still free; the facilities left
    /// fill the open positions in random order.
    LOCUS_HD void recombine(std::uint32_t c, const std::int32_t* a, const std::int32_t* b,
                            std::int32_t* child, Rng& rng) const {
        std::int32_t* taken = used + static_cast<std::int64_t>(c) * n;
        for (std::int32_t i = 0; i < n; ++i)
            taken[i] = 0;
        for (std::int32_t i = 0; i < n; ++i) {
            child[i] = -1;
            if (a[i] == b[i]) {
                child[i] = a[i];
                taken[a[i]] = 1;
            }
        }
        for (std::int32_t i = 0; i < n; ++i) {
            if (child[i] >= 0)
                continue;
            const std::int32_t pick = (rng.next_u32() & 1u) != 0 ? a[i] : b[i];
            if (taken[pick] == 0) {
                child[i] = pick;
                taken[pick] = 1;
            }
        }
        // The free facilities, shuffled, into the open positions.
        std::int32_t free_count = 0;
        for (std::int32_t f = 0; f < n; ++f)
            if (taken[f] == 0)
                taken[free_count++] = f; // reuses the flags' prefix as the list
        for (std::int32_t k = free_count - 1; k > 0; --k) {
            const auto j = static_cast<std::int32_t>(rng.below(static_cast<std::uint32_t>(k + 1)));
            const std::int32_t t = taken[k];
            taken[k] = taken[j];
            taken[j] = t;
        }
        std::int32_t next = 0;
        for (std::int32_t i = 0; i < n; ++i)
            if (child[i] < 0)
                child[i] = taken[next++];
    }
};

} // namespace locus::qap
