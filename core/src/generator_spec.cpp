#include "locus/generator_spec.hpp"

#include <charconv>

#include <fmt/format.h>

namespace locus {

namespace {

bool is_name_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }

bool is_name(std::string_view text) {
    for (const char c : text)
        if (!is_name_char(c)) return false;
    return true;
}

template <class T> std::optional<T> parse(std::string_view text) {
    T value{};
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
    return value;
}

} // namespace

bool is_generator_spec(std::string_view text, std::string_view generator) {
    const std::size_t colon = text.find(':');
    if (colon == std::string_view::npos || colon == 0) return false;
    const std::string_view name = text.substr(0, colon);
    if (!is_name(name)) return false;
    if (name == generator) return true;
    const std::string_view rest = text.substr(colon + 1);
    const std::size_t eq = rest.find('=');
    return eq != std::string_view::npos && eq != 0 && is_name(rest.substr(0, eq));
}

InstanceError GeneratorSpec::error(const std::string& reason) const {
    return InstanceError(fmt::format("invalid instance generator spec '{}': {}", spec_, reason));
}

GeneratorSpec::GeneratorSpec(std::string_view spec, std::string_view generator,
                             std::initializer_list<Key> keys)
    : spec_(spec) {
    const std::size_t colon = spec.find(':');
    const std::string_view name = spec.substr(0, colon);
    if (name != generator)
        throw error(fmt::format("unknown generator '{}' (available: {})", name, generator));
    std::vector<std::string_view> names;
    for (const Key& key : keys)
        names.push_back(key.name);
    std::string_view rest = colon == std::string_view::npos ? "" : spec.substr(colon + 1);
    while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        const std::string_view item = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? "" : rest.substr(comma + 1);
        const std::size_t eq = item.find('=');
        if (eq == std::string_view::npos)
            throw error(fmt::format("expected 'key=value', found '{}'", item));
        const std::string_view key = item.substr(0, eq);
        const std::string_view text = item.substr(eq + 1);
        const Key* found = nullptr;
        for (const Key& k : keys)
            if (k.name == key) found = &k;
        if (found == nullptr)
            throw error(fmt::format("unknown parameter '{}' (parameters: {})", key,
                                    fmt::join(names, ", ")));
        if (values_.find(key) != values_.end())
            throw error(fmt::format("parameter '{}' given twice", key));
        if (found->kind == Kind::real) {
            const auto value = parse<double>(text);
            if (!value)
                throw error(fmt::format("parameter '{}': expected a number, got '{}'", key, text));
            values_.emplace(std::string(key), *value);
        } else {
            const auto value = parse<std::uint64_t>(text);
            if (!value)
                throw error(fmt::format("parameter '{}': expected a non-negative integer, got '{}'",
                                        key, text));
            values_.emplace(std::string(key), *value);
        }
    }
}

std::optional<std::uint64_t> GeneratorSpec::integer(std::string_view key) const {
    const auto it = values_.find(key);
    if (it == values_.end()) return std::nullopt;
    return std::get<std::uint64_t>(it->second);
}

std::optional<double> GeneratorSpec::real(std::string_view key) const {
    const auto it = values_.find(key);
    if (it == values_.end()) return std::nullopt;
    return std::get<double>(it->second);
}

} // namespace locus
