// The CPU twin of the successor engine: exact choices against a naive sampler on hand-made
// weights, forbidden possibilities, the could-not-assign path, assignment order, determinism,
// choice frequencies, memory sizing and configuration errors.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "colouring_problem.hpp"
#include "locus/gpu/successor_engine.hpp"

using locus::gpu::CpuSuccessorEngine;
using locus::gpu::SuccessorConfig;
using locus::gpu::SuccessorLayout;
using locus::gpu::XorShift64Star;
using locus::test::ColouringProblem;
using locus::test::ExclusiveProblem;
using locus::test::TableProblem;

namespace {

/// One slot of `layout` with problem words `words`, every variable of `active` active.
std::vector<std::int32_t> make_slot(const SuccessorLayout& layout,
                                    const std::vector<std::int32_t>& words,
                                    const std::vector<std::uint32_t>& active) {
    std::vector<std::int32_t> slot(layout.slot_words, 0);
    std::copy(words.begin(), words.end(), slot.begin());
    for (const std::uint32_t v : active)
        layout.set_active(slot.data(), v, true);
    return slot;
}

std::vector<std::uint32_t> all_variables(std::uint32_t n) {
    std::vector<std::uint32_t> v(n);
    for (std::uint32_t i = 0; i < n; ++i)
        v[i] = i;
    return v;
}

/// The possibility a naive sampler picks for decision value v: the first l with
/// w[0] + ... + w[l] > v.
std::int32_t naive_choice(const std::vector<std::uint32_t>& weights, std::uint64_t v) {
    std::uint64_t sum = 0;
    for (std::size_t l = 0; l < weights.size(); ++l) {
        sum += weights[l];
        if (sum > v)
            return static_cast<std::int32_t>(l);
    }
    return -2;
}

} // namespace

TEST_CASE("xorshift64* draws and multiply-high") {
    XorShift64Star rng = XorShift64Star::from(1);
    CHECK(rng.next() == 0x47E4CE4B896CDD1Dull); // first draw of xorshift64* from state 1
    CHECK(XorShift64Star::mul_high(~0ull, ~0ull) == ~0ull - 1);
    CHECK(XorShift64Star::mul_high(1ull << 63, 6) == 3);
    CHECK(XorShift64Star::from(0).state != 0);
}

TEST_CASE("segment lookup picks exactly the naive sampler's possibility") {
    std::mt19937_64 random(7);
    for (int round = 0; round < 300; ++round) {
        const auto count = static_cast<std::uint32_t>(1 + random() % 3000);
        std::vector<std::uint32_t> weights(count);
        const auto zero_share = random() % 4; // 0, 1/4, 1/2, 3/4 of the weights are zero
        for (auto& w : weights)
            w = random() % 4 < zero_share ? 0u : static_cast<std::uint32_t>(random() % 1000000);
        if (round % 10 == 0) { // a single nonzero weight, often in the last segment
            const auto only = static_cast<std::uint32_t>(count - 1 - random() % 40 % count);
            for (std::uint32_t l = 0; l < count; ++l)
                weights[l] = l == only ? 5u : 0u;
        }
        std::uint64_t total = 0;
        for (const auto w : weights)
            total += w;

        const TableProblem problem{weights.data(), count};
        const SuccessorLayout layout = locus::gpu::successor_layout(problem);
        const std::uint64_t seed = random();
        auto slot = make_slot(layout, {-1}, {0});
        layout.set_seed(slot.data(), seed);
        locus::gpu::assign_states_cpu(problem, SuccessorConfig{}, slot.data(), 1, 1);

        CAPTURE(count);
        CAPTURE(round);
        XorShift64Star rng = XorShift64Star::from(seed);
        const std::int32_t expected = total == 0 ? -2 : naive_choice(weights, rng.below(total));
        CHECK(slot[0] == expected);
        CHECK_FALSE(layout.is_active(slot.data(), 0));
        CHECK(layout.seed(slot.data()) == (total == 0 ? seed : rng.state));
    }
}

TEST_CASE("choice frequencies follow the weights") {
    const std::vector<std::uint32_t> weights = {1, 0, 3, 6, 0, 10};
    const TableProblem problem{weights.data(), 6};
    constexpr std::uint32_t kClones = 40000;
    CpuSuccessorEngine<TableProblem> engine(problem, kClones);
    const auto slot = make_slot(engine.layout(), {-1}, {0});
    engine.load(slot.data(), 1);
    engine.generate(kClones, 99);
    REQUIRE(engine.size() == kClones);
    std::vector<double> seen(6, 0.0);
    for (std::uint32_t s = 0; s < kClones; ++s)
        seen[static_cast<std::size_t>(engine.slots()[s * engine.layout().slot_words])] += 1;
    for (std::size_t l = 0; l < weights.size(); ++l) {
        const double p = weights[l] / 20.0;
        const double sigma = std::sqrt(p * (1 - p) / kClones);
        CAPTURE(l);
        CHECK(std::abs(seen[l] / kClones - p) <= 5 * sigma + 1e-12);
    }
}

TEST_CASE("colouring: forbidden and conflicting colours are never chosen") {
    std::mt19937_64 random(11);
    for (int round = 0; round < 40; ++round) {
        const ColouringProblem problem{static_cast<std::uint32_t>(1 + random() % 70),
                                       static_cast<std::uint32_t>(1 + random() % 300),
                                       static_cast<std::uint32_t>(random() % 200), random()};
        CpuSuccessorEngine<ColouringProblem> engine(problem, 8);
        const SuccessorLayout layout = engine.layout();
        const std::vector<std::int32_t> initial(problem.vars, -1);
        const auto slot = make_slot(layout, initial, all_variables(problem.vars));
        engine.load(slot.data(), 1);
        engine.generate(8, random());
        for (std::uint32_t s = 0; s < 8; ++s) {
            const std::int32_t* out = engine.slots() + s * layout.slot_words;
            for (std::uint32_t w = 0; w < layout.mask_words; ++w)
                CHECK(layout.mask(out)[w] == 0u);
            // Replay the sequential order: variable v saw the final colours of 0..v-1.
            std::vector<std::int32_t> state(initial);
            for (std::uint32_t v = 0; v < problem.vars; ++v) {
                const std::int32_t colour = out[v];
                if (colour >= 0) {
                    const auto l = static_cast<std::uint32_t>(colour);
                    const bool type1 = problem.variable_type(v) == 1;
                    CHECK(l < (type1 ? problem.possibilities<1>(state.data(), v)
                                     : problem.colours));
                    const auto r = type1 ? problem.rate<1>(state.data(), v, l)
                                         : problem.rate<0>(state.data(), v, l);
                    CHECK_FALSE(problem.forbidden(r));
                    CHECK(r.conflicts == 0);
                } else {
                    CHECK(colour == (problem.variable_type(v) == 0 ? -2 : -3));
                }
                state[v] = colour;
            }
        }
    }
}

TEST_CASE("colouring: every possibility forbidden -> could_not_assign for every variable") {
    const ColouringProblem problem{10, 20, 256, 5};
    CpuSuccessorEngine<ColouringProblem> engine(problem, 3);
    const SuccessorLayout layout = engine.layout();
    const auto slot = make_slot(layout, std::vector<std::int32_t>(10, -1), all_variables(10));
    engine.load(slot.data(), 1);
    engine.generate(3, 1);
    for (std::uint32_t s = 0; s < 3; ++s)
        for (std::uint32_t v = 0; v < 10; ++v)
            CHECK(engine.slots()[s * layout.slot_words + v] == (v % 3 == 2 ? -3 : -2));
}

TEST_CASE("inactive variables are left alone and successor values differ per clone") {
    const ColouringProblem problem{40, 16, 0, 3};
    CpuSuccessorEngine<ColouringProblem> engine(problem, 4);
    const SuccessorLayout layout = engine.layout();
    std::vector<std::int32_t> initial(40, 7);
    const auto slot = make_slot(layout, initial, {1, 33, 38});
    engine.load(slot.data(), 1);
    engine.generate(4, 42);
    for (std::uint32_t s = 0; s < 4; ++s) {
        const std::int32_t* out = engine.slots() + s * layout.slot_words;
        for (std::uint32_t v = 0; v < 40; ++v)
            if (v != 1 && v != 33 && v != 38)
                CHECK(out[v] == 7);
        CHECK(out[1] != 7); // colour 7 conflicts with both neighbours
        CHECK(out[33] != 7);
        CHECK(out[38] != 7);
    }
    CHECK(layout.seed(engine.slots()) != layout.seed(engine.slots() + layout.slot_words));
}

TEST_CASE("same seed -> identical successors, for any thread count; another seed differs") {
    const ColouringProblem problem{50, 200, 60, 77};
    const SuccessorLayout layout = locus::gpu::successor_layout(problem);
    const auto slot = make_slot(layout, std::vector<std::int32_t>(50, -1), all_variables(50));
    auto run = [&](std::uint64_t seed, int threads) {
        CpuSuccessorEngine<ColouringProblem> engine(problem, 64, SuccessorConfig{}, threads);
        engine.load(slot.data(), 1);
        engine.generate(8, seed);
        // Second generation: reactivate everything and expand again.
        std::vector<std::int32_t> states(engine.slots(), engine.slots() + 8 * layout.slot_words);
        for (std::uint32_t s = 0; s < 8; ++s)
            for (std::uint32_t v = 0; v < 50; v += 2)
                layout.set_active(states.data() + s * layout.slot_words, v, true);
        engine.load(states.data(), 8);
        engine.generate(8, seed + 1);
        return std::vector<std::int32_t>(engine.slots(), engine.slots() + 64 * layout.slot_words);
    };
    const auto a = run(5, 1);
    CHECK(a == run(5, 0));
    CHECK(a == run(5, 2));
    CHECK(a != run(6, 1));
}

TEST_CASE("assignment order: sequential is biased, random order is not (FANG 3.5)") {
    const ExclusiveProblem problem{2};
    const SuccessorLayout layout = locus::gpu::successor_layout(problem);
    const auto slot = make_slot(layout, {0, 0}, {0, 1});
    constexpr std::uint32_t kClones = 2000;
    for (const bool random_order : {false, true}) {
        SuccessorConfig config;
        config.random_order = random_order;
        CpuSuccessorEngine<ExclusiveProblem> engine(problem, kClones, config);
        engine.load(slot.data(), 1);
        engine.generate(kClones, 1234);
        std::uint32_t first_wins = 0;
        for (std::uint32_t s = 0; s < kClones; ++s) {
            const std::int32_t* out = engine.slots() + s * layout.slot_words;
            REQUIRE(((out[0] == 1 && out[1] == -2) || (out[0] == -2 && out[1] == 1)));
            first_wins += out[0] == 1;
        }
        CAPTURE(random_order);
        if (random_order) {
            CHECK(first_wins > kClones * 45 / 100);
            CHECK(first_wins < kClones * 55 / 100);
        } else {
            CHECK(first_wins == kClones);
        }
    }
}

TEST_CASE("memory need: double-buffered states, ratings per group unless kept on chip") {
    const ColouringProblem problem{40, 1000, 0, 1};
    // slot: 40 words + 2 mask words + 2 seed words; ratings: 8 bytes per possibility per group.
    CHECK(locus::gpu::successor_bytes_needed(problem, 100, 7, false) ==
          2 * 100 * 44 * 4 + 7 * 1000 * 8);
    CHECK(locus::gpu::successor_bytes_needed(problem, 100, 7, true) == 2 * 100 * 44 * 4);
    CHECK(CpuSuccessorEngine<ColouringProblem>::bytes_needed(problem, 100) == 2 * 100 * 44 * 4);
}

TEST_CASE("shared-memory plan: lookup, then ratings, then the state slot, as they fit") {
    const ColouringProblem problem{40, 1000, 0, 1};
    SuccessorConfig config;
    // lookup: 32 segments = 256 bytes; ratings 8000 bytes; slot 44 words = 176 bytes.
    config.chip_bytes = 8000 + 176;
    auto plan = locus::gpu::successor_plan(problem, config);
    CHECK(plan.lookup_bytes == 256);
    CHECK(plan.ratings_on_chip);
    CHECK(plan.ratings_offset == 256);
    CHECK(plan.state_on_chip);
    CHECK(plan.state_offset == 256 + 8000);
    CHECK(plan.shared_bytes == 256 + 8000 + 176);
    config.chip_bytes = 8000 + 175;
    plan = locus::gpu::successor_plan(problem, config);
    CHECK(plan.ratings_on_chip);
    CHECK_FALSE(plan.state_on_chip);
    CHECK(plan.shared_bytes == 256 + 8000);
    config.chip_bytes = 7999;
    plan = locus::gpu::successor_plan(problem, config);
    CHECK_FALSE(plan.ratings_on_chip);
    CHECK(plan.state_on_chip);
    CHECK(plan.state_offset == 256);
    config.chip_bytes = 0;
    plan = locus::gpu::successor_plan(problem, config);
    CHECK_FALSE(plan.ratings_on_chip);
    CHECK_FALSE(plan.state_on_chip);
    CHECK(plan.shared_bytes == 256);
}

TEST_CASE("configuration and capacity errors") {
    const ColouringProblem big{4, 200000, 0, 1};
    CHECK_THROWS_WITH_AS(CpuSuccessorEngine<ColouringProblem>(big, 1),
                         "successor engine: 200000 possibilities per variable need 50000 bytes of "
                         "shared memory for the segment lookup (8 bytes per 32 possibilities), but "
                         "lookup_bytes is 24576 (it holds 98304 possibilities); raise "
                         "SuccessorConfig::lookup_bytes or bound the possibilities",
                         locus::Error);
    SuccessorConfig odd;
    odd.group_threads = 48;
    CHECK_THROWS_WITH_AS(CpuSuccessorEngine<ColouringProblem>(ColouringProblem{4, 8, 0, 1}, 1, odd),
                         "successor engine: group_threads is 48; it must be 0 (automatic) or a "
                         "multiple of 32 between 32 and 1024",
                         locus::Error);
    CpuSuccessorEngine<ColouringProblem> engine(ColouringProblem{4, 8, 0, 1}, 5);
    const auto slot = make_slot(engine.layout(), {-1, -1, -1, -1}, all_variables(4));
    engine.load(slot.data(), 1);
    CHECK_THROWS_WITH_AS(engine.generate(6, 1),
                         "successor engine: 6 states exceed the capacity of 5 states; construct "
                         "the engine with a larger capacity",
                         locus::Error);
}
