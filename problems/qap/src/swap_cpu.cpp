// The QAP swap neighborhood on the CPU: a policy of the neighborhood adapter's CPU wrapper.

#include <fmt/format.h>

#include <string>
#include <utility>

#include "locus/error.hpp"
#include "locus/gpu/neighborhood_adapter.hpp"
#include "locus/qap/swap_evaluator.hpp"
#include "locus/qap/swap_neighborhood.hpp"

namespace locus::qap {
namespace {

/// The swap neighborhood over host permutations: the evaluator reads the batch in place.
class SwapPolicy {
public:
    using evaluator_type = SwapEvaluator;
    using move_type = QapSwap;

    explicit SwapPolicy(const QapProblem& problem) : problem_(&problem) {}

    SwapEvaluator prepare(const SolutionBatch& batch) const {
        const Instance& inst = problem_->instance();
        return {inst.a.data(), inst.b.data(), batch.data().data(), inst.n};
    }
    std::uint64_t evaluations(const SwapEvaluator& eval, std::size_t count) const {
        return eval.grid().size() * count;
    }
    /// A swap's delta reads two rows of each matrix: n steps.
    std::uint64_t cell_work(const SwapEvaluator&) const { return problem_->instance().n; }
    QapSwap apply(const SwapEvaluator& eval, SolutionBatch& batch, std::size_t solution,
                  std::uint64_t index) const {
        if (index >= eval.grid().size())
            throw Error(gpu::detail::undecodable_move_message("QAP swap", index));
        const QapSwap move = eval.decode(static_cast<std::uint32_t>(solution), index);
        if (move.r >= move.s)
            throw Error(gpu::detail::undecodable_move_message("QAP swap", index));
        auto p = batch[solution];
        std::swap(p[static_cast<std::size_t>(move.r)], p[static_cast<std::size_t>(move.s)]);
        return move;
    }
    Objective evaluate(std::span<const std::int32_t> p) const { return problem_->evaluate(p); }
    std::string describe(const QapSwap& move) const {
        return fmt::format("swap ({}, {})", move.r, move.s);
    }
    bool conflicts(const QapSwap& x, const QapSwap& y) const {
        const Instance& inst = problem_->instance();
        return swaps_conflict(inst.a.data(), inst.b.data(), inst.n, x, y);
    }
    void apply_independent(SolutionBatch& batch, std::size_t solution,
                           std::span<const QapSwap> moves) const {
        auto p = batch[solution];
        for (const QapSwap& m : moves)
            std::swap(p[static_cast<std::size_t>(m.r)], p[static_cast<std::size_t>(m.s)]);
    }

private:
    const QapProblem* problem_;
};

} // namespace

std::unique_ptr<Neighborhood> make_cpu_swap(const QapProblem& problem,
                                            const gpu::EngineSettings& settings) {
    using Adapter = gpu::CpuNeighborhoodAdapter<SwapPolicy>;
    const auto n = static_cast<std::uint64_t>(problem.size());
    return std::make_unique<gpu::AdaptedNeighborhood<Adapter>>("swap", Backend::cpu, n * n,
                                                               SwapPolicy(problem), settings);
}

} // namespace locus::qap
