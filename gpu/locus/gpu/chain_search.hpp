#pragma once
/// \file
/// The host loop of the many-chain engine as an algorithm component, registered by a problem
/// plugin with one call: start the chains from the batch, then epochs of `epoch` iterations per
/// chain, each preceded by an exchange between chains (copy-best, elite pool, recombination or
/// none) and followed by offering the leader's best to the search context.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "locus/component.hpp"
#include "locus/gpu/chain_engine.hpp"
#include "locus/params.hpp"

namespace locus {
class Registry;
}

namespace locus::gpu {

/// How chains exchange solutions before every epoch.
enum class Exchange {
    none,      ///< chains stay independent
    copy_best, ///< every chain continues from the leader's best solution
    elite,     ///< chain c continues from the (c mod E)-th of the E best distinct chains
    recombine, ///< chain c continues from a recombination of two elite chains' bests
    population, ///< a population managed by cost and diversity; every chain restarts from a
                ///< recombination of two parents chosen by binary tournament
    merge,      ///< the chains' bests fold pairwise into one (a binary tree of
                ///< recombinations, the better parent first); every chain continues from it
};

/// Distance between two solutions in [0, 1] (e.g. the broken-pairs distance of routes).
using SolutionDistance =
    std::function<double(std::span<const std::int32_t>, std::span<const std::int32_t>)>;

/// What a problem plugin registers: the algorithm's name and documentation, its own
/// parameters, and the factory of a runner for the job's backend.
struct ChainSearchSpec {
    std::string problem; ///< problem name the algorithm is scoped to, e.g. "tsp"
    std::string name;    ///< algorithm name, e.g. "resident_ils"
    std::string doc;     ///< one paragraph for `locus plugins --verbose`
    /// Adds the problem's own parameters to the schema (the engine's are added for it).
    std::function<void(ComponentSchema&)> parameters;
    /// Builds the runner of `chains` chains on b.backend (CPU twin or CUDA) with `params`.
    std::function<std::unique_ptr<ChainRunner>(const Params& p, const BuildContext& b,
                                               std::uint32_t chains, const ChainParams& params)>
        make_runner;
    /// Optional, for chains that count cost in their own integer units (e.g. fixed point for
    /// real-valued distances): a factory of the chains' objective of a solution. The starts
    /// are then measured with it, chains are compared in those units, and the solutions
    /// offered to the search context carry the problem's own objective. Empty: the chains'
    /// objective is the problem's.
    std::function<std::function<std::int64_t(std::span<const std::int32_t>)>(
        const BuildContext& b)>
        chain_objective;
    /// Optional: a factory of the distance between solutions that the population exchange
    /// ranks diversity by. Empty: `exchange: population` is refused for this algorithm.
    std::function<SolutionDistance(const BuildContext& b)> distance;
};

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

/// Registers the algorithm with the engine's parameters: epoch, acceptance (better, threshold,
/// annealing) with threshold / temperature / cooling, exchange (none, copy_best, elite,
/// recombine, population, merge) with elite, population, generation and close.
void register_chain_search(Registry& registry, ChainSearchSpec spec);

} // namespace locus::gpu
