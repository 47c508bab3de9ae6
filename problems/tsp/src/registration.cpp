// The TSP components: problem, constructions, perturbation and neighborhoods, with schemas.

#include <algorithm>
#include <limits>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/params.hpp"
#include "locus/registry.hpp"
#include "locus/tsp/combine.hpp"
#include "locus/tsp/fang_construction.hpp"
#include "locus/tsp/heuristics.hpp"
#include "locus/tsp/tour_engine.hpp"
#include "locus/tsp/tsp_problem.hpp"

namespace locus::tsp {
namespace {

const TspProblem& tsp_of(const BuildContext& build) {
    return problem_as<TspProblem>(build, "tsp", "this TSP component");
}

/// Registers the neighborhood of operator Op: its schema (name, description, parameters) and a
/// factory building it on the job's backend; `candidates` is clamped to n - 1.
template <class Op> void register_neighborhood(Registry& registry) {
    ComponentSchema schema{"neighborhood", Op::name, "tsp", Op::description};
    Op::declare(schema);
    registry.add(schema,
                 [](const Params& params, BuildContext& build) -> std::unique_ptr<Component> {
                     const TspProblem& problem = tsp_of(build);
                     NeighborhoodSpec spec{Op::kind, 0};
                     if (params.has("candidates")) {
                         spec.candidates = static_cast<std::int32_t>(params.get_int("candidates"));
                         const auto n = static_cast<std::int64_t>(problem.size());
                         if (spec.candidates >= n)
                             spec.candidates = static_cast<std::int32_t>(n - 1);
                     }
                     if constexpr (requires { Op::configure(spec, params, build); })
                         Op::configure(spec, params, build);
                     const gpu::EngineSettings settings = gpu::engine_settings(build);
                     if (build.backend == Backend::cuda)
                         return make_cuda_engine(problem, spec, settings, params.name());
                     return make_cpu_engine(problem, spec, settings, params.name());
                 });
}

/// Registers the neighborhood of every operator of the list.
template <class... Ops> void register_neighborhoods(Registry& registry, OperatorList<Ops...>) {
    (register_neighborhood<Ops>(registry), ...);
}

} // namespace

void register_resident_ils(Registry& registry);

void register_tsp_components(Registry& registry) {
    register_resident_ils(registry);
    ComponentSchema problem{"problem", "tsp", "",
                            "Symmetric travelling salesman problem: TSPLIB files (EUC_2D, CEIL_2D, "
                            "ATT, GEO, EXPLICIT) or generated instances; solutions are tours."};
    problem
        .string("instance", "",
                "TSPLIB .tsp file (found through the data path) or a generator spec "
                "'random-uniform:n=N,seed=S[,size=C]'")
        .required();
    problem.file_extensions = {".tsp"};
    registry.add(problem, [](const Params& p, BuildContext&) -> std::unique_ptr<Component> {
        return TspProblem::load(p.get_string("instance"));
    });

    ComponentSchema random{"construction", "random", "tsp", "Uniformly random tour."};
    registry.add(random, [](const Params&, BuildContext& b) -> std::unique_ptr<Component> {
        return std::make_unique<RandomTour>(tsp_of(b));
    });

    ComponentSchema nearest{"construction", "nearest_neighbor", "tsp",
                            "Nearest-neighbor tour (ties: lowest city index)."};
    nearest.integer("start", "-1", "start city (0-based); -1 = random per solution", -1);
    registry.add(nearest, [](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
        const TspProblem& tsp = tsp_of(b);
        const auto start = p.get_int("start");
        if (start >= static_cast<std::int64_t>(tsp.size()))
            throw ConfigError(fmt::format("{}.start: city {} does not exist ({} cities)", p.path(),
                                          start, tsp.size()));
        return std::make_unique<NearestNeighborTour>(tsp, static_cast<std::int32_t>(start));
    });

    ComponentSchema greedy{"construction", "greedy", "tsp",
                           "Greedy-edge tour: the shortest candidate edges while no city gets "
                           "a third and no cycle closes, the fragments joined end to nearest "
                           "end (one tour for the whole batch)."};
    greedy.integer("candidates", "10", "nearest cities per city whose edges are considered", 1,
                   1024);
    registry.add(greedy, [](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
        return std::make_unique<GreedyEdgeTour>(tsp_of(b),
                                                static_cast<std::int32_t>(p.get_int("candidates")));
    });

    ComponentSchema fang{"construction", "fang", "tsp",
                         "Randomized tours by FANG successor generation: position after position, "
                         "the next city is drawn with weight (254 (dmin+1)/(d+1) + 1)^greed from "
                         "its distance d to the previous city (dmin: the nearest unvisited city's; "
                         "visited cities forbidden)."};
    fang.integer("greed", "3", "0 = uniformly random tours ... 4 = nearly nearest-neighbor tours",
                 0, 4);
    registry.add(fang, [](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
        const TspProblem& tsp = tsp_of(b);
        if (tsp.size() > 98304)
            throw ConfigError(fmt::format("{}: the fang construction handles at most 98304 cities "
                                          "({} given): the segment lookup is full",
                                          p.path(), tsp.size()));
        return std::make_unique<FangTour>(tsp, static_cast<std::int32_t>(p.get_int("greed")),
                                          b.backend, b.threads);
    });

    ComponentSchema bridge{"perturbation", "double_bridge", "tsp",
                           "Double bridge: exchanges two consecutive tour segments between three "
                           "random cut points."};
    bridge.integer("window", "0",
                   "cut points lie within this many positions after a random start "
                   "(local double bridge); 0 = anywhere in the tour",
                   0);
    registry.add(bridge, [](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
        return std::make_unique<DoubleBridge>(tsp_of(b),
                                              static_cast<std::int32_t>(p.get_int("window")));
    });

    ComponentSchema exchange{"combination", "segment_exchange", "tsp",
                             "Combine of two tours (Riise & Burke): where both visit the same "
                             "cities between the same two cities, the tour takes the shorter "
                             "order."};
    exchange.integer("max_length", "1000", "longest interchangeable sub-path considered (cities)",
                     2);
    registry.add(exchange, [](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
        return std::make_unique<SegmentExchange>(
            tsp_of(b), static_cast<std::int32_t>(std::min<std::int64_t>(
                           p.get_int("max_length"), std::numeric_limits<std::int32_t>::max())));
    });

    register_neighborhoods(registry, TourOperators{});
}

} // namespace locus::tsp
