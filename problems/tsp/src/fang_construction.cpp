// FANG tour construction: the CPU twin and the Construction component.

#include "locus/tsp/fang_construction.hpp"

#include "fang_slots.hpp"
#include "locus/error.hpp"
#include "locus/rng.hpp"
#include "locus/tsp/tsp_problem.hpp"

namespace locus::tsp {

void fang_tours_cpu(const TspProblem& problem, std::int32_t greed, const std::int32_t* starts,
                    std::uint32_t count, std::uint64_t seed, int threads, std::int32_t* tours) {
    visit_metric(problem.instance().metric, [&](auto tag) {
        using Metric = typename decltype(tag)::type;
        TourConstructionPolicy<Metric> policy{host_metric<Metric>(problem.instance()),
                                              static_cast<std::int32_t>(problem.size()), greed};
        gpu::CpuSuccessorEngine<TourConstructionPolicy<Metric>> engine(policy, count, {}, threads);
        const auto slots = detail::construction_slots(policy, starts, count);
        engine.load(slots.data(), count);
        engine.generate(1, seed);
        detail::tours_from_slots(engine.slots(), engine.layout(), policy.n, count, tours);
    });
}

void FangTour::construct(SolutionBatch& batch, std::uint64_t seed) {
    const auto n = static_cast<std::uint32_t>(problem_.size());
    const auto count = static_cast<std::uint32_t>(batch.count());
    std::vector<std::int32_t> starts(count);
    for (std::uint32_t s = 0; s < count; ++s)
        starts[s] = static_cast<std::int32_t>(Rng(derive_key(seed, s), 1).below(n));
    const std::uint64_t key = derive_key(seed, 0x66616E67ull /* "fang" */);
    if (backend_ == Backend::cuda)
        fang_tours_cuda(problem_, greed_, starts.data(), count, key, batch.data().data());
    else
        fang_tours_cpu(problem_, greed_, starts.data(), count, key, threads_, batch.data().data());
    for (std::size_t s = 0; s < batch.count(); ++s)
        batch.objective(s) = problem_.evaluate(batch[s]);
}

} // namespace locus::tsp
