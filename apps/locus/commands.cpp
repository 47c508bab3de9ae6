// `locus plugins` and `locus verify`.

#include <map>
#include <cmath>
#include <algorithm>
#include <cstdio>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "launcher.hpp"
#include "locus/config.hpp"
#include "locus/data_path.hpp"
#include "locus/error.hpp"
#include "locus/plugin_loader.hpp"
#include "locus/problem.hpp"
#include "locus/registry.hpp"

namespace locus::app {

namespace {

std::string type_name(const ParamSpec& spec) {
    switch (spec.type) {
    case ParamType::integer:
        return spec.allows_auto ? "integer or auto" : "integer";
    case ParamType::real:
        return "real";
    case ParamType::boolean:
        return "boolean";
    case ParamType::string:
        return "string";
    case ParamType::choice:
        return fmt::format("one of {}", fmt::join(spec.choices, "|"));
    case ParamType::component:
        return spec.component_kind;
    case ParamType::component_list:
        return "list of " + spec.component_kind;
    }
    return "?";
}

std::string range_of(const ParamSpec& spec) {
    if (!spec.min && !spec.max) return "";
    return fmt::format(" in [{}, {}]", spec.min ? fmt::format("{}", *spec.min) : "-inf",
                       spec.max ? fmt::format("{}", *spec.max) : "inf");
}

} // namespace

int list_plugins(const std::vector<std::filesystem::path>& plugin_paths, bool verbose) {
    Registry registry;
    std::vector<std::string> failures;
    const auto plugins = load_plugins(plugin_paths, registry, &failures);
    std::printf("plugins (%zu):\n", plugins.size());
    for (const auto& p : plugins) {
        put_line(stdout, fmt::format("  {:<14} {}", p.name, p.description));
        put_line(stdout, fmt::format("  {:<14} {}", "", p.file.string()));
    }
    // Deprecated names follow the components of their kind, one line each.
    const auto list_aliases = [&](const std::string& of) {
        for (const ComponentAlias* alias : registry.aliases()) {
            if (alias->kind != of) continue;
            const std::string scope = alias->problem.empty() ? "" : " [" + alias->problem + "]";
            put_line(stdout, fmt::format("  {}{} (deprecated: use {}{})", alias->name, scope,
                                         alias->target,
                                         alias->nested.empty()
                                             ? ""
                                             : ", its other keys under " + alias->nested));
            if (verbose) put_line(stdout, "      " + alias->note());
        }
    };
    std::string kind;
    for (const RegistryEntry* entry : registry.entries()) {
        const ComponentSchema& s = entry->schema;
        if (s.kind == "job" || s.kind == "termination") {
            if (!verbose) continue;
        }
        if (s.kind != kind) {
            if (!kind.empty()) list_aliases(kind);
            kind = s.kind;
            std::printf("\n");
            put_line(stdout, kind + ":");
        }
        const std::string scope = s.problem.empty() ? "" : " [" + s.problem + "]";
        put_line(stdout, "  " + s.name + scope);
        if (!verbose) continue;
        put_line(stdout, "      " + s.doc);
        for (const ParamSpec& p : s.params) {
            const std::string def = p.required               ? "required"
                                    : p.default_yaml.empty() ? "optional"
                                                             : "default " + p.default_yaml;
            put_line(stdout, fmt::format("      - {} ({}{}, {}): {}", p.name, type_name(p),
                                         range_of(p), def, p.doc));
        }
    }
    if (!kind.empty()) list_aliases(kind);
    // A plugin that failed to load makes the listing incomplete: said on stderr (above) and
    // by the exit status.
    return failures.empty() ? kOk : kFailure;
}

namespace {

/// ConfigError "--param KEY=TEXT: ..." when `value` does not fit `spec` (type, range, choices).
void check_param_value(const ParamSpec& spec, const YAML::Node& value, const std::string& text) {
    const auto fail = [&](const std::string& why) {
        throw ConfigError(fmt::format("--param {}={}: {}", spec.name, text, why));
    };
    double number = 0.0;
    try {
        switch (spec.type) {
        case ParamType::integer:
            number = static_cast<double>(value.as<std::int64_t>());
            break;
        case ParamType::real:
            number = value.as<double>();
            break;
        case ParamType::boolean:
            (void)value.as<bool>();
            return;
        case ParamType::choice:
            if (std::find(spec.choices.begin(), spec.choices.end(), value.as<std::string>()) ==
                spec.choices.end())
                fail(fmt::format("expected one of {}", fmt::join(spec.choices, ", ")));
            return;
        default:
            return;
        }
    } catch (const YAML::Exception&) {
        fail(spec.type == ParamType::integer ? "expected an integer"
             : spec.type == ParamType::real  ? "expected a number"
                                              : "expected true or false");
    }
    if ((spec.min && number < *spec.min) || (spec.max && number > *spec.max))
        fail(fmt::format("expected a value in [{}, {}]", spec.min ? *spec.min : -HUGE_VAL,
                         spec.max ? *spec.max : HUGE_VAL));
}

} // namespace

std::unique_ptr<Problem> load_problem(const std::string& instance,
                                      const std::string& problem_name,
                                      const std::vector<std::filesystem::path>& plugin_paths,
                                      const std::vector<std::string>& overrides) {
    Registry registry;
    load_plugins(plugin_paths, registry);
    // A generated instance (a generator spec, not a file) needs --problem.
    std::string instance_arg = instance;
    std::filesystem::path instance_file;
    try {
        instance_file = resolve_data_file(instance, "instance file");
        instance_arg = instance_file.string();
    } catch (const InstanceError& e) {
        if (problem_name.empty())
            throw InstanceError(fmt::format("{}; a generated instance (e.g. "
                                            "random-uniform:n=1000) needs --problem",
                                            e.what()));
    }
    std::string name = problem_name;
    if (name.empty()) {
        const std::string extension = instance_file.extension().string();
        std::vector<std::string> known;
        for (const RegistryEntry* entry : registry.entries()) {
            if (entry->schema.kind != "problem") continue;
            for (const auto& ext : entry->schema.file_extensions) {
                known.push_back(ext);
                if (ext == extension) name = entry->schema.name;
            }
        }
        if (name.empty())
            throw ConfigError(
                fmt::format("cannot tell the problem of '{}' from its extension (known: {}); "
                            "pass --problem",
                            instance_file.string(), fmt::join(known, ", ")));
    }
    const RegistryEntry* entry = registry.find("problem", name);
    if (entry == nullptr) {
        const auto names = registry.names("problem");
        throw ConfigError(
            fmt::format("unknown problem '{}' (valid: {}); a plugin in another folder is loaded "
                        "with --plugin-path DIR or LOCUS_PLUGIN_PATH{}",
                        name, fmt::join(names, ", "),
                        registry.unloaded().empty() ? "" : "; " + registry.unloaded()));
    }
    Params params("problem", name, "problem", {});
    params.set("instance", instance_arg);
    // The problem's other parameters take --param values, else their documented defaults.
    std::map<std::string, std::string> given;
    for (const std::string& item : overrides) {
        const auto equals = item.find('=');
        const std::string key = item.substr(0, equals);
        const bool known = std::any_of(entry->schema.params.begin(), entry->schema.params.end(),
                                       [&](const ParamSpec& p) { return p.name == key; });
        if (equals == std::string::npos || key.empty() || key == "instance" || !known) {
            std::vector<std::string> names;
            for (const ParamSpec& spec : entry->schema.params)
                if (spec.name != "instance") names.push_back(spec.name);
            throw ConfigError(fmt::format("--param '{}': expected KEY=VALUE with KEY one of the "
                                          "{} parameters ({})",
                                          item, name, fmt::join(names, ", ")));
        }
        given[key] = item.substr(equals + 1);
    }
    for (const ParamSpec& spec : entry->schema.params) {
        if (spec.name == "instance") continue;
        const auto over = given.find(spec.name);
        if (over == given.end() && spec.default_yaml.empty()) continue;
        const YAML::Node value = YAML::Load(over != given.end() ? over->second : spec.default_yaml);
        if (over != given.end()) check_param_value(spec, value, over->second);
        switch (spec.type) {
        case ParamType::integer:
            params.set(spec.name, value.as<std::int64_t>());
            break;
        case ParamType::real:
            params.set(spec.name, value.as<double>());
            break;
        case ParamType::boolean:
            params.set(spec.name, value.as<bool>());
            break;
        case ParamType::string:
        case ParamType::choice:
            params.set(spec.name, value.as<std::string>());
            break;
        default:
            break;
        }
    }
    BuildContext build;
    build.registry = &registry;
    return registry.create<Problem>(params, build);
}

int verify_solution(const std::string& instance, const std::string& solution,
                    const std::string& problem_name,
                    const std::vector<std::filesystem::path>& plugin_paths,
                    const std::vector<std::string>& overrides) {
    const auto problem = load_problem(instance, problem_name, plugin_paths, overrides);
    const auto solution_file = resolve_data_file(solution, "solution file");
    // NOTE: readers reject files that cannot encode a solution of this instance (wrong size,
    // repeated or unknown ids); for verify that is an infeasible solution, not a failure.
    std::vector<std::int32_t> encoded;
    try {
        encoded = problem->read_solution(solution_file);
    } catch (const InstanceError& e) {
        put_line(stdout, std::string("infeasible: ") + e.what());
        return kInfeasible;
    }
    const Verdict verdict = problem->verify(encoded);
    if (!verdict.feasible) {
        put_line(stdout, "infeasible: " + verdict.message);
        return kInfeasible;
    }
    const Objective shown = user_objective(problem->objective_sense(), verdict.objective);
    put_line(stdout, fmt::format("feasible: objective {} ({} on {})", shown, solution_file.string(),
                                 problem->instance_name()));
    return kOk;
}

} // namespace locus::app
