#pragma once
// Max-Cut as a locus problem: split the vertices of a weighted graph into two sides so that the
// weight of the edges between the sides is largest. A solution holds one int32 per vertex, its
// side (0 or 1). The problem declares a maximisation objective: the engines minimise the negated
// cut and users read the cut. The flip neighborhood moves one vertex to the other side.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "locus/gpu/neighborhood_adapter.hpp"
#include "locus/problem.hpp"

namespace maxcut {

/// The graph, every edge in the adjacency lists of both ends (CSR).
struct Graph {
    std::string name;
    std::int32_t n = 0;
    std::vector<std::int64_t> offset; ///< n + 1: vertex v's edges are [offset[v], offset[v + 1])
    std::vector<std::int32_t> other;  ///< the other end of each edge
    std::vector<std::int64_t> weight; ///< its weight
};

/// The flip neighborhood as an evaluator of the neighborhood engine, the same object on the CPU
/// (host arrays) and in kernels (device arrays): one row per solution, cell v flips vertex v.
/// The delta of the minimised objective: flipping v cuts its edges to its own side (-w) and
/// joins those to the other side (+w).
struct FlipEvaluator {
    using delta_type = std::int64_t;
    struct row_type {
        const std::int32_t* side;
    };
    const std::int64_t* offset;
    const std::int32_t* other;
    const std::int64_t* weight;
    const std::int32_t* sides; ///< batch x n sides
    std::int32_t n;

    LOCUS_HD_INLINE locus::gpu::MoveGrid grid() const { return {1, std::uint32_t(n)}; }
    LOCUS_HD_INLINE row_type row(std::uint32_t solution, std::uint32_t) const {
        return {sides + std::int64_t(solution) * n};
    }
    LOCUS_HD_INLINE delta_type operator()(const row_type& r, std::uint32_t v) const {
        std::int64_t delta = 0;
        for (std::int64_t e = offset[v]; e < offset[v + 1]; ++e)
            delta += r.side[other[e]] == r.side[v] ? -weight[e] : weight[e];
        return delta;
    }
};

class MaxCutProblem final : public locus::Problem {
public:
    explicit MaxCutProblem(Graph graph) : graph_(std::move(graph)) {}
    /// A generator spec ("random-maxcut:n=N[,degree=D][,seed=S]") or a graph file.
    static std::unique_ptr<MaxCutProblem> load(const std::string& spec);

    std::string_view problem_name() const override { return "maxcut"; }
    locus::ObjectiveSense objective_sense() const override {
        return locus::ObjectiveSense::maximize;
    }
    std::string instance_name() const override { return graph_.name; }
    std::size_t size() const override { return std::size_t(graph_.n); }
    std::size_t solution_width() const override { return std::size_t(graph_.n); }
    locus::Objective evaluate(std::span<const std::int32_t> sides) const override;
    locus::Verdict verify(std::span<const std::int32_t> sides) const override;
    std::string solution_extension() const override { return ".cut"; }
    void write_solution(const std::filesystem::path& path, std::span<const std::int32_t> sides,
                        locus::Objective value) const override;
    std::vector<std::int32_t> read_solution(const std::filesystem::path& path) const override;

    const Graph& graph() const { return graph_; }
    /// The flip evaluator over host solutions.
    FlipEvaluator evaluator(const std::int32_t* sides) const {
        return {graph_.offset.data(), graph_.other.data(), graph_.weight.data(), sides, graph_.n};
    }

private:
    Graph graph_;
};

/// The flip neighborhood over host solutions, a policy of the neighborhood adapter's CPU
/// wrapper: the evaluator reads the batch in place; applying move i flips vertex i.
struct FlipPolicy {
    using evaluator_type = FlipEvaluator;
    using move_type = std::int32_t;
    const MaxCutProblem* p;
    FlipEvaluator prepare(const locus::SolutionBatch& batch) const {
        return p->evaluator(batch.data().data());
    }
    std::int32_t apply(const FlipEvaluator& e, locus::SolutionBatch& batch, std::size_t s,
                       std::uint64_t i) const {
        if (i >= e.grid().size())
            throw locus::Error("flip: " + std::to_string(i) + " is not a move");
        batch[s][i] ^= 1;
        return static_cast<std::int32_t>(i);
    }
    locus::Objective evaluate(std::span<const std::int32_t> sides) const {
        return p->evaluate(sides);
    }
};

/// The flip neighborhood on the CPU (maxcut.cpp) and on a CUDA device (maxcut_cuda.cu).
std::unique_ptr<locus::Neighborhood> make_cpu_flip(const MaxCutProblem& problem,
                                                   const locus::gpu::EngineSettings& settings);
std::unique_ptr<locus::Neighborhood> make_cuda_flip(const MaxCutProblem& problem,
                                                    const locus::gpu::EngineSettings& settings);

} // namespace maxcut
