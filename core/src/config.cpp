#include "locus/config.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "config_tree.hpp"
#include "locus/defaults.hpp"
#include "locus/error.hpp"
#include "locus/params_check.hpp"
#include "locus/text.hpp"

namespace locus {

namespace {

using detail::ConfigEntry;
using detail::ConfigNode;
using detail::describe;
using detail::join_path;

const SourceLocation kDefaultLocation{"<default>", 0, 0};

std::string join(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& name : names)
        out += (out.empty() ? "" : ", ") + name;
    return out;
}

/// "; did you mean 'x'? (valid: a, b)" or " (valid: a, b)".
std::string alternatives(const std::string& word, std::vector<std::string> valid) {
    std::sort(valid.begin(), valid.end());
    std::string suggestion = closest_name(word, valid);
    // NOTE: users say "gpu" for the CUDA backend, which closest_name would take for "cpu".
    if ((word == "gpu" || word == "GPU") &&
        std::find(valid.begin(), valid.end(), "cuda") != valid.end())
        suggestion = "cuda";
    std::string out = suggestion.empty() ? "" : "; did you mean '" + suggestion + "'?";
    return out + (valid.empty() ? " (none available)" : " (valid: " + join(valid) + ")");
}

std::string format_bound(double x, bool integer) {
    if (integer && std::abs(x) < 9.0e18)
        return std::to_string(static_cast<long long>(x));
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, x);
    return std::string(buffer, result.ptr);
}

/// " in [a, b]", " >= a", " <= b" or "".
std::string bounds_text(const ParamSpec& spec) {
    const bool integer = spec.type == ParamType::integer;
    if (spec.min && spec.max)
        return " in [" + format_bound(*spec.min, integer) + ", " +
               format_bound(*spec.max, integer) + "]";
    if (spec.min)
        return " >= " + format_bound(*spec.min, integer);
    if (spec.max)
        return " <= " + format_bound(*spec.max, integer);
    return "";
}

bool in_bounds(const ParamSpec& spec, double x) {
    return !(spec.min && x < *spec.min) && !(spec.max && x > *spec.max);
}

/// "a neighborhood", "an algorithm".
std::string with_article(const std::string& noun) {
    const bool vowel = !noun.empty() && std::string("aeiou").find(noun[0]) != std::string::npos;
    return (vowel ? "an " : "a ") + noun;
}

[[noreturn]] void fail(const SourceLocation& where, const std::string& path,
                       const std::string& problem) {
    throw ConfigError(where.str() + ": " + (path.empty() ? "" : path + ": ") + problem);
}

/// Checks a YAML tree against the schemas of a registry (config composition).
class Validator {
  public:
    explicit Validator(const Registry& registry) : registry_(registry) {}

    /// Params of `schema` from `map` (a map node, or null when no key was given). Component
    /// names (`name` keys) are skipped unless `root`. `scope` is the problem of problem-scoped
    /// components.
    std::shared_ptr<Params> params_of(const ConfigNode* map, const ComponentSchema& schema,
                                      const std::string& path, const SourceLocation& location,
                                      bool root, std::string scope) const {
        auto params = std::make_shared<Params>(schema.kind, schema.name, path, location);
        if (map != nullptr)
            check_keys(*map, schema, path, root);
        // NOTE: the problem is resolved first: it decides which problem-scoped components exist.
        std::vector<const ParamSpec*> order;
        for (const ParamSpec& spec : schema.params)
            if (spec.type == ParamType::component && spec.component_kind == "problem")
                order.push_back(&spec);
        for (const ParamSpec& spec : schema.params)
            if (!(spec.type == ParamType::component && spec.component_kind == "problem"))
                order.push_back(&spec);

        for (const ParamSpec* spec : order) {
            const std::string key_path = join_path(path, spec->name);
            const ConfigNode* given = map != nullptr ? map->find(spec->name) : nullptr;
            ParamValue value;
            SourceLocation value_location;
            std::optional<ConfigNode> fallback;
            const ConfigNode* source = given; // the node the value was read from
            if (given != nullptr && given->type != ConfigNode::Type::null) {
                value = value_of(*given, *spec, key_path, scope);
                value_location = given->location;
            } else if (spec->required) {
                if (given != nullptr)
                    fail(given->location, key_path, "required key has no value");
                fail(location, key_path, "required key missing");
            } else if (!spec->default_yaml.empty()) {
                fallback = parse_default(*spec, schema, key_path);
                source = &*fallback;
                value = value_of(*fallback, *spec, key_path, scope);
                value_location = kDefaultLocation;
            } else {
                continue; // optional without value
            }
            if (spec->type == ParamType::component && spec->component_kind == "problem")
                scope = std::get<std::shared_ptr<const Params>>(value)->name();
            params->set(spec->name, std::move(value), value_location);
            // An integer given as `auto` (read as 0) is remembered as such.
            if (spec->allows_auto && source->type == ConfigNode::Type::scalar &&
                source->scalar == "auto")
                params->set_auto(spec->name);
        }
        return params;
    }

  private:
    void check_keys(const ConfigNode& map, const ComponentSchema& schema, const std::string& path,
                    bool root) const {
        for (const ConfigEntry& entry : map.entries) {
            if (!root && entry.key == "name")
                continue;
            if (schema.find(entry.key) != nullptr)
                continue;
            std::vector<std::string> valid;
            for (const ParamSpec& spec : schema.params)
                valid.push_back(spec.name);
            const std::string owner =
                root ? std::string() : " for " + schema.kind + " '" + schema.name + "'";
            if (valid.empty())
                fail(entry.key_location, join_path(path, entry.key),
                     "unknown key '" + entry.key + "'" + owner + " (it has no parameters)");
            fail(entry.key_location, join_path(path, entry.key),
                 "unknown key '" + entry.key + "'" + owner + alternatives(entry.key, valid));
        }
    }

    ConfigNode parse_default(const ParamSpec& spec, const ComponentSchema& schema,
                             const std::string& path) const {
        return detail::parse_yaml_value(spec.default_yaml, kDefaultLocation,
                                        path + ": default '" + spec.default_yaml + "' of " +
                                            schema.kind + " '" + schema.name + "'");
    }

    ParamValue value_of(const ConfigNode& node, const ParamSpec& spec, const std::string& path,
                        const std::string& scope) const {
        switch (spec.type) {
        case ParamType::integer:
            return integer_of(node, spec, path);
        case ParamType::real:
            return real_of(node, spec, path);
        case ParamType::boolean:
            if (node.type != ConfigNode::Type::scalar ||
                (node.scalar != "true" && node.scalar != "false"))
                fail(node.location, path, "expected true or false, got " + describe(node));
            return node.scalar == "true";
        case ParamType::string:
            if (node.type != ConfigNode::Type::scalar)
                fail(node.location, path, "expected a string, got " + describe(node));
            return node.scalar;
        case ParamType::choice:
            return choice_of(node, spec, path);
        case ParamType::component:
            return component_of(node, spec, path, scope);
        case ParamType::component_list: {
            std::vector<std::shared_ptr<const Params>> list;
            if (node.type != ConfigNode::Type::sequence) {
                // NOTE: a single component is accepted as a list of one.
                list.push_back(component_of(node, spec, path + "[0]", scope));
                return list;
            }
            for (std::size_t i = 0; i < node.items.size(); ++i)
                list.push_back(
                    component_of(node.items[i], spec, path + "[" + std::to_string(i) + "]", scope));
            return list;
        }
        }
        fail(node.location, path, "parameter of unknown type");
    }

    static ParamValue integer_of(const ConfigNode& node, const ParamSpec& spec,
                                 const std::string& path) {
        const std::string or_auto = spec.allows_auto ? " or auto" : "";
        if (node.type != ConfigNode::Type::scalar)
            fail(node.location, path, "expected an integer" + or_auto + ", got " + describe(node));
        const std::string& text = node.scalar;
        if (spec.allows_auto && text == "auto") return std::int64_t{0};
        const std::size_t start = !text.empty() && text[0] == '+' ? 1 : 0;
        std::int64_t value = 0;
        const char* first = text.data() + start;
        const char* last = text.data() + text.size();
        const auto result = std::from_chars(first, last, value);
        if (first == last || result.ptr != last ||
            (start == 1 && text.size() > 1 && text[1] == '-'))
            fail(node.location, path, "expected an integer" + or_auto + ", got " + describe(node));
        if (result.ec == std::errc::result_out_of_range)
            fail(node.location, path,
                 "expected an integer" + bounds_text(spec) + or_auto + ", got " + describe(node) +
                     " (out of the 64-bit range)");
        if (!in_bounds(spec, static_cast<double>(value)))
            fail(node.location, path,
                 "expected an integer" + bounds_text(spec) + or_auto + ", got " +
                     describe(node));
        return value;
    }

    static ParamValue real_of(const ConfigNode& node, const ParamSpec& spec,
                              const std::string& path) {
        if (node.type != ConfigNode::Type::scalar)
            fail(node.location, path, "expected a number, got " + describe(node));
        const std::string& text = node.scalar;
        const std::size_t start = !text.empty() && text[0] == '+' ? 1 : 0;
        double value = 0.0;
        const char* first = text.data() + start;
        const char* last = text.data() + text.size();
        const auto result = std::from_chars(first, last, value);
        if (first == last || result.ptr != last || result.ec != std::errc() ||
            !std::isfinite(value) || (start == 1 && text.size() > 1 && text[1] == '-'))
            fail(node.location, path, "expected a number, got " + describe(node));
        if (!in_bounds(spec, value))
            fail(node.location, path,
                 "expected a number" + bounds_text(spec) + ", got " + describe(node));
        return value;
    }

    static ParamValue choice_of(const ConfigNode& node, const ParamSpec& spec,
                                const std::string& path) {
        if (node.type != ConfigNode::Type::scalar)
            fail(node.location, path,
                 "expected one of " + join(spec.choices) + ", got " + describe(node));
        if (std::find(spec.choices.begin(), spec.choices.end(), node.scalar) != spec.choices.end())
            return node.scalar;
        fail(node.location, path,
             "invalid value '" + node.scalar + "'" + alternatives(node.scalar, spec.choices));
    }

    std::shared_ptr<const Params> component_of(const ConfigNode& node, const ParamSpec& spec,
                                               const std::string& path,
                                               const std::string& scope) const {
        const std::string& kind = spec.component_kind;
        std::string name;
        SourceLocation name_location = node.location;
        const ConfigNode* map = nullptr;
        if (node.type == ConfigNode::Type::scalar) {
            name = node.scalar;
        } else if (node.type == ConfigNode::Type::map) {
            map = &node;
            if (const ConfigNode* given = node.find("name"); given != nullptr) {
                if (given->type != ConfigNode::Type::scalar)
                    fail(given->location, join_path(path, "name"),
                         "expected the name of " + with_article(kind) + ", got " +
                             describe(*given));
                name = given->scalar;
                name_location = given->location;
            } else {
                name = default_name(spec);
                if (name.empty())
                    fail(node.location, path,
                         "missing 'name' of the " + kind + " (there is no default " + kind +
                             "; valid: " + join(candidates(kind, scope)) + ")");
            }
        } else {
            fail(node.location, path,
                 "expected " + with_article(kind) + " (a name or a map with 'name'), got " +
                     describe(node));
        }

        // NOTE: a problem may be registered scoped to itself; its own name is then its scope.
        const bool is_problem = kind == "problem";
        const RegistryEntry* entry = registry_.find(kind, name, is_problem ? name : scope);
        if (entry == nullptr && !is_problem) {
            if (const ComponentAlias* alias = registry_.find_alias(kind, name, scope))
                return alias_of(node, map, *alias, path, scope);
        }
        if (entry == nullptr) {
            // NOTE: the problem is named only for kinds that have problem-scoped components.
            const bool scoped = registry_.names(kind, "", true) != registry_.names(kind);
            const std::string where = scope.empty() || is_problem || !scoped
                                          ? std::string()
                                          : " for problem '" + scope + "'";
            // A problem of a plugin installed elsewhere is found through the plugin path.
            const std::string hint = is_problem ? "; a plugin in another folder is loaded with "
                                                  "--plugin-path DIR or LOCUS_PLUGIN_PATH"
                                                : "";
            const std::string& unloaded = registry_.unloaded();
            fail(name_location, path,
                 "unknown " + kind + " '" + name + "'" + where +
                     alternatives(name, candidates(kind, scope)) + hint +
                     (unloaded.empty() ? "" : "; " + unloaded));
        }
        auto params =
            params_of(map, entry->schema, path, node.location, false, is_problem ? name : scope);
        // NOTE: the component's own checks of its params (params_check.hpp) run here, so that
        // every command reading a config refuses what a run would, located like the rest.
        if (const ParamsCheck* check = params_check(entry->factory))
            (*check)(*params);
        return params;
    }

    /// The params of a config that names a deprecated alias: those of the alias's target, its
    /// keys that the target does not know given to the target's nested component (which keeps
    /// the alias's path, so that messages about them read as before). A key that neither knows
    /// is refused as the alias's unknown key, with the keys it had as the alternatives.
    std::shared_ptr<const Params> alias_of(const ConfigNode& node, const ConfigNode* map,
                                           const ComponentAlias& alias, const std::string& path,
                                           const std::string& scope) const {
        const RegistryEntry* target = registry_.find(alias.kind, alias.target, scope);
        if (target == nullptr)
            fail(node.location, path,
                 alias.kind + " '" + alias.name + "' stands for " + alias.kind + " '" +
                     alias.target + "', which no loaded plugin provides");
        const ComponentSchema* nested_schema = nullptr;
        const ParamSpec* nested = nullptr;
        if (!alias.nested.empty()) {
            nested = target->schema.find(alias.nested);
            if (nested == nullptr || nested->type != ParamType::component)
                fail(node.location, path,
                     alias.kind + " '" + alias.target + "' has no component parameter '" +
                         alias.nested + "' for the keys of its alias '" + alias.name + "'");
            const RegistryEntry* inner =
                registry_.find(nested->component_kind, default_name(*nested), scope);
            if (inner == nullptr)
                fail(node.location, join_path(path, alias.nested),
                     "unknown " + nested->component_kind + " '" + default_name(*nested) +
                         "' for problem '" + scope + "'");
            nested_schema = &inner->schema;
        }
        registry_.note(alias.note());
        // The target's keys stay, the nested component's keys move, any other is refused.
        ConfigNode outer;
        outer.type = ConfigNode::Type::map;
        outer.location = node.location;
        ConfigNode inner;
        inner.type = ConfigNode::Type::map;
        inner.location = node.location;
        if (map != nullptr) {
            for (const ConfigEntry& entry : map->entries) {
                const bool own = entry.key != alias.nested && target->schema.find(entry.key);
                if (entry.key == "name" || own) {
                    outer.entries.push_back(entry);
                } else if (nested_schema != nullptr && nested_schema->find(entry.key)) {
                    inner.entries.push_back(entry);
                } else {
                    std::vector<std::string> valid;
                    for (const ParamSpec& spec : target->schema.params)
                        if (spec.name != alias.nested) valid.push_back(spec.name);
                    if (nested_schema != nullptr)
                        for (const ParamSpec& spec : nested_schema->params)
                            valid.push_back(spec.name);
                    fail(entry.key_location, join_path(path, entry.key),
                         "unknown key '" + entry.key + "' for " + alias.kind + " '" + alias.name +
                             "'" + alternatives(entry.key, valid));
                }
            }
        }
        auto params = params_of(&outer, target->schema, path, node.location, false, scope);
        if (nested_schema != nullptr) {
            auto inner_params = params_of(&inner, *nested_schema, path, node.location, false, scope);
            if (const ParamsCheck* check = params_check(registry_.find(nested->component_kind,
                                                                       default_name(*nested), scope)
                                                            ->factory))
                (*check)(*inner_params);
            params->set(alias.nested, std::shared_ptr<const Params>(std::move(inner_params)),
                        node.location);
        }
        if (const ParamsCheck* check = params_check(target->factory))
            (*check)(*params);
        return params;
    }

    std::vector<std::string> candidates(const std::string& kind, const std::string& scope) const {
        if (kind == "problem")
            return registry_.names(kind, "", true);
        return registry_.names(kind, scope);
    }

    /// The component named by a component param's default ("" when it has none).
    static std::string default_name(const ParamSpec& spec) {
        if (spec.default_yaml.empty())
            return "";
        const ConfigNode fallback = detail::parse_yaml_value(spec.default_yaml, kDefaultLocation,
                                                             "default of '" + spec.name + "'");
        if (fallback.type == ConfigNode::Type::scalar)
            return fallback.scalar;
        if (const ConfigNode* name = fallback.find("name");
            name != nullptr && name->type == ConfigNode::Type::scalar)
            return name->scalar;
        return "";
    }

    const Registry& registry_;
};

std::vector<std::string> required_keys(const ComponentSchema& schema) {
    std::vector<std::string> out;
    for (const ParamSpec& spec : schema.params)
        if (spec.required)
            out.push_back(spec.name);
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

Params compose_config(const std::string& yaml_text, const std::string& file_name,
                      const std::vector<std::string>& overrides, const Registry& registry) {
    const RegistryEntry* job = registry.find("job", "job");
    if (job == nullptr)
        throw Error("the job schema is not registered (call register_job_schema first)");

    ConfigNode root = detail::parse_config_yaml(yaml_text, file_name);
    const SourceLocation file_location{file_name, 0, 0};
    if (root.type == ConfigNode::Type::null && overrides.empty())
        fail(file_location, "",
             "the config is empty; expected a map with at least the keys " +
                 join(required_keys(job->schema)));
    if (root.type != ConfigNode::Type::map && root.type != ConfigNode::Type::null)
        fail(root.location, "",
             "expected a map of job keys (" + join(required_keys(job->schema)) +
                 ", ...) at the root of the config, got " + describe(root));
    for (const std::string& text : overrides)
        detail::apply_override(root, text);

    const Validator validator(registry);
    return *validator.params_of(&root, job->schema, "", file_location, true, "");
}

Params load_config(const std::filesystem::path& file, const std::vector<std::string>& overrides,
                   const Registry& registry) {
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec))
        throw ConfigError("cannot open config file '" + file.string() +
                          "': " + std::strerror(EISDIR));
    // NOTE: read_text_file refuses devices (/dev/zero never ends) and files over 16 MiB, the
    // largest config read; a pipe is read up to that bound.
    std::string text;
    try {
        text = read_text_file(file, "config");
    } catch (const InstanceError& e) {
        throw ConfigError(e.what());
    }
    return compose_config(text, file.string(), overrides, registry);
}

void register_job_schema(Registry& registry) {
    const auto schema_only = [](const Params& params, BuildContext&) -> std::unique_ptr<Component> {
        throw NotImplemented(params.kind() + " '" + params.name() +
                             "' is a schema only; the launcher reads its params");
    };
    if (registry.find("termination", "limits") == nullptr) {
        ComponentSchema limits;
        limits.kind = "termination";
        limits.name = "limits";
        limits.doc = "Stops the run at the first limit reached; 0 disables a limit.";
        limits
            .real("time_limit", "0", "wall-clock limit in seconds, setup included (0 = none)", 0.0)
            .integer("iterations", "0", "iteration limit of the algorithm (0 = none)", 0.0)
            .integer("evaluations", "0", "move evaluation limit (0 = none)", 0.0)
            .real("target", "",
                  "stop when the best objective is <= target (>= for a maximisation problem; "
                  "optional)")
            .real("target_gap", "",
                  "stop when the gap to the best known is <= this percent "
                  "(optional)",
                  0.0)
            .integer("stagnation", "0", "iterations without improvement before stopping (0 = none)",
                     0.0)
            .boolean("stop_at_optimum", "true",
                     "stop when the best-known value is reached and the best-known table marks "
                     "it optimal (a proven optimum cannot be improved)");
        registry.add(std::move(limits), schema_only);
    }
    if (registry.find("job", "job") == nullptr) {
        ComponentSchema job;
        job.kind = "job";
        job.name = "job";
        job.doc = "The root of a config: one problem instance solved by one algorithm.";
        job.component("problem", "problem", "",
                      "problem and instance, e.g. {name: tsp, instance: "
                      "tsplib/kroA100.tsp}")
            .required()
            .component("construction", "construction", "random", "builds the initial solutions")
            .component("algorithm", "algorithm", "", "the search to run")
            .required()
            .component("termination", "termination", "limits", "when to stop")
            .integer("seed", "1", "seed of every random decision of the run", 0.0)
            .choice("backend", "auto", {"auto", "cpu", "cuda"},
                    "where engines run (auto: cuda when a device is present, else cpu)")
            .integer("device", "0", "CUDA device ordinal", 0.0)
            .integer("threads", "0", "CPU threads of the CPU engines (0 = all cores)", 0.0)
            .integer("batch", "1",
                     "solutions searched together (the chains of algorithm chains); auto: the "
                     "chains that fill the CUDA device `device`, one per multiprocessor, on "
                     "either backend (64 on a machine without a device)",
                     1.0, 1048576.0)
            .or_auto()
            .integer("memory_budget", "0",
                     "device memory the engines may allocate, MiB (0 = memory_fraction of the "
                     "free memory); also bounds the CPU twin's arrays of the chains (0: no "
                     "bound)",
                     0.0, kMaxMemoryBudgetMiB)
            .real("memory_fraction", fmt::format("{}", kDefaultMemoryFraction),
                  "share of the free device memory the engines may use when memory_budget is 0",
                  0.01, 1.0)
            .string("output", "results", "directory of results.jsonl, trace.jsonl, solutions")
            .string("best_known", "\"\"",
                    "CSV of best-known objectives (\"\" = search the data path)")
            .boolean("check_moves", "false", "verify every applied move by full re-evaluation")
            .string("name", "\"\"", "label of the experiment in the results");
        registry.add(std::move(job), schema_only);
    }
}

std::string config_hash(const Params& job) {
    std::uint64_t hash = 14695981039346656037ULL;
    for (const char c : job.canonical()) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 1099511628211ULL;
    }
    char buffer[17];
    std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(hash));
    return buffer;
}

} // namespace locus
