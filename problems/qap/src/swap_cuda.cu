// The QAP swap neighborhood on a CUDA device: a policy of the neighborhood adapter's device
// wrapper (the engine's select_moves, then the adapter's apply kernel, thread per solution).

#include <cstdint>
#include <span>
#include <string_view>

#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/neighborhood_adapter.cuh"
#include "locus/qap/swap_evaluator.hpp"
#include "locus/qap/swap_neighborhood.hpp"

namespace locus::qap {
namespace {

/// Exchanges the locations of the facilities of a selected swap; one thread per solution.
struct SwapApplier {
    static constexpr unsigned threads = 1;
    std::int32_t* perms;
    std::int32_t n;

    __device__ bool operator()(std::uint32_t solution, std::uint64_t index) const {
        std::int32_t r = 0, s = 0;
        SwapEvaluator::decode(index, n, r, s);
        if (index >= static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n) || r >= s)
            return false;
        std::int32_t* p = perms + static_cast<std::int64_t>(solution) * n;
        const std::int32_t tmp = p[r];
        p[r] = p[s];
        p[s] = tmp;
        return true;
    }
};

/// The swap neighborhood over device permutations: the flow and distance matrices live on the
/// device; nothing else is derived from the permutations.
class SwapDevicePolicy {
public:
    using evaluator_type = SwapEvaluator;
    using move_type = QapSwap;

    explicit SwapDevicePolicy(const QapProblem& problem)
        : problem_(problem), n_(problem.instance().n) {
        const Instance& inst = problem.instance();
        a_.allocate(inst.a.size(), "QAP flow matrix");
        b_.allocate(inst.b.size(), "QAP distance matrix");
        a_.upload(inst.a.data(), inst.a.size());
        b_.upload(inst.b.data(), inst.b.size());
    }

    std::string_view label() const { return "QAP swap"; }
    gpu::MoveGrid max_grid() const {
        return {static_cast<std::uint32_t>(n_), static_cast<std::uint32_t>(n_)};
    }
    void declare(gpu::ArrayList&, std::uint32_t) {}
    void upload(const SolutionBatch&, const gpu::DeviceBatch&, cudaStream_t) {}
    void download(SolutionBatch&, cudaStream_t) {}

    gpu::PreparedExploration<SwapEvaluator> prepare(const gpu::DeviceBatch& d, unsigned long long*,
                                                    cudaStream_t) const {
        const SwapEvaluator eval{a_.data(), b_.data(), d.solutions, n_};
        return {eval, eval.grid().size() * d.count};
    }
    SwapApplier applier(const SwapEvaluator&, const gpu::DeviceBatch& d) const {
        return {d.solutions, n_};
    }
    Objective evaluate(std::span<const std::int32_t> p) const { return problem_.evaluate(p); }
    bool conflicts(const QapSwap& x, const QapSwap& y) const {
        const Instance& inst = problem_.instance();
        return swaps_conflict(inst.a.data(), inst.b.data(), inst.n, x, y);
    }
    void apply_independent(SolutionBatch& batch, std::size_t solution,
                           std::span<const QapSwap> moves) const {
        auto p = batch[solution];
        for (const QapSwap& m : moves) {
            const std::int32_t tmp = p[static_cast<std::size_t>(m.r)];
            p[static_cast<std::size_t>(m.r)] = p[static_cast<std::size_t>(m.s)];
            p[static_cast<std::size_t>(m.s)] = tmp;
        }
    }

private:
    const QapProblem& problem_;
    std::int32_t n_;
    gpu::DeviceBuffer<std::int64_t> a_, b_;
};

} // namespace

std::unique_ptr<Neighborhood> make_cuda_swap(const QapProblem& problem,
                                             const gpu::EngineSettings& settings) {
    using Adapter = gpu::DeviceNeighborhoodAdapter<SwapDevicePolicy>;
    const auto n = static_cast<std::uint64_t>(problem.size());
    return std::make_unique<gpu::AdaptedNeighborhood<Adapter>>("swap", Backend::cuda, n * n,
                                                               settings, problem);
}

} // namespace locus::qap
