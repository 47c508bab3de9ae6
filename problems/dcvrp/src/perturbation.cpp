// The giant-tour double bridge (perturbation.hpp).

#include "locus/dcvrp/perturbation.hpp"

#include <algorithm>
#include <vector>

#include "locus/dcvrp/giant_tour.hpp"
#include "locus/dcvrp/linear_tour.hpp"
#include "locus/rng.hpp"

namespace locus::dcvrp {
namespace {

/// Whether the routes of closed tour `t` (L positions) respect capacity, duration and a fleet
/// of max(vehicles, routes_before) routes; `routes` gets their number.
bool admissible(const Instance& inst, const std::vector<std::int32_t>& t, std::int32_t vehicles,
                std::int32_t routes_before, std::int32_t& routes) {
    routes = 0;
    std::int64_t load = 0;
    double travel = 0.0;
    std::int32_t customers = 0;
    for (std::size_t k = 1; k < t.size(); ++k) {
        travel += inst.distance(t[k - 1], t[k]);
        if (t[k] != kDepot) {
            load += inst.demand[static_cast<std::size_t>(t[k])];
            ++customers;
            continue;
        }
        if (customers > 0) {
            ++routes;
            const double duration = travel + inst.service_time * customers;
            if (load > inst.capacity || !within_duration(duration, inst.max_duration))
                return false;
        }
        load = 0;
        travel = 0.0;
        customers = 0;
    }
    return vehicles == 0 || routes <= std::max(vehicles, routes_before);
}

/// Draws per kick before it is skipped.
constexpr int kAttempts = 1000;

class DoubleBridge final : public Perturbation {
public:
    DoubleBridge(const DcvrpProblem& problem, std::int32_t kicks, std::int32_t window)
        : problem_(problem), kicks_(kicks), window_(window) {}

    void perturb(SolutionBatch& batch, std::uint64_t seed) override {
        const Instance& inst = problem_.instance();
        const auto width = static_cast<std::int32_t>(batch.width());
        const std::int32_t customers = width / 2;
        const auto count = static_cast<std::int64_t>(batch.count());
#pragma omp parallel for schedule(static) if (count > 16)
        for (std::int64_t b = 0; b < count; ++b) {
            const auto i = static_cast<std::size_t>(b);
            Rng rng(derive_key(seed, i), 0);
            // The linear tour with one empty route: kicks among empty routes change nothing.
            const std::int32_t length =
                std::min(width + 1, customers + row_routes(batch[i].data(), width) + 2);
            if (length < 6) continue;
            std::vector<std::int32_t> tour(static_cast<std::size_t>(length));
            std::vector<std::int32_t> moved(tour.size());
            linearize(batch[i].data(), width, length, tour.data());
            std::int32_t routes = 0;
            admissible(inst, tour, 0, 0, routes);
            for (std::int32_t kick = 0; kick < kicks_; ++kick) {
                for (int attempt = 0; attempt < kAttempts; ++attempt) {
                    // Cuts after positions x < y < z in [0, L-2].
                    const std::int32_t span = window_ > 0 ? std::min(window_, length - 1)
                                                          : length - 1;
                    const auto x = static_cast<std::int32_t>(
                        rng.below(static_cast<std::uint32_t>(length - 1 - 2)));
                    const std::int32_t top = std::min(x + span, length - 1) - 1; // last z
                    if (top - x < 2) continue;
                    std::int32_t y = x + 1 + static_cast<std::int32_t>(
                                             rng.below(static_cast<std::uint32_t>(top - x)));
                    std::int32_t z = x + 1 + static_cast<std::int32_t>(
                                             rng.below(static_cast<std::uint32_t>(top - x)));
                    if (y == z) continue;
                    if (y > z) std::swap(y, z);
                    // A C B D.
                    auto out = moved.begin();
                    out = std::copy(tour.begin(), tour.begin() + x + 1, out);
                    out = std::copy(tour.begin() + y + 1, tour.begin() + z + 1, out);
                    out = std::copy(tour.begin() + x + 1, tour.begin() + y + 1, out);
                    std::copy(tour.begin() + z + 1, tour.end(), out);
                    std::int32_t after = 0;
                    if (moved == tour) continue;
                    if (!admissible(inst, moved, problem_.vehicles(), routes, after)) continue;
                    tour.swap(moved);
                    routes = after;
                    break;
                }
            }
            write_row(tour.data(), length, batch[i].data(), width);
            batch.objective(i) = problem_.evaluate(batch[i]);
        }
    }

private:
    const DcvrpProblem& problem_;
    std::int32_t kicks_;
    std::int32_t window_;
};

} // namespace

std::unique_ptr<Perturbation> make_double_bridge(const DcvrpProblem& problem, std::int32_t kicks,
                                                 std::int32_t window) {
    return std::make_unique<DoubleBridge>(problem, kicks, window);
}

} // namespace locus::dcvrp
