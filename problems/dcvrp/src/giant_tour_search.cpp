// The DCVRP giant-tour neighborhoods on the CPU (Schulz 2011): each solution's linear tour, its
// hierarchy of segment summaries (routing/segment_table.hpp) and the evaluators of
// routing/giant_tour_moves.hpp through the neighborhood engine's CPU twin; the CUDA backend is in
// giant_tour_cuda.cu and makes the same choices.

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "locus/dcvrp/giant_tour_search.hpp"
#include "locus/dcvrp/linear_tour.hpp"
#include "locus/error.hpp"
#include "locus/gpu/neighborhood_adapter.hpp"
#include "locus/routing/giant_tour_moves.hpp"

namespace locus::dcvrp {

std::int32_t hierarchy_part(const GiantTourOptions& options, GiantMove move, std::int32_t length,
                            std::size_t count) {
    switch (options.hierarchy) {
    case HierarchyChoice::zero:
        return 0;
    case HierarchyChoice::one:
        return SegmentTable::part_for(length);
    case HierarchyChoice::automatic:
        break;
    }
    // NOTE: the neighborhoods check feasibility only for cells whose length bound could be
    // chosen, which is rare once the shared threshold is low; so what the zero level saves
    // per check (one lookup instead of up to three joins) no longer repays building L^2
    // summaries each step. Measured on an H100, one level against zero: 2-opt 0.38 against
    // 3.9 ms and 3-opt 52 against 55 ms at L = 2401, 3-opt 4.2 against 5.5 ms at L = 967, and
    // not slower at any L from 57 up (docs/benchmarks.md).
    (void)move;
    (void)count;
    return SegmentTable::part_for(length);
}

std::int32_t LinearLength::update(const SolutionBatch& batch) {
    const auto width = static_cast<std::int32_t>(batch.width());
    std::int32_t routes = 0;
    for (std::size_t s = 0; s < batch.count(); ++s)
        routes = std::max(routes, row_routes(batch[s].data(), width));
    const std::int32_t needed = customers_ + routes + 1;
    if (fixed_ > 0) {
        if (needed > fixed_)
            throw Error(fmt::format("giant-tour length {} cannot hold a solution with {} routes "
                                    "({} customers): it needs at least {}",
                                    fixed_, routes, customers_, needed));
        length_ = std::min(fixed_, width + 1);
    } else if (needed > length_) {
        length_ = std::min(needed + spare_, width + 1);
    }
    return length_;
}

RouteData::RouteData(const Instance& instance) {
    service.assign(static_cast<std::size_t>(instance.n), instance.service_time);
    service[kDepot] = 0.0;
    if (instance.n > kGiantTourMaxNodes)
        throw ConfigError(fmt::format(
            "{}: the giant-tour search keeps an n x n distance matrix (8 n^2 bytes: {:.1f} GB "
            "for {} nodes) and takes at most {} nodes; use the route chains (algorithm chains, "
            "configs/dcvrp/large.yaml)",
            instance.name, 8e-9 * static_cast<double>(instance.n) * instance.n, instance.n,
            kGiantTourMaxNodes));
    if (instance.explicit_weights) {
        distance = instance.dist;
    } else {
        const auto n = static_cast<std::size_t>(instance.n);
        distance.assign(n * n, 0.0);
        for (std::size_t a = 0; a < n; ++a)
            for (std::size_t b = 0; b < n; ++b)
                distance[a * n + b] = instance.euclidean(static_cast<std::int32_t>(a),
                                                         static_cast<std::int32_t>(b));
    }
    resources.demand = instance.demand.data();
    resources.service = service.data();
    resources.capacity = instance.capacity;
    resources.max_duration = instance.max_duration + kDurationTolerance;
    resources.depot = kDepot;
}

std::uint64_t giant_moves(GiantMove move, std::int32_t length, std::int32_t candidates) {
    if (candidates > 0) {
        const auto l = static_cast<std::uint64_t>(std::max(length, 3));
        const auto k = static_cast<std::uint64_t>(candidates);
        return move == GiantMove::two_opt ? (l - 1) * 2 * k : 2 * (l - 3) * (l - 2) * k;
    }
    const auto l = static_cast<std::uint64_t>(std::max(length, 3));
    if (move == GiantMove::two_opt) return (l - 3) * (l - 2) / 2;
    const std::uint64_t edges = l - 1;
    return edges < 3 ? 0 : 4 * (edges * (edges - 1) * (edges - 2) / 6);
}

namespace {

/// The most bytes of distances by position the CPU twin lays out per batch.
constexpr std::size_t kPositionDistanceBytes = std::size_t{256} << 20;

std::string describe_move(const routing::GiantTwoOptMove& m) {
    return fmt::format("2-opt (positions {} and {})", m.i, m.j);
}
std::string describe_move(const routing::GiantThreeOptMove& m) {
    return fmt::format("3-opt (positions {}, {}, {}; reconnection {})", m.x, m.y, m.z, m.p);
}

/// A giant-tour neighborhood over host solutions, for CpuNeighborhoodAdapter.
template <class Eval> class GiantTourCpuPolicy {
public:
    using evaluator_type = Eval;
    using move_type = typename Eval::move_type;
    using filter_type = typename routing::NearFilterOf<Eval>::type;

    GiantTourCpuPolicy(const DcvrpProblem& problem, GiantMove move, GiantTourOptions options)
        : problem_(&problem), data_(std::make_unique<RouteData>(problem.instance())),
          move_(move), options_(options), length_(problem.instance().customers(), options) {
        if (options_.candidates > 0)
            neighbors_ = nearest_customers(problem.instance(), options_.candidates);
    }

    Eval prepare(const SolutionBatch& batch) {
        const Instance& inst = problem_->instance();
        const auto width = static_cast<std::int32_t>(batch.width());
        const std::int32_t length = length_.update(batch);
        const std::size_t count = batch.count();
        const std::int32_t part = hierarchy_part(options_, move_, length, count);
        tours_.resize(count * static_cast<std::size_t>(length));
        tables_.resize(count);
        views_.resize(count);
        objectives_.resize(count);
        routes_.resize(count);
        const routing::DistanceMatrix distance{data_->distance.data(), inst.n};
        for (std::size_t s = 0; s < count; ++s) {
            std::int32_t* tour = tours_.data() + s * static_cast<std::size_t>(length);
            linearize(batch[s].data(), width, length, tour);
            tables_[s].build(data_->resources, tour, length, distance, part);
            views_[s] = tables_[s].view();
            const RouteSegment whole = views_[s].segment(0, length - 1);
            objectives_[s] = whole.cost;
            routes_[s] = whole.routes;
        }
        // NOTE: 3-opt sweeps read three rows of distances per pair of cuts; laid out by tour
        // position they are contiguous (O(L^2) to build, repaid by the O(L^3) sweep).
        const std::size_t by_position =
            count * static_cast<std::size_t>(length) * static_cast<std::size_t>(length);
        const bool positions = move_ == GiantMove::three_opt &&
                               by_position * sizeof(double) <= kPositionDistanceBytes;
        positions_.resize(positions ? by_position : 0);
        if (positions) {
            const auto rows = static_cast<std::int64_t>(count) * length;
#pragma omp parallel for schedule(static) if (rows > 512)
            for (std::int64_t r = 0; r < rows; ++r) {
                const std::int32_t* tour = tours_.data() + (r / length) * length;
                const std::int32_t u = tour[r % length];
                double* out = positions_.data() + r * length;
                for (std::int32_t j = 0; j < length; ++j)
                    out[j] = distance(u, tour[j]);
            }
        }
        GiantTours t;
        t.by_position = positions ? positions_.data() : nullptr;
        t.segments = views_.data();
        t.tours = tours_.data();
        t.objectives = objectives_.data();
        t.routes = routes_.data();
        t.length = length;
        t.distance = distance;
        t.vehicles = problem_->vehicles();
        if (options_.candidates > 0) {
            where_.assign(count * static_cast<std::size_t>(inst.n), -1);
            for (std::size_t s = 0; s < count; ++s)
                for (std::int32_t k = 0; k < length; ++k) {
                    const std::int32_t node = tours_[s * static_cast<std::size_t>(length) +
                                                     static_cast<std::size_t>(k)];
                    if (node != kDepot)
                        where_[s * static_cast<std::size_t>(inst.n) +
                               static_cast<std::size_t>(node)] = k;
                }
            t.neighbors = neighbors_.data();
            t.candidates = options_.candidates;
            t.where = where_.data();
            t.nodes = inst.n;
        }
        length_value_ = length;
        return routing::with_tours<Eval>(t);
    }
    gpu::PartPlan<filter_type> parts(const Eval& eval) const {
        return compact_plan<filter_type>(options_, eval);
    }
    std::uint64_t evaluations(const Eval&, std::size_t count) const {
        return giant_moves(move_, length_value_, options_.candidates) * count;
    }
    move_type apply(const Eval& eval, SolutionBatch& batch, std::size_t solution,
                    std::uint64_t index) {
        if (!eval.well_formed(static_cast<std::uint32_t>(solution), index))
            throw Error(gpu::detail::undecodable_move_message(label(), index));
        const move_type move = eval.decode(static_cast<std::uint32_t>(solution), index);
        const std::int32_t length = length_value_;
        const std::int32_t* tour =
            tours_.data() + solution * static_cast<std::size_t>(length_value_);
        moved_.resize(static_cast<std::size_t>(length));
        for (std::int32_t k = 0; k < length; ++k)
            moved_[static_cast<std::size_t>(k)] = tour[move.source(k)];
        auto row = batch[solution];
        write_row(moved_.data(), length, row.data(), static_cast<std::int32_t>(row.size()));
        return move;
    }
    Objective evaluate(std::span<const std::int32_t> row) const { return problem_->evaluate(row); }
    std::string describe(const move_type& move) const { return describe_move(move); }
    std::string label() const {
        return move_ == GiantMove::two_opt ? "DCVRP two_opt" : "DCVRP three_opt";
    }

private:
    const DcvrpProblem* problem_;
    std::unique_ptr<RouteData> data_; ///< stable addresses: the resources point into it
    GiantMove move_;
    GiantTourOptions options_;
    LinearLength length_;
    std::vector<std::int32_t> tours_;
    std::vector<SegmentTable> tables_;
    std::vector<SegmentView> views_;
    std::vector<double> objectives_;
    std::vector<std::int32_t> routes_;
    std::vector<std::int32_t> moved_;
    std::vector<double> positions_;
    std::vector<std::int32_t> neighbors_;
    std::vector<std::int32_t> where_;
    std::int32_t length_value_ = 0;
};

template <class Eval>
std::unique_ptr<Neighborhood> make_cpu(const DcvrpProblem& problem, GiantMove move,
                                       const GiantTourOptions& options,
                                       const gpu::EngineSettings& settings, std::string name) {
    using Adapter = gpu::CpuNeighborhoodAdapter<GiantTourCpuPolicy<Eval>>;
    const auto width = static_cast<std::int32_t>(problem.solution_width());
    return std::make_unique<gpu::AdaptedNeighborhood<Adapter>>(
        std::move(name), Backend::cpu, giant_moves(move, width + 1, options.candidates),
        GiantTourCpuPolicy<Eval>(problem, move, options), settings);
}

} // namespace

std::unique_ptr<Neighborhood> make_giant_neighborhood(const DcvrpProblem& problem, GiantMove move,
                                                      const GiantTourOptions& options,
                                                      const gpu::EngineSettings& settings,
                                                      Backend backend) {
    if (backend == Backend::cuda)
        return make_cuda_giant_neighborhood(problem, move, options, settings);
    const bool near = options.candidates > 0 && !options.compact;
    if (move == GiantMove::two_opt)
        return near ? make_cpu<GiantTwoOptNear>(problem, move, options, settings, "two_opt")
                    : make_cpu<GiantTwoOpt>(problem, move, options, settings, "two_opt");
    return near ? make_cpu<GiantThreeOptNear>(problem, move, options, settings, "three_opt")
                : make_cpu<GiantThreeOpt>(problem, move, options, settings, "three_opt");
}

} // namespace locus::dcvrp
