// The TSP chain policy on the Block team: for sampled moves of every neighborhood, the delta
// equals the Serial team's and the objective after the incremental apply equals before + delta.

#include <doctest/doctest.h>

#include <vector>

#include "chain_policy_harness.cuh"
#include "locus/gpu/device_buffer.hpp"
#include "locus/tsp/chain_policy.hpp"
#include "locus/tsp/device_instance.hpp"
#include "locus/tsp/generator.hpp"
#include "locus/tsp/heuristics.hpp"
#include "tsp_test_instances.hpp"

using namespace locus;
using namespace locus::tsp;

TEST_CASE("TSP chain policy on the Block team: sampled 2-opt, Or-opt and 3-opt moves") {
    for (const Instance& inst : {generate_random_uniform(150, 3, 100000),
                                 locus::tsp::test::matrix_instance(64, 7),
                                 locus::tsp::test::real_instance(97, 5)}) {
        CAPTURE(inst.name);
        TspProblem problem(inst);
        SolutionBatch batch(1, problem.size());
        RandomTour(problem).construct(batch, 4);
        const std::vector<std::int32_t> tour(batch[0].begin(), batch[0].end());
        DeviceInstance device(inst);
        const auto& lists = problem.candidates(8);
        gpu::DeviceBuffer<std::int32_t> candidates(lists.size());
        candidates.upload(lists.data(), lists.size());
        const auto& lists3 = problem.candidates(5);
        gpu::DeviceBuffer<std::int32_t> candidates3(lists3.size());
        candidates3.upload(lists3.data(), lists3.size());
        visit_metric(inst.metric, [&](auto tag) {
            using Metric = typename decltype(tag)::type;
            TspChainPolicy<Metric, std::int64_t> host;
            host.metric = host_metric<Metric>(inst);
            host.candidates = lists.data();
            host.n = static_cast<std::int32_t>(inst.n);
            host.K = 8;
            host.K3 = 5;
            host.candidates3 = lists3.data();
            auto dev = host;
            dev.metric = Metric::bind(device.arrays());
            dev.candidates = candidates.data();
            dev.candidates3 = candidates3.data();
            CHECK(locus::test::check_block_moves<0>(host, dev, tour, 3000) > 300);
            CHECK(locus::test::check_block_moves<1>(host, dev, tour, 3000) > 300);
            CHECK(locus::test::check_block_moves<2>(host, dev, tour, 3000) > 300);
        });
    }
}
