// `locus report INPUT... --out R`: merges results files (or experiment directories) into one
// table per instance x label — runs, % feasible, best / mean / worst objective and gap, mean time
// to the best — written as R/report.md and R/report.csv, with a Mann-Whitney U test between
// every two labels of an instance.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "launcher.hpp"
#include "locus/error.hpp"

namespace locus::app {
namespace {

namespace fs = std::filesystem;

struct Cell {
    std::vector<double> objectives; ///< feasible runs
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

/// The results files of an input: the file itself, or <dir>/results.jsonl.
fs::path results_file(const std::string& input) {
    const fs::path path(input);
    const fs::path file = fs::is_directory(path) ? path / "results.jsonl" : path;
    if (!fs::exists(file))
        throw ConfigError(fmt::format("report input '{}': no results file '{}'", input,
                                      file.string()));
    return file;
}

} // namespace

int run_report(const ReportOptions& options) {
    if (options.inputs.empty()) throw ConfigError("report: name at least one results input");
    // (instance, label) -> cell; labels in order of appearance.
    std::map<std::string, std::map<std::string, Cell>> table;
    std::vector<std::string> labels;
    std::size_t lines = 0;
    for (const std::string& input : options.inputs) {
        const fs::path file = results_file(input);
        std::ifstream in(file);
        std::string line;
        for (std::size_t number_ = 1; std::getline(in, line); ++number_) {
            if (line.empty()) continue;
            const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
            if (j.is_discarded() || !j.is_object() || !j.contains("instance") ||
                !j.contains("objective"))
                throw Error(fmt::format("{}:{}: corrupt results line", file.string(), number_));
            const std::string label = j.contains("label") ? j["label"].get<std::string>()
                                                          : j.value("name", std::string("run"));
            if (std::find(labels.begin(), labels.end(), label) == labels.end())
                labels.push_back(label);
            Cell& cell = table[j["instance"].get<std::string>()][label];
            ++cell.runs;
            ++lines;
            if (j.contains("best_known") && j["best_known"].is_number())
                cell.best_known = j["best_known"].get<double>();
            if (!j.value("feasible", false) || !j["objective"].is_number()) continue;
            cell.objectives.push_back(j["objective"].get<double>());
            if (j.contains("gap") && j["gap"].is_number()) cell.gaps.push_back(j["gap"].get<double>());
            if (j.contains("time_to_best_s") && j["time_to_best_s"].is_number())
                cell.times.push_back(j["time_to_best_s"].get<double>());
        }
    }
    if (lines == 0) throw ConfigError("report: the inputs hold no results");

    const fs::path out(options.out);
    fs::create_directories(out);
    std::ofstream md(out / "report.md");
    std::ofstream csv(out / "report.csv");
    csv << "instance,label,runs,feasible_pct,best,mean,worst,best_gap_pct,mean_gap_pct,"
           "worst_gap_pct,mean_time_to_best_s\n";
    md << "# Report\n\n" << lines << " runs from " << options.inputs.size() << " input(s).\n";
    for (const auto& [instance, cells] : table) {
        md << "\n## " << instance << "\n\n"
           << "| config | runs | feasible | best | mean | worst | best gap % | mean gap % | "
              "worst gap % | mean time to best (s) |\n"
           << "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
        for (const std::string& label : labels) {
            const auto it = cells.find(label);
            if (it == cells.end()) continue;
            const Cell& c = it->second;
            const auto [lo, hi] = std::minmax_element(c.objectives.begin(), c.objectives.end());
            const double best = c.objectives.empty() ? NAN : *lo;
            const double worst = c.objectives.empty() ? NAN : *hi;
            const auto [glo, ghi] = std::minmax_element(c.gaps.begin(), c.gaps.end());
            const double feasible =
                100.0 * static_cast<double>(c.objectives.size()) / static_cast<double>(c.runs);
            md << fmt::format("| {} | {} | {:.0f} % | {} | {} | {} | {} | {} | {} | {} |\n", label,
                              c.runs, feasible, number(best), number(mean(c.objectives)),
                              number(worst), c.gaps.empty() ? "-" : percent(*glo),
                              percent(mean(c.gaps)), c.gaps.empty() ? "-" : percent(*ghi),
                              fmt::format("{:.3f}", mean(c.times)));
            csv << fmt::format("\"{}\",\"{}\",{},{:.1f},{},{},{},{},{},{},{}\n", instance, label,
                               c.runs, feasible, number(best), number(mean(c.objectives)),
                               number(worst), c.gaps.empty() ? "-" : percent(*glo),
                               percent(mean(c.gaps)), c.gaps.empty() ? "-" : percent(*ghi),
                               number(mean(c.times)));
        }
        // Pairwise comparisons of the objectives.
        std::vector<std::string> present;
        for (const std::string& label : labels)
            if (cells.count(label)) present.push_back(label);
        if (present.size() < 2) continue;
        md << "\nMann-Whitney U on the objectives (two-sided p; * p < 0.05):\n\n";
        for (std::size_t a = 0; a < present.size(); ++a)
            for (std::size_t b = a + 1; b < present.size(); ++b) {
                const Cell& x = cells.at(present[a]);
                const Cell& y = cells.at(present[b]);
                const double p = mann_whitney(x.objectives, y.objectives);
                const double mx = mean(x.objectives);
                const double my = mean(y.objectives);
                md << fmt::format("- {} vs {}: p = {:.3g}{}{}\n", present[a], present[b], p,
                                  p < 0.05 ? " *" : "",
                                  p < 0.05 ? (mx < my ? fmt::format(" ({} lower)", present[a])
                                                      : fmt::format(" ({} lower)", present[b]))
                                           : "");
            }
    }
    std::fprintf(stderr, "locus: report of %zu runs written to %s and %s\n", lines,
                 (out / "report.md").string().c_str(), (out / "report.csv").string().c_str());
    return kOk;
}

} // namespace locus::app
