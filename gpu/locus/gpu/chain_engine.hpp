#pragma once
/// \file
/// The many-chain engine: many local-search chains resident on one backend, each running its
/// whole loop — perturb, descend (VND over a compile-time list of neighborhoods, don't-look bits),
/// accept — without leaving its team of threads (one CUDA block per chain, or one CPU thread per
/// chain in the CPU twin). The chain routine is written once over a Team (team.hpp), so both
/// backends make the same decisions and give the same solutions for the same seed. Kernels and
/// the CUDA runner are in chain_engine.cuh; the host loop and registration in chain_search.hpp.
///
/// A problem supplies a chain policy P: a trivially copyable functor holding its instance data
/// and its workspace pointers (host or device), all members LOCUS_HD and const:
///   delta_type, move_type               signed integer delta; trivially copyable decoded move
///   kNeighborhoods, kMaxTouched         neighborhoods of the VND; most elements a move touches
///   width(), elements()                 int32 words of a solution; elements of the don't-look
///                                       bits and the focus (cities, positions, ...)
///   declare(list, chains)               host: adds its per-chain workspace arrays to `list`
///                                       (a storage list binding the policy's own pointers)
///   refresh(team, chain, solution)      rebuilds the chain's workspace from its solution; or
///   refresh(team, chain, solution, halt)
///                                       the same, ending early once the halt flag (may be
///                                       null) is raised (a QAP table is n^3 steps): the
///                                       chain's search then ends before reading it
///   evaluator<k>(chain, solution, active, count)
///                                       neighborhood k as a grid (grid(), row(0, r), cell
///                                       deltas, decode(0, index) -> move_type); focused
///                                       neighborhoods (focused<k>() true) have rows_per_focus
///                                       rows per active element: active[0, *count)
///   touched(solution, move, out)        the elements whose neighbourhood the move changes
///   apply(team, chain, solution, move)  applies the move and updates the workspace
///                                       incrementally; ends synchronised
///   perturb(chain, solution, rng, out, count)
///                                       leader only: perturbs, returns the objective change,
///                                       writes the touched elements (at most width()); or
///   perturb(team, chain, solution, rng, out, count)
///                                       the same by the whole team (TeamPerturbing below),
///                                       which leaves the workspace refreshed
///   evaluate(team, chain, solution)     full objective (every thread gets it)
/// and optionally recombine(chain, a, b, child, rng) (leader only; a permutation child of two
/// parents) for the recombining exchange.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "locus/error.hpp"
#include "locus/gpu/cpu_threads.hpp"
#include "locus/gpu/exact_math.hpp"
#include "locus/gpu/neighborhood_engine.hpp"
#include "locus/gpu/storage.hpp"
#include "locus/gpu/team.hpp"
#include "locus/gpu/watchdog.hpp"
#include "locus/hd.hpp"
#include "locus/rng.hpp"
#include "locus/rng_salts.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace locus::gpu {

/// How a chain decides whether its perturbed and descended trial replaces its current solution.
enum class AcceptanceKind : std::int32_t {
    better_or_equal = 0, ///< trial <= current
    threshold = 1,       ///< trial <= current + threshold (threshold accepting)
    annealing = 2,       ///< Metropolis: uphill with probability exp(-delta / T_iteration)
};

/// Acceptance as a device policy (host-built constants, identical decisions on both backends).
struct Acceptance {
    AcceptanceKind kind = AcceptanceKind::better_or_equal;
    std::int64_t threshold = 0; ///< threshold: largest accepted uphill step (objective units)
    double temperature = 0.0;   ///< annealing: T at iteration 0 (objective units)
    double log_cooling = 0.0;   ///< annealing: ln of the per-iteration cooling factor (<= 0)

    /// Whether `trial` replaces `current` at global iteration `iteration` of `chain`.
    LOCUS_HD_INLINE bool accept(std::int64_t trial, std::int64_t current, std::uint64_t seed,
                                std::uint32_t chain, std::uint64_t iteration) const {
        if (trial <= current) return true;
        if (kind == AcceptanceKind::threshold) return trial - current <= threshold;
        if (kind != AcceptanceKind::annealing || !(temperature > 0.0)) return false;
        const double t = mul_rn(
            temperature, exp_nonpositive(mul_rn(static_cast<double>(iteration), log_cooling)));
        if (!(t > 0.0)) return false;
        Rng rng(derive_key(seed, chain, iteration, salt::kChainAcceptance), 0);
        const double u = static_cast<double>(rng.next_u64() >> 11) * 0x1.0p-53;
        return u < exp_nonpositive(-static_cast<double>(trial - current) / t);
    }
};

/// Whether chain c descends at the start when only the first chain of each of `islands`
/// islands does (chains [i N / I, (i + 1) N / I) form island i, as the mixed construction's
/// blocks). Every chain descends when `islands` is 0, none when it exceeds `chains` (the
/// starts are taken as they are).
LOCUS_HD_INLINE bool descends_at_start(std::uint32_t c, std::uint32_t islands,
                                       std::uint32_t chains) {
    if (islands == 0) return true;
    if (islands > chains) return false;
    // The first island that begins at or after c; c leads it when it begins exactly at c.
    const std::uint64_t i = (std::uint64_t{c} * islands + chains - 1) / chains;
    return i < islands && i * chains / islands == c;
}

/// Per-launch constants of the chain routine.
struct ChainParams {
    std::uint64_t seed = 1;
    Acceptance acceptance;
    bool check_moves = false; ///< full evaluation after every applied move
    /// restart_from: the child descends from every element before its first iteration (else
    /// its first kick and descent educate it)
    bool child_descent = false;
    /// Pivoting rule of every exploration: the lowest-index improving move (first improvement)
    /// instead of the smallest delta (best improvement)
    bool first_improvement = false;
    /// CUDA mapping: one thread per chain (Delévacq et al.'s FI-thread) instead of one block
    bool thread_per_chain = false;
    /// The halt flag (null: none): once set, descents end before their next exploration and
    /// epochs before their next iteration, so that a time limit or an interrupt is honoured
    /// inside a long descent (a start on 10^5 cities). The CPU twin's flag is host memory
    /// raised by its watchdog thread; the CUDA runner's is mapped pinned host memory that the
    /// launching thread raises while it waits for the kernel.
    const volatile std::uint8_t* halt = nullptr;
};

/// Chains at least this wide are watched for the time limit in every epoch (their descents can
/// be long), narrower ones at the start only.
inline constexpr std::int32_t kWatchedChainWidth = 4096;

/// Cells each rank evaluates between two reads of the halt flag within one exploration (only
/// explorations larger than a chunk read it there).
inline constexpr std::uint64_t kHaltCells = 1024;

/// Whether the halt flag is raised: rank 0 reads it and the team agrees on its answer, so that
/// every thread of a block leaves a loop together.
template <class Team>
LOCUS_HD_INLINE bool halted(const Team& team, const ChainParams& params) {
    return raised(team, params.halt);
}

/// policy.refresh of the chain, with the halt flag for policies that read it.
LOCUS_EXEC_CHECK_DISABLE
template <class Team, class P>
LOCUS_HD_INLINE void refresh_chain(const Team& team, const P& policy, const ChainParams& params,
                                   std::uint32_t chain, std::int32_t* solution) {
    if constexpr (requires { policy.refresh(team, chain, solution, params.halt); })
        policy.refresh(team, chain, solution, params.halt);
    else
        policy.refresh(team, chain, solution);
}

/// Chain-major state of every chain (host or device pointers): chain c owns words
/// [c * width, (c + 1) * width) of the solution arrays, [c * elements, ...) of the element
/// arrays and element c of the scalars.
struct ChainArrays {
    std::int32_t width = 0;
    std::int32_t elements = 0;
    std::int32_t* current = nullptr;
    std::int32_t* trial = nullptr;
    std::int32_t* best = nullptr;
    std::int64_t* current_objective = nullptr;
    std::int64_t* trial_objective = nullptr;
    std::int64_t* best_objective = nullptr;
    unsigned long long* evaluations = nullptr;
    std::uint8_t* focus_bits = nullptr;
    std::int32_t* focus_list = nullptr; ///< elements changed in this iteration, in order
    std::int32_t* focus_count = nullptr;
    std::int32_t* active_list = nullptr; ///< elements a descent still searches from
    std::int32_t* active_count = nullptr;
    std::uint8_t* active_bits = nullptr;
    std::uint8_t* improving = nullptr; ///< per active entry: an improving move was seen
    std::int32_t* touched = nullptr;   ///< per chain: scratch for touched elements
    std::int64_t* errors = nullptr;    ///< per chain: flag, neighborhood, by delta, full

    /// Declares every array for `chains` chains.
    void declare(ArrayList& list, std::size_t chains) {
        const auto w = static_cast<std::size_t>(width);
        const auto e = static_cast<std::size_t>(elements);
        list.add(current, chains * w, "current solutions");
        list.add(trial, chains * w, "trial solutions");
        list.add(best, chains * w, "best solutions");
        list.add(current_objective, chains, "objectives");
        list.add(trial_objective, chains, "objectives");
        list.add(best_objective, chains, "objectives");
        list.add(evaluations, chains, "counters");
        list.add(focus_bits, chains * e, "focus flags");
        list.add(focus_list, chains * e, "focus lists");
        list.add(focus_count, chains, "focus counts");
        list.add(active_list, chains * e, "active lists");
        list.add(active_count, chains, "active counts");
        list.add(active_bits, chains * e, "active flags");
        list.add(improving, chains * e, "improvement flags");
        list.add(touched, chains * std::max(w, e), "touched elements");
        list.add(errors, chains * 4, "check results");
    }

    LOCUS_HD_INLINE std::int64_t solution(std::uint32_t chain) const {
        return static_cast<std::int64_t>(chain) * width;
    }
    LOCUS_HD_INLINE std::int64_t element(std::uint32_t chain) const {
        return static_cast<std::int64_t>(chain) * elements;
    }
};

/// Whether P penalises infeasibility in its descents (e.g. capacity excess of routes): the
/// descent objective (cost plus penalty terms under the chain's adaptive weights) differs from
/// the chain objective that acceptance and bests compare (e.g. feasible before infeasible).
/// Hooks, every rank calling them alike:
///   descent_objective(team, chain)   the descent objective of the refreshed workspace
///   needs_repair(team, chain)        after a descent: tallies feasibility, adapts weights;
///                                    true (weights raised) when a repair descent should run
///   repair_focus(chain, out)         leader: the elements the repair descent starts from
///                                    (at most max(width, elements)); returns their count
///   end_repair(team, chain)          the weights back after the repair descent
///   settle(team, chain)              the chain objective of the workspace's solution
///   descent_evaluate(team, chain, s) full descent objective of a solution (check_moves)
template <class P, class Team>
concept Penalising = requires(const P& p, const Team& t, std::uint32_t c, const std::int32_t* s) {
    { p.descent_objective(t, c) } -> std::same_as<std::int64_t>;
    { p.needs_repair(t, c) } -> std::same_as<bool>;
    p.end_repair(t, c);
    { p.settle(t, c) } -> std::same_as<std::int64_t>;
    { p.descent_evaluate(t, c, s) } -> std::same_as<std::int64_t>;
    { p.repair_focus(c, const_cast<std::int32_t*>(s)) } -> std::same_as<std::int32_t>;
};

namespace chain {

LOCUS_EXEC_CHECK_DISABLE
template <class Team>
LOCUS_HD_INLINE void copy(const Team& team, std::int32_t* to, const std::int32_t* from,
                          std::int32_t count) {
    for (std::int32_t k = static_cast<std::int32_t>(team.rank()); k < count;
         k += static_cast<std::int32_t>(team.size()))
        to[k] = from[k];
}

/// Leader only: adds an element to the chain's focus (once).
LOCUS_HD_INLINE void focus(const ChainArrays& a, std::uint32_t chain, std::int32_t element) {
    std::uint8_t* bits = a.focus_bits + a.element(chain);
    if (bits[element] != 0) return;
    bits[element] = 1;
    a.focus_list[a.element(chain) + a.focus_count[chain]] = element;
    ++a.focus_count[chain];
}

/// Leader only: empties the focus.
LOCUS_HD_INLINE void clear_focus(const ChainArrays& a, std::uint32_t chain) {
    std::uint8_t* bits = a.focus_bits + a.element(chain);
    const std::int32_t* list = a.focus_list + a.element(chain);
    for (std::int32_t f = 0; f < a.focus_count[chain]; ++f)
        bits[list[f]] = 0;
    a.focus_count[chain] = 0;
}

/// Full evaluation after a move (check_moves): records the first disagreement of the chain.
LOCUS_EXEC_CHECK_DISABLE
template <class P, class Team>
LOCUS_HD void check(const Team& team, const P& policy, const ChainArrays& a, std::uint32_t chain,
                    int neighborhood) {
    std::int64_t full = 0;
    if constexpr (Penalising<P, Team>)
        full = policy.descent_evaluate(team, chain, a.trial + a.solution(chain));
    else
        full = policy.evaluate(team, chain, a.trial + a.solution(chain));
    if (team.rank() == 0 && full != a.trial_objective[chain] && a.errors[4 * chain] == 0) {
        a.errors[4 * chain] = 1;
        a.errors[4 * chain + 1] = neighborhood;
        a.errors[4 * chain + 2] = a.trial_objective[chain];
        a.errors[4 * chain + 3] = full;
    }
    team.sync();
}

/// Descends in neighborhood k until no improving move is left; returns whether a move was
/// applied. The best move is the smallest delta, ties to the lowest index (as the neighborhood
/// engine selects). Focused neighborhoods start from the chain's focus and keep don't-look bits:
/// an element stays active while one of its rows held an improving move in the last
/// exploration, and the elements an applied move touches become active (and join the focus).
LOCUS_EXEC_CHECK_DISABLE
template <int k, class P, class Team>
LOCUS_HD bool descend(const Team& team, const P& policy, const ChainArrays& a,
                      const ChainParams& params, std::uint32_t chain) {
    using Delta = typename P::delta_type;
    constexpr bool kFocused = P::template focused<k>();
    std::int32_t* solution = a.trial + a.solution(chain);
    std::int32_t* active = a.active_list + a.element(chain);
    std::uint8_t* active_bits = a.active_bits + a.element(chain);
    std::uint8_t* improving = a.improving + a.element(chain);
    if constexpr (kFocused) {
        const std::int32_t* focus = a.focus_list + a.element(chain);
        const std::int32_t focused = a.focus_count[chain];
        for (std::int32_t f = static_cast<std::int32_t>(team.rank()); f < focused;
             f += static_cast<std::int32_t>(team.size())) {
            active[f] = focus[f];
            active_bits[focus[f]] = 1;
            improving[f] = 0;
        }
        if (team.rank() == 0) a.active_count[chain] = focused;
        team.sync();
    }
    bool improved = false;
    for (;;) {
        if (halted(team, params)) break;
        const std::int32_t count = kFocused ? a.active_count[chain] : 0;
        const auto eval =
            policy.template evaluator<k>(chain, solution, active, a.active_count + chain);
        const MoveGrid grid = eval.grid();
        const std::uint64_t total = grid.size();
        Delta best = invalid_delta<Delta>();
        std::uint64_t best_index = kNoMove;
        // First improvement ranks the improving cells by index alone (key = index) and every
        // other cell last; best improvement by delta, ties to the lowest index.
        std::uint64_t first_key = kNoMove;
        // NOTE: explorations of 10^6 elements take seconds on one block: past kHaltCells cells
        // per rank the halt flag is read between chunks, and a halted exploration is dropped.
        const std::uint64_t chunk = static_cast<std::uint64_t>(team.size()) * kHaltCells;
        bool cut = false;
        for (std::uint64_t base = 0; base < total && !cut; base += chunk) {
            if (base != 0 && halted(team, params)) {
                cut = true;
                break;
            }
            const std::uint64_t end = total - base < chunk ? total : base + chunk;
            for (std::uint64_t index = base + team.rank(); index < end; index += team.size()) {
                const auto r = static_cast<std::uint32_t>(index / grid.cols);
                const Delta d = eval(eval.row(0, r), static_cast<std::uint32_t>(index % grid.cols));
                if constexpr (kFocused) {
                    if (d < Delta(0))
                        improving[r / static_cast<std::uint32_t>(
                                          std::remove_cvref_t<decltype(eval)>::rows_per_focus)] = 1;
                }
                if (params.first_improvement) {
                    if (d < Delta(0) && index < first_key) {
                        first_key = index;
                        best = d;
                        best_index = index;
                    }
                } else if (d < best) {
                    best = d;
                    best_index = index;
                }
            }
        }
        if (cut) {
            if constexpr (kFocused) {
                for (std::int32_t f = static_cast<std::int32_t>(team.rank()); f < count;
                     f += static_cast<std::int32_t>(team.size()))
                    improving[f] = 0;
                team.sync();
            }
            break;
        }
        if (params.first_improvement) {
            // The lowest improving index; its delta is recomputed by every rank.
            team.argmin(first_key, best_index);
            best_index = first_key;
            best = best_index == kNoMove
                       ? invalid_delta<Delta>()
                       : eval(eval.row(0, static_cast<std::uint32_t>(best_index / grid.cols)),
                              static_cast<std::uint32_t>(best_index % grid.cols));
        } else {
            team.argmin(best, best_index); // ends with a barrier: the improving flags are visible
        }
        const bool apply = best_index != kNoMove && best < Delta(0);
        typename P::move_type move{};
        if (apply) move = eval.decode(0, best_index);
        team.sync(); // every rank decoded before the lists and the solution change
        std::int32_t kept = 0;
        if constexpr (kFocused) {
            const auto listed = static_cast<std::uint32_t>(count);
            for (std::uint32_t f = team.rank(); f < listed; f += team.size())
                if (improving[f] == 0) active_bits[active[f]] = 0;
            kept = static_cast<std::int32_t>(compact(
                team, listed, [&](std::uint32_t f) { return active[f]; },
                [&](std::uint32_t f) { return improving[f] != 0; },
                [&](std::uint32_t slot, std::int32_t element) { active[slot] = element; }));
            for (std::uint32_t f = team.rank(); f < listed; f += team.size())
                improving[f] = 0;
            team.sync();
        }
        if (team.rank() == 0) {
            a.evaluations[chain] += total;
            if (apply) {
                std::int32_t* touched =
                    a.touched +
                    chain * static_cast<std::int64_t>(a.width > a.elements ? a.width : a.elements);
                const int n_touched = policy.touched(solution, move, touched);
                for (int t = 0; t < n_touched; ++t) {
                    focus(a, chain, touched[t]);
                    if (kFocused && active_bits[touched[t]] == 0) {
                        active_bits[touched[t]] = 1;
                        improving[kept] = 0;
                        active[kept++] = touched[t];
                    }
                }
                a.trial_objective[chain] += static_cast<std::int64_t>(best);
            }
            if (kFocused) a.active_count[chain] = kept;
        }
        team.sync();
        if (!apply) break;
        policy.apply(team, chain, solution, move);
        if (params.check_moves) check(team, policy, a, chain, k);
        improved = true;
    }
    if constexpr (kFocused) {
        // Leave every active bit clear for the next descent.
        const std::int32_t left = a.active_count[chain];
        for (std::int32_t f = static_cast<std::int32_t>(team.rank()); f < left;
             f += static_cast<std::int32_t>(team.size()))
            active_bits[active[f]] = 0;
        team.sync();
    }
    return improved;
}

/// Descends in neighborhood `k` (run-time index) of P's list.
LOCUS_EXEC_CHECK_DISABLE
template <int First, class P, class Team>
LOCUS_HD bool descend_in(int k, const Team& team, const P& policy, const ChainArrays& a,
                         const ChainParams& params, std::uint32_t chain) {
    if constexpr (First < P::kNeighborhoods) {
        if (k == First) return descend<First>(team, policy, a, params, chain);
        return descend_in<First + 1>(k, team, policy, a, params, chain);
    } else {
        return false;
    }
}

/// Whether P has a variable-depth move tried when its neighborhoods are exhausted:
/// deepen(team, chain, solution, from, count, tried, out, touched) searches from the elements
/// from[0, count) in order, applies the first improving move it finds and returns its
/// objective change (< 0) on every rank, the leader writing the elements it touched to `out`
/// and every rank their count to `touched` (at most max(width, elements)); 0 and the solution
/// unchanged when none improves. `tried`: how many entries of `from` it searched from.
/// deepens(): whether the move is on for this run.
template <class P, class Team>
concept Deepening = requires(const P& p, const Team& t, std::uint32_t c, std::int32_t* s,
                             std::int32_t& count) {
    { p.deepens() } -> std::same_as<bool>; // the move is on (else the VND ends as without it)
    { p.deepen(t, c, s, s, count, count, s, count) } -> std::same_as<std::int64_t>;
};

/// Variable neighborhood descent over P's neighborhoods in order: after an improvement by
/// neighborhood k > 0 it restarts from the first. A Deepening policy's variable-depth move
/// runs from the iteration's focus when no neighborhood improves; what it touches joins the
/// focus, and the VND starts again.
LOCUS_EXEC_CHECK_DISABLE
template <class P, class Team>
LOCUS_HD void vnd(const Team& team, const P& policy, const ChainArrays& a,
                  const ChainParams& params, std::uint32_t chain) {
    // The focus entries the variable-depth move has searched from: the focus only grows (by
    // appending), so each entry is tried once per descent, as a don't-look bit would allow.
    std::int32_t searched = 0;
    for (;;) {
        int k = 0;
        while (k < P::kNeighborhoods) {
            const bool improved = descend_in<0>(k, team, policy, a, params, chain);
            k = (improved && k > 0) ? 0 : k + 1;
        }
        if constexpr (Deepening<P, Team>) {
            if (!policy.deepens() || halted(team, params)) return;
            std::int32_t* touched =
                a.touched +
                chain * static_cast<std::int64_t>(a.width > a.elements ? a.width : a.elements);
            const std::int32_t focused = a.focus_count[chain];
            team.sync(); // every rank read the count before the leader extends the focus
            std::int32_t count = 0;
            std::int32_t tried = 0;
            const std::int64_t change = policy.deepen(
                team, chain, a.trial + a.solution(chain), a.focus_list + a.element(chain) + searched,
                focused - searched, tried, touched, count);
            searched += tried;
            if (change >= 0) return;
            if (team.rank() == 0) {
                a.trial_objective[chain] += change;
                for (std::int32_t t = 0; t < count; ++t)
                    focus(a, chain, touched[t]);
            }
            team.sync();
            if (params.check_moves) check(team, policy, a, chain, P::kNeighborhoods);
        } else {
            return;
        }
    }
}

/// Leader writes the chain's trial objective; ends synchronised.
LOCUS_EXEC_CHECK_DISABLE
template <class Team>
LOCUS_HD_INLINE void set_trial(const Team& team, const ChainArrays& a, std::uint32_t chain,
                               std::int64_t value) {
    if (team.rank() == 0) a.trial_objective[chain] = value;
    team.sync();
}

/// The descent of an iteration (or of the start) from the refreshed trial: the VND; for a
/// penalising policy in its descent objective, with a repair descent under raised weights
/// when the result is infeasible, and the trial objective then set to the chain objective.
LOCUS_EXEC_CHECK_DISABLE
template <class P, class Team>
LOCUS_HD void educate(const Team& team, const P& policy, const ChainArrays& a,
                      const ChainParams& params, std::uint32_t chain) {
    if constexpr (Penalising<P, Team>) {
        set_trial(team, a, chain, policy.descent_objective(team, chain));
        vnd(team, policy, a, params, chain);
        if (policy.needs_repair(team, chain)) {
            // The repair descent searches from the elements the policy names (e.g. the
            // customers of the routes over a limit).
            if (team.rank() == 0) {
                std::int32_t* listed =
                    a.touched +
                    chain * static_cast<std::int64_t>(a.width > a.elements ? a.width : a.elements);
                const std::int32_t count = policy.repair_focus(chain, listed);
                clear_focus(a, chain);
                for (std::int32_t t = 0; t < count; ++t)
                    focus(a, chain, listed[t]);
            }
            set_trial(team, a, chain, policy.descent_objective(team, chain));
            vnd(team, policy, a, params, chain);
            policy.end_repair(team, chain);
        }
        set_trial(team, a, chain, policy.settle(team, chain));
    } else {
        vnd(team, policy, a, params, chain);
    }
}

} // namespace chain

/// Whether P perturbs with the whole team: perturb(team, chain, solution, rng, out, count) is
/// called by every rank with the same random stream, returns the objective change on every
/// rank, writes the touched elements (leader) and their count (every rank), and leaves the
/// workspace refreshed for the solution.
template <class P, class Team>
concept TeamPerturbing = requires(const P& p, const Team& t, std::uint32_t c, std::int32_t* s,
                                  Rng& rng, std::int32_t& count) {
    { p.perturb(t, c, s, rng, s, count) } -> std::same_as<std::int64_t>;
};

/// Runs `iterations` iterations of one chain (numbered from `first_iteration`); with
/// `initialize`, first descends from the trial solution (focus on every element) and makes the
/// result the current and best solution. Every thread of the team calls it alike.
LOCUS_EXEC_CHECK_DISABLE
template <class P, class Team>
LOCUS_HD void run_chain(const Team& team, const P& policy, const ChainArrays& a,
                        const ChainParams& params, std::uint32_t chain,
                        std::uint64_t first_iteration, std::uint32_t iterations, bool initialize) {
    const std::int32_t width = a.width;
    std::int32_t* trial = a.trial + a.solution(chain);
    std::int32_t* current = a.current + a.solution(chain);
    std::int32_t* best = a.best + a.solution(chain);
    if (initialize) {
        if (team.rank() == 0) {
            chain::clear_focus(a, chain);
            for (std::int32_t e = 0; e < a.elements; ++e)
                chain::focus(a, chain, e);
        }
        team.sync();
        refresh_chain(team, policy, params, chain, trial);
        chain::educate(team, policy, a, params, chain);
        chain::copy(team, current, trial, width);
        chain::copy(team, best, trial, width);
        if (team.rank() == 0) {
            a.current_objective[chain] = a.trial_objective[chain];
            a.best_objective[chain] = a.trial_objective[chain];
        }
        team.sync();
    }
    for (std::uint32_t it = 0; it < iterations; ++it) {
        if (halted(team, params)) break;
        const std::uint64_t iteration = first_iteration + it;
        chain::copy(team, trial, current, width);
        if (team.rank() == 0) a.trial_objective[chain] = a.current_objective[chain];
        team.sync();
        std::int32_t* touched =
            a.touched + chain * static_cast<std::int64_t>(width > a.elements ? width : a.elements);
        if constexpr (TeamPerturbing<P, Team>) {
            if (team.rank() == 0) chain::clear_focus(a, chain);
            team.sync();
            Rng rng(derive_key(params.seed, chain, iteration), 0); // the same draws on every rank
            std::int32_t count = 0;
            const std::int64_t change = policy.perturb(team, chain, trial, rng, touched, count);
            if (team.rank() == 0) {
                a.trial_objective[chain] += change;
                for (std::int32_t t = 0; t < count; ++t)
                    chain::focus(a, chain, touched[t]);
            }
            team.sync();
        } else {
            if (team.rank() == 0) {
                chain::clear_focus(a, chain);
                Rng rng(derive_key(params.seed, chain, iteration), 0);
                std::int32_t count = 0;
                a.trial_objective[chain] += policy.perturb(chain, trial, rng, touched, count);
                for (std::int32_t t = 0; t < count; ++t)
                    chain::focus(a, chain, touched[t]);
            }
            team.sync();
            refresh_chain(team, policy, params, chain, trial);
        }
        chain::educate(team, policy, a, params, chain);
        const std::int64_t value = a.trial_objective[chain];
        const bool accepted = params.acceptance.accept(value, a.current_objective[chain],
                                                       params.seed, chain, iteration);
        if (accepted) {
            chain::copy(team, current, trial, width);
            if (value < a.best_objective[chain]) chain::copy(team, best, trial, width);
        }
        team.sync();
        if (team.rank() == 0 && accepted) {
            a.current_objective[chain] = value;
            if (value < a.best_objective[chain]) a.best_objective[chain] = value;
        }
        team.sync();
    }
}

/// Whether P supplies a recombination operator.
template <class P>
concept Recombining = requires(const P& p, std::uint32_t c, const std::int32_t* s,
                               std::int32_t* out, Rng& rng) {
    p.recombine(c, s, s, out, rng);
};

/// Whether P's chains may run one per CUDA thread (mapping: thread): P sets
/// `static constexpr bool kThreadMapping = true`. Policies opt in, as the extra kernel costs
/// compile time and suits only policies whose routine is cheap for one thread.
template <class P>
concept ThreadMapped = requires { requires P::kThreadMapping; };

/// Chain c's child of parents `first` and `second` (the leader recombines with the chain's
/// random stream of the round), evaluated by the team: its objective on every rank.
LOCUS_EXEC_CHECK_DISABLE
template <class P, class Team>
LOCUS_HD std::int64_t recombine_child(const Team& team, const P& policy, std::uint64_t seed,
                                      std::uint32_t chain, std::uint64_t round,
                                      const std::int32_t* first, const std::int32_t* second,
                                      std::int32_t* child) {
    if (team.rank() == 0) {
        Rng rng(derive_key(seed, chain, round, salt::kChainRecombination), 0);
        policy.recombine(chain, first, second, child, rng);
    }
    team.sync();
    return policy.evaluate(team, chain, child);
}

/// Chain c restarts from the child of `first` and `second` (recombined into its trial): with
/// child_descent it descends from every element as from a start, else the child itself
/// becomes the chain's current and best solution. Ends synchronised.
LOCUS_EXEC_CHECK_DISABLE
template <class P, class Team>
LOCUS_HD void restart_chain(const Team& team, const P& policy, const ChainArrays& a,
                            const ChainParams& params, std::uint32_t chain, std::uint64_t round,
                            const std::int32_t* first, const std::int32_t* second) {
    std::int32_t* child = a.trial + a.solution(chain);
    const std::int64_t value =
        recombine_child(team, policy, params.seed, chain, round, first, second, child);
    if (team.rank() == 0) a.trial_objective[chain] = value;
    team.sync();
    if (params.child_descent) {
        run_chain(team, policy, a, params, chain, 0, 0, true);
        return;
    }
    chain::copy(team, a.current + a.solution(chain), child, a.width);
    chain::copy(team, a.best + a.solution(chain), child, a.width);
    if (team.rank() == 0) a.current_objective[chain] = a.best_objective[chain] = value;
    team.sync();
}

/// One step of the merging exchange: the chains' bests in slots `slot` and `other` fold into
/// slot's: the better of the two (ties: slot's) is the first parent, so the child, which takes
/// only improving parts of the second, is no worse than either; it replaces slot's best (the
/// trial is scratch). Ends synchronised.
LOCUS_EXEC_CHECK_DISABLE
template <class P, class Team>
LOCUS_HD void merge_pair(const Team& team, const P& policy, const ChainArrays& a,
                         std::uint64_t seed, std::uint32_t slot, std::uint32_t other,
                         std::uint64_t round) {
    const bool swapped = a.best_objective[other] < a.best_objective[slot];
    const std::int32_t* first = a.best + a.solution(swapped ? other : slot);
    const std::int32_t* second = a.best + a.solution(swapped ? slot : other);
    std::int32_t* child = a.trial + a.solution(slot);
    const std::int64_t value = recombine_child(team, policy, seed, slot, round, first, second,
                                               child);
    chain::copy(team, a.best + a.solution(slot), child, a.width);
    team.sync();
    if (team.rank() == 0) a.best_objective[slot] = value;
    team.sync();
}

/// The error of an exchange that recombines (recombine, population, merge) on chains whose
/// policy has no recombination operator.
[[noreturn]] inline void refuse_exchange(const std::string& exchange) {
    throw NotImplemented("exchange: " + exchange +
                         " needs a recombination operator, which this problem's chains do not "
                         "have; use copy_best, elite or none");
}

/// A check_moves failure of a chain, as the host reads it.
struct ChainCheck {
    bool failed = false;
    std::uint32_t chain = 0;
    int neighborhood = 0;
    std::int64_t by_delta = 0;
    std::int64_t full = 0;
};

/// A backend of the many-chain engine: the chains of a batch on the CPU twin or a CUDA device.
class ChainRunner {
public:
    virtual ~ChainRunner() = default;
    /// Takes `starts` (chains x width words, objectives per chain), descends from each and makes
    /// the results the chains' current and best solutions. `stop` (may be empty) is polled
    /// between chains on the CPU: chains not started when it returns true keep their start.
    /// With `leaders` > 0 only the first chain of each of that many islands descends
    /// (`descends_at_start`; none when `leaders` exceeds the chains); the others keep their
    /// start.
    virtual void start(std::span<const std::int32_t> starts,
                       std::span<const std::int64_t> objectives, const std::function<bool()>& stop,
                       std::uint32_t leaders) = 0;
    /// Runs `iterations` iterations of every chain, numbered from `first`.
    virtual void epoch(std::uint64_t first, std::uint32_t iterations,
                       const std::function<bool()>& stop) = 0;
    /// Best objective of every chain.
    virtual std::vector<std::int64_t> best_objectives() = 0;
    /// Best solution of one chain (width words).
    virtual void best_solution(std::uint32_t chain, std::span<std::int32_t> out) = 0;
    /// Chain c continues from the best solution of chain sources[c] (sources[c] == c: its own).
    virtual void continue_from(std::span<const std::uint32_t> sources) = 0;
    /// Chain c continues from a recombination of the best solutions of chains a[c] and b[c]
    /// (throws NotImplemented when the policy has no recombination).
    virtual void recombine(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                           std::uint64_t round) = 0;
    /// One round of the merging exchange: for every pair p, the bests of chains slots[p] and
    /// others[p] fold into slots[p]'s (merge_pair); the slots are distinct and no slot is
    /// another pair's other (throws NotImplemented when the policy has no recombination).
    virtual void merge(std::span<const std::uint32_t> slots, std::span<const std::uint32_t> others,
                       std::uint64_t round) = 0;
    /// Every chain's best solution, chain after chain (chains x width words).
    virtual void best_solutions(std::span<std::int32_t> out) = 0;
    /// Chain c restarts from a recombination of the solutions first[c] and second[c] (rows of
    /// width words, chain after chain): the child, descended from every element as a start is,
    /// becomes its current and its best solution (throws NotImplemented when the policy has no
    /// recombination).
    virtual void restart_from(std::span<const std::int32_t> first,
                              std::span<const std::int32_t> second, std::uint64_t round) = 0;
    /// Moves evaluated so far by all chains.
    virtual std::uint64_t evaluations() = 0;
    /// The first check_moves failure, if any.
    virtual ChainCheck check() = 0;
    /// Bytes of the chains' storage (host or device).
    virtual std::size_t bytes() const = 0;
};

/// The CPU twin: every chain runs the chain routine on one thread (OpenMP, all cores).
template <class P> class CpuChainRunner final : public ChainRunner {
public:
    /// `policy` holds host pointers; its workspace is allocated here for `chains` chains.
    /// `resources` (may be null) is kept alive with the runner: the host data the policy's
    /// pointers refer to.
    CpuChainRunner(const P& policy, std::uint32_t chains, const ChainParams& params, int threads,
                   std::shared_ptr<const void> resources = {})
        : resources_(std::move(resources)), policy_(policy), chains_(chains), params_(params),
          threads_(threads) {
        a_.width = policy.width();
        a_.elements = policy.elements();
        ArrayList list;
        a_.declare(list, chains);
        policy_.declare(list, chains);
        storage_.allocate(list);
    }

    void start(std::span<const std::int32_t> starts, std::span<const std::int64_t> objectives,
               const std::function<bool()>& stop, std::uint32_t leaders) override {
        const std::size_t words = static_cast<std::size_t>(a_.width) * chains_;
        std::copy_n(starts.data(), words, a_.trial);
        std::copy_n(starts.data(), words, a_.current);
        std::copy_n(starts.data(), words, a_.best);
        for (std::uint32_t c = 0; c < chains_; ++c)
            a_.trial_objective[c] = a_.current_objective[c] = a_.best_objective[c] = objectives[c];
        run(0, 0, true, stop, leaders);
    }
    void epoch(std::uint64_t first, std::uint32_t iterations,
               const std::function<bool()>& stop) override {
        run(first, iterations, false, stop, 0);
    }
    std::vector<std::int64_t> best_objectives() override {
        return {a_.best_objective, a_.best_objective + chains_};
    }
    void best_solution(std::uint32_t chain, std::span<std::int32_t> out) override {
        std::copy_n(a_.best + a_.solution(chain), a_.width, out.data());
    }
    void continue_from(std::span<const std::uint32_t> sources) override {
        for (std::uint32_t c = 0; c < chains_; ++c) {
            std::copy_n(a_.best + a_.solution(sources[c]), a_.width, a_.current + a_.solution(c));
            a_.current_objective[c] = a_.best_objective[sources[c]];
        }
    }
    void recombine(std::span<const std::uint32_t> first, std::span<const std::uint32_t> second,
                   std::uint64_t round) override {
        if constexpr (Recombining<P>) {
            for (std::uint32_t c = 0; c < chains_; ++c)
                a_.current_objective[c] = recombine_child(
                    SerialTeam{}, policy_, params_.seed, c, round, a_.best + a_.solution(first[c]),
                    a_.best + a_.solution(second[c]), a_.current + a_.solution(c));
        } else {
            (void)first, (void)second, (void)round;
            refuse_exchange("recombine");
        }
    }
    void merge(std::span<const std::uint32_t> slots, std::span<const std::uint32_t> others,
               std::uint64_t round) override {
        if constexpr (Recombining<P>) {
            const auto pairs = static_cast<std::int64_t>(slots.size());
#if defined(_OPENMP)
            const int team = resolve_threads(threads_);
#pragma omp parallel for schedule(dynamic, 1) num_threads(team)
#endif
            for (std::int64_t p = 0; p < pairs; ++p)
                merge_pair(SerialTeam{}, policy_, a_, params_.seed, slots[p], others[p], round);
        } else {
            (void)slots, (void)others, (void)round;
            refuse_exchange("merge");
        }
    }
    void best_solutions(std::span<std::int32_t> out) override {
        std::copy_n(a_.best, static_cast<std::size_t>(a_.width) * chains_, out.data());
    }
    void restart_from(std::span<const std::int32_t> first, std::span<const std::int32_t> second,
                      std::uint64_t round) override {
        if constexpr (Recombining<P>) {
            const auto count = static_cast<std::int64_t>(chains_);
#if defined(_OPENMP)
            const int team = resolve_threads(threads_);
#pragma omp parallel for schedule(dynamic, 1) num_threads(team)
#endif
            for (std::int64_t k = 0; k < count; ++k) {
                const auto c = static_cast<std::uint32_t>(k);
                restart_chain(SerialTeam{}, policy_, a_, params_, c, round,
                              first.data() + a_.solution(c), second.data() + a_.solution(c));
            }
        } else {
            (void)first, (void)second, (void)round;
            refuse_exchange("population");
        }
    }
    std::uint64_t evaluations() override {
        std::uint64_t sum = 0;
        for (std::uint32_t c = 0; c < chains_; ++c)
            sum += a_.evaluations[c];
        return sum;
    }
    ChainCheck check() override {
        for (std::uint32_t c = 0; c < chains_; ++c)
            if (a_.errors[4 * c] != 0)
                return {true, c, static_cast<int>(a_.errors[4 * c + 1]), a_.errors[4 * c + 2],
                        a_.errors[4 * c + 3]};
        return {};
    }
    std::size_t bytes() const override { return storage_.bytes(); }

private:
    void run(std::uint64_t first, std::uint32_t iterations, bool initialize,
             const std::function<bool()>& stop, std::uint32_t leaders) {
        const auto count = static_cast<std::int64_t>(chains_);
        // NOTE: `stop` (SearchContext) is not thread safe: one caller at a time. Where a
        // chain's descent can be long (the start, or large solutions) a watchdog thread is that
        // caller and raises the halt flag the descents and iteration loops read, so a long
        // descent ends within one exploration of the limit; otherwise thread 0 polls between
        // chains (a thread per short epoch would cost more than it saves).
        const bool guarded = stop && (initialize || a_.width >= kWatchedChainWidth);
        Watchdog watchdog(stop, guarded);
        ChainParams params = params_;
        params.halt = watchdog.flag();
#if defined(_OPENMP)
        const int team = resolve_threads(threads_);
#pragma omp parallel for schedule(dynamic, 1) num_threads(team)
#endif
        for (std::int64_t c = 0; c < count; ++c) {
            if (watchdog.raised() ||
                !descends_at_start(static_cast<std::uint32_t>(c), leaders, chains_))
                continue;
#if defined(_OPENMP)
            const bool poller = omp_get_thread_num() == 0;
#else
            const bool poller = true;
#endif
            if (stop && !guarded && poller && stop()) {
                watchdog.raise();
                continue;
            }
            run_chain(SerialTeam{}, policy_, a_, params, static_cast<std::uint32_t>(c), first,
                      iterations, initialize);
        }
    }

    std::shared_ptr<const void> resources_;
    P policy_;
    std::uint32_t chains_;
    ChainParams params_;
    int threads_;
    ChainArrays a_{};
    HostStorage storage_;
};

} // namespace locus::gpu
