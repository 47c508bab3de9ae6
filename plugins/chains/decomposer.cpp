#include "decomposer.hpp"

#include <algorithm>
#include <utility>

#include "locus/rng.hpp"
#include "locus/rng_salts.hpp"

namespace locus::chains {

Decomposer::Decomposer(std::shared_ptr<const gpu::Decomposition> decomposition,
                       std::uint32_t size, std::uint64_t seed, std::size_t width,
                       std::function<std::int64_t(std::span<const std::int32_t>)> value)
    : decomposition_(std::move(decomposition)), size_(size), seed_(seed), width_(width),
      value_(std::move(value)), base_(width) {}

bool Decomposer::fold(gpu::ChainRunner& runner, std::span<const std::int64_t> values) {
    const std::size_t groups = groups_.size();
    if (groups == 0) return false;
    const std::size_t chains = values.size();
    std::vector<std::vector<std::int32_t>> rows(groups);
    std::vector<std::span<const std::int32_t>> parts(groups, std::span<const std::int32_t>(base_));
    bool improved = false;
    for (std::size_t g = 0; g < groups && g < chains; ++g) {
        std::size_t winner = g;
        for (std::size_t c = g + groups; c < chains; c += groups)
            if (values[c] < values[winner]) winner = c;
        if (values[winner] >= base_value_) continue;
        rows[g].resize(width_);
        runner.best_solution(static_cast<std::uint32_t>(winner), rows[g]);
        parts[g] = rows[g];
        improved = true;
    }
    if (!improved) return false;
    std::vector<std::int32_t> assembled(width_);
    decomposition_->assemble(groups_, parts, assembled);
    const std::int64_t value = value_(assembled);
    // Improvements of disjoint groups add up; a worse whole would be a broken decomposition,
    // and the base is kept.
    if (value >= base_value_) return false;
    base_ = std::move(assembled);
    base_value_ = value;
    return true;
}

void Decomposer::redraw(gpu::ChainRunner& runner, std::uint32_t chains, std::uint64_t round,
                        bool descend, const std::function<bool()>& stop) {
    groups_ = decomposition_->split(base_, size_, chains,
                                    derive_key(seed_, round, salt::kChainDecomposition));
    const std::size_t groups = groups_.size();
    std::vector<std::uint32_t> offsets(static_cast<std::size_t>(chains) + 1, 0);
    std::vector<std::int32_t> elements;
    for (std::uint32_t c = 0; c < chains; ++c) {
        if (groups > 1) {
            const auto& group = groups_[c % groups];
            elements.insert(elements.end(), group.begin(), group.end());
        }
        offsets[c + 1] = static_cast<std::uint32_t>(elements.size());
    }
    runner.restrict_chains(elements, offsets);
    if (!descend) {
        runner.reset(base_, base_value_);
        return;
    }
    std::vector<std::int32_t> starts;
    starts.reserve(width_ * chains);
    for (std::uint32_t c = 0; c < chains; ++c)
        starts.insert(starts.end(), base_.begin(), base_.end());
    const std::vector<std::int64_t> values(chains, base_value_);
    runner.start(starts, values, stop, 0);
}

} // namespace locus::chains
