#pragma once
/// \file
/// Acceptance of the many-chain engine: whether a chain's perturbed and descended trial replaces
/// its current solution, decided alike on both backends (annealing: annealing.hpp's Metropolis
/// test and geometric schedule, temperatures in objective units).

#include <cstdint>

#include "locus/gpu/annealing.hpp"
#include "locus/hd.hpp"
#include "locus/rng.hpp"
#include "locus/rng_salts.hpp"

namespace locus::gpu {

/// How a chain decides whether its perturbed and descended trial replaces its current solution.
enum class AcceptanceKind : std::int32_t {
    better_or_equal = 0, ///< trial <= current
    threshold = 1,       ///< trial <= current + threshold (threshold accepting)
    annealing = 2,       ///< Metropolis: uphill with probability exp(-delta / T_iteration)
};

/// Acceptance as a device policy (host-built constants, identical decisions on both backends).
struct Acceptance {
    AcceptanceKind kind = AcceptanceKind::better_or_equal;
    std::int64_t threshold = 0; ///< threshold: largest accepted uphill step (objective units)
    double temperature = 0.0;   ///< annealing: T at iteration 0 (objective units)
    double log_cooling = 0.0;   ///< annealing: ln of the per-iteration cooling factor (<= 0)

    /// Whether `trial` replaces `current` at global iteration `iteration` of `chain`.
    LOCUS_HD_INLINE bool accept(std::int64_t trial, std::int64_t current, std::uint64_t seed,
                                std::uint32_t chain, std::uint64_t iteration) const {
        if (trial <= current) return true;
        if (kind == AcceptanceKind::threshold) return trial - current <= threshold;
        if (kind != AcceptanceKind::annealing || !(temperature > 0.0)) return false;
        const double t = geometric_temperature(temperature, log_cooling, iteration);
        if (!(t > 0.0)) return false;
        Rng rng(derive_key(seed, chain, iteration, salt::kChainAcceptance), 0);
        return metropolis(static_cast<double>(trial - current), t, unit_interval(rng.next_u64()));
    }
};

} // namespace locus::gpu
