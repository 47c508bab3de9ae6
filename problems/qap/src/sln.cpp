#include <cstddef>
#include <fstream>
#include <limits>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/formats/token_stream.hpp"
#include "locus/text.hpp"
#include "locus/qap/qaplib.hpp"

namespace locus::qap {

SlnSolution read_solution(const std::filesystem::path& path, const Instance& instance) {
    return parse_solution(read_text_file(path, "solution"), path.string(), instance);
}

SlnSolution parse_solution(std::string_view text, const std::string& source,
                           const Instance& instance) {
    formats::TokenStream tokens(text, source);
    const std::optional<std::int64_t> n = tokens.next();
    const std::optional<std::int64_t> value = n ? tokens.next() : std::nullopt;
    if (!n || !value)
        throw InstanceError(fmt::format("{}: empty file, expected 'n value'", source));
    if (*n != instance.n)
        throw InstanceError(fmt::format("{}: n = {} does not match the instance {} (n = {})",
                                        source, *n, instance.name, instance.n));

    struct Entry {
        std::int64_t value;
        std::size_t line;
    };
    std::vector<Entry> entries;
    while (const std::optional<std::int64_t> entry = tokens.next()) {
        entries.push_back({*entry, tokens.token_line()});
        // NOTE: stop collecting far past n so that a huge wrong file costs no memory; the
        // count in the message is then a lower bound, which is enough to act on.
        if (entries.size() > static_cast<std::size_t>(instance.n) + 1) break;
    }
    if (entries.size() != static_cast<std::size_t>(instance.n))
        throw InstanceError(fmt::format("{}: expected {} permutation entries, found {}", source,
                                        instance.n, entries.size()));

    // A permutation of 1..n never contains 0 and one of 0..n-1 always does.
    bool zero_based = false;
    for (const Entry& entry : entries)
        zero_based = zero_based || entry.value == 0;
    const std::int64_t base = zero_based ? 0 : 1;
    std::vector<std::int32_t> p(entries.size());
    std::vector<bool> seen(entries.size(), false);
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const Entry& entry = entries[i];
        if (entry.value < base || entry.value >= base + instance.n)
            throw InstanceError(fmt::format("{}:{}: entry {} is out of range {}..{}", source,
                                            entry.line, entry.value, base, base + instance.n - 1));
        const auto location = static_cast<std::size_t>(entry.value - base);
        if (seen[location])
            throw InstanceError(fmt::format("{}:{}: {} appears twice in the permutation", source,
                                            entry.line, entry.value));
        seen[location] = true;
        p[i] = static_cast<std::int32_t>(location);
    }

    SlnSolution solution;
    solution.value = *value;
    const std::int64_t direct = objective(instance, p);
    if (direct == *value) {
        solution.p = std::move(p);
        solution.reading = zero_based ? SlnReading::zero_based : SlnReading::one_based;
        return solution;
    }
    std::vector<std::int32_t> q = invert_permutation(p);
    const std::int64_t inverted = objective(instance, q);
    if (inverted == *value) {
        solution.p = std::move(q);
        solution.reading =
            zero_based ? SlnReading::zero_based_inverted : SlnReading::one_based_inverted;
        return solution;
    }
    const auto distance = [&](std::int64_t x) {
        return x > *value ? static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(*value)
                          : static_cast<std::uint64_t>(*value) - static_cast<std::uint64_t>(x);
    };
    const std::int64_t closest = distance(inverted) < distance(direct) ? inverted : direct;
    throw InstanceError(fmt::format("{}: no reading of the permutation (1-based, 0-based, "
                                    "inverted) gives the stated value {}; closest {}",
                                    source, *value, closest));
}

void write_solution(const std::filesystem::path& path, std::string_view name,
                    std::span<const std::int32_t> p, std::int64_t value) {
    if (const auto why = check_permutation(p, static_cast<std::int32_t>(p.size())); why)
        throw InstanceError(fmt::format("invalid solution for {}: {}", name, *why));
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    const std::string text = format_solution(p, value);
    out << text;
    out.flush();
    if (!out) {
        const std::error_code code(errno, std::generic_category());
        throw InstanceError(
            fmt::format("cannot write solution file '{}': {}", path.string(), code.message()));
    }
}

} // namespace locus::qap
