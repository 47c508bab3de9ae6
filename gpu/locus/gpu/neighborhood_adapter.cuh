#pragma once
/// \file
/// The neighborhood adapter, device side (nvcc only): the CUDA wrapper of a problem's
/// neighborhood policy. It keeps a batch on the device (solutions, objectives, selected moves,
/// per-step counters, an error word), explores with the engine's select_moves, applies with one
/// kernel per step, and runs the batched descent. Results equal CpuNeighborhoodAdapter's
/// (neighborhood_adapter.hpp) for the same evaluator: same solutions, objectives, step and
/// evaluation counts.
///
/// The batched descent issues steps_per_sync(settings) explore+apply steps without waiting,
/// then reads each step's applied-move count and counts like run_descent (count_group): up to
/// and including the first step that applied nothing. Steps issued after convergence select
/// only non-improving moves and change nothing. `stop` is called between groups; `max_steps`
/// bounds the steps issued. With check_moves every step is synchronised and every solution
/// re-evaluated on the host.
///
/// Streams: everything is ordered on the adapter's own non-blocking stream; public calls return
/// after synchronising it (explore, apply and descend hand back host results).

#include <cuda_runtime.h>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "locus/error.hpp"
#include "locus/gpu/cuda_check.hpp"
#include "locus/gpu/device.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/neighborhood_adapter.hpp"
#include "locus/gpu/neighborhood_adapter_kernels.cuh"
#include "locus/gpu/storage.hpp"
#include "locus/gpu/neighborhood_engine.cuh"
#include "locus/gpu/neighborhood_parts.cuh"
#include "locus/gpu/stream.hpp"

namespace locus::gpu {

/// The batch resident on the device, as the adapter hands it to its policy.
struct DeviceBatch {
    std::int32_t* solutions = nullptr; ///< count x width int32, solution-major (device memory)
    std::uint32_t count = 0;           ///< number of solutions
    std::uint32_t width = 0;           ///< int32 per solution
    const Objective* objectives = nullptr; ///< count objectives (device memory), kept current
};

/// What a device policy's prepare() returns.
template <class E> struct PreparedExploration {
    E evaluator;                   ///< over the device arrays of the current solutions
    std::uint64_t evaluations = 0; ///< moves the exploration evaluates, as far as the host knows
};

/// A functor applying one selected move on the device: trivially copyable, with
///   static constexpr unsigned threads      1: one thread per solution; else one block of this
///                                          many threads (<= 1024) per solution
///   __device__ bool operator()(std::uint32_t solution, std::uint64_t index) const
/// operator() applies move `index` to `solution` and returns true, or returns false and changes
/// nothing when the index is not a move. With threads > 1 every thread of the block calls it
/// (it may __syncthreads) and all return the same value.
template <class A>
concept DeviceMoveApplier = std::is_trivially_copyable_v<A> && requires {
    requires A::threads >= 1u && A::threads <= 1024u;
};

/// A problem's neighborhood on the device, for DeviceNeighborhoodAdapter. P is a class with
///   evaluator_type                a MoveEvaluator over device arrays
///   label()                       the neighborhood in messages, e.g. "TSP two_opt"
///   max_grid()                    the largest grid prepare() returns (sizes the workspace)
///   declare(list, count)          optional: adds its device arrays for `count` solutions to the
///                                 storage list (binding its own pointers); the adapter
///                                 measures the list, checks the memory budget and allocates
///                                 one block
///   upload(batch, d, stream)      optional: copies the state it keeps beside the solutions
///                                 (TSP: focus) after they are uploaded; ordered on `stream`
///   download(batch, stream)       optional: the reverse, ordered on `stream` (the adapter
///                                 synchronises)
/// (a policy whose evaluator reads only the solutions and instance data leaves the three out)
///   prepare(d, d_count, stream)   enqueues the arrays the evaluator reads for the solutions in
///                                 `d` and returns the evaluator; moves only the device can
///                                 count it adds to *d_count (unless null) on `stream`, the
///                                 others it returns in `evaluations`. The next prepare follows
///                                 at most one applied move per solution
///   applier(eval, d)              a DeviceMoveApplier for the solutions of `d`, decoding with
///                                 `eval` (prepared for the solutions before the move)
///   evaluate(solution)            full objective of a host solution (check_moves)
template <class P>
concept DeviceNeighborhoodPolicy = MoveEvaluator<typename P::evaluator_type> &&
    requires(P& p, const P& cp, ArrayList& list, const SolutionBatch& cb, SolutionBatch& b,
             const DeviceBatch& d,
             const typename P::evaluator_type& e, std::uint32_t count, unsigned long long* d_count,
             cudaStream_t stream, std::span<const std::int32_t> solution) {
    { cp.label() } -> std::convertible_to<std::string_view>;
    { cp.max_grid() } -> std::same_as<MoveGrid>;
    {
        p.prepare(d, d_count, stream)
        } -> std::same_as<PreparedExploration<typename P::evaluator_type>>;
    { p.applier(e, d) } -> DeviceMoveApplier;
    { cp.evaluate(solution) } -> std::same_as<Objective>;
};

/// The CUDA wrapper of a neighborhood policy, with the contracts of locus::Neighborhood and the
/// results of CpuNeighborhoodAdapter. The constructor makes settings.device current before it
/// constructs the policy from `args` (so a missing device gets require_device's message). Batch
/// buffers grow on demand; before growing, the device memory of the adapter, the policy and the
/// engine workspace for the batch is checked against settings.memory (CudaError naming the MiB
/// needed and allowed). A move index that does not decode throws Error at the next
/// synchronisation. Not thread-safe: one call at a time.
template <class Policy> class DeviceNeighborhoodAdapter {
    static_assert(DeviceNeighborhoodPolicy<Policy>,
                  "Policy does not model locus::gpu::DeviceNeighborhoodPolicy");

public:
    using Evaluator = typename Policy::evaluator_type;
    using Delta = typename Evaluator::delta_type;

    /// Makes settings.device current (require_device: CudaError when unusable), creates the
    /// stream, then the policy from `args`. Allocates no batch memory yet.
    template <class... Args>
    explicit DeviceNeighborhoodAdapter(EngineSettings settings, Args&&... args)
        : settings_(settings), device_(select_device(settings.device)),
          policy_(std::forward<Args>(args)...) {
        const std::uint32_t group = std::max<std::uint32_t>(1, settings_.sync_every);
        applied_.allocate(group, "applied-move counters");
        counts_.allocate(group, "evaluation counters");
        error_.allocate(1, "error word");
        error_.fill_bytes_async(0xFF, stream_);
        applied_host_.resize(group);
        counts_host_.resize(group);
        evaluations_.resize(group);
    }

    /// The wrapped policy (e.g. for its cells()).
    Policy& policy() { return policy_; }
    const Policy& policy() const { return policy_; }
    const EngineSettings& settings() const { return settings_; }

    /// One exploration: out[s] = the move chosen for solution s by `pivot` (!found() when none).
    void explore(const SolutionBatch& batch, Pivot pivot, std::span<MoveChoice> out) {
        if (batch.count() == 0) return;
        upload(batch);
        select(pivot, nullptr);
        results_host_.resize(batch.count());
        LOCUS_CUDA_CHECK(cudaMemcpyAsync(results_host_.data(), results_, (batch.count()) * sizeof(*results_),
                                         cudaMemcpyDeviceToHost, stream_));
        stream_.synchronize();
        for (std::size_t s = 0; s < batch.count(); ++s) {
            const MoveResult<Delta>& r = results_host_[s];
            out[s] =
                r.found() ? MoveChoice{r.index, static_cast<Objective>(r.delta)} : MoveChoice{};
        }
    }

    /// Applies moves[s] to solution s where found, whatever its delta.
    void apply(SolutionBatch& batch, std::span<const MoveChoice> moves) {
        if (batch.count() == 0) return;
        upload(batch);
        const PreparedExploration<Evaluator> prepared =
            policy_.prepare(batch_, nullptr, stream_.get());
        results_host_.resize(batch.count());
        for (std::size_t s = 0; s < batch.count(); ++s)
            results_host_[s] =
                moves[s].found()
                    ? MoveResult<Delta>{static_cast<Delta>(moves[s].delta), moves[s].index}
                    : MoveResult<Delta>{invalid_delta<Delta>(), kNoMove};
        LOCUS_CUDA_CHECK(cudaMemcpyAsync(results_, results_host_.data(), (batch.count()) * sizeof(*results_),
                                         cudaMemcpyHostToDevice, stream_));
        launch_apply(prepared.evaluator, false, applied_.data());
        download(batch);
    }

    /// The batched descent (see the file comment): the contract of Neighborhood::descend.
    DescentStats descend(SolutionBatch& batch, Pivot pivot, std::uint64_t max_steps,
                         const std::function<bool()>& stop) {
        DescentStats stats;
        if (batch.count() == 0) {
            stats.stopped = stop && stop();
            return stats;
        }
        upload(batch);
        const std::uint32_t group = steps_per_sync(settings_);
        std::uint64_t explorations = 0;
        while (max_steps == 0 || explorations < max_steps) {
            if (stop && stop()) {
                stats.stopped = true;
                break;
            }
            const std::uint32_t issued =
                max_steps == 0 ? group
                               : static_cast<std::uint32_t>(
                                     std::min<std::uint64_t>(group, max_steps - explorations));
            applied_.fill_bytes_async(0, stream_);
            counts_.fill_bytes_async(0, stream_);
            // NOTE: a large exploration is selected in slices between which `stop` is asked
            // (sliced_selection); a halted one is dropped, with the explorations after it.
            stop_ = stop ? &stop : nullptr;
            std::uint32_t done = issued;
            for (std::uint32_t k = 0; k < issued; ++k) {
                const PreparedExploration<Evaluator> prepared = select(pivot, counts_.data() + k);
                if (halted_) {
                    done = k;
                    break;
                }
                evaluations_[k] = prepared.evaluations;
                launch_apply(prepared.evaluator, true, applied_.data() + k);
            }
            stop_ = nullptr;
            GroupCount counted;
            if (done > 0) {
                applied_.download_async(applied_host_.data(), done, stream_);
                counts_.download_async(counts_host_.data(), done, stream_);
                stream_.synchronize();
                check_error();
                for (std::uint32_t k = 0; k < done; ++k)
                    evaluations_[k] += counts_host_[k];
                counted = count_group({applied_host_.data(), done}, {evaluations_.data(), done},
                                      stats);
                explorations += counted.explorations;
                if (settings_.check_moves) check_batch(batch);
            }
            if (halted_) {
                stats.stopped = true;
                break;
            }
            if (counted.converged) break;
        }
        stats.explorations = explorations;
        download(batch);
        return stats;
    }

    /// The parallel descent (Neighborhood::descend_independent): each exploration uploads the
    /// batch, collects and decodes the improving moves on the device (improving_moves,
    /// decode_improving_kernel) and downloads them; selection and application run on the host
    /// (detail::IndependentStep, as on the CPU twin), as Riise & Burke 2014 found fastest. Same results
    /// as CpuNeighborhoodAdapter::descend_independent.
    DescentStats descend_independent(SolutionBatch& batch, const IndependentDescentOptions& options,
                                     const std::function<bool()>& stop)
        requires IndependencePolicy<Policy>
    {
        using Move = typename Policy::move_type;
        const auto count = static_cast<std::uint32_t>(batch.count());
        const std::uint32_t capacity = std::max<std::uint32_t>(options.capacity, 1);
        const std::size_t slots = static_cast<std::size_t>(count) * capacity;
        DeviceBuffer<MoveResult<Delta>> d_found;
        DeviceBuffer<Move> d_moves;
        DeviceBuffer<std::uint32_t> d_counts;
        if (count > 0) {
            d_found.allocate(slots, "improving moves");
            d_moves.allocate(slots, "decoded improving moves");
            d_counts.allocate(count, "improving-move counts");
        }
        std::vector<MoveResult<Delta>> found(slots);
        std::vector<Move> moves(slots);
        std::vector<std::uint32_t> counts(count);
        detail::IndependentStep<Move, Delta> step;
        std::uint64_t explorations = 0;
        DescentStats stats = run_descent(options.max_steps, stop, [&] {
            if (count == 0) return DescentStep{};
            upload(batch);
            counts_.fill_bytes_async(0, stream_);
            const PreparedExploration<Evaluator> prepared =
                policy_.prepare(batch_, counts_.data(), stream_.get());
            // NOTE: one exploration of a full neighborhood of 10^6 cities takes seconds: the
            // count pass reads a halt flag that this thread raises once `stop` says so, and a
            // halted exploration is dropped (as on the CPU).
            if (!halt_) halt_ = std::make_unique<MappedFlag>();
            halt_->lower();
            const bool watching = stop && watched(prepared.evaluator);
            const volatile std::uint8_t* halt = watching ? halt_->device() : nullptr;
            LOCUS_CUDA_CHECK(improving_moves(prepared.evaluator, count, capacity, d_found.data(),
                                             d_counts.data(), workspace_, stream_.get(), halt));
            constexpr unsigned kThreads = detail::Tuning::kDecodeThreads;
            const auto blocks = static_cast<unsigned>(std::clamp<std::size_t>(
                (slots + kThreads - 1) / kThreads, 1, detail::Tuning::kDecodeMaxBlocks));
            detail::decode_improving_kernel<<<blocks, kThreads, 0, stream_.get()>>>(
                prepared.evaluator, d_found.data(), d_counts.data(), capacity, count,
                d_moves.data(), halt);
            LOCUS_CUDA_CHECK_LAUNCH();
            d_counts.download_async(counts.data(), count, stream_);
            counts_.download_async(counts_host_.data(), 1, stream_);
            if (watching) halt_->watch(stream_.get(), stop);
            stream_.synchronize();
            if (watching && halt_->raised()) return DescentStep{0, 0, true};
            for (std::uint32_t s = 0; s < count; ++s) {
                const std::size_t k = std::min(counts[s], capacity);
                if (k == 0) continue;
                const std::size_t first = static_cast<std::size_t>(s) * capacity;
                LOCUS_CUDA_CHECK(cudaMemcpyAsync(found.data() + first, d_found.data() + first,
                                                 k * sizeof(MoveResult<Delta>),
                                                 cudaMemcpyDeviceToHost, stream_));
                LOCUS_CUDA_CHECK(cudaMemcpyAsync(moves.data() + first, d_moves.data() + first,
                                                 k * sizeof(Move), cudaMemcpyDeviceToHost,
                                                 stream_));
            }
            stream_.synchronize();
            ++explorations;
            std::uint64_t applied = 0;
            for (std::uint32_t s = 0; s < count; ++s) {
                const std::size_t first = static_cast<std::size_t>(s) * capacity;
                const std::size_t k = std::min(counts[s], capacity);
                applied += step.run(policy_, batch, s, {found.data() + first, k},
                                    std::span<const Move>(moves.data() + first, k),
                                    options.max_moves);
                if (settings_.check_moves && !step.chosen().empty()) {
                    const Objective full = policy_.evaluate(std::as_const(batch)[s]);
                    if (!objectives_agree(batch.objective(s), full))
                        throw Error(detail::check_moves_message(s, "its independent moves",
                                                                batch.objective(s), full,
                                                                settings_.sense));
                }
            }
            return DescentStep{applied, prepared.evaluations + counts_host_[0]};
        });
        stats.explorations = explorations;
        return stats;
    }

    /// Benchmark hook: seconds per exploration of the whole batch, resident and prepared once,
    /// without transfers (median of `repetitions` >= 1 runs timed with events, after a warm-up).
    double time_exploration(const SolutionBatch& batch, Pivot pivot, int repetitions) {
        upload(batch);
        const PreparedExploration<Evaluator> prepared =
            policy_.prepare(batch_, nullptr, stream_.get());
        Event start;
        Event end;
        std::vector<double> seconds;
        for (int r = 0; r <= std::max(repetitions, 1); ++r) {
            start.record(stream_);
            run_selection(prepared.evaluator, pivot);
            end.record(stream_);
            end.synchronize();
            seconds.push_back(static_cast<double>(end.elapsed_ms_since(start)) / 1000.0);
        }
        return detail::median_after_warmup(std::move(seconds));
    }

private:
    static int select_device(int ordinal) {
        require_device(ordinal);
        return ordinal;
    }

    /// Makes room for `count` solutions of `width`: the adapter's arrays and the policy's in
    /// one storage list, checked with the engine workspace against the memory budget first.
    void reserve(std::uint32_t count, std::uint32_t width) {
        if (count <= capacity_ && width == width_) return;
        // NOTE: the old buffers go first, so that a budget taken as a share of the free memory
        // counts the memory they held.
        storage_.release();
        workspace_.release();
        capacity_ = 0;
        ArrayList list;
        const std::size_t c = count;
        list.add(solutions_, c * width, "solutions");
        list.add(objectives_, c, "objectives");
        list.add(results_, c, "selected moves");
        if constexpr (requires { policy_.declare(list, count); }) policy_.declare(list, count);
        const std::size_t need =
            list.bytes() + EngineWorkspace::bytes_needed(policy_.max_grid(), count);
        const std::size_t allowed = settings_.memory.allowance();
        if (need > allowed)
            throw CudaError(
                detail::memory_budget_message(policy_.label(), count, width, need, allowed));
        storage_.allocate(list, std::string(policy_.label()) + " batch");
        workspace_.reserve_for(policy_.max_grid(), count, stream_);
        capacity_ = count;
        width_ = width;
    }

    void upload(const SolutionBatch& batch) {
        const auto count = static_cast<std::uint32_t>(batch.count());
        const auto width = static_cast<std::uint32_t>(batch.width());
        reserve(count, width);
        batch_ = DeviceBatch{solutions_, count, width, objectives_};
        LOCUS_CUDA_CHECK(cudaMemcpyAsync(solutions_, batch.data().data(), batch.data().size() * 4,
                                         cudaMemcpyHostToDevice, stream_));
        objectives_host_.resize(count);
        for (std::size_t s = 0; s < batch.count(); ++s)
            objectives_host_[s] = batch.objective(s);
        LOCUS_CUDA_CHECK(cudaMemcpyAsync(objectives_, objectives_host_.data(),
                                         count * sizeof(Objective), cudaMemcpyHostToDevice,
                                         stream_));
        if constexpr (requires { policy_.upload(batch, batch_, stream_.get()); })
            policy_.upload(batch, batch_, stream_.get());
    }

    /// Copies the resident batch into `batch` (same shape as uploaded); synchronises.
    void download(SolutionBatch& batch) {
        LOCUS_CUDA_CHECK(cudaMemcpyAsync(batch.data().data(), solutions_, batch.data().size() * 4,
                                         cudaMemcpyDeviceToHost, stream_));
        objectives_host_.resize(batch.count());
        LOCUS_CUDA_CHECK(cudaMemcpyAsync(objectives_host_.data(), objectives_,
                                         batch.count() * sizeof(Objective),
                                         cudaMemcpyDeviceToHost, stream_));
        if constexpr (requires { policy_.download(batch, stream_.get()); })
            policy_.download(batch, stream_.get());
        stream_.synchronize();
        check_error();
        for (std::size_t s = 0; s < batch.count(); ++s)
            batch.objective(s) = objectives_host_[s];
    }

    PreparedExploration<Evaluator> select(Pivot pivot, unsigned long long* d_count) {
        halted_ = false;
        const PreparedExploration<Evaluator> prepared =
            policy_.prepare(batch_, d_count, stream_.get());
        run_selection(prepared.evaluator, pivot);
        return prepared;
    }

    /// Cells of one slice of a sliced selection (about a tenth of a second of the slowest
    /// evaluators: DCVRP 3-opt cells with route resources, 10^10 a second on an H200).
    static constexpr std::uint64_t kSliceCells = std::uint64_t{1} << 31;

    /// select_moves of an exploration of 2^32+ cells over the batch, in slices of about
    /// kSliceCells: after each, the results are combined on the host (in slice order, as
    /// select_moves_cpu would choose) and `*stop_` is asked; once it says so halted_ is set and
    /// results_ is meaningless. Pivot::first ends at the slice where every solution has its
    /// move. Same results as one launch.
    void sliced_selection(const Evaluator& eval, Pivot pivot) {
        const std::uint32_t count = batch_.count;
        const std::uint64_t cells = eval.grid().size() * std::max<std::uint32_t>(count, 1);
        const std::uint64_t slices = (cells + kSliceCells - 1) / kSliceCells;
        std::vector<MoveResult<Delta>> best(count, MoveResult<Delta>{invalid_delta<Delta>(), kNoMove});
        results_host_.resize(count);
        for (std::uint64_t k = 0; k < slices; ++k) {
            LOCUS_CUDA_CHECK(select_moves(eval, count, pivot, results_, workspace_, stream_, k,
                                          slices));
            LOCUS_CUDA_CHECK(cudaMemcpyAsync(results_host_.data(), results_,
                                             count * sizeof(*results_), cudaMemcpyDeviceToHost,
                                             stream_));
            stream_.synchronize();
            bool all = true;
            for (std::uint32_t s = 0; s < count; ++s) {
                const MoveResult<Delta>& r = results_host_[s];
                const bool take = pivot == Pivot::best
                                      ? detail::precedes_best(r.delta, r.index, best[s].delta,
                                                              best[s].index)
                                      : (r.index < best[s].index);
                if (take) best[s] = r;
                all = all && best[s].found();
            }
            if (pivot == Pivot::first && all) break;
            if (k + 1 < slices && (*stop_)()) {
                halted_ = true;
                return;
            }
        }
        LOCUS_CUDA_CHECK(cudaMemcpyAsync(results_, best.data(), count * sizeof(*results_),
                                         cudaMemcpyHostToDevice, stream_));
        stream_.synchronize();
    }

    /// select_moves, or select_moves_parts when the policy asks for parts (the part size is
    /// the policy's, capped at the grid, as on the CPU twin; its lists are checked against the
    /// memory budget).
    void run_selection(const Evaluator& eval, Pivot pivot) {
        if constexpr (PartsPolicy<Policy>) {
            const auto plan = policy_.parts(eval);
            if (plan.enabled) {
                const std::uint64_t part = std::min<std::uint64_t>(
                    std::max<std::uint64_t>(plan.part_cells, 1),
                    std::max<std::uint64_t>(eval.grid().size(), 1));
                if (!parts_)
                    parts_ = std::make_unique<PartsWorkspace>();
                parts_->reserve(plan.filter, part, batch_.count, settings_.memory);
                select_moves_parts(eval, plan.filter, batch_.count, part_pivot(pivot), part,
                                   results_, *parts_, stream_);
                return;
            }
        }
        if (stop_ != nullptr &&
            eval.grid().size() * std::max<std::uint32_t>(batch_.count, 1) >= 2 * kSliceCells) {
            sliced_selection(eval, pivot);
            return;
        }
        LOCUS_CUDA_CHECK(
            select_moves(eval, batch_.count, pivot, results_, workspace_, stream_));
    }

    /// Whether the parallel descent's explorations of `eval` are large enough (2^26 cells over
    /// the batch, as the CPU twin's watchdog) to read the halt flag: a read costs a bus round
    /// trip per block.
    bool watched(const Evaluator& eval) const {
        return halt_ && eval.grid().size() * std::max<std::uint32_t>(batch_.count, 1) >=
                            (std::uint64_t{1} << 26);
    }

    void launch_apply(const Evaluator& eval, bool only_improving, std::uint32_t* applied) {
        const auto applier = policy_.applier(eval, batch_);
        using A = std::remove_cv_t<decltype(applier)>;
        const std::uint32_t count = batch_.count;
        if constexpr (A::threads == 1) {
            const unsigned blocks =
                (count + detail::kApplyBlockThreads - 1) / detail::kApplyBlockThreads;
            detail::apply_moves_kernel<A, Delta>
                <<<blocks, detail::kApplyBlockThreads, 0, stream_.get()>>>(
                    applier, results_, count, only_improving, objectives_, applied,
                    error_.data());
        } else {
            detail::apply_moves_kernel<A, Delta><<<count, A::threads, 0, stream_.get()>>>(
                applier, results_, count, only_improving, objectives_, applied,
                error_.data());
        }
        LOCUS_CUDA_CHECK_LAUNCH();
    }

    /// Throws Error when a kernel met a move index that is not a move (and clears the word).
    void check_error() {
        unsigned long long index = kNoMove;
        error_.download_async(&index, 1, stream_);
        stream_.synchronize();
        if (index == kNoMove) return;
        error_.fill_bytes_async(0xFF, stream_);
        throw Error(detail::undecodable_move_message(policy_.label(), index));
    }

    /// check_moves after a step: every solution's objective against a full evaluation.
    void check_batch(const SolutionBatch& batch) {
        SolutionBatch copy = batch;
        results_host_.resize(copy.count());
        LOCUS_CUDA_CHECK(cudaMemcpyAsync(results_host_.data(), results_, (copy.count()) * sizeof(*results_),
                                         cudaMemcpyDeviceToHost, stream_));
        download(copy);
        for (std::size_t s = 0; s < copy.count(); ++s) {
            const Objective full = policy_.evaluate(std::as_const(copy)[s]);
            if (objectives_agree(copy.objective(s), full)) continue;
            const MoveResult<Delta>& r = results_host_[s];
            const std::string move =
                r.found() ? "move index " + std::to_string(r.index) : std::string("its last step");
            throw Error(
                detail::check_moves_message(s, move, copy.objective(s), full, settings_.sense));
        }
    }

    EngineSettings settings_;
    int device_; ///< made current before the stream and the policy are created
    Stream stream_;
    Policy policy_;
    EngineWorkspace workspace_;
    std::unique_ptr<PartsWorkspace> parts_; ///< lists of selections in parts, made on first use
    DeviceStorage storage_;            ///< solutions, objectives, selected moves, policy arrays
    std::int32_t* solutions_ = nullptr;
    Objective* objectives_ = nullptr;
    MoveResult<Delta>* results_ = nullptr;
    DeviceBuffer<std::uint32_t> applied_;     ///< per step of a group: solutions that moved
    DeviceBuffer<unsigned long long> counts_; ///< per step: evaluations counted on the device
    DeviceBuffer<unsigned long long> error_;  ///< lowest undecodable index, kNoMove if none
    std::uint32_t capacity_ = 0;
    std::uint32_t width_ = 0;
    DeviceBatch batch_{};
    std::vector<Objective> objectives_host_;
    std::vector<MoveResult<Delta>> results_host_;
    std::vector<std::uint32_t> applied_host_;
    std::vector<unsigned long long> counts_host_;
    std::vector<std::uint64_t> evaluations_;
    std::unique_ptr<MappedFlag> halt_; ///< the parallel descent's halt flag, made on first use
    const std::function<bool()>* stop_ = nullptr; ///< descend's stop test while it selects
    bool halted_ = false; ///< the last selection was stopped between its slices
};

} // namespace locus::gpu
