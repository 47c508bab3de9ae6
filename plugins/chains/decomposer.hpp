#pragma once
/// \file
/// The decompose exchange of the many-chain search: every chain continues from one base
/// solution, confined to a region of it (a group of the problem's Decomposition, chain c to
/// group c mod G), so that the chains of different groups improve different parts at once;
/// after the epoch each group's part comes from its best chain, the parts are assembled into
/// the next base, and the groups are drawn again (their borders move).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "locus/gpu/chain_engine.hpp"
#include "locus/gpu/chain_policy_component.hpp"

namespace locus::chains {

class Decomposer {
public:
    /// `size`: elements per group; `value`: the chains' objective of a solution.
    Decomposer(std::shared_ptr<const gpu::Decomposition> decomposition, std::uint32_t size,
               std::uint64_t seed, std::size_t width,
               std::function<std::int64_t(std::span<const std::int32_t>)> value);

    /// The chains (re)start from `solution` (of chain objective `value`), the next redraw's
    /// base; no chain holds a solution until that redraw.
    void begin(std::span<const std::int32_t> solution, std::int64_t value) {
        groups_.clear();
        base_.assign(solution.begin(), solution.end());
        base_value_ = value;
    }
    /// Folds the last epoch into the base: each group's part from the chain of the group with
    /// the best objective (`values`, the lowest chain among equals) when it improved on the
    /// base. Returns whether the base improved.
    bool fold(gpu::ChainRunner& runner, std::span<const std::int64_t> values);
    /// Splits the base into groups of round `round` and restarts every chain from the base,
    /// chain c confined to group c mod G (not confined when there is one group); with
    /// `descend`, each chain first descends from every element of its region, as a start does
    /// (`stop` polled meanwhile), so that a construction's descent is shared by the regions.
    void redraw(gpu::ChainRunner& runner, std::uint32_t chains, std::uint64_t round, bool descend,
                const std::function<bool()>& stop);

    std::span<const std::int32_t> base() const { return base_; }
    std::int64_t base_value() const { return base_value_; }
    /// Groups of the current split.
    std::size_t groups() const { return groups_.size(); }

private:
    std::shared_ptr<const gpu::Decomposition> decomposition_;
    std::uint32_t size_;
    std::uint64_t seed_;
    std::size_t width_;
    std::function<std::int64_t(std::span<const std::int32_t>)> value_;
    std::vector<std::int32_t> base_;
    std::int64_t base_value_ = 0;
    std::vector<std::vector<std::int32_t>> groups_;
};

} // namespace locus::chains
