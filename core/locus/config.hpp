#pragma once
/// \file
/// Job configuration: a YAML file plus command-line overrides, validated against the schemas of
/// the registry into one Params tree. Nothing is built or allocated here; the launcher builds
/// components from the result. The config language is described in docs/config-reference.md.

#include <filesystem>
#include <string>
#include <vector>

#include "locus/params.hpp"
#include "locus/registry.hpp"

namespace YAML {
class Node;
}

namespace locus {

/// Most nodes a YAML document may expand to (aliases counted at each use) and deepest nesting:
/// a config or experiment spec is a few hundred nodes; the limit stops alias bombs early.
inline constexpr std::size_t kMaxYamlNodes = 100000;
inline constexpr std::size_t kMaxYamlDepth = 64;

/// Walks `root` (a document of `file`) and throws ConfigError "<file>: ..." as soon as it
/// expands to more than kMaxYamlNodes nodes or nests deeper than kMaxYamlDepth; the walk stops
/// there, so its cost is bounded whatever the aliases.
void check_yaml_size(const YAML::Node& root, const std::string& file);

/// Validates `yaml_text` (named `file_name` in messages) with `overrides` ("key.path=value",
/// applied to the YAML tree first) against the schema of kind "job", name "job", which must be
/// registered (register_job_schema). Returns the job: root Params of kind "job" and name "job"
/// with every key typed and every default filled in; nested components are Params of their
/// kind. Problem-scoped components are resolved for the problem named at `problem.name`.
/// Throws ConfigError with one line "<file>:<line>:<col>: <key.path>: <problem>" on the first
/// invalid value, unknown key or component, missing required key, YAML syntax error or
/// malformed override.
Params compose_config(const std::string& yaml_text, const std::string& file_name,
                      const std::vector<std::string>& overrides, const Registry& registry);

/// Reads `file` and composes it (compose_config, with the path as given as the file name).
/// Throws ConfigError "cannot open config file '<file>': <reason>" when it cannot be read.
Params load_config(const std::filesystem::path& file, const std::vector<std::string>& overrides,
                   const Registry& registry);

/// Registers the schema of the job (kind "job", name "job": the keys of a config's root) and of
/// the built-in termination "limits". Their factories throw NotImplemented: they are schemas
/// only, read by the launcher. Does nothing for schemas already registered.
void register_job_schema(Registry& registry);

/// 16 lowercase hex digits of the 64-bit FNV-1a hash of job.canonical(): equal for equal
/// validated configs whatever the key order or spelling of defaults in the file.
std::string config_hash(const Params& job);

} // namespace locus
