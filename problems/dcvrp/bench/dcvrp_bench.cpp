// Table 5 of Schulz 2011 (Schulz, GPU local search for the DCVRP): seconds per local-search
// iteration (linear tours, segment hierarchies, evaluation of the whole neighborhood, reduction,
// applying the best move) of giant-tour 2-opt and pure 3-opt on solutions of a given number of
// positions, on the CUDA backend and on the CPU twin (all cores) of the same machine, with the
// paper's GTX 480 times (index mode 4) beside them. Prints one JSON object per measurement.
//
// Each size L takes an instance (CVRPLIB on the data path, or a generator spec), starts from
// cheapest insertion in a random order (savings where those routes do not fit) and pads the giant tour with empty routes to exactly L positions. An
// instance without a duration limit gets one (1.5 x the longest start route) and one without a
// fleet gets the start's routes + 2, as the paper adds both where an instance has none.
//
//   locus-dcvrp-bench [--sizes 57,99,...] [--moves two_opt,three_opt] [--backends cuda,cpu]
//                     [--gpu-steps 10] [--cpu-seconds 20] [--budget-mib 1024]
//                     [--candidates 10]
//
// With candidates, the filtered neighborhoods are timed twice: generated from the candidate
// lists, and by compaction of the whole grid in parts (default part size, and the part size
// that --budget-mib allows), best-improving and first-improving per part.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "locus/data_path.hpp"
#include "locus/dcvrp/constructions.hpp"
#include "locus/dcvrp/cvrplib.hpp"
#include "locus/dcvrp/dcvrp_problem.hpp"
#include "locus/dcvrp/generator.hpp"
#include "locus/dcvrp/giant_tour.hpp"
#include "locus/dcvrp/giant_tour_search.hpp"
#include "locus/gpu/cpu_threads.hpp"
#include "locus/gpu/neighborhood_parts.hpp"
#include "locus/routing/giant_tour_moves.hpp"
#include "locus/text.hpp"

using namespace locus;
using namespace locus::dcvrp;

namespace {

struct Size {
    std::int32_t length;
    const char* instance;
    double paper_two_opt; ///< GTX 480, index mode 4 (Table 5)
    double paper_three_opt;
};

// NOTE: the instances have the most customers that fit with their start routes; the three
// largest sizes exceed the CVRPLIB files here and use generated instances.
const Size kSizes[] = {
    {57, "cvrplib/CMT6.vrp", 4.99e-04, 1.23e-03},
    {99, "cvrplib/CMT7.vrp", 6.47e-04, 3.64e-03},
    {201, "cvrplib/CMT9.vrp", 7.03e-04, 2.34e-02},
    {301, "cvrplib/Golden_6.vrp", 1.02e-03, 7.50e-02},
    {399, "cvrplib/Golden_7.vrp", 1.45e-03, 1.70e-01},
    {511, "cvrplib/Golden_4.vrp", 2.02e-03, 3.41e-01},
    {967, "cvrplib/X-n801-k40.vrp", 5.50e-03, 2.45e+00},
    {1441, "random-cvrp:n=1301,seed=1,capacity=100,distance=5000", 9.68e-03, 7.88e+00},
    {2081, "random-cvrp:n=1901,seed=1,capacity=100,distance=5000", 1.95e-02, 2.36e+01},
    {2401, "random-cvrp:n=2201,seed=1,capacity=100,distance=5000", 2.59e-02, 3.63e+01},
};

std::unique_ptr<DcvrpProblem> load_problem(const std::string& spec, std::int32_t length,
                                           Routes& start) {
    Instance instance = is_generator_spec(spec)
                            ? generate_from_spec(spec)
                            : read_cvrplib(resolve_data_file(spec, "instance file"));
    // Cheapest insertion in a random order leaves many improving moves, so that every timed
    // step applies one; savings where its routes do not fit L.
    start = cheapest_insertion(instance, insertion_order(instance, InsertionOrder::random, 1));
    if (instance.customers() + static_cast<std::int32_t>(start.size()) + 1 > length)
        start = savings(instance, 0);
    if (!instance.has_duration_limit()) {
        double longest = 0.0;
        for (const auto& route : start)
            longest = std::max(longest, route_figures(instance, route).duration(instance));
        instance.max_duration = 1.5 * longest;
    }
    const std::int32_t vehicles =
        instance.vehicles > 0 ? 0 : static_cast<std::int32_t>(start.size()) + 2;
    return std::make_unique<DcvrpProblem>(std::move(instance), vehicles);
}

/// Seconds per iteration of `steps` descent steps from `start` (best improvement), and the
/// solution reached.
double time_steps(Neighborhood& neighborhood, const SolutionBatch& start, std::uint64_t steps,
                  SolutionBatch& reached, std::uint64_t& explorations,
                  Pivot pivot = Pivot::best) {
    reached = start;
    const auto t0 = std::chrono::steady_clock::now();
    const DescentStats stats = neighborhood.descend(reached, pivot, steps, {});
    const auto t1 = std::chrono::steady_clock::now();
    explorations = std::min<std::uint64_t>(steps, stats.steps + 1);
    return std::chrono::duration<double>(t1 - t0).count() / static_cast<double>(explorations);
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> sizes;
    std::vector<std::string> moves = {"two_opt", "three_opt"};
    std::vector<std::string> backends = {"cuda", "cpu"};
    std::uint64_t gpu_steps = 10;
    double cpu_seconds = 20.0;
    double budget_mib = 1024.0;
    std::int32_t candidates = 10;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i];
        const std::string value = argv[i + 1];
        if (key == "--sizes") sizes = split_commas(value);
        else if (key == "--moves") moves = split_commas(value);
        else if (key == "--backends") backends = split_commas(value);
        else if (key == "--gpu-steps") gpu_steps = std::stoull(value);
        else if (key == "--cpu-seconds") cpu_seconds = std::stod(value);
        else if (key == "--budget-mib") budget_mib = std::stod(value);
        else if (key == "--candidates") candidates = std::stoi(value);
        else {
            std::fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
    }
    const bool want_cuda = std::find(backends.begin(), backends.end(), "cuda") != backends.end();
    const bool want_cpu = std::find(backends.begin(), backends.end(), "cpu") != backends.end();
    try {
        for (const Size& size : kSizes) {
            if (!sizes.empty() &&
                std::find(sizes.begin(), sizes.end(), std::to_string(size.length)) == sizes.end())
                continue;
            Routes routes;
            const auto problem = load_problem(size.instance, size.length, routes);
            SolutionBatch start(1, problem->solution_width());
            encode_routes(routes, start[0]);
            start.objective(0) = problem->evaluate(start[0]);
            for (const std::string& move_name : moves) {
                const GiantMove move =
                    move_name == "two_opt" ? GiantMove::two_opt : GiantMove::three_opt;
                GiantTourOptions options;
                options.length = size.length;
                const double moves_per_iteration =
                    static_cast<double>(giant_moves(move, size.length));
                nlohmann::json row{{"bench", "dcvrp_table5"},
                                   {"move", move_name},
                                   {"positions", size.length},
                                   {"instance", problem->instance_name()},
                                   {"customers", problem->instance().customers()},
                                   {"start_routes", routes.size()},
                                   {"moves_per_iteration", moves_per_iteration},
                                   {"hierarchy", hierarchy_part(options, move, size.length, 1) == 0
                                                     ? "zero"
                                                     : "one"},
                                   {"paper_gtx480_seconds", move == GiantMove::two_opt
                                                                ? size.paper_two_opt
                                                                : size.paper_three_opt}};
                SolutionBatch cpu_end, cuda_end;
                std::uint64_t cpu_steps = 0;
                if (want_cpu) {
                    gpu::EngineSettings settings;
                    auto cpu = make_giant_neighborhood(*problem, move, options, settings,
                                                       Backend::cpu);
                    // One step first: it sets how many fit into cpu_seconds.
                    std::uint64_t done = 0;
                    double seconds = time_steps(*cpu, start, 1, cpu_end, done);
                    cpu_steps = 1;
                    const auto more = static_cast<std::uint64_t>(cpu_seconds / seconds);
                    if (more >= 2) {
                        cpu_steps = std::min<std::uint64_t>(more, 50);
                        seconds = time_steps(*cpu, start, cpu_steps, cpu_end, done);
                        cpu_steps = done;
                    }
                    row["cpu_seconds"] = seconds;
                    row["cpu_steps"] = cpu_steps;
                    row["cpu_threads"] = gpu::resolve_threads(0);
                    row["cpu_moves_per_second"] = moves_per_iteration / seconds;
                }
                if (want_cuda) {
                    gpu::EngineSettings settings;
                    auto cuda = make_giant_neighborhood(*problem, move, options, settings,
                                                        Backend::cuda);
                    std::uint64_t done = 0;
                    if (want_cpu) {
                        time_steps(*cuda, start, cpu_steps, cuda_end, done);
                        row["identical"] =
                            std::equal(cpu_end.data().begin(), cpu_end.data().end(),
                                       cuda_end.data().begin()) &&
                            cpu_end.objective(0) == cuda_end.objective(0);
                    }
                    time_steps(*cuda, start, 2, cuda_end, done); // warm-up
                    const double seconds = time_steps(*cuda, start, gpu_steps, cuda_end, done);
                    row["cuda_seconds"] = seconds;
                    row["cuda_steps"] = done;
                    row["cuda_moves_per_second"] = moves_per_iteration / seconds;
                    row["paper_speedup"] = row["paper_gtx480_seconds"].get<double>() / seconds;
                    if (want_cpu) {
                        // NOTE: steps later in a descent cost differently (fewer cells pass the
                        // bound), so the ratio compares the very steps the CPU timed.
                        const double same =
                            time_steps(*cuda, start, cpu_steps, cuda_end, done);
                        row["cuda_seconds_cpu_steps"] = same;
                        row["cuda_vs_cpu"] = row["cpu_seconds"].get<double>() / same;
                    }
                    {
                        // Each hierarchy on its own: every segment (zero level, while it takes
                        // at most 4 GiB) and parts of about L^(1/3) (one level).
                        const double zero_bytes = static_cast<double>(size.length) *
                                                  size.length * sizeof(RouteSegment);
                        for (const HierarchyChoice choice :
                             {HierarchyChoice::zero, HierarchyChoice::one}) {
                            if (choice == HierarchyChoice::zero && zero_bytes > 4.0 * 1073741824.0)
                                continue;
                            GiantTourOptions forced = options;
                            forced.hierarchy = choice;
                            auto other = make_giant_neighborhood(*problem, move, forced, settings,
                                                                 Backend::cuda);
                            time_steps(*other, start, 2, cuda_end, done);
                            row[choice == HierarchyChoice::zero ? "cuda_seconds_zero_level"
                                                                : "cuda_seconds_one_level"] =
                                time_steps(*other, start, gpu_steps, cuda_end, done);
                        }
                    }
                    if (move == GiantMove::three_opt && budget_mib > 0) {
                        // The same search under a device-memory budget.
                        gpu::EngineSettings tight = settings;
                        tight.memory.bytes = static_cast<std::size_t>(budget_mib * 1048576.0);
                        const GiantTourOptions fitted = options;
                        auto limited = make_giant_neighborhood(*problem, move, fitted, tight,
                                                               Backend::cuda);
                        time_steps(*limited, start, 2, cuda_end, done);
                        const double budget_seconds =
                            time_steps(*limited, start, gpu_steps, cuda_end, done);
                        row["budget_mib"] = budget_mib;
                        row["budget_seconds"] = budget_seconds;
                        row["budget_ratio"] = budget_seconds / seconds;
                    }
                }
                if (candidates > 0) {
                    // The move filter: only moves adding an edge to one of the K nearest
                    // customers of a node (cells of the filtered grid per iteration).
                    GiantTourOptions filtered = options;
                    filtered.candidates = candidates;
                    row["candidates"] = candidates;
                    row["filtered_cells"] =
                        static_cast<double>(giant_moves(move, size.length, candidates));
                    SolutionBatch end;
                    std::uint64_t done = 0;
                    if (want_cpu) {
                        auto cpu = make_giant_neighborhood(*problem, move, filtered, {},
                                                           Backend::cpu);
                        row["cpu_seconds_filtered"] =
                            time_steps(*cpu, start, std::max<std::uint64_t>(cpu_steps, 1), end, done);
                    }
                    if (want_cuda) {
                        auto cuda = make_giant_neighborhood(*problem, move, filtered, {},
                                                            Backend::cuda);
                        time_steps(*cuda, start, 2, end, done);
                        row["cuda_seconds_filtered"] =
                            time_steps(*cuda, start, gpu_steps, end, done);
                    }
                    // The same filter applied by compaction: the whole grid filtered cell by
                    // cell, the kept cells compacted into index lists part by part (the next
                    // part's list built on a second stream while the current part is
                    // evaluated); parts of the default size and of the size the memory budget
                    // allows; best of all parts, and the best of the first improving part.
                    GiantTours shape;
                    shape.length = size.length;
                    const gpu::MoveGrid grid =
                        move == GiantMove::two_opt
                            ? routing::with_tours<GiantTwoOpt>(shape).grid()
                            : routing::with_tours<GiantThreeOpt>(shape).grid();
                    const auto grid_cells = static_cast<double>(grid.size());
                    row["grid_cells"] = grid_cells;
                    GiantTourOptions compact = filtered;
                    compact.compact = true;
                    const SolutionBatch generated_end = end;
                    if (want_cuda) {
                        std::vector<std::pair<std::string, std::uint64_t>> plans = {
                            {"default", compact.part_cells}};
                        if (budget_mib > 0)
                            plans.emplace_back(
                                "budget",
                                gpu::part_cells_for(
                                    static_cast<std::size_t>(budget_mib * 1048576.0), grid, 1));
                        for (const auto& [label, part] : plans) {
                            GiantTourOptions planned = compact;
                            planned.part_cells = part;
                            gpu::EngineSettings limited;
                            if (label == "budget")
                                limited.memory.bytes =
                                    static_cast<std::size_t>(budget_mib * 1048576.0);
                            auto cuda = make_giant_neighborhood(*problem, move, planned, limited,
                                                                Backend::cuda);
                            SolutionBatch reached;
                            time_steps(*cuda, start, 2, reached, done);
                            row["compact_" + label + "_part_cells"] = part;
                            row["compact_" + label + "_parts"] =
                                gpu::part_count(grid, std::min<std::uint64_t>(part, grid.size()));
                            row["cuda_seconds_compact_" + label] =
                                time_steps(*cuda, start, gpu_steps, reached, done);
                            row["compact_" + label + "_same_objective"] =
                                reached.objective(0) == generated_end.objective(0);
                            row["cuda_seconds_compact_" + label + "_first"] =
                                time_steps(*cuda, start, gpu_steps, reached, done, Pivot::first);
                        }
                    }
                    if (want_cpu && grid_cells <= 2.5e9) {
                        auto cpu = make_giant_neighborhood(*problem, move, compact, {},
                                                           Backend::cpu);
                        SolutionBatch reached;
                        row["cpu_seconds_compact"] = time_steps(*cpu, start, 1, reached, done);
                    }
                }
                std::printf("%s\n", row.dump().c_str());
                std::fflush(stdout);
            }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "locus-dcvrp-bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
