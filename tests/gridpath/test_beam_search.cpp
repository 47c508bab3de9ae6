// FANG-driven beam search for grid paths on the CPU twin: legal steps, determinism, solving.

#include <doctest/doctest.h>

#include <set>

#include "locus/error.hpp"
#include "locus/gpu/successor_engine.hpp"
#include "locus/gridpath/beam_search.hpp"
#include "locus/gridpath/generator.hpp"
#include "locus/gridpath/moves_policy.hpp"

using namespace locus;
using namespace locus::gridpath;

TEST_CASE("one FANG step moves every active agent to a legal free cell within its window") {
    const Instance inst = generate(40, 12, 0.25, 3);
    std::vector<std::int32_t> goals;
    for (const Agent& a : inst.agents) {
        goals.push_back(a.goal_x);
        goals.push_back(a.goal_y);
    }
    GridMovesPolicy policy;
    policy.blocked = inst.grid.blocked.data();
    policy.goals = goals.data();
    policy.width = inst.grid.width;
    policy.height = inst.grid.height;
    policy.agents = 12;
    policy.window = 5;
    const auto layout = gpu::successor_layout(policy);
    std::vector<std::int32_t> slot(layout.slot_words, 0);
    for (std::int32_t a = 0; a < 12; ++a) {
        slot[2 * a] = inst.agents[a].start_x;
        slot[2 * a + 1] = inst.agents[a].start_y;
        layout.set_active(slot.data(), static_cast<std::uint32_t>(a), true);
    }
    gpu::CpuSuccessorEngine<GridMovesPolicy> engine(policy, 200);
    engine.load(slot.data(), 1);
    engine.generate(200, 9);
    REQUIRE(engine.size() == 200);
    std::int64_t before = 0, after = 0;
    for (std::uint32_t s = 0; s < 200; ++s) {
        const std::int32_t* next = engine.slots() + s * layout.slot_words;
        std::set<std::pair<int, int>> cells;
        std::int32_t moved = 0;
        for (std::int32_t a = 0; a < 12; ++a) {
            const int x = next[2 * a], y = next[2 * a + 1];
            CHECK(inst.grid.passable(x, y));
            CHECK(std::abs(x - slot[2 * a]) <= 2);
            CHECK(std::abs(y - slot[2 * a + 1]) <= 2);
            CHECK(cells.insert({x, y}).second);
            moved += std::abs(x - slot[2 * a]) + std::abs(y - slot[2 * a + 1]);
            before += manhattan(inst.agents[a]);
            after += std::abs(x - inst.agents[a].goal_x) + std::abs(y - inst.agents[a].goal_y);
        }
        CHECK(next[24] == moved);
        CHECK_FALSE(layout.is_active(next, 0));
    }
    CHECK(after < before); // the heuristic pulls agents towards their goals
}

TEST_CASE("beam search brings every agent to its goal, deterministically") {
    const Instance inst = generate(64, 8, 0.15, 5);
    BeamOptions options;
    options.width = 32;
    options.successors = 4;
    options.window = 5;
    const BeamResult a = beam_search_cpu(inst, options);
    CHECK(a.solved);
    CHECK(a.remaining == 0);
    CHECK(a.total_moves >= a.lower_bound);
    CHECK(a.steps > 0);
    for (std::size_t i = 0; i < inst.agents.size(); ++i) {
        CHECK(a.positions[2 * i] == inst.agents[i].goal_x);
        CHECK(a.positions[2 * i + 1] == inst.agents[i].goal_y);
    }
    options.threads = 1;
    const BeamResult b = beam_search_cpu(inst, options);
    CHECK(b.steps == a.steps);
    CHECK(b.total_moves == a.total_moves);
}

TEST_CASE("beam search solves a generated 256 x 256 instance with 32 agents and 20 % obstacles") {
    const Instance inst = generate(256, 32, 0.2, 1);
    BeamOptions options;
    options.width = 16;
    options.successors = 4;
    options.window = 7;
    const BeamResult r = beam_search_cpu(inst, options);
    CHECK(r.solved);
    MESSAGE("256x256, 32 agents, 20 % obstacles: ", r.steps, " steps, ", r.total_moves,
            " moves, Manhattan lower bound ", r.lower_bound);
}

TEST_CASE("beam search rejects bad options with clear messages") {
    const Instance inst = generate(16, 2, 0.0, 1);
    BeamOptions options;
    options.window = 4;
    CHECK_THROWS_WITH_AS(beam_search_cpu(inst, options),
                         "beam search: window 4 must be odd and >= 3", Error);
    options.window = 5;
    options.greed = 7;
    CHECK_THROWS_WITH_AS(beam_search_cpu(inst, options), "beam search: greed 7 must be in 0..4",
                         Error);
}
