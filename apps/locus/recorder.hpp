#pragma once
/// \file
/// Writes what a job produces: one results.jsonl line per run, a trace.jsonl of improvements
/// and the best solution per run, all under the job's output directory.

#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "locus/search_context.hpp"

namespace locus {
class Problem;
class Params;
}

namespace locus::app {

/// `params` as the JSON form of a config file: each value by its key, a nested component as a
/// map with its `name`, no value as null. The root (the job) carries no name. YAML reads JSON,
/// so the result written to a file is a config that composes to the same configuration.
nlohmann::json params_json(const Params& params);

/// Fixed facts of a job, copied into every results line.
struct JobFacts {
    std::string name;          ///< job name from the config ("" if none)
    std::string config_file;   ///< "<embedded demo>" for the embedded job
    std::string config_hash;
    /// The resolved configuration (after --set overrides, defaults filled in), in the form of a
    /// config file: `locus run` of it repeats the job (params_json).
    nlohmann::json config;
    /// The instance file the problem was read from (absolute; "" for a generated instance).
    std::string instance_file;
    std::string algorithm;     ///< top-level algorithm name
    std::string backend;       ///< "cpu" / "cuda"
    std::string device;        ///< device description
    int device_ordinal = -1;   ///< CUDA device ordinal (-1: CPU backend)
    std::string device_pci_bus_id; ///< the CUDA device's PCI bus id ("" on the CPU)
    double started_unix_s = 0; ///< wall-clock start of the job, seconds since the epoch
    std::uint64_t seed = 0;    ///< the job seed (run r > 0 uses derive_key(seed, r))
    std::size_t batch = 1;
    int threads = 0;
    /// Settings given as `auto`, as the components resolved them (BuildContext::resolved).
    std::map<std::string, std::int64_t> resolved;
    std::optional<double> best_known;
    std::string best_known_source;
};

class Recorder {
public:
    Recorder(const std::filesystem::path& out_dir, const Problem& problem, JobFacts facts);
    ~Recorder();
    Recorder(const Recorder&) = delete;
    Recorder& operator=(const Recorder&) = delete;

    /// Appends an improvement to the run's trace.jsonl (flushed: survives crashes) and keeps
    /// a feasible improving solution for the checkpoint: within kCheckpointSeconds it is
    /// written to the run's best solution file (a temporary file renamed over it), so a run
    /// killed without warning (SIGKILL, a lost node) keeps its best solution but for the last
    /// seconds.
    void improvement(std::uint32_t run, const TracePoint& point);
    static constexpr double kCheckpointSeconds = 1.0;
    /// Writes the run's best solution and appends its results line. Returns the line. A run
    /// whose line was written already (by interrupted_end) is not written again.
    nlohmann::json run_end(const RunSummary& summary);
    /// The results line of the current run from what the recorder knows, for a process about
    /// to exit on a second signal while its search has not ended: the latest feasible
    /// improvement (its solution written as the run's best), its iteration and evaluation
    /// counts, `total_time_s` and stop_reason "interrupted", with `"forced": true` (counters as
    /// of the last improvement). Without any improvement the line has no solution. Thread safe
    /// with improvement and run_end; false when the run's line was written already.
    bool interrupted_end(double total_time_s);
    /// True when a run's re-verified objective disagreed with the search's own value.
    bool mismatch() const { return mismatch_; }
    const std::filesystem::path& results_file() const { return results_file_; }

private:
    /// The run's directory, created exclusively on first use: the stamp (UTC to the
    /// millisecond), instance, algorithm and run number, with "-2", "-3", ... appended when
    /// another process took the name first.
    std::filesystem::path run_dir(std::uint32_t run);
    /// Writes `solution` as the run's best solution file atomically (temporary + rename).
    void write_best(const std::filesystem::path& dir, std::span<const std::int32_t> solution,
                    Objective objective) const;
    /// The checkpoint thread: writes the pending solution at most every kCheckpointSeconds.
    void checkpoint_loop();
    /// Writes the pending solution now, if any (checkpoint_mutex_ held).
    void write_pending(std::unique_lock<std::mutex>& lock);

    std::filesystem::path out_dir_;
    std::filesystem::path results_file_;
    const Problem& problem_;
    JobFacts facts_;
    std::string stamp_;
    std::map<std::uint32_t, std::filesystem::path> run_dirs_;
    std::uint32_t trace_run_ = ~0u;
    std::FILE* trace_ = nullptr;
    bool mismatch_ = false;

    /// The results line of `summary` (writes its best solution).
    nlohmann::json write_line(const RunSummary& summary);
    /// Writes the best solution of `summary` (and its trajectory) into `dir` and adds to `line`
    /// its verdict, objective and gap as users read them, and the files written.
    void add_solution(nlohmann::json& line, const RunSummary& summary,
                      const std::filesystem::path& dir);
    /// Appends `line` to the results file with one write (Error when it cannot).
    void append(const nlohmann::json& line) const;

    // The latest feasible improvement of the current run; `written` is false while the
    // checkpoint has not written it.
    struct Latest {
        std::uint32_t run = 0;
        std::filesystem::path dir;
        std::vector<std::int32_t> solution;
        Objective objective = 0;
        double time_s = 0;
        std::uint64_t iteration = 0;
        std::uint64_t evaluations = 0;
        bool written = false;
    };
    // NOTE: checkpoint_mutex_ guards latest_, run_dirs_ and the solution files; line_mutex_
    // (taken first) the results lines and ended_.
    std::mutex line_mutex_;
    bool forced_ = false; ///< interrupted_end wrote a line
    std::vector<std::uint32_t> ended_; ///< runs whose line was written
    std::uint32_t current_run_ = 0;    ///< the run after the last ended one
    std::mutex checkpoint_mutex_;
    std::condition_variable checkpoint_wake_;
    std::optional<Latest> latest_;
    bool stopping_ = false;
    std::thread checkpointer_;
};

} // namespace locus::app
