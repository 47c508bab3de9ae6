// QAP multi-start: 32-bit matrices for the engine, the CPU runner, the greedy construction and
// the swap searches offered to the multistart algorithm (plugins/multistart) as the
// multistart_policy `swap`.

#include "locus/qap/multistart.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/gpu/multistart_policy_component.hpp"
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

    gpu::MultiStartPolicySpec spec;
    spec.problem = "qap";
    spec.name = "swap";
    spec.doc = "The QAP's searches for the multistart algorithm: hill climbing, simulated "
               "annealing and robust tabu search over the swaps of two facilities' locations, "
               "each search over its own table of swap deltas (O(1) updates per pair), on the "
               "multi-start engine (CUDA: one thread, warp or block per search; CPU twin on all "
               "cores). No parameters of its own.";
    spec.evaluations_per_move = [](const BuildContext& b) -> std::uint64_t {
        const std::uint64_t n = qap_problem(b, "swap").size();
        return n * (n - 1) / 2;
    };
    spec.cpu = [](const BuildContext& b, std::uint32_t, gpu::Mapping, gpu::Strategy,
                  const gpu::EngineSettings& settings) {
        return make_cpu_multistart(qap_problem(b, "swap").instance(), settings.threads);
    };
    spec.cuda = [](const BuildContext& b, std::uint32_t capacity, gpu::Mapping mapping,
                   gpu::Strategy strategy, const gpu::EngineSettings& settings) {
        return make_cuda_multistart(qap_problem(b, "swap").instance(), capacity, mapping,
                                    strategy, settings.device, settings.memory);
    };
    gpu::register_multistart_policy(registry, std::move(spec));
}

} // namespace locus::qap
