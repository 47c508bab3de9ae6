#pragma once
/// \file
/// TSPLIB .tour files (TOUR_SECTION of 1-based city ids ended by -1) and tour validation.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace locus::tsp {

/// Reads a TSPLIB tour of an instance with n cities and returns it 0-based. Throws
/// InstanceError "<path>[:<line>]: <message>" when the file is malformed, its TYPE is not TOUR,
/// its DIMENSION differs from n, or the tour is not a permutation of 1..n (wrong length,
/// duplicate or out-of-range ids); "cannot open tour file '<path>': <reason>" when unreadable.
/// Text after the -1 terminator (some files repeat it) is ignored.
std::vector<std::int32_t> read_tour(const std::filesystem::path& path, std::size_t n);

/// Parses tour text as read_tour does; `source` names it in error messages.
std::vector<std::int32_t> parse_tour(std::string_view text, const std::string& source,
                                     std::size_t n);

/// Writes `tour0` (0-based, a permutation of 0..size-1) as a TSPLIB tour: NAME, COMMENT
/// "Length = <length>", TYPE : TOUR, DIMENSION, TOUR_SECTION with 1-based ids, -1, EOF.
/// Throws locus::Error when tour0 is not a permutation or the file cannot be written.
void write_tour(const std::filesystem::path& path, const std::string& name,
                std::span<const std::int32_t> tour0, std::int64_t length);

/// Why `tour` is not a permutation of 0..n-1 (e.g. "city 3 appears twice (positions 1 and
/// 4)"), or nullopt when it is one.
std::optional<std::string> check_tour(std::span<const std::int32_t> tour, std::size_t n);

} // namespace locus::tsp
