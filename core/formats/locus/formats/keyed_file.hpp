#pragma once
/// \file
/// TSPLIB-family keyed files (.tsp, .vrp, .tour, .sol): a specification part of `KEY : value`
/// lines, then named data sections (NODE_COORD_SECTION, DEMAND_SECTION, DEPOT_SECTION,
/// EDGE_WEIGHT_SECTION, ...), optionally ended by EOF. KeyedFile reads the layout once and
/// offers the checks every reader of the family repeats (required keys, choices, whole
/// numbers, node sections, -1-terminated id lists), each failing with an InstanceError
/// "<source>[:<line>]: <message>".
///
/// Accepted quirks: keys with or without blanks around ':', trailing blanks and tabs, LF, CRLF
/// or CR-only line ends, a leading UTF-8 byte-order mark, blank lines anywhere, a missing EOF.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "locus/error.hpp"

namespace locus::formats {

/// One non-blank line of a keyed file.
struct KeyedLine {
    std::size_t number = 0; ///< 1-based line number in the file
    std::string_view text;  ///< the line without terminator and surrounding blanks
    bool keyword = false;   ///< starts with an upper-case letter (a key or a section name)
    bool has_colon = false; ///< keyword line of the form `KEY : value`
    std::string_view key;   ///< keyword lines: text before ':' (or the first word), trimmed
    std::string_view value; ///< keyword lines: text after ':' (or after the first word), trimmed
};

/// The non-blank lines of `text` (LF, CRLF, or CR alone in a file without LF; tabs as blanks,
/// a leading UTF-8 BOM ignored); the views point into `text`.
std::vector<KeyedLine> split_keyed_lines(std::string_view text);

/// A value of the specification part and the line it came from (0: absent).
struct KeyedValue {
    std::string_view value;
    std::size_t line = 0;
    bool present() const { return line != 0; }
};

/// A data section: its keyword line (0: absent) and the range [begin, end) of its data lines
/// in KeyedFile::lines().
struct KeyedSection {
    std::string_view name;
    std::size_t line = 0;
    std::size_t begin = 0;
    std::size_t end = 0;
    bool present() const { return line != 0; }
    std::size_t size() const { return end - begin; }
};

/// What a reader takes from a keyed file; everything else is skipped. The names are viewed, not
/// copied: string literals, or strings that outlive the KeyedFile.
struct KeyedLayout {
    std::vector<std::string_view> keys;     ///< keys read once each (a repeat is an error)
    std::vector<std::string_view> lists;    ///< keys that may repeat (COMMENT), kept in order
    std::vector<std::string_view> sections; ///< `*_SECTION` names read (others are skipped)
};

/// The layout of one keyed file, checked when constructed. Views point into the text given to
/// the constructor, which must outlive the KeyedFile. Not thread safe to construct; const
/// members may be called from any thread.
class KeyedFile {
public:
    /// Reads the lines up to EOF: data lines belong to the last section keyword; the keys and
    /// sections of `layout` are recorded, unknown `KEY : value` lines and unknown sections are
    /// skipped. Throws InstanceError "<source>:<line>: ..." for data outside a section
    /// ("unexpected data '...' outside a section"), text after a section keyword ("unexpected
    /// text '...' after KEY"), a repeated key of `layout.keys` or a repeated section
    /// ("duplicate KEY (first on line L)") and a keyword line without a colon ("expected
    /// 'KEY : value', found '...'"). `source` names the text in messages (a path).
    KeyedFile(std::string_view text, std::string source, KeyedLayout layout);

    const std::string& source() const { return source_; }
    const std::vector<KeyedLine>& lines() const { return lines_; }
    /// Bytes of the text: a bound on how many numbers it can hold (reservations).
    std::size_t text_bytes() const { return text_bytes_; }

    /// The value of `key` (absent: line 0). Precondition: `key` is one of layout.keys (else
    /// std::logic_error).
    const KeyedValue& value(std::string_view key) const;
    /// The values of a repeatable key in file order. Precondition: one of layout.lists.
    const std::vector<KeyedValue>& list(std::string_view key) const;
    /// The section `name` (absent: line 0). Precondition: one of layout.sections.
    const KeyedSection& section(std::string_view name) const;
    /// The data lines of `section`.
    std::span<const KeyedLine> data(const KeyedSection& section) const {
        return std::span<const KeyedLine>(lines_).subspan(section.begin, section.size());
    }

    /// InstanceError "<source>:<line>: <message>" ("<source>: <message>" for line 0).
    InstanceError error(std::size_t line, std::string_view message) const;
    [[noreturn]] void fail(std::size_t line, std::string_view message) const {
        throw error(line, message);
    }

    /// Throws "<source>:<last line>: end of file without <what>" (what a reader needed and the
    /// file never gave; "<source>: ..." for a file without lines).
    [[noreturn]] void fail_missing(std::string_view what) const;
    /// The value of `key`; throws fail_missing(KEY) when absent.
    const KeyedValue& required(std::string_view key) const;
    /// The section `name`; throws fail_missing(NAME) when absent.
    const KeyedSection& required_section(std::string_view name) const;
    /// The value of required `key` as a whole number; throws as required() and "<line>: KEY
    /// must be a whole number, got '<value>'".
    std::int64_t whole_number(std::string_view key) const;
    /// The index of the value of `key` in `supported`, or `absent` when the key is absent.
    /// Throws "<line>: unsupported KEY '<value>' (supported: A, B, ...)".
    std::size_t choice(std::string_view key, std::initializer_list<std::string_view> supported,
                       std::size_t absent) const;
    /// NAME without `suffix` (files that write their file name there), else the stem of the
    /// source; printable() either way, since a name reaches results lines and terminals.
    /// Precondition: NAME is one of layout.keys.
    std::string name(std::string_view suffix) const;

    /// Visits the `id v1 v2 ...` lines of `section`, one per node 1..n, checked in this order:
    /// the count ("<source>: SECTION has <k> <noun>, DIMENSION says <n>", before anything of
    /// size n is allocated), then per line "non-numeric node id '<w>'", "node <id>: expected
    /// '<layout>', found <k> values" (`layout` has `values` words), "node id <id> out of range
    /// 1..<n>" and "duplicate node id <id> (first on line <l>)". `visit(index, line, words)`
    /// gets the 0-based node index and the words of the line (id first).
    void for_each_node(const KeyedSection& section, std::size_t n, std::size_t values,
                       std::string_view layout, std::string_view noun,
                       const std::function<void(std::size_t, const KeyedLine&,
                                                std::span<const std::string_view>)>& visit) const;

    /// Coordinates of a NODE_COORD_SECTION of `id x y` lines (TWOD_COORDS), by node index.
    struct Coordinates {
        std::vector<double> x;
        std::vector<double> y;
    };
    /// Reads `section` through for_each_node ("nodes"); a coordinate that is not a finite number
    /// gives "<line>: node <id>: non-numeric coordinate '<w>'". `check(index, line, words, x,
    /// y)`, when given, may refuse a node with fail().
    Coordinates coordinates(
        const KeyedSection& section, std::size_t n,
        const std::function<void(std::size_t, const KeyedLine&, std::span<const std::string_view>,
                                 double, double)>& check = {}) const;

    /// The ids of a section listed as words over any lines and ended by -1 (DEPOT_SECTION,
    /// TOUR_SECTION); the -1 may be missing. Throws "<line>: unexpected '<w>' after the -1 that
    /// ends SECTION", "<line>: non-numeric <noun> id '<w>'" and "<line>: <noun> id <id> out of
    /// range 1..<n>".
    std::vector<std::int64_t> terminated_ids(const KeyedSection& section, std::size_t n,
                                             std::string_view noun) const;

private:
    void scan(const KeyedLayout& layout);

    std::vector<KeyedLine> lines_;
    std::string source_;
    std::size_t text_bytes_ = 0;
    std::vector<std::pair<std::string_view, KeyedValue>> values_;
    std::vector<std::pair<std::string_view, std::vector<KeyedValue>>> lists_;
    std::vector<KeyedSection> sections_;
};

} // namespace locus::formats
