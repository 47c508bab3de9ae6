#pragma once
/// \file
/// The chain-major state of every chain of the many-chain engine (ChainArrays) and the leader's
/// focus bookkeeping.

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "locus/gpu/storage.hpp"
#include "locus/hd.hpp"

namespace locus::gpu {

/// Chain-major state of every chain (host or device pointers): chain c owns words
/// [c * width, (c + 1) * width) of the solution arrays, [c * elements, ...) of the element
/// arrays and element c of the scalars.
struct ChainArrays {
    std::int32_t width = 0;
    std::int32_t elements = 0;
    std::int32_t* current = nullptr;
    std::int32_t* trial = nullptr;
    std::int32_t* best = nullptr;
    std::int64_t* current_objective = nullptr;
    std::int64_t* trial_objective = nullptr;
    std::int64_t* best_objective = nullptr;
    unsigned long long* evaluations = nullptr;
    std::uint8_t* focus_bits = nullptr;
    std::int32_t* focus_list = nullptr; ///< elements changed in this iteration, in order
    std::int32_t* focus_count = nullptr;
    std::int32_t* active_list = nullptr; ///< elements a descent still searches from
    std::int32_t* active_count = nullptr;
    std::uint8_t* active_bits = nullptr;
    std::uint8_t* improving = nullptr; ///< per active entry: an improving move was seen
    std::int32_t* touched = nullptr;   ///< per chain: scratch for touched elements
    std::int64_t* errors = nullptr;    ///< per chain: flag, neighborhood, by delta, full
    /// Declares the arrays of independent-move descents (chain::descend_many) below.
    bool independent = false;
    std::int64_t* row_delta = nullptr;   ///< per active entry: its row's best delta
    std::uint32_t* row_col = nullptr;    ///< per active entry: the column of that move
    std::int32_t* row_groups = nullptr;  ///< per active entry: 2 groups of that move (-1: none)
    std::int64_t* group_delta = nullptr; ///< per group: the smallest delta of a move on it
    std::int32_t* group_row = nullptr;   ///< per group: the lowest row of that delta
    std::int32_t* chosen = nullptr;      ///< per chain: the elements of the chosen moves
    std::uint32_t* chosen_col = nullptr; ///< per chain: their columns

    /// Declares every array for `chains` chains.
    void declare(ArrayList& list, std::size_t chains) {
        const auto w = static_cast<std::size_t>(width);
        const auto e = static_cast<std::size_t>(elements);
        list.add(current, chains * w, "current solutions");
        list.add(trial, chains * w, "trial solutions");
        list.add(best, chains * w, "best solutions");
        list.add(current_objective, chains, "objectives");
        list.add(trial_objective, chains, "objectives");
        list.add(best_objective, chains, "objectives");
        list.add(evaluations, chains, "counters");
        list.add(focus_bits, chains * e, "focus flags");
        list.add(focus_list, chains * e, "focus lists");
        list.add(focus_count, chains, "focus counts");
        list.add(active_list, chains * e, "active lists");
        list.add(active_count, chains, "active counts");
        list.add(active_bits, chains * e, "active flags");
        list.add(improving, chains * e, "improvement flags");
        list.add(touched, chains * std::max(w, e), "touched elements");
        list.add(errors, chains * 4, "check results");
        if (independent) {
            list.add(row_delta, chains * e, "independent moves: row deltas");
            list.add(row_col, chains * e, "independent moves: row columns");
            list.add(row_groups, chains * 2 * e, "independent moves: row groups");
            list.add(group_delta, chains * e, "independent moves: group deltas");
            list.add(group_row, chains * e, "independent moves: group rows");
            list.add(chosen, chains * e, "independent moves: chosen elements");
            list.add(chosen_col, chains * e, "independent moves: chosen columns");
        }
    }

    LOCUS_HD_INLINE std::int64_t solution(std::uint32_t chain) const {
        return static_cast<std::int64_t>(chain) * width;
    }
    LOCUS_HD_INLINE std::int64_t element(std::uint32_t chain) const {
        return static_cast<std::int64_t>(chain) * elements;
    }
};

namespace chain {

LOCUS_EXEC_CHECK_DISABLE
template <class Team>
LOCUS_HD_INLINE void copy(const Team& team, std::int32_t* to, const std::int32_t* from,
                          std::int32_t count) {
    for (std::int32_t k = static_cast<std::int32_t>(team.rank()); k < count;
         k += static_cast<std::int32_t>(team.size()))
        to[k] = from[k];
}

/// Leader only: adds an element to the chain's focus (once).
LOCUS_HD_INLINE void focus(const ChainArrays& a, std::uint32_t chain, std::int32_t element) {
    std::uint8_t* bits = a.focus_bits + a.element(chain);
    if (bits[element] != 0) return;
    bits[element] = 1;
    a.focus_list[a.element(chain) + a.focus_count[chain]] = element;
    ++a.focus_count[chain];
}

/// Leader only: empties the focus.
LOCUS_HD_INLINE void clear_focus(const ChainArrays& a, std::uint32_t chain) {
    std::uint8_t* bits = a.focus_bits + a.element(chain);
    const std::int32_t* list = a.focus_list + a.element(chain);
    for (std::int32_t f = 0; f < a.focus_count[chain]; ++f)
        bits[list[f]] = 0;
    a.focus_count[chain] = 0;
}

} // namespace chain

} // namespace locus::gpu
