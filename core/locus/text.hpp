#pragma once
/// \file
/// Small text helpers shared by the instance and solution readers of the problem plugins.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace locus {

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

/// One non-blank line of a TSPLIB-style file (.tsp, .tour, .vrp, .sol).
struct KeyedLine {
    std::size_t number = 0; ///< 1-based line number in the file
    std::string_view text;  ///< the line without terminator and surrounding blanks
    bool keyword = false;   ///< starts with an upper-case letter (a key or a section name)
    bool has_colon = false; ///< keyword line of the form `KEY : value`
    std::string_view key;   ///< keyword lines: text before ':' (or the first word), trimmed
    std::string_view value; ///< keyword lines: text after ':' (or after the first word), trimmed
};

/// The non-blank lines of `text` (LF or CRLF, tabs as blanks, a leading UTF-8 BOM ignored);
/// the views point into `text`.
std::vector<KeyedLine> split_keyed_lines(std::string_view text);

/// A whole word as a finite double (decimal or scientific notation, optional sign), or
/// nullopt.
std::optional<double> parse_number(std::string_view word);

/// A whole word as a 64-bit integer (optional sign), or nullopt.
std::optional<std::int64_t> parse_integer(std::string_view word);

/// Whole content of a file. Throws InstanceError "cannot open <what> file '<path>': <reason>"
/// or "cannot read <what> file '<path>': <reason>" (reason from the operating system).
std::string read_text_file(const std::filesystem::path& path, std::string_view what);

} // namespace locus
