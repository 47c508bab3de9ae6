// The DCVRP giant-tour neighborhoods on a CUDA device: a policy of the neighborhood adapter's
// device wrapper. Per step: linear tours from the resident rows, their segment hierarchies
// (gpu/segment_resources.cuh), the engine's selection over the evaluators of
// gpu/giant_tour_moves.hpp, and the adapter's apply kernel writing each moved tour back into
// its row (block per solution). Choices equal the CPU twin's (giant_tour_search.cpp).

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "locus/dcvrp/giant_tour_search.hpp"
#include "locus/dcvrp/linear_tour.hpp"
#include "locus/gpu/cuda_check.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/giant_tour_moves.hpp"
#include "locus/gpu/neighborhood_adapter.cuh"
#include "locus/gpu/segment_resources.cuh"
#include "locus/gpu/storage.hpp"

namespace locus::dcvrp {
namespace {

/// Linear tours of the resident rows: one thread per solution.
__global__ void linearize_kernel(const std::int32_t* rows, std::uint32_t count, std::int32_t width,
                                 std::int32_t length, std::int32_t* tours) {
    const std::uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= count) return;
    linearize(rows + static_cast<std::int64_t>(s) * width, width, length,
              tours + static_cast<std::int64_t>(s) * length);
}

/// Length and routes of each whole tour, from its summary.
__global__ void totals_kernel(const gpu::RouteSegment* wholes, std::uint32_t count,
                              double* objectives, std::int32_t* routes) {
    const std::uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= count) return;
    objectives[s] = wholes[s].cost;
    routes[s] = wholes[s].routes;
}

/// Writes each selected move's tour back into its row; a block per solution.
template <class Eval> struct GiantApplier {
    static constexpr unsigned threads = 256;
    Eval eval;
    std::int32_t* rows;
    std::int32_t width;

    __device__ bool operator()(std::uint32_t solution, std::uint64_t index) const {
        if (!eval.well_formed(index)) return false;
        const auto move = eval.decode(solution, index);
        const std::int32_t length = eval.tours.length;
        const std::int32_t* tour = eval.tours.tour(solution);
        std::int32_t* row = rows + static_cast<std::int64_t>(solution) * width;
        for (std::int32_t k = static_cast<std::int32_t>(threadIdx.x); k < width;
             k += static_cast<std::int32_t>(blockDim.x))
            row[k] = k < length - 1 ? tour[move.source(k)] : 0;
        return true;
    }
};

template <class Eval> class GiantTourDevicePolicy {
public:
    using evaluator_type = Eval;

    GiantTourDevicePolicy(const DcvrpProblem& problem, GiantMove move, GiantTourOptions options,
                          gpu::MemoryBudget budget)
        : problem_(problem), move_(move), options_(options), budget_(budget),
          length_(problem.instance().customers(), options) {
        const Instance& inst = problem.instance();
        const RouteData data(inst);
        distance_.allocate(data.distance.size(), "DCVRP distance matrix");
        distance_.upload(data.distance.data(), data.distance.size());
        demand_.allocate(inst.demand.size(), "DCVRP demands");
        demand_.upload(inst.demand.data(), inst.demand.size());
        service_.allocate(data.service.size(), "DCVRP service times");
        service_.upload(data.service.data(), data.service.size());
        resources_ = data.resources;
        resources_.demand = demand_.data();
        resources_.service = service_.data();
    }

    std::string_view label() const {
        return move_ == GiantMove::two_opt ? "DCVRP two_opt" : "DCVRP three_opt";
    }
    gpu::MoveGrid max_grid() const {
        Eval eval;
        eval.tours.length = static_cast<std::int32_t>(problem_.solution_width()) + 1;
        return eval.grid();
    }
    void declare(gpu::ArrayList&, std::uint32_t) {}

    void upload(const SolutionBatch& batch, const gpu::DeviceBatch& d, cudaStream_t) {
        const std::int32_t length = length_.update(batch);
        if (length == length_held_ && d.count <= count_held_) return;
        // NOTE: the hierarchy depends on L, which the adapter does not know; the policy keeps
        // it in its own block, checked against the same budget.
        storage_.release();
        const std::uint32_t count = d.count;
        shape_ = gpu::HierarchyShape::of(length, hierarchy_part(options_, move_, length, count));
        gpu::ArrayList list;
        const std::size_t c = count;
        list.add(tours_, c * static_cast<std::size_t>(length), "linear tours");
        list.add(arrays_.inner, c * static_cast<std::size_t>(shape_.inner_size()),
                 "segment summaries (level 0)");
        list.add(arrays_.runs, c * static_cast<std::size_t>(shape_.runs_size()),
                 "segment summaries (level 1)");
        list.add(arrays_.edges, c * static_cast<std::size_t>(length), "tour edges");
        list.add(arrays_.views, c, "hierarchy views");
        list.add(arrays_.wholes, c, "whole-tour summaries");
        list.add(objectives_, c, "tour lengths");
        list.add(routes_, c, "route counts");
        storage_.allocate(list, budget_, std::string(label()) + " segment hierarchies",
                          "lower the batch, or set hierarchy: one (fewer summaries), or raise "
                          "memory_budget / memory_fraction");
        arrays_.shape = shape_;
        arrays_.count = count;
        length_held_ = length;
        count_held_ = count;
    }
    void download(SolutionBatch&, cudaStream_t) {}

    gpu::PreparedExploration<Eval> prepare(const gpu::DeviceBatch& d, unsigned long long*,
                                           cudaStream_t stream) {
        const std::int32_t length = length_held_;
        const auto width = static_cast<std::int32_t>(d.width);
        gpu::SegmentBatchArrays a = arrays_;
        a.count = d.count;
        linearize_kernel<<<(d.count + 127) / 128, 128, 0, stream>>>(d.solutions, d.count, width,
                                                                    length, tours_);
        LOCUS_CUDA_CHECK_LAUNCH();
        const gpu::DistanceMatrix distance{distance_.data(), problem_.instance().n};
        LOCUS_CUDA_CHECK(
            gpu::build_segment_hierarchies(resources_, tours_, distance, a, stream));
        totals_kernel<<<(d.count + 127) / 128, 128, 0, stream>>>(a.wholes, d.count, objectives_,
                                                                 routes_);
        LOCUS_CUDA_CHECK_LAUNCH();
        Eval eval;
        eval.tours.segments = a.views;
        eval.tours.tours = tours_;
        eval.tours.objectives = objectives_;
        eval.tours.routes = routes_;
        eval.tours.length = length;
        eval.tours.distance = distance;
        eval.tours.vehicles = problem_.vehicles();
        return {eval, giant_moves(move_, length) * d.count};
    }
    GiantApplier<Eval> applier(const Eval& eval, const gpu::DeviceBatch& d) const {
        return {eval, d.solutions, static_cast<std::int32_t>(d.width)};
    }
    Objective evaluate(std::span<const std::int32_t> row) const { return problem_.evaluate(row); }

private:
    const DcvrpProblem& problem_;
    GiantMove move_;
    GiantTourOptions options_;
    gpu::MemoryBudget budget_;
    LinearLength length_;
    gpu::DeviceBuffer<double> distance_;
    gpu::DeviceBuffer<std::int64_t> demand_;
    gpu::DeviceBuffer<double> service_;
    gpu::RouteResources resources_;
    gpu::DeviceStorage storage_;
    gpu::HierarchyShape shape_;
    gpu::SegmentBatchArrays arrays_;
    std::int32_t* tours_ = nullptr;
    double* objectives_ = nullptr;
    std::int32_t* routes_ = nullptr;
    std::int32_t length_held_ = 0;
    std::uint32_t count_held_ = 0;
};

template <class Eval>
std::unique_ptr<Neighborhood> make(const DcvrpProblem& problem, GiantMove move,
                                   const GiantTourOptions& options,
                                   const gpu::EngineSettings& settings, std::string name) {
    using Adapter = gpu::DeviceNeighborhoodAdapter<GiantTourDevicePolicy<Eval>>;
    const auto width = static_cast<std::int32_t>(problem.solution_width());
    return std::make_unique<gpu::AdaptedNeighborhood<Adapter>>(
        std::move(name), Backend::cuda, giant_moves(move, width + 1), settings, problem, move,
        options, settings.memory);
}

} // namespace

std::unique_ptr<Neighborhood> make_cuda_giant_neighborhood(const DcvrpProblem& problem,
                                                           GiantMove move,
                                                           const GiantTourOptions& options,
                                                           const gpu::EngineSettings& settings) {
    if (move == GiantMove::two_opt)
        return make<gpu::GiantTwoOpt>(problem, move, options, settings, "two_opt");
    return make<gpu::GiantThreeOpt>(problem, move, options, settings, "three_opt");
}

} // namespace locus::dcvrp
