#include "locus/dcvrp/dcvrp_problem.hpp"

#include <fmt/format.h>

#include "locus/data_path.hpp"
#include "locus/dcvrp/cvrplib.hpp"
#include "locus/dcvrp/generator.hpp"
#include "locus/dcvrp/giant_tour.hpp"
#include "locus/dcvrp/sol_io.hpp"
#include "locus/error.hpp"
#include "locus/model.hpp"

namespace locus::dcvrp {

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
    if (is_generator_spec(spec)) {
        Instance instance = generate_from_spec(spec);
        // NOTE: generated coordinates are integral; nint is available on request.
        if (resolve_rounding(rounding, instance.name) != instance.rounding) {
            use_coordinates(instance, resolve_rounding(rounding, instance.name));
            validate_instance(instance, instance.name);
        }
        return std::make_unique<DcvrpProblem>(std::move(instance), vehicles);
    }
    if (is_model_spec(spec))
        return std::make_unique<DcvrpProblem>(
            instance_from_model(*find_model(spec, "dcvrp"), rounding), vehicles);
    return std::make_unique<DcvrpProblem>(
        read_routing_instance(resolve_data_file(spec, "instance file"), rounding), vehicles);
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
    write_sol(path, instance_.name, instance_.n, tour, objective);
}

std::vector<std::int32_t> DcvrpProblem::read_solution(const std::filesystem::path& path) const {
    return encode_routes(read_sol(path, instance_.n).routes, instance_.n);
}

} // namespace locus::dcvrp
