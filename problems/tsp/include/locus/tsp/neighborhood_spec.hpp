#pragma once
/// \file
/// Which TSP neighborhood an engine explores, as plain data shared by the operators, the
/// engines and the registration.

#include <cstdint>

#include "locus/tsp/moves.hpp"

namespace locus::tsp {

/// Which neighborhood: the operator (by its tag), its candidate-list size (0 = full
/// neighborhood) and, for sampled operators, the sample size and seed.
struct NeighborhoodSpec {
    MoveKind kind = MoveKind::two_opt;
    std::int32_t candidates = 0;
    std::uint32_t samples = 0; ///< sampled operators (three_opt): samples per exploration (k)
    std::uint64_t seed = 0;    ///< sampled operators: seed of the samples (the job seed)
};

/// Type tag carrying an evaluator type.
template <class Eval> struct SpaceTag { using type = Eval; };

/// Type tag carrying an operator type.
template <class Op> struct OperatorTag { using type = Op; };

} // namespace locus::tsp
