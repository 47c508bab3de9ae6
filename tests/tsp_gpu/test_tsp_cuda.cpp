// The CUDA backend of every TSP neighborhood against the CPU backend: same selected moves,
// same tours after apply and descents, and whole seeded launcher runs with identical results.

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "../tsp/tsp_test_instances.hpp"
#include "locus/rng.hpp"
#include "locus/tsp/chain_runner.hpp"
#include "locus/tsp/fang_construction.hpp"
#include "locus/tsp/generator.hpp"
#include "locus/tsp/heuristics.hpp"
#include "locus/tsp/tour_engine.hpp"
#include "locus/tsp/tsplib.hpp"
#include "engine_checks.hpp"
#include "test_support.hpp"

using namespace locus;
using namespace locus::tsp;
using locus::test::instrumented_run;
using locus::test::same_choices;
using locus::tsp::test::matrix_instance;
using locus::tsp::test::real_instance;

namespace {

std::vector<Instance> instances() {
    std::vector<Instance> list = {generate_random_uniform(150, 3, 100000), real_instance(97, 5),
                                  matrix_instance(64, 7)};
    if (instrumented_run()) return list; // under compute-sanitizer only the small instances
    list.push_back(generate_random_uniform(1200, 9, 1000000));
    for (const char* name : {"tsplib/att48.tsp", "tsplib/ulysses22.tsp", "tsplib/d198.tsp"})
        list.push_back(read_tsplib(locus::test::data_file(name)));
    return list;
}

const std::vector<NeighborhoodSpec> kSpecs = {
    {MoveKind::two_opt, 0}, {MoveKind::or_opt, 0}, {MoveKind::swap, 0},
    {MoveKind::two_opt, 8}, {MoveKind::or_opt, 6}, {MoveKind::three_opt, 0, 300, 5},
    {MoveKind::two_h_opt, 0}};

bool same_tours(const SolutionBatch& a, const SolutionBatch& b) {
    if (a.count() != b.count()) return false;
    for (std::size_t s = 0; s < a.count(); ++s)
        if (!std::equal(a[s].begin(), a[s].end(), b[s].begin()) || a.objective(s) != b.objective(s))
            return false;
    return true;
}

} // namespace

TEST_CASE("explore and apply select the same moves on CPU and CUDA") {
    for (const Instance& inst : instances()) {
        TspProblem problem(inst);
        const auto n = problem.size();
        for (const auto& spec : kSpecs) {
            CAPTURE(inst.name);
            CAPTURE(static_cast<int>(spec.kind));
            CAPTURE(spec.candidates);
            auto cpu = make_cpu_engine(problem, spec, {});
            auto cuda = make_cuda_engine(problem, spec, {});
            SolutionBatch batch(5, n);
            RandomTour(problem).construct(batch, 11);
            for (Pivot pivot : {Pivot::best, Pivot::first}) {
                const auto [a, b] = same_choices(*cpu, *cuda, batch, pivot);
                SolutionBatch x = batch, y = batch;
                cpu->apply(x, a);
                cuda->apply(y, b);
                CHECK(same_tours(x, y));
            }
        }
    }
}

TEST_CASE("full 2-opt selects the same move on CPU and CUDA where rows end inside a round") {
    // The warp sweep takes 63 cells a round, two a lane; rows of 1 to 127 cells end inside a
    // round, and even n gives a half-length last diagonal.
    for (const std::int32_t n : {4, 5, 6, 7, 8, 33, 62, 63, 64, 65, 126, 127, 128, 129}) {
        CAPTURE(n);
        TspProblem problem(generate_random_uniform(n, static_cast<std::uint64_t>(n), 100000));
        auto cpu = make_cpu_engine(problem, {MoveKind::two_opt, 0}, {});
        auto cuda = make_cuda_engine(problem, {MoveKind::two_opt, 0}, {});
        SolutionBatch batch(7, static_cast<std::size_t>(n));
        RandomTour(problem).construct(batch, 3);
        for (Pivot pivot : {Pivot::best, Pivot::first})
            same_choices(*cpu, *cuda, batch, pivot);
        SolutionBatch x = batch, y = batch;
        CHECK(cpu->descend(x, Pivot::best, 0, {}).steps ==
              cuda->descend(y, Pivot::best, 0, {}).steps);
        CHECK(same_tours(x, y));
    }
}

TEST_CASE("descents give identical tours, objectives and step counts on CPU and CUDA") {
    for (const Instance& inst : instances()) {
        TspProblem problem(inst);
        for (const auto& spec : kSpecs) {
            if (spec.kind != MoveKind::two_opt && spec.candidates == 0 && inst.n > 500) continue;
            CAPTURE(inst.name);
            CAPTURE(static_cast<int>(spec.kind));
            CAPTURE(spec.candidates);
            gpu::EngineSettings checked;
            checked.check_moves = inst.n <= 200;
            auto cpu = make_cpu_engine(problem, spec, {});
            auto cuda = make_cuda_engine(problem, spec, checked);
            for (Pivot pivot : {Pivot::best, Pivot::first}) {
                SolutionBatch a(3, inst.n);
                NearestNeighborTour(problem, -1).construct(a, 5);
                DoubleBridge(problem, 0).perturb(a, 9);
                SolutionBatch b = a;
                const DescentStats sa = cpu->descend(a, pivot, 0, {});
                const DescentStats sb = cuda->descend(b, pivot, 0, {});
                CHECK(sa.steps == sb.steps);
                CHECK(same_tours(a, b));
                for (std::size_t s = 0; s < 3; ++s)
                    CHECK(b.objective(s) == problem.evaluate(b[s]));
            }
        }
    }
}

TEST_CASE("parallel descents (independent moves) give identical tours, objectives and counts "
          "on CPU and CUDA") {
    for (const Instance& inst : instances()) {
        TspProblem problem(inst);
        for (const auto& spec : kSpecs) {
            if (spec.kind != MoveKind::two_opt && spec.candidates == 0 && inst.n > 500) continue;
            CAPTURE(inst.name);
            CAPTURE(neighborhood_label(spec));
            gpu::EngineSettings checked;
            checked.check_moves = inst.n <= 200;
            auto cpu = make_cpu_engine(problem, spec, {});
            if (!cpu->has_independence_rule()) continue; // three_opt, two_h_opt
            auto cuda = make_cuda_engine(problem, spec, checked);
            for (const bool focused : {false, true}) {
                SolutionBatch a(3, inst.n);
                if (focused) {
                    NearestNeighborTour(problem, -1).construct(a, 5);
                    a.set_focus_enabled(true);
                    DoubleBridge(problem, 30).perturb(a, 9);
                } else {
                    RandomTour(problem).construct(a, 7);
                }
                SolutionBatch b = a;
                IndependentDescentOptions options;
                options.capacity = 512; // below the improving moves of a random tour
                const DescentStats sa = cpu->descend_independent(a, options, {});
                const DescentStats sb = cuda->descend_independent(b, options, {});
                CHECK(sa.steps == sb.steps);
                CHECK(sa.evaluations == sb.evaluations);
                CHECK(sa.explorations == sb.explorations);
                CHECK(sa.steps > sa.explorations);
                CHECK(same_tours(a, b));
                if (focused)
                    CHECK(std::equal(a.focus_data().begin(), a.focus_data().end(),
                                     b.focus_data().begin()));
                for (std::size_t s = 0; s < 3; ++s)
                    CHECK(b.objective(s) == problem.evaluate(b[s]));
            }
        }
    }
}

TEST_CASE("descent honours max_steps identically on both backends") {
    TspProblem problem(generate_random_uniform(300, 1, 10000));
    auto cpu = make_cpu_engine(problem, {MoveKind::two_opt, 0}, {});
    auto cuda = make_cuda_engine(problem, {MoveKind::two_opt, 0}, {});
    SolutionBatch a(2, 300);
    RandomTour(problem).construct(a, 3);
    SolutionBatch b = a;
    CHECK(cpu->descend(a, Pivot::best, 7, {}).steps == 14);
    CHECK(cuda->descend(b, Pivot::best, 7, {}).steps == 14);
    CHECK(same_tours(a, b));
}

namespace {
nlohmann::json run_locus(const std::string& backend, const std::filesystem::path& out,
                         const std::string& extra) {
    const auto bin = locus::test::bin_dir() / "locus";
    const std::string command = bin.string() + " run " + extra + " -q --backend " + backend +
                                " --out " + out.string() +
                                " --set termination.iterations=150 termination.time_limit=0";
    const auto result = locus::test::run_command(command);
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
    std::ifstream in(out / "results.jsonl");
    std::string line;
    std::getline(in, line);
    return nlohmann::json::parse(line);
}

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}
} // namespace

TEST_CASE("whole seeded ILS runs are identical on CPU and CUDA") {
    const auto dir = locus::test::temp_dir("tsp-cuda-runs");
    const std::string config = (locus::test::source_dir() / "configs/tsp/ils.yaml").string();
    for (const std::string& extra :
         {config + " --instance random-uniform:n=700,seed=4 --seed 3",
          config + " --instance random-uniform:n=300,seed=5 --set batch=4 --set "
                   "algorithm.local_search.neighborhoods=[two_opt,or_opt]"}) {
        const auto cpu = run_locus("cpu", dir / "cpu", extra);
        const auto cuda = run_locus("cuda", dir / "cuda", extra);
        CHECK(cpu["objective"] == cuda["objective"]);
        CHECK(cpu["iterations"] == cuda["iterations"]);
        CHECK(cpu["evaluations"] == cuda["evaluations"]);
        CHECK(cuda["backend"] == "cuda");
        CHECK(slurp(cpu["solution_file"]).substr(slurp(cpu["solution_file"]).find("TYPE")) ==
              slurp(cuda["solution_file"]).substr(slurp(cuda["solution_file"]).find("TYPE")));
        std::filesystem::remove_all(dir / "cpu");
        std::filesystem::remove_all(dir / "cuda");
    }
}

TEST_CASE("focused descents give identical tours, focus and evaluation counts on CPU and CUDA") {
    TspProblem problem(generate_random_uniform(instrumented_run() ? 120 : 900, 12, 100000));
    const std::size_t n = problem.size();
    for (const NeighborhoodSpec spec :
         {NeighborhoodSpec{MoveKind::two_opt, 8}, NeighborhoodSpec{MoveKind::or_opt, 8}}) {
        auto cpu = make_cpu_engine(problem, spec, {});
        auto cuda = make_cuda_engine(problem, spec, {});
        SolutionBatch a(4, n);
        NearestNeighborTour(problem, -1).construct(a, 21);
        a.set_focus_enabled(true);
        DoubleBridge(problem, 40).perturb(a, 5); // focus: the cities the kick touched
        SolutionBatch b = a;
        for (Pivot pivot : {Pivot::best, Pivot::first}) {
            const DescentStats sa = cpu->descend(a, pivot, 0, {});
            const DescentStats sb = cuda->descend(b, pivot, 0, {});
            CHECK(sa.steps == sb.steps);
            CHECK(sa.evaluations == sb.evaluations);
            CHECK(sa.evaluations < cpu->size() * 4 * (sa.steps + 1));
            CHECK(same_tours(a, b));
            CHECK(std::equal(a.focus_data().begin(), a.focus_data().end(), b.focus_data().begin()));
        }
    }
}

namespace {
/// Delévacq et al. strategies on the chain engine: pivot (best / first), mapping (block / thread)
/// and the sequential 3-opt neighborhood (K3, 0 = off).
struct ChainVariant {
    bool first;
    bool thread;
    std::int32_t three_opt;
    std::int32_t depth = 0; ///< variable-depth move
    std::int32_t step = 2;  ///< its steps: 2-opt (2) or also 3-opt (3)
};
} // namespace

TEST_CASE("resident ILS chains give identical tours on CPU and CUDA (best/first improvement, "
          "block/thread per chain, with and without 3-opt or the variable-depth move)") {
    for (const ChainVariant variant :
         {ChainVariant{false, false, 0}, ChainVariant{true, false, 5}, ChainVariant{true, true, 5},
          ChainVariant{false, true, 0}, ChainVariant{true, false, 0, 8},
          ChainVariant{true, true, 0, 8}, ChainVariant{true, false, 0, 8, 3},
          ChainVariant{true, true, 0, 8, 3}}) {
        CAPTURE(variant.first);
        CAPTURE(variant.thread);
        CAPTURE(variant.three_opt);
        CAPTURE(variant.depth);
        CAPTURE(variant.step);
        for (const Instance& inst : instances()) {
            if (inst.n < 8) continue;
            // NOTE: under compute-sanitizer the thread mapping runs each chain serially, so only
            // the 64-city matrix instance is checked there.
            if (instrumented_run() && inst.n != 64) continue;
            CAPTURE(inst.name);
            TspProblem problem(inst);
            TspChainOptions options;
            options.candidates = 8;
            options.window = 40;
            options.three_opt =
                std::min<std::int32_t>(variant.three_opt, static_cast<std::int32_t>(inst.n) - 1);
            options.depth = variant.depth;
            options.step = variant.step;
            const std::uint32_t epoch = instrumented_run() ? 2 : 8;
            const std::uint32_t chains = instrumented_run() ? 3 : 24;
            for (auto kind :
                 {gpu::AcceptanceKind::better_or_equal, gpu::AcceptanceKind::annealing}) {
                gpu::ChainParams params;
                params.seed = 5;
                params.first_improvement = variant.first;
                params.thread_per_chain = variant.thread;
                params.check_moves = inst.n <= 200;
                params.acceptance.kind = kind;
                params.acceptance.temperature = 50.0;
                params.acceptance.log_cooling = -0.001;
                auto cpu = make_cpu_chain_runner(problem, options, chains, params, 0);
                auto cuda = make_cuda_chain_runner(problem, options, chains, params, 0, {});
                SolutionBatch batch(chains, inst.n);
                NearestNeighborTour(problem, -1).construct(batch, 7);
                std::vector<std::int64_t> objectives(chains);
                for (std::uint32_t c = 0; c < chains; ++c)
                    objectives[c] = static_cast<std::int64_t>(batch.objective(c));
                cpu->start(batch.data(), objectives, {}, 0);
                cuda->start(batch.data(), objectives, {}, 0);
                CHECK(cpu->best_objectives() == cuda->best_objectives());
                for (int e = 0; e < 2; ++e) {
                    const auto values = cpu->best_objectives();
                    const auto leader = static_cast<std::uint32_t>(
                        std::min_element(values.begin(), values.end()) - values.begin());
                    const std::vector<std::uint32_t> sources(chains, leader);
                    cpu->continue_from(sources);
                    cuda->continue_from(sources);
                    cpu->epoch(static_cast<std::uint64_t>(e) * epoch, epoch, {});
                    cuda->epoch(static_cast<std::uint64_t>(e) * epoch, epoch, {});
                }
                CHECK(cpu->best_objectives() == cuda->best_objectives());
                CHECK(cpu->evaluations() == cuda->evaluations());
                CHECK_FALSE(cpu->check().failed);
                CHECK_FALSE(cuda->check().failed);
                // The merging exchange's tree of recombinations folds the bests alike.
                for (std::uint32_t s = 1, step = 0; s < chains; s *= 2, ++step) {
                    std::vector<std::uint32_t> slots, others;
                    for (std::uint32_t i = 0; i + s < chains; i += 2 * s) {
                        slots.push_back(i);
                        others.push_back(i + s);
                    }
                    cpu->merge(slots, others, step);
                    cuda->merge(slots, others, step);
                }
                CHECK(cpu->best_objectives() == cuda->best_objectives());
                std::vector<std::int32_t> a(inst.n), b(inst.n);
                for (std::uint32_t c = 0; c < chains; ++c) {
                    cpu->best_solution(c, a);
                    cuda->best_solution(c, b);
                    CHECK(a == b);
                }
            }
        }
    }
}

TEST_CASE("resident ILS chains that do not fit the memory budget fail with a clear message") {
    TspProblem problem(generate_random_uniform(500, 3, 100000));
    TspChainOptions options;
    const std::string message = locus::test::error_message<CudaError>([&] {
        make_cuda_chain_runner(problem, options, 1000, {}, 0, {1u << 20, 0.8});
    });
    CHECK(message.find("many-chain engine (1000 chains): needs ") == 0);
    CHECK(message.find("the budget allows 1.0 MiB (memory_budget); use fewer chains (batch)") !=
          std::string::npos);
}

TEST_CASE("FANG tour construction gives identical tours on CPU and CUDA") {
    for (const Instance& inst : instances()) {
        CAPTURE(inst.name);
        TspProblem problem(inst);
        const std::uint32_t count = instrumented_run() ? 2 : 16;
        std::vector<std::int32_t> starts(count);
        for (std::uint32_t s = 0; s < count; ++s)
            starts[s] = static_cast<std::int32_t>((7 * s) % inst.n);
        for (std::int32_t greed : {0, 3}) {
            std::vector<std::int32_t> a(count * inst.n), b(count * inst.n);
            fang_tours_cpu(problem, greed, starts.data(), count, 11, 0, a.data());
            fang_tours_cuda(problem, greed, starts.data(), count, 11, b.data());
            CHECK(a == b);
            // Built in two parts on the device (tours numbered from `first`): the same tours.
            std::vector<std::int32_t> c(count * inst.n);
            const std::uint32_t half = count / 2;
            fang_tours_cuda(problem, greed, starts.data(), half, 11, c.data(), 0);
            fang_tours_cuda(problem, greed, starts.data() + half, count - half, 11,
                            c.data() + static_cast<std::size_t>(half) * inst.n, half);
            CHECK(a == c);
        }
    }
}
