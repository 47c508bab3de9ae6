#include "locus/tsp/generator.hpp"

#include <charconv>
#include <limits>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/rng.hpp"

namespace locus::tsp {

namespace {

constexpr std::string_view kRandomUniform = "random-uniform";

// NOTE: the generator draws from its own stream key so that an instance and a search run with
// the same seed do not share random numbers.
constexpr std::uint64_t kGeneratorStream = 0x7473702D67656E00ull; // "tsp-gen"

bool is_name_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }

std::optional<std::uint64_t> parse_unsigned(std::string_view text) {
    std::uint64_t value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
    return value;
}

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
        Rng rng(derive_key(seed, kGeneratorStream), 0);
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
    const std::size_t colon = text.find(':');
    if (colon == std::string_view::npos || colon == 0) return false;
    const std::string_view name = text.substr(0, colon);
    for (const char c : name)
        if (!is_name_char(c)) return false;
    if (name == kRandomUniform) return true;
    const std::string_view rest = text.substr(colon + 1);
    const std::size_t eq = rest.find('=');
    if (eq == std::string_view::npos || eq == 0) return false;
    for (const char c : rest.substr(0, eq))
        if (!is_name_char(c)) return false;
    return true;
}

Instance generate_from_spec(std::string_view spec) {
    auto fail = [&](const std::string& reason) -> InstanceError {
        return InstanceError(fmt::format("invalid instance generator spec '{}': {}", spec, reason));
    };
    const std::size_t colon = spec.find(':');
    const std::string_view generator = spec.substr(0, colon);
    if (generator != kRandomUniform)
        throw fail(
            fmt::format("unknown generator '{}' (available: {})", generator, kRandomUniform));
    std::optional<std::uint64_t> n, seed, size;
    std::string_view rest = colon == std::string_view::npos ? "" : spec.substr(colon + 1);
    while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        const std::string_view item = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? "" : rest.substr(comma + 1);
        const std::size_t eq = item.find('=');
        if (eq == std::string_view::npos)
            throw fail(fmt::format("expected 'key=value', found '{}'", item));
        const std::string_view key = item.substr(0, eq);
        const std::string_view text = item.substr(eq + 1);
        std::optional<std::uint64_t>* slot = key == "n"      ? &n
                                             : key == "seed" ? &seed
                                             : key == "size" ? &size
                                                             : nullptr;
        if (slot == nullptr)
            throw fail(fmt::format("unknown parameter '{}' (parameters: n, seed, size)", key));
        if (slot->has_value()) throw fail(fmt::format("parameter '{}' given twice", key));
        *slot = parse_unsigned(text);
        if (!slot->has_value())
            throw fail(fmt::format("parameter '{}': expected a non-negative integer, got '{}'", key,
                                   text));
    }
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
