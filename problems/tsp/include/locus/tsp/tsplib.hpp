#pragma once
/// \file
/// TSPLIB95 reader for symmetric TSP instances, plus the small lexical helpers it shares with
/// the other TSPLIB-style readers (tours).
///
/// Supported: TYPE TSP; EDGE_WEIGHT_TYPE EUC_2D, CEIL_2D, ATT, GEO (NODE_COORD_SECTION) and
/// EXPLICIT (EDGE_WEIGHT_SECTION) with EDGE_WEIGHT_FORMAT FULL_MATRIX, UPPER_ROW, LOWER_ROW,
/// UPPER_DIAG_ROW, LOWER_DIAG_ROW and their column twins (identical streams for symmetric
/// matrices). Accepted quirks: keys with or without blanks around ':', trailing blanks, CRLF,
/// scientific notation, a missing EOF, numbers of EDGE_WEIGHT_SECTION wrapped over lines at
/// will; diagonal weights of the FULL_MATRIX and *_DIAG_* formats are kept as given, the others
/// get 0. DISPLAY_DATA_SECTION and other unused sections are skipped; unknown `KEY : value`
/// lines are ignored.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "locus/text.hpp"

#include "locus/tsp/instance.hpp"

namespace locus::tsp {

/// Reads a TSPLIB .tsp file. Throws InstanceError with "<path>[:<line>]: <message>" for
/// malformed or unsupported files, and "cannot open instance file '<path>': <reason>" when the
/// file cannot be read.
Instance read_tsplib(const std::filesystem::path& path);

/// Parses TSPLIB text; `source` names it in error messages ("<source>:<line>: ...") and gives
/// the instance name when the text has no NAME.
Instance parse_tsplib(std::string_view text, const std::string& source);

/// One non-blank line of a TSPLIB-style file.
struct TsplibLine {
    std::size_t number = 0; ///< 1-based line number in the file
    std::string_view text;  ///< the line without terminator and surrounding blanks
    bool keyword = false;   ///< starts with an upper-case letter (a key or a section name)
    bool has_colon = false; ///< keyword line of the form `KEY : value`
    std::string_view key;   ///< keyword lines: text before ':' (or the first word), trimmed
    std::string_view value; ///< keyword lines: text after ':' (or after the first word), trimmed
};

/// Splits text into its non-blank lines (LF or CRLF; a leading UTF-8 BOM is ignored). The
/// views point into `text`.
std::vector<TsplibLine> split_tsplib_lines(std::string_view text);

/// A whole word as a finite double (decimal or scientific notation, optional sign), or
/// nullopt.
std::optional<double> parse_number(std::string_view word);

/// A whole word as an integer (optional sign), or nullopt.
std::optional<std::int64_t> parse_integer(std::string_view word);

} // namespace locus::tsp
