#pragma once
// Internal: the lines of TSPLIB-style text (.vrp and .sol files) and whole-word numbers.
//
// NOTE: the TSP plugin has the same helpers (locus/tsp/tsplib.hpp); problem folders do not
// link each other, so this is a private copy. Moving both into core/locus/text.hpp would
// remove the duplicate.

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "locus/text.hpp"

namespace locus::dcvrp::detail {

/// One non-blank line.
struct Line {
    std::size_t number = 0; ///< 1-based line number in the file
    std::string_view text;  ///< the line without terminator and surrounding blanks
    bool keyword = false;   ///< starts with an upper-case letter (a key or a section name)
    bool has_colon = false; ///< keyword line of the form `KEY : value`
    std::string_view key;   ///< keyword lines: text before ':' (or the first word), trimmed
    std::string_view value; ///< keyword lines: text after ':' (or after the first word), trimmed
};

/// The non-blank lines of `text` (LF or CRLF, tabs as blanks, a leading UTF-8 BOM ignored);
/// views into `text`.
inline std::vector<Line> split_lines(std::string_view text) {
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
    std::vector<Line> lines;
    std::size_t number = 0;
    while (!text.empty()) {
        const std::size_t eol = text.find('\n');
        const std::string_view raw = text.substr(0, eol);
        text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
        ++number;
        Line line;
        line.number = number;
        line.text = trim(raw);
        if (line.text.empty()) continue;
        line.keyword = line.text.front() >= 'A' && line.text.front() <= 'Z';
        if (line.keyword) {
            const std::size_t colon = line.text.find(':');
            line.has_colon = colon != std::string_view::npos;
            if (line.has_colon) {
                line.key = trim(line.text.substr(0, colon));
                line.value = trim(line.text.substr(colon + 1));
            } else {
                std::size_t end = 0;
                while (end < line.text.size() && !is_blank(line.text[end]))
                    ++end;
                line.key = line.text.substr(0, end);
                line.value = trim(line.text.substr(end));
            }
        }
        lines.push_back(line);
    }
    return lines;
}

/// A whole word as a finite double (decimal or scientific, optional sign), or nullopt.
inline std::optional<double> parse_number(std::string_view word) {
    if (word.starts_with('+')) word.remove_prefix(1);
    double value = 0.0;
    const char* end = word.data() + word.size();
    const auto [ptr, ec] = std::from_chars(word.data(), end, value);
    if (word.empty() || ec != std::errc() || ptr != end || !std::isfinite(value))
        return std::nullopt;
    return value;
}

/// A whole word as a 64-bit integer (optional sign), or nullopt.
inline std::optional<std::int64_t> parse_integer(std::string_view word) {
    if (word.starts_with('+')) word.remove_prefix(1);
    std::int64_t value = 0;
    const char* end = word.data() + word.size();
    const auto [ptr, ec] = std::from_chars(word.data(), end, value);
    if (word.empty() || ec != std::errc() || ptr != end) return std::nullopt;
    return value;
}

} // namespace locus::dcvrp::detail
