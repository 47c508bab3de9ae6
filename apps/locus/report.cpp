// `locus report INPUT... --out R`: merges results files (or experiment directories) into one
// table per instance x label — runs, % feasible, best / mean / worst objective and gap, mean time
// to the best — written as R/report.md and R/report.csv, with a Mann-Whitney U test between
// every two labels of an instance. Then the plots: the runs, with their trace, solution and
// instance files found, go to R/plots/runs.json, and scripts/plots/locus_plots.py draws them
// (convergence, time to target, best solutions per instance; a performance profile and a box
// plot of final gaps across them) as PNG, PDF and SVG; report.md links what it drew (see
// report_plots.hpp).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <sys/stat.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "launcher.hpp"
#include "locus/error.hpp"
#include "report_plots.hpp"

namespace locus::app {
namespace {

namespace fs = std::filesystem;

struct Cell {
    /// Feasible runs, minimised: a maximisation problem's values are negated here (sign -1), so
    /// that the lowest is the best for every problem.
    std::vector<double> objectives;
    double sign = 1.0;
    std::vector<double> gaps;
    std::vector<double> times; ///< time to the best, feasible runs
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
    for (double v : a)
        all.emplace_back(v, 0);
    for (double v : b)
        all.emplace_back(v, 1);
    std::sort(all.begin(), all.end());
    double rank_a = 0.0;
    double ties = 0.0;
    for (std::size_t i = 0; i < all.size();) {
        std::size_t j = i;
        while (j < all.size() && all[j].first == all[i].first)
            ++j;
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
    for (double x : v)
        s += x;
    return v.empty() ? NAN : s / static_cast<double>(v.size());
}

std::string number(double v) { return std::isnan(v) ? "-" : fmt::format("{:.10g}", v); }

std::string percent(double v) { return std::isnan(v) ? "-" : fmt::format("{:.3f}", v); }

/// The results files of an input: the file itself, or <dir>/results.jsonl. A regular file or
/// a pipe (`<(cat a b)`), read line by line.
fs::path results_file(const std::string& input) {
    const fs::path path(input);
    const fs::path file = fs::is_directory(path) ? path / "results.jsonl" : path;
    if (!fs::exists(file))
        throw ConfigError(
            fmt::format("report input '{}': no results file '{}'", input, file.string()));
    struct stat info {};
    if (::stat(file.c_str(), &info) == 0 && !S_ISREG(info.st_mode) && !S_ISFIFO(info.st_mode))
        throw ConfigError(fmt::format("report input '{}': results file '{}' is not a regular "
                                      "file or a pipe ({})",
                                      input, file.string(), file_kind(info.st_mode)));
    return file;
}

/// The results lines of a report's inputs: one cell per instance and label, what the plots
/// need of each instance, the labels in order of appearance and the number of lines.
struct ReportData {
    std::map<std::string, std::map<std::string, Cell>> table; ///< (instance, label) -> cell
    std::map<std::string, PlotInstance> plot_instances;
    std::map<fs::path, std::optional<double>> spec_limits; ///< per experiment directory
    std::vector<std::string> labels;
    std::size_t lines = 0;
};

/// Adds the run of results line `j` (of a results file in `results_dir`) to `data`.
void add_run(ReportData& data, const nlohmann::json& j, const fs::path& results_dir) {
    const std::string label =
        j.contains("label") ? j["label"].get<std::string>() : j.value("name", std::string("run"));
    if (std::find(data.labels.begin(), data.labels.end(), label) == data.labels.end())
        data.labels.push_back(label);
    const std::string instance = j["instance"].get<std::string>();
    Cell& cell = data.table[instance][label];
    ++cell.runs;
    ++data.lines;
    if (j.contains("best_known") && j["best_known"].is_number())
        cell.best_known = j["best_known"].get<double>();

    PlotInstance& plot = data.plot_instances[instance];
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
         {"time_limit_s", run_time_limit(j, results_dir, data.spec_limits)}});

    if (!j.value("feasible", false) || !j["objective"].is_number()) return;
    cell.sign = j.value("objective_sense", "minimize") == "maximize" ? -1.0 : 1.0;
    cell.objectives.push_back(cell.sign * j["objective"].get<double>());
    if (j.contains("gap") && j["gap"].is_number()) cell.gaps.push_back(j["gap"].get<double>());
    if (j.contains("time_to_best_s") && j["time_to_best_s"].is_number())
        cell.times.push_back(j["time_to_best_s"].get<double>());
}

/// The results lines of every input (Error naming a corrupt line).
ReportData read_inputs(const std::vector<std::string>& inputs) {
    ReportData data;
    for (const std::string& input : inputs) {
        const fs::path file = results_file(input);
        const fs::path results_dir =
            file.parent_path().empty() ? fs::path(".") : file.parent_path();
        std::ifstream in(file, std::ios::binary);
        std::string line;
        for (std::size_t number_ = 1; next_results_line(in, line, file, number_); ++number_) {
            if (line.empty()) continue;
            const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
            if (j.is_discarded() || !j.is_object() || !j.contains("instance") ||
                !j.contains("objective"))
                throw Error(fmt::format("{}:{}: corrupt results line", file.string(), number_));
            add_run(data, j, results_dir);
        }
    }
    return data;
}

/// The markdown section of `instance` (its table and the pairwise tests), its rows also
/// written to `csv`.
std::string instance_section(const std::string& instance, const std::map<std::string, Cell>& cells,
                             const std::vector<std::string>& labels, std::ofstream& csv) {
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
        md +=
            fmt::format("| {} | {} | {:.0f} % | {} | {} | {} | {} | {} | {} | {} |\n", label,
                        c.runs, feasible, number(best), number(average), number(worst),
                        c.gaps.empty() ? "-" : percent(*glo), percent(mean(c.gaps)),
                        c.gaps.empty() ? "-" : percent(*ghi), fmt::format("{:.3f}", mean(c.times)));
        csv << fmt::format("\"{}\",\"{}\",{},{:.1f},{},{},{},{},{},{},{}\n", instance, label,
                           c.runs, feasible, number(best), number(average), number(worst),
                           c.gaps.empty() ? "-" : percent(*glo), percent(mean(c.gaps)),
                           c.gaps.empty() ? "-" : percent(*ghi), number(mean(c.times)));
    }
    // Pairwise comparisons of the objectives.
    std::vector<std::string> present;
    for (const std::string& label : labels)
        if (cells.count(label)) present.push_back(label);
    if (present.size() < 2) return md;
    md += "\nMann-Whitney U on the objectives (two-sided p; * p < 0.05):\n\n";
    for (std::size_t a = 0; a < present.size(); ++a)
        for (std::size_t b = a + 1; b < present.size(); ++b) {
            const Cell& x = cells.at(present[a]);
            const Cell& y = cells.at(present[b]);
            const double p = mann_whitney(x.objectives, y.objectives);
            const double mx = mean(x.objectives);
            const double my = mean(y.objectives);
            md += fmt::format(
                "- {} vs {}: p = {:.3g}{}{}\n", present[a], present[b], p, p < 0.05 ? " *" : "",
                p < 0.05 ? fmt::format(" ({} better)", mx < my ? present[a] : present[b]) : "");
        }
    return md;
}

/// Writes out/report.md (aside, then renamed): `head`, then each instance's section with its
/// plots when `plots` is given, then the plots across all instances.
void write_markdown(const fs::path& out, const std::string& head,
                    const std::vector<std::pair<std::string, std::string>>& sections,
                    const PlotMarkdown* plots) {
    const fs::path file = out / "report.md";
    const fs::path partial = out / "report.md.partial";
    {
        std::ofstream md(partial);
        md << head;
        for (const auto& [instance, text] : sections) {
            md << text;
            if (plots == nullptr) continue;
            const auto it = plots->instances.find(instance);
            if (it != plots->instances.end()) md << it->second;
        }
        if (plots != nullptr) md << plots->summary;
        if (!md) throw Error(fmt::format("report: cannot write '{}'", partial.string()));
    }
    fs::rename(partial, file);
}

} // namespace

int run_report(const ReportOptions& options) {
    if (options.inputs.empty()) throw ConfigError("report: name at least one results input");
    if (options.plots && options.no_plots)
        throw ConfigError("report: --plots and --no-plots exclude each other");
    const ReportData data = read_inputs(options.inputs);
    if (data.lines == 0) throw ConfigError("report: the inputs hold no results");

    const fs::path out(options.out);
    fs::create_directories(out);
    std::ofstream csv(out / "report.csv");
    csv << "instance,label,runs,feasible_pct,best,mean,worst,best_gap_pct,mean_gap_pct,"
           "worst_gap_pct,mean_time_to_best_s\n";
    // The markdown of every instance, written once without plots, then again with them.
    const std::string md_head =
        fmt::format("# Report\n\n{} runs from {} input(s).\n", data.lines, options.inputs.size());
    std::vector<std::pair<std::string, std::string>> md_sections;
    for (const auto& [instance, cells] : data.table)
        md_sections.emplace_back(instance, instance_section(instance, cells, data.labels, csv));
    csv.close();
    if (!csv) throw Error(fmt::format("report: cannot write '{}'", (out / "report.csv").string()));
    write_markdown(out, md_head, md_sections, nullptr);
    put_line(stderr, fmt::format("locus: report of {} runs written to {} and {}", data.lines,
                                 (out / "report.md").string(), (out / "report.csv").string()));
    if (options.no_plots) return kOk;

    int status = kOk;
    const auto plots = draw_plots(data.plot_instances, data.labels, out, options.plots, status);
    if (plots) write_markdown(out, md_head, md_sections, &*plots);
    return status;
}

} // namespace locus::app
