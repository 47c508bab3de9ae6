#pragma once
/// \file
/// Readers of the Moving AI benchmark formats (movingai.com/benchmarks).
///
/// `.map`: the header lines `type octile`, `height <H>`, `width <W>` (height
/// and width in either order) and `map`, then H rows of W cells each. Free
/// cells: '.' (ground), 'G' (ground), 'S' (swamp). Blocked cells: '@' and 'O'
/// (out of bounds), 'T' (trees), 'W' (water: agents here walk, never swim). Any
/// other cell character is an error. CRLF line ends and trailing blanks are
/// accepted, and so are blank lines after the last row.
///
/// `.scen`: the first line `version 1` (or `version 1.0`), then one agent per
/// line: `bucket map width height start_x start_y goal_x goal_y
/// optimal_length`, fields separated by tabs or spaces; x is the column and y
/// the row, both 0-based. The map name is not compared with the map file
/// (benchmark sets move maps around), but width and height must match it. The
/// optimal length (octile moves) is checked to be a number and otherwise
/// ignored.
///
/// Error messages have the form "<file>:<line>: <message>"; rows and columns of
/// map cells in them are 1-based (as text editors count), scenario coordinates
/// are quoted as (x, y) as in the file.

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "locus/gridpath/instance.hpp"

namespace locus::gridpath {

/// Largest width and largest height of a map.
inline constexpr std::int32_t kMaxMapSide = 1 << 16;

/// Largest number of cells (width * height) of a map.
inline constexpr std::size_t kMaxMapCells = std::size_t{1} << 28;

/// Reads a `.map` file. Throws InstanceError "cannot open map file '<path>':
/// <reason>" when the file cannot be read and the errors of parse_map
/// otherwise.
Grid read_map(const std::filesystem::path& path);

/// Parses `.map` text; `source` names it in error messages. Throws
/// InstanceError
/// "<source>:<line>: <message>" for a missing or wrong header line, a height or
/// width that is not an integer in 1..kMaxMapSide (or a grid of more than
/// kMaxMapCells cells), a row of the wrong width, an unknown cell character,
/// too few or too many rows.
Grid parse_map(std::string_view text, const std::string& source);

/// Reads a `.scen` file for `grid` (see parse_scenario). Throws InstanceError
/// "cannot open scenario file '<path>': <reason>" when the file cannot be read.
std::vector<Agent> read_scenario(const std::filesystem::path& path, const Grid& grid,
                                 std::size_t max_agents = 0);

/// Parses `.scen` text: the agents of its first `max_agents` rows (all rows
/// when 0). Throws InstanceError "<source>:<line>: <message>" for a missing
/// `version 1` line, a row without 9 fields or with non-numeric ones, a map
/// size that differs from grid's, a start or goal outside the grid or on a
/// blocked cell, a start (goal) shared with an earlier agent, a goal not
/// reachable from its start by 4-connected moves; and "<source>: no agents" for
/// a scenario without rows.
std::vector<Agent> parse_scenario(std::string_view text, const std::string& source,
                                  const Grid& grid, std::size_t max_agents = 0);

/// Reads a map and the first `agents` agents of a scenario on it (all when 0).
/// Throws the errors of read_map and read_scenario, and InstanceError "<scen>:
/// <agents> agents requested, the scenario has only <n>" when it has fewer
/// rows. The name is
/// "<scenario file name>, <n> agents" ("1 agent" for one).
Instance load_instance(const std::filesystem::path& map_path,
                       const std::filesystem::path& scen_path, std::size_t agents = 0);

} // namespace locus::gridpath
