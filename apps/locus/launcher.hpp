#pragma once
/// \file
/// The commands of the `locus` launcher.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "locus/error.hpp"
#include "locus/plugin_loader.hpp"
#include "locus/problem.hpp"
#include "locus/search_context.hpp"

namespace locus {
class Registry;
}

namespace locus::app {

/// 64-bit FNV-1a hash of `text`: the short digest that keeps directory names of long or
/// colliding names distinct (run directories of `locus run` and of experiments).
inline std::uint64_t fnv1a(std::string_view text) {
    std::uint64_t hash = 14695981039346656037ULL;
    for (const char c : text) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 1099511628211ULL;
    }
    return hash;
}

/// The longest line the launcher writes, in bytes (without the line end).
inline constexpr std::size_t kMaxLineBytes = 2000;

/// Writes `text` and a line end to `out` as one safe line: control bytes and invalid UTF-8 as
/// \xHH, at most kMaxLineBytes bytes (message_line). Every line that shows names, paths or text
/// from files and plugins goes through it.
inline void put_line(std::FILE* out, std::string_view text) {
    const std::string line = message_line(text, kMaxLineBytes);
    std::fputs(line.c_str(), out);
    std::fputc('\n', out);
}

/// The longest results line read (a line holds a run's resolved config and figures: a few KB).
/// Results files themselves may be large (a line per run), so they are read line by line.
inline constexpr std::size_t kMaxResultsLineBytes = std::size_t{16} << 20;

/// The next line of `in` (without its LF) into `line`; false at the end of the file. A line
/// longer than kMaxResultsLineBytes is refused (Error), naming `file` and the line's `number`.
bool next_results_line(std::istream& in, std::string& line, const std::filesystem::path& file,
                       std::size_t number);

/// Options of `locus run` (and `locus validate`, which uses the first four).
struct RunOptions {
    std::string config;                 ///< config file; "" = the embedded default job
    /// The config's text, composed instead of reading `config` (which then only names it in
    /// messages and results; relative paths are not looked up next to it).
    std::optional<std::string> config_text;
    /// The instance's best-known value (as users read objectives), over the best-known table.
    std::optional<double> best_known_value;
    std::vector<std::string> overrides; ///< --set key.path=value
    std::vector<std::filesystem::path> plugin_paths;
    std::optional<std::string> instance;
    std::optional<double> time_limit;
    std::optional<long long> seed;
    std::optional<std::string> backend;
    std::optional<std::string> initial;
    std::optional<std::string> out;
    bool quiet = false;
};

/// Exit codes of the launcher.
enum ExitCode : int {
    kOk = 0,
    kFailure = 1,    ///< runtime error: instance, plugin, CUDA, I/O
    kUsage = 2,      ///< invalid command line or config
    kInfeasible = 3, ///< verify: the solution is infeasible; run: a run ended without a
                     ///< feasible solution (its best infeasible one written)
    kInterrupted = 130
};

/// Registers the job schema and loads every plugin of the search path (`extra_dirs`, then
/// $LOCUS_PLUGIN_PATH, then the executable's directory) into `registry`. A plugin that fails
/// to load is skipped; the others serve the job. With `failures` (a listing) every skipped file
/// gets a warning line on stderr and its message goes in `failures`; without (a job) the files
/// built for another locus are instead named in the registry's `unloaded` text, which the
/// error of a component not found ends with, and only the other failures are warned of.
/// Throws PluginError naming the directories searched when no plugin is loaded.
std::vector<PluginInfo> load_plugins(const std::vector<std::filesystem::path>& extra_dirs,
                                     Registry& registry,
                                     std::vector<std::string>* failures = nullptr);

/// What a program that runs a job in its own process (the Python interface) adds to it.
struct JobHooks {
    /// Called after each improvement was recorded, in the thread that runs the search; returning
    /// true stops the job as an interrupt does (stop_reason "interrupted").
    std::function<bool(std::uint32_t run, const TracePoint& point)> on_improvement;
    /// Called once the problem is loaded, before anything else is built.
    std::function<void(const Problem& problem)> on_loaded;
    /// Install the launcher's SIGINT/SIGTERM handlers for the job (a second signal ends the
    /// process); false: the caller handles signals and calls request_interrupt().
    bool signals = true;
};

/// A finished job: its exit status (as `locus run` returns it), the results line and summary
/// (best solution included) of each run, and the loaded problem, to read and write solutions.
struct JobOutcome {
    int status = kOk;
    std::vector<nlohmann::json> lines;
    std::vector<RunSummary> runs;
    std::shared_ptr<Problem> problem;
};

/// Runs a job as `locus run` does, with `hooks`. Throws what `locus run` reports as errors.
JobOutcome execute_job(const RunOptions& options, const JobHooks& hooks);
/// `locus run`: execute_job with the launcher's signal handling; returns the exit status.
int run_job(const RunOptions& options);
int validate_job(const RunOptions& options);
int list_plugins(const std::vector<std::filesystem::path>& plugin_paths, bool verbose);
/// Exit status kOk when the solution is feasible, kInfeasible when it is infeasible or its
/// file is not a valid solution of the instance (wrong size, repeated or unknown ids).
/// `params`: "KEY=VALUE" problem parameters over the defaults; ConfigError for an unknown key
/// (naming the valid ones) or a value of the wrong type.
/// The problem `locus verify` checks against: `instance` (a file found through the data path,
/// a generator spec or a model spec) read by `problem` (by the file's extension when empty),
/// with `params` ("KEY=VALUE") over the problem's defaults. ConfigError for an unknown problem
/// or parameter; InstanceError for a bad instance.
std::unique_ptr<Problem> load_problem(const std::string& instance, const std::string& problem,
                                      const std::vector<std::filesystem::path>& plugin_paths,
                                      const std::vector<std::string>& params = {});
int verify_solution(const std::string& instance, const std::string& solution,
                    const std::string& problem,
                    const std::vector<std::filesystem::path>& plugin_paths,
                    const std::vector<std::string>& params = {});

/// `locus new-problem NAME [--out DIR]`: a plugin project (DIR, default ./NAME) copied from the
/// Max-Cut example with its names replaced, ready to build against an installed locus.
/// ConfigError for a bad name or an existing DIR.
int new_problem(const std::string& name, const std::string& out);

/// Options of `locus experiment`.
struct ExperimentOptions {
    std::string spec;                  ///< experiment spec (YAML)
    std::string out = "experiment";    ///< output directory
    std::string shard;                 ///< "i/N": the runs at positions i-1 mod N ("" = all)
    bool dry_run = false;              ///< list the runs, run nothing
    bool force = false;                ///< add to a directory of another spec
    unsigned jobs = 1;                 ///< CPU runs at once, on disjoint core sets
    unsigned gpus = 0;                 ///< CUDA runs at once, one per device (0: every device)
    std::string devices;               ///< "0,2": the CUDA devices to use ("" = by `gpus`)
    std::vector<std::filesystem::path> plugin_paths;
};

/// Expands the spec into runs (configs x instances x seeds x backends) and runs those not yet
/// recorded in <out>/results.jsonl (see experiment.cpp). ConfigError for a bad spec, a bad
/// shard or an output directory of another spec; Error for a corrupt results line.
int run_experiment(const ExperimentOptions& options);

/// Options of `locus report`.
struct ReportOptions {
    std::vector<std::string> inputs; ///< results files or experiment directories
    std::string out = "report";      ///< output directory (report.md, report.csv)
    bool plots = false;              ///< --plots: no plots is an error
    bool no_plots = false;           ///< --no-plots: tables only
};

/// Merges the inputs' results lines into report.md and report.csv (see report.cpp), then draws
/// the plots into <out>/plots with scripts/plots/locus_plots.py and links them in report.md.
/// ConfigError for missing inputs or no results; Error naming a corrupt line. Without Python or
/// matplotlib: one line saying how to get them, and kOk unless `plots` (then kFailure).
int run_report(const ReportOptions& options);

/// The embedded default job (configs/demo.yaml at build time).
const char* embedded_demo_config();

} // namespace locus::app
