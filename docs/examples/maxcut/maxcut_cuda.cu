// The flip neighborhood on a CUDA device: a policy of the neighborhood adapter's device wrapper
// (the engine selects the moves; the applier flips one vertex per solution).

#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/neighborhood_adapter.cuh"
#include "maxcut.hpp"

namespace maxcut {
using namespace locus;
namespace {

struct FlipApplier {
    static constexpr unsigned threads = 1; // one thread per solution
    std::int32_t* sides;
    std::int32_t n;
    __device__ bool operator()(std::uint32_t solution, std::uint64_t index) const {
        if (index >= std::uint64_t(n)) return false;
        sides[std::int64_t(solution) * n + std::int64_t(index)] ^= 1;
        return true;
    }
};

/// The graph lives on the device; the evaluator reads the resident solutions.
class FlipDevicePolicy {
public:
    using evaluator_type = FlipEvaluator;
    explicit FlipDevicePolicy(const MaxCutProblem& problem) : p_(problem) {
        const Graph& g = problem.graph();
        offset_.allocate(g.offset.size(), "Max-Cut adjacency");
        other_.allocate(g.other.size() + 1, "Max-Cut adjacency");
        weight_.allocate(g.weight.size() + 1, "Max-Cut edge weights");
        offset_.upload(g.offset.data(), g.offset.size());
        other_.upload(g.other.data(), g.other.size());
        weight_.upload(g.weight.data(), g.weight.size());
    }
    std::string_view label() const { return "Max-Cut flip"; }
    gpu::MoveGrid max_grid() const { return {1, std::uint32_t(p_.graph().n)}; }
    gpu::PreparedExploration<FlipEvaluator> prepare(const gpu::DeviceBatch& d, unsigned long long*,
                                                    cudaStream_t) const {
        const FlipEvaluator e{offset_.data(), other_.data(), weight_.data(), d.solutions,
                              p_.graph().n};
        return {e, e.grid().size() * d.count};
    }
    FlipApplier applier(const FlipEvaluator&, const gpu::DeviceBatch& d) const {
        return {d.solutions, p_.graph().n};
    }
    Objective evaluate(std::span<const std::int32_t> sides) const { return p_.evaluate(sides); }

private:
    const MaxCutProblem& p_;
    gpu::DeviceBuffer<std::int64_t> offset_, weight_;
    gpu::DeviceBuffer<std::int32_t> other_;
};

} // namespace

std::unique_ptr<Neighborhood> make_cuda_flip(const MaxCutProblem& problem,
                                             const gpu::EngineSettings& settings) {
    using Adapter = gpu::DeviceNeighborhoodAdapter<FlipDevicePolicy>;
    return std::make_unique<gpu::AdaptedNeighborhood<Adapter>>("flip", Backend::cuda,
                                                               problem.size(), settings, problem);
}

} // namespace maxcut
