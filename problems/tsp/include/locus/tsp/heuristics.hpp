#pragma once
/// \file
/// TSP construction heuristics and the double-bridge perturbation (host code; O(n) or O(n^2)
/// per solution, parallel over the batch).

#include <cstdint>
#include <functional>
#include <span>

#include "locus/problem.hpp"
#include "locus/tsp/tsp_problem.hpp"

namespace locus::tsp {

/// Uniformly random tour (Fisher-Yates) from the stream derive_key(seed, i) for solution i.
class RandomTour final : public Construction {
public:
    explicit RandomTour(const TspProblem& problem) : problem_(problem) {}
    void construct(SolutionBatch& batch, std::uint64_t seed) override;

private:
    const TspProblem& problem_;
};

/// Nearest-neighbor tour from a start city (random per solution when start < 0).
class NearestNeighborTour final : public Construction {
public:
    NearestNeighborTour(const TspProblem& problem, std::int32_t start)
        : problem_(problem), start_(start) {}
    void construct(SolutionBatch& batch, std::uint64_t seed) override;
    void construct_until(SolutionBatch& batch, std::uint64_t seed,
                         const std::function<bool()>& stop) override;

private:
    const TspProblem& problem_;
    std::int32_t start_;
};

/// Greedy-edge tour (Johnson & McGeoch's "Greedy" start): the candidate edges (each city's
/// `k` nearest) in (length, city, city) order are taken while both ends have degree < 2 and no
/// cycle closes; the fragments (paths and single cities) are then joined end to nearest
/// free end, starting from the lowest-numbered free end. Deterministic: every solution of the batch gets the same
/// tour. Its global structure (which clusters connect) often suits a local search better than
/// a nearest-neighbor tour's, whose last steps cross the plane.
class GreedyEdgeTour final : public Construction {
public:
    GreedyEdgeTour(const TspProblem& problem, std::int32_t k) : problem_(problem), k_(k) {}
    void construct(SolutionBatch& batch, std::uint64_t seed) override;

private:
    const TspProblem& problem_;
    std::int32_t k_;
};

/// The greedy-edge tour of `instance` from its k-nearest lists (`nearest`, n x k, ordered by
/// (distance, city)), written to `tour` (n entries). Throws Stopped when the stop flag is raised
/// before the edges are sorted (the greedy matching and the walk take a fraction of that).
void greedy_edge_tour(const Instance& instance, const std::int32_t* nearest, std::int32_t k,
                      std::span<std::int32_t> tour);

/// Double bridge (Martin, Otto & Felten): cuts the tour at three positions p1 < p2 < p3 and
/// exchanges the two middle parts, [A B C D] -> [A C B D]. With a window w > 0 the cuts lie
/// within w positions after a random start (a local double bridge, O(w) work); w = 0 uses the
/// whole tour.
class DoubleBridge final : public Perturbation {
public:
    DoubleBridge(const TspProblem& problem, std::int32_t window)
        : problem_(problem), window_(window) {}
    void perturb(SolutionBatch& batch, std::uint64_t seed) override;

private:
    const TspProblem& problem_;
    std::int32_t window_;
};

/// Builds a nearest-neighbor tour from `start` into `tour` (size n): the nearest unvisited city
/// next, ties to the lowest index. `nearest` (optional, n x k lists ordered by distance then
/// index, TspProblem::nearest) only speeds the search up; the tour is the same.
void nearest_neighbor_tour(const Instance& instance, std::int32_t start,
                           std::span<std::int32_t> tour, const std::int32_t* nearest = nullptr,
                           std::int32_t k = 0);

} // namespace locus::tsp
