#include "locus/tsp/instance.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "locus/error.hpp"

namespace locus::tsp {

std::string_view to_string(EdgeWeightType type) {
    switch (type) {
    case EdgeWeightType::euc_2d:
        return "EUC_2D";
    case EdgeWeightType::ceil_2d:
        return "CEIL_2D";
    case EdgeWeightType::att:
        return "ATT";
    case EdgeWeightType::geo:
        return "GEO";
    case EdgeWeightType::explicit_matrix:
        return "EXPLICIT";
    }
    return "?";
}

std::string_view to_string(MetricKind kind) {
    switch (kind) {
    case MetricKind::euc_2d_int:
        return "euc_2d_int";
    case MetricKind::ceil_2d_int:
        return "ceil_2d_int";
    case MetricKind::euc_2d_real:
        return "euc_2d_real";
    case MetricKind::ceil_2d_real:
        return "ceil_2d_real";
    case MetricKind::att:
        return "att";
    case MetricKind::matrix:
        return "matrix";
    }
    return "?";
}

std::int32_t Instance::distance(std::int32_t a, std::int32_t b) const {
    return visit_metric(metric, [&](auto tag) {
        using Metric = typename decltype(tag)::type;
        return host_metric<Metric>(*this).distance(a, b);
    });
}

std::int64_t Instance::tour_length(std::span<const std::int32_t> tour) const {
    if (tour.empty()) return 0;
    return visit_metric(metric, [&](auto tag) {
        using Metric = typename decltype(tag)::type;
        const Metric m = host_metric<Metric>(*this);
        std::int64_t length = 0;
        auto previous = m.point(tour.back());
        for (const std::int32_t city : tour) {
            const auto current = m.point(city);
            length += m(previous, current);
            previous = current;
        }
        return length;
    });
}

MetricArrays Instance::arrays() const {
    MetricArrays a;
    a.n = static_cast<std::int32_t>(n);
    if (!xi.empty()) {
        a.xi = xi.data();
        a.yi = yi.data();
    }
    if (!x.empty()) {
        a.x = x.data();
        a.y = y.data();
    }
    if (!matrix.empty()) a.matrix = matrix.data();
    return a;
}

namespace {

constexpr double kGeoPi = 3.141592;
constexpr double kEarthRadius = 6378.388;

double geo_radians(double c) {
    const double deg = static_cast<double>(static_cast<std::int64_t>(c));
    const double min = c - deg;
    return kGeoPi * (deg + 5.0 * min / 3.0) / 180.0;
}

struct Span {
    double min_x, max_x, min_y, max_y;
};

Span coordinate_span(const Instance& instance) {
    const auto [min_x, max_x] = std::minmax_element(instance.x.begin(), instance.x.end());
    const auto [min_y, max_y] = std::minmax_element(instance.y.begin(), instance.y.end());
    return {*min_x, *max_x, *min_y, *max_y};
}

bool integral_within(const std::vector<double>& values, double limit) {
    return std::all_of(values.begin(), values.end(),
                       [limit](double v) { return std::floor(v) == v && std::fabs(v) <= limit; });
}

std::vector<std::int32_t> to_int32(const std::vector<double>& values) {
    std::vector<std::int32_t> result(values.size());
    std::transform(values.begin(), values.end(), result.begin(),
                   [](double v) { return static_cast<std::int32_t>(v); });
    return result;
}

void prepare_coordinates(Instance& instance, std::string_view source) {
    const std::size_t n = instance.n;
    if (instance.x.size() != n || instance.y.size() != n)
        throw InstanceError(fmt::format("{}: {} cities but {} x and {} y coordinates", source, n,
                                        instance.x.size(), instance.y.size()));
    for (std::size_t i = 0; i < n; ++i)
        if (!std::isfinite(instance.x[i]) || !std::isfinite(instance.y[i]))
            throw InstanceError(
                fmt::format("{}: node {}: coordinate is not finite", source, i + 1));
    if (instance.type == EdgeWeightType::geo) return;
    const Span s = coordinate_span(instance);
    const double wx = s.max_x - s.min_x;
    const double wy = s.max_y - s.min_y;
    // NOTE: a conservative bound keeps every distance (and the + 0.5 of nint) inside int32.
    if (std::sqrt(wx * wx + wy * wy) > 2.0e9)
        throw InstanceError(
            fmt::format("{}: coordinates span [{}, {}] x [{}, {}]: distances would exceed 2^31 - 1",
                        source, s.min_x, s.max_x, s.min_y, s.max_y));
}

void prepare_geo_matrix(Instance& instance) {
    const std::size_t n = instance.n;
    std::vector<double> lat(n);
    std::vector<double> lon(n);
    for (std::size_t i = 0; i < n; ++i) {
        lat[i] = geo_radians(instance.x[i]);
        lon[i] = geo_radians(instance.y[i]);
    }
    // NOTE: the diagonal stays 0; the formula would give 1 for a city and itself, a value no
    // tour uses.
    instance.matrix.assign(n * n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = i + 1; j < n; ++j) {
            const double q1 = std::cos(lon[i] - lon[j]);
            const double q2 = std::cos(lat[i] - lat[j]);
            const double q3 = std::cos(lat[i] + lat[j]);
            // NOTE: clamping only removes NaN from rounding just outside [-1, 1]; inside the
            // interval the value is the reference formula's.
            const double c = std::clamp(0.5 * ((1.0 + q1) * q2 - (1.0 - q1) * q3), -1.0, 1.0);
            const auto d = static_cast<std::int32_t>(kEarthRadius * std::acos(c) + 1.0);
            instance.matrix[i * n + j] = d;
            instance.matrix[j * n + i] = d;
        }
    }
}

} // namespace

std::int32_t geo_distance(double lat_a, double lon_a, double lat_b, double lon_b) {
    const double la = geo_radians(lat_a);
    const double lb = geo_radians(lat_b);
    const double q1 = std::cos(geo_radians(lon_a) - geo_radians(lon_b));
    const double q2 = std::cos(la - lb);
    const double q3 = std::cos(la + lb);
    const double c = std::clamp(0.5 * ((1.0 + q1) * q2 - (1.0 - q1) * q3), -1.0, 1.0);
    return static_cast<std::int32_t>(kEarthRadius * std::acos(c) + 1.0);
}

void prepare_metric(Instance& instance, std::string_view source) {
    const std::size_t n = instance.n;
    if (n < 3)
        throw InstanceError(
            fmt::format("{}: {} cities are too few (a tour needs at least 3 cities)", source, n));
    if (n > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        throw InstanceError(
            fmt::format("{}: {} cities are too many (at most 2^31 - 1)", source, n));
    instance.xi.clear();
    instance.yi.clear();
    const bool uses_matrix =
        instance.type == EdgeWeightType::geo || instance.type == EdgeWeightType::explicit_matrix;
    if (uses_matrix && n > kMaxMatrixCities)
        throw InstanceError(fmt::format(
            "{}: {} cities are too many for a full distance matrix ({} instances are limited to "
            "{} cities)",
            source, n, to_string(instance.type), kMaxMatrixCities));
    if (instance.type == EdgeWeightType::explicit_matrix) {
        if (instance.matrix.size() != n * n)
            throw InstanceError(fmt::format("{}: distance matrix has {} entries, expected {}",
                                            source, instance.matrix.size(), n * n));
        instance.metric = MetricKind::matrix;
        return;
    }
    instance.matrix.clear();
    prepare_coordinates(instance, source);
    switch (instance.type) {
    case EdgeWeightType::geo:
        prepare_geo_matrix(instance);
        instance.metric = MetricKind::matrix;
        return;
    case EdgeWeightType::att:
        instance.metric = MetricKind::att;
        return;
    case EdgeWeightType::euc_2d:
    case EdgeWeightType::ceil_2d: {
        const bool euc = instance.type == EdgeWeightType::euc_2d;
        const Span s = coordinate_span(instance);
        const bool integral = integral_within(instance.x, 1073741824.0) &&
                              integral_within(instance.y, 1073741824.0) &&
                              s.max_x - s.min_x <= kMaxIntegerSpan &&
                              s.max_y - s.min_y <= kMaxIntegerSpan;
        if (integral) {
            instance.xi = to_int32(instance.x);
            instance.yi = to_int32(instance.y);
            instance.metric = euc ? MetricKind::euc_2d_int : MetricKind::ceil_2d_int;
        } else {
            instance.metric = euc ? MetricKind::euc_2d_real : MetricKind::ceil_2d_real;
        }
        return;
    }
    case EdgeWeightType::explicit_matrix:
        return;
    }
}

} // namespace locus::tsp
