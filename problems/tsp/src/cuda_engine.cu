// CUDA backend of the TSP neighborhoods: per step, a prepare kernel (tour-ordered points and
// edge lengths), the neighborhood engine's select_moves, and an apply kernel (one block per
// solution executing the move's reversals). A descent stays on the device and checks
// convergence every `sync_every` steps.

#include <algorithm>
#include <vector>

#include "locus/error.hpp"
#include "locus/gpu/cuda_check.hpp"
#include "locus/gpu/device.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/neighborhood_engine.cuh"
#include "locus/gpu/stream.hpp"
#include "locus/tsp/tour_engine.hpp"

namespace locus::tsp {
namespace {

constexpr int kApplyThreads = 256;

/// Thread per (solution, position): builds P, D and pos from the tours.
template <class Metric>
__global__ void prepare_kernel(TourBatchView<Metric> v, typename Metric::point_type* P,
                               std::int32_t* D, std::int32_t* pos, std::uint32_t batch) {
    const std::uint64_t total = static_cast<std::uint64_t>(batch) * v.n;
    for (std::uint64_t idx = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
         idx < total; idx += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
        const auto s = static_cast<std::uint32_t>(idx / v.n);
        const auto k = static_cast<std::int32_t>(idx % v.n);
        prepare_entry(v.metric, v.tour_of(s), P + static_cast<std::int64_t>(s) * (v.n + 1),
                      D + static_cast<std::int64_t>(s) * v.n,
                      pos == nullptr ? nullptr : pos + static_cast<std::int64_t>(s) * v.n, v.n, k);
    }
}

/// Block per solution: applies the selected move (only improving ones when `only_improving`),
/// accumulates the objective change and counts applied moves. `error` is set when a selected
/// index does not decode to a valid move.
template <class Eval>
__global__ void apply_kernel(Eval eval, std::int32_t* tours,
                             const gpu::MoveResult<std::int64_t>* results, bool only_improving,
                             std::int64_t* gain, std::uint32_t* applied, std::uint32_t* error) {
    const std::uint32_t s = blockIdx.x;
    const gpu::MoveResult<std::int64_t> r = results[s];
    if (!r.found() || (only_improving && r.delta >= 0)) return;
    const std::int32_t n = eval.v.n;
    // Every thread decodes (reads only) before anyone writes the tour.
    const TourMove m = eval.decode(s, r.index);
    __syncthreads();
    if (!m.valid) {
        if (threadIdx.x == 0) atomicExch(error, 1u);
        return;
    }
    std::int32_t* tour = tours + static_cast<std::int64_t>(s) * n;
    if (m.kind == MoveKind::swap) {
        if (threadIdx.x == 0) {
            const std::int32_t tmp = tour[m.i];
            tour[m.i] = tour[m.j];
            tour[m.j] = tmp;
        }
    } else {
        const ReversalPlan plan = plan_reversals(m, n);
        for (int q = 0; q < plan.count; ++q) {
            const std::int32_t first = plan.first[q];
            const std::int32_t length = plan.length[q];
            for (std::int32_t k = threadIdx.x; k < length / 2; k += blockDim.x) {
                const std::int32_t a = wrap(first + k, n);
                const std::int32_t b = wrap(first + length - 1 - k, n);
                const std::int32_t tmp = tour[a];
                tour[a] = tour[b];
                tour[b] = tmp;
            }
            __syncthreads();
        }
    }
    if (threadIdx.x == 0) {
        gain[s] += r.delta;
        atomicAdd(applied, 1u);
    }
}

// NOTE: no fmt in .cu files: fmt 9's consteval format strings do not compile under nvcc.
std::string mib(std::size_t bytes) { return std::to_string((bytes + 1048575) / 1048576); }

int select_device(int ordinal) {
    gpu::require_device(ordinal);
    return ordinal;
}

template <class Eval> class CudaTourEngine final : public TourEngine {
public:
    using Metric = decltype(Eval{}.v.metric);
    using Point = typename Metric::point_type;

    CudaTourEngine(const TspProblem& problem, NeighborhoodSpec spec, EngineOptions options)
        : problem_(problem), options_(options), n_(static_cast<std::int32_t>(problem.size())),
          uses_pos_(spec.candidates > 0), device_(select_device(options.device)) {
        const Instance& inst = problem.instance();
        MetricArrays arrays;
        arrays.n = n_;
        if (!inst.xi.empty()) {
            xi_.allocate(inst.xi.size(), "TSP integer x coordinates");
            yi_.allocate(inst.yi.size(), "TSP integer y coordinates");
            xi_.upload(inst.xi.data(), inst.xi.size());
            yi_.upload(inst.yi.data(), inst.yi.size());
            arrays.xi = xi_.data();
            arrays.yi = yi_.data();
        }
        if (!inst.x.empty()) {
            x_.allocate(inst.x.size(), "TSP x coordinates");
            y_.allocate(inst.y.size(), "TSP y coordinates");
            x_.upload(inst.x.data(), inst.x.size());
            y_.upload(inst.y.data(), inst.y.size());
            arrays.x = x_.data();
            arrays.y = y_.data();
        }
        if (!inst.matrix.empty()) {
            matrix_.allocate(inst.matrix.size(), "TSP distance matrix");
            matrix_.upload(inst.matrix.data(), inst.matrix.size());
            arrays.matrix = matrix_.data();
        }
        view_.metric = Metric::bind(arrays);
        view_.n = n_;
        if (uses_pos_) {
            const auto& lists = problem.candidates(spec.candidates);
            candidates_.allocate(lists.size(), "TSP candidate lists");
            candidates_.upload(lists.data(), lists.size());
            view_.K = spec.candidates;
            view_.candidates = candidates_.data();
        }
        error_.allocate(1, "TSP engine error flag");
        error_.fill_bytes_async(0, stream_.get());
    }

    std::uint64_t cells() const override { return Eval{view_}.grid().size(); }

    void explore(const SolutionBatch& batch, Pivot pivot, std::span<MoveChoice> out) override {
        upload(batch);
        step(pivot);
        results_host_.resize(batch.count());
        results_.download_async(results_host_.data(), batch.count(), stream_.get());
        stream_.synchronize();
        for (std::size_t s = 0; s < batch.count(); ++s)
            out[s] = results_host_[s].found()
                         ? MoveChoice{results_host_[s].index, static_cast<Objective>(results_host_[s].delta)}
                         : MoveChoice{};
    }

    void apply(SolutionBatch& batch, std::span<const MoveChoice> moves) override {
        upload(batch);
        prepare();
        results_host_.resize(batch.count());
        for (std::size_t s = 0; s < batch.count(); ++s)
            results_host_[s] = {static_cast<std::int64_t>(moves[s].delta), moves[s].index};
        results_.upload_async(results_host_.data(), batch.count(), stream_.get());
        launch_apply(false, applied_.data());
        download(batch);
    }

    DescentStats descend(SolutionBatch& batch, Pivot pivot, std::uint64_t max_steps,
                         const std::function<bool()>& stop) override {
        DescentStats stats;
        upload(batch);
        const std::uint32_t group = options_.check_moves ? 1u : std::max(1u, options_.sync_every);
        std::vector<std::uint32_t> applied(group);
        std::uint64_t explorations = 0;
        while (max_steps == 0 || explorations < max_steps) {
            if (stop && stop()) {
                stats.stopped = true;
                break;
            }
            std::uint32_t issued = group;
            if (max_steps != 0) issued = static_cast<std::uint32_t>(std::min<std::uint64_t>(group, max_steps - explorations));
            applied_.fill_bytes_async(0, stream_.get());
            for (std::uint32_t k = 0; k < issued; ++k) {
                step(pivot);
                launch_apply(true, applied_.data() + k);
            }
            applied_.download_async(applied.data(), issued, stream_.get());
            stream_.synchronize();
            check_error();
            explorations += issued;
            stats.evaluations += cells() * batch.count() * issued;
            for (std::uint32_t k = 0; k < issued; ++k) stats.steps += applied[k];
            if (options_.check_moves) check_batch(batch);
            if (applied[issued - 1] == 0) break;
        }
        download(batch);
        return stats;
    }

    double time_exploration(const SolutionBatch& batch, Pivot pivot, int repetitions) override {
        upload(batch);
        prepare();
        gpu::Event start, stop;
        std::vector<double> times;
        for (int r = 0; r <= repetitions; ++r) {
            start.record(stream_.get());
            LOCUS_CUDA_CHECK(gpu::select_moves(Eval{bound_view()}, batch_, pivot, results_.data(),
                                               workspace_, stream_.get()));
            stop.record(stream_.get());
            stop.synchronize();
            float ms = 0.0f;
            LOCUS_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
            if (r > 0) times.push_back(ms / 1000.0);
        }
        std::sort(times.begin(), times.end());
        return times[times.size() / 2];
    }

private:
    void upload(const SolutionBatch& batch) {
        batch_ = static_cast<std::uint32_t>(batch.count());
        const std::size_t count = batch.count();
        const auto n = static_cast<std::size_t>(n_);
        if (tours_.size() < count * n) {
            ensure_memory(count);
            tours_.allocate(count * n, "TSP tours");
            P_.allocate(count * (n + 1), "TSP tour-ordered points");
            D_.allocate(count * n, "TSP tour edge lengths");
            if (uses_pos_) pos_.allocate(count * n, "TSP city positions");
            results_.allocate(count, "TSP selected moves");
            gain_.allocate(count, "TSP objective changes");
            applied_.allocate(std::max<std::uint32_t>(options_.sync_every, 1), "TSP applied counters");
            workspace_.reserve_for(Eval{bound_view()}.grid(), batch_, stream_.get());
        }
        tours_.upload_async(batch.data().data(), count * n, stream_.get());
        gain_.fill_bytes_async(0, stream_.get());
    }

    void download(SolutionBatch& batch) {
        const std::size_t count = batch.count();
        std::vector<std::int64_t> gain(count);
        tours_.download_async(batch.data().data(), count * static_cast<std::size_t>(n_), stream_.get());
        gain_.download_async(gain.data(), count, stream_.get());
        stream_.synchronize();
        check_error();
        for (std::size_t s = 0; s < count; ++s) batch.objective(s) += static_cast<Objective>(gain[s]);
    }

    void check_batch(const SolutionBatch& batch) {
        SolutionBatch copy = batch;
        download(copy);
        for (std::size_t s = 0; s < copy.count(); ++s)
            check_objective(problem_, copy[s], copy.objective(s), TourMove{}, s);
    }

    /// Fails with a clear message when the buffers of `count` solutions do not fit.
    void ensure_memory(std::size_t count) {
        const auto n = static_cast<std::size_t>(n_);
        const std::size_t need = count * n * sizeof(std::int32_t) * (uses_pos_ ? 3 : 2) +
                                 count * (n + 1) * sizeof(Point) +
                                 gpu::EngineWorkspace::bytes_needed(Eval{bound_view()}.grid(),
                                                                    static_cast<std::uint32_t>(count));
        std::size_t free_bytes = 0, total_bytes = 0;
        gpu::memory_info(free_bytes, total_bytes);
        if (need > free_bytes)
            throw CudaError("GPU out of memory: " + std::to_string(count) + " solutions of " +
                            std::to_string(n_) + " cities need " + mib(need) + " MiB, " +
                            mib(free_bytes) + " MiB of " + mib(total_bytes) +
                            " MiB are free; reduce `batch`");
    }

    TourBatchView<Metric> bound_view() const {
        TourBatchView<Metric> v = view_;
        v.tour = tours_.data();
        v.P = P_.data();
        v.D = D_.data();
        v.pos = uses_pos_ ? pos_.data() : nullptr;
        return v;
    }

    void prepare() {
        const std::uint64_t total = static_cast<std::uint64_t>(batch_) * n_;
        const auto blocks = static_cast<unsigned>(std::min<std::uint64_t>((total + 255) / 256, 65535));
        prepare_kernel<Metric><<<blocks, 256, 0, stream_.get()>>>(
            bound_view(), P_.data(), D_.data(), uses_pos_ ? pos_.data() : nullptr, batch_);
        LOCUS_CUDA_CHECK(cudaGetLastError());
    }

    void step(Pivot pivot) {
        prepare();
        LOCUS_CUDA_CHECK(gpu::select_moves(Eval{bound_view()}, batch_, pivot, results_.data(),
                                           workspace_, stream_.get()));
    }

    void launch_apply(bool only_improving, std::uint32_t* applied) {
        apply_kernel<Eval><<<batch_, kApplyThreads, 0, stream_.get()>>>(
            Eval{bound_view()}, tours_.data(), results_.data(), only_improving, gain_.data(),
            applied, error_.data());
        LOCUS_CUDA_CHECK(cudaGetLastError());
    }

    void check_error() {
        std::uint32_t flag = 0;
        error_.download(&flag, 1);
        if (flag != 0) throw Error("CUDA TSP engine: a selected move index did not decode to a valid move");
    }

    const TspProblem& problem_;
    EngineOptions options_;
    std::int32_t n_;
    bool uses_pos_;
    std::uint32_t batch_ = 0;
    int device_; ///< selected before any other CUDA call, so a missing GPU gets a clear error
    gpu::Stream stream_;
    TourBatchView<Metric> view_{};
    gpu::DeviceBuffer<std::int32_t> xi_, yi_, matrix_, candidates_;
    gpu::DeviceBuffer<double> x_, y_;
    gpu::DeviceBuffer<std::int32_t> tours_, D_, pos_;
    gpu::DeviceBuffer<Point> P_;
    gpu::DeviceBuffer<gpu::MoveResult<std::int64_t>> results_;
    gpu::DeviceBuffer<std::int64_t> gain_;
    gpu::DeviceBuffer<std::uint32_t> applied_, error_;
    gpu::EngineWorkspace workspace_;
    std::vector<gpu::MoveResult<std::int64_t>> results_host_;
};

} // namespace

std::unique_ptr<TourEngine> make_cuda_engine(const TspProblem& problem, NeighborhoodSpec spec,
                                             EngineOptions options) {
    return visit_metric(problem.instance().metric, [&](auto metric_tag) -> std::unique_ptr<TourEngine> {
        using Metric = typename decltype(metric_tag)::type;
        return visit_space<Metric>(spec, [&](auto space_tag) -> std::unique_ptr<TourEngine> {
            using Eval = typename decltype(space_tag)::type;
            return std::make_unique<CudaTourEngine<Eval>>(problem, spec, options);
        });
    });
}

} // namespace locus::tsp
