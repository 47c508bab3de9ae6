#include "locus/qap/generator.hpp"

#include <cstddef>
#include <numeric>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/generator_spec.hpp"
#include "locus/rng.hpp"
#include "locus/rng_salts.hpp"

namespace locus::qap {

namespace {

constexpr std::string_view kRandomQap = "random-qap";
constexpr std::int64_t kMaxGeneratedValue = 2147483647; // 2^31 - 1

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
    // NOTE: a stream of its own, so that an instance and a search run with the same seed
    // do not share random numbers.
    Rng rng(derive_key(seed, salt::kQapGenerator), 0);
    fill_matrix(instance.a, size, bound, asymmetric, rng);
    fill_matrix(instance.b, size, bound, asymmetric, rng);
    validate_instance(instance, instance.name);
    return instance;
}

bool is_generator_spec(std::string_view text) { return locus::is_generator_spec(text, kRandomQap); }

Instance generate_from_spec(std::string_view spec) {
    const GeneratorSpec parsed(spec, kRandomQap, {{"n"}, {"seed"}, {"max"}, {"asymmetric"}});
    auto fail = [&](const std::string& reason) { return parsed.error(reason); };
    const auto n = parsed.integer("n");
    const auto seed = parsed.integer("seed");
    const auto max = parsed.integer("max");
    const auto asymmetric = parsed.integer("asymmetric");
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

std::vector<std::int32_t> random_permutations(std::int32_t n, std::uint32_t count,
                                              std::uint64_t seed) {
    std::vector<std::int32_t> out(static_cast<std::size_t>(n) * count);
    for (std::uint32_t i = 0; i < count; ++i) {
        auto* p = out.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(n);
        std::iota(p, p + n, 0);
        Rng rng(derive_key(seed, i), 0);
        for (std::int32_t k = n - 1; k > 0; --k)
            std::swap(p[k], p[rng.below(static_cast<std::uint32_t>(k + 1))]);
    }
    return out;
}

} // namespace locus::qap
