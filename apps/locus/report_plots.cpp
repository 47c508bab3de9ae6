// The plots of `locus report` (see report_plots.hpp).

#include "report_plots.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <utility>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "launcher.hpp"
#include "locus/data_path.hpp"
#include "locus/error.hpp"
#include "locus/generator_spec.hpp"
#include "locus/text.hpp"
#include "spec_keys.hpp"

// The plot script relative to the launcher's directory once installed (CMake sets it from the
// install directories).
#ifndef LOCUS_RELATIVE_PLOTS_SCRIPT
#define LOCUS_RELATIVE_PLOTS_SCRIPT "../share/locus/plots/locus_plots.py"
#endif

namespace locus::app {
namespace {

namespace fs = std::filesystem;

/// The largest file the plot script is given to read whole (instances, solutions, traces):
/// that of read_text_file (core/src/text.cpp) for instances and solutions.
constexpr std::uintmax_t kLargestPlotFile = std::uintmax_t{1} << 30;

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
    tools.python =
        env_or("LOCUS_PYTHON", fs::exists(venv_python, ec) ? venv_python.c_str() : "python3");
    return tools;
}

/// Runs argv[0] (searched in the PATH) with stdout and stderr captured. Exit status 127 with
/// the reason in the output when it cannot be started; 128 + N when signal N ended it.
std::pair<int, std::string> run_captured(const std::vector<std::string>& args) {
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) throw Error("report: cannot run the plot script: pipe failed");
    std::vector<char*> argv;
    std::vector<std::string> copy = args;
    for (std::string& a : copy)
        argv.push_back(a.data());
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
        if (got > 0)
            output.append(buffer, static_cast<std::size_t>(got));
        else if (got == 0 || errno != EINTR)
            break;
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

} // namespace

const char* file_kind(mode_t mode) {
    return S_ISCHR(mode)    ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
           : S_ISDIR(mode)  ? "a directory"
                            : "not a file";
}

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
                // NOTE: the spec's time_limit as the experiment read it (spec_keys).
                const fs::path spec_file = stamp["spec"].get<std::string>();
                const std::string text = read_text_file(spec_file, "experiment spec");
                const YAML::Node spec = YAML::Load(text);
                if (spec.IsMap()) {
                    const double limit = spec_keys(text, spec, spec_file).time_limit;
                    if (limit > 0) it->second = limit;
                }
            }
        } catch (const YAML::Exception&) {
            // a spec moved or changed since: the limit is not known
        } catch (const ConfigError&) {
            // a spec whose keys no longer pass their checks: not known
        } catch (const InstanceError&) {
            // no stamp, or a spec that cannot be read (16 MiB at most, not a device): not known
        }
    }
    return it->second ? nlohmann::json(*it->second) : nlohmann::json();
}

std::optional<PlotMarkdown> draw_plots(const std::map<std::string, PlotInstance>& instances,
                                       const std::vector<std::string>& labels, const fs::path& out,
                                       bool required, int& status) {
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
        return unavailable(
            fmt::format("Python '{}' cannot be run ({})", tools.python, last_line(output)));
    if (code == 3) {
        // The script's line: "matplotlib is not importable by <python>: <why>".
        std::string why = last_line(output);
        const std::size_t colon = why.find(": ");
        if (why.starts_with("matplotlib is not importable") && colon != std::string::npos)
            why = why.substr(colon + 2);
        return unavailable(
            fmt::format("Python '{}' cannot import matplotlib ({})", tools.python, why));
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
        manifest =
            nlohmann::json::parse(read_text_file(manifest_file, "plot manifest"), nullptr, false);
    } catch (const InstanceError&) {
        manifest = nlohmann::json(nlohmann::json::value_t::discarded);
    }
    if (manifest.is_discarded() || !manifest.contains("instances") ||
        !manifest["instances"].is_array())
        throw Error(
            fmt::format("report: the plot script wrote no valid '{}'", manifest_file.string()));
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

} // namespace locus::app
