#pragma once
/// \file
/// The spec of `locus experiment`, expanded into runs: configs x instances x seeds x backends,
/// each a `locus run`, and peers x instances x seeds, each a peer solver's run; and the shards
/// i/N that divide the runs between experiments sharing one directory.

#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace locus::app {

/// One run of an experiment.
struct Run {
    std::string label;                  ///< the config's label (with its grid values)
    std::string config;                 ///< config file
    std::vector<std::string> overrides; ///< --set values of the label
    std::string instance;
    long long seed = 0;
    std::string backend;
    std::string peer; ///< a peer solver's name ("" for a `locus run`)

    /// "LABEL|INSTANCE|SEED|BACKEND": the run's key in the experiment's results.
    std::string key() const;
    /// A directory name: the key's parts with odd characters replaced (at most 80 of them),
    /// then 12 hex digits of a hash of the whole key, so that two keys never share a directory
    /// (tsplib/kroA100.tsp and /tmp/x/kroA100.tsp, labels a/b and a_b used to, and the second run
    /// deleted the first one's files).
    std::string dir_name() const;
};

/// An experiment: its name, its runs in spec order and the time limit of each run.
struct Spec {
    std::string name;
    std::vector<Run> runs;
    double time_limit = 0.0; ///< seconds per run (0: each config's own limits)
};

/// The spec in `file`, expanded. `plugin_paths` are searched for the problem plugins, which
/// tell the problem of a peer's instance files (loaded only when the spec lists peers).
/// ConfigError naming the file (and the line and column of a bad name, time_limit or seed).
Spec load_spec(const std::filesystem::path& file,
               const std::vector<std::filesystem::path>& plugin_paths);

/// A digest of the spec's name and runs: an experiment directory holds the results of one.
std::string spec_fingerprint(const Spec& spec);

/// The most shards of an experiment (far more than runs a directory holds).
inline constexpr std::size_t kMaxShards = 1000000;

/// "i/N" as {i, N} (1 <= i <= N <= kMaxShards); {1, 1} for "" (the whole experiment).
std::pair<std::size_t, std::size_t> parse_shard(const std::string& shard);

/// The runs of shard "i/N" (1 <= i <= N): those whose position in the expansion is i-1 mod N.
std::vector<Run> shard_of(const std::vector<Run>& runs, const std::string& shard);

} // namespace locus::app
