#pragma once
/// \file
/// A population of solutions managed by cost and diversity, for the population exchange of the
/// many-chain search (chain_search.hpp): chains' educated children are admitted (the cheapest
/// `generation` of them, clones dropped), the members of worst biased fitness are removed until
/// `size` are left, and parents are drawn by binary tournament on the biased fitness.
///
/// The biased fitness follows Vidal's hybrid genetic search (Vidal 2022, "Hybrid genetic search
/// for the CVRP: open-source implementation and SWAP* neighborhood", sec. 3): with N members,
/// rank_cost(i) / (N - 1) + (1 - elite / N) rank_diversity(i) / (N - 1), where the diversity
/// contribution of a member is its average distance to its `close` nearest members (larger is
/// better). Lower is better. Each member's form for the distance (SolutionDistance::form) is
/// computed once, when it is admitted; the forms of the children an update may admit and their
/// distances to the members and to each other are measured on several threads at once, in one
/// parallel region (SolutionDistance::form and between are called concurrently).

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "locus/gpu/chain_policy_component.hpp"
#include "locus/rng.hpp"

namespace locus::chains {

using gpu::SolutionDistance;

struct PopulationOptions {
    std::size_t size = 25;       ///< members kept after every update (>= 1)
    std::size_t generation = 64; ///< most children admitted per update, the cheapest first
    std::size_t elite = 4;       ///< members the biased fitness protects by cost
    std::size_t close = 5;       ///< nearest members the diversity contribution averages
    /// CPU threads that measure the children's forms and distances (0: all cores; the job's
    /// `threads`). The distances, and so every decision, do not depend on it.
    int threads = 0;
};

class Population {
public:
    Population(PopulationOptions options, SolutionDistance distance);

    /// Admits children (rows of `width` words, chain after chain, with their costs): the
    /// cheapest `generation` that are not clones (distance 0 and the same cost as a member or
    /// an admitted child), then removes the member of worst biased fitness (never the
    /// cheapest) until `size` are left. Returns the number admitted.
    std::size_t update(std::span<const std::int32_t> rows, std::size_t width,
                       std::span<const std::int64_t> costs);

    /// Forgets every member (a restart of the search: the next update starts a new population).
    void clear();

    std::size_t count() const { return costs_.size(); }
    std::span<const std::int32_t> row(std::size_t i) const { return rows_[i]; }
    std::int64_t cost(std::size_t i) const { return costs_[i]; }
    /// Biased fitness of member i as of the last update (lower is better).
    double fitness(std::size_t i) const { return fitness_[i]; }
    /// Distance between members i and j.
    double distance(std::size_t i, std::size_t j) const { return distances_[i][j]; }
    /// Average distance over all pairs of members (0 with fewer than two).
    double diversity() const;
    /// Binary tournament on the biased fitness: the fitter of two uniform draws (ties to the
    /// lower index). Precondition: count() > 0.
    std::size_t tournament(Rng& rng) const;
    /// Two parents by tournament, distinct when the population has two members or more.
    std::pair<std::size_t, std::size_t> parents(Rng& rng) const;

private:
    /// Admits the children `batch` (indices of rows, in cost order) that are not clones,
    /// their forms and distances measured on the threads together; returns how many.
    std::size_t admit(std::span<const std::size_t> batch, std::span<const std::int32_t> rows,
                      std::size_t width, std::span<const std::int64_t> costs);
    /// Contributions of every member, then fitness.
    void rank();
    /// Removes member w; recomputes the contributions of the members w was near, then fitness.
    void remove(std::size_t w);
    /// Member i's diversity contribution (and the largest distance it averages).
    void contribute(std::size_t i);
    /// Biased fitness from the costs and the current contributions.
    void score();
    /// The nearest members a contribution averages: min(close, count - 1).
    std::size_t close_count() const;

    PopulationOptions options_;
    SolutionDistance distance_;
    std::vector<std::vector<std::int32_t>> rows_;
    std::vector<std::vector<std::int32_t>> forms_; ///< the distance's form of each member
    std::vector<std::int64_t> costs_;
    std::vector<std::vector<double>> distances_;
    std::vector<double> contribution_; ///< average distance to the close nearest members
    std::vector<double> nearest_;      ///< the largest of those distances
    std::vector<double> fitness_;
    std::vector<double> others_; ///< scratch of contribute()
};

} // namespace locus::chains
