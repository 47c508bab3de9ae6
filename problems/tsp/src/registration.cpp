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

/// A TSP neighborhood on the CPU or CUDA backend.
class TspNeighborhood final : public Neighborhood {
public:
    TspNeighborhood(std::string name, Backend backend, std::unique_ptr<TourEngine> engine,
                    bool independence)
        : name_(std::move(name)), backend_(backend), engine_(std::move(engine)),
          independence_(independence) {}

    std::string_view name() const override { return name_; }
    Backend backend() const override { return backend_; }
    std::uint64_t size() const override { return engine_->cells(); }
    void explore(const SolutionBatch& batch, Pivot pivot, std::span<MoveChoice> out) override {
        engine_->explore(batch, pivot, out);
    }
    void apply(SolutionBatch& batch, std::span<const MoveChoice> moves) override {
        engine_->apply(batch, moves);
    }
    DescentStats descend(SolutionBatch& batch, Pivot pivot, std::uint64_t max_steps,
                         const std::function<bool()>& stop) override {
        return engine_->descend(batch, pivot, max_steps, stop);
    }
    bool has_independence_rule() const override { return independence_; }
    DescentStats descend_independent(SolutionBatch& batch, const IndependentDescentOptions& options,
                                     const std::function<bool()>& stop) override {
        return engine_->descend_independent(batch, options, stop);
    }

private:
    std::string name_;
    Backend backend_;
    std::unique_ptr<TourEngine> engine_;
    bool independence_;
};

Factory neighborhood_factory(MoveKind kind) {
    return [kind](const Params& params, BuildContext& build) -> std::unique_ptr<Component> {
        const TspProblem& problem = tsp_of(build);
        NeighborhoodSpec spec{kind, 0};
        if (params.has("candidates")) {
            spec.candidates = static_cast<std::int32_t>(params.get_int("candidates"));
            const auto n = static_cast<std::int64_t>(problem.size());
            if (spec.candidates >= n) spec.candidates = static_cast<std::int32_t>(n - 1);
        }
        if (kind == MoveKind::three_opt) {
            spec.samples = static_cast<std::uint32_t>(params.get_int("samples"));
            // NOTE: the samples derive from the job seed, as every random decision of a job.
            spec.seed = build.seed;
        }
        const gpu::EngineSettings settings = gpu::engine_settings(build);
        auto engine = build.backend == Backend::cuda ? make_cuda_engine(problem, spec, settings)
                                                     : make_cpu_engine(problem, spec, settings);
        return std::make_unique<TspNeighborhood>(params.name(), build.backend, std::move(engine),
                                                 kind != MoveKind::three_opt);
    };
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

    ComponentSchema two_opt{"neighborhood", "two_opt", "tsp",
                            "2-opt: remove two edges and reconnect by reversing the path between "
                            "them. Full: n(n-3)/2 moves; with candidates K: 2nK moves that add an "
                            "edge to one of the K nearest cities."};
    two_opt.integer("candidates", "0", "candidate-list size K (0 = full neighborhood)", 0, 1024);
    registry.add(two_opt, neighborhood_factory(MoveKind::two_opt));

    ComponentSchema or_opt{"neighborhood", "or_opt", "tsp",
                           "Or-opt: move a segment of 1-3 cities elsewhere, in either orientation. "
                           "Full: about 6n^2 moves; with candidates K: 12nK moves next to the K "
                           "nearest cities of the segment's ends."};
    or_opt.integer("candidates", "0", "candidate-list size K (0 = full neighborhood)", 0, 1024);
    registry.add(or_opt, neighborhood_factory(MoveKind::or_opt));

    ComponentSchema three_opt{
        "neighborhood", "three_opt", "tsp",
        "Random-k 3-opt (Delevacq et al., ILS-RKBI): each exploration draws k random triples of "
        "edges to remove and evaluates their seven reconnections (4 pure 3-opt, 3 2-opt); the "
        "sample depends on the job seed and the tour's length, so every exploration of a descent "
        "draws anew. A descent ends when no sampled move improves."};
    three_opt.integer("samples", "1000", "edge triples per exploration (k)", 1, 1 << 24);
    registry.add(three_opt, neighborhood_factory(MoveKind::three_opt));

    ComponentSchema swap{"neighborhood", "swap", "tsp",
                         "Swap: exchange the positions of two cities; n(n-1)/2 moves."};
    registry.add(swap, neighborhood_factory(MoveKind::swap));
}

} // namespace locus::tsp
