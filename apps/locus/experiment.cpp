// `locus experiment SPEC --out DIR`: configs x instances x seeds x backends expanded into runs,
// each run a `locus run` child process in its own directory (CPU runs on `--jobs` disjoint core
// sets, CUDA runs one per GPU), and peers x instances x seeds, each a peer solver run by
// scripts/peers/locus_peer.py in the peers' virtual environment whose solution `locus verify`
// re-checks (a CPU run of one thread); a finished run's directory is renamed
// into place, then its line appended to DIR/results.jsonl (a single write on an O_APPEND
// descriptor), so that re-running the command skips what finished and runs
// again what was interrupted, whatever stopped it. While it writes, an experiment holds a lock
// on DIR/.lock (see DirectoryLock): a second experiment that would run the same runs into DIR
// is refused at once, while the shards i/N of one N (a job array) share DIR.

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <thread>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include "launcher.hpp"
#include "locus/build_info.hpp"
#include "locus/component.hpp"
#include "locus/config.hpp"
#include "locus/data_path.hpp"
#include "locus/error.hpp"
#include "locus/gpu/device.hpp"
#include "locus/registry.hpp"
#include "locus/search_context.hpp"
#include "locus/text.hpp"

namespace locus::app {
namespace {

namespace fs = std::filesystem;

/// One run of an experiment.
struct Run {
    std::string label;                  ///< the config's label (with its grid values)
    std::string config;                 ///< config file
    std::vector<std::string> overrides; ///< --set values of the label
    std::string instance;
    long long seed = 0;
    std::string backend;
    std::string peer; ///< a peer solver's name ("" for a `locus run`)

    std::string key() const {
        return fmt::format("{}|{}|{}|{}", label, instance, seed, backend);
    }
    /// A directory name: the key's parts with odd characters replaced (at most 80 of them),
    /// then 12 hex digits of a hash of the whole key, so that two keys never share a directory
    /// (tsplib/kroA100.tsp and /tmp/x/kroA100.tsp, labels a/b and a_b used to, and the second run
    /// deleted the first one's files).
    std::string dir_name() const {
        std::string name = fmt::format("{}-{}-s{}-{}", label, fs::path(instance).filename().string(),
                                       seed, backend);
        for (char& c : name)
            if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
                c = '_';
        if (name.size() > 80) name.resize(80);
        return fmt::format("{}-{:012x}", name, fnv1a(key()) & 0xFFFFFFFFFFFFull);
    }
};

struct Spec {
    std::string name;
    std::vector<Run> runs;
    double time_limit = 0.0;
};

std::vector<std::string> as_strings(const YAML::Node& node, const std::string& what) {
    std::vector<std::string> out;
    if (!node) return out;
    if (node.IsScalar()) return {node.as<std::string>()};
    if (!node.IsSequence()) throw ConfigError(fmt::format("{}: expected a list", what));
    for (const auto& item : node) out.push_back(item.as<std::string>());
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
    for (const fs::path& data : data_directories()) roots.push_back(data / dir);
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
    static const std::vector<PeerInfo> table{{"lkh3", {"tsp"}},
                                             {"hgs", {"dcvrp"}},
                                             {"pyvrp", {"dcvrp"}},
                                             {"ortools", {"tsp", "dcvrp"}}};
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
        words.push_back(fmt::format("{} ({} files)", name,
                                    fmt::join(entry->schema.file_extensions, ", ")));
    }
    return fmt::format("{}", fmt::join(words, " and "));
}

/// The spec's scalar keys, as the root schema (kind and name "job") of a registry of their own,
/// so that compose_config checks them as it checks a config's keys. `seed_item`: the schema of
/// one seed of a `seeds` list instead of the count.
void register_spec_schema(Registry& registry, bool seed_item) {
    ComponentSchema schema{"job", "job", "", "The scalar keys of an experiment spec."};
    schema.string("name", "", "the experiment's name (default: the spec file's name)");
    schema.real("time_limit", "0",
                "seconds per run, given to every run (0: each config's own limits); peers need it",
                0.0);
    if (seed_item)
        schema.integer("seeds", "1", "one seed of the list", 0.0);
    else
        schema.integer("seeds", "1", "seeds per config and instance: 1..N (or a list)", 1.0,
                       1000000.0);
    registry.add(schema, [](const Params&, BuildContext&) -> std::unique_ptr<Component> {
        throw NotImplemented("the experiment spec schema builds nothing");
    });
}

/// Where a yaml-cpp mark lies in `text`: the byte offset of its line and column.
std::size_t offset_of(const std::string& text, const YAML::Mark& mark) {
    std::size_t at = 0;
    for (int line = 0; line < mark.line && at < text.size(); ++line) {
        const std::size_t lf = text.find('\n', at);
        if (lf == std::string::npos) return text.size();
        at = lf + 1;
    }
    return std::min(text.size(), at + static_cast<std::size_t>(std::max(mark.column, 0)));
}

/// The end of the scalar written at `at` (quoted, or plain up to a line end, a comment or, in a
/// flow collection, a separator).
std::size_t scalar_end(const std::string& text, std::size_t at, bool flow) {
    const std::size_t n = text.size();
    if (at < n && (text[at] == '"' || text[at] == '\'')) {
        const char quote = text[at];
        for (std::size_t i = at + 1; i < n; ++i) {
            if (quote == '"' && text[i] == '\\') {
                ++i;
            } else if (text[i] == quote) {
                if (quote == '\'' && i + 1 < n && text[i + 1] == quote) {
                    ++i;
                    continue;
                }
                return i + 1;
            }
        }
        return n;
    }
    std::size_t i = at;
    for (; i < n; ++i) {
        const char c = text[i];
        if (c == '\n' || c == '\r' || (flow && (c == ',' || c == ']' || c == '}')) ||
            (c == '#' && i > at && (text[i - 1] == ' ' || text[i - 1] == '\t')))
            break;
    }
    return i;
}

/// `text` with every byte outside the ranges `keep` replaced by a space (line ends kept), so
/// that what is kept stays at its line and column.
std::string blanked(const std::string& text,
                    const std::vector<std::pair<std::size_t, std::size_t>>& keep) {
    std::string out(text.size(), ' ');
    for (std::size_t i = 0; i < text.size(); ++i)
        if (text[i] == '\n' || text[i] == '\r') out[i] = text[i];
    for (const auto& [from, to] : keep)
        for (std::size_t i = from; i < std::min(to, text.size()); ++i) out[i] = text[i];
    return out;
}

/// The spec's keys name, time_limit and seeds, checked by the config validator against the
/// spec schema (register_spec_schema): composed from `text` with the other keys' entries
/// blanked out, so that an error names the file, line and column of the value as a config
/// error does. A `seeds` list is checked seed by seed, each composed alone.
struct SpecKeys {
    std::string name;
    double time_limit = 0.0;
    std::vector<long long> seeds;
};

SpecKeys spec_keys(const std::string& text, const YAML::Node& root, const fs::path& file) {
    // The byte ranges of the root's entries, in the order they are written.
    struct Entry {
        std::string key;
        std::size_t begin, end;
        YAML::Node value;
    };
    std::vector<Entry> entries;
    for (const auto& item : root)
        entries.push_back({item.first.Scalar(), offset_of(text, item.first.Mark()), 0,
                           item.second});
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.begin < b.begin; });
    const bool flow = root.Style() == YAML::EmitterStyle::Flow;
    std::vector<std::pair<std::size_t, std::size_t>> frame; // a flow map's braces
    std::size_t end = text.size();
    if (flow) {
        const std::size_t open = offset_of(text, root.Mark());
        end = text.rfind('}');
        if (end == std::string::npos || end < open) end = text.size();
        frame = {{open, open + 1}, {end, end + 1}};
    }
    for (std::size_t k = 0; k < entries.size(); ++k)
        entries[k].end = k + 1 < entries.size() ? entries[k + 1].begin : end;

    const auto compose = [&](std::vector<std::pair<std::size_t, std::size_t>> keep,
                             bool seed_item) {
        Registry registry;
        register_spec_schema(registry, seed_item);
        keep.insert(keep.end(), frame.begin(), frame.end());
        return compose_config(blanked(text, keep), file.string(), {}, registry);
    };
    SpecKeys keys;
    std::vector<std::pair<std::size_t, std::size_t>> scalars;
    const Entry* seed_list = nullptr;
    for (const Entry& e : entries) {
        if (e.key == "seeds" && e.value.IsSequence())
            seed_list = &e;
        else if (e.key == "name" || e.key == "time_limit" || e.key == "seeds")
            scalars.push_back({e.begin, e.end});
    }
    long long count = 1;
    if (!scalars.empty()) { // NOTE: compose_config refuses an empty document
        const Params checked = compose(scalars, false);
        if (checked.has("name")) keys.name = checked.get_string("name");
        keys.time_limit = checked.get_real("time_limit");
        count = checked.get_int("seeds");
    }
    if (seed_list == nullptr) {
        for (long long s = 1; s <= count; ++s) keys.seeds.push_back(s);
        return keys;
    }
    const std::size_t colon = text.find(':', seed_list->begin);
    const bool flow_list = seed_list->value.Style() == YAML::EmitterStyle::Flow;
    for (const auto& seed : seed_list->value) {
        const std::size_t at = offset_of(text, seed.Mark());
        if (!seed.IsScalar()) {
            const SourceLocation where{file.string(), seed.Mark().line + 1,
                                       seed.Mark().column + 1};
            throw ConfigError(fmt::format("{}: seeds: expected an integer, got {}", where.str(),
                                          seed.IsMap() ? "a map" : "a list"));
        }
        const Params one = compose({{seed_list->begin, colon + 1},
                                    {at, scalar_end(text, at, flow_list)}},
                                   true);
        keys.seeds.push_back(one.get_int("seeds"));
    }
    if (keys.seeds.empty()) throw ConfigError(fmt::format("{}: 'seeds' is empty", file.string()));
    return keys;
}

/// The spec in `file`; `plugin_paths` are searched for the problem plugins, which tell the
/// problem of a peer's instance files.
Spec load_spec(const fs::path& file, const std::vector<fs::path>& plugin_paths) {
    if (!fs::exists(file))
        throw ConfigError(fmt::format("experiment spec '{}' not found", file.string()));
    std::string text;
    try {
        text = read_text_file(file, "experiment spec"); // 16 MiB at most, not a device
    } catch (const InstanceError& e) {
        throw ConfigError(e.what());
    }
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::DeepRecursion& e) {
        throw ConfigError(fmt::format("{}: the YAML document nests deeper than {} levels at line {}",
                                      file.string(), kMaxYamlDepth, e.mark.line + 1));
    } catch (const YAML::Exception& e) {
        throw ConfigError(fmt::format("{}: {}", file.string(), e.what()));
    }
    check_yaml_size(root, file.string());
    if (!root.IsMap())
        throw ConfigError(fmt::format("{}: expected a map of experiment keys (configs, instances, "
                                      "seeds, ...) at the root of the spec",
                                      file.string()));
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

    // Configs: file, label, set (overrides) and grid (key: [values], one label per combination).
    struct Variant {
        std::string label, file;
        std::vector<std::string> overrides;
        std::vector<std::string> instances; ///< its own instances (empty: the spec's)
    };
    std::vector<Variant> variants;
    const YAML::Node none(YAML::NodeType::Sequence);
    for (const auto& item : root["configs"] ? root["configs"] : none) {
        Variant base;
        base.file = item.IsScalar() ? item.as<std::string>() : item["file"].as<std::string>("");
        if (base.file.empty() || !fs::exists(base.file))
            throw ConfigError(fmt::format("{}: config file '{}' not found", file.string(),
                                          base.file));
        base.label = item.IsMap() && item["label"] ? item["label"].as<std::string>()
                                                   : fs::path(base.file).stem().string();
        if (item.IsMap()) base.overrides = as_strings(item["set"], "set");
        if (item.IsMap() && item["instances"]) {
            for (const std::string& entry : as_strings(item["instances"], "instances")) {
                const auto found = expand_instance(entry);
                base.instances.insert(base.instances.end(), found.begin(), found.end());
            }
            if (base.instances.empty())
                throw ConfigError(fmt::format("{}: config '{}': 'instances' is empty",
                                              file.string(), base.label));
        }
        std::vector<Variant> expanded{base};
        if (item.IsMap() && item["grid"]) {
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
        }
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

    const std::vector<long long>& seeds = scalars.seeds;
    std::vector<std::string> backends = as_strings(root["backends"], "backends");
    if (backends.empty()) backends = {"cpu"};
    for (const auto& b : backends)
        if (b != "cpu" && b != "cuda" && b != "auto")
            throw ConfigError(fmt::format("{}: backend '{}'{} (valid: cpu, cuda, auto)",
                                          file.string(), b,
                                          b == "gpu" ? "; did you mean 'cuda'?" : ""));

    for (const Variant& v : variants)
        for (const std::string& instance : v.instances.empty() ? instances : v.instances)
            for (const long long seed : seeds)
                for (const std::string& backend : backends)
                    spec.runs.push_back(
                        {v.label, v.file, v.overrides, instance, seed, backend, ""});

    // Peers: name, label (default: the name) and set (KEY=VALUE options of the peer), each on
    // every instance and seed, on the CPU with one thread.
    if (has_peers && !(spec.time_limit > 0))
        throw ConfigError(fmt::format("{}: peers need the spec's 'time_limit' (seconds per run, "
                                      "the same for the configs)",
                                      file.string()));
    Registry registry;
    if (has_peers) load_plugins(plugin_paths, registry);
    for (const auto& item : has_peers ? root["peers"] : none) {
        const std::string name =
            item.IsScalar() ? item.as<std::string>() : item["name"].as<std::string>("");
        const auto info = std::find_if(peer_table().begin(), peer_table().end(),
                                       [&](const PeerInfo& p) { return name == p.name; });
        if (info == peer_table().end()) {
            std::vector<std::string> names;
            for (const PeerInfo& p : peer_table()) names.emplace_back(p.name);
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
                spec.runs.push_back(
                    {label, "peer:" + name, options, instance, seed, "cpu", name});
        }
    }
    std::set<std::string> keys;
    for (const Run& r : spec.runs)
        if (!keys.insert(r.key()).second)
            throw ConfigError(fmt::format("{}: run '{}' appears twice (give the configs and "
                                          "peers distinct labels)",
                                          file.string(), r.key()));
    return spec;
}

/// The most shards of an experiment (far more than runs a directory holds).
constexpr std::size_t kMaxShards = 1000000;

/// "i/N" as {i, N} (1 <= i <= N <= kMaxShards); {1, 1} for "" (the whole experiment).
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

/// The runs of shard "i/N" (1 <= i <= N): those whose position in the expansion is i-1 mod N.
std::vector<Run> shard_of(const std::vector<Run>& runs, const std::string& shard) {
    if (shard.empty()) return runs;
    const auto [i, n] = parse_shard(shard);
    std::vector<Run> out;
    for (std::size_t k = 0; k < runs.size(); ++k)
        if (k % n == i - 1) out.push_back(runs[k]);
    return out;
}

/// DIR/results.jsonl, where it exists, must be a regular file: it is appended to and cut.
void check_results_file(const fs::path& results) {
    struct stat info {};
    if (::stat(results.c_str(), &info) == 0 && !S_ISREG(info.st_mode))
        throw Error(fmt::format("results file '{}' is not a regular file", results.string()));
}

/// The keys of the runs recorded in `results` (throws naming a corrupt line).
std::set<std::string> finished_keys(const fs::path& results) {
    std::set<std::string> keys;
    check_results_file(results);
    std::ifstream in(results, std::ios::binary);
    std::string line;
    for (std::size_t number = 1; next_results_line(in, line, results, number); ++number) {
        if (line.empty()) continue;
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(line);
        } catch (const nlohmann::json::exception&) {
            throw Error(fmt::format("{}:{}: corrupt results line (not JSON); move it away or "
                                    "repair it to go on",
                                    results.string(), number));
        }
        if (!j.contains("experiment_key") || !j["experiment_key"].is_string())
            throw Error(fmt::format("{}:{}: results line without 'experiment_key'",
                                    results.string(), number));
        keys.insert(j["experiment_key"].get<std::string>());
    }
    return keys;
}

/// Appends `line` and a newline with one write on an O_APPEND descriptor, then syncs.
void append_line(const fs::path& file, const std::string& line) {
    const std::string text = line + "\n";
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) throw Error(fmt::format("cannot append to '{}'", file.string()));
    const ssize_t written = ::write(fd, text.data(), text.size());
    ::fsync(fd);
    ::close(fd);
    if (written != static_cast<ssize_t>(text.size()))
        throw Error(fmt::format("short write to '{}'", file.string()));
}

/// Before a resume appends to `results`: a last line without its newline (a write cut short by
/// a crash or a full disk, or an edit) would have the next line glued onto it. A complete line
/// (JSON with its key) gets its newline; anything else is cut off, with a warning, so that its
/// run (not counted as finished) runs again.
void repair_torn_tail(const fs::path& results) {
    std::error_code ec;
    check_results_file(results);
    if (!fs::is_regular_file(results, ec)) return;
    const std::uintmax_t size = fs::file_size(results, ec);
    if (ec || size == 0) return;
    // NOTE: the last line only: at most kMaxResultsLineBytes and its LF before it.
    const std::uintmax_t from =
        size > kMaxResultsLineBytes + 1 ? size - kMaxResultsLineBytes - 1 : 0;
    std::string text(static_cast<std::size_t>(size - from), '\0');
    {
        std::ifstream in(results, std::ios::binary);
        in.seekg(static_cast<std::streamoff>(from));
        in.read(text.data(), static_cast<std::streamsize>(text.size()));
        text.resize(static_cast<std::size_t>(in.gcount()));
    }
    if (text.empty() || text.back() == '\n') return;
    const std::size_t lf = text.rfind('\n');
    if (lf == std::string::npos && from > 0)
        throw Error(fmt::format("{}: its last line exceeds {} bytes (the longest results line "
                                "read)",
                                results.string(), kMaxResultsLineBytes));
    const std::size_t at = lf == std::string::npos ? 0 : lf + 1;
    const std::uintmax_t begin = from + at;
    const nlohmann::json tail = nlohmann::json::parse(text.substr(at), nullptr, false);
    if (!tail.is_discarded() && tail.is_object() && tail.contains("experiment_key")) {
        append_line(results, "");
        return;
    }
    fs::resize_file(results, begin, ec);
    if (ec)
        throw Error(fmt::format("{}: cannot cut its torn last line: {}", results.string(),
                                ec.message()));
    put_line(stderr, fmt::format("locus: warning: {} ended in a torn line ({} bytes, not a "
                                 "results line): cut off; its run runs again",
                                 results.string(), text.size() - at));
}

/// The CPU's model name, as `locus run` describes a CPU run's device.
std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos)
            return line.substr(line.find(':') + 2);
    return "unknown CPU";
}

/// Runs `argv` (argv[0] an executable path) to its end; returns its exit status (kInterrupted
/// when a signal ended it) and what it wrote on stdout and stderr together.
std::pair<int, std::string> capture(const std::vector<std::string>& args) {
    int fds[2];
    if (::pipe(fds) != 0) throw Error("cannot start a child process: pipe failed");
    std::vector<std::string> copy = args;
    std::vector<char*> argv;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) throw Error("cannot start a child process: fork failed");
    if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        ::dup2(fds[1], STDOUT_FILENO);
        ::dup2(fds[1], STDERR_FILENO);
        ::close(fds[0]);
        ::close(fds[1]);
        ::execv(argv[0], argv.data());
        std::fprintf(stderr, "cannot run '%s'\n", argv[0]);
        std::_Exit(127);
    }
    ::close(fds[1]);
    std::string output;
    char buffer[4096];
    for (;;) {
        const ssize_t got = ::read(fds[0], buffer, sizeof buffer);
        if (got > 0) {
            output.append(buffer, static_cast<std::size_t>(got));
        } else if (got == 0 || errno != EINTR) {
            break;
        }
    }
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return {WIFEXITED(status) ? WEXITSTATUS(status) : kInterrupted, output};
}

/// Where the peer runs come from: the runner script and the python of the peers' virtual
/// environment.
struct PeerTools {
    fs::path runner; ///< scripts/peers/locus_peer.py
    fs::path venv;   ///< the virtual environment (scripts/peers/install creates it)
    fs::path python() const { return venv / "bin" / "python"; }
};

/// The runner is $LOCUS_PEERS_RUNNER, else scripts/peers/locus_peer.py in the first directory
/// above the launcher (a build tree inside the source tree) or above the working directory
/// that has one; the environment is $LOCUS_PEERS_VENV, else .venv-peers beside that scripts/.
PeerTools find_peer_tools() {
    PeerTools tools;
    const fs::path relative = fs::path("scripts") / "peers" / "locus_peer.py";
    fs::path root;
    if (const char* runner = std::getenv("LOCUS_PEERS_RUNNER"); runner && *runner) {
        tools.runner = fs::absolute(runner);
        root = tools.runner.parent_path().parent_path().parent_path();
    } else {
        std::error_code ec;
        const fs::path exe = fs::canonical("/proc/self/exe", ec);
        for (const fs::path& start : {exe.parent_path(), fs::current_path()}) {
            for (fs::path dir = start; !dir.empty(); dir = dir.parent_path()) {
                if (fs::exists(dir / relative)) {
                    root = dir;
                    break;
                }
                if (dir == dir.root_path()) break;
            }
            if (!root.empty()) break;
        }
        if (root.empty())
            throw Error(fmt::format("peer runs need {} of the locus source tree, found neither "
                                    "above '{}' nor above '{}'; set LOCUS_PEERS_RUNNER to it",
                                    relative.string(), exe.parent_path().string(),
                                    fs::current_path().string()));
        tools.runner = root / relative;
    }
    const char* venv = std::getenv("LOCUS_PEERS_VENV");
    tools.venv = venv && *venv ? fs::absolute(venv) : root / ".venv-peers";
    return tools;
}

/// Checks that the environment has the packages of `peers`; Error naming scripts/peers/install
/// when it or one of them is missing.
void check_peers(const PeerTools& tools, const std::set<std::string>& peers) {
    if (::access(tools.python().c_str(), X_OK) != 0)
        throw Error(fmt::format("peer runs need the peers' virtual environment, and '{}' has none "
                                "(no {}); create it with scripts/peers/install (or point "
                                "LOCUS_PEERS_VENV at one)",
                                tools.venv.string(), tools.python().string()));
    std::vector<std::string> args{tools.python().string(), tools.runner.string(), "check"};
    args.insert(args.end(), peers.begin(), peers.end());
    const auto [code, output] = capture(args);
    if (code != 0) {
        std::string text = output;
        while (!text.empty() && text.back() == '\n') text.pop_back();
        if (const auto at = text.rfind("locus_peer: error: "); at != std::string::npos)
            text = text.substr(at + 19);
        throw Error(fmt::format("the peers' environment {} is not ready: {}", tools.venv.string(),
                                text.empty() ? "its check failed" : text));
    }
}

/// Objectives are exact integers for integer problems: written as integers then (as `locus
/// run` writes them).
nlohmann::json as_number(double value) {
    if (value == static_cast<double>(static_cast<long long>(value)) && std::abs(value) < 9.0e15)
        return static_cast<long long>(value);
    return value;
}

/// Re-checks a finished peer run with `locus verify` and writes its results line to
/// `dir`/results.jsonl, as `locus run` does for its runs: objective and feasibility are those
/// of the verification, not the peer's own.
void write_peer_line(const Run& r, const fs::path& dir, const std::string& instance_file,
                     const std::vector<fs::path>& plugin_paths, const BestKnownTable& best) {
    nlohmann::json summary;
    try {
        summary = nlohmann::json::parse(read_text_file(dir / "peer.json", "peer summary"), nullptr,
                                        false);
    } catch (const InstanceError&) {
        summary = nlohmann::json(nlohmann::json::value_t::discarded);
    }
    if (summary.is_discarded() || !summary.is_object())
        throw Error(fmt::format("peer run '{}' left no summary in '{}' (see its peer.log)",
                                r.key(), (dir / "peer.json").string()));
    nlohmann::json line;
    line["problem"] = summary.value("problem", std::string());
    line["instance"] = summary.value("instance", std::string());
    line["name"] = r.peer;
    line["algorithm"] = r.peer;
    line["peer"] = r.peer;
    line["peer_version"] = summary.value("peer_version", std::string());
    line["backend"] = "cpu";
    line["device"] = fmt::format("{} (1 threads)", cpu_model());
    line["seed"] = r.seed;
    line["run"] = 0;
    line["batch"] = 1;
    line["threads"] = 1;
    line["stop_reason"] = "time_limit";
    for (const char* key : {"time_to_best_s", "total_time_s", "cpu_time_s", "load_time_s",
                            "time_limit_s", "iterations"})
        line[key] = summary.contains(key) ? summary[key] : nlohmann::json();
    line["evaluations"] = nullptr;
    std::optional<double> known;
    line["feasible"] = false;
    line["objective"] = nullptr;
    line["gap"] = nullptr;
    line["solution_file"] = nullptr;
    const nlohmann::json solution = summary.value("solution_file", nlohmann::json());
    if (!solution.is_string()) {
        line["infeasible_reason"] = fmt::format("{} found no solution", r.peer);
    } else {
        std::vector<std::string> args{"/proc/self/exe", "verify", "--instance", instance_file,
                                      "--solution", solution.get<std::string>()};
        for (const fs::path& p : plugin_paths) {
            args.push_back("--plugin-path");
            args.push_back(p.string());
        }
        const auto [code, output] = capture(args);
        std::ofstream(dir / "verify.txt") << output;
        std::string text = output.substr(0, output.find('\n'));
        line["solution_file"] = solution;
        line["verify"] = text;
        if (code == kOk && text.starts_with("feasible: objective ")) {
            // "feasible: objective V (FILE on NAME)"
            const std::string value = text.substr(20, text.find(' ', 20) - 20);
            const double objective = std::stod(value);
            const auto on = text.rfind(" on ");
            if (on != std::string::npos && text.back() == ')')
                line["instance"] = text.substr(on + 4, text.size() - on - 5);
            line["feasible"] = true;
            line["objective"] = as_number(objective);
            known = best.lookup(line["instance"].get<std::string>());
            if (known) line["gap"] = gap_percent(objective, *known);
        } else if (code == kInfeasible && text.starts_with("infeasible: ")) {
            line["infeasible_reason"] = text.substr(12);
        } else {
            throw Error(fmt::format("peer run '{}': locus verify failed (exit status {}): {}",
                                    r.key(), code, text));
        }
    }
    if (!known) known = best.lookup(line["instance"].get<std::string>());
    line["best_known"] = known ? as_number(*known) : nlohmann::json();
    line["best_known_source"] = known ? best.source().string() : "";
    line["trace_file"] = nullptr;
    line["config_file"] = r.config;
    line["config_hash"] = "";
    // What the peer said of its run, beside the verified figures: its objective (recomputed
    // from its solution) and its own cost, the integer scale of real distances, its fleet, the
    // instance's constraints and those it lacks, how it limits time and takes the seed.
    const std::pair<const char*, const char*> copied[] = {
        {"objective", "peer_objective"}, {"peer_cost", "peer_cost"},
        {"scale", "peer_scale"},         {"fleet", "peer_fleet"},
        {"rounding", "rounding"},        {"constraints", "constraints"},
        {"unsupported", "peer_unsupported"}, {"time_limit_kind", "peer_time_limit"},
        {"time_limit_clock", "peer_time_clock"},
        {"seed_use", "peer_seed"},       {"options", "peer_options"},
        {"status", "peer_status"}};
    for (const auto& [from, to] : copied)
        if (summary.contains(from)) line[to] = summary[from];
    line["peer_summary_file"] = (dir / "peer.json").string();
    line["version"] = LOCUS_VERSION;
    line["git_revision"] = LOCUS_GIT_REVISION;
    line["build_id"] = LOCUS_BUILD_ID;
    {
        const std::time_t now = std::time(nullptr);
        std::tm tm{};
        gmtime_r(&now, &tm);
        char stamp[32];
        std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
        line["timestamp"] = stamp;
    }
    std::ofstream out(dir / "results.jsonl", std::ios::app);
    out << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    if (!out) throw Error(fmt::format("cannot write '{}'", (dir / "results.jsonl").string()));
}

std::string spec_fingerprint(const Spec& spec) {
    std::string all = spec.name;
    for (const Run& r : spec.runs) all += "\n" + r.key() + "\t" + r.config;
    return fmt::format("{:016x}", std::hash<std::string>{}(all));
}

/// The `--devices` list (empty when not given); a ConfigError when it is not a list of ordinals.
std::vector<int> device_list(const ExperimentOptions& options) {
    std::vector<int> ordinals;
    if (!options.devices.empty()) {
        std::size_t at = 0;
        while (at <= options.devices.size()) {
            const std::size_t comma = std::min(options.devices.find(',', at), options.devices.size());
            const std::string item = options.devices.substr(at, comma - at);
            const bool digits = !item.empty() && item.size() <= 4 &&
                                std::all_of(item.begin(), item.end(),
                                            [](char c) { return c >= '0' && c <= '9'; });
            if (!digits)
                throw ConfigError(fmt::format("--devices {}: expected a comma-separated list of "
                                              "CUDA device ordinals, e.g. 0,1",
                                              escaped(options.devices)));
            const int ordinal = std::stoi(item);
            if (std::find(ordinals.begin(), ordinals.end(), ordinal) != ordinals.end())
                throw ConfigError(fmt::format("--devices {}: device {} is listed twice",
                                              options.devices, ordinal));
            ordinals.push_back(ordinal);
            at = comma + 1;
        }
    }
    return ordinals;
}

/// The CUDA devices an experiment's CUDA runs use, one run per device at a time: the
/// `--devices` list (`listed`, from device_list), else the first `--gpus` devices, else every
/// device. Refused with a ConfigError naming the problem when no device is present or a device
/// does not exist.
std::vector<int> device_slots(const ExperimentOptions& options, std::vector<int> listed,
                              int present) {
    std::vector<int> ordinals = std::move(listed);
    if (present == 0)
        throw ConfigError(fmt::format("the experiment has CUDA runs but no CUDA device is "
                                      "available ({}); run it on a machine with a GPU or use "
                                      "backend cpu",
                                      gpu::device_unavailable_reason()));
    if (ordinals.empty()) {
        if (options.gpus > static_cast<unsigned>(present))
            throw ConfigError(fmt::format("--gpus {}: only {} CUDA device{} present", options.gpus,
                                          present, present == 1 ? " is" : "s are"));
        const int n = options.gpus > 0 ? static_cast<int>(options.gpus) : present;
        for (int d = 0; d < n; ++d) ordinals.push_back(d);
    }
    for (int d : ordinals)
        if (d >= present)
            throw ConfigError(fmt::format("--devices {}: CUDA device {} does not exist ({} "
                                          "device{} present; CUDA_VISIBLE_DEVICES renumbers "
                                          "them from 0)",
                                          options.devices, d, present, present == 1 ? "" : "s"));
    return ordinals;
}

/// The lock of an experiment's directory, held while the experiment writes into it: POSIX
/// record locks (fcntl) on bytes of DIR/.lock, which the kernel releases however the process
/// ends and which NFS carries between the nodes of a cluster. Two experiments conflict when they
/// may run the same runs (one would delete the other's .partial directories); the shards i/N of
/// one N run disjoint runs and share the directory. So an experiment of shards of N (the whole
/// experiment is shard 1/1):
///  - holds a read lock on byte N, and finds no lock on another byte of [1, kShardByte): no
///    experiment of shards of another N writes into DIR;
///  - holds a write lock on byte kShardByte + i: no other experiment runs shard i/N.
/// The holder's pid comes from the kernel (F_GETLK). Two experiments of different N starting
/// together may both be refused (each sees the other's read lock), never both let in. Where
/// the file system has no locks, a warning says so and the experiment runs unlocked.
class DirectoryLock {
public:
    DirectoryLock(const fs::path& out, std::size_t shard, std::size_t shards) : out_(out) {
        const fs::path file = out / ".lock";
        fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        // NOTE: a directory this process cannot write into has no writer to keep out (a
        // finished experiment kept read-only is still checked: nothing left to run).
        if (fd_ < 0 && (errno == EACCES || errno == EROFS)) {
            unlocked(std::strerror(errno));
            return;
        }
        if (fd_ < 0)
            throw Error(fmt::format("cannot create '{}': {}", file.string(), std::strerror(errno)));
        const auto n = static_cast<off_t>(shards);
        if (!set(F_RDLCK, n)) return;
        // Another N: a read lock on another byte of the counts (this process's own are not
        // reported).
        for (const auto& [from, to] : {std::pair<off_t, off_t>{1, n}, {n + 1, kShardByte}}) {
            if (from >= to) continue;
            const std::optional<struct flock> other = holder(from, to - from);
            if (other)
                throw Error(fmt::format("{}, {}; only the shards i/N of one N write into one "
                                        "directory together",
                                        refusal(other->l_pid),
                                        other->l_start == 1
                                            ? std::string("without --shard")
                                            : fmt::format("with --shard i/{}", other->l_start)));
        }
        // The same shard of the same N: the same runs.
        const off_t mine = kShardByte + static_cast<off_t>(shard);
        for (int attempt = 0; attempt < 100; ++attempt) {
            if (set(F_WRLCK, mine, true) || fd_ < 0) return;
            if (const std::optional<struct flock> other = holder(mine, 1))
                throw Error(refusal(other->l_pid));
            // NOTE: the holder ended between the two calls: once more.
        }
        throw Error(fmt::format("cannot lock '{}': its holders keep changing",
                                (out_ / ".lock").string()));
    }
    ~DirectoryLock() {
        if (fd_ >= 0) ::close(fd_); // releases the locks
    }
    DirectoryLock(const DirectoryLock&) = delete;
    DirectoryLock& operator=(const DirectoryLock&) = delete;

private:
    /// Where the bytes of the shard numbers begin; [1, kShardByte) are the shard counts.
    static constexpr off_t kShardByte = off_t{1} << 40;

    /// Takes a lock of `type` on byte `at`; false when another process holds a conflicting one
    /// (`busy_ok`), or, after a warning, when the file system has no locks. Other failures throw.
    bool set(short type, off_t at, bool busy_ok = false) {
        struct flock lock {};
        lock.l_type = type;
        lock.l_whence = SEEK_SET;
        lock.l_start = at;
        lock.l_len = 1;
        while (::fcntl(fd_, F_SETLK, &lock) != 0) {
            if (errno == EINTR) continue;
            if (busy_ok && (errno == EAGAIN || errno == EACCES)) return false;
            if (errno == ENOLCK || errno == ENOSYS || errno == EOPNOTSUPP || errno == EINVAL) {
                unlocked(std::strerror(errno));
                ::close(fd_);
                fd_ = -1;
                return false;
            }
            throw Error(fmt::format("cannot lock '{}': {}", (out_ / ".lock").string(),
                                    std::strerror(errno)));
        }
        return true;
    }

    /// The warning of an experiment that runs without the lock, `why` being the reason.
    void unlocked(const char* why) const {
        put_line(stderr, fmt::format("locus: warning: cannot lock '{}' ({}): another experiment "
                                     "writing into '{}' at the same time would not be noticed",
                                     (out_ / ".lock").string(), why, out_.string()));
    }

    /// A lock another process holds on [at, at + length) that a write lock would conflict
    /// with, if any.
    std::optional<struct flock> holder(off_t at, off_t length) const {
        struct flock lock {};
        lock.l_type = F_WRLCK;
        lock.l_whence = SEEK_SET;
        lock.l_start = at;
        lock.l_len = length;
        if (::fcntl(fd_, F_GETLK, &lock) != 0 || lock.l_type == F_UNLCK) return std::nullopt;
        return lock;
    }

    /// "another experiment is writing to 'DIR' (pid N)"; a lock held from another host (NFS)
    /// has no pid of this one.
    std::string refusal(pid_t pid) const {
        return fmt::format("another experiment is writing to '{}' ({})", out_.string(),
                           pid > 0 ? fmt::format("pid {}", pid) : std::string("on another host"));
    }

    fs::path out_;
    int fd_ = -1;
};

} // namespace

int run_experiment(const ExperimentOptions& options) {
    std::vector<int> listed = device_list(options); // its syntax, before anything runs
    const Spec spec = load_spec(options.spec, options.plugin_paths);
    const std::vector<Run> runs = shard_of(spec.runs, options.shard);
    if (options.dry_run) {
        put_line(stdout, fmt::format("{} runs{}", runs.size(),
                                     options.shard.empty() ? "" : " (shard " + options.shard + ")"));
        // NOTE: "KEY -> CONFIG", one safe line each (keys hold labels and instance names).
        for (const Run& r : runs)
            put_line(stdout, r.key() + " -> " + r.config);
        return kOk;
    }
    const fs::path out = options.out;
    const fs::path results = out / "results.jsonl";
    // NOTE: the lock comes before DIR's results are read. A DIR that does not exist yet is
    // created (and locked) only once the devices are checked, so that a refused experiment
    // leaves nothing behind; then its results are read again under the lock.
    const auto [shard, shards] = parse_shard(options.shard);
    std::optional<DirectoryLock> lock;
    std::set<std::string> done;
    const auto read_done = [&] {
        repair_torn_tail(results);
        done = finished_keys(results);
    };
    if (fs::exists(out)) {
        lock.emplace(out, shard, shards);
        read_done();
    }
    std::vector<Run> pending;
    for (const Run& r : runs)
        if (!done.count(r.key())) pending.push_back(r);
    std::reverse(pending.begin(), pending.end()); // launched from the back, in spec order
    const int devices = gpu::device_count();
    std::size_t cuda_runs = 0;
    for (const Run& r : pending)
        cuda_runs +=
            (r.peer.empty() && (r.backend == "cuda" || (r.backend == "auto" && devices > 0))) ? 1
                                                                                              : 0;
    const std::vector<int> ordinals =
        cuda_runs > 0 ? device_slots(options, std::move(listed), devices) : std::vector<int>{};
    if (cuda_runs > 0) {
        std::string list;
        for (int d : ordinals)
            list += (list.empty() ? "" : ",") + std::to_string(d);
        std::fprintf(stderr, "locus: %zu CUDA runs, one at a time on each of the devices %s\n",
                     cuda_runs, list.c_str());
    }
    fs::create_directories(out / "runs");
    if (!lock) {
        lock.emplace(out, shard, shards);
        read_done();
        std::erase_if(pending, [&](const Run& r) { return done.count(r.key()) > 0; });
    }
    const fs::path stamp = out / "experiment.json";
    const std::string fingerprint = spec_fingerprint(spec);
    if (fs::exists(stamp) && !options.force) {
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(read_text_file(stamp, "experiment stamp"), nullptr, false);
        } catch (const InstanceError&) {
            j = nlohmann::json(nlohmann::json::value_t::discarded);
        }
        if (j.is_discarded() || j.value("fingerprint", "") != fingerprint)
            throw ConfigError(fmt::format("'{}' holds results of another experiment spec; use "
                                          "another --out, or --force to add to it",
                                          out.string()));
    } else {
        // NOTE: written aside and renamed, so that shards starting together (a job array) never
        // read a half-written stamp.
        const fs::path aside = out / fmt::format("experiment.json.{}", ::getpid());
        std::ofstream(aside) << nlohmann::json{{"name", spec.name},
                                               {"spec", fs::absolute(options.spec).string()},
                                               {"fingerprint", fingerprint},
                                               {"runs", spec.runs.size()}}
                                    .dump(2)
                             << "\n";
        fs::rename(aside, stamp);
    }
    std::size_t todo = 0;
    for (const Run& r : runs) todo += done.count(r.key()) ? 0 : 1;
    put_line(stderr, fmt::format("locus: experiment {}: {} runs, {} finished, {} to run", spec.name,
                                 runs.size(), runs.size() - todo, todo));
    // Peer runs: their environment is checked before anything runs.
    std::set<std::string> peers;
    for (const Run& r : runs)
        if (!r.peer.empty() && !done.count(r.key())) peers.insert(r.peer);
    const PeerTools tools = peers.empty() ? PeerTools{} : find_peer_tools();
    if (!peers.empty()) check_peers(tools, peers);
    const BestKnownTable best_known = BestKnownTable::find("");

    const auto started = std::chrono::steady_clock::now();
    // Progress is refreshed in place on a terminal only; that line is cleared before a message.
    const bool tty = ::isatty(STDERR_FILENO) != 0;
    const char* clear_line = tty ? "\r\033[K" : "";
    std::size_t ran = 0;
    std::optional<double> best_gap; // gaps can be negative (best-known values rounded)
    // Slots: `jobs` CPU slots on disjoint core sets, one slot per GPU for CUDA runs.
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const unsigned jobs = std::max(1u, std::min(options.jobs, cores));
    const unsigned per_job = std::max(1u, cores / jobs);
    std::vector<bool> cpu_busy(jobs, false), gpu_busy(ordinals.size(), false);
    struct Active {
        Run run;
        bool gpu;
        unsigned slot;
    };
    std::map<pid_t, Active> active;

    const auto finish = [&](const Run& r) {
        const fs::path final_dir = out / "runs" / r.dir_name();
        const fs::path partial = out / "runs" / (r.dir_name() + ".partial");
        if (!r.peer.empty())
            write_peer_line(r, partial,
                            fs::absolute(resolve_data_file(r.instance, "instance file")).string(),
                            options.plugin_paths, best_known);
        std::ifstream in(partial / "results.jsonl", std::ios::binary);
        std::string line;
        next_results_line(in, line, partial / "results.jsonl", 1);
        nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded())
            throw Error(fmt::format("run '{}' left no results line in '{}'", r.key(),
                                    partial.string()));
        j["experiment"] = spec.name;
        j["experiment_key"] = r.key();
        j["label"] = r.label;
        j["run_dir"] = (fs::path("runs") / r.dir_name()).string();
        // Paths the run recorded inside its directory point to where it ends up.
        std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        const std::string from = partial.string();
        const std::string to = final_dir.string();
        for (std::size_t at = text.find(from); at != std::string::npos;
             at = text.find(from, at + to.size()))
            text.replace(at, from.size(), to);
        // NOTE: the directory first: a kill before the line leaves a run that is not finished
        // (its key is missing), whose directory the next attempt replaces.
        fs::rename(partial, final_dir);
        append_line(results, text);
        ++ran;
        if (j.contains("gap") && j["gap"].is_number()) {
            const double gap = j["gap"].get<double>();
            best_gap = std::min(best_gap.value_or(gap), gap);
        }
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        const double eta = elapsed / static_cast<double>(ran) * static_cast<double>(todo - ran);
        // NOTE: on a terminal one line refreshed in place; in a log one line per finished run.
        const std::string progress =
            fmt::format("locus: {}/{} runs, ETA {:.0f} s, best gap {}", ran, todo, eta,
                        best_gap ? fmt::format("{:.3f} %", *best_gap) : std::string("-"));
        if (tty)
            std::fprintf(stderr, "\r\033[K%s", progress.c_str());
        else
            put_line(stderr, progress + " (" + r.key() + ")");
        std::fflush(stderr);
    };

    const auto launch = [&](const Run& r, bool gpu, unsigned slot) {
        const fs::path final_dir = out / "runs" / r.dir_name();
        const fs::path partial = out / "runs" / (r.dir_name() + ".partial");
        fs::remove_all(partial); // what an interrupted attempt left
        fs::remove_all(final_dir);
        std::vector<std::string> args;
        fs::path log; // a peer's output goes to its run's peer.log
        if (r.peer.empty()) {
            args = {"locus", "run", r.config, "--instance", r.instance, "--seed",
                    std::to_string(r.seed), "--backend", r.backend, "--out", partial.string(),
                    "--quiet"};
            for (const std::string& o : r.overrides) {
                args.push_back("--set");
                args.push_back(o);
            }
            if (spec.time_limit > 0) {
                args.push_back("--time-limit");
                args.push_back(fmt::format("{}", spec.time_limit));
            }
            for (const fs::path& p : options.plugin_paths) {
                args.push_back("--plugin-path");
                args.push_back(p.string());
            }
            args.push_back("--set");
            args.push_back(gpu ? fmt::format("device={}", ordinals[slot])
                               : fmt::format("threads={}", per_job));
        } else {
            fs::create_directories(partial);
            log = partial / "peer.log";
            args = {tools.python().string(),
                    tools.runner.string(),
                    "run",
                    r.peer,
                    fs::absolute(resolve_data_file(r.instance, "instance file")).string(),
                    "--time-limit",
                    fmt::format("{}", spec.time_limit),
                    "--seed",
                    std::to_string(r.seed),
                    "--out",
                    fs::absolute(partial).string()};
            for (const std::string& o : r.overrides) {
                args.push_back("--set");
                args.push_back(o);
            }
        }
        std::vector<char*> argv;
        for (std::string& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        const pid_t pid = ::fork();
        if (pid < 0) throw Error("cannot start a run: fork failed");
        if (pid == 0) {
            // The run dies with the experiment; CPU runs keep to their own cores.
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (!gpu && jobs > 1) {
                cpu_set_t set;
                CPU_ZERO(&set);
                for (unsigned c = slot * per_job; c < (slot + 1) * per_job && c < cores; ++c)
                    CPU_SET(c, &set);
                ::sched_setaffinity(0, sizeof(set), &set);
            }
            if (!log.empty()) {
                const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
                if (fd >= 0) {
                    ::dup2(fd, STDOUT_FILENO);
                    ::dup2(fd, STDERR_FILENO);
                    ::close(fd);
                }
            }
            ::execv(r.peer.empty() ? "/proc/self/exe" : argv[0], argv.data());
            std::fprintf(stderr, "locus: cannot start a run: exec failed\n");
            std::_Exit(kFailure);
        }
        active[pid] = {r, gpu, slot};
    };

    int failure = kOk;
    while (!pending.empty() || !active.empty()) {
        // Start what fits, in spec order: CUDA runs on a free GPU, the others on free cores.
        for (std::size_t k = pending.size(); failure == kOk && k-- > 0;) {
            const Run& r = pending[k];
            const bool gpu = r.backend == "cuda" || (r.backend == "auto" && devices > 0);
            std::vector<bool>& busy = gpu ? gpu_busy : cpu_busy;
            const auto free = std::find(busy.begin(), busy.end(), false);
            if (free == busy.end()) continue;
            const auto slot = static_cast<unsigned>(free - busy.begin());
            busy[slot] = true;
            launch(r, gpu, slot);
            pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(k));
        }
        if (active.empty()) break;
        int status = 0;
        pid_t pid = ::waitpid(-1, &status, 0);
        while (pid < 0 && errno == EINTR) pid = ::waitpid(-1, &status, 0);
        if (pid < 0) break;
        const auto it = active.find(pid);
        if (it == active.end()) continue;
        const Active a = it->second;
        active.erase(it);
        (a.gpu ? gpu_busy : cpu_busy)[a.slot] = false;
        const int code = WIFEXITED(status) ? WEXITSTATUS(status) : kInterrupted;
        if (code == kOk) {
            finish(a.run);
        } else if (failure == kOk) {
            failure = code;
            const std::string log =
                a.run.peer.empty()
                    ? ""
                    : fmt::format(" (its output: {})",
                                  (out / "runs" / (a.run.dir_name() + ".partial") / "peer.log")
                                      .string());
            std::fputs(clear_line, stderr);
            put_line(stderr,
                     fmt::format("locus: run '{}' {} (exit status {}){}; {}", a.run.key(),
                                 code == kInterrupted ? "was interrupted" : "failed", code, log,
                                 code == kInterrupted
                                     ? "run the same command to resume"
                                     : "the runs still going finish, nothing new starts"));
        }
    }
    if (failure != kOk) return failure == kInterrupted ? kInterrupted : kFailure;
    std::fputs(clear_line, stderr);
    put_line(stderr, fmt::format("locus: experiment {} complete: {}", spec.name, results.string()));
    return kOk;
}

} // namespace locus::app
