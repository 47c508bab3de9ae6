// CUDA backend of the resident ILS: one block per chain runs the shared chain routine with the
// block as its team; one launch per epoch.

#include <algorithm>
#include <string>
#include <vector>

#include "locus/error.hpp"
#include "locus/gpu/cuda_check.hpp"
#include "locus/gpu/device.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/stream.hpp"
#include "locus/gpu/team.cuh"
#include "locus/tsp/chain_runner.hpp"
#include "chain_storage.hpp"
#include "locus/tsp/device_instance.hpp"

namespace locus::tsp {
namespace {

constexpr int kChainThreads = 128;

using ChainTeam = gpu::BlockTeam<kChainThreads>;

template <class Delta, class Metric>
__global__ void __launch_bounds__(kChainThreads)
    chain_kernel(ChainArrays<Metric> a, std::uint64_t seed, std::uint64_t first, std::uint32_t iterations,
                 bool initialize, long long only) {
    if (only >= 0 && static_cast<long long>(blockIdx.x) != only) return;
    __shared__ ChainTeam::Storage s_team;
    run_chain<Delta>(ChainTeam{&s_team}, a, blockIdx.x, seed, first, iterations, initialize);
}

/// Thread per (chain, position): every chain's current tour becomes `source`'s best tour.
template <class Metric>
__global__ void share_kernel(ChainArrays<Metric> a, std::uint32_t chains, std::uint32_t source) {
    const std::uint64_t total = static_cast<std::uint64_t>(chains) * a.n;
    for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < total;
         i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
        const auto c = static_cast<std::uint32_t>(i / a.n);
        const auto k = static_cast<std::int64_t>(i % a.n);
        a.current[a.at(c) + k] = a.best[a.at(source) + k];
        if (k == 0) a.current_objective[c] = a.best_objective[source];
    }
}

int select_device(int ordinal) {
    gpu::require_device(ordinal);
    return ordinal;
}

template <class Metric, class Delta> class CudaChainRunner final : public ChainRunner {
public:
    using Point = typename Metric::point_type;

    CudaChainRunner(const TspProblem& problem, const ResidentIlsOptions& options, std::uint32_t chains,
                    int device)
        : device_(select_device(device)), chains_(chains), n_(problem.size()), instance_(problem.instance()) {
        const std::size_t total = n_ * chains;
        std::size_t free_bytes = 0, total_bytes = 0;
        gpu::memory_info(free_bytes, total_bytes);
        const std::size_t need = total * (8 * sizeof(std::int32_t) + 3) + (n_ + 1) * chains * sizeof(Point);
        if (need > free_bytes)
            throw CudaError("GPU out of memory: " + std::to_string(chains) + " chains of " + std::to_string(n_) +
                            " cities need " + std::to_string(need >> 20) + " MiB, " +
                            std::to_string(free_bytes >> 20) + " MiB are free; use fewer chains (batch)");
        DeviceInstance::upload(candidates_, problem.candidates(options.candidates), "TSP candidate lists");
        b_.allocate(n_, chains, [this](auto& buffer, std::size_t count, const char* what) {
            buffer.allocate(count, what);
            buffer.fill_bytes_async(0, stream_.get());
        });
        a_.metric = Metric::bind(instance_.arrays());
        a_.candidates = candidates_.data();
        a_.n = static_cast<std::int32_t>(n_);
        a_.K = options.candidates;
        a_.window = options.window;
        b_.bind(a_);
    }

    void start(const SolutionBatch& batch, const std::function<bool()>&, std::int64_t only) override {
        b_.trial.upload_async(batch.data().data(), n_ * chains_, stream_.get());
        // Chains that do not descend (only >= 0) start from their constructed tour.
        b_.current.upload_async(batch.data().data(), n_ * chains_, stream_.get());
        b_.best.upload_async(batch.data().data(), n_ * chains_, stream_.get());
        std::vector<std::int64_t> objective(chains_);
        for (std::uint32_t c = 0; c < chains_; ++c) objective[c] = static_cast<std::int64_t>(batch.objective(c));
        b_.trial_objective.upload_async(objective.data(), chains_, stream_.get());
        b_.current_objective.upload_async(objective.data(), chains_, stream_.get());
        b_.best_objective.upload_async(objective.data(), chains_, stream_.get());
        launch(0, 0, 0, true, only);
        stream_.synchronize();
    }

    void epoch(std::uint64_t seed, std::uint64_t first, std::uint32_t iterations,
               const std::function<bool()>&) override {
        launch(seed, first, iterations, false, -1);
        stream_.synchronize();
    }

    std::vector<std::int64_t> best_objectives() override {
        std::vector<std::int64_t> values(chains_);
        b_.best_objective.download_async(values.data(), chains_, stream_.get());
        stream_.synchronize();
        return values;
    }

    void best_tour(std::uint32_t chain, std::span<std::int32_t> out) override {
        LOCUS_CUDA_CHECK(cudaMemcpyAsync(out.data(), b_.best.data() + chain * n_, n_ * sizeof(std::int32_t),
                                         cudaMemcpyDeviceToHost, stream_.get()));
        stream_.synchronize();
    }

    void share(std::uint32_t chain) override {
        const std::uint64_t total = static_cast<std::uint64_t>(chains_) * n_;
        const auto blocks = static_cast<unsigned>(std::min<std::uint64_t>((total + 255) / 256, 65535));
        share_kernel<Metric><<<blocks, 256, 0, stream_.get()>>>(a_, chains_, chain);
        LOCUS_CUDA_CHECK(cudaGetLastError());
    }

    std::uint64_t evaluations() override {
        std::vector<unsigned long long> values(chains_);
        b_.evaluations.download_async(values.data(), chains_, stream_.get());
        stream_.synchronize();
        std::uint64_t sum = 0;
        for (auto v : values) sum += v;
        return sum;
    }

private:
    void launch(std::uint64_t seed, std::uint64_t first, std::uint32_t iterations, bool initialize,
                std::int64_t only) {
        chain_kernel<Delta, Metric><<<chains_, kChainThreads, 0, stream_.get()>>>(a_, seed, first, iterations,
                                                                                  initialize, static_cast<long long>(only));
        LOCUS_CUDA_CHECK(cudaGetLastError());
    }

    int device_;
    std::uint32_t chains_;
    std::size_t n_;
    DeviceInstance instance_;
    gpu::Stream stream_;
    ChainArrays<Metric> a_{};
    gpu::DeviceBuffer<std::int32_t> candidates_;
    detail::ChainStorage<gpu::DeviceBuffer, Metric> b_;
};

} // namespace

std::unique_ptr<ChainRunner> make_cuda_chain_runner(const TspProblem& problem, const ResidentIlsOptions& options,
                                                    std::uint32_t chains, int device) {
    return visit_metric(problem.instance().metric, [&](auto tag) -> std::unique_ptr<ChainRunner> {
        using Metric = typename decltype(tag)::type;
        if (problem.narrow_deltas())
            return std::make_unique<CudaChainRunner<Metric, std::int32_t>>(problem, options, chains, device);
        return std::make_unique<CudaChainRunner<Metric, std::int64_t>>(problem, options, chains, device);
    });
}

} // namespace locus::tsp
