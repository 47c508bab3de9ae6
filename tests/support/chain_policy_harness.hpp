#pragma once
// Checks of a many-chain policy on the Serial team (host): for every neighborhood, every move
// of a solution has delta = full re-evaluation after - before, and the incrementally updated
// workspace equals the workspace rebuilt from the new solution.

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "locus/gpu/chain_engine.hpp"
#include "locus/gpu/storage.hpp"

namespace locus::test {

/// Result of check_policy_moves: moves checked and disagreements found.
struct HarnessCount {
    std::uint64_t moves = 0;
    std::uint64_t wrong_delta = 0;
    std::uint64_t wrong_workspace = 0;
};

/// Neighborhood k of `policy` (host pointers, workspace declared for 2 chains here) from
/// `solution`: every valid cell is applied to a copy and checked. Every element is active.
template <int k, class P>
void check_neighborhood(P policy, const std::vector<std::int32_t>& solution, HarnessCount& count) {
    gpu::ArrayList list;
    policy.declare(list, 2);
    gpu::HostStorage storage;
    storage.allocate(list);
    std::vector<std::int32_t> active(static_cast<std::size_t>(policy.elements()));
    std::iota(active.begin(), active.end(), 0);
    const std::int32_t active_count = policy.elements();
    std::vector<std::int32_t> base = solution;
    policy.refresh(gpu::SerialTeam{}, 0, base.data());
    // Deltas add up to the descent objective: the chain objective, or for a penalising policy
    // the cost plus the penalty terms under the chain's weights.
    const auto full = [&](std::uint32_t chain, const std::int32_t* row) -> std::int64_t {
        if constexpr (gpu::Penalising<P, gpu::SerialTeam>)
            return policy.descent_evaluate(gpu::SerialTeam{}, chain, row);
        else
            return policy.evaluate(gpu::SerialTeam{}, chain, row);
    };
    const std::int64_t before = full(0, base.data());
    const auto eval = policy.template evaluator<k>(0, base.data(), active.data(), &active_count);
    const gpu::MoveGrid grid = eval.grid();
    using Delta = typename P::delta_type;
    // Chain 1 holds the trial (chain 0 keeps the start for the evaluator); its workspace after
    // the incremental update must equal the one rebuilt from the trial's solution.
    for (std::uint64_t index = 0; index < grid.size(); ++index) {
        const auto r = static_cast<std::uint32_t>(index / grid.cols);
        const Delta d = eval(eval.row(0, r), static_cast<std::uint32_t>(index % grid.cols));
        if (d == gpu::invalid_delta<Delta>())
            continue;
        ++count.moves;
        std::vector<std::int32_t> trial = base;
        policy.refresh(gpu::SerialTeam{}, 1, trial.data());
        const auto move = eval.decode(0, index);
        policy.apply(gpu::SerialTeam{}, 1, trial.data(), move);
        const std::int64_t after = full(1, trial.data());
        if (after != before + static_cast<std::int64_t>(d))
            ++count.wrong_delta;
        // Snapshot the incrementally updated workspace of chain 1, rebuild it, compare.
        std::vector<unsigned char> incremental(storage.bytes());
        std::vector<unsigned char> rebuilt(storage.bytes());
        std::memcpy(incremental.data(), storage.data(), storage.bytes());
        policy.refresh(gpu::SerialTeam{}, 1, trial.data());
        std::memcpy(rebuilt.data(), storage.data(), storage.bytes());
        if (incremental != rebuilt)
            ++count.wrong_workspace;
    }
}

} // namespace locus::test
