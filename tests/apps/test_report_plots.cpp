// The plots of `locus report`: a tiny TSP, CVRP and grid-path experiment with traces gives valid
// PNG, PDF and SVG files (convergence, time to target, best tour, routes and paths per instance;
// performance profile and final gaps across them) linked from report.md, and a generated
// instance gets a line instead of a picture; a maximisation report says "maximised", "gap below
// best known", "at or above" and "best known − 1 %", and its captions name the time limit,
// backend and device (plots.json records every figure's labels). Without a usable Python or
// matplotlib the tables are still written, with one line saying how to get the plots; an
// installed launcher finds the script under share/locus/plots.
//
// The cases of the test suite "plots" need the plotting environment (.venv-plots, from
// scripts/plots/setup); they run the setup when the environment is missing and are reported as
// skipped (exit 77) only when it cannot be created.

#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
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

bool valid_pdf(const fs::path& file) {
    const std::string bytes = read_text(file);
    return bytes.size() > 2000 && bytes.starts_with("%PDF-") &&
           bytes.find("%%EOF", bytes.size() - 64) != std::string::npos;
}

/// The SVG files among `files` that Python's XML parser rejects or whose root is not <svg>
/// (one name a line; "" when all parse).
std::string bad_svgs(const std::vector<fs::path>& files) {
    std::string args;
    for (const fs::path& f : files)
        args += " " + quoted(f.string());
    const auto r =
        run_command(quoted(kVenvPython.string()) +
                    " -c 'import sys, xml.etree.ElementTree as E\n"
                    "for f in sys.argv[1:]:\n"
                    "    try:\n"
                    "        ok = E.parse(f).getroot().tag == \"{http://www.w3.org/2000/svg}svg\"\n"
                    "    except E.ParseError:\n"
                    "        ok = False\n"
                    "    print(\"\" if ok else f)'" +
                    args);
    std::string bad;
    for (std::size_t at = 0; at < r.output.size();) {
        const std::size_t end = std::min(r.output.find('\n', at), r.output.size());
        if (end > at) bad += r.output.substr(at, end - at) + "\n";
        at = end + 1;
    }
    return r.exit_code == 0 ? bad : "python failed: " + r.output;
}

/// plots.json of a report (an empty object when it cannot be read).
nlohmann::json manifest(const fs::path& rep) {
    std::ifstream in(rep / "plots" / "plots.json");
    nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    return j.is_discarded() ? nlohmann::json::object() : j;
}

/// Every image of a manifest: those of its instances, then those across them.
std::vector<nlohmann::json> all_images(const nlohmann::json& m) {
    std::vector<nlohmann::json> images;
    for (const auto& entry : m.value("instances", nlohmann::json::array()))
        for (const auto& image : entry.value("images", nlohmann::json::array()))
            images.push_back(image);
    for (const auto& image :
         m.value("summary", nlohmann::json::object()).value("images", nlohmann::json::array()))
        images.push_back(image);
    return images;
}

/// The image of `kind` of instance `name` in a manifest ("" for the figures across instances);
/// null when there is none.
nlohmann::json image_of(const nlohmann::json& m, const std::string& name, const std::string& kind) {
    const auto find_in = [&](const nlohmann::json& entry) {
        for (const auto& image : entry.value("images", nlohmann::json::array()))
            if (image.value("kind", std::string()) == kind) return image;
        return nlohmann::json();
    };
    if (name.empty()) return find_in(m.value("summary", nlohmann::json::object()));
    for (const auto& entry : m.value("instances", nlohmann::json::array()))
        if (entry.value("name", std::string()) == name) return find_in(entry);
    return nlohmann::json();
}

/// Every figure of a report: its PNG, PDF and SVG are valid, the manifest lists them, its
/// smallest text is 8 pt or more at a real size of a page's width or less, and no axis shows an
/// offset or a multiplier.
void check_figures(const fs::path& rep) {
    const nlohmann::json m = manifest(rep);
    const auto images = all_images(m);
    CHECK_FALSE(images.empty());
    std::vector<fs::path> svgs;
    for (const auto& image : images) {
        const std::string png = image.value("file", std::string());
        INFO(png);
        CHECK(valid_png(rep / "plots" / png));
        const std::string stem = png.substr(0, png.size() - 4);
        CHECK(image.value("pdf", std::string()) == stem + ".pdf");
        CHECK(image.value("svg", std::string()) == stem + ".svg");
        CHECK(valid_pdf(rep / "plots" / (stem + ".pdf")));
        CHECK(read_text(rep / "plots" / (stem + ".svg")).find("<svg") != std::string::npos);
        svgs.push_back(rep / "plots" / (stem + ".svg"));
        CHECK(image.value("min_font_pt", 0.0) >= 8.0);
        CHECK(image.value("size_in", nlohmann::json::array({99})).at(0).get<double>() <= 7.5);
        REQUIRE(image.contains("labels"));
        const nlohmann::json& labels = image["labels"];
        CHECK(labels.value("offsets", nlohmann::json::array()).empty());
        CHECK_FALSE(labels.value("caption", std::string()).empty());
        const nlohmann::json ticks = labels.value("ticks", nlohmann::json::object());
        for (const char* axis : {"x", "y"})
            for (const auto& tick : ticks.value(axis, nlohmann::json::array())) {
                INFO(tick.get<std::string>());
                CHECK(std::regex_search(tick.get<std::string>(), std::regex("[0-9]e|×|\\^")) ==
                      false);
            }
    }
    CHECK(bad_svgs(svgs) == "");
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
          "grid paths, a performance profile and final gaps across them, as PNG, PDF and SVG "
          "linked from report.md" *
          doctest::test_suite("plots")) {
    std::string why;
    if (!plotting_environment(why)) {
        skip_test("no plotting environment (scripts/plots/setup failed):\n" + why);
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
    // Across the instances: the performance profile of the configs (ils ran on two instances
    // with another config, ils-restart and vnd on one; beam alone on its instance) and the
    // box plot of final gaps (against the best found: no instance has a best-known value).
    for (const char* file : {"performance-profile.png", "final-gaps.png"}) {
        INFO(file);
        CHECK(linked.count(std::string("plots/") + file) == 1);
    }
    CHECK(links.size() == 15); // the above and the grid's time to target
    check_figures(rep);
    for (const std::string& link : links) {
        const std::string stem = link.substr(0, link.size() - 4);
        INFO(stem);
        CHECK(md.find("As vector graphics: [PDF](" + stem + ".pdf), [SVG](" + stem + ".svg).") !=
              std::string::npos);
    }
    const std::size_t across = md.find("\n## All instances\n");
    REQUIRE(across != std::string::npos);
    CHECK(md.find("(plots/performance-profile.png)") > across);
    CHECK(md.find("(plots/final-gaps.png)") > across);
    CHECK(md.find("\n## ", across + 1) == std::string::npos);
    const nlohmann::json m = manifest(rep);
    nlohmann::json profile = image_of(m, "", "performance-profile");
    REQUIRE(profile.is_object());
    auto& configs = profile["labels"]["configs"];
    CHECK(configs["ils"]["instances"] == 3); // plotrnd, the generated instance, plotvrp
    CHECK(configs["ils-restart"]["instances"] == 2);
    CHECK(configs["vnd"]["instances"] == 1);
    CHECK_FALSE(configs.contains("beam"));
    CHECK(md.find("1 instance with runs of one config only is not in the performance profile") !=
          std::string::npos);
    nlohmann::json gaps = image_of(m, "", "final-gaps");
    REQUIRE(gaps.is_object());
    CHECK(gaps["labels"]["values"]["beam"].size() == 1);
    CHECK(gaps["labels"]["caption"].get<std::string>().find(
              "the best found over all runs of the instance (none has a best-known value)") !=
          std::string::npos);
    // The experiments' time limit (their spec's), backend and device in every caption.
    const std::string caption = gaps["labels"]["caption"].get<std::string>();
    CHECK(caption.find("Time limit 0.3\u00a0s per run; backend cpu; device ") != std::string::npos);
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

TEST_CASE("locus report of a maximised objective: values, gaps below the best known, targets "
          "at or above it, ratios to the best config, captions with time limit, backend and "
          "device" *
          doctest::test_suite("plots")) {
    std::string why;
    if (!plotting_environment(why)) {
        skip_test("no plotting environment (scripts/plots/setup failed):\n" + why);
        return;
    }
    const fs::path dir = temp_dir("report-max");
    // Two configs on two instances of a maximisation problem, three runs each: "G1" with a
    // best-known value of 100 (A ends at 90, 92, 94; B at 97, 98, 99), "G2" without one (A: 50,
    // 52, 54; B: 55, 56, 57), each run with a rising trace.
    std::string lines;
    const auto run = [&](const std::string& instance, const std::string& label, int seed,
                         double final, bool best_known, const std::string& device) {
        const fs::path trace =
            dir / (instance + "-" + label + "-" + std::to_string(seed) + ".trace.jsonl");
        write_file(trace,
                   nlohmann::json{{"time_s", 0.01}, {"objective", final - 40}}.dump() + "\n" +
                       nlohmann::json{{"time_s", 0.2}, {"objective", final - 8}}.dump() + "\n" +
                       nlohmann::json{{"time_s", 1.5}, {"objective", final}}.dump() + "\n");
        lines +=
            nlohmann::json{{"instance", instance},
                           {"problem", "maxcut"},
                           {"label", label},
                           {"seed", seed},
                           {"objective", final},
                           {"objective_sense", "maximize"},
                           {"feasible", true},
                           {"best_known", best_known ? nlohmann::json(100) : nlohmann::json()},
                           {"gap", best_known ? nlohmann::json(100 - final) : nlohmann::json()},
                           {"time_to_best_s", 1.5},
                           {"total_time_s", 2.01},
                           {"time_limit_s", 2},
                           {"stop_reason", "time_limit"},
                           {"backend", "cuda"},
                           {"device", device},
                           {"trace_file", trace.string()}}
                .dump() +
            "\n";
    };
    for (int k = 0; k < 3; ++k) {
        run("G1", "A", k, 90 + 2 * k, true, "GPU one");
        run("G1", "B", k, 97 + k, true, "GPU one");
        run("G2", "A", k, 50 + 2 * k, false, "GPU two");
        run("G2", "B", k, 55 + k, false, "GPU two");
    }
    write_file(dir / "results.jsonl", lines);
    const fs::path rep = dir / "rep";
    const auto r =
        run_locus("report " + quoted(dir.string()) + " --plots --out " + quoted(rep.string()));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    check_figures(rep);
    const nlohmann::json m = manifest(rep);
    const std::string minus_1 = "\u2212 1\u00a0%";

    // G1: the gap below the best known, targets at or above 100, 99 and 95.
    auto image = image_of(m, "G1", "convergence");
    REQUIRE(image.is_object());
    CHECK(image["labels"]["y"] == "gap below best known (%)");
    CHECK(image["labels"]["x"] == "time (s)");
    CHECK(image["labels"]["title"] == "G1: convergence (maximised, best known 100)");
    CHECK(image["labels"]["legend"][0] == "A: median of 3 runs");
    CHECK(image["labels"]["caption"].get<std::string>().find(
              "Time limit 2\u00a0s per run; backend cuda; device GPU one.") != std::string::npos);
    auto& ticks = image["labels"]["ticks"]["y"];
    for (const char* tick : {"0\u00a0%", "0.01\u00a0%", "0.1\u00a0%", "1\u00a0%", "10\u00a0%"}) {
        INFO(tick);
        CHECK(std::find(ticks.begin(), ticks.end(), tick) != ticks.end());
    }
    image = image_of(m, "G1", "time-to-target");
    REQUIRE(image.is_object());
    CHECK(image["labels"]["y"] == "fraction of runs at or above\nthe target");
    CHECK(image["labels"]["panels"][0] == "best known\n(\u2265 100)");
    CHECK(image["labels"]["panels"][1] == "best known " + minus_1 + "\n(\u2265 99)");
    CHECK(image["labels"]["panels"][2] == "best known \u2212 5\u00a0%\n(\u2265 95)");
    CHECK(image["labels"]["reached"]["A"] == nlohmann::json{"0/3", "0/3", "0/3"});
    CHECK(image["labels"]["reached"]["B"] == nlohmann::json{"0/3", "1/3", "3/3"});
    CHECK(image["labels"]["caption"].get<std::string>().find(
              "at or above the target, against time; targets: the best known value, and "
              "1\u00a0% and 5\u00a0% below it.") != std::string::npos);

    // G2: the values themselves, rising; targets from the best found, 57.
    image = image_of(m, "G2", "convergence");
    REQUIRE(image.is_object());
    CHECK(image["labels"]["y"] == "objective (maximised)");
    image = image_of(m, "G2", "time-to-target");
    REQUIRE(image.is_object());
    CHECK(image["labels"]["panels"][1] == "best found " + minus_1 + "\n(\u2265 56.43)");
    CHECK(image["labels"]["caption"].get<std::string>().find("device GPU two.") !=
          std::string::npos);

    // Across the instances: B is the best config on both (ratios 98/92 and 56/52 for A); the
    // median final gaps are 8 % and 2 % on G1, 5/57 and 1/57 of the best found on G2.
    image = image_of(m, "", "performance-profile");
    REQUIRE(image.is_object());
    CHECK(image["labels"]["configs"]["B"] == nlohmann::json{{"instances", 2}, {"at_1", 2}});
    CHECK(image["labels"]["configs"]["A"] == nlohmann::json{{"instances", 2}, {"at_1", 0}});
    CHECK(image["labels"]["x"].get<std::string>().find("best config's median final objective") !=
          std::string::npos);
    CHECK(image["labels"]["caption"].get<std::string>().find(
              "m(best)\u00a0/\u00a0m(s) for a maximised objective") != std::string::npos);
    CHECK(image["labels"]["caption"].get<std::string>().find(
              "backend cuda; device mixed (GPU one, GPU two).") != std::string::npos);
    image = image_of(m, "", "final-gaps");
    REQUIRE(image.is_object());
    auto& values = image["labels"]["values"];
    CHECK(values["A"]["G1"].get<double>() == doctest::Approx(8.0));
    CHECK(values["B"]["G1"].get<double>() == doctest::Approx(2.0));
    CHECK(values["A"]["G2"].get<double>() == doctest::Approx(500.0 / 57.0));
    CHECK(values["B"]["G2"].get<double>() == doctest::Approx(100.0 / 57.0));
    CHECK(image["labels"]["legend"][0] == "median");
    CHECK(image["labels"]["y"] == "final gap (%)");
    const std::string md = read_text(rep / "report.md");
    CHECK(md.find("![performance profile](plots/performance-profile.png)") != std::string::npos);
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

TEST_CASE("locus report, installed: the plot script under share/locus/plots beside the "
          "launcher's bin directory, unless LOCUS_PLOTS_SCRIPT names another") {
    const fs::path dir = temp_dir("report-installed");
    write_results(dir / "results.jsonl");
    // An installed launcher: a copy of this build's (its libraries from the build), with a plot
    // script run by /bin/sh that writes a manifest with one note.
    const fs::path prefix = dir / "prefix";
    fs::create_directories(prefix / "bin");
    fs::copy_file(bin_dir() / "locus", prefix / "bin" / "locus");
    fs::permissions(prefix / "bin" / "locus", fs::perms::owner_all);
    const auto stub = [](const fs::path& file, const std::string& note) {
        write_file(file, "mkdir -p \"$2\"\nprintf '{\"instances\": [], \"summary\": "
                         "{\"images\": [], \"notes\": [\"" +
                             note + "\"]}}\\n' > \"$2/plots.json\"\n");
    };
    stub(prefix / "share" / "locus" / "plots" / "locus_plots.py", "drawn by the installed script");
    stub(dir / "other.py", "drawn by the script of LOCUS_PLOTS_SCRIPT");
    const auto report = [&](const std::string& out, const std::string& env) {
        return run_command("env -u LOCUS_PLUGIN_PATH -u LOCUS_PLOTS_SCRIPT LD_LIBRARY_PATH=" +
                           quoted(bin_dir().string()) + " LOCUS_PYTHON=/bin/sh " + env + " " +
                           quoted((prefix / "bin" / "locus").string()) + " report " +
                           quoted(dir.string()) + " --plots --out " + quoted((dir / out).string()));
    };
    auto r = report("r1", "");
    INFO(r.output);
    CHECK(r.exit_code == 0);
    std::string md = read_text(dir / "r1" / "report.md");
    CHECK(md.find("\n## All instances\n\ndrawn by the installed script\n") != std::string::npos);

    r = report("r2", "LOCUS_PLOTS_SCRIPT=" + quoted((dir / "other.py").string()));
    INFO(r.output);
    CHECK(r.exit_code == 0);
    md = read_text(dir / "r2" / "report.md");
    CHECK(md.find("drawn by the script of LOCUS_PLOTS_SCRIPT") != std::string::npos);
    CHECK(md.find("drawn by the installed script") == std::string::npos);

    // A LOCUS_PLOTS_SCRIPT that is missing: no other script is tried.
    r = report("r3", "LOCUS_PLOTS_SCRIPT=" + quoted((dir / "missing.py").string()));
    CHECK(r.exit_code == 1);
    CHECK(r.output.find("locus: error: no plots: no plot script (looked for '" +
                        (dir / "missing.py").string() + "', from LOCUS_PLOTS_SCRIPT)") !=
          std::string::npos);
}
