#pragma once
// Internal: the lines of TSPLIB-style text (.sol files) from locus::formats and whole-word
// numbers from core/locus/text.hpp, under the names the DCVRP readers use.

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "locus/formats/keyed_file.hpp"
#include "locus/text.hpp"

namespace locus::dcvrp::detail {

/// One non-blank line (formats::KeyedLine).
using Line = formats::KeyedLine;

/// The non-blank lines of `text` (formats::split_keyed_lines).
inline std::vector<Line> split_lines(std::string_view text) {
    return formats::split_keyed_lines(text);
}

using locus::parse_integer;
using locus::parse_number;

} // namespace locus::dcvrp::detail
