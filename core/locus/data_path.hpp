#pragma once
/// \file
/// The data path: where instance files, solution files and best-known tables are looked up.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "locus/types.hpp"

namespace locus {

/// Directories searched after a path given as is: the directory of the job's config file (see
/// set_config_directory), each directory of $LOCUS_DATA (colon-separated), ./data (relative to
/// the working directory), then the data that ships with locus: <prefix>/share/locus/data of an
/// installed launcher, or the data/ folder of the source tree of this build.
std::vector<std::filesystem::path> data_directories();

/// Makes `dir` (the folder of the config file being run; empty: none) the first data
/// directory, so that a config's relative instance path works from any working directory.
void set_config_directory(const std::filesystem::path& dir);

/// Resolves `spec`: as given if it exists, else under each data directory in order. Throws
/// InstanceError "instance file 'x' not found (looked in: ...)" naming `what` ("instance file",
/// "solution file", ...).
std::filesystem::path resolve_data_file(const std::string& spec, const std::string& what);

/// Best-known objective values read from a CSV with a header containing the columns
/// `instance` and `best_known` (optionally `library` and `optimal`), as in data/best-known.csv.
class BestKnownTable {
public:
    /// Loads `file`; throws InstanceError on a malformed table.
    static BestKnownTable load(const std::filesystem::path& file);
    /// Loads `file` if non-empty, else best-known.csv from the first data directory that has
    /// one; an empty table when none exists.
    static BestKnownTable find(const std::string& file);

    /// Value for an instance name (e.g. "kroA100"; a trailing extension is ignored).
    std::optional<Objective> lookup(const std::string& instance) const;
    /// Whether the table marks the instance's value a proven optimum (its `optimal` column says
    /// "yes" or "optimal"; false without the column or the instance).
    bool optimal(const std::string& instance) const;
    const std::filesystem::path& source() const { return source_; }
    std::size_t size() const { return values_.size(); }

private:
    std::filesystem::path source_;
    std::vector<std::pair<std::string, Objective>> values_;
    std::vector<std::string> optimal_; ///< instances whose value is a proven optimum
};

} // namespace locus
