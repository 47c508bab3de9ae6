// CPU twin of the resident ILS: every chain runs the shared chain routine on one thread.

#include <algorithm>
#include <atomic>

#include <omp.h>

#include "locus/gpu/cpu_threads.hpp"
#include "locus/tsp/chain_runner.hpp"
#include "chain_storage.hpp"

namespace locus::tsp {
namespace {

template <class T> using HostArray = std::vector<T>;

template <class Metric, class Delta> class CpuChainRunner final : public ChainRunner {
public:
    using Point = typename Metric::point_type;

    CpuChainRunner(const TspProblem& problem, const ResidentIlsOptions& options, std::uint32_t chains,
                   int threads)
        : chains_(chains), threads_(threads) {
        const auto n = problem.size();
        b_.allocate(n, chains, [](auto& buffer, std::size_t count, const char*) { buffer.assign(count, {}); });
        a_.metric = host_metric<Metric>(problem.instance());
        a_.candidates = problem.candidates(options.candidates).data();
        a_.n = static_cast<std::int32_t>(n);
        a_.K = options.candidates;
        a_.window = options.window;
        b_.bind(a_);
    }

    void start(const SolutionBatch& batch, const std::function<bool()>& stop, std::int64_t only) override {
        std::copy(batch.data().begin(), batch.data().end(), b_.trial.begin());
        // A chain whose initial descent is skipped (stop) starts from its constructed tour.
        std::copy(b_.trial.begin(), b_.trial.end(), b_.current.begin());
        std::copy(b_.trial.begin(), b_.trial.end(), b_.best.begin());
        for (std::uint32_t c = 0; c < chains_; ++c) {
            b_.trial_objective[c] = static_cast<std::int64_t>(batch.objective(c));
            b_.current_objective[c] = b_.best_objective[c] = b_.trial_objective[c];
        }
        run(0, 0, 0, true, stop, only);
    }

    void epoch(std::uint64_t seed, std::uint64_t first, std::uint32_t iterations,
               const std::function<bool()>& stop) override {
        run(seed, first, iterations, false, stop, -1);
    }

    std::vector<std::int64_t> best_objectives() override { return b_.best_objective; }

    void best_tour(std::uint32_t chain, std::span<std::int32_t> out) override {
        const auto n = static_cast<std::size_t>(a_.n);
        std::copy_n(b_.best.begin() + static_cast<std::ptrdiff_t>(chain * n), n, out.begin());
    }

    void share(std::uint32_t chain) override {
        const auto n = static_cast<std::size_t>(a_.n);
        const std::vector<std::int32_t> source(b_.best.begin() + static_cast<std::ptrdiff_t>(chain * n),
                                               b_.best.begin() + static_cast<std::ptrdiff_t>((chain + 1) * n));
        const std::int64_t value = b_.best_objective[chain];
        for (std::uint32_t c = 0; c < chains_; ++c) {
            std::copy(source.begin(), source.end(), b_.current.begin() + static_cast<std::ptrdiff_t>(c * n));
            b_.current_objective[c] = value;
        }
    }

    std::uint64_t evaluations() override {
        std::uint64_t sum = 0;
        for (auto e : b_.evaluations) sum += e;
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
            run_chain<Delta>(gpu::SerialTeam{}, a_, static_cast<std::uint32_t>(c), seed, first, iterations,
                             initialize);
        }
    }

    std::uint32_t chains_;
    int threads_;
    ChainArrays<Metric> a_{};
    detail::ChainStorage<HostArray, Metric> b_;
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
