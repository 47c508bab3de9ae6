#pragma once
/// \file
/// The many-chain search (algorithm `chains`): starts the chains of the many-chain engine
/// from the batch, then runs epochs of `epoch` iterations per chain, each preceded by an
/// exchange between chains (exchanges.hpp) and followed by offering the leader's best to the
/// search context; restarts the chains from a fresh construction after `restart` quiet epochs.
/// The chains are the problem's (its chain_policy component, chain_policy_component.hpp).

#include <cstdint>
#include <memory>

#include "exchanges.hpp"
#include "locus/algorithm.hpp"
#include "locus/gpu/chain_engine.hpp"
#include "locus/gpu/chain_policy_component.hpp"
#include "locus/params.hpp"
#include "locus/problem.hpp"

namespace locus::chains {

/// Settings of the search's own parameters.
struct ChainSearchOptions {
    std::uint32_t epoch = 20; ///< iterations per chain between exchanges
    gpu::AcceptanceKind acceptance = gpu::AcceptanceKind::better_or_equal;
    double threshold = 0.0;         ///< threshold acceptance, share of the start objective
    double temperature = 0.0;       ///< annealing T0, share of the start objective
    double cooling = 1.0;           ///< annealing factor per iteration
    ExchangeOptions exchange;       ///< the exchanges between chains
    bool child_descent = false;     ///< population: children descend from every element first
    bool first_improvement = false; ///< pivot: first
    bool independent_moves = false; ///< pivot: independent
    gpu::StartPivot start_pivot = gpu::StartPivot::same; ///< start_pivot (same: pivot's)
    bool thread_per_chain = false;  ///< mapping: thread (CUDA)
    std::uint64_t restart = 0;      ///< epochs without a new chain best before a restart (0: off)
};

/// Refuses more islands than chains (each island needs a chain to lead it).
void check_islands(const Params& p, std::uint32_t islands, std::size_t chains);

/// The search over the chains of `policy`; `start` (may be null) runs before the chains start,
/// `restart` (null when options.restart is 0) builds the chains' solutions at a restart.
std::unique_ptr<Algorithm> make_chain_search(Params params, const BuildContext& build,
                                             ChainSearchOptions options,
                                             std::unique_ptr<gpu::ChainPolicyComponent> policy,
                                             std::unique_ptr<Algorithm> start,
                                             std::unique_ptr<Construction> restart);

} // namespace locus::chains
