#pragma once
/// \file
/// The DCVRP route chains (route_chain_policy.hpp) on the many-chain engine: the instance in
/// fixed point, and the runners of both backends.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "locus/dcvrp/dcvrp_problem.hpp"
#include "locus/dcvrp/route_chain_policy.hpp"
#include "locus/gpu/chain_engine.hpp"
#include "locus/gpu/device.hpp"

namespace locus::dcvrp {

/// Where the route chains read distances from (RouteChainData).
enum class DistanceMode {
    automatic,   ///< the matrix up to kFixedMatrixNodes nodes and for explicit weights
    matrix,      ///< an n x n fixed-point matrix (8 n^2 bytes per backend)
    coordinates, ///< computed from the coordinates on every use (explicit weights: matrix)
};

/// Most nodes of an automatic fixed-point matrix (200 MB of int64).
inline constexpr std::int32_t kFixedMatrixNodes = 5000;
/// Most nodes whose distances are all read to find the longest (the initial load weight) and
/// whether all are integral (the fixed-point scale).
inline constexpr std::int32_t kExactLongestNodes = 5000;

/// What one unit of load excess first costs in the penalised descents: the longest distance
/// over the heaviest demand (Vidal 2022), over the heaviest demand capped at half the
/// capacity, or over the mean demand.
enum class LoadWeightBasis {
    heaviest,      ///< an excess of the heaviest demand costs the longest distance
    half_capacity, ///< ... of the heaviest demand or half the capacity, the smaller
    mean,          ///< an excess of the mean demand costs the longest distance
};

/// Parameters of the route chains.
struct RouteChainOptions {
    std::int32_t candidates = 20; ///< granular candidate-list size K
    std::int32_t kicks = 3;       ///< random feasible relocations/swaps per perturbation
    std::int32_t ruin = 0;        ///< ruin-and-recreate kick: customers removed on average
    std::int32_t eliminate = 0;   ///< per cent of kicks that first try to empty a route
    std::int32_t eliminate_length = 0; ///< ... while routes average this many customers
    std::int32_t ruin_length = 0; ///< ruin only while routes average this many customers
    bool segments = false;        ///< also relocate 2-3 consecutive customers
    bool segment_swaps = false;   ///< also swap 2 consecutive customers with 1 or 2
    bool swap_star = false;       ///< also SWAP* on granular places
    bool penalties = false;       ///< penalised capacity/duration excess in the descents
    double feasible_target = 0.2; ///< target share of feasible descents (penalty weights)
    std::int32_t repair_boost = 10; ///< weight factor of repair descents (1: no repair)
    /// Time windows: cost per unit of time warp in the Split of recombined children (0: routes
    /// without time warp only)
    std::int32_t split_warp_weight = 0;
    LoadWeightBasis load_weight_basis = LoadWeightBasis::heaviest; ///< initial load weight
    DistanceMode distances = DistanceMode::automatic; ///< matrix or coordinates
};

/// The instance as the route chains read it: distances, service time and duration limit in
/// fixed point (x scale, rounded; scale 1 when every distance and the service time are
/// integral — above kExactLongestNodes nodes only nint distances count as integral), demands,
/// capacity and candidate lists. Distances come from a matrix or from the coordinates
/// (`mode`); both give the same values (FixedDistance).
struct RouteChainData {
    RouteChainData(const Instance& instance, std::int32_t candidates,
                   DistanceMode mode = DistanceMode::automatic);

    double scale = 1.0;
    std::int32_t n = 0;
    std::int32_t K = 0;
    std::int32_t vehicles = 0; ///< fleet limit of recombined children (0: unlimited)
    std::int64_t capacity = 0;
    std::int64_t service = 0;
    std::int64_t max_duration = kNoDurationLimit;
    /// Initial penalty weight per unit of load excess (Vidal 2022: the largest distance over
    /// the largest demand, within [0.1, 1000], in fixed point).
    std::int64_t load_weight = 1;
    /// The same over min(heaviest demand, capacity / 2) (LoadWeightBasis::half_capacity) and
    /// over the mean demand of the customers (LoadWeightBasis::mean), within the same bounds.
    std::int64_t half_capacity_load_weight = 1;
    std::int64_t mean_load_weight = 1;
    std::vector<std::int64_t> dist; ///< n x n fixed-point matrix, or empty (coordinates)
    std::vector<double> x, y;       ///< coordinates (empty with explicit weights)
    std::int32_t nint = 0;          ///< coordinates rounded by TSPLIB nint
    std::vector<std::int64_t> demand;
    std::vector<std::int32_t> neighbors;
    std::vector<std::int32_t> heading; ///< n x 2 unit vectors from the depot, x 2^16
    /// Time windows in fixed point (empty: none): per node the earliest and latest start of
    /// service (rounded inwards when not exact), and the slack added to every travel and
    /// service time (routing::FixedWindows: 1 when the fixed-point times are rounded).
    std::vector<std::int64_t> ready, due;
    std::int64_t slack = 0;

    /// The fixed-point distance over these host arrays.
    FixedDistance distance() const;
    /// A policy over these host arrays (workspace pointers unset).
    RouteChainPolicy policy(std::int32_t kicks, bool segments = true,
                            bool segment_swaps = true, bool swap_star = true) const;
    /// A policy with the options' neighborhoods, kicks and penalties.
    RouteChainPolicy policy(const RouteChainOptions& options) const;
    /// The chains' cost of a giant-tour row.
    std::int64_t cost(std::span<const std::int32_t> row) const;
    /// The chains' objective of a row: its cost when feasible, else above every feasible one
    /// (RouteChainPolicy::chain_value).
    std::int64_t value(std::span<const std::int32_t> row) const;
};

/// Broken-pairs distance of two giant-tour rows of an instance of n nodes, in [0, 1]: the share
/// of the customers' links (to the predecessor and the successor in the route, the depot
/// included) in `a` that `b` does not have, in either direction. Rows that split the same
/// routes (in any order or orientation) are at distance 0.
double broken_pairs_distance(std::span<const std::int32_t> a, std::span<const std::int32_t> b,
                             std::int32_t n);
/// The form of a row that broken_pairs compares: per node i of the n (the depot's entries
/// unused) its predecessor and successor in its route (0: the depot), at 2i and 2i + 1.
std::vector<std::int32_t> route_links(std::span<const std::int32_t> row, std::int32_t n);
/// broken_pairs_distance of two rows given by their route_links: the population keeps each
/// member's links, so a distance is one pass over two arrays.
double broken_pairs(std::span<const std::int32_t> a, std::span<const std::int32_t> b);

/// The routes' expected length at or below which `population: auto` keeps the larger population:
/// customers per route by the capacity bound, n / ceil(total demand / capacity).
inline constexpr std::int64_t kShortRouteCustomers = 15;

/// The population of the chains' population exchange under `population: auto`: 50 members when
/// the routes hold at most kShortRouteCustomers customers on average by the capacity bound,
/// else 25. Measured at 60 s on one GPU (docs/results.md, "Population 25 or 50"): 50 was lower
/// on 6 and higher on 1 of the 8 instances of short routes (X, Golden_15 and Golden_18), and
/// higher on 3 of the 4 of longer routes (Golden_2, 8, 12, X-n801-k40); a larger population
/// keeps more ways of cutting many short routes, and costs about 1.5 times the evaluations
/// per child, which long routes do not repay. Time windows, which shorten routes below the
/// capacity bound, are not counted; on the Gehring-Homberger files the bound alone puts the
/// type-1 classes (C1, R1, RC1: 11 customers per route) below the threshold and the type-2
/// classes (36-56) above it. Under windows 50 members cost R1 more iterations than they repaid,
/// so configs/vrptw/best.yaml sets 25 (docs/results.md, "VRPTW: population `auto`").
std::size_t auto_population(const Instance& instance);

/// The size from which `batch: auto` fills each multiprocessor with several chains: customers.
inline constexpr std::int64_t kManyChainsCustomers = 450;
/// Chains per multiprocessor of `batch: auto` from kManyChainsCustomers customers up.
inline constexpr std::size_t kLargeChainsPerMultiprocessor = 4;
/// Chains of `batch: auto` below kManyChainsCustomers customers, on any device.
inline constexpr std::size_t kSmallInstanceChains = 64;

/// The chains of `batch: auto` on a CUDA device of `multiprocessors` streaming multiprocessors
/// (without time windows): kLargeChainsPerMultiprocessor per multiprocessor (528 on an H100 or
/// H200) from kManyChainsCustomers customers up, else kSmallInstanceChains; 0 (one per
/// multiprocessor, the engine's default) with time windows. Measured at 60 s on one H100
/// (docs/results.md, "Chains per multiprocessor"): 4 chains per multiprocessor evaluated 3.3-5.0
/// times the moves of 64 chains, 8 at most 1.2 times those of 4; on the two instances of 450
/// customers or more run with 64 and 528 chains the gap fell (X-n916-k207 1.004 to 0.516 %,
/// X-n502-k39 0.101 to 0.062 %), on the four below it rose on three and stayed on one (each
/// chain runs 21-57 % fewer iterations in the minute). configs/vrptw/best.yaml keeps one chain
/// per multiprocessor, as measured there.
std::size_t auto_chains(const Instance& instance, std::size_t multiprocessors);

std::unique_ptr<gpu::ChainRunner> make_cpu_route_runner(const DcvrpProblem& problem,
                                                        const RouteChainOptions& options,
                                                        std::uint32_t chains,
                                                        const gpu::ChainParams& params,
                                                        int threads);

/// route_chains_cuda.cu
std::unique_ptr<gpu::ChainRunner> make_cuda_route_runner(const DcvrpProblem& problem,
                                                         const RouteChainOptions& options,
                                                         std::uint32_t chains,
                                                         const gpu::ChainParams& params,
                                                         int device,
                                                         const gpu::MemoryBudget& budget);

} // namespace locus::dcvrp
