// The resident ILS on the CPU backend: exact objective tracking, improvement, determinism.

#include <doctest/doctest.h>

#include "locus/tsp/chain_runner.hpp"
#include "locus/tsp/generator.hpp"
#include "locus/tsp/heuristics.hpp"
#include "locus/tsp/tour_io.hpp"

using namespace locus;
using namespace locus::tsp;

namespace {
struct Outcome {
    std::vector<std::int64_t> best;
    std::vector<std::vector<std::int32_t>> tours;
    std::uint64_t evaluations;
};

Outcome run_chains(const TspProblem& problem, std::uint32_t chains, int threads, bool share) {
    ResidentIlsOptions options;
    options.candidates = 8;
    options.window = 30;
    options.epoch = 10;
    options.share_best = share;
    auto runner = make_cpu_chain_runner(problem, options, chains, threads);
    SolutionBatch batch(chains, problem.size());
    NearestNeighborTour(problem, -1).construct(batch, 3);
    runner->start(batch, {});
    const auto start = runner->best_objectives();
    for (std::uint32_t c = 0; c < chains; ++c) CHECK(start[c] <= static_cast<std::int64_t>(batch.objective(c)));
    for (int e = 0; e < 3; ++e) {
        if (share) {
            const auto values = runner->best_objectives();
            runner->share(static_cast<std::uint32_t>(std::min_element(values.begin(), values.end()) - values.begin()));
        }
        runner->epoch(17, static_cast<std::uint64_t>(e) * options.epoch, options.epoch, {});
    }
    Outcome out{runner->best_objectives(), {}, runner->evaluations()};
    for (std::uint32_t c = 0; c < chains; ++c) {
        std::vector<std::int32_t> tour(problem.size());
        runner->best_tour(c, tour);
        out.tours.push_back(tour);
    }
    return out;
}
} // namespace

TEST_CASE("resident ILS chains keep exact objectives and improve their start") {
    TspProblem problem(generate_random_uniform(300, 4, 100000));
    const Outcome a = run_chains(problem, 6, 0, true);
    for (std::size_t c = 0; c < a.tours.size(); ++c) {
        CHECK_FALSE(check_tour(a.tours[c], problem.size()).has_value());
        CHECK(a.best[c] == static_cast<std::int64_t>(problem.evaluate(a.tours[c])));
    }
    CHECK(a.evaluations > 0);
}

TEST_CASE("resident ILS results do not depend on the thread count") {
    TspProblem problem(generate_random_uniform(200, 8, 10000));
    for (bool share : {true, false}) {
        const Outcome a = run_chains(problem, 5, 1, share);
        const Outcome b = run_chains(problem, 5, 0, share);
        CHECK(a.best == b.best);
        CHECK(a.tours == b.tours);
        CHECK(a.evaluations == b.evaluations);
    }
}
