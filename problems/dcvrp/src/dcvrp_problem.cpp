#include "locus/dcvrp/dcvrp_problem.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "locus/data_path.hpp"
#include "locus/dcvrp/cvrplib.hpp"
#include "locus/dcvrp/generator.hpp"
#include "locus/dcvrp/giant_tour.hpp"
#include "locus/dcvrp/sol_io.hpp"
#include "locus/error.hpp"
#include "locus/model.hpp"

namespace locus::dcvrp {

namespace {

/// How `instance` measures a distance, for messages.
std::string_view distance_convention(const Instance& instance) {
    if (instance.explicit_weights) return "distances of the file's EDGE_WEIGHT_SECTION";
    switch (instance.rounding) {
    case Rounding::nint:
        return "Euclidean distances rounded to the nearest integer";
    case Rounding::tenths:
        return "Euclidean distances truncated to one decimal";
    case Rounding::exact:
        break;
    }
    return "exact Euclidean distances";
}

} // namespace

DcvrpProblem::DcvrpProblem(Instance instance, std::int32_t vehicles)
    : instance_(std::move(instance)) {
    if (vehicles < 0)
        throw ConfigError(fmt::format("vehicles = {} must be 0 (the instance's, else unlimited) "
                                      "or positive",
                                      vehicles));
    vehicles_ = vehicles > 0 ? vehicles : instance_.vehicles;
    // NOTE: K * Q is compared by division so that no product can overflow.
    const std::int64_t total = instance_.total_demand();
    if (vehicles_ > 0 && (total + instance_.capacity - 1) / instance_.capacity > vehicles_)
        throw InstanceError(fmt::format("{}: {} vehicles of CAPACITY {} cannot carry the total "
                                        "demand {}",
                                        instance_.name, vehicles_, instance_.capacity, total));
}

std::unique_ptr<DcvrpProblem> DcvrpProblem::load(const std::string& spec, RoundingOption rounding,
                                                 std::int32_t vehicles) {
    std::unique_ptr<DcvrpProblem> problem;
    if (is_generator_spec(spec)) {
        Instance instance = generate_from_spec(spec);
        // NOTE: generated coordinates are integral; nint is available on request.
        if (resolve_rounding(rounding, instance.name) != instance.rounding) {
            use_coordinates(instance, resolve_rounding(rounding, instance.name));
            validate_instance(instance, instance.name);
        }
        problem = std::make_unique<DcvrpProblem>(std::move(instance), vehicles);
    } else if (is_model_spec(spec)) {
        problem = std::make_unique<DcvrpProblem>(
            instance_from_model(*find_model(spec, "dcvrp"), rounding), vehicles);
    } else {
        problem = std::make_unique<DcvrpProblem>(
            read_routing_instance(resolve_data_file(spec, "instance file"), rounding), vehicles);
    }
    problem->stated_cost_checked_ = rounding == RoundingOption::automatic;
    return problem;
}

const DcvrpProblem& searchable(const DcvrpProblem& problem, std::string_view component) {
    if (problem.instance().has_time_windows())
        throw ConfigError(fmt::format("{} does not respect time windows yet: instance {} has them "
                                      "(the constructions time_window_insertion and savings and "
                                      "the route chains of algorithm chains do: "
                                      "configs/vrptw/best.yaml)",
                                      component, problem.instance().name));
    return problem;
}

Objective DcvrpProblem::evaluate(std::span<const std::int32_t> tour) const {
    return giant_tour_cost(instance_, tour);
}

Verdict DcvrpProblem::verify(std::span<const std::int32_t> tour) const {
    if (auto why = check_giant_tour(tour, instance_.n)) return {false, 0.0, *why};
    if (auto why = check_routes(instance_, split_routes(tour), vehicles_))
        return {false, 0.0, *why};
    return {true, giant_tour_cost(instance_, tour), {}};
}

void DcvrpProblem::write_solution(const std::filesystem::path& path,
                                  std::span<const std::int32_t> tour, Objective objective) const {
    // NOTE: the Cost line states the routes' cost, computed here: a run's best infeasible
    // solution comes with its verdict's objective (0), and read_solution holds a file to its
    // Cost. An invalid encoding goes to write_sol, which refuses it.
    const bool valid = !check_giant_tour(tour, instance_.n);
    write_sol(path, instance_.name, instance_.n, tour,
              valid ? giant_tour_cost(instance_, tour) : objective);
}

std::vector<std::int32_t> DcvrpProblem::read_solution(const std::filesystem::path& path) const {
    const SolFile sol = read_sol(path, instance_.n);
    std::vector<std::int32_t> tour = encode_routes(sol.routes, instance_.n);
    if (sol.cost && stated_cost_checked_) {
        // NOTE: the slack beyond the written precision, 1e-7 of the cost, covers a cost summed
        // in single precision (published CMT5.sol states 1291.289144 for 1291.2891464...).
        const double cost = giant_tour_cost(instance_, tour);
        const double slack = sol.cost_precision + 1e-7 * std::abs(cost);
        if (!(std::abs(*sol.cost - cost) <= slack))
            throw InstanceError(fmt::format(
                "{}:{}: Cost {} is not the cost of these routes, {} ({})", path.string(),
                sol.cost_line, *sol.cost, cost, distance_convention(instance_)));
    }
    return tour;
}

} // namespace locus::dcvrp
