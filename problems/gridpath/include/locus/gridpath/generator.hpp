#pragma once
/// \file
/// Generated grid-path instances, named by specs such as
/// "random-grid:size=256,agents=32,obstacles=0.2,seed=1".

#include <cstdint>
#include <string_view>

#include "locus/gridpath/instance.hpp"

namespace locus::gridpath {

/// Largest side of a generated square grid.
inline constexpr std::int32_t kMaxGeneratorSize = 4096;

/// A size x size grid with round(obstacle_density * size * size) blocked cells
/// at uniformly random positions, and `agents` agents whose 2 * agents start
/// and goal cells are pairwise distinct free cells, each goal in the same
/// connected region as its start (so reachable). Starts are uniform over the
/// free cells of regions that still have room for a pair. Deterministic: the
/// same arguments give the same instance on every machine. The name is the
/// canonical spec "random-grid:size=<s>,agents=<a>,obstacles=<d>,seed=<seed>".
/// Throws InstanceError "<spec>: <reason>" when size is
/// outside 2..kMaxGeneratorSize, agents < 1, the density is outside [0, 1), or
/// the regions of free cells have room for fewer agents.
Instance generate(std::int32_t size, std::int32_t agents, double obstacle_density,
                  std::uint64_t seed);

/// True when `text` names a generator rather than a file: "<generator>:"
/// followed by "key=value" pairs (also for unknown generator names of that
/// shape, so that generate_from_spec can say what is wrong).
bool is_generator_spec(std::string_view text);

/// Builds the instance a spec names. Grammar:
/// "random-grid:size=<int>,agents=<int>[,obstacles=<real>][,seed=<int>]"
/// (obstacles defaults to 0, seed to 1; parameters in any order). Throws
/// InstanceError "invalid instance generator spec '<spec>': <reason>" for an
/// unknown generator, a missing, unknown, repeated or malformed parameter or an
/// out-of-range value, and the errors of generate().
Instance generate_from_spec(std::string_view spec);

} // namespace locus::gridpath
