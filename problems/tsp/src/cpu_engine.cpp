// CPU backend of the TSP neighborhoods: the neighborhood engine's CPU twin over all cores.

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/gpu/neighborhood_engine.hpp"
#include "locus/tsp/tour_engine.hpp"

namespace locus::tsp {

void check_objective(const TspProblem& problem, std::span<const std::int32_t> tour,
                     Objective objective, const TourMove& move, std::size_t solution) {
    const Objective full = problem.evaluate(tour);
    if (full != objective) {
        const char* names[] = {"two_opt", "or_opt", "swap"};
        throw Error(fmt::format(
            "check_moves: solution {} after {} move (i={}, j={}, length={}, p={}, reversed={}) has "
            "objective {} by delta but {} by full evaluation",
            solution, names[static_cast<int>(move.kind)], move.i, move.j, move.length, move.p,
            move.reversed, objective, full));
    }
}

namespace {

template <class Eval> class CpuTourEngine final : public TourEngine {
public:
    using Metric = decltype(Eval{}.v.metric);
    using Point = typename Metric::point_type;
    using Delta = typename Eval::delta_type;

    CpuTourEngine(const TspProblem& problem, NeighborhoodSpec spec, EngineOptions options)
        : problem_(problem), options_(options), n_(static_cast<std::int32_t>(problem.size())) {
        view_.metric = host_metric<Metric>(problem.instance());
        view_.n = n_;
        if (spec.candidates > 0) {
            view_.K = spec.candidates;
            view_.candidates = problem.candidates(spec.candidates).data();
        }
        uses_pos_ = spec.candidates > 0;
    }

    std::uint64_t cells() const override { return Eval{view_}.grid().size(); }

    void explore(const SolutionBatch& batch, Pivot pivot, std::span<MoveChoice> out) override {
        select(batch, pivot);
        for (std::size_t s = 0; s < batch.count(); ++s)
            out[s] = results_[s].found()
                         ? MoveChoice{results_[s].index, static_cast<Objective>(results_[s].delta)}
                         : MoveChoice{};
    }

    void apply(SolutionBatch& batch, std::span<const MoveChoice> moves) override {
        prepare(batch); // decoding candidate moves needs the positions of the current tours
        for (std::size_t s = 0; s < batch.count(); ++s)
            if (moves[s].found()) apply_one(batch, s, moves[s].index, moves[s].delta);
    }

    DescentStats descend(SolutionBatch& batch, Pivot pivot, std::uint64_t max_steps,
                         const std::function<bool()>& stop) override {
        return run_descent(max_steps, stop, [&] {
            select(batch, pivot);
            const std::uint64_t evaluations = exploration_cells(Eval{view_}, batch.count(), focused_total_);
            const auto apply = [&](std::size_t s, std::uint64_t index, auto delta) {
                apply_one(batch, s, index, static_cast<Objective>(delta));
            };
            return DescentStep{gpu::apply_improving(results_, apply), evaluations};
        });
    }

    double time_exploration(const SolutionBatch& batch, Pivot pivot, int repetitions) override {
        prepare(batch);
        results_.resize(batch.count());
        std::vector<double> times;
        for (int r = 0; r <= repetitions; ++r) {
            const auto start = std::chrono::steady_clock::now();
            gpu::select_moves_cpu(Eval{view_}, static_cast<std::uint32_t>(batch.count()), pivot,
                                  results_.data(), options_.threads);
            const auto stop = std::chrono::steady_clock::now();
            if (r > 0) times.push_back(std::chrono::duration<double>(stop - start).count());
        }
        std::sort(times.begin(), times.end());
        return times[times.size() / 2];
    }

private:
    void prepare(const SolutionBatch& batch) {
        const std::size_t count = batch.count();
        const auto n = static_cast<std::size_t>(n_);
        P_.resize(count * (n + 1));
        D_.resize(count * n);
        if (uses_pos_) pos_.resize(count * n);
        const auto total = static_cast<std::int64_t>(count);
#pragma omp parallel for schedule(static) if (total * n_ > 65536)
        for (std::int64_t s = 0; s < total; ++s) {
            const auto u = static_cast<std::size_t>(s);
            const std::int32_t* tour = batch[u].data();
            Point* P = P_.data() + u * (n + 1);
            std::int32_t* D = D_.data() + u * n;
            std::int32_t* pos = uses_pos_ ? pos_.data() + u * n : nullptr;
            for (std::int32_t k = 0; k < n_; ++k) prepare_entry(view_.metric, tour, P, D, pos, n_, k);
        }
        view_.tour = batch.data().data();
        view_.P = P_.data();
        view_.D = D_.data();
        view_.pos = uses_pos_ ? pos_.data() : nullptr;
        view_.focus_list = nullptr;
        view_.focus_count = nullptr;
        focused_total_ = 0;
        if (uses_pos_ && batch.has_focus()) {
            // Focused cities of each solution in increasing order (the row order of both backends).
            focus_list_.resize(count * n);
            focus_count_.assign(count, 0);
            std::int32_t rows = 0;
            for (std::size_t s = 0; s < count; ++s) {
                const auto focus = batch.focus(s);
                std::int32_t m = 0;
                for (std::int32_t c = 0; c < n_; ++c)
                    if (focus[static_cast<std::size_t>(c)] != 0) focus_list_[s * n + static_cast<std::size_t>(m++)] = c;
                focus_count_[s] = m;
                focused_total_ += static_cast<std::uint64_t>(m);
                rows = std::max(rows, m);
            }
            view_.focus_list = focus_list_.data();
            view_.focus_count = focus_count_.data();
            view_.focus_rows = rows;
        }
    }

    void select(const SolutionBatch& batch, Pivot pivot) {
        prepare(batch);
        results_.resize(batch.count());
        gpu::select_moves_cpu(Eval{view_}, static_cast<std::uint32_t>(batch.count()), pivot,
                              results_.data(), options_.threads);
    }

    void apply_one(SolutionBatch& batch, std::size_t s, std::uint64_t index, Objective delta) {
        const TourMove move = Eval{view_}.decode(static_cast<std::uint32_t>(s), index);
        if (!move.valid) throw Error(fmt::format("move index {} is not a valid move", index));
        if (batch.has_focus()) {
            std::int32_t touched[6];
            const int count = touched_cities(move, batch[s].data(), n_, touched);
            for (int k = 0; k < count; ++k) batch.focus(s)[static_cast<std::size_t>(touched[k])] = 1;
        }
        apply_move(batch[s].data(), n_, move);
        batch.objective(s) += delta;
        if (options_.check_moves) check_objective(problem_, batch[s], batch.objective(s), move, s);
    }

    const TspProblem& problem_;
    EngineOptions options_;
    std::int32_t n_;
    bool uses_pos_ = false;
    TourBatchView<Metric> view_{};
    std::vector<Point> P_;
    std::vector<std::int32_t> D_;
    std::vector<std::int32_t> pos_;
    std::vector<std::int32_t> focus_list_;
    std::vector<std::int32_t> focus_count_;
    std::uint64_t focused_total_ = 0;
    std::vector<gpu::MoveResult<Delta>> results_;
};

} // namespace

std::unique_ptr<TourEngine> make_cpu_engine(const TspProblem& problem, NeighborhoodSpec spec,
                                            EngineOptions options) {
    return visit_evaluator(problem, spec, [&](auto space_tag) -> std::unique_ptr<TourEngine> {
        using Eval = typename decltype(space_tag)::type;
        return std::make_unique<CpuTourEngine<Eval>>(problem, spec, options);
    });
}

} // namespace locus::tsp
