#pragma once
/// \file
/// The descent of a chain of the many-chain engine: one neighborhood to its local optimum (with
/// don't-look bits over the chain's focus), the VND over the policy's neighborhoods, and the
/// education of a trial (with the repair descent of a penalising policy). Written once over a
/// Team.

#include <cstdint>
#include <type_traits>

#include "locus/gpu/chain_arrays.hpp"
#include "locus/gpu/chain_policy.hpp"
#include "locus/gpu/neighborhood_engine.hpp"
#include "locus/gpu/team.hpp"
#include "locus/hd.hpp"

namespace locus::gpu {

namespace chain {

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

/// One exploration's pick: the cell of the smallest delta (ties to the lowest index), or with
/// first improvement the lowest improving cell; kNoMove when the grid is empty. `cut`: the halt
/// flag dropped the exploration (no pick).
template <class Delta> struct Pick {
    Delta best;
    std::uint64_t best_index;
    bool cut;
};

/// Evaluates every cell of `eval` (each rank its share, the halt flag read between chunks of
/// kHaltCells cells per rank), flags the active entries whose rows hold an improving move (a
/// focused neighborhood) and agrees on the team's pick; every rank returns it.
LOCUS_EXEC_CHECK_DISABLE
template <bool kFocused, class Delta, class Eval, class Team>
LOCUS_HD_INLINE Pick<Delta> explore(const Team& team, const Eval& eval, const ChainParams& params,
                                    std::uint8_t* improving) {
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
                    improving[r / static_cast<std::uint32_t>(Eval::rows_per_focus)] = 1;
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
    if (cut) return {best, best_index, true};
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
    return {best, best_index, false};
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
        const std::uint64_t total = eval.grid().size();
        const Pick<Delta> pick = explore<kFocused, Delta>(team, eval, params, improving);
        if (pick.cut) {
            if constexpr (kFocused) {
                for (std::int32_t f = static_cast<std::int32_t>(team.rank()); f < count;
                     f += static_cast<std::int32_t>(team.size()))
                    improving[f] = 0;
                team.sync();
            }
            break;
        }
        const Delta best = pick.best;
        const std::uint64_t best_index = pick.best_index;
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

/// Atomic minimum (the device's atomicMin; host teams are serial). The result does not depend
/// on the order of the calls.
LOCUS_HD_INLINE void atomic_min(std::int64_t* to, std::int64_t value) {
#if defined(__CUDA_ARCH__)
    atomicMin(reinterpret_cast<long long*>(to), static_cast<long long>(value));
#else
    if (value < *to) *to = value;
#endif
}
LOCUS_HD_INLINE void atomic_min(std::int32_t* to, std::int32_t value) {
#if defined(__CUDA_ARCH__)
    atomicMin(to, value);
#else
    if (value < *to) *to = value;
#endif
}

/// Leader, descend_many: the elements `move` touches (read on the row before it) join the
/// chain's focus, and those not active yet the active list after its first `listed` entries
/// (with their don't-look bits set); returns the list's new length.
LOCUS_EXEC_CHECK_DISABLE
template <class P>
LOCUS_HD std::int32_t activate_touched(const P& policy, const ChainArrays& a, std::uint32_t chain,
                                       const std::int32_t* solution,
                                       const typename P::move_type& move, std::int32_t* touched,
                                       std::int32_t listed) {
    std::int32_t* active = a.active_list + a.element(chain);
    std::uint8_t* active_bits = a.active_bits + a.element(chain);
    std::uint8_t* improving = a.improving + a.element(chain);
    const int n_touched = policy.touched(solution, move, touched);
    for (int t = 0; t < n_touched; ++t) {
        focus(a, chain, touched[t]);
        if (active_bits[touched[t]] == 0) {
            active_bits[touched[t]] = 1;
            improving[listed] = 0;
            active[listed++] = touched[t];
        }
    }
    return listed;
}

/// Rows each rank explores between two reads of the halt flag in descend_many.
inline constexpr std::int32_t kHaltRows = 64;

/// Descends in focused neighborhood k applying many moves per exploration (Riise & Burke's
/// independent moves, generalised to groups): every active row's best move (smallest delta,
/// ties to the lowest column) is found by one rank; a row's move is chosen when it improves
/// and is, for each of its groups, the best move on that group (smallest delta, then lowest
/// row) — so chosen moves share no group and none changes another's delta; the chosen moves
/// are applied in row order, each re-evaluated first (and skipped unless still improving); a
/// policy with ManyMoves applies them all in one rebuild (apply_many), with the same result.
/// Don't-look bits as in descend. Returns whether a move was applied. The result does not
/// depend on the team's size.
LOCUS_EXEC_CHECK_DISABLE
template <int k, class P, class Team>
LOCUS_HD bool descend_many(const Team& team, const P& policy, const ChainArrays& a,
                           const ChainParams& params, std::uint32_t chain) {
    using Delta = typename P::delta_type;
    const auto rank = static_cast<std::int32_t>(team.rank());
    const auto size = static_cast<std::int32_t>(team.size());
    std::int32_t* solution = a.trial + a.solution(chain);
    std::int32_t* active = a.active_list + a.element(chain);
    std::uint8_t* active_bits = a.active_bits + a.element(chain);
    std::uint8_t* improving = a.improving + a.element(chain);
    std::int64_t* row_delta = a.row_delta + a.element(chain);
    std::uint32_t* row_col = a.row_col + a.element(chain);
    std::int32_t* row_groups = a.row_groups + 2 * a.element(chain);
    std::int64_t* group_delta = a.group_delta + a.element(chain);
    std::int32_t* group_row = a.group_row + a.element(chain);
    std::int32_t* chosen = a.chosen + a.element(chain);
    std::uint32_t* chosen_col = a.chosen_col + a.element(chain);
    {
        const std::int32_t* focus_list = a.focus_list + a.element(chain);
        const std::int32_t focused = a.focus_count[chain];
        for (std::int32_t f = rank; f < focused; f += size) {
            active[f] = focus_list[f];
            active_bits[focus_list[f]] = 1;
            improving[f] = 0;
        }
        if (rank == 0) a.active_count[chain] = focused;
        team.sync();
    }
    bool improved = false;
    for (;;) {
        if (halted(team, params)) break;
        const std::int32_t count = a.active_count[chain];
        const auto eval =
            policy.template evaluator<k>(chain, solution, active, a.active_count + chain);
        static_assert(decltype(eval)::rows_per_focus == 1, "one row per active element");
        const MoveGrid grid = eval.grid();
        const auto rows = static_cast<std::int32_t>(grid.rows);
        const std::uint32_t cols = grid.cols;
        // Each row's best move, its groups, and the groups' marks reset.
        bool cut = false;
        for (std::int32_t base = 0; base < rows; base += size * kHaltRows) {
            if (base != 0 && halted(team, params)) {
                cut = true;
                break;
            }
            const std::int32_t end = rows - base < size * kHaltRows ? rows : base + size * kHaltRows;
            for (std::int32_t r = base + rank; r < end; r += size) {
                const auto row = eval.row(0, static_cast<std::uint32_t>(r));
                Delta best = invalid_delta<Delta>();
                std::uint32_t best_col = 0;
                for (std::uint32_t c = 0; c < cols; ++c) {
                    const Delta d = eval(row, c);
                    if (d < best) {
                        best = d;
                        best_col = c;
                    }
                }
                row_delta[r] = static_cast<std::int64_t>(best);
                row_col[r] = best_col;
                improving[r] = best < Delta(0) ? 1 : 0;
                row_groups[2 * r] = row_groups[2 * r + 1] = -1;
                if (best < Delta(0)) {
                    std::int32_t groups[P::kMaxGroups > 2 ? P::kMaxGroups : 2];
                    const int n_groups = policy.move_groups(
                        chain, eval.decode(0, static_cast<std::uint64_t>(r) * cols + best_col),
                        groups);
                    for (int g = 0; g < n_groups && g < 2; ++g) {
                        row_groups[2 * r + g] = groups[g];
                        group_delta[groups[g]] = invalid_delta<std::int64_t>();
                        group_row[groups[g]] = 0x7fffffff;
                    }
                }
            }
        }
        if (cut) {
            for (std::int32_t f = rank; f < count; f += size)
                improving[f] = 0;
            team.sync();
            break;
        }
        team.sync();
        // The best delta on every group, then the lowest row of that delta.
        for (std::int32_t r = rank; r < rows; r += size)
            for (int g = 0; g < 2; ++g)
                if (row_groups[2 * r + g] >= 0) atomic_min(group_delta + row_groups[2 * r + g], row_delta[r]);
        team.sync();
        const auto best_on = [&](std::int32_t r) {
            for (int g = 0; g < 2; ++g) {
                const std::int32_t group = row_groups[2 * r + g];
                if (group >= 0 && group_delta[group] != row_delta[r]) return false;
            }
            return row_groups[2 * r] >= 0;
        };
        for (std::int32_t r = rank; r < rows; r += size)
            if (best_on(r))
                for (int g = 0; g < 2; ++g)
                    if (row_groups[2 * r + g] >= 0) atomic_min(group_row + row_groups[2 * r + g], r);
        team.sync();
        const auto picked = static_cast<std::int32_t>(compact(
            team, static_cast<std::uint32_t>(rows),
            [](std::uint32_t r) { return static_cast<std::int32_t>(r); },
            [&](std::uint32_t r) {
                const auto q = static_cast<std::int32_t>(r);
                if (!best_on(q)) return false;
                for (int g = 0; g < 2; ++g) {
                    const std::int32_t group = row_groups[2 * q + g];
                    if (group >= 0 && group_row[group] != q) return false;
                }
                return true;
            },
            [&](std::uint32_t slot, std::int32_t r) {
                chosen[slot] = active[r];
                chosen_col[slot] = row_col[r];
            }));
        // Don't-look bits: rows without an improving move leave the active list.
        for (std::int32_t f = rank; f < count; f += size)
            if (improving[f] == 0) active_bits[active[f]] = 0;
        const auto kept = static_cast<std::int32_t>(compact(
            team, static_cast<std::uint32_t>(count),
            [&](std::uint32_t f) { return active[f]; },
            [&](std::uint32_t f) { return improving[f] != 0; },
            [&](std::uint32_t slot, std::int32_t element) { active[slot] = element; }));
        for (std::int32_t f = rank; f < count; f += size)
            improving[f] = 0;
        if (rank == 0) {
            a.evaluations[chain] += static_cast<std::uint64_t>(rows) * cols;
            a.active_count[chain] = kept;
        }
        team.sync();
        if (picked == 0) break;
        std::int32_t* touched =
            a.touched + chain * static_cast<std::int64_t>(a.width > a.elements ? a.width : a.elements);
        if constexpr (ManyMoves<P, Team>) {
            // The chosen moves change disjoint groups: decoded and priced on this state, each by
            // one rank, then applied together. row_delta holds their deltas from here on.
            typename P::move_type* moves = policy.move_buffer(chain);
            for (std::int32_t s = rank; s < picked; s += size) {
                const std::int32_t one = 1;
                const auto single = policy.template evaluator<k>(chain, solution, chosen + s, &one);
                moves[s] = single.decode(0, chosen_col[s]);
                row_delta[s] = static_cast<std::int64_t>(single(single.row(0, 0), chosen_col[s]));
            }
            std::uint32_t mine = 0;
            for (std::int32_t s = rank; s < picked; s += size)
                mine += row_delta[s] < 0 ? 1u : 0u;
            const auto applied = static_cast<std::int32_t>(team.sum(mine));
            team.sync();
            if (applied > 0) {
                if (rank == 0) {
                    // In row order, as one by one: what each move touches (the row before every
                    // move; moves on disjoint groups see the same neighbours either way).
                    std::int32_t listed = a.active_count[chain];
                    std::int32_t kept_moves = 0;
                    for (std::int32_t s = 0; s < picked; ++s) {
                        if (!(row_delta[s] < 0)) continue;
                        const typename P::move_type move = moves[s];
                        listed = activate_touched(policy, a, chain, solution, move, touched,
                                                  listed);
                        a.trial_objective[chain] += row_delta[s];
                        moves[kept_moves++] = move;
                    }
                    a.active_count[chain] = listed;
                }
                team.sync();
                policy.apply_many(team, chain, solution,
                                  static_cast<const typename P::move_type*>(moves), applied);
                if (params.check_moves) check(team, policy, a, chain, k);
                improved = true;
            }
        } else {
            for (std::int32_t s = 0; s < picked; ++s) {
                const std::int32_t one = 1;
                const auto single = policy.template evaluator<k>(chain, solution, chosen + s, &one);
                const typename P::move_type move = single.decode(0, chosen_col[s]);
                const Delta delta = single(single.row(0, 0), chosen_col[s]);
                team.sync(); // every rank decoded before the lists and the solution change
                if (!(delta < Delta(0))) continue; // the same answer on every rank
                if (rank == 0) {
                    a.active_count[chain] = activate_touched(policy, a, chain, solution, move,
                                                             touched, a.active_count[chain]);
                    a.trial_objective[chain] += static_cast<std::int64_t>(delta);
                }
                team.sync();
                policy.apply(team, chain, solution, move);
                if (params.check_moves) check(team, policy, a, chain, k);
                improved = true;
            }
        }
    }
    // Leave every active bit clear for the next descent.
    const std::int32_t left = a.active_count[chain];
    for (std::int32_t f = rank; f < left; f += size)
        active_bits[active[f]] = 0;
    team.sync();
    return improved;
}

/// Descends in neighborhood `k` (run-time index) of P's list.
LOCUS_EXEC_CHECK_DISABLE
template <int First, class P, class Team>
LOCUS_HD bool descend_in(int k, const Team& team, const P& policy, const ChainArrays& a,
                         const ChainParams& params, std::uint32_t chain) {
    if constexpr (First < P::kNeighborhoods) {
        if (k == First) {
            // A neighborhood the policy leaves out (a grid without columns, e.g. a DCVRP
            // neighborhood switched off) has no move for any row: skipped before the focus is
            // copied and the team synchronised, with the result of descending it.
            if (policy.template evaluator<First>(chain, a.trial + a.solution(chain),
                                                 a.active_list + a.element(chain),
                                                 a.active_count + chain)
                    .grid()
                    .cols == 0)
                return false;
            if constexpr (IndependentMoves<P> && P::template focused<First>()) {
                if (params.independent_moves)
                    return descend_many<First>(team, policy, a, params, chain);
            }
            return descend<First>(team, policy, a, params, chain);
        }
        return descend_in<First + 1>(k, team, policy, a, params, chain);
    } else {
        return false;
    }
}

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
            const std::int64_t change = policy.deepen(team, chain, a.trial + a.solution(chain),
                                                      a.focus_list + a.element(chain) + searched,
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

} // namespace locus::gpu
