#pragma once
/// \file
/// Small text helpers shared by the instance and solution readers of the problem plugins.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace locus {

/// `text` made safe to echo in a one-line message: control and non-ASCII bytes as \xHH,
/// backslash as \\, and at most `max_bytes` input bytes followed by "...(N bytes)" when longer.
std::string escaped(std::string_view text, std::size_t max_bytes = 64);

/// `text` as printable, valid UTF-8: control bytes (below 0x20 and 0x7f) and bytes that are not
/// part of a valid UTF-8 sequence become \xHH; everything else, backslashes and multi-byte
/// characters included, is kept. Names read from files and configs pass through it, so that a
/// results line or a terminal never receives raw bytes. Idempotent.
std::string printable(std::string_view text);

/// Blank: space, tab, CR, vertical tab or form feed (not LF, which ends lines).
inline bool is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/// `text` without leading and trailing blanks.
inline std::string_view trim(std::string_view text) {
    while (!text.empty() && is_blank(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && is_blank(text.back()))
        text.remove_suffix(1);
    return text;
}

/// Blank-separated words of a line (views into `line`).
inline std::vector<std::string_view> split_words(std::string_view line) {
    std::vector<std::string_view> words;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_blank(line[i]))
            ++i;
        const std::size_t start = i;
        while (i < line.size() && !is_blank(line[i]))
            ++i;
        if (i > start) words.push_back(line.substr(start, i - start));
    }
    return words;
}

/// The non-empty comma-separated items of `text` (command-line lists).
inline std::vector<std::string> split_commas(std::string_view text) {
    std::vector<std::string> items;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(',', start), text.size());
        if (end > start) items.emplace_back(text.substr(start, end - start));
        start = end + 1;
    }
    return items;
}

/// A whole word as a finite double (decimal or scientific notation, optional sign), or
/// nullopt.
std::optional<double> parse_number(std::string_view word);

/// A whole word as a 64-bit integer (optional sign), or nullopt.
std::optional<std::int64_t> parse_integer(std::string_view word);

/// Whole content of a file. Throws InstanceError "cannot open <what> file '<path>': <reason>"
/// or "cannot read <what> file '<path>': <reason>" (reason from the operating system).
std::string read_text_file(const std::filesystem::path& path, std::string_view what);

} // namespace locus
