#include "locus/mixed_construction.hpp"

#include "locus/error.hpp"
#include "locus/rng.hpp"

namespace locus {

MixedConstruction::MixedConstruction(std::vector<std::unique_ptr<Construction>> parts)
    : parts_(std::move(parts)) {
    if (parts_.empty()) throw ConfigError("mixed construction: no constructions given");
}

void MixedConstruction::construct(SolutionBatch& batch, std::uint64_t seed) {
    construct_until(batch, seed, {});
}

void MixedConstruction::construct_until(SolutionBatch& batch, std::uint64_t seed,
                                        const std::function<bool()>& stop) {
    const std::size_t n = batch.count();
    const std::size_t k = parts_.size();
    std::size_t built = 0;
    for (std::size_t j = 0; j < k; ++j) {
        const std::size_t begin = block_begin(j, k, n);
        const std::size_t end = block_begin(j + 1, k, n);
        if (begin == end) continue;
        if (built > 0 && stop && stop()) break;
        SolutionBatch block(end - begin, batch.width());
        parts_[j]->construct_until(block, derive_key(seed, j), stop);
        for (std::size_t i = begin; i < end; ++i) batch.copy_from(i, block, i - begin);
        built = end;
    }
    for (std::size_t i = built; i < n; ++i) batch.copy_from(i, batch, 0);
}

} // namespace locus
