// The QAP multi-start runner on the CUDA multi-start engine.

#include <algorithm>
#include <span>

#include "locus/gpu/device.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/multistart.cuh"
#include "locus/qap/instance.hpp"
#include "locus/qap/multistart.hpp"
#include "locus/qap/multistart_policy.hpp"

namespace locus::qap {
namespace {

int select(int device) {
    gpu::require_device(device);
    return device;
}

/// The matrices [a | b] as 32-bit words on the device.
gpu::DeviceBuffer<std::int32_t> device_words(const Instance& instance) {
    const std::vector<std::int32_t> words = matrix_words(instance);
    gpu::DeviceBuffer<std::int32_t> buffer(words.size(), "QAP matrices");
    buffer.upload(words.data(), words.size());
    return buffer;
}

class CudaMultiStart final : public MultiStartRunner {
public:
    CudaMultiStart(const Instance& instance, std::uint32_t capacity, gpu::Mapping mapping,
                   gpu::Strategy strategy, int device, const gpu::MemoryBudget& budget)
        : instance_(instance), device_(select(device)), d_words_(device_words(instance)),
          engine_(swap_policy(d_words_.data(), instance.n, true),
                  std::min(capacity,
                           gpu::multistart_fitting_searches(instance.n, mapping, strategy, budget)),
                  mapping, strategy, budget) {}

    // Rounds with more searches than fit in device memory run in several launches
    // (MultiStartEngine::run), asking `stop` between them; the searches of launches that did
    // not run keep their start, with zero moves (as in the CPU twin).
    std::uint32_t run(const gpu::MultiStartConfig& config, std::uint32_t searches,
                      const std::int32_t* starts, std::int32_t* best, gpu::SearchResult* results,
                      const std::function<bool()>& stop) override {
        const std::uint32_t ran = engine_.run(config, searches, starts, best, results, stop);
        const auto n = static_cast<std::size_t>(instance_.n);
        for (std::uint32_t s = ran; s < searches; ++s) {
            const std::int32_t* start = starts + s * n;
            std::copy_n(start, n, best + s * n);
            const std::int64_t cost = objective(instance_, std::span<const std::int32_t>(start, n));
            results[s] = {cost, cost, 0, 0, 0, 0};
        }
        return ran;
    }

private:
    const Instance& instance_;
    int device_;
    gpu::DeviceBuffer<std::int32_t> d_words_;
    gpu::MultiStartEngine<QapSwapPolicy> engine_;
};

} // namespace

std::unique_ptr<MultiStartRunner> make_cuda_multistart(const Instance& instance,
                                                       std::uint32_t capacity, gpu::Mapping mapping,
                                                       gpu::Strategy strategy, int device,
                                                       const gpu::MemoryBudget& budget) {
    return std::make_unique<CudaMultiStart>(instance, capacity, mapping, strategy, device, budget);
}

} // namespace locus::qap
