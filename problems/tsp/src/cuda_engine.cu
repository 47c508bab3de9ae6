// CUDA backend of the TSP neighborhoods: dispatch on the metric to its instantiation
// (cuda_engine.cuh), compiled in a generated unit of its own.

#include "cuda_engine.cuh"

namespace locus::tsp {

#define LOCUS_TSP_EXTERN_ENGINE(M)                                                                 \
    extern template std::unique_ptr<gpu::TimedNeighborhood> make_cuda_engine_for<M>(               \
        const TspProblem&, NeighborhoodSpec, const gpu::EngineSettings&, std::string);
LOCUS_TSP_EXTERN_ENGINE(EucIntMetric)
LOCUS_TSP_EXTERN_ENGINE(CeilIntMetric)
LOCUS_TSP_EXTERN_ENGINE(EucRealMetric)
LOCUS_TSP_EXTERN_ENGINE(CeilRealMetric)
LOCUS_TSP_EXTERN_ENGINE(AttMetric)
LOCUS_TSP_EXTERN_ENGINE(MatrixMetric)
#undef LOCUS_TSP_EXTERN_ENGINE

std::unique_ptr<gpu::TimedNeighborhood> make_cuda_engine(const TspProblem& problem,
                                                         NeighborhoodSpec spec,
                                                         const gpu::EngineSettings& settings,
                                                         std::string name) {
    return visit_metric(problem.instance().metric,
                        [&](auto tag) -> std::unique_ptr<gpu::TimedNeighborhood> {
                            using Metric = typename decltype(tag)::type;
                            return make_cuda_engine_for<Metric>(problem, spec, settings,
                                                                std::move(name));
                        });
}

} // namespace locus::tsp
