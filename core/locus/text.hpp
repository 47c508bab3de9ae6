#pragma once
/// \file
/// Small text helpers shared by the instance and solution readers of the problem plugins.

#include <filesystem>
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

/// Whole content of a file. Throws InstanceError "cannot open <what> file '<path>': <reason>"
/// or "cannot read <what> file '<path>': <reason>" (reason from the operating system).
std::string read_text_file(const std::filesystem::path& path, std::string_view what);

} // namespace locus
