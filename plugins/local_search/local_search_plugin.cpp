// Local search plugin: best/first-improvement descent over one neighborhood, the parallel descent
// of independent moves (Riise & Burke 2014), variable neighborhood descent (VND) over an ordered list of
// neighborhoods with either descent, `construction_only` (the construction's solutions as
// they are) and the `mixed` construction (contiguous blocks of the batch built by different
// constructions).

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "locus/algorithm.hpp"
#include "locus/mixed_construction.hpp"
#include "locus/error.hpp"
#include "locus/params.hpp"
#include "locus/params_check.hpp"
#include "locus/plugin.hpp"
#include "locus/problem.hpp"
#include "locus/registry.hpp"
#include "locus/search_context.hpp"

namespace locus {
namespace {

Pivot parse_pivot(const std::string& text) { return text == "first" ? Pivot::first : Pivot::best; }

/// Watches a long descent for moves that do not improve. A descent to a local optimum runs in
/// rounds of 64, 128, 256, ... explorations (the same moves as one descent: the batch is the
/// whole state of a descent); after each full round every solution is evaluated in full. When
/// the objectives tracked by the moves' deltas fell since the last look but a full evaluation
/// did not, the neighborhood's deltas are wrong and the descent would cycle for ever (its deltas
/// keep finding "improving" moves): the check throws instead. Descents shorter than one round
/// (the common case inside an ILS) are not looked at and cost nothing extra.
class ProgressCheck {
public:
    ProgressCheck(const Problem& problem, const Neighborhood& neighborhood)
        : problem_(problem), neighborhood_(neighborhood) {}

    /// Explorations of the next round.
    std::uint64_t round() const { return round_; }

    /// Looks at the batch after a full round and doubles the next one.
    void look(const SolutionBatch& batch) {
        round_ *= 2;
        std::vector<Objective> full(batch.count());
        for (std::size_t s = 0; s < batch.count(); ++s) full[s] = problem_.evaluate(batch[s]);
        if (tracked_.size() == batch.count()) {
            for (std::size_t s = 0; s < batch.count(); ++s) {
                const Objective before = tracked_[s];
                const Objective after = batch.objective(s);
                if (after < before && !objectives_agree(before, after) &&
                    !(full[s] < full_[s])) {
                    const ObjectiveSense sense = problem_.objective_sense();
                    throw Error(fmt::format(
                        "descent of neighborhood '{}': the moves applied to solution {} improve "
                        "it by their deltas (objective {} -> {}) but not by full evaluation "
                        "({} -> {}); the neighborhood's delta evaluation is wrong (check_moves: "
                        "true names the first wrong move)",
                        neighborhood_.name(), s, user_objective(sense, before),
                        user_objective(sense, after), user_objective(sense, full_[s]),
                        user_objective(sense, full[s])));
                }
            }
        }
        tracked_.resize(batch.count());
        for (std::size_t s = 0; s < batch.count(); ++s) tracked_[s] = batch.objective(s);
        full_ = std::move(full);
    }

private:
    const Problem& problem_;
    const Neighborhood& neighborhood_;
    std::uint64_t round_ = 64;
    std::vector<Objective> tracked_;
    std::vector<Objective> full_;
};

/// Runs `neighborhood` to a local optimum (or the stop condition, or `max_steps` explorations
/// when not 0) and books the work; a descent to a local optimum is watched by a ProgressCheck.
/// `run(steps)` is one call of the neighborhood's descent of at most `steps` explorations.
template <class Run>
DescentStats watched_descent(Neighborhood& neighborhood, SolutionBatch& batch,
                             std::uint64_t max_steps, SearchContext& ctx, Run&& run) {
    ProgressCheck check(ctx.problem(), neighborhood);
    DescentStats total;
    for (;;) {
        const std::uint64_t steps = max_steps != 0 ? max_steps : check.round();
        const DescentStats stats = run(steps);
        ctx.add_evaluations(stats.evaluations);
        if (ctx.depth() == 0) ctx.add_iterations(stats.steps);
        total.steps += stats.steps;
        total.evaluations += stats.evaluations;
        total.explorations += stats.explorations;
        total.stopped = stats.stopped;
        if (max_steps != 0 || stats.stopped || stats.explorations < steps) return total;
        check.look(batch);
    }
}

DescentStats descend(Neighborhood& neighborhood, SolutionBatch& batch, Pivot pivot,
                     std::uint64_t max_steps, SearchContext& ctx) {
    const std::function<bool()> stop = [&ctx] { return ctx.should_stop(); };
    return watched_descent(neighborhood, batch, max_steps, ctx, [&](std::uint64_t steps) {
        return neighborhood.descend(batch, pivot, steps, stop);
    });
}

/// Options of the parallel descent from the parameters max_moves and capacity.
IndependentDescentOptions independent_options(const Params& params) {
    IndependentDescentOptions options;
    options.max_moves = static_cast<std::uint32_t>(params.get_int("max_moves"));
    options.capacity = static_cast<std::uint32_t>(params.get_int("capacity"));
    return options;
}

/// Runs the parallel descent of `neighborhood` and books the work like descend(). Between
/// explorations the batch holds the current solutions (Neighborhood::descend_independent), so
/// they are offered there at most once a second: one descent of 10^6 cities takes tens of
/// seconds, and its progress belongs in the trace and the solution file.
DescentStats descend_independent(Neighborhood& neighborhood, SolutionBatch& batch,
                                 const IndependentDescentOptions& options, SearchContext& ctx) {
    using Clock = std::chrono::steady_clock;
    auto last = Clock::now();
    const std::function<bool()> stop = [&] {
        if (Clock::now() - last >= std::chrono::seconds(1)) {
            ctx.offer(batch);
            last = Clock::now();
        }
        return ctx.should_stop();
    };
    return watched_descent(neighborhood, batch, options.max_steps, ctx, [&](std::uint64_t steps) {
        IndependentDescentOptions round = options;
        round.max_steps = steps;
        return neighborhood.descend_independent(batch, round, stop);
    });
}

/// Throws ConfigError, located at the neighborhood's params `where`, unless `neighborhood` has
/// an independence rule (checked when the algorithm is built, before any search: the rule is
/// the built neighborhood's).
void require_independence(const Neighborhood& neighborhood, const Params& where) {
    if (!neighborhood.has_independence_rule())
        throw params_error(where, "",
                           "neighborhood '" + std::string(neighborhood.name()) +
                               "' has no independence rule, so it cannot run a parallel descent");
}

/// Refuses a VND without neighborhoods (checked while the config is composed).
void check_vnd(const Params& params) {
    if (params.get_components("neighborhoods").empty())
        throw params_error(params, "neighborhoods",
                           "the list is empty; name at least one neighborhood (algorithm "
                           "construction_only keeps the constructed solutions as they are)");
}

/// Refuses a mixed construction of no constructions (checked while the config is composed).
void check_mixed(const Params& params) {
    if (params.get_components("constructions").empty())
        throw params_error(params, "constructions",
                           "the list is empty; name at least one construction");
}

/// Repeatedly applies the best (or first) improving move of one neighborhood.
class Descent final : public Algorithm {
public:
    Descent(const Params& params, BuildContext& build)
        : neighborhood_(
              build.registry->create<Neighborhood>(params.get_component("neighborhood"), build)),
          pivot_(parse_pivot(params.get_string("pivot"))),
          max_steps_(static_cast<std::uint64_t>(params.get_int("max_steps"))) {}

    void run(SolutionBatch& batch, SearchContext& ctx) override {
        ctx.offer(batch);
        const DescentStats stats = descend(*neighborhood_, batch, pivot_, max_steps_, ctx);
        ctx.offer(batch);
        if (!stats.stopped && ctx.depth() == 0) ctx.set_converged();
    }

private:
    std::unique_ptr<Neighborhood> neighborhood_;
    Pivot pivot_;
    std::uint64_t max_steps_;
};

/// Parallel descent (Riise & Burke 2014): every exploration applies a greedy set of
/// pairwise independent improving moves of one neighborhood.
class ParallelDescent final : public Algorithm {
public:
    ParallelDescent(const Params& params, BuildContext& build)
        : neighborhood_(
              build.registry->create<Neighborhood>(params.get_component("neighborhood"), build)),
          options_(independent_options(params)) {
        options_.max_steps = static_cast<std::uint64_t>(params.get_int("max_steps"));
        require_independence(*neighborhood_, params.get_component("neighborhood"));
    }

    void run(SolutionBatch& batch, SearchContext& ctx) override {
        ctx.offer(batch);
        const DescentStats stats = descend_independent(*neighborhood_, batch, options_, ctx);
        ctx.offer(batch);
        if (!stats.stopped && ctx.depth() == 0) ctx.set_converged();
    }

private:
    std::unique_ptr<Neighborhood> neighborhood_;
    IndependentDescentOptions options_;
};

/// Variable neighborhood descent: descends in neighborhood k; after an improvement found by
/// neighborhood k > 0 restarts from the first one; ends when no neighborhood improves any
/// solution of the batch (every solution is then locally optimal for all neighborhoods).
class Vnd final : public Algorithm {
public:
    Vnd(const Params& params, BuildContext& build)
        : pivot_(parse_pivot(params.get_string("pivot"))), parallel_(params.get_bool("parallel")),
          options_(independent_options(params)) {
        for (const auto& child : params.get_components("neighborhoods")) {
            neighborhoods_.push_back(build.registry->create<Neighborhood>(*child, build));
            if (parallel_) require_independence(*neighborhoods_.back(), *child);
        }
    }

    void run(SolutionBatch& batch, SearchContext& ctx) override {
        ctx.offer(batch);
        std::size_t k = 0;
        bool stopped = false;
        while (k < neighborhoods_.size()) {
            const DescentStats stats =
                parallel_ ? descend_independent(*neighborhoods_[k], batch, options_, ctx)
                          : descend(*neighborhoods_[k], batch, pivot_, 0, ctx);
            if (stats.stopped) {
                stopped = true;
                break;
            }
            k = (stats.steps > 0 && k > 0) ? 0 : k + 1;
        }
        ctx.offer(batch);
        if (!stopped && ctx.depth() == 0) ctx.set_converged();
    }

private:
    std::vector<std::unique_ptr<Neighborhood>> neighborhoods_;
    Pivot pivot_;
    bool parallel_;
    IndependentDescentOptions options_;
};

/// The constructed solutions as they are: offered once, no search (a baseline, and the way to
/// write and verify what a construction builds).
class ConstructionOnly final : public Algorithm {
public:
    void run(SolutionBatch& batch, SearchContext& ctx) override {
        ctx.offer(batch);
        if (ctx.depth() == 0) ctx.set_converged();
    }
};

/// The `mixed` construction of the constructions of `params` (check_mixed has refused none).
std::unique_ptr<Component> build_mixed(const Params& params, BuildContext& build) {
    std::vector<std::unique_ptr<Construction>> parts;
    for (const auto& child : params.get_components("constructions"))
        parts.push_back(build.registry->create<Construction>(*child, build));
    return std::make_unique<MixedConstruction>(std::move(parts));
}

/// The parameters of the parallel descent's selection.
void independent_parameters(ComponentSchema& schema) {
    schema.integer("max_moves", "0",
                   "most independent moves applied per exploration and solution (0 = all "
                   "selected; 1 = best improvement)",
                   0);
    schema.integer("capacity", std::to_string(kDefaultIndependentCapacity),
                   "improving moves collected per exploration and solution (those of lowest "
                   "index); the selection picks from them",
                   1, 1 << 24);
}

void register_components(Registry& registry) {
    ComponentSchema descent{"algorithm", "descent", "",
                            "Descent: applies the best (or lowest-index improving) move of one "
                            "neighborhood until no move improves."};
    descent.component("neighborhood", "neighborhood", "", "neighborhood to descend in").required();
    descent.choice("pivot", "best", {"best", "first"},
                   "best: minimal delta (ties: lowest index); first: lowest-index improving move");
    descent.integer("max_steps", "0",
                    "maximum number of explorations, each applying at most one move per solution "
                    "(0 = to a local optimum)",
                    0);
    registry.add(descent, [](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
        return std::make_unique<Descent>(p, b);
    });

    ComponentSchema parallel{"algorithm", "parallel_descent", "",
                             "Parallel descent (Riise & Burke): every exploration evaluates the "
                             "whole neighborhood and applies a greedy set (by gain) of pairwise "
                             "independent improving moves together, until none improves. Needs "
                             "a neighborhood with an independence rule (TSP two_opt, or_opt, "
                             "swap; QAP swap)."};
    parallel.component("neighborhood", "neighborhood", "", "neighborhood to descend in")
        .required();
    parallel.integer("max_steps", "0", "maximum number of explorations (0 = to a local optimum)",
                     0);
    independent_parameters(parallel);
    registry.add(parallel, [](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
        return std::make_unique<ParallelDescent>(p, b);
    });

    ComponentSchema vnd{"algorithm", "vnd", "",
                        "Variable neighborhood descent over an ordered list of neighborhoods."};
    vnd.component_list("neighborhoods", "neighborhood", "", "neighborhoods in order").required();
    vnd.choice("pivot", "best", {"best", "first"}, "pivoting rule of each descent");
    vnd.boolean("parallel", "false",
                "descend with the parallel descent of independent moves (as parallel_descent) "
                "instead of one move per exploration; pivot is then unused");
    independent_parameters(vnd);
    registry.add(vnd,
                 CheckedFactory{check_vnd,
                                [](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
                                    return std::make_unique<Vnd>(p, b);
                                }});

    ComponentSchema mixed{"construction", "mixed", "",
                          "Contiguous blocks of the batch from different constructions: of N "
                          "solutions and k constructions, solutions [j N / k, (j + 1) N / k) "
                          "come from the j-th (with islands: k islands, each from its own)."};
    mixed.component_list("constructions", "construction", "", "constructions in block order")
        .required();
    registry.add(mixed, CheckedFactory{check_mixed, build_mixed});

    ComponentSchema only{"algorithm", "construction_only", "",
                         "The construction's solutions as they are, without search: the best "
                         "of the batch is recorded."};
    registry.add(only, [](const Params&, BuildContext&) -> std::unique_ptr<Component> {
        return std::make_unique<ConstructionOnly>();
    });
}

} // namespace
} // namespace locus

LOCUS_PLUGIN("local_search", "Descent (best/first improvement) and variable neighborhood descent",
             locus::register_components)
