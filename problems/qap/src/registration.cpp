// The QAP components: problem, random construction, random-swap perturbation, swap neighborhood.

#include <algorithm>
#include <functional>
#include <memory>
#include <numeric>

#include "locus/error.hpp"
#include "locus/params.hpp"
#include "locus/qap/chain_runner.hpp"
#include "locus/qap/multistart.hpp"
#include "locus/registry.hpp"
#include "locus/rng.hpp"
#include "locus/qap/qap_problem.hpp"
#include "locus/qap/swap_neighborhood.hpp"

namespace locus::qap {
namespace {

const QapProblem& qap_of(const BuildContext& build) {
    return problem_as<QapProblem>(build, "qap", "this QAP component");
}

/// Uniformly random permutations (Fisher-Yates), solution i from derive_key(seed, i).
class RandomPermutation final : public Construction {
public:
    explicit RandomPermutation(const QapProblem& problem) : problem_(problem) {}
    void construct(SolutionBatch& batch, std::uint64_t seed) override {
        construct_until(batch, seed, {});
    }
    /// Polls `stop` between solutions (an evaluation costs n^2: 4096 solutions of n = 1000
    /// take seconds); solutions not built copy solution 0.
    void construct_until(SolutionBatch& batch, std::uint64_t seed,
                         const std::function<bool()>& stop) override {
        std::size_t built = 0;
        for (; built < batch.count(); ++built) {
            if (built > 0 && stop && stop()) break;
            auto p = batch[built];
            std::iota(p.begin(), p.end(), 0);
            Rng rng(derive_key(seed, built), 0);
            for (std::size_t k = p.size() - 1; k > 0; --k)
                std::swap(p[k], p[rng.below(static_cast<std::uint32_t>(k + 1))]);
            batch.objective(built) = problem_.evaluate(p);
        }
        for (std::size_t i = built; i < batch.count(); ++i) {
            std::copy(batch[0].begin(), batch[0].end(), batch[i].begin());
            batch.objective(i) = batch.objective(0);
        }
    }

private:
    const QapProblem& problem_;
};

/// `count` random exchanges of two facilities.
class RandomSwaps final : public Perturbation {
public:
    RandomSwaps(const QapProblem& problem, std::int32_t count) : problem_(problem), count_(count) {}
    void perturb(SolutionBatch& batch, std::uint64_t seed) override {
        const auto n = static_cast<std::uint32_t>(problem_.size());
        for (std::size_t i = 0; i < batch.count(); ++i) {
            auto p = batch[i];
            Rng rng(derive_key(seed, i), 0);
            for (std::int32_t k = 0; k < count_; ++k) {
                const std::uint32_t r = rng.below(n);
                const std::uint32_t s = (r + 1 + rng.below(n - 1)) % n;
                std::swap(p[r], p[s]);
            }
            batch.objective(i) = problem_.evaluate(p);
        }
    }

private:
    const QapProblem& problem_;
    std::int32_t count_;
};

} // namespace

void register_qap_components(Registry& registry) {
    ComponentSchema problem{"problem", "qap", "",
                            "Quadratic assignment: QAPLIB .dat files or 'random-qap:n=N[,seed=S]"
                            "[,max=M][,asymmetric=0|1]'; solutions are permutations."};
    problem
        .string("instance", "",
                "QAPLIB .dat file (found through the data path) or a generator spec")
        .required();
    problem.file_extensions = {".dat"};
    registry.add(problem, [](const Params& p, BuildContext&) -> std::unique_ptr<Component> {
        return QapProblem::load(p.get_string("instance"));
    });

    ComponentSchema random{"construction", "random", "qap", "Uniformly random permutation."};
    registry.add(random, [](const Params&, BuildContext& b) -> std::unique_ptr<Component> {
        return std::make_unique<RandomPermutation>(qap_of(b));
    });

    ComponentSchema swaps{"perturbation", "random_swaps", "qap",
                          "Random exchanges of two facilities."};
    swaps.integer("count", "3", "number of exchanges", 1, 1000000);
    registry.add(swaps, [](const Params& p, BuildContext& b) -> std::unique_ptr<Component> {
        return std::make_unique<RandomSwaps>(qap_of(b),
                                             static_cast<std::int32_t>(p.get_int("count")));
    });

    register_multistart(registry);
    register_resident_ils(registry);

    ComponentSchema swap{
        "neighborhood", "swap", "qap",
        "Exchange the locations of two facilities: n(n-1)/2 moves, O(n) delta each."};
    registry.add(swap, [](const Params&, BuildContext& b) -> std::unique_ptr<Component> {
        const gpu::EngineSettings settings = gpu::engine_settings(b);
        return b.backend == Backend::cuda ? make_cuda_swap(qap_of(b), settings)
                                          : make_cpu_swap(qap_of(b), settings);
    });
}

} // namespace locus::qap
