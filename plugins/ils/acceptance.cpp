#include "acceptance.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "locus/gpu/annealing.hpp"
#include "locus/params.hpp"
#include "locus/params_check.hpp"
#include "locus/registry.hpp"

namespace locus {
namespace {

/// Accepts improvements (and, optionally, equal objectives: plateau moves).
class Better final : public Acceptance {
public:
    explicit Better(const Params& params) : allow_equal_(params.get_bool("allow_equal")) {}
    bool accept(Objective current, Objective candidate, double) override {
        return candidate < current || (allow_equal_ && candidate == current);
    }

private:
    bool allow_equal_;
};

/// Accepts every candidate (random walk over local optima).
class Always final : public Acceptance {
public:
    bool accept(Objective, Objective, double) override { return true; }
};

/// Simulated annealing's acceptance (annealing.hpp): worse candidates pass the Metropolis test
/// at T, which starts at `temperature` times the best start's objective (the least current
/// objective of the first iteration, in absolute value: the unit of the chains' temperature and
/// threshold) and is multiplied by `cooling` every iteration after the first. `temperature` 0
/// derives T0 as the multi-start engine does, at the first iteration with uphill candidates:
/// their mean uphill step is accepted with probability `accept0`.
class Annealing final : public Acceptance {
public:
    explicit Annealing(const Params& params)
        : initial_(params.get_real("temperature")),
          log_accept0_(std::log(params.get_real("accept0"))),
          cooling_(gpu::Cooling::make(gpu::Schedule::geometric, initial_,
                                      params.get_real("cooling"), 1.0, 0)) {
        const double accept0 = params.get_real("accept0");
        if (!(accept0 > 0.0 && accept0 < 1.0))
            throw params_error(params, "accept0", "must lie strictly between 0 and 1");
    }

    void next_iteration(const SolutionBatch& current, const SolutionBatch& candidates) override {
        if (started_) {
            temperature_ = cooling_.next(temperature_, step_++);
            return;
        }
        if (initial_ > 0.0) {
            Objective best = current.objective(0);
            for (std::size_t i = 1; i < current.count(); ++i)
                best = std::min(best, current.objective(i));
            temperature_ = initial_ * std::abs(static_cast<double>(best));
            started_ = true;
            return;
        }
        double uphill = 0.0;
        std::uint64_t count = 0;
        for (std::size_t i = 0; i < current.count(); ++i)
            if (candidates.objective(i) > current.objective(i)) {
                uphill += candidates.objective(i) - current.objective(i);
                ++count;
            }
        // NOTE: until a candidate is worse, nothing needs a temperature (every candidate is
        // accepted), and the schedule does not start.
        if (count == 0) return;
        temperature_ = gpu::derived_temperature(uphill, count, log_accept0_);
        started_ = true;
    }
    bool accept(Objective current, Objective candidate, double u) override {
        if (candidate <= current) return true;
        if (!(temperature_ > 0.0)) return false;
        return gpu::metropolis(candidate - current, temperature_, u);
    }

private:
    double initial_;
    double log_accept0_;
    gpu::Cooling cooling_;
    double temperature_ = 0.0;
    bool started_ = false;
    std::uint64_t step_ = 0;
};

} // namespace

void register_acceptance(Registry& registry) {
    ComponentSchema better{"acceptance", "better", "",
                           "Accept a candidate if it is better than the current solution."};
    better.boolean("allow_equal", "true", "also accept candidates of equal objective");
    registry.add(better, [](const Params& p, BuildContext&) -> std::unique_ptr<Component> {
        return std::make_unique<Better>(p);
    });

    ComponentSchema always{"acceptance", "always", "", "Accept every candidate."};
    registry.add(always, [](const Params&, BuildContext&) -> std::unique_ptr<Component> {
        return std::make_unique<Always>();
    });

    ComponentSchema annealing{"acceptance", "annealing", "",
                              "Simulated annealing's acceptance: worse candidates pass the "
                              "Metropolis test at a temperature that is a share of the best "
                              "start's objective, as the chains' temperature."};
    annealing.real("temperature", "0.0",
                   "initial temperature as a share of the best start's objective (an uphill "
                   "step of temperature x start objective passes with probability 1/e), as the "
                   "chains' temperature; 0 derives it from the first uphill candidates (accept0)",
                   0.0, 1.0);
    annealing.real("accept0", "0.5",
                   "derived temperature: acceptance probability, in (0, 1), of the first "
                   "iteration's mean uphill step",
                   0.0, 1.0);
    annealing.real("cooling", "0.999", "temperature factor per iteration", 0.0, 1.0);
    registry.add(annealing, [](const Params& p, BuildContext&) -> std::unique_ptr<Component> {
        return std::make_unique<Annealing>(p);
    });
}

} // namespace locus
