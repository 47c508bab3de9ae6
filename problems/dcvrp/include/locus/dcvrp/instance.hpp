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
#include <utility>
#include <vector>

#include "locus/dcvrp/euclidean.hpp"

namespace locus::dcvrp {

/// Largest DIMENSION accepted by the reader and the generator: node indices and giant-tour
/// positions (2(n - 1) words) stay 32-bit. Instances with coordinates keep no n x n matrix
/// (distances are computed from the coordinates), so what bounds a run below this is memory:
/// the search engines check their workspaces against the job's memory budget.
inline constexpr std::int32_t kMaxNodes = std::int32_t{1} << 28;

/// Index of the depot among the nodes (the reader moves the file's depot there).
inline constexpr std::int32_t kDepot = 0;

/// How EUC_2D distances are computed from the coordinates.
enum class Rounding {
    exact, ///< real Euclidean distance (CMT, Golden: their best-known values use it)
    nint,  ///< TSPLIB nint: (int)(d + 0.5) (X, A, B, E, F, M, P sets)
    tenths, ///< truncated to one decimal (the DIMACS convention of VRPTW benchmarks)
};

/// The rounding as the integer code of rounded_euclidean (euclidean.hpp).
inline int rounding_code(Rounding rounding) {
    return rounding == Rounding::nint ? kRoundNint
                                      : rounding == Rounding::tenths ? kRoundTenths : kRoundExact;
}

/// The `rounding` choice of the problem: `automatic` picks by family (default_rounding).
enum class RoundingOption { automatic, exact, nint, tenths };

/// "exact" / "nint" / "tenths".
std::string_view to_string(Rounding rounding);

/// The rounding of an instance family, by instance name: nint for the CVRPLIB sets whose
/// best-known values use TSPLIB-rounded distances, i.e. names starting with "X-", "A-", "B-",
/// "E-", "F-", "M-" or "P-", and the Belgium instances of Arnold, Gendreau & Sörensen (2019):
/// names starting with "Leuven", "Antwerp", "Ghent", "Brussels" or "Flanders"; tenths for
/// generated VRPTW instances ("random-vrptw:..."); exact otherwise (CMT, Golden, random-cvrp).
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
/// vectors hold n entries; with explicit weights `dist` holds n*n distances (symmetric with a
/// zero diagonal, finite, >= 0), else it is empty and x, y hold n finite coordinates; demand[0] =
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
    /// n*n distances, row-major, for explicit weights only (8 n^2 bytes); empty otherwise
    std::vector<double> dist;
    /// Time windows (VRPTW), empty when the instance has none: per node the earliest and the
    /// latest start of its service; the depot's are the earliest departure and the latest
    /// return of every route. Travel times are the distances; a vehicle may wait, never be
    /// late.
    std::vector<double> ready, due;

    /// Distance between nodes a and b (precondition: both < n): the matrix entry with explicit
    /// weights, else the Euclidean distance of the coordinates with `rounding`.
    double distance(std::int32_t a, std::int32_t b) const {
        if (explicit_weights)
            return dist[static_cast<std::size_t>(a) * static_cast<std::size_t>(n) +
                        static_cast<std::size_t>(b)];
        return euclidean(a, b);
    }
    /// The Euclidean distance of the coordinates of a and b with `rounding`: sqrt(dx^2 + dy^2)
    /// in IEEE double arithmetic (each operation rounded once, exactly as the device computes
    /// it), then nint's floor(d + 0.5). Symmetric bit for bit (dx changes sign only).
    double euclidean(std::int32_t a, std::int32_t b) const {
        const double dx = x[static_cast<std::size_t>(a)] - x[static_cast<std::size_t>(b)];
        const double dy = y[static_cast<std::size_t>(a)] - y[static_cast<std::size_t>(b)];
        return rounded_euclidean(dx, dy, rounding_code(rounding));
    }
    /// True when the instance has a maximum route duration.
    bool has_duration_limit() const { return std::isfinite(max_duration); }
    /// True when the instance has time windows.
    bool has_time_windows() const { return !ready.empty(); }
    /// Number of customers, n - 1.
    std::int32_t customers() const { return n - 1; }
    /// Sum of the demands.
    std::int64_t total_demand() const;
};

/// Makes the coordinates the instance's distances with `rounding` (Instance::euclidean): records
/// the rounding, clears `dist` and explicit_weights. Precondition: x and y hold n entries.
void use_coordinates(Instance& instance, Rounding rounding);

/// Checks the invariants of Instance. Throws InstanceError "<source>: <reason>":
///   "DIMENSION <n> is out of range 2..268435456"
///   "CAPACITY <q> must be positive"
///   "SERVICE_TIME <s> must be non-negative" / "DISTANCE <l> must be positive"
///   "node <id> has negative demand <d>"
///   "depot node <id> has demand <d> (a depot has no demand)"
///   "customer node <id> has demand <d>, more than CAPACITY <q>"
///   "customer node <id> cannot be served within DISTANCE <l> even alone (depot -> <id> ->
///    depot = <t> + SERVICE_TIME <s> = <t + s>)"
///   "distance from node <a> to node <b> is <w> (distances must be finite and non-negative)"
///   "node <id> has coordinates (<x>, <y>) (coordinates must be finite)"
///   and with time windows the reasons of window_problem.
/// Node ids are the file's (node_id).
void validate_instance(const Instance& instance, std::string_view source);

/// The first node whose time window no solution can respect, and why (node index, reason), or
/// nothing. In node order:
///   "node <id> has time window [<e>, <l>] (times must be finite and non-negative)"
///   "node <id> has time window [<e>, <l>]: its earliest time is after its latest"
///   "customer node <id> cannot be reached within its time window [<e>, <l>]: leaving the
///    depot at <e0>, the earliest arrival is <a>"
///   "customer node <id> cannot return to the depot by its latest time <l0>: service from <s>
///    to <f>, then <t> of travel, back at <b>"
/// Precondition: ready and due hold n entries each.
std::optional<std::pair<std::int32_t, std::string>> window_problem(const Instance& instance);

/// A number for messages: up to 10 significant digits, no trailing zeros ("205.3", "1e+20").
std::string format_number(double value);

} // namespace locus::dcvrp
