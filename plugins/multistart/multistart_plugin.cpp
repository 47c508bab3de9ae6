// The multi-start local search of Luong et al. as an algorithm plugin, `multistart`: rounds of
// many independent searches (hill climbing, simulated annealing, tabu search) on the searches a
// problem offers through its multistart_policy component (multistart_policy_component.hpp),
// with optional elite restarts between rounds.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "locus/algorithm.hpp"
#include "locus/error.hpp"
#include "locus/gpu/multistart_policy_component.hpp"
#include "locus/params.hpp"
#include "locus/plugin.hpp"
#include "locus/problem.hpp"
#include "locus/registry.hpp"
#include "locus/rng.hpp"
#include "locus/rng_salts.hpp"
#include "locus/search_context.hpp"

namespace locus::multistart {
namespace {

struct MultiStartOptions {
    gpu::MultiStartConfig config;
    gpu::Mapping mapping = gpu::Mapping::block;
    std::uint64_t rounds = 0; ///< 0 = until the termination criteria
    std::uint32_t elite = 0;  ///< restart from the best `elite` solutions (0 = keep the starts)
    std::uint32_t kick = 0;   ///< random swaps applied to an elite start (0 = n / 10 + 2)
};

/// Best distinct solutions over all rounds (objective, solution).
using ElitePool = std::vector<std::pair<std::int64_t, std::vector<std::int32_t>>>;

/// Rounds of `searches` (the batch size) multi-start searches; after every round the best
/// solution is offered, and with elite restarts the next round starts from perturbed copies of
/// the best distinct solutions found so far. The solutions are permutations (an elite restart
/// swaps random pairs of positions).
class MultiStart final : public Algorithm {
public:
    MultiStart(std::unique_ptr<gpu::MultiStartPolicyComponent> policy, MultiStartOptions options)
        : policy_(std::move(policy)), options_(options) {}

    void run(SolutionBatch& batch, SearchContext& ctx) override {
        const auto searches = static_cast<std::uint32_t>(batch.count());
        const std::size_t n = batch.width();
        auto runner = policy_->make_runner(searches, options_.mapping, options_.config.strategy);
        ctx.offer(batch);
        std::vector<std::int32_t> starts(batch.data().begin(), batch.data().end());
        std::vector<std::int32_t> best(starts.size());
        std::vector<gpu::SearchResult> results(searches);
        ElitePool elite;
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
            check_results(results, round);
            const std::uint64_t moves = report_round(batch, ctx, best, results, ran, n);
            if (options_.elite == 0) {
                // Hill climbing from local optima cannot move again: the search has converged.
                if (moves == 0 && ran == searches) {
                    ctx.set_converged();
                    break;
                }
                starts = best; // continue every search from its best solution
                continue;
            }
            update_elite(elite, best, results, n);
            restart_from_elite(starts, elite, config.seed, kick, n);
        }
    }

private:
    static void check_results(const std::vector<gpu::SearchResult>& results, std::uint64_t round) {
        for (std::size_t s = 0; s < results.size(); ++s)
            if (results[s].check_failed != 0)
                throw Error(fmt::format("check_moves: multi-start search {} of round {} after "
                                        "move {} has objective {} by delta but {} by full "
                                        "evaluation",
                                        s, round, results[s].moves, results[s].final,
                                        results[s].full));
    }

    /// Counts the round, offers its best and copies every search's best into the batch;
    /// returns the moves of all searches.
    std::uint64_t report_round(SolutionBatch& batch, SearchContext& ctx,
                               const std::vector<std::int32_t>& best,
                               const std::vector<gpu::SearchResult>& results, std::uint32_t ran,
                               std::size_t n) const {
        const auto searches = static_cast<std::uint32_t>(results.size());
        std::uint64_t moves = 0;
        std::uint64_t longest = 0;
        std::uint32_t leader = 0;
        for (std::uint32_t s = 0; s < searches; ++s) {
            moves += results[s].moves;
            longest = std::max(longest, results[s].moves);
            if (results[s].best < results[leader].best) leader = s;
        }
        // Hill climbing and tabu search scan the whole neighborhood per move; annealing draws
        // one move per step (every step of the searches that ran, accepted or not). Iterations
        // are the steps of the longest search of the round.
        const bool annealing = options_.config.strategy == gpu::Strategy::sa;
        ctx.add_evaluations(annealing ? static_cast<std::uint64_t>(ran) * options_.config.iterations
                                      : moves * policy_->evaluations_per_move());
        ctx.add_iterations(annealing ? (ran > 0 ? options_.config.iterations : 0) : longest);
        ctx.offer(std::span<const std::int32_t>(best.data() + leader * n, n),
                  static_cast<Objective>(results[leader].best));
        for (std::uint32_t s = 0; s < searches; ++s) {
            std::copy_n(best.data() + static_cast<std::size_t>(s) * n, n, batch[s].begin());
            batch.objective(s) = static_cast<Objective>(results[s].best);
        }
        return moves;
    }

    void update_elite(ElitePool& elite, const std::vector<std::int32_t>& best,
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

    /// Search s starts the next round from elite solution s mod |elite| after `kick` random
    /// swaps of two distinct positions.
    static void restart_from_elite(std::vector<std::int32_t>& starts, const ElitePool& elite,
                                   std::uint64_t seed, std::uint32_t kick, std::size_t n) {
        const std::size_t searches = starts.size() / n;
        for (std::size_t s = 0; s < searches; ++s) {
            const auto& from = elite[s % elite.size()].second;
            std::int32_t* p = starts.data() + s * n;
            std::copy(from.begin(), from.end(), p);
            Rng rng(derive_key(seed, s, salt::kQapKick), 0);
            for (std::uint32_t k = 0; k < kick; ++k) {
                const std::uint32_t r = rng.below(static_cast<std::uint32_t>(n));
                const std::uint32_t q = (r + 1 + rng.below(static_cast<std::uint32_t>(n - 1))) %
                                        static_cast<std::uint32_t>(n);
                std::swap(p[r], p[q]);
            }
        }
    }

    std::unique_ptr<gpu::MultiStartPolicyComponent> policy_;
    MultiStartOptions options_;
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

MultiStartOptions options_of(const Params& p, const BuildContext& b) {
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
    return o;
}

std::unique_ptr<Component> build_multistart(const Params& p, BuildContext& b) {
    if (b.problem == nullptr) throw ConfigError(fmt::format("{} needs a loaded problem", p.name()));
    auto policy = b.registry->create<gpu::MultiStartPolicyComponent>(p.get_component("policy"), b);
    MultiStartOptions o = options_of(p, b);
    try {
        (void)gpu::plan_multistart(o.config, static_cast<std::int32_t>(b.problem->size()));
    } catch (const Error& e) {
        throw ConfigError(p.path() + ": " + e.what());
    }
    return std::make_unique<MultiStart>(std::move(policy), o);
}

void register_components(Registry& registry) {
    ComponentSchema ms{"algorithm", "multistart", "",
                       "Multi-start local search (Luong et al.): one search per solution of the "
                       "batch, all in one launch per round (CUDA: one thread, warp or block per "
                       "search; CPU: all cores, identical results), over the problem's "
                       "multistart_policy. Strategy hc_best / hc_first "
                       "(hill climbing to a local optimum or `iterations` moves), sa (simulated "
                       "annealing over `iterations` moves), ts (robust tabu search). "
                       "After each round every search continues from its best solution, or "
                       "with `elite` > 0 from a perturbed copy of one of the best distinct "
                       "solutions so far. Iterations count moves per search. Problems with "
                       "multi-start searches: qap."};
    ms.component("policy", "multistart_policy", "swap",
                 "the problem's searches (the QAP's swap neighborhood: `swap`)");
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
    registry.add(std::move(ms), build_multistart);
}

} // namespace
} // namespace locus::multistart

LOCUS_PLUGIN("multistart", "Multi-start local search over the searches of a problem",
             locus::multistart::register_components)
