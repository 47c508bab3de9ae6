#pragma once
/// \file
/// A construction made of others: contiguous blocks of a batch built by different
/// constructions, so that groups of solutions (the many-chain engine's islands) start from
/// differently structured solutions.

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "locus/problem.hpp"

namespace locus {

/// Of N solutions and k constructions, solutions [j N / k, (j + 1) N / k) come from
/// construction j, which draws from derive_key(seed, j) as its seed (so solution i of block j
/// from derive_key(derive_key(seed, j), i - j N / k)). Blocks are built in order; once `stop`
/// returns true after the first non-empty block, the solutions of the blocks not built become
/// copies of solution 0; so do those of a later block whose construction throws Stopped (the
/// first block's Stopped propagates: there is no solution to copy).
class MixedConstruction final : public Construction {
public:
    explicit MixedConstruction(std::vector<std::unique_ptr<Construction>> parts);

    void construct(SolutionBatch& batch, std::uint64_t seed) override;
    void construct_until(SolutionBatch& batch, std::uint64_t seed,
                         const std::function<bool()>& stop) override;

    /// First solution of block j of a batch of `count` solutions (block j ends where j + 1
    /// begins).
    static std::size_t block_begin(std::size_t j, std::size_t blocks, std::size_t count) {
        return j * count / blocks;
    }

private:
    std::vector<std::unique_ptr<Construction>> parts_;
};

} // namespace locus
