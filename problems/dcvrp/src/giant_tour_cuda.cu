// The DCVRP giant-tour neighborhoods on a CUDA device: a policy of the neighborhood adapter's
// device wrapper. Per step: linear tours from the resident rows, their segment hierarchies
// (routing/segment_table.cuh), the engine's selection over the evaluators of
// routing/giant_tour_moves.hpp, and the adapter's apply kernel writing each moved tour back into
// its row (block per solution). Choices equal the CPU twin's (giant_tour_search.cpp).

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "locus/dcvrp/giant_tour_search.hpp"
#include "locus/dcvrp/linear_tour.hpp"
#include "locus/gpu/cuda_check.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/tuning.hpp"
#include "locus/gpu/neighborhood_adapter.cuh"
#include "locus/gpu/storage.hpp"
#include "locus/gpu/team.cuh"
#include "locus/routing/giant_tour_moves.hpp"
#include "locus/routing/segment_table.cuh"

namespace locus::dcvrp {
namespace {

inline constexpr unsigned kLinearizeThreads = 256;
/// One thread per element (position distances, where, totals): the elementwise block size.
inline constexpr unsigned kElementThreads = gpu::ElementwiseTuning<gpu::kTuningArch>::kBlockThreads;
/// Blocks of kElementThreads for one thread per element (kernels check their bounds).
inline unsigned element_blocks(std::uint64_t elements) {
    return static_cast<unsigned>((elements + kElementThreads - 1) / kElementThreads);
}
using LinearizeTeam = gpu::BlockTeam<kLinearizeThreads, 8>;

/// Linear tours of the resident rows (linearize() of linear_tour.hpp, in parallel): a block per
/// solution finds the row's first marker, then walks the row backwards in rounds of 256
/// entries; the latest `surplus` markers that are followed by a marker are dropped, the others
/// go to their place counted from the end of the tour.
__global__ void __launch_bounds__(kLinearizeThreads)
    linearize_kernel(const std::int32_t* rows, std::int32_t width, std::int32_t length,
                     std::int32_t* tours) {
    __shared__ LinearizeTeam::Storage storage;
    const LinearizeTeam team{&storage};
    const std::int32_t* row = rows + static_cast<std::int64_t>(blockIdx.x) * width;
    std::int32_t* out = tours + static_cast<std::int64_t>(blockIdx.x) * length;
    std::int32_t first = width;
    for (std::int32_t k = static_cast<std::int32_t>(threadIdx.x); k < width;
         k += kLinearizeThreads)
        if (row[k] == 0 && k < first) first = k;
    first = team.min(first);
    team.sync();
    const auto at = [&](std::int32_t k) { // entry k of the row read from its first marker
        const std::int32_t i = first + k;
        return row[i >= width ? i - width : i];
    };
    const std::int32_t customers = width / 2;
    const std::int32_t surplus = (width - customers + 1) - (length - customers);
    std::int32_t dropped = 0; // markers dropped at later entries
    std::int32_t placed = 0;  // entries placed from later entries
    if (threadIdx.x == 0) out[length - 1] = 0;
    for (std::int32_t start = 0; start < width; start += kLinearizeThreads) {
        const std::int32_t k = width - 1 - start - static_cast<std::int32_t>(threadIdx.x);
        const bool in_row = k >= 0;
        const std::int32_t v = in_row ? at(k) : -1;
        const std::int32_t next = k == width - 1 ? 0 : (in_row ? at(k + 1) : -1);
        const bool droppable = in_row && v == 0 && next == 0;
        std::int32_t round_droppable = 0;
        const std::int32_t before = team.exclusive_sum(droppable ? 1 : 0, round_droppable);
        team.sync();
        const bool drop = droppable && dropped + before < surplus;
        const bool keep = in_row && !drop;
        std::int32_t round_kept = 0;
        const std::int32_t after = team.exclusive_sum(keep ? 1 : 0, round_kept);
        team.sync();
        if (keep) out[length - 2 - (placed + after)] = v;
        dropped += round_droppable;
        placed += round_kept;
    }
}

/// Distances between the positions of each linear tour: entry (s, i, j) = d(t_s[i], t_s[j]).
template <class T>
__global__ void position_distances_kernel(const std::int32_t* tours, std::uint32_t count,
                                          std::int32_t length, const routing::DistanceMatrix d,
                                          T* out) {
    const std::uint64_t id = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::uint64_t per = static_cast<std::uint64_t>(length) * length;
    if (id >= per * count) return;
    const std::uint64_t s = id / per;
    const auto i = static_cast<std::int32_t>((id % per) / length);
    const auto j = static_cast<std::int32_t>(id % length);
    const std::int32_t* t = tours + s * length;
    out[id] = static_cast<T>(d(t[i], t[j]));
}

/// The position of every customer in each linear tour.
__global__ void where_kernel(const std::int32_t* tours, std::uint32_t count, std::int32_t length,
                             std::int32_t nodes, std::int32_t* where) {
    const std::uint64_t id = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (id >= static_cast<std::uint64_t>(length) * count) return;
    const std::uint64_t s = id / static_cast<std::uint64_t>(length);
    const std::int32_t node = tours[id];
    if (node != kDepot)
        where[s * static_cast<std::uint64_t>(nodes) + static_cast<std::uint64_t>(node)] =
            static_cast<std::int32_t>(id % static_cast<std::uint64_t>(length));
}

/// Length and routes of each whole tour, from its summary.
__global__ void totals_kernel(const RouteSegment* wholes, std::uint32_t count,
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
    const std::int32_t* tours; ///< the linear tours the evaluator read
    std::int32_t length;
    std::int32_t* rows;
    std::int32_t width;

    __device__ bool operator()(std::uint32_t solution, std::uint64_t index) const {
        if (!eval.well_formed(solution, index)) return false;
        const auto move = eval.decode(solution, index);
        const std::int32_t* tour = tours + static_cast<std::int64_t>(solution) * length;
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
    using filter_type = typename routing::NearFilterOf<Eval>::type;

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
        if (options_.candidates > 0) {
            const std::vector<std::int32_t> near =
                nearest_customers(inst, options_.candidates);
            neighbors_.allocate(near.size(), "DCVRP candidate lists");
            neighbors_.upload(near.data(), near.size());
        }
    }

    std::string_view label() const {
        return move_ == GiantMove::two_opt ? "DCVRP two_opt" : "DCVRP three_opt";
    }
    gpu::MoveGrid max_grid() const {
        GiantTours t;
        t.length = static_cast<std::int32_t>(problem_.solution_width()) + 1;
        t.candidates = options_.candidates;
        return routing::with_tours<Eval>(t).grid();
    }
    void declare(gpu::ArrayList&, std::uint32_t) {}

    void upload(const SolutionBatch& batch, const gpu::DeviceBatch& d, cudaStream_t) {
        const std::int32_t length = length_.update(batch);
        if (length == length_held_ && d.count <= count_held_) return;
        // NOTE: the hierarchy depends on L, which the adapter does not know; the policy keeps
        // it in its own block, checked against the same budget.
        storage_.release();
        const std::uint32_t count = d.count;
        shape_ =
            routing::HierarchyShape::of(length, hierarchy_part(options_, move_, length, count));
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
        if (options_.candidates > 0)
            list.add(where_, c * static_cast<std::size_t>(problem_.instance().n),
                     "positions of the nodes");
        // NOTE: 3-opt filters with float distances by position (contiguous rows in its sweeps,
        // half the bytes of doubles; exact deltas only for the cells that pass), taken while
        // they fit the budget beside the summaries and left out (not an error) otherwise: the
        // values are those of the node matrix, so they are a choice of speed only. 2-opt reads
        // the node matrix: its O(L^2) cells would not repay building an L x L table each step
        // (H100, L = 2401: 0.38 ms per step without it, 0.44 ms with it).
        const std::size_t by_position =
            c * static_cast<std::size_t>(length) * static_cast<std::size_t>(length);
        by_position_ = nullptr;
        coarse_ = nullptr;
        if (move_ == GiantMove::three_opt &&
            list.bytes() + by_position * sizeof(float) <= budget_.allowance())
            list.add(coarse_, by_position, "float distances by position");
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
        routing::SegmentBatchArrays<RouteResources> a = arrays_;
        a.count = d.count;
        linearize_kernel<<<d.count, kLinearizeThreads, 0, stream>>>(d.solutions, width, length,
                                                                   tours_);
        LOCUS_CUDA_CHECK_LAUNCH();
        const routing::DistanceMatrix distance{distance_.data(), problem_.instance().n};
        const std::uint64_t entries =
            static_cast<std::uint64_t>(length) * static_cast<std::uint64_t>(length) * d.count;
        const unsigned blocks = element_blocks(entries);
        if (by_position_ != nullptr) {
            position_distances_kernel<<<blocks, kElementThreads, 0, stream>>>(tours_, d.count, length,
                                                                  distance, by_position_);
            LOCUS_CUDA_CHECK_LAUNCH();
        }
        if (coarse_ != nullptr) {
            position_distances_kernel<<<blocks, kElementThreads, 0, stream>>>(tours_, d.count, length,
                                                                  distance, coarse_);
            LOCUS_CUDA_CHECK_LAUNCH();
        }
        LOCUS_CUDA_CHECK(
            routing::build_segment_hierarchies(resources_, tours_, distance, a, stream));
        totals_kernel<<<element_blocks(d.count), kElementThreads, 0, stream>>>(a.wholes, d.count,
                                                                          objectives_, routes_);
        LOCUS_CUDA_CHECK_LAUNCH();
        GiantTours t;
        t.segments = a.views;
        t.tours = tours_;
        t.objectives = objectives_;
        t.routes = routes_;
        t.length = length;
        t.distance = distance;
        t.vehicles = problem_.vehicles();
        t.by_position = by_position_;
        t.coarse = coarse_;
        if (options_.candidates > 0) {
            const std::uint64_t cells = static_cast<std::uint64_t>(length) * d.count;
            where_kernel<<<element_blocks(cells), kElementThreads, 0, stream>>>(
                tours_, d.count, length, problem_.instance().n, where_);
            LOCUS_CUDA_CHECK_LAUNCH();
            t.neighbors = neighbors_.data();
            t.candidates = options_.candidates;
            t.where = where_;
            t.nodes = problem_.instance().n;
        }
        return {routing::with_tours<Eval>(t), giant_moves(move_, length, options_.candidates) * d.count};
    }
    gpu::PartPlan<filter_type> parts(const Eval& eval) const {
        return compact_plan<filter_type>(options_, eval);
    }
    GiantApplier<Eval> applier(const Eval& eval, const gpu::DeviceBatch& d) const {
        return {eval, tours_, length_held_, d.solutions, static_cast<std::int32_t>(d.width)};
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
    RouteResources resources_;
    gpu::DeviceStorage storage_;
    routing::HierarchyShape shape_;
    routing::SegmentBatchArrays<RouteResources> arrays_;
    std::int32_t* tours_ = nullptr;
    double* objectives_ = nullptr;
    std::int32_t* routes_ = nullptr;
    double* by_position_ = nullptr;
    float* coarse_ = nullptr;
    gpu::DeviceBuffer<std::int32_t> neighbors_;
    std::int32_t* where_ = nullptr;
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
        std::move(name), Backend::cuda, giant_moves(move, width + 1, options.candidates), settings,
        problem, move,
        options, settings.memory);
}

} // namespace

std::unique_ptr<Neighborhood> make_cuda_giant_neighborhood(const DcvrpProblem& problem,
                                                           GiantMove move,
                                                           const GiantTourOptions& options,
                                                           const gpu::EngineSettings& settings) {
    const bool near = options.candidates > 0 && !options.compact;
    if (move == GiantMove::two_opt)
        return near ? make<GiantTwoOptNear>(problem, move, options, settings, "two_opt")
                    : make<GiantTwoOpt>(problem, move, options, settings, "two_opt");
    return near ? make<GiantThreeOptNear>(problem, move, options, settings, "three_opt")
                : make<GiantThreeOpt>(problem, move, options, settings, "three_opt");
}

} // namespace locus::dcvrp
