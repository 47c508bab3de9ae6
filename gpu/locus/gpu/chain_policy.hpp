#pragma once
/// \file
/// What a problem supplies to the many-chain engine (the chain policy: the ChainPolicy concept
/// and the optional capabilities the routine detects) and the per-launch constants of the chain
/// routine (ChainParams).
///
/// A problem supplies a chain policy P (the ChainPolicy concept below): a trivially copyable
/// functor holding its instance data and its workspace pointers (host or device), all members
/// LOCUS_HD and const:
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
/// parents), or recombine(team, chain, a, b, child, rng) (the whole team), for the
/// recombining exchange.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "locus/gpu/chain_acceptance.hpp"
#include "locus/gpu/neighborhood_engine.hpp"
#include "locus/gpu/storage.hpp"
#include "locus/gpu/team.hpp"
#include "locus/hd.hpp"
#include "locus/rng.hpp"

namespace locus::gpu {

/// A chain policy's neighborhood k: focused<k>() says whether it is searched from the chain's
/// active elements; evaluator<k>(chain, solution, active, count) is its grid of cells (grid(),
/// row(0, r), the cell's delta by operator(), decode(0, index) -> move_type); a focused
/// neighborhood's evaluator names its rows_per_focus.
template <class P, int k>
concept ChainNeighborhood = requires(const P& p, std::uint32_t c, std::int32_t* s,
                                     std::int32_t* count) {
    { P::template focused<k>() } -> std::convertible_to<bool>;
    { p.template evaluator<k>(c, s, s, count).grid() } -> std::same_as<MoveGrid>;
    {
        p.template evaluator<k>(c, s, s, count)(p.template evaluator<k>(c, s, s, count).row(0u, 0u),
                                                0u)
        } -> std::convertible_to<typename P::delta_type>;
    {
        p.template evaluator<k>(c, s, s, count).decode(0u, std::uint64_t{0})
        } -> std::convertible_to<typename P::move_type>;
}
&&(!P::template focused<k>() || requires {
    decltype(std::declval<const P&>().template evaluator<k>(0u, nullptr, nullptr,
                                                            nullptr))::rows_per_focus;
});

namespace detail {
template <class P, int... k> constexpr bool chain_neighborhoods(std::integer_sequence<int, k...>) {
    return (ChainNeighborhood<P, k> && ...);
}
} // namespace detail

/// Whether P supplies what the chain routine requires of every policy (see the list above), for
/// the team type Team (SerialTeam: the CPU twin and the thread mapping; a block team on the
/// device). A runner instantiated with a policy that lacks one names the first unmet clause
/// here. Optional capabilities, detected where they are used: Penalising, chain::Deepening,
/// TeamPerturbing (instead of the leader's perturb), Recombining, ThreadMapped, and the
/// refresh with a halt flag.
template <class P, class Team = SerialTeam>
concept ChainPolicy =
    std::is_trivially_copyable_v<P> && std::signed_integral<typename P::delta_type> &&
    std::is_trivially_copyable_v<typename P::move_type> && requires {
    { P::kNeighborhoods } -> std::convertible_to<int>;
    { P::kMaxTouched } -> std::convertible_to<int>;
} &&(P::kNeighborhoods > 0) &&
    requires(P& declaring, const P& p, const Team& t, std::uint32_t c, std::int32_t* s,
             const typename P::move_type& m, Rng& rng, std::int32_t& count, ArrayList& list,
             std::size_t chains, const volatile std::uint8_t* halt) {
    { p.width() } -> std::same_as<std::int32_t>;
    { p.elements() } -> std::same_as<std::int32_t>;
    declaring.declare(list, chains);
    requires requires { p.refresh(t, c, s); } || requires {
        p.refresh(t, c, s, halt);
    };
    { p.touched(s, m, s) } -> std::convertible_to<int>;
    p.apply(t, c, s, m);
    requires requires {
        { p.perturb(c, s, rng, s, count) } -> std::same_as<std::int64_t>;
    } || requires {
        { p.perturb(t, c, s, rng, s, count) } -> std::same_as<std::int64_t>;
    };
    { p.evaluate(t, c, s) } -> std::same_as<std::int64_t>;
}
&&detail::chain_neighborhoods<P>(std::make_integer_sequence<int, P::kNeighborhoods>{});

/// Optional capability: moves that name the groups of the solution they change (routes), at
/// most kMaxGroups of them; moves of disjoint groups do not change each other's delta, so a
/// descent may apply many in one step (ChainParams::independent_moves). Groups are numbered
/// below elements().
template <class P>
concept IndependentMoves = requires(const P& p, std::uint32_t c,
                                    const typename P::move_type& m, std::int32_t* out) {
    { P::kMaxGroups } -> std::convertible_to<int>;
    { p.move_groups(c, m, out) } -> std::convertible_to<int>;
};

/// Optional capability (with IndependentMoves): many moves applied in one rebuild of the
/// solution. move_buffer(chain) is the chain's buffer of at most elements() moves;
/// apply_many(team, chain, solution, moves, count), called by every rank alike, applies
/// moves[0, count) — decoded on the current state, their groups pairwise disjoint — with the
/// result of apply of each in turn, and ends synchronised (chain::descend_many).
template <class P, class Team>
concept ManyMoves = IndependentMoves<P> &&
    requires(const P& p, const Team& t, std::uint32_t c, std::int32_t* s, std::int32_t count) {
    { p.move_buffer(c) } -> std::same_as<typename P::move_type*>;
    p.apply_many(t, c, s, static_cast<const typename P::move_type*>(p.move_buffer(c)), count);
};

/// Optional capability: chains confined to regions (ChainRunner::restrict_chains, the
/// decompose exchange of the chains algorithm): per chain a subset of the elements outside of
/// which its moves and kicks change nothing, so that chains confined to disjoint regions of one
/// solution improve it independently and their improvements can be assembled. The policy holds
///   regions                       1: declare() adds the region arrays (the runner sets it from
///                                 ChainParams::regions before declaring)
///   region_mask, region_list,     per chain: a flag per element (chains x elements bytes), the
///   region_count                  region's elements (chains x elements words) and their count
///                                 (chains words; 0: the chain is not confined)
template <class P>
concept Regional = requires(P& p) {
    { p.regions } -> std::convertible_to<std::int32_t>;
    { p.region_mask } -> std::convertible_to<std::uint8_t*>;
    { p.region_list } -> std::convertible_to<std::int32_t*>;
    { p.region_count } -> std::convertible_to<std::int32_t*>;
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

/// Pivoting rule of the start's descents (ChainParams::start_pivot).
enum class StartPivot : std::uint8_t {
    same,       ///< the epochs' rule (first_improvement, independent_moves)
    best,       ///< the smallest delta
    first,      ///< the lowest-index improving move
    independent ///< every move that is the best on each group it changes, in one step
};

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
    /// Pivoting rule `independent`: every exploration of a policy with IndependentMoves applies
    /// all the improving moves it can at once — each row's best move, kept when it is the best
    /// (smallest delta, then lowest row) of every move sharing one of its groups — instead of
    /// one move per exploration (chain::descend_many)
    bool independent_moves = false;
    /// Pivoting rule of the start's descents (ChainRunner::start): a descent from a
    /// construction applies thousands of moves, which `independent` applies in tens of steps,
    /// while the epochs' short descents after a kick keep their own rule
    StartPivot start_pivot = StartPivot::same;
    /// The policy's region arrays are allocated (Regional), so that restrict_chains may confine
    /// chains to regions (the decompose exchange)
    bool regions = false;
    /// The CPU twin's memory budget in bytes (the job's memory_budget; 0: none): its arrays
    /// are checked against it before they are allocated
    std::size_t host_budget = 0;
    /// CUDA mapping: one thread per chain (Delévacq et al.'s FI-thread) instead of one block
    bool thread_per_chain = false;
    /// The halt flag (null: none): once set, descents end before their next exploration and
    /// epochs before their next iteration, so that a time limit or an interrupt is honoured
    /// inside a long descent (a start on 10^5 cities). The CPU twin's flag is host memory
    /// raised by its watchdog thread; the CUDA runner's is mapped pinned host memory that the
    /// launching thread raises while it waits for the kernel.
    const volatile std::uint8_t* halt = nullptr;
};

/// The constants of the start's descents: those of the epochs with start_pivot's rule.
inline ChainParams start_params(ChainParams params) {
    if (params.start_pivot != StartPivot::same) {
        params.first_improvement = params.start_pivot == StartPivot::first;
        params.independent_moves = params.start_pivot == StartPivot::independent;
    }
    return params;
}

/// Whether some descent of a runner with these constants applies independent moves (the
/// runner then allocates the arrays of descend_many).
inline bool applies_independent_moves(const ChainParams& params) {
    return params.independent_moves || params.start_pivot == StartPivot::independent;
}

/// Chains at least this wide are watched for the time limit in every epoch (their descents can
/// be long), narrower ones at the start only.
inline constexpr std::int32_t kWatchedChainWidth = 4096;

/// Cells each rank evaluates between two reads of the halt flag within one exploration (only
/// explorations larger than a chunk read it there).
inline constexpr std::uint64_t kHaltCells = 1024;

/// Whether the halt flag is raised: rank 0 reads it and the team agrees on its answer, so that
/// every thread of a block leaves a loop together.
template <class Team> LOCUS_HD_INLINE bool halted(const Team& team, const ChainParams& params) {
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

} // namespace chain

/// Whether P perturbs with the whole team: perturb(team, chain, solution, rng, out, count) is
/// called by every rank with the same random stream, returns the objective change and
/// writes the touched elements and their count (the routine reads all three on the leader
/// only; a policy whose leader alone draws, as the DCVRP's ruin and recreate, leaves the other
/// ranks' change, count and stream behind), and leaves the workspace refreshed for the
/// solution on every rank.
template <class P, class Team>
concept TeamPerturbing = requires(const P& p, const Team& t, std::uint32_t c, std::int32_t* s,
                                  Rng& rng, std::int32_t& count) {
    { p.perturb(t, c, s, rng, s, count) } -> std::same_as<std::int64_t>;
};

/// Whether P recombines with the whole team: recombine(team, chain, first, second, child,
/// rng) is called by every rank with the same random stream and ends synchronised, with the
/// child written.
template <class P, class Team>
concept TeamRecombining = requires(const P& p, const Team& t, std::uint32_t c,
                                   const std::int32_t* s, std::int32_t* out, Rng& rng) {
    p.recombine(t, c, s, s, out, rng);
};

/// Whether P supplies a recombination operator: the leader's recombine(chain, first, second,
/// child, rng), or the team's (TeamRecombining).
template <class P>
concept Recombining = requires(const P& p, std::uint32_t c, const std::int32_t* s,
                               std::int32_t* out, Rng& rng) {
    p.recombine(c, s, s, out, rng);
} || TeamRecombining<P, SerialTeam>;

/// Whether P's chains may run one per CUDA thread (mapping: thread): P sets
/// `static constexpr bool kThreadMapping = true`. Policies opt in, as the extra kernel costs
/// compile time and suits only policies whose routine is cheap for one thread.
template <class P>
concept ThreadMapped = requires {
    requires P::kThreadMapping;
};

} // namespace locus::gpu
