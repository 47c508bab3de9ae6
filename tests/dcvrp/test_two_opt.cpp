// The DCVRP giant-tour 2-opt on the CPU: descents from savings and from one route per customer
// stay feasible (capacity and duration), improve, agree with full re-evaluation after every move
// (check_moves) and do not depend on the thread count; the CUDA backend says it is not built.

#include <doctest/doctest.h>

#include <vector>

#include "locus/dcvrp/constructions.hpp"
#include "locus/dcvrp/dcvrp_problem.hpp"
#include "locus/dcvrp/generator.hpp"
#include "locus/dcvrp/giant_tour.hpp"
#include "locus/dcvrp/two_opt.hpp"
#include "locus/error.hpp"

using namespace locus;
using namespace locus::dcvrp;

namespace {

SolutionBatch start(const DcvrpProblem& problem, const Routes& routes) {
    SolutionBatch batch(1, problem.solution_width());
    encode_routes(routes, batch[0]);
    batch.objective(0) = problem.evaluate(batch[0]);
    return batch;
}

} // namespace

TEST_CASE("DCVRP two_opt descents: feasible, improving, checked, thread-count independent") {
    const DcvrpProblem problem(generate_random(80, 5, 40, 2600.0));
    for (const bool from_savings : {true, false}) {
        CAPTURE(from_savings);
        const Routes routes = from_savings ? savings(problem.instance(), 0)
                                           : one_per_customer(problem.instance());
        std::vector<SolutionBatch> results;
        for (const int threads : {1, 2}) {
            gpu::EngineSettings settings;
            settings.threads = threads;
            settings.check_moves = true;
            auto two_opt = make_two_opt(problem, settings, Backend::cpu);
            SolutionBatch batch = start(problem, routes);
            const Objective before = batch.objective(0);
            const DescentStats stats = two_opt->descend(batch, Pivot::best, 0, {});
            CHECK(stats.steps > 0);
            const Verdict verdict = problem.verify(batch[0]);
            REQUIRE(verdict.feasible);
            CHECK(verdict.objective < before);
            CHECK(batch.objective(0) == doctest::Approx(verdict.objective).epsilon(1e-12));
            // A local optimum: no improving move is left.
            std::vector<MoveChoice> choice(1);
            two_opt->explore(batch, Pivot::first, choice);
            CHECK_FALSE(choice[0].found());
            results.push_back(batch);
        }
        CHECK(std::vector<std::int32_t>(results[0][0].begin(), results[0][0].end()) ==
              std::vector<std::int32_t>(results[1][0].begin(), results[1][0].end()));
    }
}

TEST_CASE("DCVRP two_opt on CUDA fails with a clear message") {
    const DcvrpProblem problem(generate_random(20, 1));
    CHECK_THROWS_WITH_AS(make_two_opt(problem, {}, Backend::cuda),
                         "dcvrp two_opt: the CUDA backend of the giant-tour neighborhoods is not "
                         "built yet; run with backend: cpu",
                         NotImplemented);
}
