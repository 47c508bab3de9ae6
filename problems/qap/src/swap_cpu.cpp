// The QAP swap neighborhood on the CPU twin of the neighborhood engine.

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "locus/error.hpp"
#include "locus/qap/swap_evaluator.hpp"
#include "locus/qap/swap_neighborhood.hpp"

namespace locus::qap {

void check_swap(const QapProblem& problem, std::span<const std::int32_t> p, Objective objective,
                std::int32_t r, std::int32_t s, std::size_t solution) {
    const Objective full = problem.evaluate(p);
    if (full != objective)
        throw Error(fmt::format("check_moves: solution {} after swap ({}, {}) has objective {} by "
                                "delta but {} by full evaluation",
                                solution, r, s, objective, full));
}

namespace {

class CpuSwap final : public Neighborhood {
public:
    CpuSwap(const QapProblem& problem, SwapOptions options) : problem_(problem), options_(options) {}

    std::string_view name() const override { return "swap"; }
    Backend backend() const override { return Backend::cpu; }
    std::uint64_t size() const override {
        const auto n = static_cast<std::uint64_t>(problem_.size());
        return n * n;
    }
    void explore(const SolutionBatch& batch, Pivot pivot, std::span<MoveChoice> out) override {
        select(batch, pivot);
        for (std::size_t s = 0; s < batch.count(); ++s)
            out[s] = results_[s].found() ? MoveChoice{results_[s].index, static_cast<Objective>(results_[s].delta)}
                                         : MoveChoice{};
    }
    void apply(SolutionBatch& batch, std::span<const MoveChoice> moves) override {
        for (std::size_t s = 0; s < batch.count(); ++s)
            if (moves[s].found()) apply_one(batch, s, moves[s].index, moves[s].delta);
    }
    DescentStats descend(SolutionBatch& batch, Pivot pivot, std::uint64_t max_steps,
                         const std::function<bool()>& stop) override {
        return run_descent(max_steps, stop, [&] {
            select(batch, pivot);
            const std::uint64_t evaluations = size() * batch.count();
            const auto apply = [&](std::size_t s, std::uint64_t index, auto delta) {
                apply_one(batch, s, index, static_cast<Objective>(delta));
            };
            return DescentStep{gpu::apply_improving(results_, apply), evaluations};
        });
    }

private:
    void select(const SolutionBatch& batch, Pivot pivot) {
        const Instance& inst = problem_.instance();
        const SwapEvaluator eval{inst.a.data(), inst.b.data(), batch.data().data(), inst.n};
        results_.resize(batch.count());
        gpu::select_moves_cpu(eval, static_cast<std::uint32_t>(batch.count()), pivot, results_.data(),
                              options_.threads);
    }
    void apply_one(SolutionBatch& batch, std::size_t s, std::uint64_t index, Objective delta) {
        std::int32_t r = 0, t = 0;
        SwapEvaluator::decode(index, problem_.instance().n, r, t);
        auto p = batch[s];
        std::swap(p[static_cast<std::size_t>(r)], p[static_cast<std::size_t>(t)]);
        batch.objective(s) += delta;
        if (options_.check_moves) check_swap(problem_, p, batch.objective(s), r, t, s);
    }

    const QapProblem& problem_;
    SwapOptions options_;
    std::vector<gpu::MoveResult<std::int64_t>> results_;
};

} // namespace

std::unique_ptr<Neighborhood> make_cpu_swap(const QapProblem& problem, SwapOptions options) {
    return std::make_unique<CpuSwap>(problem, options);
}

} // namespace locus::qap
