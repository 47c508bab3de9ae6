// `locus experiment SPEC --out DIR`: configs x instances x seeds x backends expanded into runs,
// each run a `locus run` child process in its own directory (CPU runs on `--jobs` disjoint core
// sets, CUDA runs one per GPU); a finished run's directory is renamed
// into place, then its line appended to DIR/results.jsonl (a single write on an O_APPEND
// descriptor), so that re-running the command skips what finished and runs
// again what was interrupted, whatever stopped it.

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
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
#include <yaml-cpp/yaml.h>

#include "launcher.hpp"
#include "locus/data_path.hpp"
#include "locus/error.hpp"
#include "locus/gpu/device.hpp"

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

    std::string key() const {
        return fmt::format("{}|{}|{}|{}", label, instance, seed, backend);
    }
    /// A directory name: the key with path separators and odd characters replaced.
    std::string dir_name() const {
        std::string name = fmt::format("{}-{}-s{}-{}", label, fs::path(instance).filename().string(),
                                       seed, backend);
        for (char& c : name)
            if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
                c = '_';
        return name;
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

/// Instances of one entry: a path or generator spec as given, or a glob over the file name
/// (`*` and `?`) of a directory found through the data path.
std::vector<std::string> expand_instance(const std::string& entry) {
    if (entry.find_first_of("*?") == std::string::npos) {
        if (entry.find(':') != std::string::npos && !fs::exists(entry)) return {entry}; // spec
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

Spec load_spec(const fs::path& file) {
    if (!fs::exists(file))
        throw ConfigError(fmt::format("experiment spec '{}' not found", file.string()));
    YAML::Node root;
    try {
        root = YAML::LoadFile(file.string());
    } catch (const YAML::Exception& e) {
        throw ConfigError(fmt::format("{}: {}", file.string(), e.what()));
    }
    Spec spec;
    spec.name = root["name"] ? root["name"].as<std::string>() : file.stem().string();
    spec.time_limit = root["time_limit"] ? root["time_limit"].as<double>() : 0.0;
    if (!root["configs"] || !root["configs"].IsSequence() || root["configs"].size() == 0)
        throw ConfigError(fmt::format("{}: 'configs' must list at least one config", file.string()));

    // Configs: file, label, set (overrides) and grid (key: [values], one label per combination).
    struct Variant {
        std::string label, file;
        std::vector<std::string> overrides;
    };
    std::vector<Variant> variants;
    for (const auto& item : root["configs"]) {
        Variant base;
        base.file = item.IsScalar() ? item.as<std::string>() : item["file"].as<std::string>("");
        if (base.file.empty() || !fs::exists(base.file))
            throw ConfigError(fmt::format("{}: config file '{}' not found", file.string(),
                                          base.file));
        base.label = item.IsMap() && item["label"] ? item["label"].as<std::string>()
                                                   : fs::path(base.file).stem().string();
        if (item.IsMap()) base.overrides = as_strings(item["set"], "set");
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
    if (instances.empty())
        throw ConfigError(fmt::format("{}: 'instances' is empty", file.string()));

    std::vector<long long> seeds;
    if (!root["seeds"]) {
        seeds = {1};
    } else if (root["seeds"].IsScalar()) {
        const long long count = root["seeds"].as<long long>();
        if (count < 1) throw ConfigError(fmt::format("{}: seeds must be at least 1", file.string()));
        for (long long s = 1; s <= count; ++s) seeds.push_back(s);
    } else {
        for (const auto& s : root["seeds"]) seeds.push_back(s.as<long long>());
    }
    if (seeds.empty()) throw ConfigError(fmt::format("{}: 'seeds' is empty", file.string()));
    std::vector<std::string> backends = as_strings(root["backends"], "backends");
    if (backends.empty()) backends = {"cpu"};
    for (const auto& b : backends)
        if (b != "cpu" && b != "cuda" && b != "auto")
            throw ConfigError(fmt::format("{}: backend '{}' (valid: cpu, cuda, auto)",
                                          file.string(), b));

    for (const Variant& v : variants)
        for (const std::string& instance : instances)
            for (const long long seed : seeds)
                for (const std::string& backend : backends)
                    spec.runs.push_back({v.label, v.file, v.overrides, instance, seed, backend});
    std::set<std::string> keys;
    for (const Run& r : spec.runs)
        if (!keys.insert(r.key()).second)
            throw ConfigError(fmt::format("{}: run '{}' appears twice (give the configs distinct "
                                          "labels)",
                                          file.string(), r.key()));
    return spec;
}

/// The runs of shard "i/N" (1 <= i <= N): those whose position in the expansion is i-1 mod N.
std::vector<Run> shard_of(const std::vector<Run>& runs, const std::string& shard) {
    if (shard.empty()) return runs;
    std::size_t i = 0, n = 0;
    char slash = 0;
    std::istringstream in(shard);
    if (!(in >> i >> slash >> n) || slash != '/' || !in.eof() || n == 0 || i == 0 || i > n)
        throw ConfigError(fmt::format("--shard '{}': expected i/N with 1 <= i <= N", shard));
    std::vector<Run> out;
    for (std::size_t k = 0; k < runs.size(); ++k)
        if (k % n == i - 1) out.push_back(runs[k]);
    return out;
}

/// The keys of the runs recorded in `results` (throws naming a corrupt line).
std::set<std::string> finished_keys(const fs::path& results) {
    std::set<std::string> keys;
    std::ifstream in(results);
    std::string line;
    for (std::size_t number = 1; std::getline(in, line); ++number) {
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

std::string spec_fingerprint(const Spec& spec) {
    std::string all = spec.name;
    for (const Run& r : spec.runs) all += "\n" + r.key() + "\t" + r.config;
    return fmt::format("{:016x}", std::hash<std::string>{}(all));
}

} // namespace

int run_experiment(const ExperimentOptions& options) {
    const Spec spec = load_spec(options.spec);
    const std::vector<Run> runs = shard_of(spec.runs, options.shard);
    if (options.dry_run) {
        std::printf("%zu runs%s\n", runs.size(),
                    options.shard.empty() ? "" : (" (shard " + options.shard + ")").c_str());
        for (const Run& r : runs)
            std::printf("%s\t%s\n", r.key().c_str(), r.config.c_str());
        return kOk;
    }
    const fs::path out = options.out;
    fs::create_directories(out / "runs");
    const fs::path stamp = out / "experiment.json";
    const std::string fingerprint = spec_fingerprint(spec);
    if (fs::exists(stamp) && !options.force) {
        std::ifstream in(stamp);
        const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
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
    const fs::path results = out / "results.jsonl";
    const std::set<std::string> done = finished_keys(results);
    std::size_t todo = 0;
    for (const Run& r : runs) todo += done.count(r.key()) ? 0 : 1;
    std::fprintf(stderr, "locus: experiment %s: %zu runs, %zu finished, %zu to run\n",
                 spec.name.c_str(), runs.size(), runs.size() - todo, todo);

    const auto started = std::chrono::steady_clock::now();
    std::size_t ran = 0;
    double best_gap = -1.0;
    // Slots: `jobs` CPU slots on disjoint core sets, one slot per GPU for CUDA runs.
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const unsigned jobs = std::max(1u, std::min(options.jobs, cores));
    const unsigned per_job = std::max(1u, cores / jobs);
    const int devices = gpu::device_count();
    const unsigned gpus =
        options.gpus > 0 ? options.gpus : static_cast<unsigned>(std::max(devices, 1));
    std::vector<bool> cpu_busy(jobs, false), gpu_busy(gpus, false);
    struct Active {
        Run run;
        bool gpu;
        unsigned slot;
    };
    std::map<pid_t, Active> active;
    std::vector<Run> pending;
    for (const Run& r : runs)
        if (!done.count(r.key())) pending.push_back(r);
    std::reverse(pending.begin(), pending.end()); // launched from the back, in spec order

    const auto finish = [&](const Run& r) {
        const fs::path final_dir = out / "runs" / r.dir_name();
        const fs::path partial = out / "runs" / (r.dir_name() + ".partial");
        std::ifstream in(partial / "results.jsonl");
        std::string line;
        std::getline(in, line);
        nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded())
            throw Error(fmt::format("run '{}' left no results line in '{}'", r.key(),
                                    partial.string()));
        j["experiment"] = spec.name;
        j["experiment_key"] = r.key();
        j["label"] = r.label;
        j["run_dir"] = (fs::path("runs") / r.dir_name()).string();
        // Paths the run recorded inside its directory point to where it ends up.
        std::string text = j.dump();
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
        if (j.contains("gap") && j["gap"].is_number())
            best_gap = best_gap < 0 ? j["gap"].get<double>()
                                    : std::min(best_gap, j["gap"].get<double>());
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        const double eta = elapsed / static_cast<double>(ran) * static_cast<double>(todo - ran);
        std::fprintf(stderr, "\rlocus: %zu/%zu runs, ETA %.0f s, best gap %s   ", ran, todo, eta,
                     best_gap < 0 ? "-" : fmt::format("{:.3f} %", best_gap).c_str());
        std::fflush(stderr);
    };

    const auto launch = [&](const Run& r, bool gpu, unsigned slot) {
        const fs::path final_dir = out / "runs" / r.dir_name();
        const fs::path partial = out / "runs" / (r.dir_name() + ".partial");
        fs::remove_all(partial); // what an interrupted attempt left
        fs::remove_all(final_dir);
        std::vector<std::string> args{"locus", "run", r.config, "--instance", r.instance,
                                      "--seed", std::to_string(r.seed), "--backend", r.backend,
                                      "--out", partial.string(), "--quiet"};
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
        args.push_back(gpu ? fmt::format("device={}", slot) : fmt::format("threads={}", per_job));
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
            ::execv("/proc/self/exe", argv.data());
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
            std::fprintf(stderr, "\nlocus: run '%s' %s (exit status %d); %s\n",
                         a.run.key().c_str(), code == kInterrupted ? "was interrupted" : "failed",
                         code,
                         code == kInterrupted ? "run the same command to resume"
                                              : "the runs still going finish, nothing new starts");
        }
    }
    if (failure != kOk) return failure == kInterrupted ? kInterrupted : kFailure;
    std::fprintf(stderr, "\nlocus: experiment %s complete: %s\n", spec.name.c_str(),
                 results.string().c_str());
    return kOk;
}

} // namespace locus::app
