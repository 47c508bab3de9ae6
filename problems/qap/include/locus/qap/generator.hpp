#pragma once
/// \file
/// Generated QAP instances, named by specs such as "random-qap:n=20,seed=1".

#include <cstdint>
#include <string_view>
#include <vector>

#include "locus/qap/instance.hpp"

namespace locus::qap {

/// Default largest entry of generated matrices.
inline constexpr std::int64_t kDefaultMaxValue = 100;

/// n facilities with flows and distances drawn uniformly from 0..max_value. Symmetric (the
/// default): a and b are symmetric with a zero diagonal, like most QAPLIB instances;
/// asymmetric: every entry, the diagonal included, is drawn independently. Deterministic:
/// the same arguments give the same instance on every machine. The name is the canonical
/// spec "random-qap:n=<n>,seed=<seed>" plus ",max=<max_value>" when not the default and
/// ",asymmetric=1" when asymmetric. Throws InstanceError "<name>: <reason>" when n is
/// outside 2..kMaxSize, max_value is outside 0..2^31-1, or the objective could overflow.
Instance generate_random(std::int32_t n, std::uint64_t seed,
                         std::int64_t max_value = kDefaultMaxValue, bool asymmetric = false);

/// `count` uniformly random permutations of 0..n-1, one after the other (count * n entries);
/// permutation i is a Fisher-Yates shuffle driven by Rng(derive_key(seed, i)).
std::vector<std::int32_t> random_permutations(std::int32_t n, std::uint32_t count,
                                              std::uint64_t seed);

/// True when `text` names a generator rather than a file: "<generator>:" followed by
/// "key=value" pairs (also for unknown generator names of that shape, so that
/// generate_from_spec can say what is wrong).
bool is_generator_spec(std::string_view text);

/// Builds the instance a spec names. Grammar:
/// "random-qap:n=<int>[,seed=<int>][,max=<int>][,asymmetric=0|1]" (seed defaults to 1, max
/// to kDefaultMaxValue, asymmetric to 0; any order). Throws InstanceError "invalid instance
/// generator spec '<spec>': <reason>" for an unknown generator, a missing n, unknown,
/// repeated or malformed parameters, and the errors of generate_random.
Instance generate_from_spec(std::string_view spec);

} // namespace locus::qap
