// The DCVRP route chains on the CUDA backend of the many-chain engine (one block per chain).
// The kernels are compiled in units of their own (route_chains_cuda_*.cu): the iterations and
// the restarts each inline the whole chain routine of the route policy, and in one unit they
// were the longest compilation of the build.

#include <memory>

#include "locus/dcvrp/route_chains.hpp"
#include "locus/gpu/chain_engine.cuh"
#include "locus/gpu/device_buffer.hpp"

extern template struct locus::gpu::ChainIterationLaunch<locus::dcvrp::RouteChainPolicy>;
extern template struct locus::gpu::ChainRestartLaunch<locus::dcvrp::RouteChainPolicy>;
extern template struct locus::gpu::ChainExchangeLaunch<locus::dcvrp::RouteChainPolicy>;

namespace locus::dcvrp {
namespace {

/// The device copies of the fixed-point instance the policy points at.
struct DeviceRouteData {
    explicit DeviceRouteData(const RouteChainData& host) {
        if (!host.dist.empty()) {
            dist.allocate(host.dist.size(), "DCVRP fixed-point distances");
            dist.upload(host.dist.data(), host.dist.size());
        }
        if (!host.x.empty()) {
            x.allocate(host.x.size(), "DCVRP x coordinates");
            x.upload(host.x.data(), host.x.size());
            y.allocate(host.y.size(), "DCVRP y coordinates");
            y.upload(host.y.data(), host.y.size());
        }
        demand.allocate(host.demand.size(), "DCVRP demands");
        demand.upload(host.demand.data(), host.demand.size());
        heading.allocate(host.heading.size(), "DCVRP node headings");
        heading.upload(host.heading.data(), host.heading.size());
        if (!host.neighbors.empty()) {
            neighbors.allocate(host.neighbors.size(), "DCVRP candidate lists");
            neighbors.upload(host.neighbors.data(), host.neighbors.size());
        }
        if (!host.ready.empty()) {
            ready.allocate(host.ready.size(), "DCVRP window starts");
            ready.upload(host.ready.data(), host.ready.size());
            due.allocate(host.due.size(), "DCVRP window ends");
            due.upload(host.due.data(), host.due.size());
        }
    }
    gpu::DeviceBuffer<std::int64_t> dist;
    gpu::DeviceBuffer<double> x;
    gpu::DeviceBuffer<double> y;
    gpu::DeviceBuffer<std::int64_t> demand;
    gpu::DeviceBuffer<std::int32_t> neighbors;
    gpu::DeviceBuffer<std::int32_t> heading;
    gpu::DeviceBuffer<std::int64_t> ready;
    gpu::DeviceBuffer<std::int64_t> due;
};

} // namespace

std::unique_ptr<gpu::ChainRunner> make_cuda_route_runner(const DcvrpProblem& problem,
                                                         const RouteChainOptions& options,
                                                         std::uint32_t chains,
                                                         const gpu::ChainParams& params,
                                                         int device,
                                                         const gpu::MemoryBudget& budget) {
    gpu::require_device(device);
    RouteChainData host(problem.instance(), options.candidates, options.distances);
    host.vehicles = problem.vehicles();
    auto data = std::make_shared<const DeviceRouteData>(host);
    RouteChainPolicy policy = host.policy(options);
    policy.dist.matrix = host.dist.empty() ? nullptr : data->dist.data();
    policy.dist.x = data->x.data();
    policy.dist.y = data->y.data();
    policy.demand = data->demand.data();
    policy.neighbors = data->neighbors.data();
    policy.heading = data->heading.data();
    if (policy.windows.active()) {
        policy.windows.ready = data->ready.data();
        policy.windows.due = data->due.data();
    }
    return std::make_unique<gpu::CudaChainRunner<RouteChainPolicy>>(policy, chains, params,
                                                                     budget, data);
}

} // namespace locus::dcvrp
