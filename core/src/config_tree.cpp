#include "config_tree.hpp"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <utility>

#include "locus/config.hpp"
#include "locus/error.hpp"

namespace locus::detail {

const ConfigNode* ConfigNode::find(const std::string& key) const {
    if (type != Type::map)
        return nullptr;
    for (const ConfigEntry& entry : entries)
        if (entry.key == key)
            return &entry.value;
    return nullptr;
}

ConfigNode* ConfigNode::find(const std::string& key) {
    return const_cast<ConfigNode*>(std::as_const(*this).find(key));
}

std::string join_path(const std::string& parent, const std::string& key) {
    return parent.empty() ? key : parent + "." + key;
}

std::string describe(const ConfigNode& node) {
    switch (node.type) {
    case ConfigNode::Type::null:
        return "nothing";
    case ConfigNode::Type::scalar:
        return "'" + node.scalar + "'";
    case ConfigNode::Type::sequence:
        return "a list";
    case ConfigNode::Type::map:
        return "a map";
    }
    return "?";
}

namespace {

/// `line`: 1-based line of the node that went too deep (0: unknown).
std::string size_message(const std::string& file, bool too_many, int line) {
    if (too_many)
        return fmt::format("{}: the YAML document expands to more than {} nodes (aliases nested in "
                           "aliases?); a config is far smaller",
                           file, kMaxYamlNodes);
    return line > 0 ? fmt::format("{}: the YAML document nests deeper than {} levels at line {}",
                                  file, kMaxYamlDepth, line)
                    : fmt::format("{}: the YAML document nests deeper than {} levels", file,
                                  kMaxYamlDepth);
}

/// The message of a yaml-cpp exception; the parser's own recursion limit (a document nested
/// thousands of levels deep, which yaml-cpp reports as "bad file") reads as the depth limit.
std::string yaml_error(const YAML::Exception& e, const std::string& file) {
    const int line = e.mark.is_null() ? 0 : e.mark.line + 1;
    if (dynamic_cast<const YAML::DeepRecursion*>(&e) != nullptr)
        return size_message(file, false, line);
    const SourceLocation where = e.mark.is_null()
                                     ? SourceLocation{file, 0, 0}
                                     : SourceLocation{file, e.mark.line + 1, e.mark.column + 1};
    return where.str() + ": YAML syntax error: " + e.msg;
}

/// Converts yaml-cpp nodes. With `fixed` set, every node gets that location (values that do
/// not come from a file); otherwise marks are converted to 1-based positions in `file`.
class Converter {
  public:
    Converter(std::string file, const SourceLocation* fixed)
        : file_(std::move(file)), fixed_(fixed) {}

    ConfigNode convert(const YAML::Node& node, const std::string& path,
                       std::size_t depth = 0) const {
        if (++nodes_ > kMaxYamlNodes || depth > kMaxYamlDepth)
            throw ConfigError(size_message(file_, nodes_ > kMaxYamlNodes,
                                           node.Mark().is_null() ? 0 : node.Mark().line + 1));
        ConfigNode out;
        out.location = location(node.Mark());
        switch (node.Type()) {
        case YAML::NodeType::Undefined:
        case YAML::NodeType::Null:
            out.type = ConfigNode::Type::null;
            break;
        case YAML::NodeType::Scalar:
            out.type = ConfigNode::Type::scalar;
            out.scalar = node.Scalar();
            break;
        case YAML::NodeType::Sequence: {
            out.type = ConfigNode::Type::sequence;
            std::size_t i = 0;
            for (const YAML::Node& item : node)
                out.items.push_back(
                    convert(item, path + "[" + std::to_string(i++) + "]", depth + 1));
            break;
        }
        case YAML::NodeType::Map:
            out.type = ConfigNode::Type::map;
            for (const auto& pair : node) {
                ConfigEntry entry;
                entry.key_location = location(pair.first.Mark());
                if (!pair.first.IsScalar())
                    throw ConfigError(entry.key_location.str() + ": " +
                                      (path.empty() ? std::string() : path + ": ") +
                                      "keys must be plain names, got " +
                                      (pair.first.IsMap() ? "a map" : "a list"));
                entry.key = pair.first.Scalar();
                const std::string key_path = join_path(path, entry.key);
                if (out.find(entry.key) != nullptr)
                    throw ConfigError(entry.key_location.str() + ": " + key_path +
                                      ": duplicate key '" + entry.key + "'");
                entry.value = convert(pair.second, key_path, depth + 1);
                // NOTE: yaml-cpp places an empty value at the next token; the key is clearer.
                if (entry.value.type == ConfigNode::Type::null)
                    entry.value.location = entry.key_location;
                out.entries.push_back(std::move(entry));
            }
            break;
        }
        return out;
    }

  private:
    SourceLocation location(const YAML::Mark& mark) const {
        if (fixed_ != nullptr)
            return *fixed_;
        if (mark.is_null())
            return SourceLocation{file_, 0, 0};
        return SourceLocation{file_, mark.line + 1, mark.column + 1};
    }

    std::string file_;
    const SourceLocation* fixed_;
    mutable std::size_t nodes_ = 0;
};

} // namespace

std::size_t walk_size(const YAML::Node& node, std::size_t depth, std::size_t& nodes,
                      const std::string& file) {
    if (++nodes > kMaxYamlNodes || depth > kMaxYamlDepth)
        throw ConfigError(size_message(file, nodes > kMaxYamlNodes,
                                       node.Mark().is_null() ? 0 : node.Mark().line + 1));
    if (node.IsSequence())
        for (const YAML::Node& item : node) walk_size(item, depth + 1, nodes, file);
    else if (node.IsMap())
        for (const auto& pair : node) {
            walk_size(pair.first, depth + 1, nodes, file);
            walk_size(pair.second, depth + 1, nodes, file);
        }
    return nodes;
}

ConfigNode parse_config_yaml(const std::string& text, const std::string& file) {
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        throw ConfigError(yaml_error(e, file));
    }
    return Converter(file, nullptr).convert(root, "");
}

ConfigNode parse_yaml_value(const std::string& text, const SourceLocation& location,
                            const std::string& what) {
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::DeepRecursion&) {
        throw ConfigError(size_message(what, false, 0));
    } catch (const YAML::Exception& e) {
        throw ConfigError(what + ": YAML syntax error: " + e.msg);
    }
    return Converter(location.file, &location).convert(root, "");
}

namespace {

/// One step of an override path: a key, or an index written as [n] (`bracket`) or as .n.
struct PathStep {
    std::string key;
    bool bracket = false;
    bool numeric = false;
    std::size_t index = 0;
};

bool all_digits(const std::string& s) {
    if (s.empty() || s.size() > 9)
        return false;
    for (const char c : s)
        if (!std::isdigit(static_cast<unsigned char>(c)))
            return false;
    return true;
}

std::vector<PathStep> parse_path(const std::string& path, const std::string& prefix) {
    std::vector<PathStep> steps;
    std::size_t pos = 0;
    while (true) {
        const std::size_t dot = path.find('.', pos);
        const std::string part = path.substr(pos, dot == std::string::npos ? dot : dot - pos);
        const std::size_t bracket = part.find('[');
        const std::string key = part.substr(0, bracket);
        if (key.empty())
            throw ConfigError(prefix + "empty key in path '" + path + "'");
        steps.push_back(
            PathStep{key, false, all_digits(key), all_digits(key) ? std::stoul(key) : 0});
        std::size_t b = bracket;
        while (b != std::string::npos) {
            const std::size_t close = part.find(']', b);
            const std::string digits =
                close == std::string::npos ? std::string() : part.substr(b + 1, close - b - 1);
            if (!all_digits(digits) || (close + 1 < part.size() && part[close + 1] != '['))
                throw ConfigError(prefix + "malformed list index in '" + path +
                                  "' (expected key[<number>])");
            steps.push_back(PathStep{digits, true, true, std::stoul(digits)});
            b = close + 1 < part.size() ? close + 1 : std::string::npos;
        }
        if (dot == std::string::npos)
            break;
        pos = dot + 1;
    }
    return steps;
}

} // namespace

void apply_override(ConfigNode& root, const std::string& text) {
    const SourceLocation command_line{"<command line>", 0, 0};
    const std::size_t equals = text.find('=');
    if (equals == std::string::npos)
        throw ConfigError("--set '" + text + "': expected key.path=value");
    const std::string prefix = "--set '" + text + "': ";
    const std::vector<PathStep> steps = parse_path(text.substr(0, equals), prefix);
    const std::string raw = text.substr(equals + 1);

    ConfigNode value;
    if (raw.empty()) {
        // NOTE: `--set key=` means an empty string, not YAML null (which would mean "default").
        value.type = ConfigNode::Type::scalar;
        value.location = command_line;
    } else {
        value = parse_yaml_value(raw, command_line, "--set '" + text + "'");
    }

    ConfigNode* node = &root;
    std::string where;
    for (const PathStep& step : steps) {
        if (node->type == ConfigNode::Type::sequence) {
            if (!step.numeric)
                throw ConfigError(prefix + "'" + where + "' is a list; expected an index, e.g. '" +
                                  where + "[0]'");
            if (step.index >= node->items.size())
                throw ConfigError(fmt::format("{}index {} is out of range ('{}' has {} items)",
                                              prefix, step.index, where, node->items.size()));
            node = &node->items[step.index];
            where += "[" + step.key + "]";
            continue;
        }
        if (step.bracket)
            throw ConfigError(prefix + "'" + where + "' is not a list");
        if (node->type == ConfigNode::Type::scalar) {
            // A component given by name becomes {name: <it>} so that its params can be set.
            ConfigNode name = std::move(*node);
            node->type = ConfigNode::Type::map;
            node->location = name.location;
            node->scalar.clear();
            node->entries.push_back(ConfigEntry{"name", name.location, std::move(name)});
        } else if (node->type == ConfigNode::Type::null) {
            node->type = ConfigNode::Type::map;
            node->location = command_line;
        }
        ConfigNode* child = node->find(step.key);
        if (child == nullptr) {
            ConfigNode empty;
            empty.location = command_line;
            node->entries.push_back(ConfigEntry{step.key, command_line, std::move(empty)});
            child = &node->entries.back().value;
        }
        node = child;
        where = join_path(where, step.key);
    }
    *node = std::move(value);
}

} // namespace locus::detail

namespace locus {

void check_yaml_size(const YAML::Node& root, const std::string& file) {
    std::size_t nodes = 0;
    (void)detail::walk_size(root, 0, nodes, file);
}

} // namespace locus
