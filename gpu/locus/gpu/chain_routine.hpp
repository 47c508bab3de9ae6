#pragma once
/// \file
/// The chain routine of the many-chain engine, written once over a Team: a chain's iterations
/// (perturb, educate, accept) and the exchanges that restart or merge chains by recombination.

#include <cstdint>
#include <string>

#include "locus/error.hpp"
#include "locus/gpu/chain_arrays.hpp"
#include "locus/gpu/chain_descent.hpp"
#include "locus/gpu/chain_policy.hpp"
#include "locus/gpu/team.hpp"
#include "locus/hd.hpp"
#include "locus/rng.hpp"
#include "locus/rng_salts.hpp"

namespace locus::gpu {

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

/// Chain c's child of parents `first` and `second` (the leader, or the team where the policy
/// recombines with it, draws from the chain's random stream of the round), evaluated by the
/// team: its objective on every rank.
LOCUS_EXEC_CHECK_DISABLE
template <class P, class Team>
LOCUS_HD std::int64_t recombine_child(const Team& team, const P& policy, std::uint64_t seed,
                                      std::uint32_t chain, std::uint64_t round,
                                      const std::int32_t* first, const std::int32_t* second,
                                      std::int32_t* child) {
    if constexpr (TeamRecombining<P, Team>) {
        Rng rng(derive_key(seed, chain, round, salt::kChainRecombination), 0);
        policy.recombine(team, chain, first, second, child, rng);
    } else if (team.rank() == 0) {
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
    const std::int64_t value =
        recombine_child(team, policy, seed, slot, round, first, second, child);
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

} // namespace locus::gpu
