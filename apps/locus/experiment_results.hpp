#pragma once
/// \file
/// DIR/results.jsonl of an experiment: one line per finished run, each appended by a single
/// write, read back on a resume to skip what finished.

#include <filesystem>
#include <set>
#include <string>

namespace locus::app {

/// The keys of the runs recorded in `results` (throws naming a corrupt line). Error when
/// `results` exists and is not a regular file.
std::set<std::string> finished_keys(const std::filesystem::path& results);

/// Appends `line` and a newline with one write on an O_APPEND descriptor, then syncs.
void append_line(const std::filesystem::path& file, const std::string& line);

/// Before a resume appends to `results`: a last line without its newline (a write cut short by
/// a crash or a full disk, or an edit) would have the next line glued onto it. A complete line
/// (JSON with its key) gets its newline; anything else is cut off, with a warning, so that its
/// run (not counted as finished) runs again.
void repair_torn_tail(const std::filesystem::path& results);

} // namespace locus::app
