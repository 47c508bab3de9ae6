#pragma once
/// \file
/// Islands and elites of the many-chain search: which chains form an island, which chain leads
/// it, how the islands' leaders fold into the best one, and the elite of distinct bests.

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace locus::chains {

/// The chains [begin, end) of one island.
struct IslandRange {
    std::uint32_t begin;
    std::uint32_t end;
};

/// The chains of island i of `islands` over `chains` chains: the blocks of MixedConstruction,
/// so that each island starts from its own construction.
IslandRange island_range(std::uint32_t i, std::uint32_t islands, std::size_t chains);

/// The copy_best exchange on islands: chains [i N / I, (i + 1) N / I) form island i (the blocks
/// of the mixed construction, so with I constructions each island starts from its own), and
/// each chain continues from its island's leader, the lowest chain of least best objective.
/// Returns the source chain of every chain.
std::vector<std::uint32_t> island_leaders(std::span<const std::int64_t> values,
                                          std::uint32_t islands);

/// cross_islands: the folds (target, other) that bring the other islands' leaders into the best
/// one's: target the leader of least best objective (`values` per chain; the lowest island
/// among equals), other each remaining leader once, in island order. `leaders[i]` leads island i.
std::vector<std::pair<std::uint32_t, std::uint32_t>>
island_folds(std::span<const std::uint32_t> leaders, std::span<const std::int64_t> values);

/// The `e` chains with the lowest distinct best objectives (ties to the lowest chain).
std::vector<std::uint32_t> elite_chains(std::span<const std::int64_t> values, std::uint32_t e);

} // namespace locus::chains
