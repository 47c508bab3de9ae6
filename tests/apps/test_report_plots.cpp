// The plots of `locus report`: a tiny TSP, CVRP and grid-path experiment with traces gives valid
// PNGs (convergence, time to target, best tour, routes and paths) linked from report.md, and a
// generated instance gets a line instead of a picture; without a usable Python or matplotlib
// the tables are still written, with one line saying how to get the plots.
//
// The first test needs the plotting environment (.venv-plots, from scripts/plots/setup); it
// runs the setup when the environment is missing and skips only when it cannot be created.

#include <doctest/doctest.h>

#include <cstdint>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "launcher_helpers.hpp"

using namespace locus::test;
namespace fs = std::filesystem;

namespace {

const fs::path kVenvPython = source_dir() / ".venv-plots" / "bin" / "python";

/// True when the plotting environment imports matplotlib, after running the setup script if it
/// did not; `why` gets the setup's output otherwise.
bool plotting_environment(std::string& why) {
    const std::string probe = quoted(kVenvPython.string()) + " -c 'import matplotlib, numpy'";
    if (run_command(probe).exit_code == 0) return true;
    const auto setup =
        run_command("bash " + quoted((source_dir() / "scripts" / "plots" / "setup").string()));
    why = setup.output;
    return setup.exit_code == 0 && run_command(probe).exit_code == 0;
}

/// A CVRPLIB instance of 12 customers around a depot that is file node 3, written with CRLF
/// line ends and tabs.
fs::path write_cvrp(const fs::path& file) {
    std::ostringstream text;
    text << "NAME :\tplotvrp\r\nTYPE : CVRP\r\nDIMENSION : 13\r\nCAPACITY : 10\r\n"
            "EDGE_WEIGHT_TYPE : EUC_2D\r\nNODE_COORD_SECTION\r\n";
    std::uint64_t state = 12345;
    const auto next = [&state] {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<int>((state >> 33) % 100);
    };
    for (int id = 1; id <= 13; ++id)
        if (id == 3)
            text << id << "\t50\t50\r\n";
        else
            text << id << '\t' << next() << '\t' << next() << "\r\n";
    text << "DEMAND_SECTION\r\n";
    for (int id = 1; id <= 13; ++id)
        text << id << ' ' << (id == 3 ? 0 : 1 + id % 4) << "\r\n";
    text << "DEPOT_SECTION\r\n 3\r\n -1\r\nEOF\r\n";
    write_file(file, text.str());
    return file;
}

/// A 12 x 12 Moving AI map with a wall, and a scenario of three agents.
void write_grid(const fs::path& map, const fs::path& scen) {
    std::string text = "type octile\nheight 12\nwidth 12\nmap\n";
    for (int y = 0; y < 12; ++y) {
        for (int x = 0; x < 12; ++x)
            text += (x == 6 && y >= 2 && y <= 9) ? '@' : '.';
        text += '\n';
    }
    write_file(map, text);
    std::string rows = "version 1\n";
    const int cells[3][4] = {{1, 1, 10, 10}, {2, 9, 9, 2}, {10, 0, 0, 11}};
    for (const auto& c : cells)
        rows += "0\t" + map.filename().string() + "\t12\t12\t" + std::to_string(c[0]) + "\t" +
                std::to_string(c[1]) + "\t" + std::to_string(c[2]) + "\t" + std::to_string(c[3]) +
                "\t5.0\n";
    write_file(scen, rows);
}

std::string experiment(const fs::path& dir, const std::string& name, const std::string& configs,
                       const std::string& instances, int seeds) {
    const fs::path spec = dir / (name + ".yaml");
    write_file(spec, "name: " + name + "\nconfigs:\n" + configs + "instances: [" + instances +
                         "]\nseeds: " + std::to_string(seeds) +
                         "\nbackends: [cpu]\ntime_limit: 0.3\n");
    const fs::path out = dir / name;
    const auto r =
        run_locus("experiment " + quoted(spec.string()) + " --out " + quoted(out.string()));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    return out.string();
}

/// The targets of the image links of a markdown text: "](plots/...)".
std::vector<std::string> image_links(const std::string& md) {
    std::vector<std::string> links;
    const std::regex link(R"(!\[[^\]]*\]\((plots/[^)]+)\))");
    for (auto it = std::sregex_iterator(md.begin(), md.end(), link); it != std::sregex_iterator();
         ++it)
        links.push_back((*it)[1].str());
    return links;
}

bool valid_png(const fs::path& file) {
    const std::string bytes = read_text(file);
    return bytes.size() > 4000 && bytes.starts_with("\x89PNG\r\n\x1a\n") &&
           bytes.find("IEND") != std::string::npos;
}

/// Results lines of two labels on one instance, without traces or solutions.
void write_results(const fs::path& file) {
    std::string text;
    for (int k = 0; k < 3; ++k)
        for (const char* label : {"A", "B"})
            text +=
                nlohmann::json{{"instance", "x"},      {"problem", "tsp"}, {"label", label},
                               {"objective", 100 + k}, {"feasible", true}, {"time_to_best_s", 0.5},
                               {"total_time_s", 1.0}}
                    .dump() +
                "\n";
    write_file(file, text);
}

} // namespace

TEST_CASE("locus report: convergence, time-to-target and best-solution plots of TSP, CVRP and "
          "grid paths, linked from report.md") {
    std::string why;
    if (!plotting_environment(why)) {
        MESSAGE("skipped: no plotting environment (scripts/plots/setup failed):\n" << why);
        return;
    }
    const fs::path dir = temp_dir("report-plots");
    write_tsplib(dir / "plotrnd.tsp", "plotrnd", 40, 7);
    write_cvrp(dir / "plotvrp.vrp");
    write_grid(dir / "wall.map", dir / "wall.scen");
    const std::string tsp_config = (source_dir() / "configs" / "tsp" / "ils.yaml").string();
    const std::string tsp =
        experiment(dir, "tsp",
                   "  - {file: " + tsp_config + ", label: ils}\n  - {file: " + tsp_config +
                       ", label: ils-restart, set: [\"algorithm.restart_after=50\"]}\n",
                   quoted((dir / "plotrnd.tsp").string()) + ", 'random-uniform:n=30,seed=1'", 2);
    const std::string vrp = experiment(
        dir, "vrp",
        "  - {file: " + (source_dir() / "configs" / "dcvrp" / "ils.yaml").string() +
            ", label: ils}\n  - {file: " +
            (source_dir() / "configs" / "dcvrp" / "descent.yaml").string() + ", label: vnd}\n",
        quoted((dir / "plotvrp.vrp").string()), 2);
    write_file(dir / "beam.yaml",
               "problem: {name: gridpath, instance: " + (dir / "wall.map").string() +
                   ", scenario: " + (dir / "wall.scen").string() +
                   "}\nconstruction: start\nalgorithm: {name: beam_search, width: 8, successors: "
                   "4, generator: {name: window_moves, window: 3}}\nbackend: cpu\n");
    const std::string grid =
        experiment(dir, "grid", "  - {file: " + (dir / "beam.yaml").string() + ", label: beam}\n",
                   quoted((dir / "wall.map").string()), 1);

    const fs::path rep = dir / "rep";
    const auto r = run_locus("report " + quoted(tsp) + " " + quoted(vrp) + " " + quoted(grid) +
                             " --plots --out " + quoted(rep.string()));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.find("plots drawn into") != std::string::npos);
    const std::string md = read_text(rep / "report.md");
    CHECK(fs::exists(rep / "report.csv"));
    const auto links = image_links(md);
    const std::set<std::string> linked(links.begin(), links.end());
    for (const std::string& link : links) {
        INFO(link);
        CHECK(valid_png(rep / link));
    }
    // Per instance: convergence and time to target; pictures of the best solution of every
    // label on an instance file.
    for (const char* file :
         {"plotrnd-convergence.png", "plotrnd-ttt.png", "plotrnd-ils-solution.png",
          "plotrnd-ils-restart-solution.png", "random-uniform_n_30_seed_1-convergence.png",
          "random-uniform_n_30_seed_1-ttt.png", "plotvrp-convergence.png", "plotvrp-ttt.png",
          "plotvrp-ils-solution.png", "plotvrp-vnd-solution.png",
          "wall.scen_3_agents-convergence.png", "wall.scen_3_agents-beam-solution.png"}) {
        INFO(file);
        CHECK(linked.count(std::string("plots/") + file) == 1);
    }
    CHECK(links.size() == 13); // the above and the grid's time to target
    // The images of an instance come under its own heading.
    const std::size_t vrp_heading = md.find("\n## plotvrp\n");
    REQUIRE(vrp_heading != std::string::npos);
    const std::size_t vrp_picture = md.find("(plots/plotvrp-vnd-solution.png)");
    CHECK(vrp_picture > vrp_heading);
    CHECK(md.find("\n## ", vrp_heading + 1) > vrp_picture);
    // The generated instance: no picture, and a line saying why.
    CHECK(md.find("No picture of the best tour: 'random-uniform:n=30,seed=1' is a generated "
                  "instance, with no file of coordinates.") != std::string::npos);
    CHECK(linked.count("plots/random-uniform_n_30_seed_1-ils-solution.png") == 0);
}

TEST_CASE("locus report without a usable Python or matplotlib: the tables, one line on how to "
          "get the plots, exit 0 unless --plots") {
    const fs::path dir = temp_dir("report-bare");
    write_results(dir / "results.jsonl");
    const std::string args = "report " + quoted(dir.string()) + " --out ";
    const auto tables_written = [](const fs::path& rep) {
        const std::string md = read_text(rep / "report.md");
        CHECK(md.find("| A | 3 | 100 % | 100 | 101 | 102 |") != std::string::npos);
        CHECK(md.find("](plots/") == std::string::npos);
        CHECK(read_lines(rep / "report.csv").size() == 3);
    };
    const std::string setup = (source_dir() / "scripts" / "plots" / "setup").string();

    // No Python at all.
    const std::string no_python = "LOCUS_PYTHON=" + quoted((dir / "no-python3").string());
    auto r = run_locus(args + quoted((dir / "r1").string()), no_python);
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("locus: no plots: Python '" + (dir / "no-python3").string() +
                        "' cannot be run (cannot run") != std::string::npos);
    CHECK(r.output.find("; run " + setup + " (a Python environment with matplotlib") !=
          std::string::npos);
    CHECK(r.output.find("or pass --no-plots") != std::string::npos);
    tables_written(dir / "r1");

    // Asked for explicitly: the same line as an error, a nonzero status, the tables written.
    r = run_locus(args + quoted((dir / "r2").string()) + " --plots", no_python);
    CHECK(r.exit_code == 1);
    CHECK(r.output.find("locus: error: no plots: Python '") != std::string::npos);
    tables_written(dir / "r2");

    // --no-plots: no Python is run and nothing is said about plots.
    r = run_locus(args + quoted((dir / "r3").string()) + " --no-plots", no_python);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("plots") == std::string::npos);
    CHECK_FALSE(fs::exists(dir / "r3" / "plots"));
    tables_written(dir / "r3");
    r = run_locus(args + quoted((dir / "r4").string()) + " --plots --no-plots");
    CHECK(r.exit_code == 2);

    // A script that fails: its output, an error naming it, exit 1, the tables written.
    write_file(dir / "failing.sh", "echo 'plot script trouble' >&2\nexit 5\n");
    r = run_locus(args + quoted((dir / "r5").string()), "LOCUS_PYTHON=/bin/sh LOCUS_PLOTS_SCRIPT=" +
                                                            quoted((dir / "failing.sh").string()));
    CHECK(r.exit_code == 1);
    CHECK(r.output.find("plot script trouble") != std::string::npos);
    CHECK(r.output.find("locus: error: the plot script " + (dir / "failing.sh").string() +
                        " failed (exit status 5") != std::string::npos);
    tables_written(dir / "r5");

    // A Python that cannot import matplotlib (site-packages off).
    if (run_command("command -v python3").exit_code != 0) {
        MESSAGE("no python3 on the PATH: the case of a Python without matplotlib is skipped");
        return;
    }
    write_file(dir / "bare-python", "#!/bin/sh\nexec python3 -S -E \"$@\"\n");
    fs::permissions(dir / "bare-python", fs::perms::owner_all);
    r = run_locus(args + quoted((dir / "r6").string()),
                  "LOCUS_PYTHON=" + quoted((dir / "bare-python").string()));
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("locus: no plots: Python '" + (dir / "bare-python").string() +
                        "' cannot import matplotlib (No module named 'matplotlib')") !=
          std::string::npos);
    CHECK(r.output.find("; run " + setup) != std::string::npos);
    tables_written(dir / "r6");
}
