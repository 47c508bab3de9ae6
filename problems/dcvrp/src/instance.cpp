#include "locus/dcvrp/instance.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "locus/error.hpp"

namespace locus::dcvrp {

std::string_view to_string(Rounding rounding) {
    return rounding == Rounding::nint ? "nint" : rounding == Rounding::tenths ? "tenths" : "exact";
}

Rounding default_rounding(std::string_view name) {
    constexpr std::array<std::string_view, 7> kRoundedSets = {"X-", "A-", "B-", "E-",
                                                              "F-", "M-", "P-"};
    for (const std::string_view prefix : kRoundedSets)
        if (name.starts_with(prefix)) return Rounding::nint;
    constexpr std::array<std::string_view, 5> kBelgium = {"Leuven", "Antwerp", "Ghent",
                                                          "Brussels", "Flanders"};
    for (const std::string_view prefix : kBelgium)
        if (name.starts_with(prefix)) return Rounding::nint;
    // Generated VRPTW instances follow the DIMACS convention of the VRPTW benchmarks (files
    // are read with it by parse_vrptw and parse_solomon whatever their names).
    if (name.starts_with("random-vrptw:")) return Rounding::tenths;
    return Rounding::exact;
}

Rounding resolve_rounding(RoundingOption option, std::string_view name) {
    switch (option) {
    case RoundingOption::exact:
        return Rounding::exact;
    case RoundingOption::nint:
        return Rounding::nint;
    case RoundingOption::tenths:
        return Rounding::tenths;
    case RoundingOption::automatic:
        break;
    }
    return default_rounding(name);
}

std::int64_t Instance::total_demand() const {
    std::int64_t total = 0;
    for (const std::int64_t q : demand)
        total += q;
    return total;
}

void use_coordinates(Instance& instance, Rounding rounding) {
    instance.rounding = rounding;
    instance.explicit_weights = false;
    instance.dist.clear();
    instance.dist.shrink_to_fit();
}

std::string format_number(double value) { return fmt::format("{:.10g}", value); }

namespace {
/// Largest capacity and total demand: every load (a sum of demands) is then an exact whole
/// number in 64-bit integers and in doubles. A CAPACITY of 2^63 - 1 with two such demands used
/// to overflow, and a one-route solution was called feasible.
constexpr std::int64_t kMaxQuantity = std::int64_t{1} << 53;
} // namespace

void validate_instance(const Instance& instance, std::string_view source) {
    const auto fail = [&](const std::string& reason) {
        return InstanceError(fmt::format("{}: {}", source, reason));
    };
    const std::int32_t n = instance.n;
    if (n < 2 || n > kMaxNodes)
        throw fail(fmt::format("DIMENSION {} is out of range 2..{}", n, kMaxNodes));
    const auto nodes = static_cast<std::size_t>(n);
    const std::size_t weights = instance.explicit_weights ? nodes * nodes : 0;
    const std::size_t coordinates = instance.explicit_weights ? instance.x.size() : nodes;
    if (instance.demand.size() != nodes || instance.node_id.size() != nodes ||
        instance.dist.size() != weights || instance.x.size() != coordinates ||
        instance.y.size() != instance.x.size())
        throw fail(fmt::format("expected {} demands, node ids and coordinates, and {} "
                               "distances, found {}, {}, {}/{} and {}",
                               nodes, weights, instance.demand.size(), instance.node_id.size(),
                               instance.x.size(), instance.y.size(), instance.dist.size()));
    if (instance.capacity < 1)
        throw fail(fmt::format("CAPACITY {} must be positive", instance.capacity));
    if (instance.capacity > kMaxQuantity)
        throw fail(fmt::format("CAPACITY {} exceeds 2^53 = {}: loads must be exact whole numbers",
                               instance.capacity, kMaxQuantity));
    if (!(instance.service_time >= 0.0) || !std::isfinite(instance.service_time))
        throw fail(fmt::format("SERVICE_TIME {} must be non-negative",
                               format_number(instance.service_time)));
    if (!(instance.max_duration > 0.0))
        throw fail(
            fmt::format("DISTANCE {} must be positive", format_number(instance.max_duration)));
    if (!instance.explicit_weights) {
        for (std::size_t k = 0; k < nodes; ++k)
            if (!std::isfinite(instance.x[k]) || !std::isfinite(instance.y[k]))
                throw fail(fmt::format("node {} has coordinates ({}, {}) (coordinates must be "
                                       "finite)",
                                       instance.node_id[k], format_number(instance.x[k]),
                                       format_number(instance.y[k])));
    }
    for (std::size_t k = 0; k < weights; ++k) {
        const double w = instance.dist[k];
        if (!std::isfinite(w) || w < 0.0)
            throw fail(fmt::format("distance from node {} to node {} is {} (distances must be "
                                   "finite and non-negative)",
                                   instance.node_id[k / nodes], instance.node_id[k % nodes],
                                   format_number(w)));
    }
    std::int64_t total_demand = 0;
    for (std::int32_t v = 0; v < n; ++v) {
        const std::int64_t q = instance.demand[static_cast<std::size_t>(v)];
        const std::int32_t id = instance.node_id[static_cast<std::size_t>(v)];
        if (q < 0) throw fail(fmt::format("node {} has negative demand {}", id, q));
        if (v == kDepot) {
            if (q != 0)
                throw fail(
                    fmt::format("depot node {} has demand {} (a depot has no demand)", id, q));
            continue;
        }
        if (q > instance.capacity)
            throw fail(fmt::format("customer node {} has demand {}, more than CAPACITY {}", id, q,
                                   instance.capacity));
        total_demand += q; // q <= CAPACITY <= 2^53: no overflow before the check
        if (total_demand > kMaxQuantity)
            throw fail(fmt::format("the demands up to customer node {} sum to more than 2^53 = "
                                   "{}: loads must be exact whole numbers",
                                   id, kMaxQuantity));
        const double travel = instance.distance(kDepot, v) + instance.distance(v, kDepot);
        // NOTE: a window instance's reachability is checked below, with the window's words.
        if (instance.has_duration_limit() &&
            !within_duration(travel + instance.service_time, instance.max_duration))
            throw fail(fmt::format("customer node {} cannot be served within DISTANCE {} even "
                                   "alone (depot -> {} -> depot = {} + SERVICE_TIME {} = {})",
                                   id, format_number(instance.max_duration), id,
                                   format_number(travel), format_number(instance.service_time),
                                   format_number(travel + instance.service_time)));
    }
    if (!instance.has_time_windows() && instance.due.empty()) return;
    if (instance.ready.size() != nodes || instance.due.size() != nodes)
        throw fail(fmt::format("expected {} time windows, found {} earliest and {} latest times",
                               nodes, instance.ready.size(), instance.due.size()));
    if (const auto problem = window_problem(instance)) throw fail(problem->second);
}

std::optional<std::pair<std::int32_t, std::string>> window_problem(const Instance& instance) {
    const auto at = [&](std::int32_t v) { return static_cast<std::size_t>(v); };
    for (std::int32_t v = 0; v < instance.n; ++v) {
        const double e = instance.ready[at(v)];
        const double l = instance.due[at(v)];
        const std::int32_t id = instance.node_id[at(v)];
        if (!std::isfinite(e) || !std::isfinite(l) || e < 0.0 || l < 0.0)
            return std::pair{v, fmt::format("node {} has time window [{}, {}] (times must be "
                                            "finite and non-negative)",
                                            id, format_number(e), format_number(l))};
        if (e > l)
            return std::pair{v, fmt::format("node {} has time window [{}, {}]: its earliest "
                                            "time is after its latest",
                                            id, format_number(e), format_number(l))};
    }
    const double depart = instance.ready[at(kDepot)];
    const double close = instance.due[at(kDepot)];
    for (std::int32_t v = 1; v < instance.n; ++v) {
        const double e = instance.ready[at(v)];
        const double l = instance.due[at(v)];
        const std::int32_t id = instance.node_id[at(v)];
        const double arrival = depart + instance.distance(kDepot, v);
        if (!within_duration(arrival, l))
            return std::pair{v, fmt::format("customer node {} cannot be reached within its time "
                                            "window [{}, {}]: leaving the depot at {}, the "
                                            "earliest arrival is {}",
                                            id, format_number(e), format_number(l),
                                            format_number(depart), format_number(arrival))};
        const double start = std::max(arrival, e);
        const double end = start + instance.service_time;
        const double travel = instance.distance(v, kDepot);
        if (!within_duration(end + travel, close))
            return std::pair{v, fmt::format("customer node {} cannot return to the depot by its "
                                            "latest time {}: service from {} to {}, then {} of "
                                            "travel, back at {}",
                                            id, format_number(close), format_number(start),
                                            format_number(end), format_number(travel),
                                            format_number(end + travel))};
    }
    return std::nullopt;
}

} // namespace locus::dcvrp
