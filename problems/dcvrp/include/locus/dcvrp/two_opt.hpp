#pragma once
/// \file
/// The giant-tour 2-opt neighborhood of the DCVRP (paper 001): remove two edges of the giant
/// tour and reverse the part between them (which may span routes); moves whose routes would
/// exceed the capacity or the duration limit are not moves. Evaluated in O(1) per move through
/// segment resources. CPU backend (the neighborhood engine's CPU twin, all cores).

#include <memory>

#include "locus/dcvrp/dcvrp_problem.hpp"
#include "locus/gpu/neighborhood_adapter.hpp"
#include "locus/problem.hpp"

namespace locus::dcvrp {

/// Throws NotImplemented for the CUDA backend (not built yet).
std::unique_ptr<Neighborhood> make_two_opt(const DcvrpProblem& problem,
                                           const gpu::EngineSettings& settings, Backend backend);

} // namespace locus::dcvrp
