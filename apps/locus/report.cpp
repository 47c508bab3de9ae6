// `locus report INPUT... --out R`: merges results files (or experiment directories) into one
// table per instance x label — runs, % feasible, best / mean / worst objective and gap, mean time
// to the best — written as R/report.md and R/report.csv, with a Mann-Whitney U test between
// every two labels of an instance. Then the plots: the runs, with their trace, solution and
// instance files found, go to R/plots/runs.json, and scripts/plots/locus_plots.py draws them
// (convergence, time to target, best solutions per instance; a performance profile and a box
// plot of final gaps across them) as PNG, PDF and SVG; report.md links what it drew.

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "launcher.hpp"
#include "locus/data_path.hpp"
#include "locus/error.hpp"
#include "locus/generator_spec.hpp"
#include "locus/text.hpp"

// The plot script relative to the launcher's directory once installed (CMake sets it from the
// install directories).
#ifndef LOCUS_RELATIVE_PLOTS_SCRIPT
#define LOCUS_RELATIVE_PLOTS_SCRIPT "../share/locus/plots/locus_plots.py"
#endif

namespace locus::app {
namespace {

namespace fs = std::filesystem;

struct Cell {
    /// Feasible runs, minimised: a maximisation problem's values are negated here (sign -1), so
    /// that the lowest is the best for every problem.
    std::vector<double> objectives;
    double sign = 1.0;
    std::vector<double> gaps;
    std::vector<double> times;      ///< time to the best, feasible runs
    std::size_t runs = 0;
    std::optional<double> best_known;
};

/// Two-sided p-value of the Mann-Whitney U test of samples a and b (normal approximation with a
/// tie correction; 1 when a sample is empty or every value ties).
double mann_whitney(const std::vector<double>& a, const std::vector<double>& b) {
    const double n1 = static_cast<double>(a.size());
    const double n2 = static_cast<double>(b.size());
    if (a.empty() || b.empty()) return 1.0;
    std::vector<std::pair<double, int>> all;
    for (double v : a) all.emplace_back(v, 0);
    for (double v : b) all.emplace_back(v, 1);
    std::sort(all.begin(), all.end());
    double rank_a = 0.0;
    double ties = 0.0;
    for (std::size_t i = 0; i < all.size();) {
        std::size_t j = i;
        while (j < all.size() && all[j].first == all[i].first) ++j;
        const double rank = (static_cast<double>(i + j) + 1.0) / 2.0; // mean of ranks i+1..j
        for (std::size_t k = i; k < j; ++k)
            if (all[k].second == 0) rank_a += rank;
        const double t = static_cast<double>(j - i);
        ties += t * t * t - t;
        i = j;
    }
    const double u = rank_a - n1 * (n1 + 1.0) / 2.0;
    const double n = n1 + n2;
    const double variance = n1 * n2 / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
    if (variance <= 0.0) return 1.0;
    const double z = (std::abs(u - n1 * n2 / 2.0) - 0.5) / std::sqrt(variance);
    return std::erfc(std::max(z, 0.0) / std::sqrt(2.0));
}

double mean(const std::vector<double>& v) {
    double s = 0.0;
    for (double x : v) s += x;
    return v.empty() ? NAN : s / static_cast<double>(v.size());
}

std::string number(double v) {
    return std::isnan(v) ? "-" : fmt::format("{:.10g}", v);
}

std::string percent(double v) {
    return std::isnan(v) ? "-" : fmt::format("{:.3f}", v);
}

/// The largest file the plot script is given to read whole (instances, solutions, traces):
/// that of read_text_file (core/src/text.cpp) for instances and solutions.
constexpr std::uintmax_t kLargestPlotFile = std::uintmax_t{1} << 30;

/// "a character device" and the like: what a file that is not a regular file or a pipe is.
const char* file_kind(mode_t mode) {
    return S_ISCHR(mode)    ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
           : S_ISDIR(mode)  ? "a directory"
                            : "not a file";
}

/// Why the plot script cannot be given `file` to read ("" when it can): it must be a regular
/// file of at most kLargestPlotFile bytes.
std::string unreadable_plot_file(const fs::path& file, const char* what) {
    struct stat info {};
    if (::stat(file.c_str(), &info) != 0)
        return fmt::format("{} file '{}' cannot be read: {}", what, file.string(),
                           std::strerror(errno));
    if (!S_ISREG(info.st_mode))
        return fmt::format("{} file '{}' is not a regular file ({})", what, file.string(),
                           file_kind(info.st_mode));
    if (static_cast<std::uintmax_t>(info.st_size) > kLargestPlotFile)
        return fmt::format("{} file '{}' exceeds {} bytes (the largest {} file read)", what,
                           file.string(), kLargestPlotFile, what);
    return "";
}

/// The results files of an input: the file itself, or <dir>/results.jsonl. A regular file or
/// a pipe (`<(cat a b)`), read line by line.
fs::path results_file(const std::string& input) {
    const fs::path path(input);
    const fs::path file = fs::is_directory(path) ? path / "results.jsonl" : path;
    if (!fs::exists(file))
        throw ConfigError(fmt::format("report input '{}': no results file '{}'", input,
                                      file.string()));
    struct stat info {};
    if (::stat(file.c_str(), &info) == 0 && !S_ISREG(info.st_mode) && !S_ISFIFO(info.st_mode))
        throw ConfigError(fmt::format("report input '{}': results file '{}' is not a regular "
                                      "file or a pipe ({})",
                                      input, file.string(), file_kind(info.st_mode)));
    return file;
}

/// What the plots need of one instance: its problem, best-known value, instance file (or why
/// there is none) and runs.
struct PlotInstance {
    std::string problem;
    std::optional<double> best_known;
    std::string spec;                  ///< the instance as the experiment named it ("" if unknown)
    std::vector<fs::path> results_dirs; ///< directories of the results files naming it
    nlohmann::json runs = nlohmann::json::array();
};

/// The instance of an experiment's run: its key is "label|instance|seed|backend".
std::string instance_of_key(const nlohmann::json& j, const std::string& label) {
    if (!j.contains("experiment_key") || !j["experiment_key"].is_string()) return "";
    std::string key = j["experiment_key"].get<std::string>();
    if (!key.starts_with(label + "|")) return "";
    key = key.substr(label.size() + 1);
    for (int field = 0; field < 2; ++field) {
        const std::size_t bar = key.rfind('|');
        if (bar == std::string::npos) return "";
        key.resize(bar);
    }
    return key;
}

/// A file a run recorded (trace, solution, trajectory), found where it is now: in the run's
/// directory of an experiment (run_dir is relative to the experiment directory and holds the
/// directory of the job's run), at the path recorded, or in a directory of that name beside the
/// results file (a job's --out). "" when none exists.
std::string locate_run_file(const nlohmann::json& j, const char* key, const fs::path& results_dir) {
    if (!j.contains(key) || !j[key].is_string()) return "";
    const fs::path recorded(j[key].get<std::string>());
    const fs::path in_job_dir = recorded.parent_path().filename() / recorded.filename();
    std::vector<fs::path> candidates;
    if (j.contains("run_dir") && j["run_dir"].is_string())
        candidates.push_back(results_dir / j["run_dir"].get<std::string>() / in_job_dir);
    candidates.push_back(recorded);
    candidates.push_back(results_dir / in_job_dir);
    for (const fs::path& candidate : candidates) {
        std::error_code ec;
        if (fs::is_regular_file(candidate, ec) && unreadable_plot_file(candidate, key).empty())
            return fs::absolute(candidate).lexically_normal().string();
    }
    return "";
}

/// The instance file of an instance for its picture: {file, ""} or {"", why there is none}.
std::pair<std::string, std::string> locate_instance(const std::string& name,
                                                    const PlotInstance& instance) {
    const std::string& spec = instance.spec.empty() ? name : instance.spec;
    std::error_code ec;
    if (!fs::is_regular_file(spec, ec) && is_generator_spec(spec, ""))
        return {"", fmt::format("'{}' is a generated instance, with no file of coordinates", spec)};
    try {
        const fs::path file = resolve_data_file(spec, "instance file");
        // NOTE: the plot script reads it whole: a regular file of at most 1 GiB.
        if (std::string why = unreadable_plot_file(file, "instance"); !why.empty())
            return {"", why};
        return {fs::absolute(file).lexically_normal().string(), ""};
    } catch (const InstanceError& e) {
        for (const fs::path& dir : instance.results_dirs)
            if (fs::is_regular_file(dir / spec, ec))
                return {fs::absolute(dir / spec).lexically_normal().string(), ""};
        if (instance.spec.empty())
            return {"", fmt::format("its results lines name the instance '{}' but not its file "
                                    "(runs of 'locus experiment' record the file)",
                                    name)};
        return {"", e.what()};
    }
}

/// The time limit of a run, for the captions of its plots: the results line's time_limit_s
/// (peer runs record it), else termination.time_limit of the resolved configuration the line
/// records, else, for a run of `locus experiment`, the 'time_limit' of the spec that
/// experiment.json beside the results file names (the experiment gives every run that limit),
/// else null (not recorded). `spec_limits` caches the specs' limits per directory.
nlohmann::json run_time_limit(const nlohmann::json& j, const fs::path& results_dir,
                              std::map<fs::path, std::optional<double>>& spec_limits) {
    if (j.contains("time_limit_s") && j["time_limit_s"].is_number()) return j["time_limit_s"];
    if (j.contains("config") && j["config"].is_object() && j["config"].contains("termination") &&
        j["config"]["termination"].is_object()) {
        const nlohmann::json limit =
            j["config"]["termination"].value("time_limit", nlohmann::json());
        if (limit.is_number() && limit.get<double>() > 0) return limit;
    }
    if (!j.contains("experiment_key")) return nullptr;
    const auto [it, added] = spec_limits.try_emplace(results_dir);
    if (added) {
        try {
            const nlohmann::json stamp = nlohmann::json::parse(
                read_text_file(results_dir / "experiment.json", "experiment stamp"), nullptr,
                false);
            if (stamp.is_object() && stamp.contains("spec") && stamp["spec"].is_string()) {
                const YAML::Node spec =
                    YAML::Load(read_text_file(stamp["spec"].get<std::string>(), "experiment spec"));
                if (spec.IsMap() && spec["time_limit"] && spec["time_limit"].as<double>() > 0)
                    it->second = spec["time_limit"].as<double>();
            }
        } catch (const YAML::Exception&) {
            // a spec moved or changed since: the limit is not known
        } catch (const InstanceError&) {
            // no stamp, or a spec that cannot be read (16 MiB at most, not a device): not known
        }
    }
    return it->second ? nlohmann::json(*it->second) : nlohmann::json();
}

/// Where the plots come from: the script, and the Python that runs it ($LOCUS_PYTHON, else the
/// environment scripts/plots/setup creates, else python3 from the PATH).
struct PlotTools {
    std::string python;
    std::string script;
    std::vector<std::string> searched; ///< where the script was looked for, in order
    bool from_env = false;             ///< the one place is $LOCUS_PLOTS_SCRIPT
};

const char* env_or(const char* name, const char* fallback) {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0' ? value : fallback;
}

/// The plot script: $LOCUS_PLOTS_SCRIPT when set (used as it is, even when missing), else the
/// installed one (<prefix>/share/locus/plots/locus_plots.py for the launcher <prefix>/bin/locus,
/// from /proc/self/exe), else the one of the source tree this launcher was built from. `script`
/// is the first that exists, or the last looked at when none does.
PlotTools plot_tools() {
    PlotTools tools;
    std::error_code ec;
    if (const char* set = std::getenv("LOCUS_PLOTS_SCRIPT"); set != nullptr && *set != '\0') {
        tools.searched.push_back(set);
        tools.from_env = true;
    } else {
        const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
        if (!ec && !exe.empty())
            tools.searched.push_back(
                (exe.parent_path() / LOCUS_RELATIVE_PLOTS_SCRIPT).lexically_normal().string());
        tools.searched.push_back(LOCUS_PLOTS_SCRIPT);
    }
    tools.script = tools.searched.back();
    for (const std::string& candidate : tools.searched)
        if (fs::is_regular_file(candidate, ec)) {
            tools.script = candidate;
            break;
        }
    const fs::path venv_python = fs::path(LOCUS_PLOTS_VENV) / "bin" / "python";
    tools.python = env_or("LOCUS_PYTHON", fs::exists(venv_python, ec) ? venv_python.c_str()
                                                                       : "python3");
    return tools;
}

/// Runs argv[0] (searched in the PATH) with stdout and stderr captured. Exit status 127 with
/// the reason in the output when it cannot be started; 128 + N when signal N ended it.
std::pair<int, std::string> run_captured(const std::vector<std::string>& args) {
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) throw Error("report: cannot run the plot script: pipe failed");
    std::vector<char*> argv;
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) throw Error("report: cannot run the plot script: fork failed");
    if (pid == 0) {
        ::close(pipe_fds[0]);
        ::dup2(pipe_fds[1], STDOUT_FILENO);
        ::dup2(pipe_fds[1], STDERR_FILENO);
        ::execvp(argv[0], argv.data());
        const std::string why = fmt::format("cannot run '{}': {}", args[0], std::strerror(errno));
        [[maybe_unused]] const auto written = ::write(STDERR_FILENO, why.data(), why.size());
        ::_exit(127);
    }
    ::close(pipe_fds[1]);
    std::string output;
    char buffer[4096];
    for (;;) {
        const ssize_t got = ::read(pipe_fds[0], buffer, sizeof buffer);
        if (got > 0) output.append(buffer, static_cast<std::size_t>(got));
        else if (got == 0 || errno != EINTR) break;
    }
    ::close(pipe_fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return {code, output};
}

/// The last non-empty line of a text, trimmed.
std::string last_line(const std::string& text) {
    std::size_t end = text.find_last_not_of(" \t\r\n");
    if (end == std::string::npos) return "";
    const std::size_t begin = text.find_last_of('\n', end);
    return text.substr(begin == std::string::npos ? 0 : begin + 1,
                       end + 1 - (begin == std::string::npos ? 0 : begin + 1));
}

/// The markdown of a manifest entry (an instance, or the figures across all of them): its images
/// (paths relative to report.md), each with links to its PDF and SVG, and notes.
std::string plot_markdown(const nlohmann::json& entry) {
    std::string md;
    const auto file_of = [](const nlohmann::json& image, const char* key) {
        return image.contains(key) && image[key].is_string() ? image[key].get<std::string>()
                                                             : std::string();
    };
    for (const auto& image : entry.value("images", nlohmann::json::array())) {
        std::string alt = image.value("alt", std::string("plot"));
        std::replace(alt.begin(), alt.end(), '[', '(');
        std::replace(alt.begin(), alt.end(), ']', ')');
        md += fmt::format("\n![{}](plots/{})\n", alt, file_of(image, "file"));
        std::string vector;
        for (const auto& [key, name] : {std::pair{"pdf", "PDF"}, std::pair{"svg", "SVG"}})
            if (const std::string file = file_of(image, key); !file.empty())
                vector += fmt::format("{}[{}](plots/{})", vector.empty() ? "" : ", ", name, file);
        if (!vector.empty()) md += "\nAs vector graphics: " + vector + ".\n";
    }
    for (const auto& note : entry.value("notes", nlohmann::json::array()))
        if (note.is_string()) md += "\n" + note.get<std::string>() + "\n";
    return md;
}

/// The markdown the plots add to report.md: under each instance, and a section of the figures
/// across all instances (performance profile, final gaps) at the end.
struct PlotMarkdown {
    std::map<std::string, std::string> instances;
    std::string summary;
};

/// Draws the plots of `instances` into out/plots and returns the markdown to put under each
/// instance and after them all, or nullopt (after its one-line message) when no plots are drawn;
/// `status` is the exit status the report ends with.
std::optional<PlotMarkdown>
draw_plots(const std::map<std::string, PlotInstance>& instances,
           const std::vector<std::string>& labels, const fs::path& out, bool required,
           int& status) {
    const fs::path dir = out / "plots";
    fs::create_directories(dir);
    nlohmann::json runs = {{"labels", labels}, {"instances", nlohmann::json::array()}};
    for (const auto& [name, instance] : instances) {
        const auto [file, note] = locate_instance(name, instance);
        runs["instances"].push_back(
            {{"name", name},
             {"problem", instance.problem},
             {"best_known",
              instance.best_known ? nlohmann::json(*instance.best_known) : nlohmann::json()},
             {"instance_spec", instance.spec},
             {"instance_file", file.empty() ? nlohmann::json() : nlohmann::json(file)},
             {"instance_note", note},
             {"runs", instance.runs}});
    }
    const fs::path runs_file = dir / "runs.json";
    {
        std::ofstream f(runs_file);
        f << runs.dump(1) << '\n';
        if (!f) throw Error(fmt::format("report: cannot write '{}'", runs_file.string()));
    }

    const PlotTools tools = plot_tools();
    const std::string setup = fs::path(LOCUS_PLOTS_SETUP).string();
    const auto unavailable = [&](const std::string& why) {
        put_line(stderr, fmt::format("locus: {}no plots: {}; run {} (a Python environment with "
                                     "matplotlib at {}, which locus report uses), or pass "
                                     "--no-plots",
                                     required ? "error: " : "", why, setup, LOCUS_PLOTS_VENV));
        status = required ? kFailure : kOk;
        return std::nullopt;
    };
    std::error_code ec;
    if (!fs::is_regular_file(tools.script, ec)) {
        std::string where;
        for (const std::string& candidate : tools.searched)
            where += (where.empty() ? "" : ", ") + fmt::format("'{}'", candidate);
        return unavailable(fmt::format("no plot script (looked for {}{})", where,
                                       tools.from_env ? ", from LOCUS_PLOTS_SCRIPT" : ""));
    }
    const auto [code, output] =
        run_captured({tools.python, tools.script, runs_file.string(), dir.string()});
    if (code == 127)
        return unavailable(fmt::format("Python '{}' cannot be run ({})", tools.python,
                                       last_line(output)));
    if (code == 3) {
        // The script's line: "matplotlib is not importable by <python>: <why>".
        std::string why = last_line(output);
        const std::size_t colon = why.find(": ");
        if (why.starts_with("matplotlib is not importable") && colon != std::string::npos)
            why = why.substr(colon + 2);
        return unavailable(fmt::format("Python '{}' cannot import matplotlib ({})", tools.python,
                                       why));
    }
    if (code != 0) {
        // NOTE: the script's own output (a traceback) line by line, each a safe line.
        for (std::size_t at = 0; at < output.size();) {
            const std::size_t end = std::min(output.find('\n', at), output.size());
            put_line(stderr, std::string_view(output).substr(at, end - at));
            at = end + 1;
        }
        put_line(stderr, fmt::format("locus: error: the plot script {} failed (exit status {}, "
                                     "Python '{}'); report.md and report.csv are written without "
                                     "plots",
                                     tools.script, code, tools.python));
        status = kFailure;
        return std::nullopt;
    }
    const fs::path manifest_file = dir / "plots.json";
    nlohmann::json manifest;
    try {
        manifest = nlohmann::json::parse(read_text_file(manifest_file, "plot manifest"), nullptr,
                                         false);
    } catch (const InstanceError&) {
        manifest = nlohmann::json(nlohmann::json::value_t::discarded);
    }
    if (manifest.is_discarded() || !manifest.contains("instances") ||
        !manifest["instances"].is_array())
        throw Error(fmt::format("report: the plot script wrote no valid '{}'",
                                manifest_file.string()));
    PlotMarkdown markdown;
    std::size_t images = 0;
    for (const auto& entry : manifest["instances"]) {
        markdown.instances[entry.value("name", std::string())] = plot_markdown(entry);
        images += entry.value("images", nlohmann::json::array()).size();
    }
    if (manifest.contains("summary") && manifest["summary"].is_object()) {
        const nlohmann::json& summary = manifest["summary"];
        const std::string md = plot_markdown(summary);
        if (!md.empty()) markdown.summary = "\n## All instances\n" + md;
        images += summary.value("images", nlohmann::json::array()).size();
    }
    put_line(stderr, fmt::format("locus: {} plots drawn into {}", images, dir.string()));
    status = kOk;
    return markdown;
}

} // namespace

int run_report(const ReportOptions& options) {
    if (options.inputs.empty()) throw ConfigError("report: name at least one results input");
    if (options.plots && options.no_plots)
        throw ConfigError("report: --plots and --no-plots exclude each other");
    // (instance, label) -> cell; labels in order of appearance.
    std::map<std::string, std::map<std::string, Cell>> table;
    std::map<std::string, PlotInstance> plot_instances;
    std::map<fs::path, std::optional<double>> spec_limits; // per experiment directory
    std::vector<std::string> labels;
    std::size_t lines = 0;
    for (const std::string& input : options.inputs) {
        const fs::path file = results_file(input);
        const fs::path results_dir = file.parent_path().empty() ? fs::path(".")
                                                                : file.parent_path();
        std::ifstream in(file, std::ios::binary);
        std::string line;
        for (std::size_t number_ = 1; next_results_line(in, line, file, number_); ++number_) {
            if (line.empty()) continue;
            const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
            if (j.is_discarded() || !j.is_object() || !j.contains("instance") ||
                !j.contains("objective"))
                throw Error(fmt::format("{}:{}: corrupt results line", file.string(), number_));
            const std::string label = j.contains("label") ? j["label"].get<std::string>()
                                                          : j.value("name", std::string("run"));
            if (std::find(labels.begin(), labels.end(), label) == labels.end())
                labels.push_back(label);
            const std::string instance = j["instance"].get<std::string>();
            Cell& cell = table[instance][label];
            ++cell.runs;
            ++lines;
            if (j.contains("best_known") && j["best_known"].is_number())
                cell.best_known = j["best_known"].get<double>();

            PlotInstance& plot = plot_instances[instance];
            if (plot.problem.empty() && j.contains("problem") && j["problem"].is_string())
                plot.problem = j["problem"].get<std::string>();
            if (!plot.best_known) plot.best_known = cell.best_known;
            if (plot.spec.empty()) plot.spec = instance_of_key(j, label);
            if (std::find(plot.results_dirs.begin(), plot.results_dirs.end(), results_dir) ==
                plot.results_dirs.end())
                plot.results_dirs.push_back(results_dir);
            const auto field = [&j](const char* key) {
                return j.contains(key) && j[key].is_number() ? j[key] : nlohmann::json();
            };
            const auto located = [&](const char* key) {
                const std::string found = locate_run_file(j, key, results_dir);
                return found.empty() ? nlohmann::json() : nlohmann::json(found);
            };
            plot.runs.push_back(
                {{"label", label},
                 {"seed", field("seed")},
                 {"feasible", j.value("feasible", false) && j["objective"].is_number()},
                 {"objective", field("objective")},
                 {"objective_sense", j.value("objective_sense", std::string("minimize"))},
                 {"time_to_best_s", field("time_to_best_s")},
                 {"total_time_s", field("total_time_s")},
                 {"trace_file", located("trace_file")},
                 {"solution_file", located("solution_file")},
                 {"solution_file_recorded",
                  j.contains("solution_file") ? j["solution_file"] : nlohmann::json()},
                 {"trajectory_file", located("trajectory_file")},
                 {"backend", j.contains("backend") ? j["backend"] : nlohmann::json()},
                 {"device", j.contains("device") ? j["device"] : nlohmann::json()},
                 {"stop_reason", j.contains("stop_reason") ? j["stop_reason"] : nlohmann::json()},
                 {"time_limit_s", run_time_limit(j, results_dir, spec_limits)}});

            if (!j.value("feasible", false) || !j["objective"].is_number()) continue;
            cell.sign = j.value("objective_sense", "minimize") == "maximize" ? -1.0 : 1.0;
            cell.objectives.push_back(cell.sign * j["objective"].get<double>());
            if (j.contains("gap") && j["gap"].is_number()) cell.gaps.push_back(j["gap"].get<double>());
            if (j.contains("time_to_best_s") && j["time_to_best_s"].is_number())
                cell.times.push_back(j["time_to_best_s"].get<double>());
        }
    }
    if (lines == 0) throw ConfigError("report: the inputs hold no results");

    const fs::path out(options.out);
    fs::create_directories(out);
    std::ofstream csv(out / "report.csv");
    csv << "instance,label,runs,feasible_pct,best,mean,worst,best_gap_pct,mean_gap_pct,"
           "worst_gap_pct,mean_time_to_best_s\n";
    // The markdown of every instance, written once without plots, then again with them.
    const std::string md_head =
        fmt::format("# Report\n\n{} runs from {} input(s).\n", lines, options.inputs.size());
    std::vector<std::pair<std::string, std::string>> md_sections;
    for (const auto& [instance, cells] : table) {
        std::string md;
        md += "\n## " + instance + "\n\n" +
              "| config | runs | feasible | best | mean | worst | best gap % | mean gap % | "
              "worst gap % | mean time to best (s) |\n" +
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
        for (const std::string& label : labels) {
            const auto it = cells.find(label);
            if (it == cells.end()) continue;
            const Cell& c = it->second;
            const auto [lo, hi] = std::minmax_element(c.objectives.begin(), c.objectives.end());
            const double best = c.objectives.empty() ? NAN : c.sign * *lo;
            const double worst = c.objectives.empty() ? NAN : c.sign * *hi;
            const double average = c.sign * mean(c.objectives);
            const auto [glo, ghi] = std::minmax_element(c.gaps.begin(), c.gaps.end());
            const double feasible =
                100.0 * static_cast<double>(c.objectives.size()) / static_cast<double>(c.runs);
            md += fmt::format("| {} | {} | {:.0f} % | {} | {} | {} | {} | {} | {} | {} |\n", label,
                              c.runs, feasible, number(best), number(average),
                              number(worst), c.gaps.empty() ? "-" : percent(*glo),
                              percent(mean(c.gaps)), c.gaps.empty() ? "-" : percent(*ghi),
                              fmt::format("{:.3f}", mean(c.times)));
            csv << fmt::format("\"{}\",\"{}\",{},{:.1f},{},{},{},{},{},{},{}\n", instance, label,
                               c.runs, feasible, number(best), number(average),
                               number(worst), c.gaps.empty() ? "-" : percent(*glo),
                               percent(mean(c.gaps)), c.gaps.empty() ? "-" : percent(*ghi),
                               number(mean(c.times)));
        }
        // Pairwise comparisons of the objectives.
        std::vector<std::string> present;
        for (const std::string& label : labels)
            if (cells.count(label)) present.push_back(label);
        if (present.size() >= 2) {
            md += "\nMann-Whitney U on the objectives (two-sided p; * p < 0.05):\n\n";
            for (std::size_t a = 0; a < present.size(); ++a)
                for (std::size_t b = a + 1; b < present.size(); ++b) {
                    const Cell& x = cells.at(present[a]);
                    const Cell& y = cells.at(present[b]);
                    const double p = mann_whitney(x.objectives, y.objectives);
                    const double mx = mean(x.objectives);
                    const double my = mean(y.objectives);
                    md += fmt::format(
                        "- {} vs {}: p = {:.3g}{}{}\n", present[a], present[b], p,
                        p < 0.05 ? " *" : "",
                        p < 0.05 ? fmt::format(" ({} better)", mx < my ? present[a] : present[b])
                                 : "");
                }
        }
        md_sections.emplace_back(instance, md);
    }
    csv.close();
    if (!csv) throw Error(fmt::format("report: cannot write '{}'", (out / "report.csv").string()));
    const auto write_markdown = [&](const PlotMarkdown* plots) {
        const fs::path file = out / "report.md";
        const fs::path partial = out / "report.md.partial";
        {
            std::ofstream md(partial);
            md << md_head;
            for (const auto& [instance, text] : md_sections) {
                md << text;
                if (plots == nullptr) continue;
                const auto it = plots->instances.find(instance);
                if (it != plots->instances.end()) md << it->second;
            }
            if (plots != nullptr) md << plots->summary;
            if (!md) throw Error(fmt::format("report: cannot write '{}'", partial.string()));
        }
        fs::rename(partial, file);
    };
    write_markdown(nullptr);
    put_line(stderr, fmt::format("locus: report of {} runs written to {} and {}", lines,
                                 (out / "report.md").string(), (out / "report.csv").string()));
    if (options.no_plots) return kOk;

    int status = kOk;
    const auto plots = draw_plots(plot_instances, labels, out, options.plots, status);
    if (plots) write_markdown(&*plots);
    return status;
}

} // namespace locus::app
