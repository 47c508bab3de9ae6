// QAP multi-start: 32-bit matrices for the engine, the CPU runner, the greedy construction and
// the "multistart" algorithm (rounds of many searches, elite restarts).

#include "locus/qap/multistart.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "locus/algorithm.hpp"
#include "locus/error.hpp"
#include "locus/params.hpp"
#include "locus/problem.hpp"
#include "locus/qap/multistart_policy.hpp"
#include "locus/qap/qap_problem.hpp"
#include "locus/registry.hpp"
#include "locus/rng.hpp"
#include "locus/rng_salts.hpp"
#include "locus/search_context.hpp"

namespace locus::qap {

std::vector<std::int32_t> matrix_words(const Instance& instance) {
    // Swap deltas sum 2n products of differences of entries: |delta| <= 8 n max|a| max|b|.
    std::int64_t max_a = 0, max_b = 0;
    for (const std::int64_t v : instance.a)
        max_a = std::max(max_a, v < 0 ? -v : v);
    for (const std::int64_t v : instance.b)
        max_b = std::max(max_b, v < 0 ? -v : v);
    // NOTE: in double: a bound this coarse only needs the magnitude.
    const double bound = 8.0 * static_cast<double>(instance.n) * static_cast<double>(max_a) *
                         static_cast<double>(max_b);
    if (bound > 0x1p62)
        throw InstanceError(
            fmt::format("{}: swap deltas could overflow 64 bits (8 n max(A) max(B) with "
                        "n = {}, max(A) = {}, max(B) = {} exceeds 2^62)",
                        instance.name, instance.n, max_a, max_b));
    std::vector<std::int32_t> words;
    words.reserve(instance.a.size() + instance.b.size());
    for (const auto* matrix : {&instance.a, &instance.b})
        for (const std::int64_t v : *matrix) {
            if (v > std::numeric_limits<std::int32_t>::max() ||
                v < std::numeric_limits<std::int32_t>::min())
                throw InstanceError(fmt::format("{}: value {} does not fit in 32 bits, which the "
                                                "multi-start engine stores the matrices in",
                                                instance.name, v));
            words.push_back(static_cast<std::int32_t>(v));
        }
    return words;
}

namespace {

class CpuMultiStart final : public MultiStartRunner {
public:
    CpuMultiStart(const Instance& instance, int threads)
        : words_(matrix_words(instance)), n_(instance.n), threads_(threads) {}
    std::uint32_t run(const gpu::MultiStartConfig& config, std::uint32_t searches,
                      const std::int32_t* starts, std::int32_t* best, gpu::SearchResult* results,
                      const std::function<bool()>& stop) override {
        return gpu::run_multistart_cpu(swap_policy(words_.data(), n_, false), config, searches,
                                       starts, best, results, threads_, stop);
    }

private:
    std::vector<std::int32_t> words_;
    std::int32_t n_;
    int threads_;
};

const QapProblem& qap_problem(const BuildContext& build, const char* what) {
    return problem_as<QapProblem>(build, "qap", what);
}

/// Greedy construction: facilities in decreasing order of total flow; each goes to the free
/// location that adds the least cost against the facilities already placed (flows both ways
/// and the diagonal), chosen uniformly among the `candidates` best locations (1: purely greedy).
class GreedyConstruction final : public Construction {
public:
    GreedyConstruction(const QapProblem& problem, std::int32_t candidates)
        : problem_(problem), candidates_(candidates) {}

    void construct(SolutionBatch& batch, std::uint64_t seed) override {
        construct_until(batch, seed, {});
    }
    /// Polls `stop` every 32 placements (a solution costs n^3: half a second at n = 1000, four
    /// at n = 2000). Solution 0 is always completed: once stopped, its remaining facilities take
    /// the free locations in ascending order; the solutions not built copy solution 0.
    void construct_until(SolutionBatch& batch, std::uint64_t seed,
                         const std::function<bool()>& stop) override {
        const Instance& inst = problem_.instance();
        const std::int32_t n = inst.n;
        std::vector<std::int32_t> order(static_cast<std::size_t>(n));
        std::iota(order.begin(), order.end(), 0);
        std::vector<std::int64_t> weight(static_cast<std::size_t>(n), 0);
        for (std::int32_t i = 0; i < n; ++i)
            for (std::int32_t j = 0; j < n; ++j)
                weight[static_cast<std::size_t>(i)] += inst.flow(i, j) + inst.flow(j, i);
        std::stable_sort(order.begin(), order.end(), [&](std::int32_t x, std::int32_t y) {
            return weight[static_cast<std::size_t>(x)] > weight[static_cast<std::size_t>(y)];
        });
        std::vector<std::pair<std::int64_t, std::int32_t>> options;
        std::size_t built = 0;
        bool stopped = false;
        for (std::size_t k = 0; k < batch.count() && !stopped; ++k) {
            Rng rng(derive_key(seed, k, salt::kQapGreedy), 0);
            auto p = batch[k];
            std::vector<char> used(static_cast<std::size_t>(n), 0);
            std::vector<std::int32_t> placed;
            for (const std::int32_t f : order) {
                // NOTE: a placement is O(n * placed) (n = 2000: milliseconds); the process-wide
                // flag is read at each, the stop test every 32.
                if (stop_requested() || (stop && placed.size() % 32 == 0 && stop())) {
                    stopped = true;
                    break;
                }
                options.clear();
                for (std::int32_t l = 0; l < n; ++l) {
                    if (used[static_cast<std::size_t>(l)]) continue;
                    std::int64_t cost = inst.flow(f, f) * inst.distance(l, l);
                    for (const std::int32_t g : placed) {
                        const std::int32_t m = p[static_cast<std::size_t>(g)];
                        cost += inst.flow(f, g) * inst.distance(l, m) +
                                inst.flow(g, f) * inst.distance(m, l);
                    }
                    options.emplace_back(cost, l);
                }
                const auto keep =
                    std::min<std::size_t>(static_cast<std::size_t>(candidates_), options.size());
                std::partial_sort(options.begin(),
                                  options.begin() + static_cast<std::ptrdiff_t>(keep),
                                  options.end());
                const std::int32_t l =
                    options[keep == 1 ? 0 : rng.below(static_cast<std::uint32_t>(keep))].second;
                p[static_cast<std::size_t>(f)] = l;
                used[static_cast<std::size_t>(l)] = 1;
                placed.push_back(f);
            }
            if (stopped && k > 0) break;
            if (stopped) { // solution 0: the facilities not placed (the rest of `order`) take
                           // the free locations in ascending order
                std::int32_t next = 0;
                for (std::size_t i = placed.size(); i < order.size(); ++i) {
                    while (used[static_cast<std::size_t>(next)]) ++next;
                    p[static_cast<std::size_t>(order[i])] = next;
                    used[static_cast<std::size_t>(next)] = 1;
                }
            }
            batch.objective(k) = problem_.evaluate(p);
            built = k + 1;
        }
        for (std::size_t k = built; k < batch.count(); ++k) {
            std::copy(batch[0].begin(), batch[0].end(), batch[k].begin());
            batch.objective(k) = batch.objective(0);
        }
    }

private:
    const QapProblem& problem_;
    std::int32_t candidates_;
};

struct MultiStartOptions {
    gpu::MultiStartConfig config;
    gpu::Mapping mapping = gpu::Mapping::block;
    std::uint64_t rounds = 0; ///< 0 = until the termination criteria
    std::uint32_t elite = 0;  ///< restart from the best `elite` solutions (0 = keep the starts)
    std::uint32_t kick = 0;   ///< random swaps applied to an elite start (0 = n / 10 + 2)
};

/// Rounds of `searches` (the batch size) multi-start searches; after every round the best
/// solution is offered, and with elite restarts the next round starts from perturbed copies of
/// the best distinct solutions found so far.
class MultiStart final : public Algorithm {
public:
    MultiStart(const QapProblem& problem, MultiStartOptions options, const BuildContext& build)
        : problem_(problem), options_(options), backend_(build.backend), device_(build.device),
          threads_(build.threads), budget_{build.memory_budget, build.memory_fraction} {}

    void run(SolutionBatch& batch, SearchContext& ctx) override {
        const auto searches = static_cast<std::uint32_t>(batch.count());
        const auto n = static_cast<std::size_t>(problem_.size());
        auto runner = backend_ == Backend::cuda
                          ? make_cuda_multistart(problem_.instance(), searches, options_.mapping,
                                                 options_.config.strategy, device_, budget_)
                          : make_cpu_multistart(problem_.instance(), threads_);
        ctx.offer(batch);
        std::vector<std::int32_t> starts(batch.data().begin(), batch.data().end());
        std::vector<std::int32_t> best(starts.size());
        std::vector<gpu::SearchResult> results(searches);
        // Elite pool: best distinct solutions over all rounds (objective, permutation).
        std::vector<std::pair<std::int64_t, std::vector<std::int32_t>>> elite;
        const std::uint32_t kick =
            options_.kick != 0 ? options_.kick : static_cast<std::uint32_t>(n / 10 + 2);
        for (std::uint64_t round = 0; options_.rounds == 0 || round < options_.rounds; ++round) {
            if (ctx.should_stop()) break;
            gpu::MultiStartConfig config = options_.config;
            config.seed = derive_key(ctx.seed(), round, salt::kQapMultiStart);
            // NOTE: SearchContext::should_stop is only called one thread at a time (by the CPU
            // twin's watchdog thread, or the thread waiting for the device).
            const std::uint32_t ran =
                runner->run(config, searches, starts.data(), best.data(), results.data(),
                            [&ctx] { return ctx.should_stop(); });
            std::uint64_t moves = 0;
            std::uint64_t longest = 0;
            std::uint32_t leader = 0;
            for (std::uint32_t s = 0; s < searches; ++s)
                if (results[s].check_failed != 0)
                    throw Error(fmt::format("check_moves: multi-start search {} of round {} after "
                                            "move {} has objective {} by delta but {} by full "
                                            "evaluation",
                                            s, round, results[s].moves, results[s].final,
                                            results[s].full));
            for (std::uint32_t s = 0; s < searches; ++s) {
                moves += results[s].moves;
                longest = std::max(longest, results[s].moves);
                if (results[s].best < results[leader].best) leader = s;
            }
            // Hill climbing and tabu search scan every swap per move; annealing draws one swap
            // per step (every step of the searches that ran, accepted or not). Iterations are the
            // steps of the longest search of the round.
            const bool annealing = options_.config.strategy == gpu::Strategy::sa;
            ctx.add_evaluations(annealing
                                    ? static_cast<std::uint64_t>(ran) * options_.config.iterations
                                    : moves * (n * (n - 1) / 2));
            ctx.add_iterations(annealing ? (ran > 0 ? options_.config.iterations : 0) : longest);
            ctx.offer(std::span<const std::int32_t>(best.data() + leader * n, n),
                      static_cast<Objective>(results[leader].best));
            for (std::uint32_t s = 0; s < searches; ++s) {
                std::copy_n(best.data() + static_cast<std::size_t>(s) * n, n, batch[s].begin());
                batch.objective(s) = static_cast<Objective>(results[s].best);
            }
            if (options_.elite == 0) {
                // Hill climbing from local optima cannot move again: the search has converged.
                if (moves == 0 && ran == searches) {
                    ctx.set_converged();
                    break;
                }
                starts = best; // continue every search from its best permutation
                continue;
            }
            update_elite(elite, best, results, n);
            for (std::uint32_t s = 0; s < searches; ++s) {
                const auto& from = elite[s % elite.size()].second;
                std::int32_t* p = starts.data() + static_cast<std::size_t>(s) * n;
                std::copy(from.begin(), from.end(), p);
                Rng rng(derive_key(config.seed, s, salt::kQapKick), 0);
                for (std::uint32_t k = 0; k < kick; ++k) {
                    const std::uint32_t r = rng.below(static_cast<std::uint32_t>(n));
                    const std::uint32_t q = (r + 1 + rng.below(static_cast<std::uint32_t>(n - 1))) %
                                            static_cast<std::uint32_t>(n);
                    std::swap(p[r], p[q]);
                }
            }
        }
    }

private:
    void update_elite(std::vector<std::pair<std::int64_t, std::vector<std::int32_t>>>& elite,
                      const std::vector<std::int32_t>& best,
                      const std::vector<gpu::SearchResult>& results, std::size_t n) const {
        for (std::size_t s = 0; s < results.size(); ++s) {
            std::vector<std::int32_t> p(best.begin() + static_cast<std::ptrdiff_t>(s * n),
                                        best.begin() + static_cast<std::ptrdiff_t>((s + 1) * n));
            const bool known = std::any_of(elite.begin(), elite.end(), [&](const auto& e) {
                return e.first == results[s].best && e.second == p;
            });
            if (!known) elite.emplace_back(results[s].best, std::move(p));
        }
        std::stable_sort(elite.begin(), elite.end(),
                         [](const auto& x, const auto& y) { return x.first < y.first; });
        if (elite.size() > options_.elite) elite.resize(options_.elite);
    }

    const QapProblem& problem_;
    MultiStartOptions options_;
    Backend backend_;
    int device_;
    int threads_;
    gpu::MemoryBudget budget_;
};

gpu::Strategy strategy_of(const std::string& name) {
    if (name == "hc_best") return gpu::Strategy::hc_best;
    if (name == "hc_first") return gpu::Strategy::hc_first;
    if (name == "sa") return gpu::Strategy::sa;
    return gpu::Strategy::ts;
}

gpu::Mapping mapping_of(const std::string& name) {
    if (name == "thread") return gpu::Mapping::thread;
    if (name == "warp") return gpu::Mapping::warp;
    return gpu::Mapping::block;
}

} // namespace

std::unique_ptr<MultiStartRunner> make_cpu_multistart(const Instance& instance, int threads) {
    return std::make_unique<CpuMultiStart>(instance, threads);
}

void register_multistart(Registry& registry) {
    ComponentSchema greedy{"construction", "greedy", "qap",
                           "Greedy construction: facilities by decreasing total flow, each to the "
                           "free location adding the least cost against those already placed, "
                           "drawn among the `candidates` cheapest (1 = deterministic)."};
    greedy.integer("candidates", "3", "locations drawn from per facility (1 = purely greedy)", 1,
                   1000000);
    registry.add(greedy, [](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
        return std::make_unique<GreedyConstruction>(
            qap_problem(b, "greedy"), static_cast<std::int32_t>(p.get_int("candidates")));
    });

    ComponentSchema ms{"algorithm", "multistart", "qap",
                       "Multi-start local search (Luong et al.): one search per solution of the "
                       "batch, all in one launch per round (CUDA: one thread, warp or block per "
                       "search; CPU: all cores, identical results). Strategy hc_best / hc_first "
                       "(hill climbing to a local optimum or `iterations` moves), sa (simulated "
                       "annealing over `iterations` moves), ts (robust tabu search). "
                       "After each round every search continues from its best permutation, or "
                       "with `elite` > 0 from a perturbed copy of one of the best distinct "
                       "solutions so far. Iterations count moves per search."};
    ms.choice("strategy", "ts", {"hc_best", "hc_first", "sa", "ts"},
              "local search of every search");
    ms.choice("mapping", "block", {"thread", "warp", "block"},
              "CUDA threads per search (block: fastest on H200 at 4096 searches)");
    ms.integer("iterations", "1000", "moves per search and round (hill climbing: at most)", 1,
               2000000000);
    ms.integer("rounds", "0", "rounds (0 = until the termination criteria)", 0);
    ms.integer("elite", "0", "elite solutions restarted from after each round (0 = none)", 0,
               1000000);
    ms.integer("kick", "0", "random swaps applied to an elite restart (0 = n/10 + 2)", 0, 1000000);
    ms.real("accept0", "0.5", "SA: acceptance probability of the mean uphill move at the start",
            1e-9, 0.999999);
    ms.real("final_ratio", "0.001", "SA: final temperature / initial temperature", 1e-12, 1.0);
    ms.choice("schedule", "geometric", {"geometric", "linear", "lundy_mees"},
              "SA: cooling from T0 to T0 * final_ratio over the moves (geometric, linear, or "
              "Lundy-Mees T/(1 + beta T))");
    ms.integer("samples", "100", "SA: random swaps sampled for the initial temperature", 1,
               1000000);
    ms.integer("tenure_min", "0", "TS: smallest tabu tenure (0 with tenure_max 0: 0.9 n)", 0,
               1000000);
    ms.integer("tenure_max", "0", "TS: largest tabu tenure (0 with tenure_min 0: 1.1 n)", 0,
               1000000);
    registry.add(ms, [](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
        const QapProblem& problem = qap_problem(b, "multistart");
        MultiStartOptions o;
        o.config.strategy = strategy_of(p.get_string("strategy"));
        o.config.iterations = static_cast<std::uint64_t>(p.get_int("iterations"));
        o.config.check_moves = b.check_moves;
        o.config.accept0 = p.get_real("accept0");
        o.config.final_ratio = p.get_real("final_ratio");
        const std::string& schedule = p.get_string("schedule");
        o.config.schedule = schedule == "linear"       ? gpu::Schedule::linear
                            : schedule == "lundy_mees" ? gpu::Schedule::lundy_mees
                                                       : gpu::Schedule::geometric;
        o.config.samples = static_cast<std::uint32_t>(p.get_int("samples"));
        o.config.tenure_min = static_cast<std::uint32_t>(p.get_int("tenure_min"));
        o.config.tenure_max = static_cast<std::uint32_t>(p.get_int("tenure_max"));
        o.mapping = mapping_of(p.get_string("mapping"));
        o.rounds = static_cast<std::uint64_t>(p.get_int("rounds"));
        o.elite = static_cast<std::uint32_t>(p.get_int("elite"));
        o.kick = static_cast<std::uint32_t>(p.get_int("kick"));
        try {
            (void)gpu::plan_multistart(o.config, static_cast<std::int32_t>(problem.size()));
        } catch (const Error& e) {
            throw ConfigError(p.path() + ": " + e.what());
        }
        return std::make_unique<MultiStart>(problem, o, b);
    });
}

} // namespace locus::qap
