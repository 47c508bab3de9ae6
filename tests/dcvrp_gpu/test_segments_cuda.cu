// Segment hierarchies built on the device equal the host's SegmentTable bit for bit (zero and
// one level, tours with empty routes, service times and real distances).

#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "locus/dcvrp/route_resources.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/rng.hpp"
#include "locus/routing/segment_table.cuh"

using locus::dcvrp::RouteSegment;

namespace {

bool same_bits(const RouteSegment& a, const RouteSegment& b) {
    return a.first == b.first && a.last == b.last && a.depot == b.depot &&
           std::memcmp(&a.cost, &b.cost, sizeof(double)) == 0 && a.head.load == b.head.load &&
           std::memcmp(&a.head.duration, &b.head.duration, sizeof(double)) == 0 &&
           a.head.customers == b.head.customers && a.tail.load == b.tail.load &&
           std::memcmp(&a.tail.duration, &b.tail.duration, sizeof(double)) == 0 &&
           a.tail.customers == b.tail.customers && a.routes == b.routes &&
           a.excess_load == b.excess_load &&
           std::memcmp(&a.excess_duration, &b.excess_duration, sizeof(double)) == 0;
}

} // namespace

TEST_CASE("device-built segment hierarchies equal the host's") {
    constexpr std::int32_t kNodes = 61;
    constexpr std::uint32_t kTours = 3;
    locus::Rng rng(5, 0);
    std::vector<double> x(kNodes), y(kNodes), service(kNodes), matrix(kNodes * kNodes);
    std::vector<std::int64_t> demand(kNodes);
    for (std::int32_t v = 0; v < kNodes; ++v) {
        x[v] = rng.below(10000) / 7.0;
        y[v] = rng.below(10000) / 7.0;
        demand[v] = v == 0 ? 0 : 1 + rng.below(9);
        service[v] = v == 0 ? 0.0 : rng.below(30) / 3.0;
    }
    for (std::int32_t u = 0; u < kNodes; ++u)
        for (std::int32_t v = 0; v < kNodes; ++v)
            matrix[u * kNodes + v] = std::hypot(x[u] - x[v], y[u] - y[v]);
    // Tours: customers in random order with 12 depot copies (empty routes possible).
    const std::int32_t length = (kNodes - 1) + 12 + 1;
    std::vector<std::int32_t> tours(kTours * length);
    for (std::uint32_t t = 0; t < kTours; ++t) {
        std::vector<std::int32_t> inner;
        for (std::int32_t v = 1; v < kNodes; ++v) inner.push_back(v);
        for (int k = 0; k < 11; ++k) inner.push_back(0);
        for (std::size_t k = inner.size() - 1; k > 0; --k)
            std::swap(inner[k], inner[rng.below(static_cast<std::uint32_t>(k + 1))]);
        tours[t * length] = 0;
        std::copy(inner.begin(), inner.end(), tours.begin() + t * length + 1);
        tours[t * length + length - 1] = 0;
    }
    locus::gpu::DeviceBuffer<double> d_matrix, d_service;
    locus::gpu::DeviceBuffer<std::int64_t> d_demand;
    locus::gpu::DeviceBuffer<std::int32_t> d_tours;
    d_matrix.allocate(matrix.size());
    d_matrix.upload(matrix.data(), matrix.size());
    d_service.allocate(service.size());
    d_service.upload(service.data(), service.size());
    d_demand.allocate(demand.size());
    d_demand.upload(demand.data(), demand.size());
    d_tours.allocate(tours.size());
    d_tours.upload(tours.data(), tours.size());
    locus::dcvrp::RouteResources host{{demand.data(), 25}, {service.data(), 900.0}, 0};
    locus::dcvrp::RouteResources device = host;
    device.demand = d_demand.data();
    device.service = d_service.data();

    for (const std::int32_t part : {0, locus::dcvrp::SegmentTable::part_for(length), 4}) {
        CAPTURE(part);
        const auto shape = locus::routing::HierarchyShape::of(length, part);
        locus::gpu::DeviceBuffer<RouteSegment> inner, runs, wholes;
        locus::gpu::DeviceBuffer<double> edges;
        locus::gpu::DeviceBuffer<locus::dcvrp::SegmentView> views;
        inner.allocate(kTours * shape.inner_size());
        runs.allocate(kTours * shape.runs_size());
        wholes.allocate(kTours);
        edges.allocate(kTours * length);
        views.allocate(kTours);
        locus::routing::SegmentBatchArrays<locus::dcvrp::RouteResources> a{
            inner.data(), runs.data(), edges.data(), views.data(), wholes.data(), shape, kTours};
        REQUIRE(locus::routing::build_segment_hierarchies(
                    device, d_tours.data(),
                    locus::routing::DistanceMatrix{d_matrix.data(), kNodes}, a, nullptr) ==
                cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        std::vector<RouteSegment> got_inner(kTours * shape.inner_size()),
            got_runs(kTours * shape.runs_size()), got_wholes(kTours);
        inner.download(got_inner.data(), got_inner.size());
        runs.download(got_runs.data(), got_runs.size());
        wholes.download(got_wholes.data(), got_wholes.size());
        int compared = 0;
        for (std::uint32_t t = 0; t < kTours; ++t) {
            locus::dcvrp::SegmentTable table;
            table.build(host, tours.data() + t * length, length,
                        locus::routing::DistanceMatrix{matrix.data(), kNodes}, part);
            // Every stored summary, through the host view's lookups of the device arrays.
            locus::dcvrp::SegmentView dv = table.view();
            dv.inner = got_inner.data() + t * shape.inner_size();
            dv.runs = got_runs.data() + t * shape.runs_size();
            for (std::int32_t i = 0; i < length; ++i)
                for (std::int32_t j = i; j < length; ++j) {
                    CHECK(same_bits(dv.segment(i, j), table.segment(i, j)));
                    ++compared;
                }
            CHECK(same_bits(got_wholes[t], table.segment(0, length - 1)));
        }
        CHECK(compared == 3 * length * (length + 1) / 2);
    }
}
