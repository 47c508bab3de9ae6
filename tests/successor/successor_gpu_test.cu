// The CUDA successor engine against its CPU twin: bit-identical successors (problem words,
// active bitsets and advanced seeds) over random numbers of states, variables, possibilities,
// group sizes and both assignment orders, over two generation steps.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "colouring_problem.hpp"
#include "locus/gpu/successor_engine.cuh"

using locus::gpu::CpuSuccessorEngine;
using locus::gpu::SuccessorConfig;
using locus::gpu::SuccessorEngine;
using locus::gpu::SuccessorLayout;
using locus::test::ColouringProblem;
using locus::test::ExclusiveProblem;

namespace {

/// Runs two generation steps (k1 then k2 successors per state, some variables reactivated in
/// between) on both backends from `sources` random source states and compares the results.
template <class P>
void check_backends(const P& problem, std::uint32_t sources, std::uint32_t k1, std::uint32_t k2,
                    const SuccessorConfig& config, std::mt19937_64& random) {
    const SuccessorLayout layout = locus::gpu::successor_layout(problem);
    const std::uint32_t capacity = sources * k1 * k2;
    std::vector<std::int32_t> slots(static_cast<std::size_t>(sources) * layout.slot_words, -1);
    for (std::uint32_t s = 0; s < sources; ++s) {
        std::int32_t* slot = slots.data() + static_cast<std::size_t>(s) * layout.slot_words;
        for (std::uint32_t w = 0; w < layout.mask_words + 2; ++w)
            slot[layout.user_words + w] = 0;
        for (std::uint32_t v = 0; v < problem.variables(); ++v)
            layout.set_active(slot, v, random() % 4 != 0);
    }
    const std::uint64_t seed = random();

    CpuSuccessorEngine<P> cpu(problem, capacity, config);
    SuccessorEngine<P> gpu(problem, capacity, config);
    cpu.load(slots.data(), sources);
    gpu.load(slots.data(), sources);
    cpu.generate(k1, seed);
    gpu.generate(k1, seed);

    std::vector<std::int32_t> middle(static_cast<std::size_t>(cpu.size()) * layout.slot_words);
    gpu.download(middle.data());
    const std::vector<std::int32_t> cpu_middle(cpu.slots(), cpu.slots() + middle.size());
    CHECK(middle == cpu_middle);
    for (std::uint32_t s = 0; s < cpu.size(); ++s)
        for (std::uint32_t v = 0; v < problem.variables(); v += 3)
            layout.set_active(middle.data() + static_cast<std::size_t>(s) * layout.slot_words, v,
                              true);
    cpu.load(middle.data(), cpu.size());
    gpu.load(middle.data(), cpu.size());
    cpu.generate(k2, seed ^ 0xABCDEFull);
    gpu.generate(k2, seed ^ 0xABCDEFull);

    std::vector<std::int32_t> device(static_cast<std::size_t>(gpu.size()) * layout.slot_words);
    gpu.download(device.data());
    const std::vector<std::int32_t> host(cpu.slots(), cpu.slots() + device.size());
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < device.size(); ++i)
        mismatches += device[i] != host[i];
    CHECK(mismatches == 0);
}

} // namespace

TEST_CASE("CUDA successors equal CPU successors: colouring over random sizes") {
    std::mt19937_64 random(2024);
    static constexpr std::uint32_t kGroups[] = {32, 64, 256, 1024};
    for (int round = 0; round < 24; ++round) {
        const ColouringProblem problem{static_cast<std::uint32_t>(1 + random() % 100),
                                       static_cast<std::uint32_t>(1 + random() % 4000),
                                       static_cast<std::uint32_t>(random() % 256), random()};
        SuccessorConfig config;
        config.group_threads = kGroups[random() % 4];
        config.random_order = random() % 2 == 0;
        // Ratings and states in global memory, states only on chip, or both on chip.
        static constexpr std::size_t kChip[] = {0, 1024, 96 * 1024};
        config.chip_bytes = kChip[random() % 3];
        const auto sources = static_cast<std::uint32_t>(1 + random() % 8);
        const auto k1 = static_cast<std::uint32_t>(1 + random() % 16);
        const auto k2 = static_cast<std::uint32_t>(1 + random() % 4);
        CAPTURE(round);
        CAPTURE(problem.vars);
        CAPTURE(problem.colours);
        CAPTURE(config.group_threads);
        CAPTURE(config.random_order);
        CAPTURE(config.chip_bytes);
        check_backends(problem, sources, k1, k2, config, random);
    }
}

TEST_CASE("CUDA successors equal CPU successors: many states, exclusive token") {
    std::mt19937_64 random(5);
    for (const bool random_order : {false, true}) {
        SuccessorConfig config;
        config.random_order = random_order;
        config.group_threads = 32;
        check_backends(ExclusiveProblem{9}, 3, 700, 2, config, random);
    }
}

TEST_CASE("CUDA engine plans per device: ratings on chip by default, global scratch otherwise") {
    const ColouringProblem problem{40, 1000, 0, 1};
    SuccessorEngine<ColouringProblem> chip(problem, 64);
    CHECK(chip.launch().plan.ratings_on_chip);
    CHECK(chip.launch().groups > 0);
    CHECK(chip.device_bytes() == locus::gpu::successor_bytes_needed(problem, 64, 0, true));
    SuccessorConfig config;
    config.chip_bytes = 0;
    SuccessorEngine<ColouringProblem> global(problem, 64, config);
    CHECK_FALSE(global.launch().plan.ratings_on_chip);
    CHECK(global.device_bytes() ==
          locus::gpu::successor_bytes_needed(problem, 64, global.launch().groups, false));
}

TEST_CASE("CUDA engine rejects a lookup larger than the configured shared memory") {
    CHECK_THROWS_AS(SuccessorEngine<ColouringProblem>(ColouringProblem{2, 100000, 0, 1}, 1),
                    locus::Error);
}
