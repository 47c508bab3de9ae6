// The neighborhood adapter on the CPU with a toy policy (adjacent swaps, objective = inversions):
// hand-computed descents, step and evaluation counts, max_steps and stop, check_moves against a
// planted wrong delta, the step counting of the device descent, and the settings.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "locus/component.hpp"
#include "locus/error.hpp"
#include "locus/gpu/neighborhood_adapter.hpp"
#include "test_support.hpp"
#include "toy_neighborhood.hpp"

using locus::DescentStats;
using locus::MoveChoice;
using locus::Objective;
using locus::Pivot;
using locus::SolutionBatch;
using locus::gpu::CpuNeighborhoodAdapter;
using locus::gpu::EngineSettings;
using locus::test::ToyCpuPolicy;

namespace {

using ToyAdapter = CpuNeighborhoodAdapter<ToyCpuPolicy>;

/// Solutions [4, 3, 2, 1] (6 inversions) and [1, 2, 4, 3] (1 inversion).
SolutionBatch hand_batch() {
    SolutionBatch batch(2, 4);
    const std::vector<std::int32_t> values = {4, 3, 2, 1, 1, 2, 4, 3};
    std::copy(values.begin(), values.end(), batch.data().begin());
    locus::test::evaluate_all(batch);
    return batch;
}

std::vector<std::int32_t> solution(const SolutionBatch& batch, std::size_t s) {
    return {batch[s].begin(), batch[s].end()};
}

SolutionBatch random_batch(std::size_t count, std::size_t width, std::uint64_t seed) {
    SolutionBatch batch(count, width);
    std::mt19937_64 random(seed);
    std::uniform_int_distribution<std::int32_t> value(0, 19); // duplicates: cells that are no move
    for (auto& x : batch.data())
        x = value(random);
    locus::test::evaluate_all(batch);
    return batch;
}

} // namespace

TEST_CASE("adapter descent on the toy problem: hand-computed steps, evaluations and solutions") {
    // [4,3,2,1] needs 6 moves, [1,2,4,3] one: 7 moves in 6 explorations that apply something
    // plus the one that applies nothing; each evaluates 3 cells of both solutions.
    for (const Pivot pivot : {Pivot::best, Pivot::first}) {
        for (const int threads : {1, 0}) {
            EngineSettings settings;
            settings.threads = threads;
            ToyAdapter adapter(ToyCpuPolicy{}, settings);
            SolutionBatch batch = hand_batch();
            const DescentStats stats = adapter.descend(batch, pivot, 0, {});
            CHECK(stats.steps == 7);
            CHECK(stats.evaluations == 42);
            CHECK_FALSE(stats.stopped);
            CHECK(solution(batch, 0) == std::vector<std::int32_t>{1, 2, 3, 4});
            CHECK(solution(batch, 1) == std::vector<std::int32_t>{1, 2, 3, 4});
            CHECK(batch.objective(0) == 0);
            CHECK(batch.objective(1) == 0);
        }
    }
}

TEST_CASE("adapter descent honours max_steps and stop between explorations") {
    ToyAdapter adapter(ToyCpuPolicy{}, EngineSettings{});
    // Best pivot, ties to the lowest index: [4,3,2,1] -> [3,4,2,1] -> [3,2,4,1] -> [2,3,4,1].
    SolutionBatch limited = hand_batch();
    const DescentStats three = adapter.descend(limited, Pivot::best, 3, {});
    CHECK(three.steps == 4); // 3 moves in solution 0, 1 in solution 1
    CHECK(three.evaluations == 18);
    CHECK_FALSE(three.stopped);
    CHECK(solution(limited, 0) == std::vector<std::int32_t>{2, 3, 4, 1});
    CHECK(limited.objective(0) == 3);

    SolutionBatch stopped = hand_batch();
    int calls = 0;
    const DescentStats two = adapter.descend(stopped, Pivot::best, 0, [&] { return ++calls > 2; });
    CHECK(calls == 3);
    CHECK(two.stopped);
    CHECK(two.steps == 3);
    CHECK(two.evaluations == 12);
    CHECK(solution(stopped, 0) == std::vector<std::int32_t>{3, 2, 4, 1});
    CHECK(stopped.objective(0) == 4);
}

TEST_CASE("adapter explore and apply: best and first moves, deltas added to the objectives") {
    ToyAdapter adapter(ToyCpuPolicy{}, EngineSettings{});
    SolutionBatch batch(2, 4);
    const std::vector<std::int32_t> values = {1, 3, 2, 4, 1, 2, 3, 4};
    std::copy(values.begin(), values.end(), batch.data().begin());
    locus::test::evaluate_all(batch);
    std::vector<MoveChoice> best(2);
    adapter.explore(batch, Pivot::best, best);
    CHECK(best[0].index == 1);
    CHECK(best[0].delta == -1);
    CHECK(best[1].index == 0); // sorted: every move adds an inversion, lowest index wins
    CHECK(best[1].delta == 1);
    std::vector<MoveChoice> first(2);
    adapter.explore(batch, Pivot::first, first);
    CHECK(first[0].index == 1);
    CHECK_FALSE(first[1].found());

    adapter.apply(batch, best); // applies found moves whatever their delta
    CHECK(solution(batch, 0) == std::vector<std::int32_t>{1, 2, 3, 4});
    CHECK(solution(batch, 1) == std::vector<std::int32_t>{2, 1, 3, 4});
    CHECK(batch.objective(0) == 0);
    CHECK(batch.objective(1) == 1);

    const std::vector<MoveChoice> bad = {MoveChoice{7, -1.0}, MoveChoice{}};
    CHECK(locus::test::error_message<locus::Error>([&] { adapter.apply(batch, bad); }) ==
          "move index 7 is not a move of the toy neighborhood");
}

TEST_CASE("check_moves catches a wrong delta with the move and both objectives named") {
    ToyCpuPolicy wrong;
    wrong.bias = -1; // improving deltas -2 instead of -1
    EngineSettings checked;
    checked.check_moves = true;
    ToyAdapter adapter(wrong, checked);
    SolutionBatch batch = hand_batch();
    // The first move of solution 0 swaps positions 0 and 1: 6 - 2 = 4 by delta, 5 in truth.
    CHECK(locus::test::error_message<locus::Error>(
              [&] { adapter.descend(batch, Pivot::best, 0, {}); }) ==
          "check_moves: solution 0 after adjacent swap at 0 has objective 4 by delta but 5 by "
          "full evaluation");

    // Without check_moves the same bug goes unnoticed: the objectives drift from the truth.
    ToyAdapter unchecked(wrong, EngineSettings{});
    SolutionBatch drifted = hand_batch();
    const DescentStats stats = unchecked.descend(drifted, Pivot::best, 0, {});
    CHECK(stats.steps == 7);
    CHECK(drifted.objective(0) == -6);
    CHECK(drifted.objective(1) == -1);
}

TEST_CASE("adapter descents of random arrays end sorted with the predicted counts") {
    for (const std::uint64_t seed : {1u, 2u, 3u}) {
        SolutionBatch batch = random_batch(7, 30, seed);
        Objective total = 0;
        Objective most = 0;
        for (std::size_t s = 0; s < batch.count(); ++s) {
            total += batch.objective(s);
            most = std::max(most, batch.objective(s));
        }
        REQUIRE(most > 0);
        for (const Pivot pivot : {Pivot::best, Pivot::first}) {
            SolutionBatch work = batch;
            ToyAdapter adapter(ToyCpuPolicy{}, EngineSettings{});
            const DescentStats stats = adapter.descend(work, pivot, 0, {});
            CHECK(static_cast<Objective>(stats.steps) == total);
            CHECK(static_cast<Objective>(stats.evaluations) == (most + 1) * 29 * 7);
            for (std::size_t s = 0; s < work.count(); ++s) {
                CHECK(std::is_sorted(work[s].begin(), work[s].end()));
                CHECK(work.objective(s) == 0);
            }
        }
    }
}

TEST_CASE("count_group counts up to and including the first step that applied nothing") {
    DescentStats stats;
    const std::vector<std::uint32_t> applied = {3, 2, 0, 5};
    const std::vector<std::uint64_t> evaluations = {10, 11, 12, 13};
    const locus::gpu::GroupCount group = locus::gpu::count_group(applied, evaluations, stats);
    CHECK(group.explorations == 3);
    CHECK(group.converged);
    CHECK(stats.steps == 5);
    CHECK(stats.evaluations == 33);

    const std::vector<std::uint32_t> moving = {1, 4};
    const locus::gpu::GroupCount more =
        locus::gpu::count_group(moving, std::span(evaluations).first(2), stats);
    CHECK(more.explorations == 2);
    CHECK_FALSE(more.converged);
    CHECK(stats.steps == 10);
    CHECK(stats.evaluations == 54);
}

TEST_CASE("engine settings come from the BuildContext; check_moves synchronises every step") {
    locus::BuildContext build;
    build.threads = 3;
    build.device = 1;
    build.check_moves = true;
    build.memory_budget = std::size_t{5} << 20;
    build.memory_fraction = 0.5;
    const EngineSettings settings = locus::gpu::engine_settings(build);
    CHECK(settings.threads == 3);
    CHECK(settings.device == 1);
    CHECK(settings.check_moves);
    CHECK(settings.sync_every == locus::gpu::kDefaultSyncEvery);
    CHECK(settings.memory.bytes == std::size_t{5} << 20);
    CHECK(settings.memory.fraction == 0.5);
    CHECK(settings.memory.allowance() == std::size_t{5} << 20);

    EngineSettings batched;
    batched.sync_every = 6;
    CHECK(locus::gpu::steps_per_sync(batched) == 6);
    batched.sync_every = 0;
    CHECK(locus::gpu::steps_per_sync(batched) == 1);
    CHECK(locus::gpu::steps_per_sync(settings) == 1);
}

TEST_CASE("the memory budget message names the MiB needed and allowed and the remedy") {
    CHECK(locus::gpu::detail::memory_budget_message("toy", 2, 4, (std::size_t{5} << 20) + 1,
                                                    (std::size_t{3} << 20) + 7) ==
          "GPU memory: the toy neighborhood needs 6 MiB of device memory for 2 solutions of width "
          "4, the memory budget allows 3 MiB; reduce `batch` (or raise memory_budget / "
          "memory_fraction)");
}
