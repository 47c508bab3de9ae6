#pragma once
/// \file
/// The DCVRP as a locus Problem. Solutions are giant tours (giant_tour.hpp: width 2 (n - 1),
/// customers 1..n-1 and n - 1 depot markers 0); the objective is the total travel distance.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "locus/dcvrp/giant_tour.hpp"
#include "locus/dcvrp/instance.hpp"
#include "locus/problem.hpp"

namespace locus::dcvrp {

class DcvrpProblem final : public Problem {
public:
    /// `vehicles`: the fleet size K; 0 = the VEHICLES of the instance when it has one, else
    /// unlimited. Throws InstanceError "<name>: <K> vehicles of CAPACITY <q> cannot carry the
    /// total demand <d>" when no solution can respect the fleet, and ConfigError when vehicles
    /// is negative.
    DcvrpProblem(Instance instance, std::int32_t vehicles = 0);

    /// Loads `spec`: a generator spec ("random-cvrp:n=...") or an instance file found through
    /// the data path (read_routing_instance: CVRPLIB .vrp, VRPTW in either format), with EUC_2D
    /// distances by `rounding`.
    static std::unique_ptr<DcvrpProblem> load(const std::string& spec,
                                              RoundingOption rounding = RoundingOption::automatic,
                                              std::int32_t vehicles = 0);

    std::string_view problem_name() const override { return "dcvrp"; }
    std::string instance_name() const override { return instance_.name; }
    /// The number of customers, n - 1.
    std::size_t size() const override { return static_cast<std::size_t>(instance_.customers()); }
    std::size_t solution_width() const override { return giant_tour_width(instance_.n); }
    /// giant_tour_cost (the total travel distance).
    Objective evaluate(std::span<const std::int32_t> tour) const override;
    /// In order: the encoding (check_giant_tour), capacity, duration and fleet (check_routes);
    /// the objective is giant_tour_cost, bit for bit what evaluate returns.
    Verdict verify(std::span<const std::int32_t> tour) const override;
    std::string solution_extension() const override { return ".sol"; }
    /// A CVRPLIB .sol file (sol_io.hpp) whose Cost is giant_tour_cost of `tour` (`objective`
    /// for a feasible tour; an infeasible one is stated at its real cost too).
    void write_solution(const std::filesystem::path& path, std::span<const std::int32_t> tour,
                        Objective objective) const override;
    /// The canonical encoding of a .sol file (sol_io.hpp). Its Cost line, when it has one, must
    /// be the routes' total distance to half a unit of its last written digit while the
    /// problem's rounding is `auto` (the file's convention: under another rounding the routes
    /// cost something else); otherwise InstanceError "<path>:<line>: Cost <stated> is not the
    /// cost of these routes, <cost> (<how distances are measured>)". Capacity, duration, windows
    /// and fleet are verify's.
    std::vector<std::int32_t> read_solution(const std::filesystem::path& path) const override;

    const Instance& instance() const { return instance_; }
    /// The fleet size K in force, 0 = unlimited.
    std::int32_t vehicles() const { return vehicles_; }

private:
    Instance instance_;
    std::int32_t vehicles_ = 0;
    bool stated_cost_checked_ = true; ///< read_solution checks a Cost line (rounding `auto`)
};

/// `problem` for a search component named `component`. Throws ConfigError "<component> does
/// not respect time windows yet: instance <name> has them (construction time_window_insertion
/// and the route chains of algorithm chains do: configs/vrptw/best.yaml)" for an instance with
/// time windows: every DCVRP construction and giant-tour search but time_window_insertion and
/// the route chains ignores them, so it would return routes that break them.
const DcvrpProblem& searchable(const DcvrpProblem& problem, std::string_view component);

/// Registers the DCVRP problem and its constructions.
void register_dcvrp_components(class Registry& registry);

} // namespace locus::dcvrp
