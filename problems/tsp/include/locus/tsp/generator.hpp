#pragma once
/// \file
/// Generated TSP instances, named by specs such as "random-uniform:n=2000,seed=7".

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "locus/tsp/instance.hpp"

namespace locus::tsp {

/// Default side of the square of random-uniform instances.
inline constexpr std::int32_t kDefaultGeneratorSize = 1000000;

/// n cities with integral coordinates drawn uniformly from [0, size) x [0, size), EUC_2D.
/// Deterministic: the same (n, seed, size) gives the same instance on every machine. The
/// name is the canonical spec, "random-uniform:n=<n>,seed=<seed>" plus ",size=<size>" when size
/// is not the default. Throws InstanceError when n < 3, n > 2^31 - 1 or size < 1.
Instance generate_random_uniform(std::size_t n, std::uint64_t seed,
                                 std::int32_t size = kDefaultGeneratorSize);

/// True when `text` names a generator rather than a file: "<generator>:" followed by
/// "key=value" pairs, e.g. "random-uniform:n=2000,seed=7" (also for unknown generator
/// names of that shape, so that generate_from_spec can say what is wrong).
bool is_generator_spec(std::string_view text);

/// Builds the instance a spec names. Grammar: "random-uniform:n=<int>[,seed=<int>][,size=<int>]"
/// (seed defaults to 1, size to kDefaultGeneratorSize). Throws InstanceError
/// "invalid instance generator spec '<spec>': <reason>" for an unknown generator, a missing n,
/// unknown, repeated or non-numeric parameters, or out-of-range values.
Instance generate_from_spec(std::string_view spec);

} // namespace locus::tsp
