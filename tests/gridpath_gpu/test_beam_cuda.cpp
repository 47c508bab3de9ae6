// The beam search on the CUDA successor engine makes the same decisions as on the CPU twin.

#include <doctest/doctest.h>

#include "locus/gridpath/beam_search.hpp"
#include "locus/gridpath/generator.hpp"

using namespace locus::gridpath;

TEST_CASE("CUDA and CPU beam searches are identical") {
    struct Case { std::int32_t size, agents; double obstacles; std::int32_t window, load, greed; };
    for (const Case& c : {Case{48, 6, 0.1, 5, 1, 2}, Case{96, 16, 0.2, 7, 4, 1}, Case{64, 8, 0.0, 35, 1, 2}}) {
        const Instance inst = generate(c.size, c.agents, c.obstacles, 7);
        BeamOptions options;
        options.width = 16;
        options.successors = 4;
        options.window = c.window;
        options.load = c.load;
        options.greed = c.greed;
        options.max_steps = 40;
        const BeamResult cpu = beam_search_cpu(inst, options);
        const BeamResult cuda = beam_search_cuda(inst, options);
        CHECK(cpu.steps == cuda.steps);
        CHECK(cpu.total_moves == cuda.total_moves);
        CHECK(cpu.remaining == cuda.remaining);
        CHECK(cpu.positions == cuda.positions);
    }
}
