// The grid-path successor generator on the CUDA engine makes the same decisions as on the CPU twin.

#include <doctest/doctest.h>

#include "locus/gridpath/generator.hpp"
#include "locus/gridpath/gridpath_problem.hpp"
#include "locus/gridpath/window_moves.hpp"

using namespace locus;
using namespace locus::gridpath;

TEST_CASE("CUDA and CPU window_moves expansions are identical over several steps") {
    struct Case {
        std::int32_t size, agents;
        double obstacles;
        std::int32_t window, load, greed;
    };
    for (const Case& c :
         {Case{48, 6, 0.1, 5, 1, 2}, Case{96, 16, 0.2, 7, 4, 1}, Case{64, 8, 0.0, 35, 1, 2},
          // crowded windows (all agents checked) and loads wrapping around the agents
          Case{24, 60, 0.15, 13, 40, 2}, Case{32, 20, 0.1, 9, 18, 3}}) {
        const GridpathProblem problem(generate(c.size, c.agents, c.obstacles, 7));
        WindowMovesOptions options;
        options.window = c.window;
        options.load = c.load;
        options.greed = c.greed;
        WindowMoves cpu(problem, options, Backend::cpu);
        WindowMoves cuda(problem, options, Backend::cuda);
        SolutionBatch beam(1, problem.solution_width());
        const auto s = problem.start_state();
        std::copy(s.begin(), s.end(), beam[0].begin());
        for (std::uint64_t step = 0; step < 4; ++step) {
            SolutionBatch a, b;
            cpu.expand(beam, 6, step, a);
            cuda.expand(beam, 6, step, b);
            REQUIRE(a.count() == b.count());
            CHECK(std::equal(a.data().begin(), a.data().end(), b.data().begin()));
            beam = a;
        }
    }
}
