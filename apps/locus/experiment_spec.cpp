// The experiment spec expanded into runs, and its shards (see experiment_spec.hpp).

#include "experiment_spec.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include "launcher.hpp"
#include "locus/config.hpp"
#include "locus/data_path.hpp"
#include "locus/error.hpp"
#include "locus/registry.hpp"
#include "locus/text.hpp"
#include "spec_keys.hpp"

namespace locus::app {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> as_strings(const YAML::Node& node, const std::string& what) {
    std::vector<std::string> out;
    if (!node) return out;
    if (node.IsScalar()) return {node.as<std::string>()};
    if (!node.IsSequence()) throw ConfigError(fmt::format("{}: expected a list", what));
    for (const auto& item : node)
        out.push_back(item.as<std::string>());
    return out;
}

/// A generator spec (no file), such as "random-uniform:n=150".
bool is_generator_spec(const std::string& instance) {
    return instance.find(':') != std::string::npos && !fs::exists(instance);
}

/// Instances of one entry: a path or generator spec as given, or a glob over the file name
/// (`*` and `?`) of a directory found through the data path.
std::vector<std::string> expand_instance(const std::string& entry) {
    if (entry.find_first_of("*?") == std::string::npos) {
        if (is_generator_spec(entry)) return {entry};
        resolve_data_file(entry, "instance file"); // throws naming where it looked
        return {entry};
    }
    const fs::path pattern(entry);
    const std::string dir = pattern.parent_path().string();
    const std::string glob = pattern.filename().string();
    std::function<bool(std::size_t, std::size_t, const std::string&)> match =
        [&](std::size_t g, std::size_t t, const std::string& text) -> bool {
        if (g == glob.size()) return t == text.size();
        if (glob[g] == '*')
            return match(g + 1, t, text) || (t < text.size() && match(g, t + 1, text));
        return t < text.size() && (glob[g] == '?' || glob[g] == text[t]) &&
               match(g + 1, t + 1, text);
    };
    std::vector<fs::path> roots{dir.empty() ? fs::path(".") : fs::path(dir)};
    for (const fs::path& data : data_directories())
        roots.push_back(data / dir);
    for (const fs::path& root : roots) {
        if (!fs::is_directory(root)) continue;
        std::vector<std::string> found;
        for (const auto& file : fs::directory_iterator(root))
            if (file.is_regular_file() && match(0, 0, file.path().filename().string()))
                found.push_back((fs::path(dir) / file.path().filename()).string());
        if (found.empty()) continue;
        std::sort(found.begin(), found.end());
        return found;
    }
    throw ConfigError(fmt::format("instances: '{}' matches no file", entry));
}

/// A peer solver: its name and the locus problems whose instances it solves
/// (scripts/peers/locus_peer.py says what it models of them).
struct PeerInfo {
    const char* name;
    std::vector<std::string> problems; ///< problem plugin names, e.g. "tsp"
};

const std::vector<PeerInfo>& peer_table() {
    static const std::vector<PeerInfo> table{
        {"lkh3", {"tsp"}}, {"hgs", {"dcvrp"}}, {"pyvrp", {"dcvrp"}}, {"ortools", {"tsp", "dcvrp"}}};
    return table;
}

/// The problem whose plugin reads instance files of the extension of `instance` (its schema's
/// file_extensions, as `locus verify` tells the problem of a file); "" when none does.
std::string problem_of_file(const Registry& registry, const std::string& instance) {
    const std::string ext = fs::path(instance).extension().string();
    for (const RegistryEntry* entry : registry.entries())
        if (entry->schema.kind == "problem" &&
            std::ranges::find(entry->schema.file_extensions, ext) !=
                entry->schema.file_extensions.end())
            return entry->schema.name;
    return "";
}

/// "tsp (.tsp files)" and the like, the extensions as the problem plugins register them, for
/// messages.
std::string problems_text(const Registry& registry, const std::vector<std::string>& problems) {
    std::vector<std::string> words;
    for (const std::string& name : problems) {
        const RegistryEntry* entry = registry.find("problem", name);
        if (entry == nullptr || entry->schema.file_extensions.empty()) {
            words.push_back(name + " (its plugin is not loaded)");
            continue;
        }
        words.push_back(
            fmt::format("{} ({} files)", name, fmt::join(entry->schema.file_extensions, ", ")));
    }
    return fmt::format("{}", fmt::join(words, " and "));
}

/// The spec's YAML document: a map. ConfigError naming `file` when it cannot be read or parsed.
YAML::Node read_spec(const fs::path& file, std::string& text) {
    if (!fs::exists(file))
        throw ConfigError(fmt::format("experiment spec '{}' not found", file.string()));
    try {
        text = read_text_file(file, "experiment spec"); // 16 MiB at most, not a device
    } catch (const InstanceError& e) {
        throw ConfigError(e.what());
    }
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::DeepRecursion& e) {
        throw ConfigError(
            fmt::format("{}: the YAML document nests deeper than {} levels at line {}",
                        file.string(), kMaxYamlDepth, e.mark.line + 1));
    } catch (const YAML::Exception& e) {
        throw ConfigError(fmt::format("{}: {}", file.string(), e.what()));
    }
    check_yaml_size(root, file.string());
    if (!root.IsMap())
        throw ConfigError(fmt::format("{}: expected a map of experiment keys (configs, instances, "
                                      "seeds, ...) at the root of the spec",
                                      file.string()));
    return root;
}

/// One config of the spec with the overrides of one point of its grid.
struct Variant {
    std::string label, file;
    std::vector<std::string> overrides;
    std::vector<std::string> instances; ///< its own instances (empty: the spec's)
};

/// The variants of one `configs` item: file, label, set (overrides), instances and grid (key:
/// [values], one label per combination).
std::vector<Variant> config_variants(const YAML::Node& item, const fs::path& file) {
    Variant base;
    base.file = item.IsScalar() ? item.as<std::string>() : item["file"].as<std::string>("");
    if (base.file.empty() || !fs::exists(base.file))
        throw ConfigError(fmt::format("{}: config file '{}' not found", file.string(), base.file));
    base.label = item.IsMap() && item["label"] ? item["label"].as<std::string>()
                                               : fs::path(base.file).stem().string();
    if (item.IsMap()) base.overrides = as_strings(item["set"], "set");
    if (item.IsMap() && item["instances"]) {
        for (const std::string& entry : as_strings(item["instances"], "instances")) {
            const auto found = expand_instance(entry);
            base.instances.insert(base.instances.end(), found.begin(), found.end());
        }
        if (base.instances.empty())
            throw ConfigError(
                fmt::format("{}: config '{}': 'instances' is empty", file.string(), base.label));
    }
    std::vector<Variant> expanded{base};
    if (!(item.IsMap() && item["grid"])) return expanded;
    for (const auto& axis : item["grid"]) {
        const std::string key = axis.first.as<std::string>();
        const auto values = as_strings(axis.second, "grid." + key);
        if (values.empty())
            throw ConfigError(fmt::format("{}: grid '{}' has no values", file.string(), key));
        std::vector<Variant> next;
        for (const Variant& v : expanded)
            for (const std::string& value : values) {
                Variant w = v;
                w.label += fmt::format(",{}={}", key, value);
                w.overrides.push_back(key + "=" + value);
                next.push_back(w);
            }
        expanded = next;
    }
    return expanded;
}

/// The spec's backends (default cpu), each checked.
std::vector<std::string> spec_backends(const YAML::Node& root, const fs::path& file) {
    std::vector<std::string> backends = as_strings(root["backends"], "backends");
    if (backends.empty()) backends = {"cpu"};
    for (const auto& b : backends)
        if (b != "cpu" && b != "cuda" && b != "auto")
            throw ConfigError(fmt::format("{}: backend '{}'{} (valid: cpu, cuda, auto)",
                                          file.string(), b,
                                          b == "gpu" ? "; did you mean 'cuda'?" : ""));
    return backends;
}

/// Appends the runs of the spec's peers to `spec`: name, label (default: the name) and set
/// (KEY=VALUE options of the peer), each on every instance and seed, on the CPU with one
/// thread. The problem of an instance file is the one whose plugin reads its extension.
void add_peer_runs(Spec& spec, const YAML::Node& peers, const std::vector<std::string>& instances,
                   const std::vector<long long>& seeds, const fs::path& file,
                   const std::vector<fs::path>& plugin_paths) {
    if (!(spec.time_limit > 0))
        throw ConfigError(fmt::format("{}: peers need the spec's 'time_limit' (seconds per run, "
                                      "the same for the configs)",
                                      file.string()));
    Registry registry;
    load_plugins(plugin_paths, registry);
    for (const auto& item : peers) {
        const std::string name =
            item.IsScalar() ? item.as<std::string>() : item["name"].as<std::string>("");
        const auto info = std::find_if(peer_table().begin(), peer_table().end(),
                                       [&](const PeerInfo& p) { return name == p.name; });
        if (info == peer_table().end()) {
            std::vector<std::string> names;
            for (const PeerInfo& p : peer_table())
                names.emplace_back(p.name);
            throw ConfigError(fmt::format("{}: unknown peer '{}' (valid: {})", file.string(), name,
                                          fmt::join(names, ", ")));
        }
        const std::string label =
            item.IsMap() && item["label"] ? item["label"].as<std::string>() : name;
        const std::vector<std::string> options =
            item.IsMap() ? as_strings(item["set"], "set") : std::vector<std::string>{};
        for (const std::string& instance : instances) {
            if (is_generator_spec(instance))
                throw ConfigError(fmt::format(
                    "{}: peer '{}' cannot run on '{}': peers read instance files and a generated "
                    "instance has none (write it to a file and list the file)",
                    file.string(), name, instance));
            const std::string problem = problem_of_file(registry, instance);
            if (std::ranges::find(info->problems, problem) == info->problems.end())
                throw ConfigError(fmt::format("{}: peer '{}' solves {} only, not '{}'",
                                              file.string(), name,
                                              problems_text(registry, info->problems), instance));
            for (const long long seed : seeds)
                spec.runs.push_back({label, "peer:" + name, options, instance, seed, "cpu", name});
        }
    }
}

} // namespace

std::string Run::key() const { return fmt::format("{}|{}|{}|{}", label, instance, seed, backend); }

std::string Run::dir_name() const {
    std::string name =
        fmt::format("{}-{}-s{}-{}", label, fs::path(instance).filename().string(), seed, backend);
    for (char& c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
            c = '_';
    if (name.size() > 80) name.resize(80);
    return fmt::format("{}-{:012x}", name, fnv1a(key()) & 0xFFFFFFFFFFFFull);
}

Spec load_spec(const fs::path& file, const std::vector<fs::path>& plugin_paths) {
    std::string text;
    const YAML::Node root = read_spec(file, text);
    const SpecKeys scalars = spec_keys(text, root, file);
    Spec spec;
    spec.name = scalars.name.empty() ? file.stem().string() : scalars.name;
    spec.time_limit = scalars.time_limit;
    const bool has_peers = root["peers"] && root["peers"].IsSequence() && root["peers"].size() > 0;
    if (root["peers"] && !root["peers"].IsSequence())
        throw ConfigError(fmt::format("{}: 'peers' must be a list", file.string()));
    if (root["configs"] && !root["configs"].IsSequence())
        throw ConfigError(fmt::format("{}: 'configs' must be a list", file.string()));
    if (!has_peers && (!root["configs"] || root["configs"].size() == 0))
        throw ConfigError(fmt::format("{}: 'configs' must list at least one config (or 'peers' "
                                      "a peer)",
                                      file.string()));

    std::vector<Variant> variants;
    if (root["configs"])
        for (const auto& item : root["configs"]) {
            const std::vector<Variant> expanded = config_variants(item, file);
            variants.insert(variants.end(), expanded.begin(), expanded.end());
        }
    std::vector<std::string> instances;
    for (const std::string& entry : as_strings(root["instances"], "instances")) {
        const auto found = expand_instance(entry);
        instances.insert(instances.end(), found.begin(), found.end());
    }
    const bool spec_instances_used =
        has_peers || std::any_of(variants.begin(), variants.end(),
                                 [](const Variant& v) { return v.instances.empty(); });
    if (instances.empty() && spec_instances_used)
        throw ConfigError(fmt::format("{}: 'instances' is empty", file.string()));

    const std::vector<std::string> backends = spec_backends(root, file);
    for (const Variant& v : variants)
        for (const std::string& instance : v.instances.empty() ? instances : v.instances)
            for (const long long seed : scalars.seeds)
                for (const std::string& backend : backends)
                    spec.runs.push_back(
                        {v.label, v.file, v.overrides, instance, seed, backend, ""});
    if (has_peers) add_peer_runs(spec, root["peers"], instances, scalars.seeds, file, plugin_paths);

    std::set<std::string> keys;
    for (const Run& r : spec.runs)
        if (!keys.insert(r.key()).second)
            throw ConfigError(fmt::format("{}: run '{}' appears twice (give the configs and "
                                          "peers distinct labels)",
                                          file.string(), r.key()));
    return spec;
}

std::string spec_fingerprint(const Spec& spec) {
    std::string all = spec.name;
    for (const Run& r : spec.runs)
        all += "\n" + r.key() + "\t" + r.config;
    return fmt::format("{:016x}", std::hash<std::string>{}(all));
}

std::pair<std::size_t, std::size_t> parse_shard(const std::string& shard) {
    if (shard.empty()) return {1, 1};
    std::size_t i = 0, n = 0;
    char slash = 0;
    std::istringstream in(shard);
    if (!(in >> i >> slash >> n) || slash != '/' || !in.eof() || n == 0 || i == 0 || i > n)
        throw ConfigError(fmt::format("--shard '{}': expected i/N with 1 <= i <= N", shard));
    if (n > kMaxShards)
        throw ConfigError(fmt::format("--shard '{}': at most {} shards", shard, kMaxShards));
    return {i, n};
}

std::vector<Run> shard_of(const std::vector<Run>& runs, const std::string& shard) {
    if (shard.empty()) return runs;
    const auto [i, n] = parse_shard(shard);
    std::vector<Run> out;
    for (std::size_t k = 0; k < runs.size(); ++k)
        if (k % n == i - 1) out.push_back(runs[k]);
    return out;
}

} // namespace locus::app
