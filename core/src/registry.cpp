#include "locus/registry.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "locus/error.hpp"
#include "locus/problem.hpp"
#include "locus/text.hpp"

namespace locus {

namespace {

/// Throws PluginError when a parameter's default is not a value the parameter accepts: a
/// schema is checked when it is registered, not first when a job happens to use it.
void check_defaults(const ComponentSchema& schema, const std::string& plugin) {
    for (const ParamSpec& p : schema.params) {
        if (p.default_yaml.empty()) continue;
        const std::string_view text = trim(p.default_yaml);
        const auto fail = [&](const std::string& why) {
            throw PluginError(fmt::format("{}{} '{}': parameter '{}': default '{}' {}",
                                          plugin.empty() ? "" : "plugin '" + plugin + "': ",
                                          schema.kind, schema.name, p.name, p.default_yaml, why));
        };
        std::optional<double> value;
        switch (p.type) {
        case ParamType::integer:
            if (p.allows_auto && text == "auto") break;
            if (const auto v = parse_integer(text)) value = static_cast<double>(*v);
            else fail("is not an integer");
            break;
        case ParamType::real:
            value = parse_number(text);
            if (!value) fail("is not a number");
            break;
        case ParamType::boolean:
            if (text != "true" && text != "false") fail("is not true or false");
            break;
        case ParamType::choice: {
            std::string_view word = text;
            if (word.size() >= 2 && (word.front() == '"' || word.front() == '\'') &&
                word.back() == word.front())
                word = word.substr(1, word.size() - 2);
            if (std::find(p.choices.begin(), p.choices.end(), word) == p.choices.end())
                fail(fmt::format("is not one of its choices ({})", fmt::join(p.choices, ", ")));
            break;
        }
        default:
            break;
        }
        if (value && ((p.min && *value < *p.min) || (p.max && *value > *p.max)))
            fail(fmt::format("is outside its range {}..{}", p.min ? fmt::format("{}", *p.min) : "",
                             p.max ? fmt::format("{}", *p.max) : ""));
    }
}

} // namespace

void Registry::add(ComponentSchema schema, Factory factory, std::string plugin) {
    if (plugin.empty()) plugin = owner_;
    if (schema.kind.empty() || schema.name.empty())
        throw PluginError("cannot register a component without kind and name (plugin '" + plugin +
                          "')");
    check_defaults(schema, plugin);
    auto key = std::make_tuple(schema.kind, schema.name, schema.problem);
    if (const auto alias = aliases_.find(key); alias != aliases_.end())
        throw PluginError(fmt::format("{} '{}' is registered as a component{}, but {} made it an "
                                      "alias of '{}'",
                                      schema.kind, schema.name,
                                      plugin.empty() ? "" : " by '" + plugin + "'",
                                      alias->second.plugin.empty() ? std::string("the core")
                                                                   : "'" + alias->second.plugin + "'",
                                      alias->second.target));
    const auto it = entries_.find(key);
    if (it != entries_.end()) {
        const std::string scope =
            schema.problem.empty() ? std::string() : " for problem '" + schema.problem + "'";
        const std::string first =
            it->second.plugin.empty() ? std::string("built in") : "by '" + it->second.plugin + "'";
        const std::string second = plugin.empty() ? std::string("built in") : "by '" + plugin + "'";
        throw PluginError(schema.kind + " '" + schema.name + "'" + scope +
                          " is registered twice (first " + first + ", again " + second + ")");
    }
    entries_.emplace(std::move(key),
                     RegistryEntry{std::move(schema), std::move(factory), std::move(plugin)});
}

const RegistryEntry* Registry::find(const std::string& kind, const std::string& name,
                                    const std::string& problem) const {
    // NOTE: a problem-scoped entry shadows a generic one of the same name.
    if (!problem.empty()) {
        const auto it = entries_.find(std::make_tuple(kind, name, problem));
        if (it != entries_.end())
            return &it->second;
    }
    const auto it = entries_.find(std::make_tuple(kind, name, std::string()));
    return it == entries_.end() ? nullptr : &it->second;
}

std::vector<std::string> Registry::names(const std::string& kind, const std::string& problem,
                                         bool all_problems) const {
    std::set<std::string> out;
    for (const auto& [key, entry] : entries_) {
        const auto& [entry_kind, entry_name, entry_problem] = key;
        if (entry_kind != kind)
            continue;
        const bool visible =
            entry_problem.empty() || entry_problem == problem || (problem.empty() && all_problems);
        if (visible)
            out.insert(entry_name);
    }
    return {out.begin(), out.end()};
}

std::vector<const RegistryEntry*> Registry::entries() const {
    std::vector<const RegistryEntry*> out;
    out.reserve(entries_.size());
    for (const auto& entry : entries_)
        out.push_back(&entry.second);
    std::sort(out.begin(), out.end(), [](const RegistryEntry* a, const RegistryEntry* b) {
        return std::tie(a->schema.kind, a->schema.problem, a->schema.name) <
               std::tie(b->schema.kind, b->schema.problem, b->schema.name);
    });
    return out;
}

std::string ComponentAlias::note() const {
    const std::string scope = problem.empty() ? "" : " (problem '" + problem + "')";
    if (nested.empty())
        return fmt::format("{} '{}'{} is deprecated; use {{name: {}}} (same keys)", kind, name,
                           scope, target);
    return fmt::format("{} '{}'{} is deprecated; use {{name: {}, {}: {{...}}}}: its keys that "
                       "{} does not know go under {}, with the same values and results",
                       kind, name, scope, target, nested, target, nested);
}

void Registry::add_alias(ComponentAlias alias, std::string plugin) {
    if (plugin.empty()) plugin = owner_;
    alias.plugin = plugin;
    if (alias.kind.empty() || alias.name.empty() || alias.target.empty())
        throw PluginError("cannot register an alias without kind, name and target (plugin '" +
                          plugin + "')");
    auto key = std::make_tuple(alias.kind, alias.name, alias.problem);
    const std::string scope =
        alias.problem.empty() ? std::string() : " for problem '" + alias.problem + "'";
    if (entries_.count(key) != 0 || aliases_.count(key) != 0)
        throw PluginError(fmt::format("{} '{}'{} is registered twice (again as an alias of '{}'{})",
                                      alias.kind, alias.name, scope, alias.target,
                                      plugin.empty() ? "" : " by '" + plugin + "'"));
    aliases_.emplace(std::move(key), std::move(alias));
}

const ComponentAlias* Registry::find_alias(const std::string& kind, const std::string& name,
                                           const std::string& problem) const {
    if (!problem.empty()) {
        const auto it = aliases_.find(std::make_tuple(kind, name, problem));
        if (it != aliases_.end()) return &it->second;
    }
    const auto it = aliases_.find(std::make_tuple(kind, name, std::string()));
    return it == aliases_.end() ? nullptr : &it->second;
}

std::vector<const ComponentAlias*> Registry::aliases() const {
    std::vector<const ComponentAlias*> out;
    out.reserve(aliases_.size());
    for (const auto& [key, alias] : aliases_)
        out.push_back(&alias);
    std::sort(out.begin(), out.end(), [](const ComponentAlias* a, const ComponentAlias* b) {
        return std::tie(a->kind, a->problem, a->name) < std::tie(b->kind, b->problem, b->name);
    });
    return out;
}

void Registry::note(const std::string& text) const {
    if (!note_sink_ || !noted_.insert(text).second) return;
    note_sink_(text);
}

std::unique_ptr<Component> Registry::create_component(const Params& params,
                                                      BuildContext& ctx) const {
    // NOTE: while the problem itself is built there is no loaded problem yet; a problem may
    // register itself scoped to its own name, so its name is its scope.
    std::string scope;
    if (ctx.problem != nullptr)
        scope = std::string(ctx.problem->problem_name());
    else if (params.kind() == Problem::kind)
        scope = params.name();
    const RegistryEntry* entry = find(params.kind(), params.name(), scope);
    if (entry == nullptr) {
        const std::string where = scope.empty() ? std::string() : " for problem '" + scope + "'";
        throw ConfigError(params.path() + ": unknown " + params.kind() + " '" + params.name() +
                          "'" + where);
    }
    if (!entry->factory)
        throw PluginError(params.kind() + " '" + params.name() + "' has no factory");
    std::unique_ptr<Component> component = entry->factory(params, ctx);
    if (!component)
        throw PluginError(params.kind() + " '" + params.name() + "' (plugin '" + entry->plugin +
                          "') returned no object for " + params.path());
    return component;
}

namespace {

std::string lower(const std::string& s) {
    std::string out = s;
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

/// Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions).
std::size_t edit_distance(const std::string& a, const std::string& b) {
    const std::size_t n = a.size();
    const std::size_t m = b.size();
    std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1, 0));
    for (std::size_t i = 0; i <= n; ++i)
        d[i][0] = i;
    for (std::size_t j = 0; j <= m; ++j)
        d[0][j] = j;
    for (std::size_t i = 1; i <= n; ++i) {
        for (std::size_t j = 1; j <= m; ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    }
    return d[n][m];
}

} // namespace

std::string closest_name(const std::string& word, const std::vector<std::string>& candidates) {
    const std::string w = lower(word);
    const std::size_t limit = std::max<std::size_t>(2, w.size() / 3);
    std::string best;
    std::size_t best_distance = limit + 1;
    for (const std::string& candidate : candidates) {
        const std::size_t distance = edit_distance(w, lower(candidate));
        // NOTE: a candidate that needs as many edits as the word has letters is no suggestion.
        if (distance >= std::max(w.size(), candidate.size()))
            continue;
        if (distance < best_distance) {
            best_distance = distance;
            best = candidate;
        }
    }
    return best;
}

} // namespace locus
