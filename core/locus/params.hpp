#pragma once
/// \file
/// Component schemas (typed, documented parameters) and validated parameter values.
///
/// Every component registers a ComponentSchema. Config composition (config.hpp) checks a YAML
/// tree against the schemas and produces Params: every key present, typed, in range, with
/// defaults filled in. Components then read Params without further checks.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace locus {

/// Position of a value in a config file (1-based line and column; 0 when not from a file).
struct SourceLocation {
    std::string file;
    int line = 0;
    int column = 0;
    /// "file:line:col" (or "<command line>" / "<default>" when there is no file).
    std::string str() const;
};

/// Types a parameter may have.
enum class ParamType {
    integer,       ///< 64-bit signed integer, optional [min, max]
    real,          ///< double, optional [min, max]
    boolean,       ///< true/false
    string,        ///< free text
    choice,        ///< one of `choices`
    component,     ///< a nested component of kind `component_kind` (by name or a map with `name`)
    component_list ///< a list of nested components of kind `component_kind`
};

/// One documented parameter of a component.
struct ParamSpec {
    std::string name;                 ///< key in the YAML map
    ParamType type = ParamType::integer;
    std::string doc;                  ///< one line for `locus plugins --verbose`
    std::string default_yaml;         ///< default as YAML text ("" and !required: no value)
    bool required = false;            ///< must be given by the user
    std::optional<double> min;        ///< inclusive lower bound (integer, real)
    std::optional<double> max;        ///< inclusive upper bound (integer, real)
    std::vector<std::string> choices; ///< valid values (choice)
    std::string component_kind;       ///< kind of nested components (component, component_list)
    bool allows_auto = false;         ///< integer: the word `auto` is accepted, read as 0
};

/// The schema of a component: its kind, name, documentation and parameters.
struct ComponentSchema {
    ComponentSchema() = default;
    ComponentSchema(std::string kind_, std::string name_, std::string problem_, std::string doc_)
        : kind(std::move(kind_)), name(std::move(name_)), problem(std::move(problem_)),
          doc(std::move(doc_)) {}

    std::string kind;    ///< "problem", "algorithm", "neighborhood", "construction", ...
    std::string name;    ///< name used in configs, e.g. "two_opt"
    std::string problem; ///< problem the component belongs to ("" = any problem)
    std::string doc;     ///< one-paragraph description
    std::vector<ParamSpec> params;
    std::vector<std::string> file_extensions; ///< problem kind only: instance file extensions

    // Fluent helpers used by plugins to declare parameters.
    ComponentSchema& integer(std::string name, std::string default_yaml, std::string doc,
                             std::optional<double> min = {}, std::optional<double> max = {});
    ComponentSchema& real(std::string name, std::string default_yaml, std::string doc,
                          std::optional<double> min = {}, std::optional<double> max = {});
    ComponentSchema& boolean(std::string name, std::string default_yaml, std::string doc);
    ComponentSchema& string(std::string name, std::string default_yaml, std::string doc);
    ComponentSchema& choice(std::string name, std::string default_yaml,
                            std::vector<std::string> choices, std::string doc);
    ComponentSchema& component(std::string name, std::string kind, std::string default_yaml,
                               std::string doc);
    ComponentSchema& component_list(std::string name, std::string kind, std::string default_yaml,
                                    std::string doc);
    /// Marks the most recently added parameter as required (no default).
    ComponentSchema& required();
    /// Lets the most recently added integer parameter also be `auto`, which Params hold as 0
    /// (outside its range, so a user's 0 is still refused); the component resolves it.
    ComponentSchema& or_auto();

    const ParamSpec* find(const std::string& key) const;
};

class Params;

/// A validated value.
using ParamValue = std::variant<std::monostate, std::int64_t, double, bool, std::string,
                                std::shared_ptr<const Params>,
                                std::vector<std::shared_ptr<const Params>>>;

/// Validated parameters of one component instance: name, kind, where it was configured, and one
/// value per schema parameter (defaults filled in). Accessors throw ConfigError naming the key
/// path if a key is absent or has another type (a schema/plugin mismatch, not a user error).
class Params {
public:
    Params() = default;
    Params(std::string kind, std::string name, std::string path, SourceLocation location);

    const std::string& kind() const { return kind_; }
    const std::string& name() const { return name_; }
    /// Key path in the config, e.g. "algorithm.local_search.neighborhoods[1]".
    const std::string& path() const { return path_; }
    const SourceLocation& location() const { return location_; }

    bool has(const std::string& key) const;
    std::int64_t get_int(const std::string& key) const;
    double get_real(const std::string& key) const; ///< also accepts integer values
    bool get_bool(const std::string& key) const;
    const std::string& get_string(const std::string& key) const; ///< string or choice
    const Params& get_component(const std::string& key) const;
    std::vector<std::shared_ptr<const Params>> get_components(const std::string& key) const;

    /// Sets a value (used by config composition and tests).
    void set(const std::string& key, ParamValue value, SourceLocation location = {});
    /// Marks an integer key as given as `auto` (its value reads 0; the component resolves it).
    void set_auto(const std::string& key) { automatic_.insert(key); }
    /// Whether an integer key was given as `auto`.
    bool is_auto(const std::string& key) const { return automatic_.contains(key); }
    /// Location of a key's value (falls back to the component's location).
    const SourceLocation& location_of(const std::string& key) const;
    /// All keys, sorted.
    std::vector<std::string> keys() const;
    /// Every key with its value (sorted by key; std::monostate: no value).
    const std::map<std::string, ParamValue>& values() const { return values_; }
    /// Canonical YAML-like text of the whole tree (sorted keys); used for the config hash.
    std::string canonical() const;

private:
    const ParamValue& value(const std::string& key, const char* expected) const;

    std::string kind_;
    std::string name_;
    std::string path_;
    SourceLocation location_;
    std::map<std::string, ParamValue> values_;
    std::map<std::string, SourceLocation> locations_;
    std::set<std::string> automatic_; ///< integer keys given as `auto`
};

} // namespace locus
