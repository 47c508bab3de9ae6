#include "acceptance.hpp"

#include <cmath>

#include "locus/params.hpp"
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

/// Simulated-annealing-like acceptance: worse candidates pass with probability
/// exp(-(candidate - current) / T); T starts at `initial_temperature` percent of the first
/// current objective and is multiplied by `cooling` every iteration.
class Annealing final : public Acceptance {
public:
    explicit Annealing(const Params& params)
        : initial_percent_(params.get_real("initial_temperature")),
          cooling_(params.get_real("cooling")) {}

    void next_iteration() override {
        if (temperature_ >= 0.0) temperature_ *= cooling_;
    }
    bool accept(Objective current, Objective candidate, double u) override {
        if (temperature_ < 0.0) temperature_ = initial_percent_ / 100.0 * std::abs(current);
        if (candidate <= current) return true;
        if (temperature_ <= 0.0) return false;
        return u < std::exp(-(candidate - current) / temperature_);
    }

private:
    double initial_percent_;
    double cooling_;
    double temperature_ = -1.0;
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
                              "Simulated-annealing-like acceptance of worse candidates."};
    annealing.real("initial_temperature", "0.05",
                   "initial temperature in percent of the first current objective", 0.0);
    annealing.real("cooling", "0.999", "temperature factor per iteration", 0.0, 1.0);
    registry.add(annealing, [](const Params& p, BuildContext&) -> std::unique_ptr<Component> {
        return std::make_unique<Annealing>(p);
    });
}

} // namespace locus
