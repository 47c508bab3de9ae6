// The DCVRP giant-tour 2-opt neighborhood on the CPU (paper 001): segments may span routes;
// every move is evaluated in O(1) from the segment summaries of the tour (one-level hierarchy,
// gpu/segment_resources.hpp) through the neighborhood engine's CPU twin.

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "locus/dcvrp/dcvrp_problem.hpp"
#include "locus/dcvrp/two_opt.hpp"
#include "locus/error.hpp"
#include "locus/gpu/giant_tour_moves.hpp"
#include "locus/gpu/neighborhood_adapter.hpp"
#include "locus/gpu/segment_resources.hpp"

namespace locus::dcvrp {
namespace {

/// The giant-tour 2-opt over host solutions. A row (a cycle with depot markers) is read from
/// one of its markers as a closed tour of length W + 1 (the marker repeated at the end); an
/// applied move reverses positions i+1..j of that tour and writes it back, which keeps the row
/// a rotation of the moved cycle.
class TwoOptPolicy {
public:
    using evaluator_type = gpu::GiantTwoOpt;
    using move_type = gpu::GiantTwoOptMove;

    explicit TwoOptPolicy(const DcvrpProblem& problem) : problem_(&problem) {
        const Instance& inst = problem.instance();
        service_.assign(static_cast<std::size_t>(inst.n), inst.service_time);
        service_[kDepot] = 0.0;
        resources_.demand = inst.demand.data();
        resources_.service = service_.data();
        resources_.capacity = inst.capacity;
        resources_.max_duration = inst.max_duration + kDurationTolerance;
        resources_.depot = kDepot;
    }

    gpu::GiantTwoOpt prepare(const SolutionBatch& batch) {
        const Instance& inst = problem_->instance();
        const auto width = static_cast<std::int32_t>(batch.width());
        const std::int32_t length = width + 1;
        const std::size_t count = batch.count();
        tours_.resize(count * static_cast<std::size_t>(length));
        tables_.resize(count);
        views_.resize(count);
        objectives_.resize(count);
        const gpu::DistanceMatrix distance{inst.dist.data(), inst.n};
        for (std::size_t s = 0; s < count; ++s) {
            const auto row = batch[s];
            const auto start = static_cast<std::size_t>(
                std::find(row.begin(), row.end(), kDepot) - row.begin());
            std::int32_t* tour = tours_.data() + s * static_cast<std::size_t>(length);
            for (std::int32_t k = 0; k < width; ++k)
                tour[k] = row[(start + static_cast<std::size_t>(k)) % row.size()];
            tour[width] = kDepot;
            const std::vector<std::int32_t> linear(tour, tour + length);
            tables_[s].build(resources_, linear, distance,
                             gpu::SegmentTable::part_for(length));
            views_[s] = tables_[s].view();
            objectives_[s] = views_[s].segment(0, length - 1).cost;
        }
        gpu::GiantTwoOpt eval;
        eval.segments = views_.data();
        eval.tours = tours_.data();
        eval.objectives = objectives_.data();
        eval.length = length;
        eval.distance = distance;
        return eval;
    }
    std::uint64_t evaluations(const gpu::GiantTwoOpt& eval, std::size_t count) const {
        return eval.grid().size() * count;
    }
    gpu::GiantTwoOptMove apply(const gpu::GiantTwoOpt& eval, SolutionBatch& batch,
                               std::size_t solution, std::uint64_t index) {
        const gpu::GiantTwoOptMove move = eval.decode(0, index);
        if (index >= eval.grid().size() || move.j < move.i + 2 || move.j > eval.length - 2)
            throw Error(gpu::detail::undecodable_move_message("DCVRP two_opt", index));
        std::int32_t* tour = tours_.data() + solution * static_cast<std::size_t>(eval.length);
        std::reverse(tour + move.i + 1, tour + move.j + 1);
        auto row = batch[solution];
        std::copy(tour, tour + row.size(), row.begin());
        return move;
    }
    Objective evaluate(std::span<const std::int32_t> row) const {
        return problem_->evaluate(row);
    }
    std::string describe(const gpu::GiantTwoOptMove& move) const {
        return fmt::format("2-opt (positions {} and {})", move.i, move.j);
    }

private:
    const DcvrpProblem* problem_;
    std::vector<double> service_;
    gpu::RouteResources resources_;
    std::vector<std::int32_t> tours_;
    std::vector<gpu::SegmentTable> tables_;
    std::vector<gpu::SegmentView> views_;
    std::vector<double> objectives_;
};

} // namespace

std::unique_ptr<Neighborhood> make_two_opt(const DcvrpProblem& problem,
                                           const gpu::EngineSettings& settings, Backend backend) {
    if (backend == Backend::cuda)
        throw NotImplemented("dcvrp two_opt: the CUDA backend of the giant-tour neighborhoods "
                             "is not built yet; run with backend: cpu");
    using Adapter = gpu::CpuNeighborhoodAdapter<TwoOptPolicy>;
    const auto side = static_cast<std::uint64_t>(problem.solution_width());
    return std::make_unique<gpu::AdaptedNeighborhood<Adapter>>("two_opt", Backend::cpu,
                                                               side * side, TwoOptPolicy(problem),
                                                               settings);
}

} // namespace locus::dcvrp
