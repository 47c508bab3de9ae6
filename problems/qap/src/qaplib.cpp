#include "locus/qap/qaplib.hpp"

#include <algorithm>
#include <cstddef>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/formats/token_stream.hpp"
#include "locus/text.hpp"

namespace locus::qap {

Instance read_qaplib(const std::filesystem::path& path) {
    Instance instance = parse_qaplib(read_text_file(path, "instance"), path.string());
    instance.name = printable(path.stem().string());
    return instance;
}

Instance parse_qaplib(std::string_view text, const std::string& source) {
    formats::TokenStream tokens(text, source);
    const std::optional<std::int64_t> n = tokens.next();
    if (!n) throw InstanceError(fmt::format("{}: empty file, expected n", source));
    if (*n < 2 || *n > kMaxSize)
        throw tokens.error(fmt::format("n = {} is out of range 2..{}", *n, kMaxSize));

    Instance instance;
    instance.name = printable(std::filesystem::path(source).stem().string());
    instance.n = static_cast<std::int32_t>(*n);
    const auto cells = static_cast<std::size_t>(*n) * static_cast<std::size_t>(*n);
    // NOTE: a file of B bytes holds at most B / 2 numbers: n is not trusted for the reservation.
    instance.a.reserve(std::min(cells, text.size() / 2));
    instance.b.reserve(std::min(cells, text.size() / 2));
    for (std::size_t k = 0; k < 2 * cells; ++k) {
        const std::optional<std::int64_t> value = tokens.next();
        if (!value)
            throw InstanceError(
                fmt::format("{}: expected 2*n*n = {} matrix entries after n = {}, found {}", source,
                            2 * cells, *n, k));
        const bool in_a = k < cells;
        if (*value < 0)
            throw tokens.error(fmt::format(
                "negative entry {} in matrix {} (flows and distances must be non-negative)", *value,
                in_a ? 'A' : 'B'));
        (in_a ? instance.a : instance.b).push_back(*value);
    }
    if (tokens.next())
        throw tokens.error(fmt::format("unexpected number '{}' after the 2*n*n = {} matrix entries",
                                       tokens.token(), 2 * cells));
    validate_instance(instance, source);
    return instance;
}

std::string format_solution(std::span<const std::int32_t> p, std::int64_t value) {
    std::string text = fmt::format("{} {}\n", p.size(), value);
    for (std::size_t i = 0; i < p.size(); ++i)
        text += fmt::format("{}{}", i == 0 ? "" : " ", p[i] + 1);
    text += '\n';
    return text;
}

} // namespace locus::qap
