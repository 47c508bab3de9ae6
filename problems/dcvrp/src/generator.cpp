#include "locus/dcvrp/generator.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/generator_spec.hpp"
#include "locus/rng.hpp"
#include "locus/rng_salts.hpp"

namespace locus::dcvrp {

namespace {

constexpr std::string_view kRandomCvrp = "random-cvrp";
constexpr std::string_view kRandomVrptw = "random-vrptw";


} // namespace

Instance generate_random(std::int32_t n, std::uint64_t seed, std::int64_t capacity,
                         double max_duration) {
    Instance instance;
    instance.name = fmt::format("{}:n={},seed={}", kRandomCvrp, n, seed);
    if (capacity != kGeneratorCapacity) instance.name += fmt::format(",capacity={}", capacity);
    if (std::isfinite(max_duration))
        instance.name += fmt::format(",distance={}", format_number(max_duration));
    if (n < 2 || n > kMaxNodes)
        throw InstanceError(
            fmt::format("{}: n = {} is out of range 2..{}", instance.name, n, kMaxNodes));
    if (capacity < 1)
        throw InstanceError(
            fmt::format("{}: capacity = {} must be at least 1", instance.name, capacity));
    instance.n = n;
    instance.capacity = capacity;
    instance.max_duration = max_duration;
    const auto nodes = static_cast<std::size_t>(n);
    instance.x.resize(nodes);
    instance.y.resize(nodes);
    instance.demand.assign(nodes, 0);
    instance.node_id.resize(nodes);
    instance.x[0] = kGeneratorSize / 2;
    instance.y[0] = kGeneratorSize / 2;
    const auto max_demand = static_cast<std::uint32_t>(std::min(kGeneratorMaxDemand, capacity));
    Rng rng(derive_key(seed, salt::kDcvrpGenerator), 0);
    for (std::size_t v = 0; v < nodes; ++v) {
        instance.node_id[v] = static_cast<std::int32_t>(v + 1);
        if (v == 0) continue;
        instance.x[v] = static_cast<double>(rng.below(kGeneratorSize));
        instance.y[v] = static_cast<double>(rng.below(kGeneratorSize));
        instance.demand[v] = 1 + static_cast<std::int64_t>(rng.below(max_demand));
    }
    use_coordinates(instance, Rounding::exact);
    validate_instance(instance, instance.name);
    return instance;
}

Instance generate_random_vrptw(std::int32_t n, std::uint64_t seed, std::int64_t capacity,
                               std::int64_t service, std::int64_t width, double max_duration) {
    std::string name = fmt::format("{}:n={},seed={}", kRandomVrptw, n, seed);
    if (capacity != kGeneratorCapacity) name += fmt::format(",capacity={}", capacity);
    if (service != kGeneratorService) name += fmt::format(",service={}", service);
    if (width != kGeneratorWidth) name += fmt::format(",width={}", width);
    if (std::isfinite(max_duration))
        name += fmt::format(",distance={}", format_number(max_duration));
    if (service < 0 || width < 0)
        throw InstanceError(fmt::format("{}: service and width must be non-negative", name));
    Instance instance = generate_random(n, seed, capacity);
    instance.name = name;
    use_coordinates(instance, Rounding::tenths);
    instance.service_time = static_cast<double>(service);
    const auto nodes = static_cast<std::size_t>(n);
    instance.ready.assign(nodes, 0.0);
    instance.due.assign(nodes, kGeneratorHorizon);
    Rng rng(derive_key(seed, salt::kVrptwGenerator), 0);
    const std::int64_t half = width / 2;
    for (std::int32_t v = 1; v < n; ++v) {
        const auto k = static_cast<std::size_t>(v);
        // The whole start times t with d(0, v) <= t and t + service + d(v, 0) <= the horizon.
        const auto first = static_cast<std::int64_t>(std::ceil(instance.distance(kDepot, v)));
        const auto last = static_cast<std::int64_t>(
            std::floor(kGeneratorHorizon - instance.service_time - instance.distance(v, kDepot)));
        if (last < first)
            throw InstanceError(fmt::format("{}: customer node {} cannot be served within the "
                                            "horizon {} with service time {}",
                                            name, instance.node_id[k],
                                            format_number(kGeneratorHorizon), service));
        const auto span = static_cast<std::uint32_t>(last - first + 1);
        const std::int64_t centre = first + static_cast<std::int64_t>(rng.below(span));
        instance.ready[k] = static_cast<double>(std::max(first, centre - half));
        instance.due[k] = static_cast<double>(std::min(last, centre + (width - half)));
    }
    instance.max_duration = max_duration;
    validate_instance(instance, instance.name);
    return instance;
}

bool is_generator_spec(std::string_view text) {
    return locus::is_generator_spec(text, kRandomCvrp) ||
           locus::is_generator_spec(text, kRandomVrptw);
}

namespace {

/// The spec's `distance` (a route duration limit): infinity when absent; throws the spec's
/// error "distance = <d> must be a positive number" otherwise.
double duration_limit(const GeneratorSpec& parsed) {
    const auto distance = parsed.real("distance");
    if (!distance) return std::numeric_limits<double>::infinity();
    if (!(*distance > 0.0 && std::isfinite(*distance)))
        throw parsed.error(fmt::format("distance = {} must be a positive number", *distance));
    return *distance;
}

Instance vrptw_from_spec(std::string_view spec) {
    const GeneratorSpec parsed(spec, kRandomVrptw,
                               {{"n"},
                                {"seed"},
                                {"capacity"},
                                {"service"},
                                {"width"},
                                {"distance", GeneratorSpec::Kind::real}});
    const auto fail = [&](const std::string& reason) { return parsed.error(reason); };
    const auto n = parsed.integer("n");
    const auto capacity = parsed.integer("capacity");
    const auto service = parsed.integer("service");
    const auto width = parsed.integer("width");
    if (!n) throw fail("missing parameter 'n' (nodes, the depot included)");
    if (*n < 2 || *n > static_cast<std::uint64_t>(kMaxNodes))
        throw fail(fmt::format("n = {} is out of range 2..{}", *n, kMaxNodes));
    if (capacity && (*capacity < 1 || *capacity > (1ull << 40)))
        throw fail(fmt::format("capacity = {} is out of range 1..{}", *capacity, 1ull << 40));
    if (service && *service > 1000)
        throw fail(fmt::format("service = {} is out of range 0..1000", *service));
    if (width && *width > 3000)
        throw fail(fmt::format("width = {} is out of range 0..3000", *width));
    return generate_random_vrptw(
        static_cast<std::int32_t>(*n), parsed.integer("seed").value_or(1),
        capacity ? static_cast<std::int64_t>(*capacity) : kGeneratorCapacity,
        service ? static_cast<std::int64_t>(*service) : kGeneratorService,
        width ? static_cast<std::int64_t>(*width) : kGeneratorWidth, duration_limit(parsed));
}

} // namespace

Instance generate_from_spec(std::string_view spec) {
    if (spec.starts_with(kRandomVrptw) && spec.substr(kRandomVrptw.size()).starts_with(':'))
        return vrptw_from_spec(spec);
    if (const std::string_view name = spec.substr(0, spec.find(':')); name != kRandomCvrp)
        throw InstanceError(fmt::format("invalid instance generator spec '{}': unknown generator "
                                        "'{}' (available: {}, {})",
                                        spec, name, kRandomCvrp, kRandomVrptw));
    const GeneratorSpec parsed(
        spec, kRandomCvrp,
        {{"n"}, {"seed"}, {"capacity"}, {"distance", GeneratorSpec::Kind::real}});
    const auto fail = [&](const std::string& reason) { return parsed.error(reason); };
    const auto n = parsed.integer("n");
    const auto seed = parsed.integer("seed");
    const auto capacity = parsed.integer("capacity");
    if (!n) throw fail("missing parameter 'n' (nodes, the depot included)");
    if (*n < 2 || *n > static_cast<std::uint64_t>(kMaxNodes))
        throw fail(fmt::format("n = {} is out of range 2..{}", *n, kMaxNodes));
    if (capacity && (*capacity < 1 || *capacity > (1ull << 40)))
        throw fail(fmt::format("capacity = {} is out of range 1..{}", *capacity, 1ull << 40));
    return generate_random(static_cast<std::int32_t>(*n), seed.value_or(1),
                           capacity ? static_cast<std::int64_t>(*capacity) : kGeneratorCapacity,
                           duration_limit(parsed));
}

} // namespace locus::dcvrp
