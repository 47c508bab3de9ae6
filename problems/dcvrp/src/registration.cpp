// The DCVRP components: the problem and its constructions, with schemas.

#include <fmt/format.h>

#include <exception>
#include <functional>
#include <memory>
#include <string>

#include "locus/dcvrp/constructions.hpp"
#include "locus/dcvrp/dcvrp_problem.hpp"
#include "locus/dcvrp/giant_tour_search.hpp"
#include "locus/dcvrp/perturbation.hpp"
#include "locus/error.hpp"
#include "locus/params.hpp"
#include "locus/registry.hpp"
#include "locus/rng.hpp"

namespace locus::dcvrp {
namespace {

const DcvrpProblem& dcvrp_of(const BuildContext& build, std::string_view component) {
    // NOTE: dcvrp-scoped components only exist for problem "dcvrp" (Registry).
    return searchable(problem_as<DcvrpProblem>(build, "dcvrp", component), component);
}

/// A construction that builds routes and stores their canonical encodings. Unseeded ones are
/// built once and copied into every solution; seeded ones build solution i from
/// derive_key(seed, i), in parallel.
class RouteConstruction final : public Construction {
public:
    using Build = std::function<Routes(std::uint64_t key)>;

    RouteConstruction(const DcvrpProblem& problem, bool seeded, Build build)
        : problem_(problem), seeded_(seeded), build_(std::move(build)) {}

    void construct(SolutionBatch& batch, std::uint64_t seed) override {
        const auto count = static_cast<std::int64_t>(batch.count());
        if (!seeded_) {
            const std::vector<std::int32_t> tour = encode_routes(fitted(0), problem_.instance().n);
            const Objective cost = problem_.evaluate(tour);
            for (std::int64_t i = 0; i < count; ++i) {
                std::copy(tour.begin(), tour.end(), batch[static_cast<std::size_t>(i)].begin());
                batch.objective(static_cast<std::size_t>(i)) = cost;
            }
            return;
        }
        // An exception (Stopped at a time limit, bad_alloc) must not leave the parallel region:
        // the first one is kept, the other solutions are skipped, and it is rethrown here.
        std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic, 1)
        for (std::int64_t i = 0; i < count; ++i) {
            bool failed = false;
#pragma omp critical(locus_dcvrp_construction)
            failed = static_cast<bool>(failure);
            if (failed) continue;
            try {
                const auto slot = static_cast<std::size_t>(i);
                encode_routes(fitted(derive_key(seed, slot)), batch[slot]);
                batch.objective(slot) = problem_.evaluate(batch[slot]);
            } catch (...) {
#pragma omp critical(locus_dcvrp_construction)
                if (!failure) failure = std::current_exception();
            }
        }
        if (failure) std::rethrow_exception(failure);
    }

private:
    /// The construction's routes, fitted into the vehicle limit when they exceed it (not with
    /// time windows: fit_fleet does not respect them; verify reports the excess instead).
    Routes fitted(std::uint64_t key) const {
        Routes routes = build_(key);
        if (!problem_.instance().has_time_windows())
            fit_fleet(problem_.instance(), routes, problem_.vehicles());
        return routes;
    }

    const DcvrpProblem& problem_;
    bool seeded_;
    Build build_;
};

RoundingOption rounding_option(const std::string& word) {
    if (word == "exact") return RoundingOption::exact;
    if (word == "nint") return RoundingOption::nint;
    if (word == "tenths") return RoundingOption::tenths;
    return RoundingOption::automatic;
}

HierarchyChoice hierarchy_of(const std::string& word) {
    if (word == "zero") return HierarchyChoice::zero;
    if (word == "one") return HierarchyChoice::one;
    return HierarchyChoice::automatic;
}

InsertionOrder insertion_order_of(const std::string& word) {
    if (word == "index") return InsertionOrder::index;
    if (word == "farthest") return InsertionOrder::farthest;
    return InsertionOrder::random;
}

} // namespace

void register_routing_ils(Registry& registry);

void register_dcvrp_components(Registry& registry) {
    register_routing_ils(registry);
    ComponentSchema schema{
        "problem", "dcvrp", "",
        "Distance-constrained capacitated VRP: CVRPLIB .vrp files (EUC_2D, EXPLICIT; CAPACITY, "
        "DISTANCE, SERVICE_TIME, VEHICLES) or 'random-cvrp:n=N[,seed=S][,capacity=Q]"
        "[,distance=D]'; solutions are giant tours (customers with depot markers 0, width "
        "2(n-1)), written as CVRPLIB .sol; objective = total travel distance."};
    schema
        .string("instance", "",
                "CVRPLIB .vrp file (found through the data path; VRPTW files, TYPE VRPTW or the "
                "Solomon format, are searched by time_window_insertion, savings and the route "
                "chains, checked by locus verify and refused by the other searches) or a "
                "generator spec 'random-cvrp:n=N[,seed=S][,capacity=Q][,distance=D]' or "
                "'random-vrptw:n=N[,seed=S][,capacity=Q][,service=S][,width=W][,distance=D]' (N "
                "nodes, depot included)")
        .required()
        .choice("rounding", "auto", {"auto", "exact", "nint", "tenths"},
                "EUC_2D distances: exact = real Euclidean, nint = TSPLIB rounding, tenths = "
                "truncated to one decimal (the DIMACS VRPTW convention); auto = nint for the "
                "CVRPLIB sets X, A, B, E, F, M, P (names 'X-...') and the Belgium instances, "
                "exact otherwise (CMT, Golden, generated)")
        .integer("vehicles", "0",
                 "fleet size K (routes allowed); 0 = VEHICLES of the file if present, else "
                 "unlimited",
                 0, 2147483647);
    schema.file_extensions = {".vrp"};
    registry.add(schema, [](const Params& p, BuildContext&) -> std::unique_ptr<Component> {
        return DcvrpProblem::load(p.get_string("instance"),
                                  rounding_option(p.get_string("rounding")),
                                  static_cast<std::int32_t>(p.get_int("vehicles")));
    });

    ComponentSchema single{"construction", "one_per_customer", "dcvrp",
                           "Every customer alone on its route (n - 1 routes; over a vehicle "
                           "limit K < n - 1, verify reports the excess)."};
    registry.add(single, [](const Params&, BuildContext& b) -> std::unique_ptr<Component> {
        const DcvrpProblem& problem = dcvrp_of(b, "one_per_customer");
        return std::make_unique<RouteConstruction>(problem, false, [&problem](std::uint64_t) {
            return one_per_customer(problem.instance());
        });
    });

    ComponentSchema timed{
        "construction", "time_window_insertion", "dcvrp",
        "VRPTW instances: customers by earliest deadline, each where it adds the least distance "
        "among the places that keep every window of its route, the capacity and the duration "
        "limit; a new route when none fits (always feasible; more routes than a vehicle limit "
        "are reported by verify, not fitted). With savings, one of the two constructions that "
        "respect time windows; instances without windows are refused."};
    registry.add(timed, [](const Params&, BuildContext& b) -> std::unique_ptr<Component> {
        const auto& problem =
            problem_as<DcvrpProblem>(b, "dcvrp", "time_window_insertion"); // respects windows
        if (!problem.instance().has_time_windows())
            throw ConfigError(fmt::format("time_window_insertion needs an instance with time "
                                          "windows; {} has none (use savings or "
                                          "cheapest_insertion)",
                                          problem.instance().name));
        return std::make_unique<RouteConstruction>(problem, false, [&problem](std::uint64_t) {
            return time_window_insertion(problem.instance());
        });
    });

    ComponentSchema insertion{
        "construction", "cheapest_insertion", "dcvrp",
        "Cheapest insertion: customers one by one, each where it adds the least distance among "
        "the positions within capacity and duration (ties: lowest route, then position); a new "
        "route when none fits. Every construction fits a vehicle limit K it exceeds by "
        "dissolving its lightest routes into the others, over the capacity if need be (a "
        "search with penalties: true repairs that; verify reports it otherwise)."};
    insertion.choice("order", "random", {"random", "index", "farthest"},
                     "order of the customers: random (per solution, from the seed), index, or "
                     "farthest from the depot first");
    registry.add(insertion, [](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
        const DcvrpProblem& problem = dcvrp_of(b, "cheapest_insertion");
        const InsertionOrder order = insertion_order_of(p.get_string("order"));
        return std::make_unique<RouteConstruction>(
            problem, order == InsertionOrder::random, [&problem, order](std::uint64_t key) {
                const auto customers = insertion_order(problem.instance(), order, key);
                return cheapest_insertion(problem.instance(), customers);
            });
    });

    ComponentSchema clarke_wright{
        "construction", "savings", "dcvrp",
        "Clarke-Wright parallel savings with capacity and duration checks (deterministic); "
        "with time windows, routes are joined only in their own direction and only when every "
        "window of the joined route holds; with a vehicle limit K it keeps joining routes "
        "through non-positive savings while "
        "more than K remain. The recommended construction: name it in dcvrp configs (the job "
        "default, random, is not a dcvrp construction). Every pair of customers up to 1,000 "
        "customers (O(n^2 log n) time, O(n^2) memory), else the pairs of candidate lists "
        "(O(n k log(n k)), O(n k) memory)."};
    clarke_wright
        .real("shape", "1", "route shape parameter: saving = d(0,i) + d(0,j) - shape * d(i,j)",
              0.0, 10.0)
        .integer("candidates", "0",
                 "pairs considered: each customer with its k nearest customers (at most the "
                 "customers - 1); 0 = every pair up to 1,000 customers, else the 50 nearest. "
                 "Without every pair, a vehicle limit the all-pairs joins would meet may be "
                 "exceeded (verify reports it)",
                 0, 2147483647);
    registry.add(clarke_wright, [](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
        // Respects time windows (the joins check them), so not refused like the others.
        const DcvrpProblem& problem = problem_as<DcvrpProblem>(b, "dcvrp", "savings");
        const double shape = p.get_real("shape");
        const auto candidates = static_cast<std::int32_t>(p.get_int("candidates"));
        return std::make_unique<RouteConstruction>(
            problem, false, [&problem, shape, candidates](std::uint64_t) {
                return savings(problem.instance(), problem.vehicles(), shape, candidates);
            });
    });

    const auto start_of = [](const Params& p) {
        return p.get_string("start") == "zero" ? OrderStart::zero : OrderStart::random;
    };
    const auto start_option = [](ComponentSchema& construction, const char* zero) {
        construction
            .choice("start", "random", {"random", "zero"},
                    fmt::format("where the customer order starts: random (per solution, from "
                                "the seed) or {}",
                                zero))
            .integer("two_opt", "0",
                     "after the split, 2-opt inside every route with reversals of up to this "
                     "many customers, until none shortens a route (0 = routes as split)",
                     0, 2147483647);
    };
    ComponentSchema sweep_schema{
        "construction", "sweep", "dcvrp",
        "Sweep: the customers by polar angle around the depot (ties: distance from the depot, "
        "then index) from a start angle, split optimally into routes within capacity and "
        "duration (routes beyond a vehicle limit dissolved into the others, as for every "
        "construction). O(n log n + n C), C the most customers a route can carry; needs "
        "coordinates."};
    start_option(sweep_schema, "zero (angle 0, the x axis; deterministic)");
    registry.add(sweep_schema, [start_of](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
        const DcvrpProblem& problem = dcvrp_of(b, "sweep");
        require_coordinates(problem.instance(), "sweep");
        const OrderStart start = start_of(p);
        const auto window = static_cast<std::int32_t>(p.get_int("two_opt"));
        return std::make_unique<RouteConstruction>(
            problem, start == OrderStart::random, [&problem, start, window](std::uint64_t key) {
                Routes routes = sweep(problem.instance(), start, key);
                if (window > 0) two_opt_routes(problem.instance(), routes, window);
                return routes;
            });
    });

    ComponentSchema curve_schema{
        "construction", "space_filling_curve", "dcvrp",
        "Space-filling curve: the customers along a Hilbert curve over the coordinates' bounding "
        "square (ties: index) from a start customer, split optimally into routes within "
        "capacity and duration (routes beyond a vehicle limit dissolved into the others, as for "
        "every construction). O(n log n + n C), C the most customers a route can carry; needs "
        "coordinates."};
    start_option(curve_schema, "zero (the curve's first customer; deterministic)");
    registry.add(curve_schema, [start_of](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
        const DcvrpProblem& problem = dcvrp_of(b, "space_filling_curve");
        require_coordinates(problem.instance(), "space_filling_curve");
        const OrderStart start = start_of(p);
        const auto window = static_cast<std::int32_t>(p.get_int("two_opt"));
        return std::make_unique<RouteConstruction>(
            problem, start == OrderStart::random, [&problem, start, window](std::uint64_t key) {
                Routes routes = space_filling_curve(problem.instance(), start, key);
                if (window > 0) two_opt_routes(problem.instance(), routes, window);
                return routes;
            });
    });

    const auto giant = [](GiantMove move, std::string_view name) {
        return [move, name](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
            GiantTourOptions options;
            options.hierarchy = hierarchy_of(p.get_string("hierarchy"));
            options.spare_routes = static_cast<std::int32_t>(p.get_int("spare_routes"));
            const DcvrpProblem& problem = dcvrp_of(b, name);
            const auto candidates = static_cast<std::int32_t>(p.get_int("candidates"));
            if (candidates >= problem.instance().customers())
                throw ConfigError(fmt::format(
                    "{}: candidates = {} must be below the {} customers (0 = no filter)",
                    p.path(), candidates, problem.instance().customers()));
            options.candidates = candidates;
            options.compact = p.get_string("filter") == "compact";
            if (options.compact && candidates == 0)
                throw ConfigError(fmt::format(
                    "{}: filter = compact needs candidates > 0 (the filter it compacts)",
                    p.path()));
            options.part_cells = static_cast<std::uint64_t>(p.get_int("part_cells"));
            return make_giant_neighborhood(problem, move, options,
                                           gpu::engine_settings(b), b.backend);
        };
    };
    const auto giant_options = [](ComponentSchema& neighborhood) {
        neighborhood
            .choice("hierarchy", "auto", {"auto", "zero", "one"},
                    "segment summaries built per solution: zero = every segment (L^2), one = "
                    "parts of about L^(1/3) positions; auto = one (measured not slower at any "
                    "size)")
            .integer("spare_routes", "2",
                     "empty routes the giant tour keeps for moves that open a route", 0, 1000)
            .integer("candidates", "0",
                     "move filter: only moves that add an edge from a node to one of its K "
                     "nearest customers (0 = the whole neighborhood)",
                     0, 1024)
            .choice("filter", "generate", {"generate", "compact"},
                    "how the move filter is applied: generate = the kept moves are generated "
                    "from the candidate lists (a grid of rows x candidates); compact = the whole "
                    "grid is filtered cell by cell and the kept cells compacted into index lists "
                    "(CUB DeviceSelect on CUDA), part by part, before evaluation. The same moves "
                    "either way")
            .integer("part_cells", "16777216",
                     "filter = compact: grid cells per part; a part's index lists take 24 bytes "
                     "per cell and solution of device memory (checked against memory_budget); "
                     "under pivot first the best move of the first part holding an improving "
                     "one is taken",
                     1024, 1099511627776.0);
    };
    ComponentSchema two_opt{"neighborhood", "two_opt", "dcvrp",
                            "Giant-tour 2-opt (Schulz 2011): remove two edges and reverse the part "
                            "between them, which may span routes; results over the capacity, "
                            "the duration limit or the fleet are not moves; O(1) per move "
                            "through segment resources; (L-3)(L-2)/2 moves for a giant tour of "
                            "L positions (customers and depot copies)."};
    giant_options(two_opt);
    registry.add(two_opt, giant(GiantMove::two_opt, "two_opt"));

    ComponentSchema three_opt{"neighborhood", "three_opt", "dcvrp",
                              "Giant-tour pure 3-opt (Schulz 2011): remove three edges, leaving A B "
                              "C D, and reconnect as A B' C' D, A C B D, A C B' D or A C' B D "
                              "(' = reversed); parts may span routes; constraints as two_opt; "
                              "4 C(L-1, 3) moves."};
    giant_options(three_opt);
    registry.add(three_opt, giant(GiantMove::three_opt, "three_opt"));

    ComponentSchema bridge{"perturbation", "double_bridge", "dcvrp",
                           "Giant-tour double bridge: exchanges two consecutive parts B, C of "
                           "the giant tour (A B C D -> A C B D, parts may span routes) at random "
                           "cut points; a kick whose routes break a constraint is drawn again "
                           "(up to 1000 times, else skipped)."};
    bridge.integer("kicks", "1", "double bridges per perturbation", 1, 1000)
        .integer("window", "0",
                 "cut points lie within this many positions after a random start (0 = "
                 "anywhere)",
                 0);
    registry.add(bridge, [](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
        return make_double_bridge(dcvrp_of(b, "double_bridge"),
                                  static_cast<std::int32_t>(p.get_int("kicks")),
                                  static_cast<std::int32_t>(p.get_int("window")));
    });
}

} // namespace locus::dcvrp
