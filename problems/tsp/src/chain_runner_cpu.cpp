// CPU twin of the resident ILS: every chain runs the shared chain routine on one thread.

#include <algorithm>
#include <atomic>

#include <omp.h>

#include "locus/gpu/cpu_threads.hpp"
#include "locus/tsp/chain_runner.hpp"

namespace locus::tsp {
namespace {

template <class Metric, class Delta> class CpuChainRunner final : public ChainRunner {
public:
    using Point = typename Metric::point_type;

    CpuChainRunner(const TspProblem& problem, const ResidentIlsOptions& options, std::uint32_t chains,
                   int threads)
        : chains_(chains), threads_(threads) {
        const auto n = problem.size();
        const std::size_t total = n * chains;
        current_.resize(total);
        trial_.resize(total);
        best_.resize(total);
        pos_.resize(total);
        D_.resize(total);
        focus_list_.resize(total);
        scratch_.resize(total);
        focus_bits_.assign(total, 0);
        active_list_.resize(total);
        active_bits_.assign(total, 0);
        improving_.assign(total, 0);
        active_count_.assign(chains, 0);
        P_.resize((n + 1) * chains);
        focus_count_.assign(chains, 0);
        current_objective_.assign(chains, 0);
        trial_objective_.assign(chains, 0);
        best_objective_.assign(chains, 0);
        evaluations_.assign(chains, 0);
        a_.metric = host_metric<Metric>(problem.instance());
        a_.candidates = problem.candidates(options.candidates).data();
        a_.n = static_cast<std::int32_t>(n);
        a_.K = options.candidates;
        a_.window = options.window;
        a_.current = current_.data();
        a_.trial = trial_.data();
        a_.best = best_.data();
        a_.pos = pos_.data();
        a_.P = P_.data();
        a_.D = D_.data();
        a_.focus_bits = focus_bits_.data();
        a_.focus_list = focus_list_.data();
        a_.focus_count = focus_count_.data();
        a_.scratch = scratch_.data();
        a_.active_list = active_list_.data();
        a_.active_count = active_count_.data();
        a_.active_bits = active_bits_.data();
        a_.improving = improving_.data();
        a_.current_objective = current_objective_.data();
        a_.trial_objective = trial_objective_.data();
        a_.best_objective = best_objective_.data();
        a_.evaluations = evaluations_.data();
    }

    void start(const SolutionBatch& batch, const std::function<bool()>& stop, std::int64_t only) override {
        std::copy(batch.data().begin(), batch.data().end(), trial_.begin());
        // A chain whose initial descent is skipped (stop) starts from its constructed tour.
        std::copy(trial_.begin(), trial_.end(), current_.begin());
        std::copy(trial_.begin(), trial_.end(), best_.begin());
        for (std::uint32_t c = 0; c < chains_; ++c) {
            trial_objective_[c] = static_cast<std::int64_t>(batch.objective(c));
            current_objective_[c] = best_objective_[c] = trial_objective_[c];
        }
        run(0, 0, 0, true, stop, only);
    }

    void epoch(std::uint64_t seed, std::uint64_t first, std::uint32_t iterations,
               const std::function<bool()>& stop) override {
        run(seed, first, iterations, false, stop, -1);
    }

    std::vector<std::int64_t> best_objectives() override { return best_objective_; }

    void best_tour(std::uint32_t chain, std::span<std::int32_t> out) override {
        const auto n = static_cast<std::size_t>(a_.n);
        std::copy_n(best_.begin() + static_cast<std::ptrdiff_t>(chain * n), n, out.begin());
    }

    void share(std::uint32_t chain) override {
        const auto n = static_cast<std::size_t>(a_.n);
        const std::vector<std::int32_t> source(best_.begin() + static_cast<std::ptrdiff_t>(chain * n),
                                               best_.begin() + static_cast<std::ptrdiff_t>((chain + 1) * n));
        const std::int64_t value = best_objective_[chain];
        for (std::uint32_t c = 0; c < chains_; ++c) {
            std::copy(source.begin(), source.end(), current_.begin() + static_cast<std::ptrdiff_t>(c * n));
            current_objective_[c] = value;
        }
    }

    std::uint64_t evaluations() override {
        std::uint64_t sum = 0;
        for (auto e : evaluations_) sum += e;
        return sum;
    }

private:
    void run(std::uint64_t seed, std::uint64_t first, std::uint32_t iterations, bool initialize,
             const std::function<bool()>& stop, std::int64_t only) {
        const auto count = static_cast<std::int64_t>(chains_);
        const int team = gpu::resolve_threads(threads_);
        std::atomic<bool> stopped{false};
#pragma omp parallel for schedule(dynamic, 1) num_threads(team)
        for (std::int64_t c = 0; c < count; ++c) {
            if (stopped.load(std::memory_order_relaxed) || (only >= 0 && c != only)) continue;
            // NOTE: the stop callback (SearchContext) is not thread safe: only thread 0 polls it.
            if (stop && omp_get_thread_num() == 0 && stop()) {
                stopped.store(true, std::memory_order_relaxed);
                continue;
            }
            run_chain<Delta>(SerialTeam{}, a_, static_cast<std::uint32_t>(c), seed, first, iterations,
                             initialize);
        }
    }

    std::uint32_t chains_;
    int threads_;
    ChainArrays<Metric> a_{};
    std::vector<std::int32_t> current_, trial_, best_, pos_, D_, focus_list_, scratch_, focus_count_;
    std::vector<std::int32_t> active_list_, active_count_;
    std::vector<std::uint8_t> focus_bits_, active_bits_, improving_;
    std::vector<Point> P_;
    std::vector<std::int64_t> current_objective_, trial_objective_, best_objective_;
    std::vector<unsigned long long> evaluations_;
};

} // namespace

std::unique_ptr<ChainRunner> make_cpu_chain_runner(const TspProblem& problem, const ResidentIlsOptions& options,
                                                   std::uint32_t chains, int threads) {
    return visit_metric(problem.instance().metric, [&](auto tag) -> std::unique_ptr<ChainRunner> {
        using Metric = typename decltype(tag)::type;
        if (problem.narrow_deltas())
            return std::make_unique<CpuChainRunner<Metric, std::int32_t>>(problem, options, chains, threads);
        return std::make_unique<CpuChainRunner<Metric, std::int64_t>>(problem, options, chains, threads);
    });
}

} // namespace locus::tsp
