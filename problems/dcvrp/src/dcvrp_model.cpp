// Routing instances from models (data given by a host program instead of a file).

#include <cmath>
#include <limits>
#include <tuple>

#include <fmt/format.h>

#include "locus/dcvrp/cvrplib.hpp"
#include "locus/error.hpp"
#include "locus/model.hpp"

namespace locus::dcvrp {

namespace {

RoundingOption model_rounding(const Model& model, RoundingOption option) {
    if (option != RoundingOption::automatic) return option;
    const auto text = model.text("rounding");
    if (!text) return RoundingOption::exact; // NOTE: names of models say nothing of a family
    if (*text == "exact") return RoundingOption::exact;
    if (*text == "nint") return RoundingOption::nint;
    if (*text == "tenths") return RoundingOption::tenths;
    throw InstanceError(fmt::format("{}: rounding '{}' is not one of exact, nint, tenths",
                                    model.name, *text));
}

/// The model's number `key` as an integer in [low, high], or `fallback` when absent.
std::int64_t integer_field(const Model& model, std::string_view key, std::int64_t fallback,
                           std::int64_t low, std::int64_t high) {
    const auto value = model.number(key);
    if (!value) return fallback;
    const long long v = model_integer(model, key, *value);
    if (v < low || v > high)
        throw InstanceError(fmt::format("{}: {} = {} is out of range {}..{}", model.name, key, v,
                                        low, high));
    return v;
}

void read_matrix(const Model& model, Instance& instance) {
    const auto n = static_cast<std::size_t>(instance.n);
    const std::vector<double>& m = model.matrix("matrix", n, n);
    for (std::size_t a = 0; a < n; ++a) {
        if (m[a * n + a] != 0.0)
            throw InstanceError(fmt::format("{}: matrix[{}, {}] = {} (a node is at distance 0 "
                                            "from itself)",
                                            model.name, a, a, format_number(m[a * n + a])));
        for (std::size_t b = a + 1; b < n; ++b)
            if (m[a * n + b] != m[b * n + a] && !(std::isnan(m[a * n + b]) ||
                                                  std::isnan(m[b * n + a])))
                throw InstanceError(fmt::format(
                    "{}: the matrix is not symmetric: matrix[{}, {}] = {} but matrix[{}, {}] = {} "
                    "(routes are reversed by the moves: distances must be symmetric)",
                    model.name, a, b, format_number(m[a * n + b]), b, a,
                    format_number(m[b * n + a])));
    }
    instance.dist = m;
    instance.explicit_weights = true;
}

} // namespace

Instance instance_from_model(const Model& model, RoundingOption rounding) {
    model.check_keys({"coordinates", "matrix", "demands", "capacity", "duration_limit",
                      "service_time", "vehicles", "time_windows", "rounding"});
    Instance instance;
    instance.name = model.name;
    const ModelArray* demands = model.array("demands");
    if (demands == nullptr) throw InstanceError(fmt::format("{}: demands is missing", model.name));
    const std::size_t n = demands->shape.size() == 1 ? demands->shape[0] : 0;
    const std::vector<double>& q = model.vector("demands", 0);
    if (n > static_cast<std::size_t>(kMaxNodes))
        throw InstanceError(fmt::format("{}: DIMENSION {} is out of range 2..{}", model.name, n,
                                        kMaxNodes));
    instance.n = static_cast<std::int32_t>(n);
    if (model.array("coordinates") == nullptr && model.array("matrix") == nullptr)
        throw InstanceError(fmt::format("{}: a routing model needs coordinates or a matrix",
                                        model.name));
    instance.node_id.resize(n);
    instance.demand.resize(n);
    for (std::size_t v = 0; v < n; ++v) {
        instance.node_id[v] = static_cast<std::int32_t>(v);
        instance.demand[v] = model_integer(model, fmt::format("demands[{}]", v), q[v]);
    }
    if (!model.number("capacity"))
        throw InstanceError(fmt::format("{}: capacity is missing", model.name));
    instance.capacity = model_integer(model, "capacity", *model.number("capacity"));
    if (const auto limit = model.number("duration_limit")) instance.max_duration = *limit;
    instance.service_time = model.number("service_time").value_or(0.0);
    instance.vehicles = static_cast<std::int32_t>(
        integer_field(model, "vehicles", 0, 0, std::numeric_limits<std::int32_t>::max()));
    if (model.array("coordinates") != nullptr)
        std::tie(instance.x, instance.y) = model.columns("coordinates", n);
    if (model.array("time_windows") != nullptr)
        std::tie(instance.ready, instance.due) = model.columns("time_windows", n);
    const Rounding resolved = resolve_rounding(model_rounding(model, rounding), instance.name);
    if (model.array("matrix") != nullptr) {
        instance.rounding = resolved;
        read_matrix(model, instance);
    } else {
        use_coordinates(instance, resolved);
    }
    validate_instance(instance, model.name);
    return instance;
}

} // namespace locus::dcvrp
