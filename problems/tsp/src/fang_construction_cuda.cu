// FANG tour construction on the CUDA successor engine.

#include "fang_slots.hpp"
#include "locus/gpu/device.hpp"
#include "locus/gpu/successor_engine.cuh"
#include "locus/tsp/device_instance.hpp"
#include "locus/tsp/tsp_problem.hpp"

namespace locus::tsp {

void fang_tours_cuda(const TspProblem& problem, std::int32_t greed, const std::int32_t* starts,
                     std::uint32_t count, std::uint64_t seed, std::int32_t* tours,
                     std::uint64_t first) {
    gpu::require_device(0);
    const DeviceInstance instance(problem.instance());
    visit_metric(problem.instance().metric, [&](auto tag) {
        using Metric = typename decltype(tag)::type;
        TourConstructionPolicy<Metric> policy{Metric::bind(instance.arrays()),
                                              static_cast<std::int32_t>(problem.size()), greed};
        gpu::SuccessorEngine<TourConstructionPolicy<Metric>> engine(policy, count, {});
        const auto slots = detail::construction_slots(policy, starts, count);
        engine.load(slots.data(), count);
        engine.generate(1, seed, nullptr, first);
        std::vector<std::int32_t> result(slots.size());
        engine.download(result.data());
        detail::tours_from_slots(result.data(), engine.layout(), policy.n, count, tours);
    });
}

} // namespace locus::tsp
