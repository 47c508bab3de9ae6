// Tests of the Max-Cut plugin (ctest, with doctest): every flip's delta against a full
// evaluation, descents to local optima under check_moves, and on a machine with a CUDA device
// the CUDA flip neighborhood against its CPU twin. The checks come with locus
// (<locus/testing/neighborhood_checks.hpp>).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <random>

#include "locus/gpu/device.hpp"
#include "locus/testing/neighborhood_checks.hpp"
#include "maxcut.hpp"

namespace {

/// `count` solutions of random sides, their objectives evaluated.
locus::SolutionBatch random_batch(const maxcut::MaxCutProblem& problem, std::size_t count,
                                  std::uint32_t seed) {
    locus::SolutionBatch batch(count, problem.solution_width());
    std::mt19937 rng(seed);
    for (std::size_t s = 0; s < count; ++s) {
        for (std::int32_t& side : batch[s])
            side = static_cast<std::int32_t>(rng() % 2);
        batch.objective(s) = problem.evaluate(batch[s]);
    }
    return batch;
}

} // namespace

TEST_CASE("every flip's delta equals the change of the full evaluation") {
    const auto problem = maxcut::MaxCutProblem::load("random-maxcut:n=40,degree=3,seed=5");
    maxcut::FlipPolicy policy{problem.get()};
    const locus::SolutionBatch batch = random_batch(*problem, 3, 1);
    const locus::testing::MoveCheck check = locus::testing::check_every_move(policy, batch);
    INFO(check.first_wrong);
    CHECK(check.moves == 3 * 40);
    CHECK(check.ok());
}

TEST_CASE("descents under check_moves end in exact local optima") {
    const auto problem = maxcut::MaxCutProblem::load("random-maxcut:n=200,degree=4,seed=2");
    locus::gpu::EngineSettings settings;
    settings.check_moves = true; // every applied move re-evaluated in full
    const auto flip = maxcut::make_cpu_flip(*problem, settings);
    for (const locus::Pivot pivot : {locus::Pivot::best, locus::Pivot::first}) {
        locus::SolutionBatch batch = random_batch(*problem, 4, 3);
        const locus::testing::DescentCheck check =
            locus::testing::check_descent(*flip, *problem, batch, pivot);
        INFO(check.error);
        CHECK(check.ok());
    }
}

TEST_CASE("the CUDA flip neighborhood descends as its CPU twin") {
    const std::string unavailable = locus::gpu::device_unavailable_reason();
    if (!unavailable.empty()) {
        MESSAGE("skipped, no CUDA device: " << unavailable);
        return;
    }
    const auto problem = maxcut::MaxCutProblem::load("random-maxcut:n=300,degree=4,seed=9");
    const auto cpu = maxcut::make_cpu_flip(*problem, {});
    const auto cuda = maxcut::make_cuda_flip(*problem, {});
    for (const locus::Pivot pivot : {locus::Pivot::best, locus::Pivot::first})
        CHECK(locus::testing::same_descent(*cpu, *cuda, random_batch(*problem, 8, 4), pivot) == "");
}
