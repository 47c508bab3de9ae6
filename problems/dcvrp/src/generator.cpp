#include "locus/dcvrp/generator.hpp"

#include <algorithm>
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

bool is_generator_spec(std::string_view text) {
    return locus::is_generator_spec(text, kRandomCvrp);
}

Instance generate_from_spec(std::string_view spec) {
    const GeneratorSpec parsed(
        spec, kRandomCvrp,
        {{"n"}, {"seed"}, {"capacity"}, {"distance", GeneratorSpec::Kind::real}});
    const auto fail = [&](const std::string& reason) { return parsed.error(reason); };
    const auto n = parsed.integer("n");
    const auto seed = parsed.integer("seed");
    const auto capacity = parsed.integer("capacity");
    const auto distance = parsed.real("distance");
    if (!n) throw fail("missing parameter 'n' (nodes, the depot included)");
    if (*n < 2 || *n > static_cast<std::uint64_t>(kMaxNodes))
        throw fail(fmt::format("n = {} is out of range 2..{}", *n, kMaxNodes));
    if (capacity && (*capacity < 1 || *capacity > (1ull << 40)))
        throw fail(fmt::format("capacity = {} is out of range 1..{}", *capacity, 1ull << 40));
    if (distance && !(*distance > 0.0 && std::isfinite(*distance)))
        throw fail(fmt::format("distance = {} must be a positive number", *distance));
    return generate_random(static_cast<std::int32_t>(*n), seed.value_or(1),
                           capacity ? static_cast<std::int64_t>(*capacity) : kGeneratorCapacity,
                           distance.value_or(std::numeric_limits<double>::infinity()));
}

} // namespace locus::dcvrp
