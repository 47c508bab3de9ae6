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

namespace locus {

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
