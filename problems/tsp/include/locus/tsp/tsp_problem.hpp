#pragma once
/// \file
/// The TSP as a locus Problem: a loaded instance plus lazily built candidate lists.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "locus/problem.hpp"
#include "locus/tsp/alpha_nearness.hpp"
#include "locus/tsp/candidate_lists.hpp"
#include "locus/tsp/instance.hpp"

namespace locus::tsp {

/// A TSP instance. Solutions are tours: permutations of 0..n-1 (width n).
class TspProblem final : public Problem {
public:
    explicit TspProblem(Instance instance);

    /// Loads `spec`: a generator spec ("random-uniform:n=2000,seed=7") or a TSPLIB file found
    /// through the data path.
    static std::unique_ptr<TspProblem> load(const std::string& spec);

    std::string_view problem_name() const override { return "tsp"; }
    std::string instance_name() const override { return instance_.name; }
    std::size_t size() const override { return instance_.n; }
    std::size_t solution_width() const override { return instance_.n; }
    Objective evaluate(std::span<const std::int32_t> tour) const override;
    Verdict verify(std::span<const std::int32_t> tour) const override;
    std::string solution_extension() const override { return ".tour"; }
    void write_solution(const std::filesystem::path& path, std::span<const std::int32_t> tour,
                        Objective objective) const override;
    std::vector<std::int32_t> read_solution(const std::filesystem::path& path) const override;

    const Instance& instance() const { return instance_; }

    /// True when every move delta fits in 32 bits: 4 * (an upper bound of every distance) is
    /// below 2^31 (swap, the widest move, adds and removes four edges).
    bool narrow_deltas() const { return narrow_deltas_; }

    /// Candidate lists: k other cities per city (row-major n x k, ordered by distance, then
    /// index). With coordinates, quadrant lists: the k/4 nearest cities of each of the four
    /// quadrants around a city, completed with its nearest others; without, the k nearest.
    /// Built once per k (thread safe) with all cores.
    const std::vector<std::int32_t>& candidates(std::int32_t k) const {
        return lists(k, CandidateKind::quadrant);
    }
    /// The k nearest other cities of every city (n x k, ordered by distance, then index).
    const std::vector<std::int32_t>& nearest(std::int32_t k) const {
        return lists(k, CandidateKind::nearest);
    }
    /// Lists of the given kind (alpha: ordered by alpha-value, see alpha_nearness.hpp, with
    /// `alpha`'s pool and ascent), built once per (k, kind, alpha options). Throws ConfigError
    /// when k is not in 1..n-1.
    const std::vector<std::int32_t>& lists(std::int32_t k, CandidateKind type,
                                           const AlphaOptions& alpha = {}) const;

private:
    Instance instance_;
    bool narrow_deltas_ = false;
    mutable std::mutex candidates_mutex_;
    using ListKey = std::tuple<std::int32_t, CandidateKind, std::int32_t, std::int32_t>;
    mutable std::map<ListKey, std::unique_ptr<std::vector<std::int32_t>>> candidates_;
};

/// Registers the TSP problem and its components (constructions, perturbation, neighborhoods).
void register_tsp_components(class Registry& registry);

} // namespace locus::tsp
