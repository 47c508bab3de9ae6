// CPU backend of the TSP neighborhoods: a policy of the neighborhood adapter's CPU wrapper (the
// engine's CPU twin over all cores).

#include <algorithm>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/gpu/neighborhood_adapter.hpp"
#include "locus/tsp/independence.hpp"
#include "locus/tsp/tour_engine.hpp"

namespace locus::tsp {

namespace {

/// The TSP neighborhood of evaluator Eval on host arrays: tour-ordered points and edge lengths,
/// city positions (candidate spaces) and, with focus, the focused cities of each tour.
template <class Eval> class TourPolicy {
public:
    using Op = typename Eval::operator_type;
    using evaluator_type = Eval;
    using move_type = TourMove;
    using Metric = decltype(Eval{}.v.metric);
    using Point = typename Metric::point_type;

    TourPolicy(const TspProblem& problem, NeighborhoodSpec spec)
        : problem_(&problem), label_(neighborhood_label(spec)),
          n_(static_cast<std::int32_t>(problem.size())), uses_pos_(spec.candidates > 0),
          spec_(spec) {
        view_.metric = host_metric<Metric>(problem.instance());
        view_.n = n_;
        if (uses_pos_) {
            view_.K = spec.candidates;
            view_.candidates = problem.candidates(spec.candidates).data();
        }
    }

    Eval prepare(const SolutionBatch& batch) {
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
            for (std::int32_t k = 0; k < n_; ++k)
                prepare_entry(view_.metric, tour, P, D, pos, n_, k);
        }
        objectives_.resize(count);
        for (std::size_t s = 0; s < count; ++s)
            objectives_[s] = batch.objective(s);
        TourBatchView<Metric> v = view_;
        v.objective = objectives_.data();
        v.tour = batch.data().data();
        v.P = P_.data();
        v.D = D_.data();
        v.pos = uses_pos_ ? pos_.data() : nullptr;
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
                    if (focus[static_cast<std::size_t>(c)] != 0)
                        focus_list_[s * n + static_cast<std::size_t>(m++)] = c;
                focus_count_[s] = m;
                focused_total_ += static_cast<std::uint64_t>(m);
                rows = std::max(rows, m);
            }
            v.focus_list = focus_list_.data();
            v.focus_count = focus_count_.data();
            v.focus_rows = rows;
        }
        return make_evaluator<Eval>(v, spec_);
    }

    std::uint64_t evaluations(const Eval& eval, std::size_t count) const {
        return exploration_cells(eval, count, focused_total_);
    }

    TourMove apply(const Eval& eval, SolutionBatch& batch, std::size_t s, std::uint64_t index) {
        const TourMove move = eval.decode(static_cast<std::uint32_t>(s), index);
        if (!move.valid) throw Error(gpu::detail::undecodable_move_message(label_, index));
        if (batch.has_focus()) {
            std::int32_t touched[kMaxTouchedCities] = {};
            const int count = Op::touched(move, batch[s].data(), n_, touched);
            for (int k = 0; k < count; ++k)
                batch.focus(s)[static_cast<std::size_t>(touched[k])] = 1;
        }
        apply_operator_move<Op>(batch[s].data(), n_, move);
        return move;
    }

    Objective evaluate(std::span<const std::int32_t> tour) const {
        return problem_->evaluate(tour);
    }

    bool conflicts(const TourMove& a, const TourMove& b) const requires IndependentOperator<Op> {
        return Op::conflicts(a, b, n_);
    }
    void apply_independent(SolutionBatch& batch, std::size_t s,
                           std::span<const TourMove> moves) const requires IndependentOperator<Op> {
        apply_independent_moves<Op>(
            batch[s], batch.has_focus() ? batch.focus(s) : std::span<std::uint8_t>{}, moves);
    }

    std::string describe(const TourMove& m) const {
        return fmt::format("{} move (i={}, j={}, length={}, p={}, reversed={})", Op::name, m.i, m.j,
                           m.length, m.p, m.reversed);
    }

private:
    const TspProblem* problem_;
    std::string label_;
    std::int32_t n_;
    bool uses_pos_;
    NeighborhoodSpec spec_;
    TourBatchView<Metric> view_{};
    std::vector<Point> P_;
    std::vector<std::int32_t> D_;
    std::vector<std::int32_t> pos_;
    std::vector<Objective> objectives_;
    std::vector<std::int32_t> focus_list_;
    std::vector<std::int32_t> focus_count_;
    std::uint64_t focused_total_ = 0;
};

} // namespace

void throw_unknown_kind(MoveKind kind) {
    throw ConfigError(fmt::format("TSP: no operator has move kind {}", static_cast<int>(kind)));
}

std::string neighborhood_label(NeighborhoodSpec spec) {
    std::string label;
    if (!TourOperators::visit(spec.kind, [&](auto op_tag) {
            using Op = typename decltype(op_tag)::type;
            if constexpr (requires { Op::sample_unit; })
                label = fmt::format("TSP {} ({} {})", Op::name, spec.samples, Op::sample_unit);
            else if (spec.candidates > 0)
                label = fmt::format("TSP {} ({} candidates)", Op::name, spec.candidates);
            else
                label = fmt::format("TSP {}", Op::name);
        }))
        throw_unknown_kind(spec.kind);
    return label;
}

std::unique_ptr<gpu::TimedNeighborhood> make_cpu_engine(const TspProblem& problem,
                                                        NeighborhoodSpec spec,
                                                        const gpu::EngineSettings& settings,
                                                        std::string name) {
    std::unique_ptr<gpu::TimedNeighborhood> made;
    visit_evaluator(problem, spec, [&](auto space_tag) {
        using Eval = typename decltype(space_tag)::type;
        using Adapter = gpu::CpuNeighborhoodAdapter<TourPolicy<Eval>>;
        if (name.empty()) name = Eval::operator_type::name;
        made = std::make_unique<gpu::AdaptedNeighborhood<Adapter>>(
            std::move(name), Backend::cpu, space_cells<Eval>(problem, spec),
            TourPolicy<Eval>(problem, spec), settings);
    });
    return made;
}

} // namespace locus::tsp
