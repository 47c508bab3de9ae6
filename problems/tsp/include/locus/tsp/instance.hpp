#pragma once
/// \file
/// A symmetric TSP instance on the host: coordinates or a distance matrix, plus the exact
/// evaluator (MetricKind) the engines use for it.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "locus/tsp/metric.hpp"

namespace locus {
class Model;
}

namespace locus::tsp {

/// TSPLIB EDGE_WEIGHT_TYPE of an instance.
enum class EdgeWeightType { euc_2d, ceil_2d, att, geo, explicit_matrix };

/// "EUC_2D", "CEIL_2D", "ATT", "GEO", "EXPLICIT".
std::string_view to_string(EdgeWeightType type);

/// "euc_2d_int", "ceil_2d_int", "euc_2d_real", "ceil_2d_real", "att", "matrix".
std::string_view to_string(MetricKind kind);

/// Largest coordinate span (per axis) for which integral EUC_2D / CEIL_2D instances use the
/// exact integer evaluators (the bound under which they provably equal the double formulas).
inline constexpr double kMaxIntegerSpan = 8388608.0; // 2^23

/// Largest n of instances stored as a full matrix (GEO and EXPLICIT): 20000^2 int32 = 1.6 GB.
inline constexpr std::size_t kMaxMatrixCities = 20000;

/// A loaded instance. Cities are 0-based everywhere in memory (TSPLIB files are 1-based).
/// Invariants after read_tsplib / generate_* / prepare_metric: n >= 3; x, y hold n coordinates
/// unless type is explicit_matrix; xi, yi hold n integral coordinates iff metric is *_int;
/// matrix holds n*n weights iff metric is matrix.
struct Instance {
    std::string name;    ///< NAME of the file (without a trailing ".tsp"), or the generator spec
    std::string comment; ///< COMMENT lines joined with "; " ("" when none)
    std::size_t n = 0;   ///< number of cities
    EdgeWeightType type = EdgeWeightType::euc_2d;
    std::vector<double> x; ///< coordinates as read (empty for explicit)
    std::vector<double> y;
    /// Exact evaluator: *_int when every coordinate is integral with |c| <= 2^30 and each axis
    /// spans at most kMaxIntegerSpan, *_real otherwise; att for ATT; matrix for GEO and
    /// EXPLICIT (GEO distances are computed once on the host, because device acos/cos may
    /// differ from the host in the last ulp).
    MetricKind metric = MetricKind::euc_2d_real;
    std::vector<std::int32_t> xi; ///< integral coordinates when metric is *_int
    std::vector<std::int32_t> yi;
    std::vector<std::int32_t> matrix; ///< n*n weights, row-major, when metric is matrix

    /// Exact TSPLIB distance between 0-based cities a and b (precondition: both < n).
    std::int32_t distance(std::int32_t a, std::int32_t b) const;

    /// Length of the closed tour (sum of n edges). Precondition: tour is a permutation of
    /// 0..n-1 (see check_tour).
    std::int64_t tour_length(std::span<const std::int32_t> tour) const;

    /// Host pointers to this instance's arrays, valid while the instance is alive and
    /// unchanged; the device side builds the same struct from device copies.
    MetricArrays arrays() const;
};

/// The evaluator of kind M over `instance`'s host arrays. Precondition: M::kind ==
/// instance.metric. Valid while the instance is alive and unchanged.
template <class Metric> Metric host_metric(const Instance& instance) {
    return Metric::bind(instance.arrays());
}

/// Chooses `instance.metric` and fills xi/yi (integer paths) or matrix (GEO) from type, n, x
/// and y; for explicit_matrix, checks that matrix holds n*n weights. Throws InstanceError
/// prefixed with "<source>: " when n < 3, the arrays have the wrong sizes, a coordinate is
/// not finite, distances could exceed 2^31 - 1, or a matrix instance exceeds
/// kMaxMatrixCities.
void prepare_metric(Instance& instance, std::string_view source);

/// TSPLIB GEO distance between (latitude, longitude) points given in the DDD.MM format:
/// deg = (int)c, min = c - deg, rad = PI * (deg + 5 * min / 3) / 180 with PI = 3.141592,
/// d = (int)(6378.388 * acos(0.5 * ((1 + q1) q2 - (1 - q1) q3)) + 1). Host only.
std::int32_t geo_distance(double lat_a, double lon_a, double lat_b, double lon_b);

/// The instance of a TSP model (locus/model.hpp): `coordinates` (n x 2) with the text
/// `edge_weight_type` (EUC_2D, the default, CEIL_2D, ATT or GEO), or a symmetric `matrix`
/// (n x n) of non-negative 32-bit integers. Throws InstanceError "<name>: <reason>" with the
/// reasons of the TSPLIB reader (0-based cities in the matrix checks).
Instance instance_from_model(const Model& model);

} // namespace locus::tsp
