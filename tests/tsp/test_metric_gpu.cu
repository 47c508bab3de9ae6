// The metric evaluators give bit-identical distances on the device and on the host, for every
// MetricKind (synthetic worst cases and the stored TSPLIB instances).
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <vector>

#include "locus/gpu/cuda_check.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/rng.hpp"
#include "locus/tsp/generator.hpp"
#include "locus/tsp/instance.hpp"
#include "locus/tsp/metric.hpp"
#include "locus/tsp/tsplib.hpp"
#include "test_support.hpp"

using namespace locus::tsp;
using locus::gpu::DeviceBuffer;

namespace {

/// One thread per pair: out[i] = metric(point(a[i]), point(b[i])).
template <class Metric>
__global__ void distance_kernel(Metric metric, const std::int32_t* a, const std::int32_t* b,
                                std::int32_t* out, std::size_t count) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < count) out[i] = metric(metric.point(a[i]), metric.point(b[i]));
}

template <class T> DeviceBuffer<T> upload(const std::vector<T>& host) {
    DeviceBuffer<T> buffer(host.size(), "metric test data");
    if (!host.empty()) buffer.upload(host.data(), host.size());
    return buffer;
}

/// Number of pairs (a[i], b[i]) whose device distance differs from Instance::distance.
std::size_t device_mismatches(const Instance& inst, const std::vector<std::int32_t>& a,
                              const std::vector<std::int32_t>& b) {
    const auto d_xi = upload(inst.xi);
    const auto d_yi = upload(inst.yi);
    const auto d_x = upload(inst.x);
    const auto d_y = upload(inst.y);
    const auto d_matrix = upload(inst.matrix);
    const auto d_a = upload(a);
    const auto d_b = upload(b);
    DeviceBuffer<std::int32_t> d_out(a.size(), "metric test output");
    MetricArrays arrays;
    arrays.xi = d_xi.data();
    arrays.yi = d_yi.data();
    arrays.x = d_x.data();
    arrays.y = d_y.data();
    arrays.matrix = d_matrix.data();
    arrays.n = static_cast<std::int32_t>(inst.n);
    visit_metric(inst.metric, [&](auto tag) {
        using Metric = typename decltype(tag)::type;
        const auto blocks = static_cast<unsigned>((a.size() + 255) / 256);
        distance_kernel<<<blocks, 256>>>(Metric::bind(arrays), d_a.data(), d_b.data(), d_out.data(),
                                         a.size());
        LOCUS_CUDA_CHECK_LAUNCH();
    });
    LOCUS_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<std::int32_t> out(a.size());
    d_out.download(out.data(), out.size());
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        wrong += out[i] != inst.distance(a[i], b[i]) ? 1 : 0;
    return wrong;
}

/// All pairs for small instances, else `samples` random pairs.
std::size_t check_instance(const Instance& inst, std::size_t samples = 1000000) {
    std::vector<std::int32_t> a, b;
    const auto n = static_cast<std::int32_t>(inst.n);
    if (inst.n * inst.n <= samples) {
        for (std::int32_t i = 0; i < n; ++i)
            for (std::int32_t j = 0; j < n; ++j) {
                a.push_back(i);
                b.push_back(j);
            }
    } else {
        locus::Rng rng(inst.n, 1);
        for (std::size_t k = 0; k < samples; ++k) {
            a.push_back(static_cast<std::int32_t>(rng.below(static_cast<std::uint32_t>(n))));
            b.push_back(static_cast<std::int32_t>(rng.below(static_cast<std::uint32_t>(n))));
        }
    }
    return device_mismatches(inst, a, b);
}

Instance with_type(Instance inst, EdgeWeightType type, double scale = 1.0) {
    inst.type = type;
    for (auto& v : inst.x)
        v *= scale;
    for (auto& v : inst.y)
        v *= scale;
    prepare_metric(inst, "synthetic");
    return inst;
}

} // namespace

TEST_CASE("device distances equal host distances for every metric kind") {
    // Largest span of the integer path, then fractional coordinates for the double paths.
    const Instance wide =
        generate_random_uniform(3000, 3, static_cast<std::int32_t>(kMaxIntegerSpan));
    REQUIRE(wide.metric == MetricKind::euc_2d_int);
    CHECK(check_instance(wide) == 0);
    const Instance ceil_int = with_type(wide, EdgeWeightType::ceil_2d);
    REQUIRE(ceil_int.metric == MetricKind::ceil_2d_int);
    CHECK(check_instance(ceil_int) == 0);
    const Instance euc_real = with_type(wide, EdgeWeightType::euc_2d, 1.0 / 7.0);
    REQUIRE(euc_real.metric == MetricKind::euc_2d_real);
    CHECK(check_instance(euc_real) == 0);
    const Instance ceil_real = with_type(wide, EdgeWeightType::ceil_2d, 1.0 / 7.0);
    REQUIRE(ceil_real.metric == MetricKind::ceil_2d_real);
    CHECK(check_instance(ceil_real) == 0);
    const Instance att = with_type(wide, EdgeWeightType::att, 1.0 / 3.0);
    REQUIRE(att.metric == MetricKind::att);
    CHECK(check_instance(att) == 0);
    const Instance geo =
        with_type(generate_random_uniform(500, 4, 9000), EdgeWeightType::geo, 0.01);
    REQUIRE(geo.metric == MetricKind::matrix);
    CHECK(check_instance(geo) == 0);
}

TEST_CASE("device distances equal host distances near rounding ties") {
    // Points (m^2, m) and (m^2 - 1, m) put sqrt(s) just below and above k + 1/2.
    Instance inst;
    inst.type = EdgeWeightType::euc_2d;
    inst.x.push_back(0.0);
    inst.y.push_back(0.0);
    for (double m = 1; m <= 2896; ++m) {
        inst.x.insert(inst.x.end(), {m * m, m * m - 1});
        inst.y.insert(inst.y.end(), {m, m});
    }
    inst.n = inst.x.size();
    prepare_metric(inst, "ties");
    REQUIRE(inst.metric == MetricKind::euc_2d_int);
    std::vector<std::int32_t> a(inst.n - 1, 0), b(inst.n - 1);
    for (std::size_t i = 0; i + 1 < inst.n; ++i)
        b[i] = static_cast<std::int32_t>(i + 1);
    CHECK(device_mismatches(inst, a, b) == 0);
    CHECK(device_mismatches(with_type(inst, EdgeWeightType::ceil_2d), a, b) == 0);
}

TEST_CASE("device distances equal host distances on the stored TSPLIB instances") {
    const auto probe = locus::test::data_file("tsplib/kroA100.tsp");
    for (const auto& entry : std::filesystem::directory_iterator(probe.parent_path())) {
        if (entry.path().extension() != ".tsp") continue;
        const Instance inst = read_tsplib(entry.path());
        CAPTURE(inst.name);
        CHECK(check_instance(inst) == 0);
    }
}
