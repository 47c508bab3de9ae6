// FANG tour construction: the CPU twin and the Construction component.

#include "locus/tsp/fang_construction.hpp"

#include <algorithm>
#include <cmath>

#include "fang_slots.hpp"
#include "locus/error.hpp"
#include "locus/gpu/cpu_threads.hpp"
#include "locus/rng.hpp"
#include "locus/rng_salts.hpp"
#include "locus/tsp/tsp_problem.hpp"

namespace locus::tsp {

void fang_tours_cpu(const TspProblem& problem, std::int32_t greed, const std::int32_t* starts,
                    std::uint32_t count, std::uint64_t seed, int threads, std::int32_t* tours,
                    std::uint64_t first) {
    visit_metric(problem.instance().metric, [&](auto tag) {
        using Metric = typename decltype(tag)::type;
        TourConstructionPolicy<Metric> policy{host_metric<Metric>(problem.instance()),
                                              static_cast<std::int32_t>(problem.size()), greed};
        gpu::CpuSuccessorEngine<TourConstructionPolicy<Metric>> engine(policy, count, {}, threads);
        const auto slots = detail::construction_slots(policy, starts, count);
        engine.load(slots.data(), count);
        engine.generate(1, seed, first);
        detail::tours_from_slots(engine.slots(), engine.layout(), policy.n, count, tours);
    });
}

void FangTour::construct(SolutionBatch& batch, std::uint64_t seed) {
    construct_until(batch, seed, {});
}

std::uint32_t FangTour::chunk_tours(std::size_t n, Backend backend, int threads) {
    // About 2^24 ratings (n per position, n positions per tour) per CPU thread: well under a
    // second; a device chunk is 64 threads' worth.
    const double per_tour = static_cast<double>(n) * static_cast<double>(n);
    const double lanes =
        backend == Backend::cuda ? 64.0 : static_cast<double>(gpu::resolve_threads(threads));
    const double tours = std::floor(lanes * 0x1.0p24 / per_tour);
    const double floor_tours = backend == Backend::cuda ? 1.0 : lanes;
    return static_cast<std::uint32_t>(std::clamp(tours, floor_tours, 1048576.0));
}

void FangTour::construct_until(SolutionBatch& batch, std::uint64_t seed,
                               const std::function<bool()>& stop) {
    const auto n = static_cast<std::uint32_t>(problem_.size());
    const auto count = static_cast<std::uint32_t>(batch.count());
    std::vector<std::int32_t> starts(count);
    for (std::uint32_t s = 0; s < count; ++s)
        starts[s] = static_cast<std::int32_t>(Rng(derive_key(seed, s), 1).below(n));
    const std::uint64_t key = derive_key(seed, salt::kTspFang);
    const std::uint32_t chunk = chunk_tours(n, backend_, threads_);
    std::uint32_t built = 0;
    for (std::uint32_t first = 0; first < count; first += chunk) {
        if (first > 0 && stop && stop()) break;
        const std::uint32_t m = std::min(chunk, count - first);
        std::int32_t* tours = batch[first].data();
        if (backend_ == Backend::cuda)
            fang_tours_cuda(problem_, greed_, starts.data() + first, m, key, tours, first);
        else
            fang_tours_cpu(problem_, greed_, starts.data() + first, m, key, threads_, tours, first);
        built = first + m;
    }
    for (std::uint32_t s = 0; s < built; ++s)
        batch.objective(s) = problem_.evaluate(batch[s]);
    for (std::uint32_t s = built; s < count; ++s) { // not built before the limit
        std::copy(batch[0].begin(), batch[0].end(), batch[s].begin());
        batch.objective(s) = batch.objective(0);
    }
}

} // namespace locus::tsp
