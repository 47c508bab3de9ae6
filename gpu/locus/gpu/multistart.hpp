#pragma once
/// \file
/// The multi-start engine (Luong, Melab, Talbi: the algorithmic-level model): many independent
/// local searches over permutations with the swap neighborhood, each with its own random stream,
/// in one launch. Strategies: hill climbing (best or first improvement, to a local optimum or a
/// step budget), simulated annealing (geometric, linear or Lundy-Mees cooling from an initial
/// temperature drawn from sampled
/// deltas), tabu search (tenure on (item, location) pairs, aspiration, randomized tenure as in
/// Taillard's robust tabu search). Every search keeps its permutation, the swap deltas of all
/// pairs (updated after a swap in O(1) per pair, O(n) for pairs that share an item with the
/// swap), its tabu matrix and its best permutation.
///
/// The routine is written once over a Team (the threads serving one search): a single thread
/// (one thread per search on the device, or the CPU twin), a warp, or a thread block. Decisions
/// do not depend on the team (lowest-index ties, integer deltas, counter-based random numbers,
/// a software exponential in IEEE double arithmetic without contractions), so every mapping
/// and the CPU twin produce identical searches. Kernels and the device engine are in
/// multistart.cuh.
///
/// A problem policy P (trivially copyable, LOCUS_HD const members, host and device pointers):
///   size()                         n, the permutation length
///   row_cost(p, i)                 the part of the objective of permutation p that row i
///                                  contributes (the objective is the sum over i < n)
///   delta(p, r, s)                 objective change of swapping p[r], p[s] (r < s)
///   updated(p_after, d, r, s, u, v) delta of (r, s) after (u, v) was swapped, from its value d
///                                  before ({r, s}, {u, v} disjoint)
///   data_words()                   int32 words of read-only data the policy may keep on chip
///   data() / with_data(words)      those words, and a copy of the policy that reads them at
///                                  `words` (a copy in shared memory)

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "locus/error.hpp"
#include "locus/gpu/annealing.hpp"
#include "locus/gpu/cpu_threads.hpp"
#include "locus/gpu/storage.hpp"
#include "locus/gpu/team.hpp"
#include "locus/gpu/watchdog.hpp"
#include "locus/hd.hpp"
#include "locus/rng.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace locus::gpu {

/// Local search run by every search of a multi-start launch.
enum class Strategy : std::int32_t { hc_best = 0, hc_first = 1, sa = 2, ts = 3 };

/// Which threads serve one search on the device.
enum class Mapping : std::int32_t { thread = 0, warp = 1, block = 2 };

/// Settings of one multi-start launch (both backends).
struct MultiStartConfig {
    Strategy strategy = Strategy::ts;
    std::uint64_t iterations =
        1000;               ///< moves per search (HC: at most, it stops at a local optimum)
    std::uint64_t seed = 1; ///< random streams: derive_key(seed, search, step)
    // Simulated annealing: T0 = mean positive delta of `samples` random swaps / -ln(accept0);
    Schedule schedule = Schedule::geometric;
    double accept0 = 0.5;      ///< acceptance probability of the mean uphill move at T0
    double final_ratio = 1e-3; ///< final temperature / T0
    std::uint32_t samples = 100;
    // Tabu search: tenure drawn uniformly in [tenure_min, tenure_max] per move (Taillard's
    // robust tabu search uses [0.9 n, 1.1 n]); both 0 means that default.
    std::uint32_t tenure_min = 0;
    std::uint32_t tenure_max = 0;
    /// Full evaluation after every move (job key check_moves): a search whose objective by
    /// deltas disagrees stops and reports both values (SearchResult::check_failed).
    bool check_moves = false;
};

/// The per-launch constants both backends use (computed once on the host).
struct MultiStartPlan {
    Strategy strategy;
    std::uint64_t iterations;
    std::uint64_t seed;
    double log_accept0; ///< ln(accept0) (< 0)
    double cooling;     ///< geometric: per-move factor final_ratio^(1/iterations)
    Schedule schedule;
    double final_ratio;
    std::uint32_t samples;
    std::uint32_t tenure_min;
    std::uint32_t tenure_span; ///< tenure_max - tenure_min + 1
    bool check_moves;
    /// Halt flag (null: none), read every `halt_every` iterations: once raised, searches end
    /// with their best so far (a time limit or an interrupt inside long searches). Set by the
    /// runners, not by plan_multistart.
    const volatile std::uint8_t* halt = nullptr;
    /// Iterations between two reads of the halt flag: 64 for small n, down to every iteration
    /// from n = 128 on (an iteration scans n^2 / 2 swaps: a read is then negligible).
    std::uint64_t halt_every = 1;
    /// Rows of the delta table computed between two reads of the halt flag: about 2^22 pair
    /// terms (a few milliseconds on one core), 64 rows for small n, 4 at n = 1000.
    std::int32_t halt_rows = 64;
};

/// Checks `config` for permutations of length n and derives the plan. Throws locus::Error.
inline MultiStartPlan plan_multistart(const MultiStartConfig& config, std::int32_t n) {
    if (n < 2)
        throw Error("multi-start engine: permutations of length " + std::to_string(n) +
                    " have no swap moves (need n >= 2)");
    // NOTE: pair indices r * n + s are 32-bit (kNoPair = 2^32 - 1 marks "none").
    if (n > 46340)
        throw Error("multi-start engine: permutations of length " + std::to_string(n) +
                    " exceed the 46340 its 32-bit pair indices allow");
    if (!(config.accept0 > 0.0 && config.accept0 < 1.0))
        throw Error("multi-start engine: accept0 must lie in (0, 1)");
    if (!(config.final_ratio > 0.0 && config.final_ratio <= 1.0))
        throw Error("multi-start engine: final_ratio must lie in (0, 1]");
    std::uint32_t tmin = config.tenure_min;
    std::uint32_t tmax = config.tenure_max;
    if (tmin == 0 && tmax == 0) {
        tmin = std::max<std::uint32_t>(1, static_cast<std::uint32_t>(9 * n / 10));
        tmax = static_cast<std::uint32_t>((11 * n + 9) / 10);
    }
    if (config.strategy == Strategy::ts && config.iterations + tmax >= 0x7FFFFFFFull)
        throw Error("multi-start engine: tabu search runs at most 2^31 - 1 - tenure iterations");
    if (tmin == 0 || tmax < tmin)
        throw Error("multi-start engine: tabu tenure [" + std::to_string(tmin) + ", " +
                    std::to_string(tmax) + "] is empty or starts at 0");
    MultiStartPlan plan{};
    plan.strategy = config.strategy;
    plan.iterations = config.iterations;
    plan.halt_every = std::clamp<std::uint64_t>(
        (std::uint64_t{1} << 20) / (static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n)),
        1, 64);
    plan.halt_rows = static_cast<std::int32_t>(std::clamp<std::uint64_t>(
        (std::uint64_t{1} << 22) / (static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n)),
        1, 64));
    plan.seed = config.seed;
    plan.log_accept0 = std::log(config.accept0);
    plan.cooling = geometric_factor(config.final_ratio, config.iterations);
    plan.schedule = config.schedule;
    plan.final_ratio = config.final_ratio;
    plan.samples = config.samples == 0 ? 1 : config.samples;
    plan.tenure_min = tmin;
    plan.tenure_span = tmax - tmin + 1;
    plan.check_moves = config.check_moves;
    return plan;
}

/// Strided view of one search's array: element i at base[i * stride] (stride 1: contiguous;
/// stride = number of searches: interleaved for one thread per search, coalesced).
template <class T> struct Strided {
    T* base;
    std::uint32_t stride;
    LOCUS_HD_INLINE T& operator[](std::uint64_t i) const { return base[i * stride]; }
};

/// The strided arrays of one search: best permutation (n), swap deltas (n*n, pair (r, s) with
/// r < s at r*n + s) and tabu matrix (n*n, item i at location l: i*n + l). The current
/// permutation is contiguous (the policy reads it), passed separately.
struct SearchArrays {
    Strided<std::int32_t> best;
    Strided<std::int64_t> delta;
    Strided<std::int32_t> tabu;
};

/// Result of one search.
struct SearchResult {
    std::int64_t best;         ///< best objective found
    std::int64_t final;        ///< objective of the final permutation (by deltas)
    std::uint64_t moves;       ///< moves applied
    std::uint64_t improved_at; ///< move count when the best was found
    /// check_moves: 1 when a full evaluation after move `moves` gave `full` != `final`.
    std::int64_t check_failed;
    std::int64_t full;
};

/// Runs one round of searches on one backend (a problem's CPU twin or CUDA engine of this
/// engine; multistart_policy_component.hpp offers it to the multistart algorithm).
class MultiStartRunner {
public:
    virtual ~MultiStartRunner() = default;
    /// `searches` searches from `starts` (searches * n); best solutions to `best`
    /// (searches * n), results to `results`. Blocking. `stop` is polled between searches (the
    /// CPU twin) or between launches (CUDA, when a round does not fit in one): searches not
    /// started when it returns true keep their start as their best, with their cost and zero
    /// moves. Returns the number of searches that ran. The instance must outlive the runner.
    virtual std::uint32_t run(const MultiStartConfig& config, std::uint32_t searches,
                              const std::int32_t* starts, std::int32_t* best,
                              SearchResult* results, const std::function<bool()>& stop = {}) = 0;
};

/// The device arrays of a multi-start launch, declared once (storage list): starting and best
/// permutations, swap-delta tables, tabu matrices (tabu search only), current permutations
/// (thread mapping only) and results.
struct MultiStartArrays {
    std::int32_t* starts = nullptr;  ///< searches * n, contiguous per search
    std::int32_t* best = nullptr;    ///< searches * n (interleaved for the thread mapping)
    std::int64_t* delta = nullptr;   ///< searches * n * n
    std::int32_t* tabu = nullptr;    ///< searches * n * n (tabu search only)
    std::int32_t* perms = nullptr;   ///< searches * n, contiguous (thread mapping only)
    SearchResult* results = nullptr; ///< searches
    std::uint64_t first = 0;         ///< id of search 0 of this launch (its random stream)

    void declare(ArrayList& list, std::int32_t n, std::uint32_t searches, Mapping mapping,
                 Strategy strategy) {
        const auto nn = static_cast<std::size_t>(n);
        const std::size_t count = searches;
        list.add(starts, count * nn, "multi-start starting permutations");
        list.add(best, count * nn, "multi-start best permutations");
        list.add(delta, count * nn * nn, "multi-start swap-delta tables");
        list.add(tabu, strategy == Strategy::ts ? count * nn * nn : 0, "multi-start tabu matrices");
        list.add(perms, mapping == Mapping::thread ? count * nn : 0,
                 "multi-start current permutations");
        list.add(results, count, "multi-start results");
    }
};

/// Device bytes of a multi-start launch of `searches` searches of length n (its storage list).
inline std::size_t multistart_bytes_needed(std::int32_t n, std::uint32_t searches, Mapping mapping,
                                           Strategy strategy) {
    ArrayList list;
    MultiStartArrays arrays;
    arrays.declare(list, n, searches, mapping, strategy);
    return list.bytes();
}

namespace detail {

/// Pair index k = r * n + s for r < s; kNoPair when there is none.
inline constexpr std::uint32_t kNoPair = 0xFFFFFFFFu;

/// Random number for search `search`, step `step`, purpose `what`.
LOCUS_HD_INLINE std::uint64_t draw(const MultiStartPlan& plan, std::uint64_t search,
                                   std::uint64_t step, std::uint64_t what) {
    return derive_key(plan.seed, search, step, what);
}

/// A uniformly drawn pair index (r < s) from 64 random bits.
LOCUS_HD_INLINE void random_pair(std::uint64_t bits, std::int32_t n, std::int32_t& r,
                                 std::int32_t& s) {
    const auto nn = static_cast<std::uint64_t>(n);
    const std::uint64_t pairs = nn * (nn - 1) / 2;
    std::uint64_t k = bits % pairs;
    // Row r holds n - 1 - r pairs.
    std::int32_t row = 0;
    while (k >= static_cast<std::uint64_t>(n - 1 - row)) {
        k -= static_cast<std::uint64_t>(n - 1 - row);
        ++row;
    }
    r = row;
    s = row + 1 + static_cast<std::int32_t>(k);
}

/// Calls f(r, s) for every pair r < s this thread owns: pair slots r * n + s are dealt to the
/// team's threads round-robin.
LOCUS_EXEC_CHECK_DISABLE
template <class Team, class F>
LOCUS_HD_INLINE void for_pairs(const Team& team, std::int32_t n, F&& f) {
    if (team.size() == 1) {
        for (std::int32_t r = 0; r < n; ++r)
            for (std::int32_t s = r + 1; s < n; ++s)
                f(r, s);
        return;
    }
    const auto step = static_cast<std::int32_t>(team.size());
    std::int32_t r = 0;
    std::int32_t s = static_cast<std::int32_t>(team.rank());
    while (s >= n) {
        s -= n;
        ++r;
    }
    while (r < n) {
        if (r < s) f(r, s);
        s += step;
        while (s >= n) {
            s -= n;
            ++r;
        }
    }
}

/// Swaps perm[u], perm[v] and brings every delta up to date (the team ends synchronised).
LOCUS_EXEC_CHECK_DISABLE
template <class Team, class P>
LOCUS_HD void apply_swap(const Team& team, const P& problem, const SearchArrays& x,
                         std::int32_t* perm, std::int32_t u, std::int32_t v) {
    const std::int32_t n = problem.size();
    team.sync();
    if (team.rank() == 0) {
        const std::int32_t t = perm[u];
        perm[u] = perm[v];
        perm[v] = t;
    }
    team.sync();
    // Pairs disjoint from {u, v}: O(1) each. Pairs sharing an item with the swap (2n - 3 of
    // them): O(n) each, dealt evenly to the team in a separate loop (inside the first loop they
    // would make every warp wait for its one lane with an O(n) pair).
    for_pairs(team, n, [&](std::int32_t r, std::int32_t s) {
        if (r == u || r == v || s == u || s == v) return;
        std::int64_t& d = x.delta[static_cast<std::uint64_t>(r) * n + s];
        d = problem.updated(perm, d, r, s, u, v);
    });
    const std::int32_t shared_pairs = 2 * n - 3; // (u, k) for k != u, then (v, k) for k != u, v
    for (std::int32_t j = static_cast<std::int32_t>(team.rank()); j < shared_pairs;
         j += static_cast<std::int32_t>(team.size())) {
        const std::int32_t item = j < n - 1 ? u : v;
        std::int32_t k = j < n - 1 ? j : j - (n - 1);
        if (item == u) {
            k += k >= u ? 1 : 0;
        } else {
            const std::int32_t low = u < v ? u : v;
            const std::int32_t high = u < v ? v : u;
            k += k >= low ? 1 : 0;
            k += k >= high ? 1 : 0;
        }
        const std::int32_t r = item < k ? item : k;
        const std::int32_t s = item < k ? k : item;
        x.delta[static_cast<std::uint64_t>(r) * n + s] = problem.delta(perm, r, s);
    }
    team.sync();
}

/// Runs one search (every thread of the team calls it alike). `perm` (n contiguous words,
/// visible to the whole team) holds the start and is the current permutation throughout; on
/// return x.best holds the best permutation found. Returns the search's result.
LOCUS_EXEC_CHECK_DISABLE
template <class Team, class P>
LOCUS_HD SearchResult run_search(const Team& team, const P& problem, const MultiStartPlan& plan,
                                 std::uint64_t search, const SearchArrays& x, std::int32_t* perm) {
    const std::int32_t n = problem.size();
    const auto nn = static_cast<std::uint64_t>(n);
    team.sync();
    for (std::int32_t i = static_cast<std::int32_t>(team.rank()); i < n;
         i += static_cast<std::int32_t>(team.size()))
        x.best[static_cast<std::uint32_t>(i)] = perm[i];
    std::int64_t cost = 0;
    for (std::int32_t i = static_cast<std::int32_t>(team.rank()); i < n;
         i += static_cast<std::int32_t>(team.size()))
        cost += problem.row_cost(perm, i);
    cost = team.sum(cost);
    SearchResult result{cost, cost, 0, 0, 0, 0};
    // The delta table, plan.halt_rows rows at a time between reads of the halt flag (n^3 work:
    // a second at n = 1000); a search halted here ends at its start.
    for (std::int32_t r0 = 0; r0 < n; r0 += plan.halt_rows) {
        if (raised(team, plan.halt)) return result;
        const std::int32_t rows = r0 + plan.halt_rows < n ? plan.halt_rows : n - r0;
        const std::uint64_t slots = static_cast<std::uint64_t>(rows) * nn;
        for (std::uint64_t slot = team.rank(); slot < slots; slot += team.size()) {
            const auto r = r0 + static_cast<std::int32_t>(slot / nn);
            const auto c = static_cast<std::int32_t>(slot % nn);
            if (r < c)
                x.delta[static_cast<std::uint64_t>(r) * nn + static_cast<std::uint64_t>(c)] =
                    problem.delta(perm, r, c);
        }
    }
    if (plan.strategy == Strategy::ts)
        for (std::uint64_t i = team.rank(); i < nn * nn; i += team.size())
            x.tabu[i] = 0;
    team.sync();

    double temperature = 0.0;
    if (plan.strategy == Strategy::sa) {
        // Mean uphill delta of `samples` random swaps (deltas read from the table).
        std::int64_t uphill = 0;
        std::uint64_t count = 0;
        for (std::uint32_t k = 0; k < plan.samples; ++k) {
            std::int32_t r = 0, s = 0;
            random_pair(draw(plan, search, k, 1), n, r, s);
            const std::int64_t d =
                x.delta[static_cast<std::uint64_t>(r) * nn + static_cast<std::uint64_t>(s)];
            if (d > 0) {
                uphill += d;
                ++count;
            }
        }
        temperature = derived_temperature(static_cast<double>(uphill), count, plan.log_accept0);
    }
    // The schedule from T0 to T0 * final_ratio over `iterations` moves.
    const Cooling cooling =
        Cooling::make(plan.schedule, temperature, plan.cooling, plan.final_ratio, plan.iterations);

    for (std::uint64_t it = 0; it < plan.iterations; ++it) {
        if (it % plan.halt_every == 0 && raised(team, plan.halt)) break;
        std::int32_t u = -1, v = -1;
        if (plan.strategy == Strategy::hc_best || plan.strategy == Strategy::ts) {
            const bool tabu = plan.strategy == Strategy::ts;
            // Best admissible move (TS: not tabu, or aspirated by a new best), ties to the
            // lowest pair index; TS falls back to the best of all moves when none is admissible.
            std::int64_t best_value = INT64_MAX;
            std::uint32_t best_index = kNoPair;
            std::int64_t any_value = INT64_MAX;
            std::uint32_t any_index = kNoPair;
            for_pairs(team, n, [&](std::int32_t r, std::int32_t s) {
                const auto k = static_cast<std::uint32_t>(r * n + s);
                const std::int64_t d = x.delta[k];
                if (tabu) {
                    if (d < any_value) {
                        any_value = d;
                        any_index = k;
                    }
                    const std::int32_t pr = perm[r], ps = perm[s];
                    const bool allowed =
                        static_cast<std::uint64_t>(x.tabu[static_cast<std::uint64_t>(r) * nn +
                                                          static_cast<std::uint64_t>(ps)]) <= it ||
                        static_cast<std::uint64_t>(x.tabu[static_cast<std::uint64_t>(s) * nn +
                                                          static_cast<std::uint64_t>(pr)]) <= it;
                    if (!allowed && cost + d >= result.best) return;
                }
                if (d < best_value) {
                    best_value = d;
                    best_index = k;
                }
            });
            team.argmin(best_value, best_index);
            if (tabu) {
                team.argmin(any_value, any_index);
                if (best_index == kNoPair) {
                    best_value = any_value;
                    best_index = any_index;
                }
            } else if (best_index == kNoPair || best_value >= 0) {
                break; // local optimum
            }
            u = static_cast<std::int32_t>(best_index / static_cast<std::uint32_t>(n));
            v = static_cast<std::int32_t>(best_index % static_cast<std::uint32_t>(n));
        } else if (plan.strategy == Strategy::hc_first) {
            std::uint32_t first = kNoPair;
            for_pairs(team, n, [&](std::int32_t r, std::int32_t s) {
                const auto k = static_cast<std::uint32_t>(r * n + s);
                if (k < first && x.delta[k] < 0) first = k;
            });
            first = team.min(first);
            if (first == kNoPair) break; // local optimum
            u = static_cast<std::int32_t>(first / static_cast<std::uint32_t>(n));
            v = static_cast<std::int32_t>(first % static_cast<std::uint32_t>(n));
        } else { // simulated annealing
            std::int32_t r = 0, s = 0;
            random_pair(draw(plan, search, it, 2), n, r, s);
            const std::int64_t d =
                x.delta[static_cast<std::uint64_t>(r) * nn + static_cast<std::uint64_t>(s)];
            bool accept = d <= 0;
            if (!accept && temperature > 0.0)
                accept = metropolis(static_cast<double>(d), temperature,
                                    unit_interval(draw(plan, search, it, 3)));
            temperature = cooling.next(temperature, it);
            if (!accept) continue;
            u = r;
            v = s;
        }
        const std::int64_t d =
            x.delta[static_cast<std::uint64_t>(u) * nn + static_cast<std::uint64_t>(v)];
        if (plan.strategy == Strategy::ts) {
            // Item u leaves location p[u], item v leaves p[v]: returning there is tabu.
            const std::uint64_t bits = draw(plan, search, it, 4);
            const auto t1 = plan.tenure_min + static_cast<std::uint32_t>(bits % plan.tenure_span);
            const auto t2 =
                plan.tenure_min + static_cast<std::uint32_t>((bits >> 32) % plan.tenure_span);
            team.sync();
            if (team.rank() == 0) {
                x.tabu[static_cast<std::uint64_t>(u) * nn + static_cast<std::uint64_t>(perm[u])] =
                    static_cast<std::int32_t>(it + t1);
                x.tabu[static_cast<std::uint64_t>(v) * nn + static_cast<std::uint64_t>(perm[v])] =
                    static_cast<std::int32_t>(it + t2);
            }
        }
        apply_swap(team, problem, x, perm, u, v);
        cost += d;
        ++result.moves;
        if (plan.check_moves) {
            std::int64_t full = 0;
            for (std::int32_t i = static_cast<std::int32_t>(team.rank()); i < n;
                 i += static_cast<std::int32_t>(team.size()))
                full += problem.row_cost(perm, i);
            full = team.sum(full);
            if (full != cost) {
                result.check_failed = 1;
                result.full = full;
                break;
            }
        }
        if (cost < result.best) {
            result.best = cost;
            result.improved_at = result.moves;
            for (std::int32_t i = static_cast<std::int32_t>(team.rank()); i < n;
                 i += static_cast<std::int32_t>(team.size()))
                x.best[static_cast<std::uint32_t>(i)] = perm[i];
        }
    }
    team.sync();
    result.final = cost;
    return result;
}

} // namespace detail

/// CPU twin: runs `searches` searches, search i starting from permutation starts[i*n .. i*n+n)
/// and writing its best permutation to best[i*n ..] and its result to results[i]. OpenMP
/// threads (0 = all cores); results do not depend on the thread count. `stop` (optional) is
/// polled by a watchdog thread every 2 ms; once it returns true the searches under way end
/// with their best so far (within plan.halt_every iterations) and the remaining ones are
/// skipped: their best is their start, with zero moves. Returns the number of searches that
/// ran (the ones ended early included).
template <class P>
std::uint32_t run_multistart_cpu(const P& problem, const MultiStartConfig& config,
                                 std::uint32_t searches, const std::int32_t* starts,
                                 std::int32_t* best, SearchResult* results, int threads = 0,
                                 const std::function<bool()>& stop = {}) {
    const std::int32_t n = problem.size();
    MultiStartPlan plan = plan_multistart(config, n);
    const auto nn = static_cast<std::size_t>(n);
    std::atomic<std::uint32_t> ran{0};
    // A watchdog thread polls `stop` and raises the halt flag the searches read, so that a
    // long search (n = 1000: seconds) ends at the limit too; started searches then end with
    // their best so far, the others are skipped.
    Watchdog watchdog(stop, true);
    if (stop) plan.halt = watchdog.flag();
#if defined(_OPENMP)
    const int team = resolve_threads(threads);
#pragma omp parallel num_threads(team)
#endif
    {
        std::vector<std::int32_t> perm(nn);
        std::vector<std::int64_t> delta(nn * nn);
        std::vector<std::int32_t> tabu(plan.strategy == Strategy::ts ? nn * nn : 0);
#if defined(_OPENMP)
#pragma omp for schedule(dynamic, 1)
#endif
        for (std::int64_t i = 0; i < static_cast<std::int64_t>(searches); ++i) {
            const auto s = static_cast<std::size_t>(i);
            std::copy_n(starts + s * nn, nn, perm.data());
            if (watchdog.raised()) {
                std::copy_n(perm.data(), nn, best + s * nn);
                std::int64_t cost = 0;
                for (std::int32_t r = 0; r < n; ++r)
                    cost += problem.row_cost(perm.data(), r);
                results[s] = {cost, cost, 0, 0, 0, 0};
                continue;
            }
            const SearchArrays x{{best + s * nn, 1}, {delta.data(), 1}, {tabu.data(), 1}};
            results[s] = detail::run_search(SerialTeam{}, problem, plan,
                                            static_cast<std::uint64_t>(i), x, perm.data());
            ran.fetch_add(1);
        }
    }
    (void)threads;
    return ran.load();
}

} // namespace locus::gpu
