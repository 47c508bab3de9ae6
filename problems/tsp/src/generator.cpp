#include "locus/tsp/generator.hpp"

#include <limits>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/generator_spec.hpp"
#include "locus/rng.hpp"
#include "locus/rng_salts.hpp"

namespace locus::tsp {

namespace {

constexpr std::string_view kRandomUniform = "random-uniform";

} // namespace

Instance generate_random_uniform(std::size_t n, std::uint64_t seed, std::int32_t size) {
    std::string name = fmt::format("{}:n={},seed={}", kRandomUniform, n, seed);
    if (size != kDefaultGeneratorSize) name += fmt::format(",size={}", size);
    if (size < 1) throw InstanceError(fmt::format("{}: size must be at least 1", name));
    Instance instance;
    instance.name = name;
    instance.comment = "uniform random integral coordinates";
    instance.n = n;
    instance.type = EdgeWeightType::euc_2d;
    if (n >= 3 && n <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
        // NOTE: a stream of its own, so that an instance and a search run with the same seed
        // do not share random numbers.
        Rng rng(derive_key(seed, salt::kTspGenerator), 0);
        instance.x.resize(n);
        instance.y.resize(n);
        const auto bound = static_cast<std::uint32_t>(size);
        for (std::size_t i = 0; i < n; ++i) {
            instance.x[i] = static_cast<double>(rng.below(bound));
            instance.y[i] = static_cast<double>(rng.below(bound));
        }
    }
    prepare_metric(instance, name); // reports n < 3 and n too large
    return instance;
}

bool is_generator_spec(std::string_view text) {
    return locus::is_generator_spec(text, kRandomUniform);
}

Instance generate_from_spec(std::string_view spec) {
    const GeneratorSpec parsed(spec, kRandomUniform, {{"n"}, {"seed"}, {"size"}});
    auto fail = [&](const std::string& reason) { return parsed.error(reason); };
    const auto n = parsed.integer("n");
    const auto seed = parsed.integer("seed");
    const auto size = parsed.integer("size");
    if (!n) throw fail("missing parameter 'n' (number of cities)");
    if (*n < 3) throw fail(fmt::format("n = {} is too small (a tour needs at least 3 cities)", *n));
    if (*n > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()))
        throw fail(fmt::format("n = {} is too large (at most {})", *n,
                               std::numeric_limits<std::int32_t>::max()));
    if (size && (*size < 1 || *size > (1ull << 30)))
        throw fail(fmt::format("size = {} is out of range 1..{}", *size, 1ull << 30));
    return generate_random_uniform(static_cast<std::size_t>(*n), seed.value_or(1),
                                   size ? static_cast<std::int32_t>(*size) : kDefaultGeneratorSize);
}

} // namespace locus::tsp
