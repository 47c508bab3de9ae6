#pragma once
/// \file
/// The salts that tell apart the random streams drawn from one seed: a salt is the last part of
/// a key, derive_key(seed, ..., salt), so that two purposes keyed by the same seed and counters
/// never share draws. One list, so that a new purpose picks a value no other uses. Most are
/// four or eight ASCII letters read as a big-endian number ("cons" = 0x636F6E73). Changing a
/// value changes the results of every seeded run that draws from its stream.

#include <cstdint>

namespace locus::salt {

// Runs (core/, plugins/).

/// SearchContext::construct: the run's initial solutions, derive_key(run seed, salt). "cons".
inline constexpr std::uint64_t kConstruction = 0x636F6E73ull;
/// ILS acceptance draws of an iteration, derive_key(run seed, iteration, salt). "accp".
inline constexpr std::uint64_t kIlsAcceptance = 0x61636370ull;
/// ILS perturbation round r of an iteration, derive_key(seed, iteration, salt + r). "pert".
inline constexpr std::uint64_t kIlsPerturbation = 0x70657274ull;
/// ILS restart construction of an iteration, derive_key(run seed, iteration, salt). "rstr".
inline constexpr std::uint64_t kIlsRestart = 0x72737472ull;
/// Beam search expansion of a step, derive_key(run seed, step, salt). "beam".
inline constexpr std::uint64_t kBeamExpansion = 0x6265616Dull;

// Many-chain search (gpu/).

/// Restart construction of the chains, derive_key(seed, restart, salt). "rest".
inline constexpr std::uint64_t kChainRestart = 0x72657374ull;
/// Parents drawn from the chains' population in a round, derive_key(seed, round, salt).
inline constexpr std::uint64_t kChainPopulation = 0x9090ull;
/// Annealing acceptance of a chain's iteration, derive_key(seed, chain, iteration, salt).
inline constexpr std::uint64_t kChainAcceptance = 0xACCE97ull;
/// Recombination of a chain's child in a round, derive_key(seed, chain, round, salt).
inline constexpr std::uint64_t kChainRecombination = 0x4EC0ull;

/// Decomposition of the chains' base solution in a round, derive_key(seed, round, salt). "dcmp".
inline constexpr std::uint64_t kChainDecomposition = 0x64636D70ull;

// Problems (problems/).

/// TSP FANG construction's successor values, derive_key(seed, salt). "fang".
inline constexpr std::uint64_t kTspFang = 0x66616E67ull;
/// TSP instance generator, derive_key(instance seed, salt). "tsp-gen\0".
inline constexpr std::uint64_t kTspGenerator = 0x7473702D67656E00ull;
/// QAP instance generator, derive_key(instance seed, salt). "qap-gen\0".
inline constexpr std::uint64_t kQapGenerator = 0x7161702D67656E00ull;
/// DCVRP instance generator, derive_key(instance seed, salt). "cvrp-gen".
inline constexpr std::uint64_t kDcvrpGenerator = 0x637672702D67656Eull;
/// VRPTW instance generator's windows, derive_key(instance seed, salt). "vrptw-gn".
inline constexpr std::uint64_t kVrptwGenerator = 0x76727074772D676Eull;
/// Gridpath instance generator, derive_key(instance seed, salt). "grid-gen".
inline constexpr std::uint64_t kGridpathGenerator = 0x677269642D67656Eull;
/// QAP greedy construction of solution k, derive_key(seed, k, salt). "gree".
inline constexpr std::uint64_t kQapGreedy = 0x67726565ull;
/// QAP multi-start round's search seed, derive_key(run seed, round, salt). "mult".
inline constexpr std::uint64_t kQapMultiStart = 0x6D756C74ull;
/// QAP multi-start kick of search s from the elite, derive_key(round seed, s, salt). "kick".
inline constexpr std::uint64_t kQapKick = 0x6B69636Bull;

} // namespace locus::salt
