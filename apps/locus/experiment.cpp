// `locus experiment SPEC --out DIR`: configs x instances x seeds x backends expanded into runs,
// each run a `locus run` child process in its own directory (CPU runs on `--jobs` disjoint core
// sets, CUDA runs one per GPU), and peers x instances x seeds, each a peer solver run by
// scripts/peers/locus_peer.py in the peers' virtual environment whose solution `locus verify`
// re-checks (a CPU run of one thread); a finished run's directory is renamed
// into place, then its line appended to DIR/results.jsonl (a single write on an O_APPEND
// descriptor), so that re-running the command skips what finished and runs
// again what was interrupted, whatever stopped it. While it writes, an experiment holds a lock
// on DIR/.lock (see DirectoryLock): a second experiment that would run the same runs into DIR
// is refused at once, while the shards i/N of one N (a job array) share DIR. The spec and its
// runs: experiment_spec.hpp; the results file: experiment_results.hpp; peers: peer_runs.hpp.

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "directory_lock.hpp"
#include "experiment_results.hpp"
#include "experiment_spec.hpp"
#include "launcher.hpp"
#include "locus/data_path.hpp"
#include "locus/error.hpp"
#include "locus/gpu/device.hpp"
#include "locus/text.hpp"
#include "peer_runs.hpp"

namespace locus::app {
namespace {

namespace fs = std::filesystem;

/// The `--devices` list (empty when not given); a ConfigError when it is not a list of ordinals.
std::vector<int> device_list(const ExperimentOptions& options) {
    std::vector<int> ordinals;
    if (!options.devices.empty()) {
        std::size_t at = 0;
        while (at <= options.devices.size()) {
            const std::size_t comma =
                std::min(options.devices.find(',', at), options.devices.size());
            const std::string item = options.devices.substr(at, comma - at);
            const bool digits =
                !item.empty() && item.size() <= 4 &&
                std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; });
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
        for (int d = 0; d < n; ++d)
            ordinals.push_back(d);
    }
    for (int d : ordinals)
        if (d >= present)
            throw ConfigError(fmt::format("--devices {}: CUDA device {} does not exist ({} "
                                          "device{} present; CUDA_VISIBLE_DEVICES renumbers "
                                          "them from 0)",
                                          options.devices, d, present, present == 1 ? "" : "s"));
    return ordinals;
}

/// Whether run `r` takes a GPU: a `locus run` on backend cuda, or auto with a device present.
bool on_gpu(const Run& r, int devices) {
    return r.peer.empty() && (r.backend == "cuda" || (r.backend == "auto" && devices > 0));
}

/// `--dry-run`: the number of runs, then "KEY -> CONFIG" for each.
int list_runs(const std::vector<Run>& runs, const std::string& shard) {
    put_line(stdout,
             fmt::format("{} runs{}", runs.size(), shard.empty() ? "" : " (shard " + shard + ")"));
    // NOTE: "KEY -> CONFIG", one safe line each (keys hold labels and instance names).
    for (const Run& r : runs)
        put_line(stdout, r.key() + " -> " + r.config);
    return kOk;
}

/// The keys of the runs DIR/results.jsonl records, its torn last line repaired first.
std::set<std::string> read_finished(const fs::path& results) {
    repair_torn_tail(results);
    return finished_keys(results);
}

/// The runs of `runs` not in `done`, from the last to the first (launched from the back, in
/// spec order).
std::vector<Run> pending_runs(const std::vector<Run>& runs, const std::set<std::string>& done) {
    std::vector<Run> pending;
    for (const Run& r : runs)
        if (!done.count(r.key())) pending.push_back(r);
    std::reverse(pending.begin(), pending.end());
    return pending;
}

/// The CUDA devices the pending runs use (none when they have no CUDA run), said on stderr.
std::vector<int> cuda_ordinals(const ExperimentOptions& options, std::vector<int> listed,
                               const std::vector<Run>& pending, int devices) {
    const auto cuda_runs = static_cast<std::size_t>(std::count_if(
        pending.begin(), pending.end(), [&](const Run& r) { return on_gpu(r, devices); }));
    if (cuda_runs == 0) return {};
    const std::vector<int> ordinals = device_slots(options, std::move(listed), devices);
    std::string list;
    for (int d : ordinals)
        list += (list.empty() ? "" : ",") + std::to_string(d);
    std::fprintf(stderr, "locus: %zu CUDA runs, one at a time on each of the devices %s\n",
                 cuda_runs, list.c_str());
    return ordinals;
}

/// DIR/experiment.json names the spec whose results DIR holds: written by the first
/// experiment, then checked (ConfigError for another spec, unless --force).
void check_stamp(const fs::path& out, const Spec& spec, const ExperimentOptions& options) {
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
        return;
    }
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

/// The peers' tools, their environment checked before anything runs, when runs of `pending`
/// are peer runs; empty tools otherwise.
PeerTools peer_tools(const std::vector<Run>& pending) {
    std::set<std::string> peers;
    for (const Run& r : pending)
        if (!r.peer.empty()) peers.insert(r.peer);
    if (peers.empty()) return {};
    const PeerTools tools = find_peer_tools();
    check_peers(tools, peers);
    return tools;
}

/// Runs the pending runs of an experiment as child processes: CUDA runs one at a time on each
/// GPU, the others on `jobs` CPU slots of disjoint core sets; each finished run moved into
/// place and its line appended to the results, with the progress on stderr.
class RunScheduler {
public:
    RunScheduler(const ExperimentOptions& options, const Spec& spec, std::vector<int> ordinals,
                 int devices, std::size_t todo)
        : options_(options), spec_(spec), out_(options.out), ordinals_(std::move(ordinals)),
          devices_(devices), todo_(todo) {
        jobs_ = std::max(1u, std::min(options.jobs, cores_));
        per_job_ = std::max(1u, cores_ / jobs_);
        cpu_busy_.assign(jobs_, false);
        gpu_busy_.assign(ordinals_.size(), false);
    }

    /// Runs `pending` (last to run first) to the end, or until a run fails: then the runs
    /// still going finish and nothing new starts. Returns the exit status of the experiment.
    int run(std::vector<Run> pending, const PeerTools& tools) {
        tools_ = tools;
        int failure = kOk;
        while (!pending.empty() || !active_.empty()) {
            if (failure == kOk) start_what_fits(pending);
            if (active_.empty()) break;
            int status = 0;
            pid_t pid = ::waitpid(-1, &status, 0);
            while (pid < 0 && errno == EINTR)
                pid = ::waitpid(-1, &status, 0);
            if (pid < 0) break;
            const auto it = active_.find(pid);
            if (it == active_.end()) continue;
            const Active a = it->second;
            active_.erase(it);
            (a.gpu ? gpu_busy_ : cpu_busy_)[a.slot] = false;
            const int code = WIFEXITED(status) ? WEXITSTATUS(status) : kInterrupted;
            if (code == kOk) {
                finish(a.run);
            } else if (failure == kOk) {
                failure = code;
                report_failure(a.run, code);
            }
        }
        if (failure != kOk) return failure == kInterrupted ? kInterrupted : kFailure;
        std::fputs(clear_line(), stderr);
        return kOk;
    }

private:
    struct Active {
        Run run;
        bool gpu;
        unsigned slot;
    };

    fs::path run_dir(const Run& r) const { return out_ / "runs" / r.dir_name(); }
    fs::path partial_dir(const Run& r) const { return out_ / "runs" / (r.dir_name() + ".partial"); }
    /// Progress is refreshed in place on a terminal only; that line is cleared before a message.
    const char* clear_line() const { return tty_ ? "\r\033[K" : ""; }

    /// Starts what fits, in spec order: CUDA runs on a free GPU, the others on free cores.
    void start_what_fits(std::vector<Run>& pending) {
        for (std::size_t k = pending.size(); k-- > 0;) {
            const Run& r = pending[k];
            const bool gpu = on_gpu(r, devices_);
            std::vector<bool>& busy = gpu ? gpu_busy_ : cpu_busy_;
            const auto free = std::find(busy.begin(), busy.end(), false);
            if (free == busy.end()) continue;
            const auto slot = static_cast<unsigned>(free - busy.begin());
            busy[slot] = true;
            launch(r, gpu, slot);
            pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(k));
        }
    }

    /// The command line of `locus run` for `r` on GPU `slot` or CPU slot `slot`.
    std::vector<std::string> run_arguments(const Run& r, bool gpu, unsigned slot) const {
        std::vector<std::string> args = {"locus",
                                         "run",
                                         r.config,
                                         "--instance",
                                         r.instance,
                                         "--seed",
                                         std::to_string(r.seed),
                                         "--backend",
                                         r.backend,
                                         "--out",
                                         partial_dir(r).string(),
                                         "--quiet"};
        for (const std::string& o : r.overrides) {
            args.push_back("--set");
            args.push_back(o);
        }
        if (spec_.time_limit > 0) {
            args.push_back("--time-limit");
            args.push_back(fmt::format("{}", spec_.time_limit));
        }
        for (const fs::path& p : options_.plugin_paths) {
            args.push_back("--plugin-path");
            args.push_back(p.string());
        }
        args.push_back("--set");
        args.push_back(gpu ? fmt::format("device={}", ordinals_[slot])
                           : fmt::format("threads={}", per_job_));
        return args;
    }

    /// The command line of the peer runner for peer run `r`.
    std::vector<std::string> peer_arguments(const Run& r) const {
        std::vector<std::string> args = {
            tools_.python().string(),
            tools_.runner.string(),
            "run",
            r.peer,
            fs::absolute(resolve_data_file(r.instance, "instance file")).string(),
            "--time-limit",
            fmt::format("{}", spec_.time_limit),
            "--seed",
            std::to_string(r.seed),
            "--out",
            fs::absolute(partial_dir(r)).string()};
        for (const std::string& o : r.overrides) {
            args.push_back("--set");
            args.push_back(o);
        }
        return args;
    }

    /// Starts run `r` in a child process, in its .partial directory.
    void launch(const Run& r, bool gpu, unsigned slot) {
        fs::remove_all(partial_dir(r)); // what an interrupted attempt left
        fs::remove_all(run_dir(r));
        std::vector<std::string> args;
        fs::path log; // a peer's output goes to its run's peer.log
        if (r.peer.empty()) {
            args = run_arguments(r, gpu, slot);
        } else {
            fs::create_directories(partial_dir(r));
            log = partial_dir(r) / "peer.log";
            args = peer_arguments(r);
        }
        std::vector<char*> argv;
        for (std::string& a : args)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        const pid_t pid = ::fork();
        if (pid < 0) throw Error("cannot start a run: fork failed");
        if (pid == 0) {
            // The run dies with the experiment; CPU runs keep to their own cores.
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (!gpu && jobs_ > 1) {
                cpu_set_t set;
                CPU_ZERO(&set);
                for (unsigned c = slot * per_job_; c < (slot + 1) * per_job_ && c < cores_; ++c)
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
        active_[pid] = {r, gpu, slot};
    }

    /// Moves finished run `r` into place and appends its results line (the peer's written
    /// first, from its verified solution).
    void finish(const Run& r) {
        const fs::path final_dir = run_dir(r);
        const fs::path partial = partial_dir(r);
        if (!r.peer.empty())
            write_peer_line(r, partial,
                            fs::absolute(resolve_data_file(r.instance, "instance file")).string(),
                            options_.plugin_paths, best_known_);
        std::ifstream in(partial / "results.jsonl", std::ios::binary);
        std::string line;
        next_results_line(in, line, partial / "results.jsonl", 1);
        nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded())
            throw Error(
                fmt::format("run '{}' left no results line in '{}'", r.key(), partial.string()));
        j["experiment"] = spec_.name;
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
        append_line(out_ / "results.jsonl", text);
        ++ran_;
        if (j.contains("gap") && j["gap"].is_number()) {
            const double gap = j["gap"].get<double>();
            best_gap_ = std::min(best_gap_.value_or(gap), gap);
        }
        show_progress(r);
    }

    /// The progress after run `r` finished: on a terminal one line refreshed in place; in a
    /// log one line per finished run.
    void show_progress(const Run& r) const {
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
        const double eta = elapsed / static_cast<double>(ran_) * static_cast<double>(todo_ - ran_);
        const std::string progress =
            fmt::format("locus: {}/{} runs, ETA {:.0f} s, best gap {}", ran_, todo_, eta,
                        best_gap_ ? fmt::format("{:.3f} %", *best_gap_) : std::string("-"));
        if (tty_)
            std::fprintf(stderr, "\r\033[K%s", progress.c_str());
        else
            put_line(stderr, progress + " (" + r.key() + ")");
        std::fflush(stderr);
    }

    /// The message of the first run that failed or was interrupted (exit status `code`).
    void report_failure(const Run& r, int code) const {
        const std::string log =
            r.peer.empty()
                ? ""
                : fmt::format(" (its output: {})", (partial_dir(r) / "peer.log").string());
        std::fputs(clear_line(), stderr);
        put_line(stderr, fmt::format("locus: run '{}' {} (exit status {}){}; {}", r.key(),
                                     code == kInterrupted ? "was interrupted" : "failed", code, log,
                                     code == kInterrupted
                                         ? "run the same command to resume"
                                         : "the runs still going finish, nothing new starts"));
    }

    const ExperimentOptions& options_;
    const Spec& spec_;
    const fs::path out_;
    const std::vector<int> ordinals_; ///< the GPU of each GPU slot
    const int devices_;               ///< CUDA devices present
    const std::size_t todo_;          ///< runs to run, for the progress
    PeerTools tools_;
    const BestKnownTable best_known_ = BestKnownTable::find("");
    const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
    const bool tty_ = ::isatty(STDERR_FILENO) != 0;
    std::size_t ran_ = 0;
    std::optional<double> best_gap_; // gaps can be negative (best-known values rounded)
    const unsigned cores_ = std::max(1u, std::thread::hardware_concurrency());
    unsigned jobs_ = 1;    ///< CPU slots, on disjoint core sets
    unsigned per_job_ = 1; ///< cores per CPU slot
    std::vector<bool> cpu_busy_, gpu_busy_;
    std::map<pid_t, Active> active_;
};

} // namespace

int run_experiment(const ExperimentOptions& options) {
    std::vector<int> listed = device_list(options); // its syntax, before anything runs
    const Spec spec = load_spec(options.spec, options.plugin_paths);
    const std::vector<Run> runs = shard_of(spec.runs, options.shard);
    if (options.dry_run) return list_runs(runs, options.shard);
    const fs::path out = options.out;
    const fs::path results = out / "results.jsonl";
    // NOTE: the lock comes before DIR's results are read. A DIR that does not exist yet is
    // created (and locked) only once the devices are checked, so that a refused experiment
    // leaves nothing behind; then its results are read again under the lock.
    const auto [shard, shards] = parse_shard(options.shard);
    std::optional<DirectoryLock> lock;
    std::set<std::string> done;
    if (fs::exists(out)) {
        lock.emplace(out, shard, shards);
        done = read_finished(results);
    }
    std::vector<Run> pending = pending_runs(runs, done);
    const int devices = gpu::device_count();
    std::vector<int> ordinals = cuda_ordinals(options, std::move(listed), pending, devices);
    fs::create_directories(out / "runs");
    if (!lock) {
        lock.emplace(out, shard, shards);
        done = read_finished(results);
        pending = pending_runs(runs, done);
    }
    check_stamp(out, spec, options);
    const std::size_t todo = pending.size();
    put_line(stderr, fmt::format("locus: experiment {}: {} runs, {} finished, {} to run", spec.name,
                                 runs.size(), runs.size() - todo, todo));
    const PeerTools tools = peer_tools(pending);
    RunScheduler scheduler(options, spec, std::move(ordinals), devices, todo);
    const int status = scheduler.run(std::move(pending), tools);
    if (status == kOk)
        put_line(stderr,
                 fmt::format("locus: experiment {} complete: {}", spec.name, results.string()));
    return status;
}

} // namespace locus::app
