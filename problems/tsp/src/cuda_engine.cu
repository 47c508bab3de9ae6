// CUDA backend of the TSP neighborhoods: a policy of the neighborhood adapter's device wrapper.
// Per step: a prepare kernel (tour-ordered points and edge lengths; focus lists), the engine's
// select_moves, and the adapter's apply kernel calling TourApplier (one block per solution
// executing the move's reversals). The adapter keeps a descent on the device.

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "locus/gpu/cuda_check.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/neighborhood_adapter.cuh"
#include "locus/gpu/team.cuh"
#include "locus/tsp/device_instance.hpp"
#include "locus/tsp/independence.hpp"
#include "locus/tsp/tour_engine.hpp"

namespace locus::tsp {
namespace {

constexpr unsigned kApplyThreads = 256;

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

/// Block per solution: the focused cities of each solution in increasing order (the team
/// layer's order-preserving compaction) and their number; adds the moves the next exploration
/// evaluates (count * cells_per_focus) to *cells.
template <unsigned kThreads>
__global__ void __launch_bounds__(kThreads)
    focus_list_kernel(const std::uint8_t* focus, std::int32_t* list, std::int32_t* count,
                      std::int32_t n, unsigned long long cells_per_focus,
                      unsigned long long* cells) {
    __shared__ typename gpu::BlockTeam<kThreads>::Storage s_team;
    const gpu::BlockTeam<kThreads> team{&s_team};
    const std::int64_t s = blockIdx.x;
    const std::uint8_t* flags = focus + s * n;
    std::int32_t* out = list + s * n;
    const std::uint32_t kept = gpu::compact(
        team, static_cast<std::uint32_t>(n),
        [](std::uint32_t city) { return static_cast<std::int32_t>(city); },
        [&](std::uint32_t city) { return flags[city] != 0; },
        [&](std::uint32_t k, std::int32_t city) { out[k] = city; });
    if (threadIdx.x == 0) {
        count[s] = static_cast<std::int32_t>(kept);
        if (cells != nullptr)
            atomicAdd(cells, static_cast<unsigned long long>(kept) * cells_per_focus);
    }
}

/// Applies a selected move to one tour: one block of kApplyThreads per solution (the
/// adapter's apply kernel), every thread decoding before any writes; thread 0 marks the
/// touched cities in the focus (when present).
template <class Eval> struct TourApplier {
    static constexpr unsigned threads = kApplyThreads;
    Eval eval;
    std::int32_t* tours;
    std::uint8_t* focus; ///< null without focus

    __device__ bool operator()(std::uint32_t s, std::uint64_t index) const {
        const std::int32_t n = eval.v.n;
        const TourMove m = eval.decode(s, index);
        std::int32_t* tour = tours + static_cast<std::int64_t>(s) * n;
        if (m.valid && focus != nullptr && threadIdx.x == 0) {
            std::int32_t touched[6];
            const int k = touched_cities(m, tour, n, touched);
            for (int q = 0; q < k; ++q)
                focus[static_cast<std::int64_t>(s) * n + touched[q]] = 1;
        }
        __syncthreads();
        if (!m.valid) return false;
        if (m.kind == MoveKind::swap) {
            if (threadIdx.x == 0) {
                const std::int32_t tmp = tour[m.i];
                tour[m.i] = tour[m.j];
                tour[m.j] = tmp;
            }
            return true;
        }
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
        return true;
    }
};

/// The TSP neighborhood of evaluator Eval on the device: tour-ordered points and edge lengths
/// (prepare_kernel), city positions (candidate spaces), the focus flags of each tour and, for
/// candidate spaces with focus, the focused cities in increasing order (focus_list_kernel).
template <class Eval> class TourDevicePolicy {
public:
    using evaluator_type = Eval;
    using move_type = TourMove;
    using Metric = decltype(Eval{}.v.metric);
    using Point = typename Metric::point_type;

    TourDevicePolicy(const TspProblem& problem, NeighborhoodSpec spec)
        : problem_(problem), label_(neighborhood_label(spec)),
          n_(static_cast<std::int32_t>(problem.size())), uses_pos_(spec.candidates > 0), spec_(spec),
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
    }

    std::string_view label() const { return label_; }
    /// Grid cells of one exploration without focus.
    std::uint64_t cells() const { return make_evaluator<Eval>(view_, spec_).grid().size(); }
    gpu::MoveGrid max_grid() const { return make_evaluator<Eval>(view_, spec_).grid(); }

    void declare(gpu::ArrayList& list, std::uint32_t count) {
        const std::size_t c = count;
        const auto n = static_cast<std::size_t>(n_);
        list.add(P_, c * (n + 1), "TSP tour-ordered points");
        list.add(D_, c * n, "TSP tour edge lengths");
        list.add(focus_, c * n, "TSP focus");
        list.add(pos_, uses_pos_ ? c * n : 0, "TSP city positions");
        list.add(focus_list_, uses_pos_ ? c * n : 0, "TSP focus lists");
        list.add(focus_count_, uses_pos_ ? c : 0, "TSP focus counts");
    }

    void upload(const SolutionBatch& batch, const gpu::DeviceBatch&, cudaStream_t stream) {
        focus_on_ = batch.has_focus();
        if (!focus_on_) return;
        LOCUS_CUDA_CHECK(cudaMemcpyAsync(focus_, batch.focus_data().data(),
                                         batch.focus_data().size(), cudaMemcpyHostToDevice,
                                         stream));
        focus_rows_ = 0;
        for (std::size_t s = 0; s < batch.count(); ++s) {
            const auto f = batch.focus(s);
            const auto m = std::count_if(f.begin(), f.end(), [](std::uint8_t b) { return b != 0; });
            focus_rows_ = std::max(focus_rows_, static_cast<std::int32_t>(m));
        }
    }

    void download(SolutionBatch& batch, cudaStream_t stream) {
        if (focus_on_)
            LOCUS_CUDA_CHECK(cudaMemcpyAsync(batch.focus_data().data(), focus_,
                                             batch.focus_data().size(), cudaMemcpyDeviceToHost,
                                             stream));
    }

    gpu::PreparedExploration<Eval> prepare(const gpu::DeviceBatch& d, unsigned long long* d_count,
                                           cudaStream_t stream) {
        TourBatchView<Metric> v = view_;
        v.objective = d.objectives;
        v.tour = d.solutions;
        v.P = P_;
        v.D = D_;
        v.pos = uses_pos_ ? pos_ : nullptr;
        const std::uint64_t total = static_cast<std::uint64_t>(d.count) * n_;
        const auto blocks =
            static_cast<unsigned>(std::min<std::uint64_t>((total + 255) / 256, 65535));
        prepare_kernel<Metric><<<blocks, 256, 0, stream>>>(
            v, P_, D_, uses_pos_ ? pos_ : nullptr, d.count);
        LOCUS_CUDA_CHECK_LAUNCH();
        if (!(uses_pos_ && focus_on_)) return {make_evaluator<Eval>(v, spec_), make_evaluator<Eval>(v, spec_).grid().size() * d.count};
        const auto per_focus =
            static_cast<unsigned long long>(Eval::rows_per_focus) * make_evaluator<Eval>(v, spec_).grid().cols;
        focus_list_kernel<256><<<d.count, 256, 0, stream>>>(
            focus_, focus_list_, focus_count_, n_, per_focus, d_count);
        LOCUS_CUDA_CHECK_LAUNCH();
        v.focus_list = focus_list_;
        v.focus_count = focus_count_;
        v.focus_rows = focus_rows_;
        // NOTE: the next prepare follows at most one applied move per tour, which focuses at
        // most 6 more cities (touched_cities): an upper bound of every focus count then.
        focus_rows_ = std::min(n_, focus_rows_ + 6);
        return {make_evaluator<Eval>(v, spec_), 0};
    }

    TourApplier<Eval> applier(const Eval& eval, const gpu::DeviceBatch& d) {
        return {eval, d.solutions, focus_on_ ? focus_ : nullptr};
    }

    Objective evaluate(std::span<const std::int32_t> tour) const { return problem_.evaluate(tour); }

    bool conflicts(const TourMove& a, const TourMove& b) const { return rule_.conflicts(a, b); }
    void apply_independent(SolutionBatch& batch, std::size_t s,
                           std::span<const TourMove> moves) const {
        rule_.apply(batch[s], batch.has_focus() ? batch.focus(s) : std::span<std::uint8_t>{},
                    moves);
    }

private:
    const TspProblem& problem_;
    std::string label_;
    std::int32_t n_;
    bool uses_pos_;
    NeighborhoodSpec spec_;
    TourIndependence rule_{n_};
    DeviceInstance instance_;
    TourBatchView<Metric> view_{};
    gpu::DeviceBuffer<std::int32_t> candidates_;
    // Per-solution arrays in the adapter's storage list (declare()).
    Point* P_ = nullptr;
    std::int32_t* D_ = nullptr;
    std::int32_t* pos_ = nullptr;
    std::uint8_t* focus_ = nullptr;
    std::int32_t* focus_list_ = nullptr;
    std::int32_t* focus_count_ = nullptr;
    bool focus_on_ = false;
    std::int32_t focus_rows_ = 0;
};

} // namespace

std::unique_ptr<TourEngine> make_cuda_engine(const TspProblem& problem, NeighborhoodSpec spec,
                                             const gpu::EngineSettings& settings) {
    return visit_evaluator(problem, spec, [&](auto space_tag) -> std::unique_ptr<TourEngine> {
        using Eval = typename decltype(space_tag)::type;
        using Adapter = gpu::DeviceNeighborhoodAdapter<TourDevicePolicy<Eval>>;
        return std::make_unique<AdaptedTourEngine<Adapter>>(settings, problem, spec);
    });
}

} // namespace locus::tsp
