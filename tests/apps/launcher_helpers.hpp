#pragma once
/// \file
/// Helpers of the launcher tests: running build/bin/locus, reading what a run writes and
/// writing small instance and config files.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace locus::test {

/// `text` in single quotes for /bin/sh (embedded quotes escaped).
std::string quoted(const std::string &text);

/// Shell command running the launcher of this build with `args` (already quoted as needed).
/// LOCUS_PLUGIN_PATH is cleared unless `env` sets it: `env` holds "NAME=value" assignments
/// (quoted as needed) put before the launcher.
std::string locus_command(const std::string &args, const std::string &env = "");

/// Runs the launcher; output holds stdout and stderr together.
CommandResult run_locus(const std::string &args, const std::string &env = "");

/// Runs the launcher; output holds its stderr only (stdout is discarded).
CommandResult run_locus_stderr(const std::string &args, const std::string &env = "");

/// The lines of a text file, without their line ends; empty when the file cannot be read.
std::vector<std::string> read_lines(const std::filesystem::path &file);

/// The whole content of a file ("" when it cannot be read).
std::string read_text(const std::filesystem::path &file);

/// Parses every line of a JSON-lines file (throws nlohmann::json::parse_error on a bad line).
std::vector<nlohmann::json> read_jsonl(const std::filesystem::path &file);

/// Writes a TSPLIB EUC_2D instance named `name` with `n` cities at integer coordinates in
/// [0, 1000) drawn from a fixed generator keyed by `seed`. Returns `file`.
std::filesystem::path write_tsplib(const std::filesystem::path &file, const std::string &name,
                                   std::size_t n, std::uint64_t seed);

/// Writes a copy of the TSPLIB tour `tour` to `copy` in which the second city of
/// TOUR_SECTION is replaced by the first. Returns the message the tour reader gives for it:
/// "<copy>:<line>: city <id> appears twice (first on line <line>)".
std::string write_tour_with_duplicate(const std::filesystem::path &tour,
                                      const std::filesystem::path &copy);

/// How far past a time limit of `seconds` a run may end in a test: 1 s plus 20 % of the limit,
/// a slack that holds on a machine whose cores are all busy.
inline double time_limit_slack(double seconds) { return 1.0 + 0.2 * seconds; }

/// Runs configs/<config> with `args` and `--time-limit <seconds>` (-q, into a fresh folder
/// named after `tag`); requires exit 0 and one results line, checks stop_reason time_limit,
/// a feasible solution and (outside sanitizer builds) an end within time_limit_slack of the
/// limit by the run's own clock, and returns the results line.
nlohmann::json run_time_limited(const std::string &tag, const std::string &config,
                                const std::string &args, double seconds);

} // namespace locus::test
