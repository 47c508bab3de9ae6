#pragma once
/// \file
/// The giant-tour neighborhoods of the DCVRP (Schulz 2011): 2-opt and pure 3-opt on the linear
/// tour of each solution (linear_tour.hpp), segments spanning routes, every move checked
/// against capacity, duration and fleet in O(1) through segment resources
/// (routing/segment_table.hpp, routing/giant_tour_moves.hpp). Best- or first-improving over the
/// whole neighborhood through the neighborhood engine: the CPU twin (all cores) or a CUDA
/// device, with identical choices.

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "locus/dcvrp/candidate_lists.hpp"
#include "locus/dcvrp/dcvrp_problem.hpp"
#include "locus/gpu/neighborhood_adapter.hpp"
#include "locus/gpu/neighborhood_parts.hpp"
#include "locus/dcvrp/route_resources.hpp"
#include "locus/problem.hpp"

namespace locus::dcvrp {

enum class GiantMove { two_opt, three_opt };

/// Which hierarchy of segment summaries a neighborhood builds per solution.
enum class HierarchyChoice {
    automatic, ///< the one level (measured faster than the zero level at every size)
    zero,      ///< every segment (L^2 summaries per solution)
    one,       ///< parts of about L^(1/3) positions
};

/// Options of a giant-tour neighborhood.
struct GiantTourOptions {
    HierarchyChoice hierarchy = HierarchyChoice::automatic;
    /// Empty routes a linear tour keeps beyond the non-empty ones when it has to grow (room for
    /// moves that open a route).
    std::int32_t spare_routes = 2;
    /// Positions of every linear tour (0: chosen from the solutions, see LinearLength).
    std::int32_t length = 0;
    /// Move filter: only moves that add an edge from a node to one of its `candidates` nearest
    /// customers (0: the whole neighborhood).
    std::int32_t candidates = 0;
    /// With candidates: filter the whole grid cell by cell and compact the kept cells into index
    /// lists, in parts of `part_cells` cells (gpu/neighborhood_parts.hpp), instead of generating
    /// the kept moves from the candidate lists. The same moves either way.
    bool compact = false;
    std::uint64_t part_cells = std::uint64_t{1} << 24;
};

/// The part size of the hierarchy `options` choose for `count` tours of `length` positions
/// (SegmentTable::build's argument: 0 = zero level). The same on every backend.
std::int32_t hierarchy_part(const GiantTourOptions& options, GiantMove move, std::int32_t length,
                            std::size_t count);

/// The positions of the linear tours of a batch: fixed when options.length > 0 (at least what
/// the solutions need); otherwise it starts at 0 and, when a batch's busiest solution needs
/// more (customers + routes + 1), grows to that plus options.spare_routes. Moves keep L, so it
/// changes only between calls, the same way on every backend.
class LinearLength {
public:
    LinearLength(std::int32_t customers, const GiantTourOptions& options)
        : customers_(customers), spare_(options.spare_routes), fixed_(options.length) {}

    /// L for the solutions of `batch` (rows of width 2 customers); throws Error when a fixed
    /// length cannot hold one of them.
    std::int32_t update(const SolutionBatch& batch);
    std::int32_t value() const { return length_; }

private:
    std::int32_t customers_;
    std::int32_t spare_;
    std::int32_t fixed_;
    std::int32_t length_ = 0;
};

/// Most nodes of the giant-tour search: it keeps an n x n distance matrix (800 MB here) and
/// per-solution position distances of 8 L^2 bytes.
inline constexpr std::int32_t kGiantTourMaxNodes = 10000;

/// The node ids, demands, service times and limits the segment resources of `problem` read
/// (host arrays owned by the caller: service per node, depot 0), and the n x n distances.
/// Throws ConfigError above kGiantTourMaxNodes.
struct RouteData {
    std::vector<double> service;
    std::vector<double> distance; ///< n x n
    RouteResources resources;
    explicit RouteData(const Instance& instance);
    RouteData(const RouteData&) = delete;
    RouteData& operator=(const RouteData&) = delete;
};

/// The selection in parts of a neighborhood with `options`: enabled with options.compact (and
/// candidates), over the candidate filter of the whole-grid evaluator `eval`.
template <class Filter, class Eval>
gpu::PartPlan<Filter> compact_plan(const GiantTourOptions& options, const Eval& eval) {
    if constexpr (std::is_same_v<Filter, gpu::KeepEveryCell>) {
        return {};
    } else {
        return {options.compact && options.candidates > 0, Filter{eval.tours},
                options.part_cells};
    }
}

/// The 2-opt (`two_opt`) or pure 3-opt (`three_opt`) neighborhood on `backend` (cpu or cuda).
std::unique_ptr<Neighborhood> make_giant_neighborhood(const DcvrpProblem& problem, GiantMove move,
                                                      const GiantTourOptions& options,
                                                      const gpu::EngineSettings& settings,
                                                      Backend backend);

/// The CUDA backend of make_giant_neighborhood (giant_tour_cuda.cu).
std::unique_ptr<Neighborhood> make_cuda_giant_neighborhood(const DcvrpProblem& problem,
                                                           GiantMove move,
                                                           const GiantTourOptions& options,
                                                           const gpu::EngineSettings& settings);

/// Moves of the neighborhood of one linear tour of `length` positions: 2-opt (L-3)(L-2)/2,
/// 3-opt 4 C(L-1, 3); with `candidates` K > 0 the cells of the filtered grids: 2-opt
/// (L-1) 2K, 3-opt 2 (L-3)(L-2) K.
std::uint64_t giant_moves(GiantMove move, std::int32_t length, std::int32_t candidates = 0);

} // namespace locus::dcvrp
