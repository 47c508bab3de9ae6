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
    // NOTE: every objective is at most min(sum(A) * max(B), sum(B) * max(A)). Objectives are
    // exchanged as doubles (Objective), so that bound must stay within 2^53, where every
    // integer is a double; long double sums keep the bound itself exact enough to compare.
    long double sum_a = 0, sum_b = 0;
    for (const std::int64_t v : instance.a) sum_a += static_cast<long double>(v);
    for (const std::int64_t v : instance.b) sum_b += static_cast<long double>(v);
    const long double bound = std::min(sum_a * static_cast<long double>(max_b),
                                       sum_b * static_cast<long double>(max_a));
    constexpr long double kExact = 9007199254740992.0L; // 2^53
    if (bound > kExact)
        throw InstanceError(fmt::format(
            "{}: entries too large: objectives can reach min(sum(A) * max(B), sum(B) * max(A)) "
            "= {:.6g} with n = {}, max(A) = {}, max(B) = {}, beyond 2^53 = 9007199254740992, "
            "the largest range in which every objective is exact",
            source, static_cast<double>(bound), n, max_a, max_b));
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
