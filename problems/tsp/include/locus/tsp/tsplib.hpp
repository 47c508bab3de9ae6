#pragma once
/// \file
/// TSPLIB95 reader for symmetric TSP instances (on the keyed-file reader of locus::formats),
/// plus the line splitting the tour reader takes from there.
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

#include "locus/formats/keyed_file.hpp"
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

/// One non-blank line of a TSPLIB-style file (formats::KeyedLine).
using TsplibLine = formats::KeyedLine;

/// Splits text into its non-blank lines (formats::split_keyed_lines).
inline std::vector<TsplibLine> split_tsplib_lines(std::string_view text) {
    return formats::split_keyed_lines(text);
}

} // namespace locus::tsp
