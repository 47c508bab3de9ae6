#pragma once
/// \file
/// Resident iterated local search: many ILS chains, each running its whole loop (local double
/// bridge, VND over candidate-list 2-opt and Or-opt with focus, "better or equal" acceptance)
/// without leaving its team of threads: one CUDA block per chain on the GPU (the ILS-block
/// strategy of Delévacq et al.), one CPU thread per chain in the CPU twin. The chain routine is
/// written once over a Team (rank, size, sync, reduce), so both backends make the same decisions
/// and produce the same tours for the same seed.

#include <cstdint>

#include "locus/gpu/team.hpp"
#include "locus/rng.hpp"
#include "locus/tsp/double_bridge.hpp"
#include "locus/tsp/evaluators.hpp"
#include "locus/tsp/moves.hpp"

namespace locus::tsp {

/// Parameters of the resident ILS.
struct ResidentIlsOptions {
    std::int32_t candidates = 10; ///< candidate-list size K of both neighborhoods
    std::int32_t window = 100;    ///< double-bridge window (0 = whole tour)
    std::uint32_t epoch = 20;     ///< ILS iterations per chain between synchronisations
    bool share_best = true;       ///< after each epoch every chain continues from the best tour
};

/// Chain-major state of all chains (host or device pointers): chain c owns [c*n, (c+1)*n) of
/// the tour arrays, [c*(n+1), ...) of P, and element c of the per-chain scalars.
template <class Metric> struct ChainArrays {
    using point_type = typename Metric::point_type;
    Metric metric;
    const std::int32_t* candidates = nullptr; ///< n x K
    std::int32_t n = 0;
    std::int32_t K = 0;
    std::int32_t window = 0;
    std::int32_t* current = nullptr;
    std::int32_t* trial = nullptr;
    std::int32_t* best = nullptr;
    std::int32_t* pos = nullptr;
    point_type* P = nullptr;
    std::int32_t* D = nullptr;
    std::uint8_t* focus_bits = nullptr;
    std::int32_t* focus_list = nullptr; ///< focused cities in insertion order
    std::int32_t* focus_count = nullptr;
    std::int32_t* scratch = nullptr;
    std::int32_t* active_list = nullptr;   ///< cities a descent still searches from (don't-look bits)
    std::int32_t* active_count = nullptr;
    std::uint8_t* active_bits = nullptr;
    std::uint8_t* improving = nullptr;     ///< per active entry: an improving move was seen
    std::int64_t* current_objective = nullptr;
    std::int64_t* trial_objective = nullptr;
    std::int64_t* best_objective = nullptr;
    unsigned long long* evaluations = nullptr;

    LOCUS_HD_INLINE std::int64_t at(std::uint32_t chain) const {
        return static_cast<std::int64_t>(chain) * n;
    }
};

namespace resident {

LOCUS_EXEC_CHECK_DISABLE
template <class Team, class Metric>
LOCUS_HD_INLINE void copy_tour(const Team& team, std::int32_t* to, const std::int32_t* from, std::int32_t n) {
    for (std::int32_t k = team.rank(); k < n; k += team.size()) to[k] = from[k];
}

/// Rebuilds pos, P and D of the trial tour of `chain`.
LOCUS_EXEC_CHECK_DISABLE
template <class Team, class Metric>
LOCUS_HD_INLINE void rebuild(const Team& team, const ChainArrays<Metric>& a, std::uint32_t chain) {
    const std::int32_t n = a.n;
    const std::int32_t* tour = a.trial + a.at(chain);
    std::int32_t* pos = a.pos + a.at(chain);
    auto* P = a.P + static_cast<std::int64_t>(chain) * (n + 1);
    std::int32_t* D = a.D + a.at(chain);
    for (std::int32_t k = team.rank(); k < n; k += team.size()) {
        P[k] = a.metric.point(tour[k]);
        pos[tour[k]] = k;
    }
    if (team.rank() == 0) P[n] = a.metric.point(tour[0]);
    team.sync();
    for (std::int32_t k = team.rank(); k < n; k += team.size()) D[k] = a.metric(P[k], P[k + 1]);
    team.sync();
}

/// Leader only: adds a city to the focus (once).
LOCUS_EXEC_CHECK_DISABLE
template <class Metric>
LOCUS_HD_INLINE void focus_city(const ChainArrays<Metric>& a, std::uint32_t chain, std::int32_t city) {
    std::uint8_t* bits = a.focus_bits + a.at(chain);
    if (bits[city] != 0) return;
    bits[city] = 1;
    a.focus_list[a.at(chain) + a.focus_count[chain]] = city;
    ++a.focus_count[chain];
}

/// Leader only: empties the focus.
LOCUS_EXEC_CHECK_DISABLE
template <class Metric>
LOCUS_HD_INLINE void clear_focus(const ChainArrays<Metric>& a, std::uint32_t chain) {
    std::uint8_t* bits = a.focus_bits + a.at(chain);
    const std::int32_t* list = a.focus_list + a.at(chain);
    for (std::int32_t f = 0; f < a.focus_count[chain]; ++f) bits[list[f]] = 0;
    a.focus_count[chain] = 0;
}

/// Descends in one candidate neighborhood (Eval) from the focused cities until no active city
/// has an improving move; returns true if a move was applied. Don't-look bits: a city stays
/// active while one of its rows held an improving move in the last exploration, and the cities
/// at the ends of every applied move's edges become active (and join the chain's focus). The
/// best move is the minimal delta, ties to the lowest index, exactly as the neighborhood engine
/// selects.
LOCUS_EXEC_CHECK_DISABLE
template <template <class, class> class Space, class Delta, class Team, class Metric>
LOCUS_HD bool descend(const Team& team, const ChainArrays<Metric>& a, std::uint32_t chain) {
    using Eval = Space<Metric, Delta>;
    std::int32_t* active = a.active_list + a.at(chain);
    std::uint8_t* active_bits = a.active_bits + a.at(chain);
    std::uint8_t* improving = a.improving + a.at(chain);
    const std::int32_t* focus = a.focus_list + a.at(chain);
    const std::int32_t focused = a.focus_count[chain];
    for (std::int32_t f = team.rank(); f < focused; f += team.size()) {
        active[f] = focus[f];
        active_bits[focus[f]] = 1;
        improving[f] = 0;
    }
    if (team.rank() == 0) a.active_count[chain] = focused;
    team.sync();
    TourBatchView<Metric> v;
    v.metric = a.metric;
    v.tour = a.trial + a.at(chain);
    v.P = a.P + static_cast<std::int64_t>(chain) * (a.n + 1);
    v.D = a.D + a.at(chain);
    v.pos = a.pos + a.at(chain);
    v.candidates = a.candidates;
    v.focus_list = active;
    v.focus_count = a.active_count + chain;
    v.n = a.n;
    v.K = a.K;
    bool improved = false;
    for (;;) {
        v.focus_rows = a.active_count[chain];
        const Eval eval{v};
        const gpu::MoveGrid grid = eval.grid();
        const std::uint64_t total = grid.size();
        gpu::MoveResult<Delta> best{gpu::invalid_delta<Delta>(), kNoMove};
        for (std::uint64_t index = static_cast<std::uint64_t>(team.rank()); index < total;
             index += static_cast<std::uint64_t>(team.size())) {
            const auto r = static_cast<std::uint32_t>(index / grid.cols);
            const Delta d = eval(eval.row(0, r), static_cast<std::uint32_t>(index % grid.cols));
            if (d < Delta(0)) improving[r / static_cast<std::uint32_t>(Eval::rows_per_focus)] = 1;
            if (d < best.delta) best = {d, index};
        }
        team.argmin(best.delta, best.index); // ends with a barrier: improving flags visible
        const bool apply = best.found() && best.delta < 0;
        TourMove m;
        if (apply) m = eval.decode(0, best.index);
        std::int32_t* tour = a.trial + a.at(chain);
        team.sync(); // every rank decoded before the lists and the tour change
        // Keep the active cities that still have an improving move, in order.
        const std::uint32_t count = static_cast<std::uint32_t>(a.active_count[chain]);
        for (std::uint32_t f = team.rank(); f < count; f += team.size())
            if (improving[f] == 0) active_bits[active[f]] = 0;
        auto kept = static_cast<std::int32_t>(gpu::compact(
            team, count, [&](std::uint32_t f) { return active[f]; },
            [&](std::uint32_t f) { return improving[f] != 0; },
            [&](std::uint32_t k, std::int32_t city) { active[k] = city; }));
        for (std::uint32_t f = team.rank(); f < count; f += team.size()) improving[f] = 0;
        team.sync();
        if (team.rank() == 0) {
            a.evaluations[chain] += total;
            if (apply) {
                std::int32_t touched[6];
                const int n_touched = touched_cities(m, tour, a.n, touched);
                for (int k = 0; k < n_touched; ++k) {
                    focus_city(a, chain, touched[k]);
                    if (active_bits[touched[k]] == 0) {
                        active_bits[touched[k]] = 1;
                        improving[kept] = 0;
                        active[kept++] = touched[k];
                    }
                }
                a.trial_objective[chain] += best.delta;
            }
            a.active_count[chain] = kept;
        }
        team.sync();
        if (!apply) break;
        const ReversalPlan plan = plan_reversals(m, a.n);
        for (int q = 0; q < plan.count; ++q) {
            for (std::int32_t k = team.rank(); k < plan.length[q] / 2; k += team.size()) {
                const std::int32_t x = wrap(plan.first[q] + k, a.n);
                const std::int32_t y = wrap(plan.first[q] + plan.length[q] - 1 - k, a.n);
                const std::int32_t t = tour[x];
                tour[x] = tour[y];
                tour[y] = t;
            }
            team.sync();
        }
        rebuild(team, a, chain);
        improved = true;
    }
    // Leave every active bit clear for the next descent.
    const std::int32_t left = a.active_count[chain];
    for (std::int32_t f = team.rank(); f < left; f += team.size()) active_bits[active[f]] = 0;
    team.sync();
    return improved;
}

/// VND: 2-opt, then Or-opt; back to 2-opt after an Or-opt improvement.
LOCUS_EXEC_CHECK_DISABLE
template <class Delta, class Team, class Metric>
LOCUS_HD void vnd(const Team& team, const ChainArrays<Metric>& a, std::uint32_t chain) {
    int k = 0;
    while (k < 2) {
        const bool improved = k == 0 ? descend<TwoOptCandidates, Delta>(team, a, chain)
                                     : descend<OrOptCandidates, Delta>(team, a, chain);
        k = (improved && k > 0) ? 0 : k + 1;
    }
}

/// Leader only: local double bridge on the trial tour from the stream of (seed, chain,
/// iteration); the focus becomes the six cities at the ends of the removed edges.
LOCUS_EXEC_CHECK_DISABLE
template <class Metric>
LOCUS_HD void perturb(const ChainArrays<Metric>& a, std::uint32_t chain, std::uint64_t seed,
                      std::uint64_t iteration) {
    const std::int32_t n = a.n;
    clear_focus(a, chain);
    if (n < 8) return;
    Rng rng(derive_key(seed, chain, iteration), 0);
    const BridgeCut cut = draw_bridge(rng, n, a.window);
    std::int32_t ends[6];
    const Metric& metric = a.metric;
    const auto distance = [&metric](std::int32_t x, std::int32_t y) { return metric.distance(x, y); };
    a.trial_objective[chain] +=
        apply_bridge(a.trial + a.at(chain), n, cut, distance, a.scratch + a.at(chain), ends);
    for (std::int32_t city : ends) focus_city(a, chain, city);
}

/// Leader only: focus on every city (the initial descent from a constructed tour).
LOCUS_EXEC_CHECK_DISABLE
template <class Metric>
LOCUS_HD_INLINE void focus_all(const ChainArrays<Metric>& a, std::uint32_t chain) {
    clear_focus(a, chain);
    for (std::int32_t c = 0; c < a.n; ++c) focus_city(a, chain, c);
}

} // namespace resident

/// Runs `iterations` ILS iterations of one chain (numbered from `first_iteration`); with
/// `initialize`, first descends from the trial tour and makes it the current and best tour.
LOCUS_EXEC_CHECK_DISABLE
template <class Delta, class Team, class Metric>
LOCUS_HD void run_chain(const Team& team, const ChainArrays<Metric>& a, std::uint32_t chain,
                        std::uint64_t seed, std::uint64_t first_iteration, std::uint32_t iterations,
                        bool initialize) {
    using namespace resident;
    const std::int32_t n = a.n;
    std::int32_t* trial = a.trial + a.at(chain);
    std::int32_t* current = a.current + a.at(chain);
    std::int32_t* best = a.best + a.at(chain);
    if (initialize) {
        if (team.rank() == 0) focus_all(a, chain);
        rebuild(team, a, chain);
        vnd<Delta>(team, a, chain);
        copy_tour<Team, Metric>(team, current, trial, n);
        copy_tour<Team, Metric>(team, best, trial, n);
        if (team.rank() == 0) {
            a.current_objective[chain] = a.trial_objective[chain];
            a.best_objective[chain] = a.trial_objective[chain];
        }
        team.sync();
    }
    for (std::uint32_t it = 0; it < iterations; ++it) {
        copy_tour<Team, Metric>(team, trial, current, n);
        if (team.rank() == 0) a.trial_objective[chain] = a.current_objective[chain];
        team.sync();
        if (team.rank() == 0) perturb(a, chain, seed, first_iteration + it);
        team.sync();
        rebuild(team, a, chain);
        vnd<Delta>(team, a, chain);
        const std::int64_t value = a.trial_objective[chain];
        if (value <= a.current_objective[chain]) {
            copy_tour<Team, Metric>(team, current, trial, n);
            if (value < a.best_objective[chain]) copy_tour<Team, Metric>(team, best, trial, n);
        }
        team.sync();
        if (team.rank() == 0 && value <= a.current_objective[chain]) {
            a.current_objective[chain] = value;
            if (value < a.best_objective[chain]) a.best_objective[chain] = value;
        }
        team.sync();
    }
}

} // namespace locus::tsp
