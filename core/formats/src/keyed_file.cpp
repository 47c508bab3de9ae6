// Reading the layout of TSPLIB-family keyed files and the checks their readers share.

#include "locus/formats/keyed_file.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

#include "locus/search_context.hpp"

#include "locus/text.hpp"

namespace locus::formats {

std::vector<KeyedLine> split_keyed_lines(std::string_view text) {
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
    std::vector<KeyedLine> lines;
    std::size_t number = 0;
    // NOTE: lines end at LF (CRLF: the CR is a blank); a file without any LF but with CRs
    // (classic Mac OS line ends) ends its lines at CR.
    const char terminator =
        text.find('\n') == std::string_view::npos && text.find('\r') != std::string_view::npos
            ? '\r'
            : '\n';
    while (!text.empty()) {
        const std::size_t eol = text.find(terminator);
        const std::string_view raw = text.substr(0, eol);
        text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
        ++number;
        // A file of millions of lines takes seconds: the stop flag (a run's limit or a signal)
        // is read every 2^16 lines; smaller files are read whole.
        if ((number & 0xFFFF) == 0) throw_if_stopped();
        KeyedLine line;
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

KeyedFile::KeyedFile(std::string_view text, std::string source, KeyedLayout layout)
    : lines_(split_keyed_lines(text)), source_(std::move(source)), text_bytes_(text.size()) {
    for (const std::string_view key : layout.keys)
        values_.emplace_back(key, KeyedValue{});
    for (const std::string_view key : layout.lists)
        lists_.emplace_back(key, std::vector<KeyedValue>{});
    for (const std::string_view name : layout.sections)
        sections_.push_back(KeyedSection{name});
    scan(layout);
}

void KeyedFile::scan(const KeyedLayout& layout) {
    KeyedSection* current = nullptr;
    bool skipping = false;
    for (std::size_t i = 0; i < lines_.size(); ++i) {
        const KeyedLine& line = lines_[i];
        if (!line.keyword) {
            if (current != nullptr)
                current->end = i + 1;
            else if (!skipping)
                fail(line.number, fmt::format("unexpected data '{}' outside a section", line.text));
            continue;
        }
        current = nullptr;
        skipping = false;
        if (line.key == "EOF") break;
        if (line.key.ends_with("_SECTION")) {
            if (!line.value.empty())
                fail(line.number,
                     fmt::format("unexpected text '{}' after {}", line.value, line.key));
            const auto known = std::find(layout.sections.begin(), layout.sections.end(), line.key);
            if (known == layout.sections.end()) {
                skipping = true; // DISPLAY_DATA_SECTION, FIXED_EDGES_SECTION, ...
                continue;
            }
            KeyedSection& section = sections_[known - layout.sections.begin()];
            if (section.present())
                fail(line.number,
                     fmt::format("duplicate {} (first on line {})", line.key, section.line));
            section.line = line.number;
            section.begin = section.end = i + 1;
            current = &section;
            continue;
        }
        if (!line.has_colon)
            fail(line.number, fmt::format("expected 'KEY : value', found '{}'", line.text));
        for (auto& [key, value] : values_) {
            if (key != line.key) continue;
            if (value.present())
                fail(line.number,
                     fmt::format("duplicate {} (first on line {})", line.key, value.line));
            value = {line.value, line.number};
        }
        for (auto& [key, values] : lists_)
            if (key == line.key) values.push_back({line.value, line.number});
        // NOTE: other keys (DISPLAY_DATA_TYPE, EDGE_DATA_FORMAT, ...) are no part of what the
        // reader asked for and are ignored.
    }
}

const KeyedValue& KeyedFile::value(std::string_view key) const {
    for (const auto& [name, value] : values_)
        if (name == key) return value;
    throw std::logic_error(fmt::format("KeyedFile: key {} is not in the layout", key));
}

const std::vector<KeyedValue>& KeyedFile::list(std::string_view key) const {
    for (const auto& [name, values] : lists_)
        if (name == key) return values;
    throw std::logic_error(fmt::format("KeyedFile: list key {} is not in the layout", key));
}

const KeyedSection& KeyedFile::section(std::string_view name) const {
    for (const KeyedSection& section : sections_)
        if (section.name == name) return section;
    throw std::logic_error(fmt::format("KeyedFile: section {} is not in the layout", name));
}

InstanceError KeyedFile::error(std::size_t line, std::string_view message) const {
    if (line == 0) return InstanceError(fmt::format("{}: {}", source_, message));
    return InstanceError(fmt::format("{}:{}: {}", source_, line, message));
}

void KeyedFile::fail_missing(std::string_view what) const {
    fail(lines_.empty() ? 0 : lines_.back().number, fmt::format("end of file without {}", what));
}

const KeyedValue& KeyedFile::required(std::string_view key) const {
    const KeyedValue& entry = value(key);
    if (!entry.present()) fail_missing(key);
    return entry;
}

const KeyedSection& KeyedFile::required_section(std::string_view name) const {
    const KeyedSection& entry = section(name);
    if (!entry.present()) fail_missing(name);
    return entry;
}

std::int64_t KeyedFile::whole_number(std::string_view key) const {
    const KeyedValue& entry = required(key);
    const auto number = parse_integer(entry.value);
    if (!number)
        fail(entry.line, fmt::format("{} must be a whole number, got '{}'", key, entry.value));
    return *number;
}

std::size_t KeyedFile::choice(std::string_view key,
                              std::initializer_list<std::string_view> supported,
                              std::size_t absent) const {
    const KeyedValue& entry = value(key);
    if (!entry.present()) return absent;
    const auto found = std::find(supported.begin(), supported.end(), entry.value);
    if (found == supported.end())
        fail(entry.line, fmt::format("unsupported {} '{}' (supported: {})", key, entry.value,
                                     fmt::join(supported.begin(), supported.end(), ", ")));
    return static_cast<std::size_t>(found - supported.begin());
}

std::string KeyedFile::name(std::string_view suffix) const {
    std::string_view text = value("NAME").value;
    if (!suffix.empty() && text.ends_with(suffix)) text.remove_suffix(suffix.size());
    if (!text.empty()) return printable(text);
    return printable(std::filesystem::path(source_).stem().string());
}

void KeyedFile::for_each_node(
    const KeyedSection& section, std::size_t n, std::size_t values, std::string_view layout,
    std::string_view noun,
    const std::function<void(std::size_t, const KeyedLine&, std::span<const std::string_view>)>&
        visit) const {
    // NOTE: the count is checked before the ids, and before anything of size n is allocated:
    // a DIMENSION of 2^31 - 1 in a small file is the mismatch it is, not an allocation failure.
    if (section.size() != n)
        fail(0,
             fmt::format("{} has {} {}, DIMENSION says {}", section.name, section.size(), noun, n));
    std::vector<std::size_t> seen(n, 0);
    for (const KeyedLine& line : data(section)) {
        if ((line.number & 0xFFFF) == 0) throw_if_stopped(); // as in split_keyed_lines
        const auto words = split_words(line.text);
        const auto id = parse_integer(words[0]);
        if (!id) fail(line.number, fmt::format("non-numeric node id '{}'", words[0]));
        if (words.size() != values)
            fail(line.number,
                 fmt::format("node {}: expected '{}', found {} values", *id, layout, words.size()));
        if (*id < 1 || static_cast<std::uint64_t>(*id) > n)
            fail(line.number, fmt::format("node id {} out of range 1..{}", *id, n));
        const auto index = static_cast<std::size_t>(*id - 1);
        if (seen[index] != 0)
            fail(line.number,
                 fmt::format("duplicate node id {} (first on line {})", *id, seen[index]));
        seen[index] = line.number;
        visit(index, line, words);
    }
}

KeyedFile::Coordinates KeyedFile::coordinates(
    const KeyedSection& section, std::size_t n,
    const std::function<void(std::size_t, const KeyedLine&, std::span<const std::string_view>,
                             double, double)>& check) const {
    Coordinates result;
    for_each_node(
        section, n, 3, "id x y", "nodes",
        [&](std::size_t index, const KeyedLine& line, std::span<const std::string_view> words) {
            // NOTE: allocated at the first node, after the count was checked.
            if (result.x.empty()) {
                result.x.assign(n, 0.0);
                result.y.assign(n, 0.0);
            }
            const auto x = parse_number(words[1]);
            const auto y = parse_number(words[2]);
            if (!x || !y)
                fail(line.number, fmt::format("node {}: non-numeric coordinate '{}'", index + 1,
                                              x ? words[2] : words[1]));
            if (check) check(index, line, words, *x, *y);
            result.x[index] = *x;
            result.y[index] = *y;
        });
    return result;
}

std::vector<std::int64_t> KeyedFile::terminated_ids(const KeyedSection& section, std::size_t n,
                                                    std::string_view noun) const {
    std::vector<std::int64_t> ids;
    bool ended = false;
    for (const KeyedLine& line : data(section)) {
        for (const std::string_view word : split_words(line.text)) {
            if (ended)
                fail(line.number,
                     fmt::format("unexpected '{}' after the -1 that ends {}", word, section.name));
            const auto id = parse_integer(word);
            if (!id) fail(line.number, fmt::format("non-numeric {} id '{}'", noun, word));
            if (*id == -1) {
                ended = true;
                continue;
            }
            if (*id < 1 || static_cast<std::uint64_t>(*id) > n)
                fail(line.number, fmt::format("{} id {} out of range 1..{}", noun, *id, n));
            ids.push_back(*id);
        }
    }
    return ids;
}

} // namespace locus::formats
