#pragma once
/// \file
/// Simulated annealing, written once for every user: the Metropolis test, the initial
/// temperature derived from sampled uphill steps, and the cooling schedules. Temperatures are in
/// objective units (an uphill step of T is accepted with probability 1/e). Host and device
/// inline; the arithmetic is exact_math.hpp's (products and sums rounded once each, a software
/// exponential), so the CPU twins and the CUDA engines decide identically. Users: the many-chain
/// engine's acceptance (chain_acceptance.hpp), the multi-start engine's simulated annealing
/// (multistart.hpp) and the ILS plugin's `annealing` acceptance.

#include <cmath>
#include <cstdint>

#include "locus/gpu/exact_math.hpp"
#include "locus/hd.hpp"

namespace locus::gpu {

/// A uniform draw in [0, 1) from 64 random bits (their top 53 bits; as Rng::uniform).
LOCUS_HD_INLINE double unit_interval(std::uint64_t bits) {
    return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

/// The Metropolis test: whether an uphill step of `uphill` (> 0, objective units) is accepted at
/// temperature `temperature` (> 0, objective units) with the uniform draw u in [0, 1):
/// u < e^(-uphill / temperature).
LOCUS_HD_INLINE bool metropolis(double uphill, double temperature, double u) {
    return u < exp_nonpositive(-uphill / temperature);
}

/// The initial temperature at which the mean of `count` sampled uphill steps (their sum
/// `uphill`, objective units) is accepted with probability accept0: mean / -ln(accept0), with
/// `log_accept0` = ln(accept0) < 0. Without samples (count 0) the mean is taken as 1.
LOCUS_HD_INLINE double derived_temperature(double uphill, std::uint64_t count, double log_accept0) {
    const double mean = count == 0 ? 1.0 : uphill / static_cast<double>(count);
    return mean / -log_accept0;
}

/// Cooling schedule of simulated annealing, from T0 to T0 * final_ratio over `steps` steps.
enum class Schedule : std::int32_t {
    geometric = 0,  ///< T_{k+1} = c T_k
    linear = 1,     ///< T_k = T0 (1 - (1 - final_ratio) k / steps)
    lundy_mees = 2, ///< T_{k+1} = T_k / (1 + beta T_k) (Lundy and Mees 1986)
};

/// Host: the geometric schedule's factor per step that reaches T0 * final_ratio after `steps`
/// steps (1 for no steps).
inline double geometric_factor(double final_ratio, std::uint64_t steps) {
    return steps == 0 ? 1.0 : std::pow(final_ratio, 1.0 / static_cast<double>(steps));
}

/// The geometric schedule in closed form, for users that number their steps rather than walk
/// them in order (a chain's iterations are spread over epochs): T_k = T0 e^(k ln c), with
/// `log_factor` = ln c <= 0.
LOCUS_HD_INLINE double geometric_temperature(double initial, double log_factor, std::uint64_t k) {
    return mul_rn(initial, exp_nonpositive(mul_rn(static_cast<double>(k), log_factor)));
}

/// A cooling schedule walked step by step from T0 (objective units): next(T_k, k) = T_{k+1}.
/// NOTE: the step-by-step geometric walk (a product per step) and the closed form above round
/// differently; each user keeps to one of them.
struct Cooling {
    Schedule schedule = Schedule::geometric;
    double initial = 0.0;     ///< T0 (objective units)
    double factor = 1.0;      ///< geometric: factor per step
    double final_ratio = 1.0; ///< linear: T_steps / T0
    std::uint64_t steps = 0;  ///< linear and Lundy-Mees: steps to reach T0 * final_ratio
    double beta = 0.0;        ///< Lundy-Mees: (1 / final_ratio - 1) / (steps T0)

    /// The schedule from T0 = `initial`: geometric with `factor` per step, or linear or
    /// Lundy-Mees reaching `initial` * `final_ratio` after `steps` steps.
    LOCUS_HD_INLINE static Cooling make(Schedule schedule, double initial, double factor,
                                        double final_ratio, std::uint64_t steps) {
        Cooling c;
        c.schedule = schedule;
        c.initial = initial;
        c.factor = factor;
        c.final_ratio = final_ratio;
        c.steps = steps;
        c.beta = steps == 0 || initial <= 0.0
                     ? 0.0
                     : (1.0 / final_ratio - 1.0) / (static_cast<double>(steps) * initial);
        return c;
    }

    /// The temperature after step k (0-based) from its temperature `t` at step k.
    LOCUS_HD_INLINE double next(double t, std::uint64_t k) const {
        if (schedule == Schedule::geometric) return mul_rn(t, factor);
        if (schedule == Schedule::linear)
            return mul_rn(initial,
                          add_rn(1.0, -(mul_rn(1.0 - final_ratio, static_cast<double>(k + 1)) /
                                        static_cast<double>(steps))));
        return t / add_rn(1.0, mul_rn(beta, t));
    }
};

} // namespace locus::gpu
