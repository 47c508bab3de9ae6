#pragma once
/// \file
/// Checks for the tests of a problem plugin, installed with locus (include/locus/testing): the
/// deltas of a neighborhood against full re-evaluations, move by move and along descents run
/// with check_moves, and a CPU twin against its CUDA engine. They return what they found (no
/// test framework needed): assert on the results with the framework of the plugin's tests.
///
///   check_every_move(policy, batch)         every move of a CPU neighborhood policy (the
///                                           policy of gpu::CpuNeighborhoodAdapter)
///   check_descent(neighborhood, problem,    a descent to local optima by a neighborhood built
///                 batch, pivot)             with check_moves on (BuildContext::check_moves or
///                                           gpu::EngineSettings::check_moves)
///   same_descent(cpu, cuda, batch, pivot)   the CPU and CUDA backends of one neighborhood give
///                                           the same solutions, objectives and counts
///
/// The chain-engine policies have their own harnesses next to this header, for doctest suites:
/// chain_policy_harness.hpp (Serial team) and chain_policy_harness.cuh (Block team, device).

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "locus/error.hpp"
#include "locus/gpu/neighborhood_adapter.hpp"
#include "locus/problem.hpp"
#include "locus/types.hpp"

namespace locus::testing {

namespace detail {

/// An objective in words: integral values without a fraction, others to 17 digits.
inline std::string objective_text(Objective value) {
    std::ostringstream text;
    text.precision(17);
    text << value;
    return text.str();
}

} // namespace detail

/// What check_every_move found.
struct MoveCheck {
    std::uint64_t moves = 0;       ///< valid moves checked
    std::uint64_t wrong_delta = 0; ///< moves whose delta differs from the full re-evaluation
    std::string first_wrong;       ///< the first of them in words ("" when none)

    /// At least one move checked and every delta right.
    bool ok() const { return moves > 0 && wrong_delta == 0; }
};

/// Every valid move of every solution of `batch` (whose objectives are the full evaluations):
/// its delta as the policy's evaluator gives it must equal the change of the full objective
/// after the policy applies it to a copy of the solution. Each move is applied to a fresh copy
/// with an evaluator prepared for it, so a policy keeping state between prepare and apply is
/// checked as the adapter uses it. Cost: (moves + solutions) x prepare, moves x evaluate.
template <class Policy>
    requires gpu::CpuNeighborhoodPolicy<Policy>
MoveCheck check_every_move(Policy& policy, const SolutionBatch& batch) {
    using Delta = typename Policy::evaluator_type::delta_type;
    MoveCheck check;
    std::vector<std::uint64_t> valid;
    std::vector<Delta> deltas;
    for (std::size_t s = 0; s < batch.count(); ++s) {
        // Prepared again for each solution: the trials below prepare the policy for copies.
        const auto listing = policy.prepare(batch);
        const gpu::MoveGrid grid = listing.grid();
        valid.clear();
        deltas.clear();
        for (std::uint32_t r = 0; r < grid.rows; ++r) {
            const auto context = listing.row(static_cast<std::uint32_t>(s), r);
            const gpu::ColumnRange range = gpu::columns_to_scan(listing, context, 0, grid.cols);
            for (std::uint32_t c = range.begin; c < range.end; ++c) {
                const Delta d = listing(context, c);
                if (d == gpu::invalid_delta<Delta>()) continue;
                valid.push_back(static_cast<std::uint64_t>(r) * grid.cols + c);
                deltas.push_back(d);
            }
        }
        const Objective before = policy.evaluate(batch[s]);
        for (std::size_t k = 0; k < valid.size(); ++k) {
            SolutionBatch trial = batch;
            const auto eval = policy.prepare(trial);
            policy.apply(eval, trial, s, valid[k]);
            const Objective after = policy.evaluate(trial[s]);
            ++check.moves;
            const Objective by_delta = before + static_cast<Objective>(deltas[k]);
            if (objectives_agree(by_delta, after)) continue;
            if (check.wrong_delta++ == 0)
                check.first_wrong = "solution " + std::to_string(s) + ", move " +
                                    std::to_string(valid[k]) + ": objective " +
                                    detail::objective_text(by_delta) + " by delta, " +
                                    detail::objective_text(after) + " by full evaluation";
        }
    }
    return check;
}

/// What check_descent found.
struct DescentCheck {
    DescentStats stats;           ///< of the descent
    std::string error;            ///< the Error the descent threw (a check_moves message), or ""
    std::uint64_t wrong_objective = 0; ///< solutions whose objective is not their evaluation
    std::uint64_t not_optimal = 0;     ///< solutions with an improving move left

    /// The descent ran without a check_moves failure to local optima whose objectives are
    /// exact, having applied at least one move.
    bool ok() const {
        return error.empty() && wrong_objective == 0 && not_optimal == 0 && stats.steps > 0;
    }
};

/// The check_moves pattern: `neighborhood`, built with check_moves on, descends `batch` (whose
/// objectives are the full evaluations) with `pivot` until every solution is locally optimal;
/// every applied move is then re-evaluated in full by the adapter, which throws Error naming
/// the first move whose delta is wrong. Afterwards every objective must equal
/// problem.evaluate() and a best-improvement exploration must find no improving move.
inline DescentCheck check_descent(Neighborhood& neighborhood, const Problem& problem,
                                  SolutionBatch& batch, Pivot pivot) {
    DescentCheck check;
    try {
        check.stats = neighborhood.descend(batch, pivot, 0, {});
    } catch (const Error& e) {
        check.error = e.what();
        return check;
    }
    std::vector<MoveChoice> best(batch.count());
    neighborhood.explore(batch, Pivot::best, best);
    for (std::size_t s = 0; s < batch.count(); ++s) {
        if (!objectives_agree(batch.objective(s), problem.evaluate(batch[s])))
            ++check.wrong_objective;
        if (best[s].found() && best[s].delta < 0) ++check.not_optimal;
    }
    return check;
}

/// What same_descent found: "" when both backends agree, else the first difference in words.
/// The CPU twin and the CUDA engine of a neighborhood select moves by the same (delta, index)
/// order through the same evaluator, so from the same batch they reach the same solutions with
/// the same objectives, steps and evaluations.
inline std::string same_descent(Neighborhood& cpu, Neighborhood& cuda, const SolutionBatch& batch,
                                Pivot pivot) {
    SolutionBatch a = batch;
    SolutionBatch b = batch;
    const DescentStats sa = cpu.descend(a, pivot, 0, {});
    const DescentStats sb = cuda.descend(b, pivot, 0, {});
    if (sa.steps != sb.steps || sa.evaluations != sb.evaluations)
        return "steps/evaluations: CPU " + std::to_string(sa.steps) + "/" +
               std::to_string(sa.evaluations) + ", CUDA " + std::to_string(sb.steps) + "/" +
               std::to_string(sb.evaluations);
    for (std::size_t s = 0; s < a.count(); ++s) {
        if (a.objective(s) != b.objective(s))
            return "solution " + std::to_string(s) + ": objective CPU " +
                   detail::objective_text(a.objective(s)) + ", CUDA " +
                   detail::objective_text(b.objective(s));
        const auto x = a[s];
        const auto y = b[s];
        for (std::size_t i = 0; i < x.size(); ++i)
            if (x[i] != y[i])
                return "solution " + std::to_string(s) + " differs at element " +
                       std::to_string(i) + ": CPU " + std::to_string(x[i]) + ", CUDA " +
                       std::to_string(y[i]);
    }
    return "";
}

} // namespace locus::testing
