#pragma once
/// \file
/// A distance-constrained capacitated VRP instance on the host (Schulz 2013, §2.1): one depot,
/// n - 1 customers with integer demands, vehicles of capacity Q, an optional maximum route
/// duration L and a per-customer service time s. A route is feasible when its load is at most Q
/// and its duration, travel distance + s * (customers on it), is at most L. The objective is the
/// total travel distance (service time excluded).

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace locus::dcvrp {

/// Largest DIMENSION accepted by the reader and the generator: the full distance matrix of
/// doubles then takes 800 MB.
inline constexpr std::int32_t kMaxNodes = 10000;

/// Index of the depot among the nodes (the reader moves the file's depot there).
inline constexpr std::int32_t kDepot = 0;

/// How EUC_2D distances are computed from the coordinates.
enum class Rounding {
    exact, ///< real Euclidean distance (CMT, Golden: their best-known values use it)
    nint,  ///< TSPLIB nint: (int)(d + 0.5) (X, A, B, E, F, M, P sets)
};

/// The `rounding` choice of the problem: `automatic` picks by family (default_rounding).
enum class RoundingOption { automatic, exact, nint };

/// "exact" / "nint".
std::string_view to_string(Rounding rounding);

/// The rounding of an instance family, by instance name: nint for the CVRPLIB sets whose
/// best-known values use TSPLIB-rounded distances, i.e. names starting with "X-", "A-", "B-",
/// "E-", "F-", "M-" or "P-"; exact otherwise (CMT, Golden, generated instances).
///
/// NOTE: the brief named only the X set; A, B, E, F, M and P follow the same convention
/// (E-n51-k5 has the data of CMT1 and its optimum 521 is the nint value of CMT1's 524.61).
Rounding default_rounding(std::string_view name);

/// `option` resolved for an instance called `name`.
Rounding resolve_rounding(RoundingOption option, std::string_view name);

/// Absolute tolerance of duration checks: far above the rounding error of a route's summed
/// doubles (about 1e-13 for durations near 1000) and below the 1e-6 of tools/verify.py.
inline constexpr double kDurationTolerance = 1e-7;

/// True when `duration` does not exceed `limit` up to kDurationTolerance. The same test decides
/// every duration check (reader, constructions, verify).
inline bool within_duration(double duration, double limit) {
    return duration <= limit + kDurationTolerance;
}

/// A loaded instance. Invariants after parse_cvrplib / generate_random / validate_instance:
/// 2 <= n <= kMaxNodes; node 0 is the depot, nodes 1..n-1 the customers (in file order); the
/// vectors hold n entries (dist n*n, symmetric with a zero diagonal, finite, >= 0); demand[0] =
/// 0 and 0 <= demand[c] <= capacity; capacity >= 1; service_time >= 0; every customer can be
/// served alone within max_duration.
struct Instance {
    std::string name;          ///< NAME of the file (else its stem), or the generator spec
    std::int32_t n = 0;        ///< nodes, depot included (DIMENSION)
    std::int64_t capacity = 0; ///< vehicle capacity Q
    /// maximum route duration L (DISTANCE); infinity when the file has none
    double max_duration = std::numeric_limits<double>::infinity();
    double service_time = 0.0; ///< per-customer service time s (SERVICE_TIME), in durations
    std::int32_t vehicles = 0; ///< VEHICLES of the file, 0 when absent
    Rounding rounding = Rounding::exact; ///< how EUC_2D distances were computed
    bool explicit_weights = false;       ///< distances from an EDGE_WEIGHT_SECTION
    std::vector<std::int64_t> demand;    ///< demand of each node (0 for the depot)
    std::vector<double> x, y;            ///< coordinates (empty for EXPLICIT files without them)
    std::vector<std::int32_t> node_id;   ///< the file's 1-based node id of each node
    std::vector<double> dist;            ///< n*n distances, row-major

    /// Distance between nodes a and b (precondition: both < n).
    double distance(std::int32_t a, std::int32_t b) const {
        return dist[static_cast<std::size_t>(a) * static_cast<std::size_t>(n) +
                    static_cast<std::size_t>(b)];
    }
    /// True when the instance has a maximum route duration.
    bool has_duration_limit() const { return std::isfinite(max_duration); }
    /// Number of customers, n - 1.
    std::int32_t customers() const { return n - 1; }
    /// Sum of the demands.
    std::int64_t total_demand() const;
};

/// Fills `instance.dist` from the coordinates with `rounding` (zero diagonal) and records the
/// rounding. Precondition: x and y hold n entries.
void compute_distances(Instance& instance, Rounding rounding);

/// Checks the invariants of Instance. Throws InstanceError "<source>: <reason>":
///   "DIMENSION <n> is out of range 2..10000"
///   "CAPACITY <q> must be positive"
///   "SERVICE_TIME <s> must be non-negative" / "DISTANCE <l> must be positive"
///   "node <id> has negative demand <d>"
///   "depot node <id> has demand <d> (a depot has no demand)"
///   "customer node <id> has demand <d>, more than CAPACITY <q>"
///   "customer node <id> cannot be served within DISTANCE <l> even alone (depot -> <id> ->
///    depot = <t> + SERVICE_TIME <s> = <t + s>)"
///   "distance from node <a> to node <b> is <w> (distances must be finite and non-negative)"
/// Node ids are the file's (node_id).
void validate_instance(const Instance& instance, std::string_view source);

/// A number for messages: up to 10 significant digits, no trailing zeros ("205.3", "1e+20").
std::string format_number(double value);

} // namespace locus::dcvrp
