#pragma once
/// \file
/// The many-chain engine: many local-search chains resident on one backend, each running its
/// whole loop — perturb, descend (VND over a compile-time list of neighborhoods, don't-look bits),
/// accept — without leaving its team of threads (one CUDA block per chain, or one CPU thread per
/// chain in the CPU twin). The chain routine is written once over a Team (team.hpp), so both
/// backends make the same decisions and give the same solutions for the same seed. Kernels and
/// the CUDA runner are in chain_engine.cuh; the host loop is the chains algorithm (plugins/chains),
/// a problem offers its chains through chain_policy_component.hpp.
///
/// The engine in parts: chain_policy.hpp (what a problem supplies: the ChainPolicy concept, its
/// optional capabilities, ChainParams), chain_acceptance.hpp (the acceptance rule),
/// chain_arrays.hpp (the chains' state), chain_descent.hpp (descents and VND),
/// chain_routine.hpp (a chain's iterations and the exchanges), chain_runner.hpp (the backend
/// interface and the CPU twin).

#include "locus/gpu/chain_acceptance.hpp"
#include "locus/gpu/chain_arrays.hpp"
#include "locus/gpu/chain_descent.hpp"
#include "locus/gpu/chain_policy.hpp"
#include "locus/gpu/chain_routine.hpp"
#include "locus/gpu/chain_runner.hpp"
