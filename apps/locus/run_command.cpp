// `locus run` and `locus validate`.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <ctime>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "launcher.hpp"
#include "locus/algorithm.hpp"
#include "locus/config.hpp"
#include "locus/data_path.hpp"
#include "locus/error.hpp"
#include "locus/generator_spec.hpp"
#include "locus/gpu/cpu_threads.hpp"
#include "locus/gpu/device.hpp"
#include "locus/plugin_loader.hpp"
#include "locus/problem.hpp"
#include "locus/registry.hpp"
#include "locus/search_context.hpp"
#include "recorder.hpp"

namespace locus::app {

namespace {

std::atomic<long long> g_first_signal_ns{0};

long long monotonic_ns() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts); // async-signal-safe
    return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

/// A JSON value of a results line as shown in a message (strings quoted, invalid UTF-8
/// replaced).
std::string shown(const nlohmann::json& value) {
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// Set by a second signal while a recorder watches (g_watching): the watcher writes the
/// current run's results line and exits.
std::atomic<bool> g_forced{false};
std::atomic<bool> g_watching{false};

extern "C" void on_signal(int) {
    // NOTE: the first SIGINT/SIGTERM asks the search to stop and write its results. Signals in
    // the next second are the same request (timeout(1) and process groups deliver duplicates);
    // a later one means "stop now": the results line of the run is written from the latest
    // improvement by the watcher thread (Recorder::interrupted_end), and the process exits
    // without waiting for the search. Before a recorder exists, or at a third signal, it exits
    // at once.
    const long long now = monotonic_ns();
    long long expected = 0;
    if (g_first_signal_ns.compare_exchange_strong(expected, now)) {
        request_interrupt();
        return;
    }
    if (now - expected <= 1000000000LL) return;
    if (!g_watching.load() || g_forced.exchange(true)) ::_exit(130);
}

/// While it lives, a thread that waits for a forced stop (a second signal) and then writes the
/// current run's results line and exits with status 130.
class ForcedStopWatcher {
public:
    ForcedStopWatcher(Recorder& recorder, SearchContext::Clock::time_point start)
        : thread_([this, &recorder, start] {
              while (!done_.load()) {
                  if (g_forced.load()) {
                      const double elapsed =
                          std::chrono::duration<double>(SearchContext::Clock::now() - start)
                              .count();
                      try {
                          if (recorder.interrupted_end(elapsed))
                              put_line(stderr, "locus: stopped by a second signal; the run's best "
                                               "so far is in " +
                                                   recorder.results_file().string());
                      } catch (const std::exception& e) {
                          std::fprintf(stderr, "locus: error: %s\n",
                                       message_line(e.what()).c_str());
                      }
                      ::_exit(130);
                  }
                  std::this_thread::sleep_for(std::chrono::milliseconds(20));
              }
          }) {
        g_watching.store(true);
    }
    ~ForcedStopWatcher() {
        g_watching.store(false);
        done_.store(true);
        thread_.join();
    }
    ForcedStopWatcher(const ForcedStopWatcher&) = delete;
    ForcedStopWatcher& operator=(const ForcedStopWatcher&) = delete;

private:
    std::atomic<bool> done_{false};
    std::thread thread_;
};

std::vector<std::string> all_overrides(const RunOptions& options) {
    std::vector<std::string> overrides = options.overrides;
    if (options.instance) overrides.push_back("problem.instance=" + *options.instance);
    if (options.time_limit)
        overrides.push_back(fmt::format("termination.time_limit={}", *options.time_limit));
    if (options.seed) overrides.push_back(fmt::format("seed={}", *options.seed));
    if (options.backend) overrides.push_back("backend=" + *options.backend);
    if (options.out) overrides.push_back("output=" + *options.out);
    return overrides;
}

Params compose(const RunOptions& options, Registry& registry) {
    const auto overrides = all_overrides(options);
    if (options.config_text)
        return compose_config(*options.config_text, options.config.empty() ? "<config>" : options.config,
                              overrides, registry);
    if (options.config.empty())
        return compose_config(embedded_demo_config(), "<embedded demo>", overrides, registry);
    return load_config(options.config, overrides, registry);
}

std::string cpu_description(int threads) {
    std::ifstream in("/proc/cpuinfo");
    std::string line, model = "unknown CPU";
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) {
            model = line.substr(line.find(':') + 2);
            break;
        }
    return fmt::format("{} ({} threads)", model, threads);
}

// NOTE: the engines' own resolution (OpenMP's thread count, which OMP_NUM_THREADS sets), so
// that results lines report the threads the engines used.
int resolved_threads(int threads) { return gpu::resolve_threads(threads); }

/// The live progress line on a terminal (stderr), refreshed twice a second.
class Progress {
public:
    /// `best_known` is internal (as the objectives); `sense` says how users read both.
    Progress(bool enabled, std::optional<Objective> best_known, ObjectiveSense sense)
        : enabled_(enabled), best_known_(best_known), sense_(sense) {
        if (enabled_) thread_ = std::thread([this] { loop(); });
    }
    ~Progress() {
        if (!enabled_) return;
        {
            std::lock_guard lock(mutex_);
            done_ = true;
        }
        cv_.notify_all();
        thread_.join();
        // The progress line is cleared, so that the summary lines start on an empty line.
        std::fputs("\r\033[K", stderr);
    }
    void update(std::uint32_t run, Objective best) {
        run_.store(run);
        best_.store(best);
        has_best_.store(true);
    }

private:
    void loop() {
        const auto start = std::chrono::steady_clock::now();
        std::unique_lock lock(mutex_);
        while (!done_) {
            cv_.wait_for(lock, std::chrono::milliseconds(500));
            const double t =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            std::string text = fmt::format("\r[{:8.1f} s] run {}", t, run_.load());
            if (has_best_.load()) {
                text += fmt::format("  best {}", user_objective(sense_, best_.load()));
                if (best_known_)
                    text += fmt::format("  gap {:.3f} %", gap_percent(best_.load(), *best_known_));
            }
            std::fputs((text + "   ").c_str(), stderr);
            std::fflush(stderr);
        }
    }

    bool enabled_;
    std::optional<Objective> best_known_;
    ObjectiveSense sense_;
    std::atomic<std::uint32_t> run_{0};
    std::atomic<Objective> best_{0.0};
    std::atomic<bool> has_best_{false};
    std::mutex mutex_;
    std::condition_variable cv_;
    bool done_ = false;
    std::thread thread_;
};

/// The instance file a problem's `instance` resolves to (absolute), or "" for a generator spec
/// or a problem without one.
std::string instance_file_of(const Params& problem) {
    if (!problem.has("instance")) return "";
    try {
        return std::filesystem::absolute(resolve_data_file(problem.get_string("instance"),
                                                           "instance file"))
            .lexically_normal()
            .string();
    } catch (const InstanceError&) {
        return ""; // a generated instance: its spec is in the configuration
    }
}

Termination termination_of(const Params& limits) {
    Termination t;
    t.time_limit_s = limits.get_real("time_limit");
    t.max_iterations = static_cast<std::uint64_t>(limits.get_int("iterations"));
    t.max_evaluations = static_cast<std::uint64_t>(limits.get_int("evaluations"));
    if (limits.has("target")) t.target = limits.get_real("target");
    if (limits.has("target_gap")) t.target_gap = limits.get_real("target_gap");
    t.stagnation_iterations = static_cast<std::uint64_t>(limits.get_int("stagnation"));
    return t;
}

/// The process-wide deadline of run 0 while the job is set up (before its search context
/// exists), disarmed when it goes out of scope.
class LoadingDeadline {
public:
    LoadingDeadline(SearchContext::Clock::time_point start, const Termination& termination) {
        if (termination.time_limit_s > 0.0)
            token_ = arm_deadline(start + std::chrono::duration_cast<SearchContext::Clock::duration>(
                                              std::chrono::duration<double>(
                                                  termination.time_limit_s)));
    }
    ~LoadingDeadline() { disarm_deadline(token_); }
    LoadingDeadline(const LoadingDeadline&) = delete;
    LoadingDeadline& operator=(const LoadingDeadline&) = delete;

private:
    std::uint64_t token_ = 0;
};

} // namespace

std::vector<PluginInfo> load_plugins(const std::vector<std::filesystem::path>& extra_dirs,
                                     Registry& registry, std::vector<std::string>* failures) {
    register_job_schema(registry);
    // Notes of config composition (a deprecated component name) go to stderr, each once.
    registry.set_note_sink([](const std::string& text) { put_line(stderr, "locus: note: " + text); });
    PluginLoader loader(extra_dirs);
    auto loaded = loader.load_all(registry);
    // NOTE: a plugin file of another build (a partial rebuild after the sources moved) is named
    // in a listing, and for a job only where it matters: in the error of a component that is not
    // found (Registry::unloaded), since a job that needs none of its components runs as it is.
    // A broken file is warned of always.
    const auto& other_builds = loader.other_builds();
    const bool listing = failures != nullptr;
    for (const std::string& failure : loader.failures()) {
        const bool other_build = std::ranges::any_of(
            other_builds, [&](const auto& other) { return other.message == failure; });
        if (listing || !other_build)
            put_line(stderr, "locus: warning: " + failure + "; its components are unavailable");
    }
    if (listing) *failures = loader.failures();
    if (!other_builds.empty()) {
        std::string files;
        for (const auto& other : other_builds)
            files += (files.empty() ? "" : ", ") + other.file.string();
        registry.set_unloaded(
            fmt::format("{} not loaded, built for another locus (another build id or plugin ABI "
                        "version): {}; rebuild {} with this locus (scripts/build)",
                        other_builds.size() == 1 ? "a plugin was" : "plugins were", files,
                        other_builds.size() == 1 ? "it" : "them"));
    }
    if (loaded.empty()) {
        std::string dirs;
        for (const auto& dir : loader.search_path())
            dirs += (dirs.empty() ? "" : ", ") + dir.string();
        throw PluginError("no locus plugins found (searched: " + dirs +
                          "); set LOCUS_PLUGIN_PATH or pass --plugin-path" +
                          (registry.unloaded().empty() ? "" : "; " + registry.unloaded()));
    }
    return loaded;
}

namespace {

/// The files a run of `job` opens before its search, found as the run finds them: the instance
/// file resolved but not loaded (a generator spec is checked when the problem generates it) and
/// the best-known table read (`best_known`, else best-known.csv of the data path).
void check_job_files(const Params& job) {
    const Params& problem = job.get_component("problem");
    if (problem.has("instance") && !is_generator_spec(problem.get_string("instance"), ""))
        resolve_data_file(problem.get_string("instance"), "instance file");
    (void)BestKnownTable::find(job.get_string("best_known"));
}

} // namespace

int validate_job(const RunOptions& options) {
    Registry registry;
    load_plugins(options.plugin_paths, registry);
    // NOTE: composing runs every check a run makes before it builds the problem: the schemas
    // and the components' own checks of their params (params_check.hpp), so validate and run
    // refuse the same configs with the same located messages. Checks that need the loaded
    // instance or the device stay with the run.
    const Params job = compose(options, registry);
    if (!options.config.empty() && !options.config_text)
        set_config_directory(std::filesystem::absolute(options.config).parent_path());
    check_job_files(job);
    put_line(stdout, options.config + ": valid (config hash " + config_hash(job) + ")");
    return kOk;
}

namespace {

/// Installs the SIGINT/SIGTERM handlers of a run (on_signal) with no signal seen yet.
void install_signal_handlers() {
    // NOTE: the handlers are installed before anything is loaded: a signal during loading,
    // candidate lists or construction is kept, and the run then ends at once with the
    // constructed solutions written (a second signal ends the process at once).
    clear_interrupt();
    g_first_signal_ns.store(0);
    g_forced.store(false);
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
}

/// The device a run uses, as its results lines describe it.
struct DeviceFacts {
    std::string description;
    std::string pci_bus_id; ///< CUDA only
};

/// Says on stderr what `batch: auto` became: one solution per multiprocessor of the device, 64
/// without one, or the count a component chose for the instance (recorded in `resolved`).
void say_auto_batch(const BuildContext& build, const Problem& problem,
                    const std::map<std::string, std::int64_t>& resolved) {
    const std::size_t mp = build.auto_batch_multiprocessors;
    std::string why = "no CUDA device";
    if (mp > 0 && resolved.count("batch") != 0)
        why = fmt::format("chosen for the instance by problem '{}' on the {} multiprocessors of "
                          "CUDA device {}",
                          problem.problem_name(), mp, build.device);
    else if (mp > 0)
        why = fmt::format("the multiprocessors of CUDA device {}", build.device);
    std::fprintf(stderr, "locus: batch auto -> %zu (%s)\n", build.batch, why.c_str());
}

/// The BuildContext of `job` with its backend resolved and checked before anything is loaded
/// or allocated (`auto`: CUDA when a device is present, said on stderr unless `quiet`).
BuildContext build_context(const Params& job, Registry& registry, bool quiet,
                           DeviceFacts& device) {
    BuildContext build;
    build.registry = &registry;
    build.device = static_cast<int>(job.get_int("device"));
    build.threads = static_cast<int>(job.get_int("threads"));
    build.check_moves = job.get_bool("check_moves");
    build.memory_budget = static_cast<std::size_t>(job.get_int("memory_budget")) << 20;
    build.memory_fraction = job.get_real("memory_fraction");
    build.seed = static_cast<std::uint64_t>(job.get_int("seed"));
    build.batch = static_cast<std::size_t>(job.get_int("batch"));
    if (job.is_auto("batch")) { // said on stderr once the algorithm is built
        build.batch = gpu::auto_batch(build.device);
        if (gpu::device_count() > 0)
            build.auto_batch_multiprocessors =
                static_cast<std::size_t>(gpu::multiprocessor_count(build.device));
    }
    const std::string& backend = job.get_string("backend");
    if (backend == "cuda" || (backend == "auto" && gpu::device_count() > 0)) {
        gpu::require_device(build.device);
        build.backend = Backend::cuda;
        device.description = gpu::device_description(build.device);
        device.pci_bus_id = gpu::device_pci_bus_id(build.device);
    } else {
        build.backend = Backend::cpu;
        device.description = cpu_description(resolved_threads(build.threads));
    }
    if (backend == "auto" && !quiet) {
        const std::string why = build.backend == Backend::cpu
                                    ? " (no CUDA device: " + gpu::device_unavailable_reason() + ")"
                                    : "";
        std::fprintf(stderr, "locus: backend auto -> %s%s\n",
                     std::string(to_string(build.backend)).c_str(), why.c_str());
    }
    return build;
}

/// What every results line of the job says of it.
JobFacts job_facts(const RunOptions& options, const Params& job, const BuildContext& build,
                   const Problem& problem, const DeviceFacts& device, double started_unix_s,
                   const BestKnownTable& table) {
    JobFacts facts;
    facts.name = job.get_string("name");
    facts.config_file = !options.config.empty() ? options.config
                        : options.config_text ? "<config>"
                                              : "<embedded demo>";
    facts.config_hash = config_hash(job);
    facts.config = params_json(job);
    facts.instance_file = instance_file_of(job.get_component("problem"));
    facts.algorithm = job.get_component("algorithm").name();
    facts.backend = std::string(to_string(build.backend));
    facts.device = device.description;
    facts.device_ordinal = build.backend == Backend::cuda ? build.device : -1;
    facts.device_pci_bus_id = device.pci_bus_id;
    facts.started_unix_s = started_unix_s;
    facts.batch = build.batch;
    facts.seed = build.seed;
    facts.threads = resolved_threads(build.threads);
    facts.best_known = table.lookup(problem.instance_name());
    facts.best_known_source = facts.best_known ? table.source().string() : "";
    return facts;
}

/// The job's limits in internal objectives (`internal_best_known` is one already). A proven
/// optimum cannot be improved: the run stops there (stop_reason target), unless
/// termination.stop_at_optimum is false.
Termination job_termination(const Params& job, const Problem& problem,
                            const BestKnownTable& table,
                            std::optional<Objective> internal_best_known) {
    const ObjectiveSense sense = problem.objective_sense();
    Termination termination = termination_of(job.get_component("termination"));
    if (termination.target) termination.target = user_objective(sense, *termination.target);
    if (internal_best_known && table.optimal(problem.instance_name()) &&
        job.get_component("termination").get_bool("stop_at_optimum"))
        termination.target = termination.target
                                 ? std::max(*termination.target, *internal_best_known)
                                 : *internal_best_known;
    return termination;
}

/// Fills `batch` with copies of the --initial solution, checked feasible, or else with the
/// job's construction.
void initial_solutions(const RunOptions& options, const Problem& problem, SearchContext& ctx,
                       SolutionBatch& batch) {
    if (!options.initial) {
        // Stopped (the limit or a signal ended the construction or its candidate lists
        // before any solution existed) is answered in main: there is nothing to write.
        ctx.construct(batch);
        return;
    }
    const auto file = resolve_data_file(*options.initial, "solution file");
    std::vector<std::int32_t> solution;
    try {
        solution = problem.read_solution(file);
    } catch (const InstanceError& e) {
        throw InstanceError(std::string("--initial: ") + e.what());
    }
    const Verdict verdict = problem.verify(solution);
    if (!verdict.feasible)
        throw InstanceError(fmt::format("initial solution '{}' is not feasible: {}",
                                        file.string(), verdict.message));
    for (std::size_t i = 0; i < batch.count(); ++i) {
        std::copy(solution.begin(), solution.end(), batch[i].begin());
        batch.objective(i) = verdict.objective;
    }
}

/// Runs the algorithm on `batch`, then finishes the context: the best solution found so far
/// is written even when the algorithm failed (its results line then says stop_reason "error"
/// with the message), and the failure is rethrown after that.
void search(Algorithm& algorithm, SolutionBatch& batch, SearchContext& ctx, bool signals) {
    std::exception_ptr failure;
    try {
        algorithm.run(batch, ctx);
    } catch (const Stopped&) {
        // A set-up phase of the algorithm (e.g. its candidate lists) ended by the limit or a
        // signal: the run ends as its stop reason says, with the constructed solutions.
        ctx.offer(batch);
        ctx.should_stop();
    } catch (const std::exception& e) {
        failure = std::current_exception();
        ctx.fail(e.what());
    } catch (...) {
        failure = std::current_exception();
        ctx.fail("unknown exception");
    }
    ctx.finish();
    if (signals) {
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGTERM, SIG_DFL);
    }
    if (failure) std::rethrow_exception(failure);
}

/// Whether a results line holds a solution that is not feasible.
bool infeasible_line(const nlohmann::json& line) {
    return !line["solution_file"].is_null() && !line["feasible"].get<bool>();
}

/// One stderr line per run of `lines` and where they were appended.
void print_summaries(const std::vector<nlohmann::json>& lines, const Recorder& recorder) {
    for (const auto& line : lines) {
        if (infeasible_line(line)) {
            put_line(stderr,
                     fmt::format("locus: run {}: no feasible solution found in {:.2f} s ({}); "
                                 "the best infeasible one ({}) is in {}",
                                 shown(line["run"]), line["total_time_s"].get<double>(),
                                 line["stop_reason"].get<std::string>(),
                                 line["infeasible_reason"].get<std::string>(),
                                 shown(line["solution_file"])));
            continue;
        }
        std::string gap =
            line["gap"].is_null() ? "" : fmt::format(" gap {:.3f} %", line["gap"].get<double>());
        put_line(stderr, fmt::format("locus: run {}: objective {}{} in {:.2f} s ({}), solution {}",
                                     shown(line["run"]), shown(line["objective"]), gap,
                                     line["total_time_s"].get<double>(),
                                     line["stop_reason"].get<std::string>(),
                                     shown(line["solution_file"])));
    }
    put_line(stderr, "locus: results appended to " + recorder.results_file().string());
}

/// The exit status of a finished job: a failed re-evaluation, then an interruption, then a
/// run without a feasible solution.
int job_status(const std::vector<nlohmann::json>& lines, const Recorder& recorder) {
    if (recorder.mismatch()) {
        std::fprintf(
            stderr,
            "locus: error: a run's objective disagreed with its re-evaluation (see results)\n");
        return kFailure;
    }
    if (interrupt_requested()) return kInterrupted;
    if (std::any_of(lines.begin(), lines.end(), infeasible_line)) {
        std::fprintf(stderr, "locus: error: a run ended without a feasible solution (see results: "
                             "infeasible_reason)\n");
        return kInfeasible;
    }
    return kOk;
}

} // namespace

JobOutcome execute_job(const RunOptions& options, const JobHooks& hooks) {
    const auto start = SearchContext::Clock::now();
    const double started_unix_s =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    if (hooks.signals)
        install_signal_handlers();
    else
        clear_interrupt();
    Registry registry;
    load_plugins(options.plugin_paths, registry);
    const Params job = compose(options, registry);
    // A relative instance path of the config is also looked up next to the config file.
    if (!options.config.empty() && !options.config_text)
        set_config_directory(std::filesystem::absolute(options.config).parent_path());

    // Run 0's clock starts here: its time limit also bounds reading the instance and building
    // the components (readers read the stop flag; the search context arms the same deadline
    // again once it exists).
    const LoadingDeadline loading(start, termination_of(job.get_component("termination")));
    DeviceFacts device;
    BuildContext build = build_context(job, registry, options.quiet, device);
    JobOutcome outcome;
    outcome.problem = registry.create<Problem>(job.get_component("problem"), build);
    Problem& problem = *outcome.problem;
    build.problem = &problem;
    if (hooks.on_loaded) hooks.on_loaded(problem);
    std::map<std::string, std::int64_t> resolved;
    build.resolved = &resolved;
    auto construction = registry.create<Construction>(job.get_component("construction"), build);
    auto algorithm = registry.create<Algorithm>(job.get_component("algorithm"), build);
    build.resolved = nullptr;
    if (job.is_auto("batch") && !options.quiet) say_auto_batch(build, problem, resolved);

    const BestKnownTable table = BestKnownTable::find(job.get_string("best_known"));
    JobFacts facts = job_facts(options, job, build, problem, device, started_unix_s, table);
    facts.resolved = std::move(resolved);
    if (options.best_known_value) {
        facts.best_known = *options.best_known_value;
        facts.best_known_source = "given";
    }
    Recorder recorder(job.get_string("output"), problem, facts);
    std::optional<ForcedStopWatcher> watcher;
    if (hooks.signals) watcher.emplace(recorder, start);
    // Best-known values and objective targets are given as users read them; the search compares
    // internal objectives.
    const ObjectiveSense sense = problem.objective_sense();
    std::optional<Objective> internal_best_known;
    if (facts.best_known) internal_best_known = user_objective(sense, *facts.best_known);
    Progress progress(!options.quiet && ::isatty(STDERR_FILENO) != 0, internal_best_known, sense);
    SearchContext::Callbacks callbacks;
    callbacks.on_improvement = [&](std::uint32_t run, const TracePoint& point) {
        recorder.improvement(run, point);
        progress.update(run, point.objective);
        if (hooks.on_improvement && hooks.on_improvement(run, point)) request_interrupt();
    };
    callbacks.on_run_end = [&](const RunSummary& summary) {
        outcome.lines.push_back(recorder.run_end(summary));
        outcome.runs.push_back(summary);
    };
    SearchContext ctx(problem, construction.get(),
                      job_termination(job, problem, table, internal_best_known), build.seed,
                      start, internal_best_known, callbacks);

    SolutionBatch batch(facts.batch, problem.solution_width());
    initial_solutions(options, problem, ctx, batch);
    search(*algorithm, batch, ctx, hooks.signals);
    if (!options.quiet) print_summaries(outcome.lines, recorder);
    outcome.status = job_status(outcome.lines, recorder);
    return outcome;
}

int run_job(const RunOptions& options) { return execute_job(options, JobHooks{}).status; }

} // namespace locus::app
