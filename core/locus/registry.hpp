#pragma once
/// \file
/// The component registry: schemas and factories by (kind, name, problem).

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <tuple>
#include <vector>

#include "locus/component.hpp"
#include "locus/error.hpp"
#include "locus/params.hpp"

namespace locus {

/// Builds a component from validated params.
using Factory = std::function<std::unique_ptr<Component>(const Params&, BuildContext&)>;

/// A registered component.
struct RegistryEntry {
    ComponentSchema schema;
    Factory factory;
    std::string plugin; ///< file of the plugin that registered it ("" = built in)
};

/// A deprecated name of a component: configs that name it compose as `target` (of the same
/// kind), and its keys that the target's schema does not know go into the target's component
/// parameter `nested` (which then takes its default name), so that an old flat config of a
/// component that became a target with a nested part still validates and runs the same.
struct ComponentAlias {
    std::string kind;    ///< kind of the alias and its target, e.g. "algorithm"
    std::string name;    ///< the deprecated name, e.g. "resident_ils"
    std::string problem; ///< problem the alias is scoped to ("" = every problem)
    std::string target;  ///< name of the component it stands for, e.g. "chains"
    std::string nested;  ///< the target's component param of the other keys ("" = none)
    std::string plugin = {}; ///< file of the plugin that registered it ("" = built in)

    /// The deprecation note of a config that names the alias: "algorithm 'resident_ils' is
    /// deprecated; use {name: chains, policy: {...}} (...)".
    std::string note() const;
};

/// Components by kind and name. Problem-scoped components (schema.problem non-empty) are only
/// visible for that problem; a problem-scoped entry shadows a generic one of the same name.
class Registry {
public:
    Registry() = default;
    /// A registry whose entries added without a plugin name belong to `owner` (the plugin
    /// file that registers into it), so that its messages name the plugin.
    explicit Registry(std::string owner) : owner_(std::move(owner)) {}

    /// Registers a component. Throws PluginError if (kind, name, problem) is already taken or
    /// a parameter's default is not a value of its own type and range.
    void add(ComponentSchema schema, Factory factory, std::string plugin = {});

    /// The entry for (kind, name) visible for `problem`, or null.
    const RegistryEntry* find(const std::string& kind, const std::string& name,
                              const std::string& problem = {}) const;

    /// Names of the components of `kind` visible for `problem` (all problems when empty and
    /// `all_problems` is true), sorted.
    std::vector<std::string> names(const std::string& kind, const std::string& problem = {},
                                   bool all_problems = false) const;

    /// All entries, ordered by kind, problem, name.
    std::vector<const RegistryEntry*> entries() const;

    /// Registers a deprecated name (ComponentAlias). Throws PluginError if the name is already
    /// taken by a component or an alias of the same kind and scope.
    void add_alias(ComponentAlias alias, std::string plugin = {});

    /// The alias (kind, name) visible for `problem`, or null (a scoped alias shadows a generic
    /// one, as components do). Components are looked up first: an alias never shadows one.
    const ComponentAlias* find_alias(const std::string& kind, const std::string& name,
                                     const std::string& problem = {}) const;

    /// All aliases, ordered by kind, problem, name.
    std::vector<const ComponentAlias*> aliases() const;

    /// Where notes of config composition go (e.g. the deprecation of an alias): `sink` is called
    /// once per distinct note for the life of the registry. Without a sink notes are dropped.
    void set_note_sink(std::function<void(const std::string&)> sink) { note_sink_ = std::move(sink); }

    /// Passes `text` to the note sink unless the same note was passed before.
    void note(const std::string& text) const;

    /// What was found on the plugin path but not loaded (e.g. plugins of another build), said
    /// at the end of every "unknown <kind> 'name'" error of config composition; "" for nothing.
    void set_unloaded(std::string text) { unloaded_ = std::move(text); }
    const std::string& unloaded() const { return unloaded_; }

    /// Creates the component described by `params` (kind and name from the params) and checks
    /// it has type T (T::kind must equal params.kind()).
    template <class T> std::unique_ptr<T> create(const Params& params, BuildContext& ctx) const {
        if (params.kind() != T::kind)
            throw ConfigError(params.path() + ": expected a component of kind '" +
                              std::string(T::kind) + "', got '" + params.kind() + "'");
        return std::unique_ptr<T>(static_cast<T*>(create_component(params, ctx).release()));
    }

    std::unique_ptr<Component> create_component(const Params& params, BuildContext& ctx) const;

private:
    std::map<std::tuple<std::string, std::string, std::string>, RegistryEntry> entries_;
    std::map<std::tuple<std::string, std::string, std::string>, ComponentAlias> aliases_;
    std::string owner_;
    std::function<void(const std::string&)> note_sink_;
    mutable std::set<std::string> noted_;
    std::string unloaded_;
};

/// Closest candidate to `word` by edit distance, or "" if none is reasonably close.
std::string closest_name(const std::string& word, const std::vector<std::string>& candidates);

} // namespace locus
