#include "recorder.hpp"

#include <chrono>
#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>

#include <fmt/format.h>
#include <sys/resource.h>

#include "launcher.hpp"
#include "locus/build_info.hpp"
#include "locus/error.hpp"
#include "locus/params.hpp"
#include "locus/problem.hpp"
#include "locus/rng.hpp"
#include "locus/text.hpp"

namespace locus::app {

namespace fs = std::filesystem;

nlohmann::json params_json(const Params& params) {
    nlohmann::json out = nlohmann::json::object();
    if (params.kind() != "job") out["name"] = params.name();
    for (const auto& [key, value] : params.values()) {
        std::visit(
            [&, &key = key](const auto& v) {
                using T = std::decay_t<decltype(v)>;
                if constexpr (std::is_same_v<T, std::monostate>) {
                    out[key] = nullptr;
                } else if constexpr (std::is_same_v<T, std::shared_ptr<const Params>>) {
                    out[key] = v ? params_json(*v) : nlohmann::json();
                } else if constexpr (std::is_same_v<T,
                                                    std::vector<std::shared_ptr<const Params>>>) {
                    nlohmann::json list = nlohmann::json::array();
                    for (const auto& item : v)
                        list.push_back(item ? params_json(*item) : nlohmann::json());
                    out[key] = std::move(list);
                } else if constexpr (std::is_same_v<T, std::int64_t>) {
                    // An integer given as `auto` is written as auto: read back, 0 could be out
                    // of its range (batch: 1 or more).
                    out[key] = params.is_auto(key) ? nlohmann::json("auto") : nlohmann::json(v);
                } else {
                    out[key] = v;
                }
            },
            value);
    }
    return out;
}

namespace {
/// UTC time to the millisecond: 20261125T173239.123Z.
std::string utc_stamp_ms() {
    const auto now = std::chrono::system_clock::now();
    const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        now.time_since_epoch())
                        .count() %
                    1000;
    std::tm tm{};
    gmtime_r(&seconds, &tm);
    char buffer[64];
    std::strftime(buffer, sizeof buffer, "%Y%m%dT%H%M%S", &tm);
    return fmt::format("{}.{:03d}Z", buffer, static_cast<int>(ms));
}

/// The process's peak resident set (getrusage; Linux reports kilobytes).
std::uint64_t peak_host_memory_bytes() {
    rusage usage{};
    if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
    return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024u;
}

double unix_seconds() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string utc_stamp(const char* format) {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buffer[64];
    std::strftime(buffer, sizeof buffer, format, &tm);
    return buffer;
}

/// `text` as a part of a directory name: letters, digits, '-' and '_' (others become '_'), at
/// most 64 characters: a longer text keeps its first 47 and appends '-' and 16 hex digits of a
/// hash of the whole text (FNV-1a), so that names stay distinct and within the file system's
/// 255 bytes (a 250-character instance NAME made runs impossible).
std::string sanitize(const std::string& text) {
    constexpr std::size_t kMax = 64;
    std::string out;
    for (char c : text)
        out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
    if (out.size() <= kMax) return out;
    return fmt::format("{}-{:016x}", out.substr(0, kMax - 17), fnv1a(text));
}

/// Objectives are exact integers for integer problems: write them as integers then.
nlohmann::json number(double value) {
    if (value == static_cast<double>(static_cast<long long>(value)) && std::abs(value) < 9.0e15)
        return static_cast<long long>(value);
    return value;
}
} // namespace

bool next_results_line(std::istream& in, std::string& line, const fs::path& file,
                       std::size_t number) {
    line.clear();
    std::streambuf& buffer = *in.rdbuf();
    for (;;) {
        const int c = buffer.sbumpc();
        if (c == std::char_traits<char>::eof()) return !line.empty();
        if (c == '\n') return true;
        if (line.size() == kMaxResultsLineBytes)
            throw Error(fmt::format("{}:{}: the line exceeds {} bytes (the longest results line "
                                    "read)",
                                    file.string(), number, kMaxResultsLineBytes));
        line.push_back(static_cast<char>(c));
    }
}

Recorder::Recorder(const fs::path& out_dir, const Problem& problem, JobFacts facts)
    : out_dir_(out_dir), results_file_(out_dir / "results.jsonl"), problem_(problem),
      facts_(std::move(facts)), stamp_(utc_stamp_ms()) {
    std::error_code ec;
    fs::create_directories(out_dir_, ec);
    if (ec)
        throw Error(fmt::format("cannot create output directory '{}': {}", out_dir_.string(),
                                ec.message()));
}

Recorder::~Recorder() {
    {
        std::lock_guard lock(checkpoint_mutex_);
        stopping_ = true;
    }
    checkpoint_wake_.notify_all();
    if (checkpointer_.joinable()) checkpointer_.join();
    if (trace_ != nullptr) std::fclose(trace_);
}

void Recorder::write_best(const fs::path& dir, std::span<const std::int32_t> solution,
                          Objective objective) const {
    const fs::path file = dir / ("best" + problem_.solution_extension());
    const fs::path temporary = dir / ("best" + problem_.solution_extension() + ".tmp");
    problem_.write_solution(temporary, solution, objective);
    fs::rename(temporary, file);
}

void Recorder::write_pending(std::unique_lock<std::mutex>& lock) {
    if (!latest_ || latest_->written) return;
    // NOTE: written with the lock held, so that the run's final write never meets a
    // checkpoint of the same file half-way.
    (void)lock;
    latest_->written = true;
    try {
        write_best(latest_->dir, latest_->solution, latest_->objective);
    } catch (const std::exception& e) {
        // A checkpoint that cannot be written is not worth ending the search for; the final
        // write at the run's end reports its own failure.
        std::fprintf(stderr, "locus: warning: checkpoint not written: %s\n",
                     message_line(e.what()).c_str());
    }
}

void Recorder::checkpoint_loop() {
    std::unique_lock lock(checkpoint_mutex_);
    while (!stopping_) {
        checkpoint_wake_.wait_for(lock, std::chrono::duration<double>(kCheckpointSeconds));
        if (!stopping_) write_pending(lock);
    }
}

fs::path Recorder::run_dir(std::uint32_t run) {
    // NOTE: callers hold checkpoint_mutex_ (improvement, write_line and interrupted_end may run
    // on different threads).
    if (const auto found = run_dirs_.find(run); found != run_dirs_.end()) return found->second;
    const std::string base = fmt::format("{}-{}-{}-r{}", stamp_, sanitize(problem_.instance_name()),
                                         sanitize(facts_.algorithm), run);
    // NOTE: mkdir is atomic: of several processes started at once into the same output
    // directory, one gets each name and the others move on to the next suffix.
    for (int attempt = 1;; ++attempt) {
        const fs::path dir = out_dir_ / (attempt == 1 ? base : fmt::format("{}-{}", base, attempt));
        std::error_code ec;
        if (fs::create_directory(dir, ec)) {
            run_dirs_.emplace(run, dir);
            return dir;
        }
        if (ec || attempt >= 100000)
            throw Error(fmt::format("cannot create run directory '{}': {}", dir.string(),
                                    ec ? ec.message() : "every name is taken"));
    }
}

void Recorder::improvement(std::uint32_t run, const TracePoint& point) {
    if (trace_run_ != run) {
        if (trace_ != nullptr) std::fclose(trace_);
        fs::path dir;
        {
            std::lock_guard lock(checkpoint_mutex_);
            dir = run_dir(run);
        }
        trace_ = std::fopen((dir / "trace.jsonl").c_str(), "w");
        if (trace_ == nullptr)
            throw Error(fmt::format("cannot write '{}'", (dir / "trace.jsonl").string()));
        trace_run_ = run;
    }
    const ObjectiveSense sense = problem_.objective_sense();
    const nlohmann::json line = {{"time_s", point.time_s},
                                 {"iteration", point.iteration},
                                 {"evaluations", point.evaluations},
                                 {"objective", number(user_objective(sense, point.objective))}};
    std::fputs((line.dump() + "\n").c_str(), trace_);
    std::fflush(trace_);
    if (!point.feasible || point.solution.empty()) return;
    std::lock_guard lock(checkpoint_mutex_);
    if (!latest_) latest_.emplace();
    latest_->run = run;
    latest_->dir = run_dir(run);
    latest_->solution.assign(point.solution.begin(), point.solution.end());
    latest_->objective = point.objective;
    latest_->time_s = point.time_s;
    latest_->iteration = point.iteration;
    latest_->evaluations = point.evaluations;
    latest_->written = false;
    if (!checkpointer_.joinable()) checkpointer_ = std::thread([this] { checkpoint_loop(); });
}

bool Recorder::interrupted_end(double total_time_s) {
    RunSummary summary;
    {
        std::lock_guard lock(checkpoint_mutex_);
        summary.run = latest_ ? latest_->run : current_run_;
        if (latest_) {
            summary.has_solution = true;
            summary.best_solution = latest_->solution;
            summary.best_objective = latest_->objective;
            summary.time_to_best_s = latest_->time_s;
            summary.iterations = latest_->iteration;
            summary.evaluations = latest_->evaluations;
        }
    }
    summary.seed = summary.run == 0 ? facts_.seed : derive_key(facts_.seed, summary.run);
    summary.total_time_s = total_time_s;
    summary.stop_reason = StopReason::interrupted;
    std::lock_guard lock(line_mutex_);
    if (std::find(ended_.begin(), ended_.end(), summary.run) != ended_.end()) return false;
    forced_ = true;
    write_line(summary);
    ended_.push_back(summary.run);
    return true;
}

nlohmann::json Recorder::run_end(const RunSummary& summary) {
    std::lock_guard lock(line_mutex_);
    if (std::find(ended_.begin(), ended_.end(), summary.run) != ended_.end()) return {};
    nlohmann::json line = write_line(summary);
    ended_.push_back(summary.run);
    current_run_ = summary.run + 1;
    return line;
}

nlohmann::json Recorder::write_line(const RunSummary& summary) {
    fs::path dir;
    {
        std::lock_guard lock(checkpoint_mutex_);
        dir = run_dir(summary.run);
    }
    nlohmann::json line;
    line["problem"] = std::string(problem_.problem_name());
    // NOTE: printable: names come from files and configs; a results line is valid UTF-8.
    line["instance"] = printable(problem_.instance_name());
    line["name"] = printable(facts_.name);
    line["algorithm"] = facts_.algorithm;
    line["backend"] = facts_.backend;
    line["device"] = facts_.device;
    line["device_ordinal"] =
        facts_.device_ordinal >= 0 ? nlohmann::json(facts_.device_ordinal) : nlohmann::json();
    line["device_pci_bus_id"] = facts_.device_pci_bus_id.empty()
                                    ? nlohmann::json()
                                    : nlohmann::json(facts_.device_pci_bus_id);
    line["seed"] = summary.seed;
    line["run"] = summary.run;
    line["batch"] = facts_.batch;
    line["threads"] = facts_.threads;
    line["resolved"] = facts_.resolved;
    line["stop_reason"] = std::string(to_string(summary.stop_reason));
    if (forced_) line["forced"] = true;
    if (summary.stop_reason == StopReason::error) line["error"] = message_line(summary.error);
    line["time_to_best_s"] = summary.time_to_best_s;
    line["total_time_s"] = summary.total_time_s;
    line["iterations"] = summary.iterations;
    line["evaluations"] = summary.evaluations;
    line["engine_memory_bytes"] = summary.engine_memory_bytes;
    line["phase_s"] = nlohmann::json::object();
    for (const auto& [phase, seconds] : summary.phase_s) line["phase_s"][phase] = seconds;
    line["peak_host_memory_bytes"] = peak_host_memory_bytes();
    // Objectives, best-known values and gaps as users read them (a maximisation problem's
    // internal objective is the negated value).
    const ObjectiveSense sense = problem_.objective_sense();
    line["objective_sense"] = std::string(to_string(sense));
    line["best_known"] = facts_.best_known ? number(*facts_.best_known) : nlohmann::json();
    if (summary.has_solution) {
        add_solution(line, summary, dir);
    } else {
        line["feasible"] = false;
        line["objective"] = nullptr;
        line["gap"] = nullptr;
        line["solution_file"] = nullptr;
    }
    line["trace_file"] = (dir / "trace.jsonl").string();
    line["config_file"] = facts_.config_file;
    line["config_hash"] = facts_.config_hash;
    line["config"] = facts_.config;
    line["instance_file"] =
        facts_.instance_file.empty() ? nlohmann::json() : nlohmann::json(facts_.instance_file);
    line["best_known_source"] = facts_.best_known_source;
    line["version"] = LOCUS_VERSION;
    line["git_revision"] = LOCUS_GIT_REVISION;
    line["build_id"] = LOCUS_BUILD_ID;
    line["timestamp"] = utc_stamp("%Y-%m-%dT%H:%M:%SZ");
    // Wall-clock span of the process (to the millisecond): what shows which runs overlapped.
    line["started_unix_s"] = std::round(facts_.started_unix_s * 1000.0) / 1000.0;
    line["ended_unix_s"] = std::round(unix_seconds() * 1000.0) / 1000.0;
    append(line);
    return line;
}

void Recorder::add_solution(nlohmann::json& line, const RunSummary& summary, const fs::path& dir) {
    const ObjectiveSense sense = problem_.objective_sense();
    // NOTE: the reported objective is an independent re-evaluation of the written solution.
    const Verdict verdict = problem_.verify(summary.best_solution);
    line["feasible"] = verdict.feasible;
    line["objective"] =
        verdict.feasible ? number(user_objective(sense, verdict.objective)) : nlohmann::json();
    if (!verdict.feasible) line["infeasible_reason"] = message_line(verdict.message);
    if (verdict.feasible && !objectives_agree(summary.best_objective, verdict.objective)) {
        mismatch_ = true;
        const std::string mismatch =
            fmt::format("search objective {} differs from re-evaluation {}",
                        summary.best_objective, verdict.objective);
        line["error"] = line.contains("error")
                            ? line["error"].get<std::string>() + "; " + mismatch
                            : mismatch;
    }
    line["gap"] = (verdict.feasible && facts_.best_known)
                      ? nlohmann::json(gap_percent(verdict.objective,
                                                   user_objective(sense, *facts_.best_known)))
                      : nlohmann::json();
    const fs::path file = dir / ("best" + problem_.solution_extension());
    {
        // The final solution replaces any checkpoint, and no checkpoint of this run may
        // be written after it.
        std::unique_lock lock(checkpoint_mutex_);
        if (latest_ && latest_->dir == dir) latest_.reset();
        write_best(dir, summary.best_solution, verdict.objective);
    }
    line["solution_file"] = file.string();
    if (!summary.trajectory.empty() && !problem_.trajectory_extension().empty()) {
        const Verdict steps = problem_.verify_trajectory(summary.trajectory);
        const fs::path path_file = dir / ("best" + problem_.trajectory_extension());
        problem_.write_trajectory(path_file, summary.trajectory);
        line["trajectory_file"] = path_file.string();
        line["trajectory_steps"] = summary.trajectory.size() - 1;
        line["trajectory_feasible"] = steps.feasible;
        if (!steps.feasible)
            line["trajectory_infeasible_reason"] = message_line(steps.message);
    }
}

void Recorder::append(const nlohmann::json& line) const {
    // NOTE: one write of the whole line to a file opened for appending, so that lines of
    // concurrent processes do not interleave.
    // NOTE: strings that still hold invalid UTF-8 (config values, paths) are written with
    // U+FFFD instead of ending the run after its search.
    const std::string text =
        line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::FILE* out = std::fopen(results_file_.c_str(), "a");
    const bool written = out != nullptr && std::setvbuf(out, nullptr, _IONBF, 0) == 0 &&
                         std::fwrite(text.data(), 1, text.size(), out) == text.size();
    if (out != nullptr) std::fclose(out);
    if (!written) throw Error(fmt::format("cannot append to '{}'", results_file_.string()));
}

} // namespace locus::app
