#include "locus/qap/instance.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>

#include <fmt/format.h>

#include "locus/error.hpp"

namespace locus::qap {

void validate_instance(const Instance& instance, std::string_view source) {
    const std::int32_t n = instance.n;
    if (n < 2 || n > kMaxSize)
        throw InstanceError(fmt::format("{}: n = {} is out of range 2..{}", source, n, kMaxSize));
    const auto cells = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    if (instance.a.size() != cells || instance.b.size() != cells)
        throw InstanceError(fmt::format("{}: expected {} entries in each matrix, found {} in A "
                                        "and {} in B",
                                        source, cells, instance.a.size(), instance.b.size()));
    const auto check = [&](const std::vector<std::int64_t>& m, char label) {
        std::int64_t largest = 0;
        for (const std::int64_t v : m) {
            if (v < 0)
                throw InstanceError(fmt::format("{}: negative entry {} in matrix {} (flows and "
                                                "distances must be non-negative)",
                                                source, v, label));
            largest = std::max(largest, v);
        }
        return largest;
    };
    const std::int64_t max_a = check(instance.a, 'A');
    const std::int64_t max_b = check(instance.b, 'B');
    // NOTE: x * y <= limit  <=>  y <= floor(limit / x) for integers x > 0, so the bound is
    // checked by division and no intermediate product can overflow.
    constexpr auto kLimit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    const auto ua = static_cast<std::uint64_t>(max_a);
    const auto ub = static_cast<std::uint64_t>(max_b);
    bool too_large = false;
    if (ua != 0 && ub != 0) {
        too_large = ua > kLimit / cells;
        if (!too_large) too_large = ub > kLimit / (cells * ua);
    }
    if (too_large)
        throw InstanceError(fmt::format(
            "{}: entries too large: n*n*max(A)*max(B) with n = {}, max(A) = {}, max(B) = {} "
            "exceeds 2^63-1 = {}, so the 64-bit objective could overflow",
            source, n, max_a, max_b, std::numeric_limits<std::int64_t>::max()));
}

std::int64_t objective(const Instance& instance, std::span<const std::int32_t> p) {
    const auto n = static_cast<std::size_t>(instance.n);
    std::int64_t total = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t* a_row = instance.a.data() + i * n;
        const std::int64_t* b_row = instance.b.data() + static_cast<std::size_t>(p[i]) * n;
        for (std::size_t j = 0; j < n; ++j)
            total += a_row[j] * b_row[static_cast<std::size_t>(p[j])];
    }
    return total;
}

std::optional<std::string> check_permutation(std::span<const std::int32_t> p, std::int32_t n) {
    if (n < 0 || p.size() != static_cast<std::size_t>(n))
        return fmt::format("expected {} entries, found {}", n, p.size());
    std::vector<std::int64_t> seen_at(static_cast<std::size_t>(n), -1);
    for (std::size_t i = 0; i < p.size(); ++i) {
        if (p[i] < 0 || p[i] >= n)
            return fmt::format("entry {} = {} is out of range 0..{}", i, p[i], n - 1);
        std::int64_t& first = seen_at[static_cast<std::size_t>(p[i])];
        if (first >= 0)
            return fmt::format("location {} appears twice (entries {} and {})", p[i], first, i);
        first = static_cast<std::int64_t>(i);
    }
    return std::nullopt;
}

std::vector<std::int32_t> invert_permutation(std::span<const std::int32_t> p) {
    std::vector<std::int32_t> q(p.size());
    for (std::size_t i = 0; i < p.size(); ++i)
        q[static_cast<std::size_t>(p[i])] = static_cast<std::int32_t>(i);
    return q;
}

} // namespace locus::qap
