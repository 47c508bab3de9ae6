#pragma once
/// \file
/// The plots of `locus report`: what they need of each instance and run (files found where they
/// are now), and the drawing by scripts/plots/locus_plots.py, whose manifest says what report.md
/// links.

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace locus::app {

/// "a character device" and the like: what a file that is not a regular file or a pipe is.
const char* file_kind(mode_t mode);

/// What the plots need of one instance: its problem, best-known value, instance file (or why
/// there is none) and runs.
struct PlotInstance {
    std::string problem;
    std::optional<double> best_known;
    std::string spec; ///< the instance as the experiment named it ("" if unknown)
    std::vector<std::filesystem::path> results_dirs; ///< directories of the results files naming it
    nlohmann::json runs = nlohmann::json::array();
};

/// The instance of an experiment's run: its key is "label|instance|seed|backend".
std::string instance_of_key(const nlohmann::json& j, const std::string& label);

/// A file a run recorded (trace, solution, trajectory), found where it is now: in the run's
/// directory of an experiment (run_dir is relative to the experiment directory and holds the
/// directory of the job's run), at the path recorded, or in a directory of that name beside the
/// results file (a job's --out). "" when none exists.
std::string locate_run_file(const nlohmann::json& j, const char* key,
                            const std::filesystem::path& results_dir);

/// The time limit of a run, for the captions of its plots: the results line's time_limit_s
/// (peer runs record it), else termination.time_limit of the resolved configuration the line
/// records, else, for a run of `locus experiment`, the 'time_limit' of the spec that
/// experiment.json beside the results file names (the experiment gives every run that limit),
/// else null (not recorded). `spec_limits` caches the specs' limits per directory.
nlohmann::json run_time_limit(const nlohmann::json& j, const std::filesystem::path& results_dir,
                              std::map<std::filesystem::path, std::optional<double>>& spec_limits);

/// The markdown the plots add to report.md: under each instance, and a section of the figures
/// across all instances (performance profile, final gaps) at the end.
struct PlotMarkdown {
    std::map<std::string, std::string> instances;
    std::string summary;
};

/// Draws the plots of `instances` into out/plots and returns the markdown to put under each
/// instance and after them all, or nullopt (after its one-line message) when no plots are drawn;
/// `status` is the exit status the report ends with.
std::optional<PlotMarkdown> draw_plots(const std::map<std::string, PlotInstance>& instances,
                                       const std::vector<std::string>& labels,
                                       const std::filesystem::path& out, bool required,
                                       int& status);

} // namespace locus::app
