// The QAP swap neighborhood on a CUDA device: the engine's select_moves, then an apply kernel;
// a descent stays on the device and checks convergence every 8 steps.

#include <algorithm>
#include <string>
#include <vector>

#include "locus/error.hpp"
#include "locus/gpu/cuda_check.hpp"
#include "locus/gpu/device.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/neighborhood_engine.cuh"
#include "locus/gpu/stream.hpp"
#include "locus/qap/swap_evaluator.hpp"
#include "locus/qap/swap_neighborhood.hpp"

namespace locus::qap {
namespace {

constexpr std::uint32_t kSyncEvery = 8;

/// Thread per solution: applies the selected swap (only improving ones when `only_improving`).
__global__ void apply_swaps(std::int32_t* perms, std::int32_t n, std::uint32_t batch,
                            const gpu::MoveResult<std::int64_t>* results, bool only_improving,
                            std::int64_t* gain, std::uint32_t* applied) {
    const std::uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= batch) return;
    const gpu::MoveResult<std::int64_t> m = results[s];
    if (!m.found() || (only_improving && m.delta >= 0)) return;
    std::int32_t r = 0, t = 0;
    SwapEvaluator::decode(m.index, n, r, t);
    std::int32_t* p = perms + static_cast<std::int64_t>(s) * n;
    const std::int32_t tmp = p[r];
    p[r] = p[t];
    p[t] = tmp;
    gain[s] += m.delta;
    atomicAdd(applied, 1u);
}

int select_device(int ordinal) {
    gpu::require_device(ordinal);
    return ordinal;
}

class CudaSwap final : public Neighborhood {
public:
    CudaSwap(const QapProblem& problem, SwapOptions options)
        : problem_(problem), options_(options), device_(select_device(options.device)),
          n_(problem.instance().n) {
        const Instance& inst = problem.instance();
        a_.allocate(inst.a.size(), "QAP flow matrix");
        b_.allocate(inst.b.size(), "QAP distance matrix");
        a_.upload(inst.a.data(), inst.a.size());
        b_.upload(inst.b.data(), inst.b.size());
    }

    std::string_view name() const override { return "swap"; }
    Backend backend() const override { return Backend::cuda; }
    std::uint64_t size() const override { return static_cast<std::uint64_t>(n_) * static_cast<std::uint64_t>(n_); }

    void explore(const SolutionBatch& batch, Pivot pivot, std::span<MoveChoice> out) override {
        upload(batch);
        select(pivot);
        std::vector<gpu::MoveResult<std::int64_t>> host(batch.count());
        results_.download_async(host.data(), batch.count(), stream_.get());
        stream_.synchronize();
        for (std::size_t s = 0; s < batch.count(); ++s)
            out[s] = host[s].found() ? MoveChoice{host[s].index, static_cast<Objective>(host[s].delta)} : MoveChoice{};
    }

    void apply(SolutionBatch& batch, std::span<const MoveChoice> moves) override {
        upload(batch);
        std::vector<gpu::MoveResult<std::int64_t>> host(batch.count());
        for (std::size_t s = 0; s < batch.count(); ++s)
            host[s] = {static_cast<std::int64_t>(moves[s].delta), moves[s].index};
        results_.upload_async(host.data(), batch.count(), stream_.get());
        launch_apply(false, applied_.data());
        download(batch);
    }

    DescentStats descend(SolutionBatch& batch, Pivot pivot, std::uint64_t max_steps,
                         const std::function<bool()>& stop) override {
        DescentStats stats;
        upload(batch);
        const std::uint32_t group = options_.check_moves ? 1u : kSyncEvery;
        std::vector<std::uint32_t> applied(group);
        std::uint64_t explorations = 0;
        while (max_steps == 0 || explorations < max_steps) {
            if (stop && stop()) {
                stats.stopped = true;
                break;
            }
            std::uint32_t issued = group;
            if (max_steps != 0)
                issued = static_cast<std::uint32_t>(std::min<std::uint64_t>(group, max_steps - explorations));
            applied_.fill_bytes_async(0, stream_.get());
            for (std::uint32_t k = 0; k < issued; ++k) {
                select(pivot);
                launch_apply(true, applied_.data() + k);
            }
            applied_.download_async(applied.data(), issued, stream_.get());
            stream_.synchronize();
            // Count like the CPU backend: up to and including the first step that applied nothing.
            std::uint32_t counted = 0;
            bool converged = false;
            while (counted < issued && !converged) {
                converged = applied[counted] == 0;
                stats.steps += applied[counted];
                stats.evaluations += size() * batch.count();
                ++counted;
            }
            explorations += counted;
            if (options_.check_moves) {
                SolutionBatch copy = batch;
                download(copy);
                for (std::size_t s = 0; s < copy.count(); ++s)
                    check_swap(problem_, copy[s], copy.objective(s), -1, -1, s);
            }
            if (converged) break;
        }
        download(batch);
        return stats;
    }

private:
    void upload(const SolutionBatch& batch) {
        batch_ = static_cast<std::uint32_t>(batch.count());
        const std::size_t words = batch.count() * static_cast<std::size_t>(n_);
        if (perms_.size() < words) {
            perms_.allocate(words, "QAP permutations");
            results_.allocate(batch.count(), "QAP selected moves");
            gain_.allocate(batch.count(), "QAP objective changes");
            applied_.allocate(kSyncEvery, "QAP applied counters");
            const SwapEvaluator eval{a_.data(), b_.data(), perms_.data(), n_};
            workspace_.reserve_for(eval.grid(), batch_, stream_.get());
        }
        perms_.upload_async(batch.data().data(), words, stream_.get());
        gain_.fill_bytes_async(0, stream_.get());
    }

    void download(SolutionBatch& batch) {
        std::vector<std::int64_t> gain(batch.count());
        perms_.download_async(batch.data().data(), batch.count() * static_cast<std::size_t>(n_), stream_.get());
        gain_.download_async(gain.data(), batch.count(), stream_.get());
        stream_.synchronize();
        for (std::size_t s = 0; s < batch.count(); ++s) batch.objective(s) += static_cast<Objective>(gain[s]);
    }

    void select(Pivot pivot) {
        const SwapEvaluator eval{a_.data(), b_.data(), perms_.data(), n_};
        LOCUS_CUDA_CHECK(gpu::select_moves(eval, batch_, pivot, results_.data(), workspace_, stream_.get()));
    }

    void launch_apply(bool only_improving, std::uint32_t* applied) {
        apply_swaps<<<(batch_ + 127) / 128, 128, 0, stream_.get()>>>(perms_.data(), n_, batch_, results_.data(),
                                                                   only_improving, gain_.data(), applied);
        LOCUS_CUDA_CHECK(cudaGetLastError());
    }

    const QapProblem& problem_;
    SwapOptions options_;
    int device_;
    std::int32_t n_;
    std::uint32_t batch_ = 0;
    gpu::Stream stream_;
    gpu::DeviceBuffer<std::int64_t> a_, b_, gain_;
    gpu::DeviceBuffer<std::int32_t> perms_;
    gpu::DeviceBuffer<gpu::MoveResult<std::int64_t>> results_;
    gpu::DeviceBuffer<std::uint32_t> applied_;
    gpu::EngineWorkspace workspace_;
};

} // namespace

std::unique_ptr<Neighborhood> make_cuda_swap(const QapProblem& problem, SwapOptions options) {
    return std::make_unique<CudaSwap>(problem, options);
}

} // namespace locus::qap
