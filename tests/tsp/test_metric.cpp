// Exact evaluators: integer square roots, the integer paths against the TSPLIB double
// formulas (synthetic worst cases and the stored instances), metric selection and dispatch.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <type_traits>
#include <vector>

#include "locus/error.hpp"
#include "locus/rng.hpp"
#include "locus/tsp/instance.hpp"
#include "locus/tsp/metric.hpp"
#include "locus/tsp/tsplib.hpp"
#include "test_support.hpp"

using namespace locus::tsp;

namespace {

// The TSPLIB95 reference formulas in double arithmetic, written independently of metric.hpp.
std::int32_t ref_euc(double dx, double dy) {
    return static_cast<std::int32_t>(std::sqrt(dx * dx + dy * dy) + 0.5);
}
std::int32_t ref_ceil(double dx, double dy) {
    return static_cast<std::int32_t>(std::ceil(std::sqrt(dx * dx + dy * dy)));
}
std::int32_t ref_att(double dx, double dy) {
    const double r = std::sqrt((dx * dx + dy * dy) / 10.0);
    const auto t = static_cast<std::int32_t>(r + 0.5);
    return static_cast<double>(t) < r ? t + 1 : t;
}

std::int32_t reference(const Instance& inst, std::int32_t a, std::int32_t b) {
    const auto i = static_cast<std::size_t>(a);
    const auto j = static_cast<std::size_t>(b);
    const double dx = inst.x[i] - inst.x[j];
    const double dy = inst.y[i] - inst.y[j];
    switch (inst.type) {
    case EdgeWeightType::euc_2d:
        return ref_euc(dx, dy);
    case EdgeWeightType::ceil_2d:
        return ref_ceil(dx, dy);
    case EdgeWeightType::att:
        return ref_att(dx, dy);
    case EdgeWeightType::geo:
        return a == b ? 0 : geo_distance(inst.x[i], inst.y[i], inst.x[j], inst.y[j]);
    case EdgeWeightType::explicit_matrix:
        break;
    }
    return -1;
}

Instance coordinates(std::vector<double> x, std::vector<double> y,
                     EdgeWeightType type = EdgeWeightType::euc_2d) {
    Instance inst;
    inst.n = x.size();
    inst.type = type;
    inst.x = std::move(x);
    inst.y = std::move(y);
    prepare_metric(inst, "t");
    return inst;
}

std::string prepare_error(Instance inst) {
    return locus::test::error_message<locus::InstanceError>([&] {
        prepare_metric(inst, "t");
    });
}

} // namespace

static_assert(std::is_trivially_copyable_v<EucIntMetric>);
static_assert(std::is_trivially_copyable_v<CeilIntMetric>);
static_assert(std::is_trivially_copyable_v<EucRealMetric>);
static_assert(std::is_trivially_copyable_v<CeilRealMetric>);
static_assert(std::is_trivially_copyable_v<AttMetric>);
static_assert(std::is_trivially_copyable_v<MatrixMetric>);

TEST_CASE("integer square roots are exact") {
    CHECK(floor_sqrt(0) == 0);
    CHECK(nint_sqrt(0) == 0);
    CHECK(ceil_sqrt(0) == 0);
    std::size_t wrong = 0;
    for (std::int64_t s = 1; s <= 300000; ++s) {
        const std::int64_t r = floor_sqrt(s);
        const std::int64_t e = nint_sqrt(s);
        const std::int64_t c = ceil_sqrt(s);
        const bool ok = r * r <= s && (r + 1) * (r + 1) > s && (2 * e - 1) * (2 * e - 1) < 4 * s &&
                        4 * s < (2 * e + 1) * (2 * e + 1) && c * c >= s && (c - 1) * (c - 1) < s;
        wrong += ok ? 0 : 1;
    }
    CHECK(wrong == 0);
    // Around squares and half-integer squares of large roots (s up to 2^58).
    locus::Rng rng(11, 0);
    for (int i = 0; i < 200000; ++i) {
        const std::int64_t k = 1 + (rng.next_u32() & ((1u << 29) - 1));
        for (const std::int64_t s : {k * k - 1, k * k, k * k + 1, k * k + k, k * k + k + 1}) {
            const std::int64_t r = floor_sqrt(s);
            const std::int64_t e = nint_sqrt(s);
            const bool ok = r * r <= s && (r + 1) * (r + 1) > s &&
                            (2 * e - 1) * (2 * e - 1) < 4 * s && 4 * s < (2 * e + 1) * (2 * e + 1);
            wrong += ok ? 0 : 1;
        }
        CHECK(ceil_sqrt(k * k) == k);
        CHECK(ceil_sqrt(k * k + 1) == k + 1);
    }
    CHECK(wrong == 0);
}

TEST_CASE("integer paths equal the double formulas up to the span bound") {
    // Near-ties: s = k^2 + k lies just below (k + 1/2)^2 (dx = m^2, dy = m, k = m^2) and
    // s = k^2 + k + 1 just above it (dx = t^2 - 1, dy = t, k = t^2 - 1), for spans up to 2^23.
    std::size_t wrong = 0;
    for (std::int32_t m = 1; m <= 2896; ++m) {
        const IntPoint o{0, 0};
        const IntPoint below{m * m, m};
        const IntPoint above{m * m - 1, m};
        const EucIntMetric euc_metric{nullptr, nullptr, 0};
        const CeilIntMetric ceil_metric{nullptr, nullptr, 0};
        const double dx = static_cast<double>(m) * m;
        wrong += euc_metric(o, below) != ref_euc(dx, m) ? 1 : 0;
        wrong += euc_metric(o, below) != m * m ? 1 : 0;
        wrong += euc_metric(o, above) != ref_euc(dx - 1, m) ? 1 : 0;
        wrong += euc_metric(o, above) != m * m ? 1 : 0; // k + 1 with k = m^2 - 1
        wrong += ceil_metric(o, below) != ref_ceil(dx, m) ? 1 : 0;
        wrong += ceil_metric(o, above) != ref_ceil(dx - 1, m) ? 1 : 0;
    }
    CHECK(wrong == 0);
    // Random points over the largest span the integer path accepts.
    const auto span = static_cast<std::uint32_t>(kMaxIntegerSpan);
    locus::Rng rng(5, 0);
    std::vector<double> x(4096), y(4096);
    for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = static_cast<double>(rng.below(span + 1)) - 4194304.0;
        y[i] = static_cast<double>(rng.below(span + 1)) - 4194304.0;
    }
    x[0] = -4194304.0;
    x[1] = 4194304.0;
    const Instance euc = coordinates(x, y);
    const Instance ceil_inst = coordinates(x, y, EdgeWeightType::ceil_2d);
    REQUIRE(euc.metric == MetricKind::euc_2d_int);
    REQUIRE(ceil_inst.metric == MetricKind::ceil_2d_int);
    const auto me = host_metric<EucIntMetric>(euc);
    const auto mc = host_metric<CeilIntMetric>(ceil_inst);
    for (std::int32_t a = 0; a < 4096; ++a) {
        for (std::int32_t b = 0; b < 4096; b += 7) {
            wrong += me.distance(a, b) != reference(euc, a, b) ? 1 : 0;
            wrong += mc.distance(a, b) != reference(ceil_inst, a, b) ? 1 : 0;
        }
    }
    CHECK(wrong == 0);
}

TEST_CASE("metric selection follows integrality and span") {
    const double s = kMaxIntegerSpan;
    CHECK(coordinates({0, s, 0}, {0, 0, s}).metric == MetricKind::euc_2d_int);
    CHECK(coordinates({0, s + 1, 0}, {0, 0, 1}).metric == MetricKind::euc_2d_real);
    CHECK(coordinates({0, 1, 0}, {0, 0, s + 1}, EdgeWeightType::ceil_2d).metric ==
          MetricKind::ceil_2d_real);
    CHECK(coordinates({0, 1, 0.5}, {0, 0, 1}).metric == MetricKind::euc_2d_real);
    const double big = 1073741824.0; // 2^30: still int32, span 2
    const Instance shifted = coordinates({big, big - 1, big - 2}, {-big, -big, 1 - big});
    CHECK(shifted.metric == MetricKind::euc_2d_int);
    CHECK(shifted.xi == std::vector<std::int32_t>{1073741824, 1073741823, 1073741822});
    CHECK(shifted.distance(0, 2) == 2);
    CHECK(coordinates({big + 1, big, big}, {0, 1, 2}).metric == MetricKind::euc_2d_real);
    CHECK(coordinates({0, 3, 0}, {0, 0, 4}, EdgeWeightType::att).metric == MetricKind::att);
    const Instance geo = coordinates({0, 0, 1}, {0, 1, 0}, EdgeWeightType::geo);
    CHECK(geo.metric == MetricKind::matrix);
    CHECK(geo.matrix.size() == 9);
}

TEST_CASE("prepare_metric rejects inconsistent instances with exact messages") {
    Instance two;
    two.n = 2;
    two.x = {0, 1};
    two.y = {0, 1};
    CHECK(prepare_error(two) == "t: 2 cities are too few (a tour needs at least 3 cities)");
    Instance sizes;
    sizes.n = 3;
    sizes.x = {0, 1, 2};
    sizes.y = {0, 1};
    CHECK(prepare_error(sizes) == "t: 3 cities but 3 x and 2 y coordinates");
    Instance nan = sizes;
    nan.y = {0, NAN, 1};
    CHECK(prepare_error(nan) == "t: node 2: coordinate is not finite");
    Instance matrix;
    matrix.n = 3;
    matrix.type = EdgeWeightType::explicit_matrix;
    matrix.matrix = {0, 1, 2, 1};
    CHECK(prepare_error(matrix) == "t: distance matrix has 4 entries, expected 9");
    Instance huge_geo;
    huge_geo.n = kMaxMatrixCities + 1;
    huge_geo.type = EdgeWeightType::geo;
    huge_geo.x.assign(huge_geo.n, 1.0);
    huge_geo.y.assign(huge_geo.n, 1.0);
    CHECK(prepare_error(huge_geo) == "t: 20001 cities are too many for a full distance matrix "
                                     "(GEO instances are limited to 20000 cities)");
}

TEST_CASE("visit_metric dispatches every kind to its evaluator") {
    for (const MetricKind kind :
         {MetricKind::euc_2d_int, MetricKind::ceil_2d_int, MetricKind::euc_2d_real,
          MetricKind::ceil_2d_real, MetricKind::att, MetricKind::matrix}) {
        const MetricKind seen =
            visit_metric(kind, [](auto tag) { return decltype(tag)::type::kind; });
        CHECK(seen == kind);
    }
    CHECK_THROWS_WITH_AS(visit_metric(static_cast<MetricKind>(42), [](auto) { return 0; }),
                         "invalid tsp::MetricKind value 42", locus::Error);
    CHECK(to_string(MetricKind::ceil_2d_real) == "ceil_2d_real");
    CHECK(to_string(EdgeWeightType::explicit_matrix) == "EXPLICIT");
}

TEST_CASE("tour_length sums the evaluator over the closed tour") {
    const Instance inst = coordinates({0, 3, 3, 0, 1}, {0, 0, 4, 4, 2});
    const std::vector<std::int32_t> tour{0, 1, 2, 3, 4};
    std::int64_t sum = 0;
    for (std::size_t i = 0; i < tour.size(); ++i)
        sum += inst.distance(tour[i], tour[(i + 1) % tour.size()]);
    CHECK(sum == 3 + 4 + 3 + 2 + 2);
    CHECK(inst.tour_length(tour) == sum);
    const MetricArrays arrays = inst.arrays();
    CHECK(arrays.xi == inst.xi.data());
    CHECK(arrays.matrix == nullptr);
    CHECK(arrays.n == 5);
}

TEST_CASE("stored instances: evaluators equal the reference formulas") {
    const auto probe = locus::test::data_file("tsplib/kroA100.tsp");
    for (const auto& entry : std::filesystem::directory_iterator(probe.parent_path())) {
        if (entry.path().extension() != ".tsp") continue;
        const Instance inst = read_tsplib(entry.path());
        CAPTURE(inst.name);
        const auto n = static_cast<std::int32_t>(inst.n);
        std::size_t wrong = 0;
        std::size_t pairs = 0;
        visit_metric(inst.metric, [&](auto tag) {
            const auto metric = host_metric<typename decltype(tag)::type>(inst);
            if (n <= 1100) { // all pairs
                for (std::int32_t a = 0; a < n; ++a)
                    for (std::int32_t b = 0; b < n; ++b, ++pairs)
                        wrong += metric.distance(a, b) != reference(inst, a, b) ? 1 : 0;
            } else { // many random pairs
                locus::Rng rng(inst.n, 0);
                const auto bound = static_cast<std::uint32_t>(inst.n);
                for (; pairs < 400000; ++pairs) {
                    const auto a = static_cast<std::int32_t>(rng.below(bound));
                    const auto b = static_cast<std::int32_t>(rng.below(bound));
                    wrong += metric.distance(a, b) != reference(inst, a, b) ? 1 : 0;
                }
            }
        });
        CHECK(pairs > 0);
        CHECK(wrong == 0);
    }
}
