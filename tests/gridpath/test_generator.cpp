// random-grid generator: determinism, obstacle density, distinct and reachable
// starts and goals, and the exact errors of generate() and of spec parsing.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "locus/error.hpp"
#include "test_support.hpp"
#include "locus/gridpath/generator.hpp"
#include "locus/gridpath/instance.hpp"

using locus::InstanceError;
using locus::gridpath::Agent;
using locus::gridpath::generate;
using locus::gridpath::generate_from_spec;
using locus::gridpath::Instance;

namespace {

std::string spec_error(const std::string& spec) {
    return locus::test::error_message<InstanceError>([&] {
        generate_from_spec(spec);
    });
}

/// Checks the instance invariants: free, pairwise distinct start and goal
/// cells, each goal reachable from its start (BFS from the goal).
void check_agents(const Instance& instance) {
    const auto& grid = instance.grid;
    std::set<std::size_t> cells;
    for (const Agent& agent : instance.agents) {
        REQUIRE(grid.passable(agent.start_x, agent.start_y));
        REQUIRE(grid.passable(agent.goal_x, agent.goal_y));
        CHECK(cells.insert(grid.index(agent.start_x, agent.start_y)).second);
        CHECK(cells.insert(grid.index(agent.goal_x, agent.goal_y)).second);
        const std::vector<std::int32_t> d =
            locus::gridpath::distances_to(grid, agent.goal_x, agent.goal_y);
        const std::int32_t steps = d[grid.index(agent.start_x, agent.start_y)];
        CHECK(steps >= locus::gridpath::manhattan(agent));
        CHECK(steps > 0);
    }
}

} // namespace

TEST_CASE("generate: deterministic, seed-dependent, canonical name") {
    const Instance a = generate(64, 16, 0.25, 7);
    const Instance b = generate(64, 16, 0.25, 7);
    const Instance c = generate(64, 16, 0.25, 8);
    CHECK(a.name == "random-grid:size=64,agents=16,obstacles=0.25,seed=7");
    CHECK(a.grid == b.grid);
    CHECK(a.agents == b.agents);
    CHECK(a.grid != c.grid);
    CHECK(a.agents != c.agents);
}

TEST_CASE("generate: exact obstacle count, valid agents, lower bound matches "
          "the agents") {
    for (const double density : {0.0, 0.1, 0.3, 0.45}) {
        CAPTURE(density);
        const Instance instance = generate(50, 40, density, 3);
        CHECK(instance.grid.width == 50);
        CHECK(instance.grid.height == 50);
        CHECK(instance.grid.blocked_count() ==
              static_cast<std::size_t>(std::llround(density * 2500.0)));
        REQUIRE(instance.agents.size() == 40);
        check_agents(instance);
        std::int64_t bound = 0;
        for (const Agent& agent : instance.agents)
            bound += locus::gridpath::manhattan(agent);
        CHECK(locus::gridpath::manhattan_lower_bound(instance) == bound);
        CHECK(bound > 0);
    }
}

TEST_CASE("generate: obstacles spread over the grid (each quadrant near the "
          "density)") {
    const Instance instance = generate(200, 8, 0.2, 11);
    for (int qy = 0; qy < 2; ++qy)
        for (int qx = 0; qx < 2; ++qx) {
            std::size_t blocked = 0;
            for (int y = qy * 100; y < qy * 100 + 100; ++y)
                for (int x = qx * 100; x < qx * 100 + 100; ++x)
                    blocked += instance.grid.passable(x, y) ? 0 : 1;
            // 10000 cells at p = 0.2: standard deviation 40; allow 5 sigma.
            CHECK(blocked > 1800);
            CHECK(blocked < 2200);
        }
}

TEST_CASE("generate: fills every free cell of a fragmented grid when asked to") {
    // At density 0.6 the free cells form many small regions; the largest feasible
    // agent count uses every region's pairs, and one more agent is refused.
    const Instance probe = generate(20, 1, 0.6, 5);
    const std::vector<std::int32_t> region = locus::gridpath::region_labels(probe.grid);
    std::vector<std::size_t> size;
    for (const std::int32_t r : region)
        if (r >= 0) {
            if (size.size() <= static_cast<std::size_t>(r))
                size.resize(static_cast<std::size_t>(r) + 1);
            ++size[static_cast<std::size_t>(r)];
        }
    std::int32_t capacity = 0;
    for (const std::size_t s : size)
        capacity += static_cast<std::int32_t>(s / 2);
    REQUIRE(capacity > 1);
    const Instance full = generate(20, capacity, 0.6, 5);
    CHECK(full.grid == probe.grid);
    check_agents(full);
    const std::string too_many = "random-grid:size=20,agents=" + std::to_string(capacity + 1) +
                                 ",obstacles=0.6,seed=5: the free cells have room for only " +
                                 std::to_string(capacity) +
                                 " agents (each needs a start and a goal in one connected "
                                 "region); lower agents or obstacles";
    CHECK_THROWS_WITH_AS(generate(20, capacity + 1, 0.6, 5), too_many.c_str(), InstanceError);
}

TEST_CASE("generate: out-of-range arguments") {
    CHECK_THROWS_WITH_AS(generate(1, 1, 0.0, 1),
                         "random-grid:size=1,agents=1,obstacles=0,seed=1: size = 1 is out of "
                         "range 2..4096",
                         InstanceError);
    CHECK_THROWS_WITH_AS(generate(4, 9, 0.0, 1),
                         "random-grid:size=4,agents=9,obstacles=0,seed=1: agents = 9 is out of "
                         "range 1..8 (half the cells)",
                         InstanceError);
    CHECK_THROWS_WITH_AS(generate(4, 2, 1.0, 1),
                         "random-grid:size=4,agents=2,obstacles=1,seed=1: obstacles = 1 is out of "
                         "range [0, 1)",
                         InstanceError);
    CHECK_THROWS_WITH_AS(generate(-3, 2, 0.5, 1),
                         "random-grid:size=-3,agents=2,obstacles=0.5,seed=1: size and agents must "
                         "be positive",
                         InstanceError);
}

TEST_CASE("generator specs") {
    using locus::gridpath::is_generator_spec;
    CHECK(is_generator_spec("random-grid:size=256,agents=32,obstacles=0.2,seed=1"));
    CHECK(is_generator_spec("random-grid:"));
    CHECK(is_generator_spec("maze:size=3"));
    CHECK_FALSE(is_generator_spec("maps/arena.map"));
    CHECK_FALSE(is_generator_spec("C:/maps/arena.map"));
    CHECK_FALSE(is_generator_spec("empty-8-8.map"));

    const Instance from_spec =
        generate_from_spec("random-grid:seed=4,agents=5,size=32,obstacles=0.1");
    const Instance direct = generate(32, 5, 0.1, 4);
    CHECK(from_spec.name == "random-grid:size=32,agents=5,obstacles=0.1,seed=4");
    CHECK(from_spec.grid == direct.grid);
    CHECK(from_spec.agents == direct.agents);
    const Instance defaults = generate_from_spec("random-grid:size=16,agents=3");
    CHECK(defaults.name == "random-grid:size=16,agents=3,obstacles=0,seed=1");
    CHECK(defaults.grid.blocked_count() == 0);
}

TEST_CASE("generator spec errors") {
    const std::string prefix = "invalid instance generator spec ";
    CHECK(spec_error("maze:size=3") ==
          prefix + "'maze:size=3': unknown generator 'maze' (available: random-grid)");
    CHECK(spec_error("random-grid:agents=3") ==
          prefix + "'random-grid:agents=3': missing parameter 'size' (side of "
                   "the square grid)");
    CHECK(spec_error("random-grid:size=8") ==
          prefix + "'random-grid:size=8': missing parameter 'agents' (number of "
                   "agents)");
    CHECK(spec_error("random-grid:size=8,agents=2,walls=3") ==
          prefix + "'random-grid:size=8,agents=2,walls=3': unknown parameter 'walls' "
                   "(parameters: size, agents, obstacles, seed)");
    CHECK(spec_error("random-grid:size=8,size=9,agents=2") ==
          prefix + "'random-grid:size=8,size=9,agents=2': parameter 'size' given twice");
    CHECK(spec_error("random-grid:size=8,agents=2,obstacles=0.1,obstacles=0.2") ==
          prefix + "'random-grid:size=8,agents=2,obstacles=0.1,obstacles=0.2': "
                   "parameter "
                   "'obstacles' given twice");
    CHECK(spec_error("random-grid:size=big,agents=2") ==
          prefix + "'random-grid:size=big,agents=2': parameter 'size': expected "
                   "a non-negative "
                   "integer, got 'big'");
    CHECK(spec_error("random-grid:size=8,agents=2,obstacles=lots") ==
          prefix + "'random-grid:size=8,agents=2,obstacles=lots': parameter "
                   "'obstacles': "
                   "expected a number, got 'lots'");
    CHECK(spec_error("random-grid:size=8,agents") ==
          prefix + "'random-grid:size=8,agents': expected 'key=value', found 'agents'");
    CHECK(spec_error("random-grid:size=5000,agents=2") ==
          prefix + "'random-grid:size=5000,agents=2': size = 5000 is out of "
                   "range 2..4096");
    CHECK(spec_error("random-grid:size=8,agents=0") ==
          prefix + "'random-grid:size=8,agents=0': agents = 0 is out of range "
                   "1..32 (half the "
                   "cells)");
    CHECK(spec_error("random-grid:size=8,agents=2,obstacles=-0.5") ==
          prefix + "'random-grid:size=8,agents=2,obstacles=-0.5': obstacles = "
                   "-0.5 is out of "
                   "range [0, 1)");
}
