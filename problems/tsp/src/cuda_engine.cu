// CUDA backend of the TSP neighborhoods: per step, a prepare kernel (tour-ordered points and
// edge lengths), the neighborhood engine's select_moves, and an apply kernel (one block per
// solution executing the move's reversals). A descent stays on the device and checks
// convergence every `sync_every` steps.

#include <algorithm>
#include <vector>

#include "locus/error.hpp"
#include <cub/block/block_scan.cuh>

#include "locus/gpu/cuda_check.hpp"
#include "locus/gpu/device.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/neighborhood_engine.cuh"
#include "locus/gpu/stream.hpp"
#include "locus/tsp/device_instance.hpp"
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

/// Block per solution: the focused cities of each solution in increasing order (a block-wide
/// scan keeps the order deterministic) and their number; adds the moves the next exploration
/// evaluates (count * cells_per_focus) to *cells.
template <int kThreads>
__global__ void focus_list_kernel(const std::uint8_t* focus, std::int32_t* list, std::int32_t* count,
                                  std::int32_t n, unsigned long long cells_per_focus,
                                  unsigned long long* cells) {
    using Scan = cub::BlockScan<int, kThreads>;
    __shared__ typename Scan::TempStorage storage;
    __shared__ int base;
    const std::int64_t s = blockIdx.x;
    if (threadIdx.x == 0) base = 0;
    __syncthreads();
    for (std::int32_t start = 0; start < n; start += kThreads) {
        const std::int32_t city = start + static_cast<std::int32_t>(threadIdx.x);
        const int flag = (city < n && focus[s * n + city] != 0) ? 1 : 0;
        int offset = 0, total = 0;
        Scan(storage).ExclusiveSum(flag, offset, total);
        if (flag != 0) list[s * n + base + offset] = city;
        __syncthreads();
        if (threadIdx.x == 0) base += total;
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        count[s] = base;
        if (cells != nullptr) atomicAdd(cells, static_cast<unsigned long long>(base) * cells_per_focus);
    }
}

/// Block per solution: applies the selected move (only improving ones when `only_improving`),
/// accumulates the objective change and counts applied moves. `error` is set when a selected
/// index does not decode to a valid move.
template <class Eval>
__global__ void apply_kernel(Eval eval, std::int32_t* tours,
                             const gpu::MoveResult<typename Eval::delta_type>* results, bool only_improving,
                             std::int64_t* gain, std::uint32_t* applied, std::uint32_t* error,
                             std::uint8_t* focus) {
    const std::uint32_t s = blockIdx.x;
    const gpu::MoveResult<typename Eval::delta_type> r = results[s];
    if (!r.found() || (only_improving && r.delta >= 0)) return;
    const std::int32_t n = eval.v.n;
    // Every thread decodes (reads only) before anyone writes the tour.
    const TourMove m = eval.decode(s, r.index);
    std::int32_t* tour = tours + static_cast<std::int64_t>(s) * n;
    if (m.valid && focus != nullptr && threadIdx.x == 0) {
        std::int32_t touched[6];
        const int k = touched_cities(m, tour, n, touched);
        for (int q = 0; q < k; ++q) focus[static_cast<std::int64_t>(s) * n + touched[q]] = 1;
    }
    __syncthreads();
    if (!m.valid) {
        if (threadIdx.x == 0) atomicExch(error, 1u);
        return;
    }
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
    using Delta = typename Eval::delta_type;

    CudaTourEngine(const TspProblem& problem, NeighborhoodSpec spec, EngineOptions options)
        : problem_(problem), options_(options), n_(static_cast<std::int32_t>(problem.size())),
          uses_pos_(spec.candidates > 0), device_(select_device(options.device)),
          instance_(problem.instance()) {
        view_.metric = Metric::bind(instance_.arrays());
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
            results_host_[s] = {static_cast<Delta>(moves[s].delta), moves[s].index};
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
        std::vector<unsigned long long> cells_host(group);
        std::uint64_t explorations = 0;
        while (max_steps == 0 || explorations < max_steps) {
            if (stop && stop()) {
                stats.stopped = true;
                break;
            }
            std::uint32_t issued = group;
            if (max_steps != 0) issued = static_cast<std::uint32_t>(std::min<std::uint64_t>(group, max_steps - explorations));
            applied_.fill_bytes_async(0, stream_.get());
            step_cells_.fill_bytes_async(0, stream_.get());
            std::vector<std::uint64_t> grid_cells(issued);
            for (std::uint32_t k = 0; k < issued; ++k) {
                grid_cells[k] = step(pivot, step_cells_.data() + k);
                launch_apply(true, applied_.data() + k);
                // Each solution's focus grows by at most 6 cities per applied move.
                if (focus_on_) focus_rows_ = std::min(n_, focus_rows_ + 6);
            }
            applied_.download_async(applied.data(), issued, stream_.get());
            step_cells_.download_async(cells_host.data(), issued, stream_.get());
            stream_.synchronize();
            check_error();
            // Explorations after the first one that applied nothing changed nothing: like the
            // CPU backend, count up to and including that one.
            std::uint32_t counted = 0;
            bool converged = false;
            while (counted < issued && !converged) {
                converged = applied[counted] == 0;
                stats.steps += applied[counted];
                stats.evaluations += focus_on_ ? cells_host[counted] : grid_cells[counted] * batch.count();
                ++counted;
            }
            explorations += counted;
            if (options_.check_moves) check_batch(batch);
            if (converged) break;
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
            step_cells_.allocate(std::max<std::uint32_t>(options_.sync_every, 1), "TSP evaluation counters");
            workspace_.reserve_for(Eval{bound_view()}.grid(), batch_, stream_.get());
        }
        tours_.upload_async(batch.data().data(), count * n, stream_.get());
        gain_.fill_bytes_async(0, stream_.get());
        focus_on_ = uses_pos_ && batch.has_focus();
        if (focus_on_) {
            if (focus_.size() < count * n) {
                focus_.allocate(count * n, "TSP focus");
                focus_list_.allocate(count * n, "TSP focus lists");
                focus_count_.allocate(count, "TSP focus counts");
            }
            focus_.upload_async(batch.focus_data().data(), count * n, stream_.get());
            focus_rows_ = 0;
            for (std::size_t s = 0; s < count; ++s) {
                const auto f = batch.focus(s);
                focus_rows_ = std::max(focus_rows_, static_cast<std::int32_t>(std::count(f.begin(), f.end(), std::uint8_t{1})));
            }
        }
    }

    void download(SolutionBatch& batch) {
        const std::size_t count = batch.count();
        std::vector<std::int64_t> gain(count);
        tours_.download_async(batch.data().data(), count * static_cast<std::size_t>(n_), stream_.get());
        gain_.download_async(gain.data(), count, stream_.get());
        stream_.synchronize();
        check_error();
        if (focus_on_) focus_.download(batch.focus_data().data(), count * static_cast<std::size_t>(n_));
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
        if (focus_on_) {
            v.focus_list = focus_list_.data();
            v.focus_count = focus_count_.data();
            v.focus_rows = focus_rows_;
        }
        return v;
    }

    /// Tour-ordered arrays and, with focus, the focus lists; `cells` (device, may be null)
    /// receives the moves the next exploration evaluates under focus.
    void prepare(unsigned long long* cells = nullptr) {
        const std::uint64_t total = static_cast<std::uint64_t>(batch_) * n_;
        const auto blocks = static_cast<unsigned>(std::min<std::uint64_t>((total + 255) / 256, 65535));
        prepare_kernel<Metric><<<blocks, 256, 0, stream_.get()>>>(
            bound_view(), P_.data(), D_.data(), uses_pos_ ? pos_.data() : nullptr, batch_);
        LOCUS_CUDA_CHECK(cudaGetLastError());
        if (focus_on_) {
            const auto per_focus = static_cast<unsigned long long>(Eval::rows_per_focus) * Eval{bound_view()}.grid().cols;
            focus_list_kernel<256><<<batch_, 256, 0, stream_.get()>>>(
                focus_.data(), focus_list_.data(), focus_count_.data(), n_, per_focus, cells);
            LOCUS_CUDA_CHECK(cudaGetLastError());
        }
    }

    /// One exploration; returns the grid cells per solution it covered.
    std::uint64_t step(Pivot pivot, unsigned long long* cells = nullptr) {
        prepare(cells);
        const Eval eval{bound_view()};
        LOCUS_CUDA_CHECK(gpu::select_moves(eval, batch_, pivot, results_.data(), workspace_, stream_.get()));
        return eval.grid().size();
    }

    void launch_apply(bool only_improving, std::uint32_t* applied) {
        apply_kernel<Eval><<<batch_, kApplyThreads, 0, stream_.get()>>>(
            Eval{bound_view()}, tours_.data(), results_.data(), only_improving, gain_.data(),
            applied, error_.data(), focus_on_ ? focus_.data() : nullptr);
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
    DeviceInstance instance_;
    gpu::Stream stream_;
    TourBatchView<Metric> view_{};
    gpu::DeviceBuffer<std::int32_t> candidates_;
    gpu::DeviceBuffer<std::int32_t> tours_, D_, pos_;
    gpu::DeviceBuffer<Point> P_;
    gpu::DeviceBuffer<gpu::MoveResult<Delta>> results_;
    gpu::DeviceBuffer<std::int64_t> gain_;
    gpu::DeviceBuffer<std::uint32_t> applied_, error_;
    gpu::DeviceBuffer<unsigned long long> step_cells_;
    gpu::DeviceBuffer<std::uint8_t> focus_;
    gpu::DeviceBuffer<std::int32_t> focus_list_, focus_count_;
    bool focus_on_ = false;
    std::int32_t focus_rows_ = 0;
    gpu::EngineWorkspace workspace_;
    std::vector<gpu::MoveResult<Delta>> results_host_;
};

} // namespace

std::unique_ptr<TourEngine> make_cuda_engine(const TspProblem& problem, NeighborhoodSpec spec,
                                             EngineOptions options) {
    return visit_evaluator(problem, spec, [&](auto space_tag) -> std::unique_ptr<TourEngine> {
        using Eval = typename decltype(space_tag)::type;
        return std::make_unique<CudaTourEngine<Eval>>(problem, spec, options);
    });
}

} // namespace locus::tsp
