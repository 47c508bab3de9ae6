#pragma once
/// \file
/// The scalar keys of an experiment spec (name, time_limit, seeds), checked by the config
/// validator against a schema of their own, so that a bad value is reported at its file, line
/// and column as in a config.

#include <filesystem>
#include <string>
#include <vector>

namespace YAML {
class Node;
}

namespace locus::app {

/// The spec's scalar keys, checked.
struct SpecKeys {
    std::string name;             ///< "" when not given
    double time_limit = 0.0;      ///< seconds per run (0: not given)
    std::vector<long long> seeds; ///< 1..N for `seeds: N` (default 1), else the listed seeds
};

/// The keys name, time_limit and seeds of the spec `root`, parsed from `text` (the contents of
/// `file`), checked by compose_config against the spec schema: composed from `text` with the
/// other keys' entries blanked out, so that every value stays at its line and column. A
/// `seeds` list is checked seed by seed, each composed alone. ConfigError
/// "<file>:<line>:<col>: <key>: <problem>" for a bad value.
SpecKeys spec_keys(const std::string& text, const YAML::Node& root,
                   const std::filesystem::path& file);

} // namespace locus::app
