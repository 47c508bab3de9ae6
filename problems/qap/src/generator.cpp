#include "locus/qap/generator.hpp"

#include <charconv>
#include <cstddef>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/rng.hpp"

namespace locus::qap {

namespace {

constexpr std::string_view kRandomQap = "random-qap";
constexpr std::int64_t kMaxGeneratedValue = 2147483647; // 2^31 - 1

// NOTE: the generator draws from its own stream key so that an instance and a search run
// with the same seed do not share random numbers.
constexpr std::uint64_t kGeneratorStream = 0x7161702D67656E00ull; // "qap-gen"

bool is_name_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }

std::optional<std::uint64_t> parse_unsigned(std::string_view text) {
    std::uint64_t value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
    return value;
}

/// Fills an n*n matrix: independent draws, or symmetric with a zero diagonal (upper triangle
/// drawn row by row, mirrored).
void fill_matrix(std::vector<std::int64_t>& m, std::size_t n, std::uint32_t bound, bool asymmetric,
                 Rng& rng) {
    m.assign(n * n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = asymmetric ? 0 : i + 1; j < n; ++j) {
            const std::int64_t v = rng.below(bound);
            m[i * n + j] = v;
            if (!asymmetric) m[j * n + i] = v;
        }
    }
}

} // namespace

Instance generate_random(std::int32_t n, std::uint64_t seed, std::int64_t max_value,
                         bool asymmetric) {
    Instance instance;
    instance.name = fmt::format("{}:n={},seed={}", kRandomQap, n, seed);
    if (max_value != kDefaultMaxValue) instance.name += fmt::format(",max={}", max_value);
    if (asymmetric) instance.name += ",asymmetric=1";
    if (n < 2 || n > kMaxSize)
        throw InstanceError(
            fmt::format("{}: n = {} is out of range 2..{}", instance.name, n, kMaxSize));
    if (max_value < 0 || max_value > kMaxGeneratedValue)
        throw InstanceError(fmt::format("{}: max = {} is out of range 0..{}", instance.name,
                                        max_value, kMaxGeneratedValue));
    instance.n = n;
    const auto size = static_cast<std::size_t>(n);
    const auto bound = static_cast<std::uint32_t>(max_value + 1);
    Rng rng(derive_key(seed, kGeneratorStream), 0);
    fill_matrix(instance.a, size, bound, asymmetric, rng);
    fill_matrix(instance.b, size, bound, asymmetric, rng);
    validate_instance(instance, instance.name);
    return instance;
}

bool is_generator_spec(std::string_view text) {
    const std::size_t colon = text.find(':');
    if (colon == std::string_view::npos || colon == 0) return false;
    const std::string_view name = text.substr(0, colon);
    for (const char c : name)
        if (!is_name_char(c)) return false;
    if (name == kRandomQap) return true;
    const std::string_view rest = text.substr(colon + 1);
    const std::size_t eq = rest.find('=');
    if (eq == std::string_view::npos || eq == 0) return false;
    for (const char c : rest.substr(0, eq))
        if (!is_name_char(c)) return false;
    return true;
}

Instance generate_from_spec(std::string_view spec) {
    auto fail = [&](const std::string& reason) {
        return InstanceError(fmt::format("invalid instance generator spec '{}': {}", spec, reason));
    };
    const std::size_t colon = spec.find(':');
    const std::string_view generator = spec.substr(0, colon);
    if (generator != kRandomQap)
        throw fail(fmt::format("unknown generator '{}' (available: {})", generator, kRandomQap));
    std::optional<std::uint64_t> n, seed, max, asymmetric;
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
        std::optional<std::uint64_t>* slot = key == "n"            ? &n
                                             : key == "seed"       ? &seed
                                             : key == "max"        ? &max
                                             : key == "asymmetric" ? &asymmetric
                                                                   : nullptr;
        if (slot == nullptr)
            throw fail(
                fmt::format("unknown parameter '{}' (parameters: n, seed, max, asymmetric)", key));
        if (slot->has_value()) throw fail(fmt::format("parameter '{}' given twice", key));
        *slot = parse_unsigned(text);
        if (!slot->has_value())
            throw fail(fmt::format("parameter '{}': expected a non-negative integer, got '{}'", key,
                                   text));
    }
    if (!n) throw fail("missing parameter 'n'");
    if (*n > static_cast<std::uint64_t>(kMaxSize))
        throw fail(fmt::format("n = {} is out of range 2..{}", *n, kMaxSize));
    if (max && *max > static_cast<std::uint64_t>(kMaxGeneratedValue))
        throw fail(fmt::format("max = {} is out of range 0..{}", *max, kMaxGeneratedValue));
    if (asymmetric && *asymmetric > 1)
        throw fail(fmt::format("asymmetric = {} must be 0 or 1", *asymmetric));
    return generate_random(static_cast<std::int32_t>(*n), seed.value_or(1),
                           max ? static_cast<std::int64_t>(*max) : kDefaultMaxValue,
                           asymmetric.value_or(0) == 1);
}

} // namespace locus::qap
