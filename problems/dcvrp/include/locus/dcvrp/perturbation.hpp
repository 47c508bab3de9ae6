#pragma once
/// \file
/// Perturbations of DCVRP giant tours for iterated local search.

#include <cstdint>
#include <memory>

#include "locus/dcvrp/dcvrp_problem.hpp"
#include "locus/problem.hpp"

namespace locus::dcvrp {

/// The giant-tour double bridge: on the linear tour of a solution with one empty route
/// (linear_tour.hpp), three random cut points x < y < z split it into A B C D and the
/// tour becomes A C B D, which moves parts (possibly spanning routes) across the tour. A kick
/// that changes nothing or whose routes break the capacity, the duration limit or the fleet (more routes than the
/// vehicles and than before) is drawn again, up to 1000 times, else that kick is skipped.
/// `kicks` bridges per perturbation; with window w > 0 the cuts lie within w positions after a
/// random start. Solution i draws from derive_key(seed, i); objectives are recomputed.
std::unique_ptr<Perturbation> make_double_bridge(const DcvrpProblem& problem, std::int32_t kicks,
                                                 std::int32_t window);

} // namespace locus::dcvrp
