#pragma once
/// \file
/// Internal to the core: the YAML tree of a config with the source location of every key and
/// value, and the application of command-line overrides to it.

#include <string>
#include <vector>

#include "locus/params.hpp"

namespace locus::detail {

struct ConfigEntry;

/// A YAML node with its position. Map entries keep document order.
struct ConfigNode {
    enum class Type { null, scalar, sequence, map };
    Type type = Type::null;
    std::string scalar;               ///< scalar text (Type::scalar)
    std::vector<ConfigNode> items;    ///< Type::sequence
    std::vector<ConfigEntry> entries; ///< Type::map, in document order, keys unique
    SourceLocation location;          ///< where the value starts

    /// The value of `key` in a map, or null (also when this is not a map).
    const ConfigNode* find(const std::string& key) const;
    ConfigNode* find(const std::string& key);
};

/// One key of a map.
struct ConfigEntry {
    std::string key;
    SourceLocation key_location;
    ConfigNode value;
};

/// Parses a YAML document (`file` names it in locations and messages). An empty document gives
/// a null node. Throws ConfigError "<file>:<line>:<col>: YAML syntax error: <reason>", and
/// "<file>:<line>:<col>: <key.path>: duplicate key '<key>'" for a key given twice in a map.
ConfigNode parse_config_yaml(const std::string& text, const std::string& file);

/// Parses a YAML value whose every node gets `location` (defaults, override values). Throws
/// the YAML syntax error as a ConfigError message without location prefix, prefixed by `what`.
ConfigNode parse_yaml_value(const std::string& text, const SourceLocation& location,
                            const std::string& what);

/// Applies one "key.path=value" override to `root` (a map or null): dotted keys, list indices
/// as ".1" or "[1]", missing maps created, a scalar on the path turned into {name: scalar}.
/// Throws ConfigError "--set '<text>': <problem>" for a malformed override.
void apply_override(ConfigNode& root, const std::string& text);

/// "a map", "a list", "nothing" or the scalar quoted as 'text' (for "got ..." messages).
std::string describe(const ConfigNode& node);

/// `parent.key` (or `key` at the root).
std::string join_path(const std::string& parent, const std::string& key);

} // namespace locus::detail
