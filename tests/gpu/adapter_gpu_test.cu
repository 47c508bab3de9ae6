// The device wrapper of the neighborhood adapter against the CPU wrapper, with the toy policy
// (adjacent swaps, objective = inversions): the same solutions, objectives, step and
// evaluation counts for every sync_every, both apply mappings and evaluations counted on the
// host or on the device; check_moves, undecodable moves and the memory budget.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "locus/error.hpp"
#include "locus/gpu/neighborhood_adapter.cuh"
#include "test_support.hpp"
#include "toy_neighborhood.hpp"

using locus::DescentStats;
using locus::MoveChoice;
using locus::Objective;
using locus::Pivot;
using locus::SolutionBatch;
using locus::gpu::EngineSettings;
using locus::test::AdjacentSwapEvaluator;

namespace {

/// Swaps the adjacent entries of a move; one thread per solution (kThreads == 1) or thread 0
/// of a block of kThreads.
template <unsigned kThreads> struct ToyApplier {
    static constexpr unsigned threads = kThreads;
    std::int32_t* solutions;
    std::int32_t width;

    __device__ bool operator()(std::uint32_t s, std::uint64_t index) const {
        if (index + 1 >= static_cast<std::uint64_t>(width)) return false;
        if (kThreads == 1 || threadIdx.x == 0) {
            std::int32_t* x = solutions + static_cast<std::int64_t>(s) * width + index;
            const std::int32_t tmp = x[0];
            x[0] = x[1];
            x[1] = tmp;
        }
        return true;
    }
};

__global__ void add_to_counter(unsigned long long* counter, unsigned long long value) {
    *counter += value;
}

/// The toy neighborhood on the device. With `device_counts` the evaluations of a step are added
/// to the adapter's device counter by a kernel instead of being returned to the host.
template <unsigned kThreads> class ToyDevicePolicy {
public:
    using evaluator_type = AdjacentSwapEvaluator;

    ToyDevicePolicy(std::int32_t width, std::int32_t bias, bool device_counts)
        : width_(width), bias_(bias), device_counts_(device_counts) {}

    std::string_view label() const { return "toy"; }
    locus::gpu::MoveGrid max_grid() const { return {1, static_cast<std::uint32_t>(width_ - 1)}; }
    void declare(locus::gpu::ArrayList&, std::uint32_t) {}
    void upload(const SolutionBatch&, const locus::gpu::DeviceBatch&, cudaStream_t) {}
    void download(SolutionBatch&, cudaStream_t) {}

    locus::gpu::PreparedExploration<AdjacentSwapEvaluator>
    prepare(const locus::gpu::DeviceBatch& d, unsigned long long* d_count, cudaStream_t stream) {
        const AdjacentSwapEvaluator eval{d.solutions, static_cast<std::int32_t>(d.width), bias_};
        const std::uint64_t cells = eval.grid().size() * d.count;
        if (!device_counts_) return {eval, cells};
        if (d_count != nullptr) {
            add_to_counter<<<1, 1, 0, stream>>>(d_count, cells);
            LOCUS_CUDA_CHECK_LAUNCH();
        }
        return {eval, 0};
    }
    ToyApplier<kThreads> applier(const AdjacentSwapEvaluator&,
                                 const locus::gpu::DeviceBatch& d) const {
        return {d.solutions, static_cast<std::int32_t>(d.width)};
    }
    Objective evaluate(std::span<const std::int32_t> x) const { return locus::test::inversions(x); }

private:
    std::int32_t width_;
    std::int32_t bias_;
    bool device_counts_;
};

template <unsigned kThreads>
using ToyDevice = locus::gpu::DeviceNeighborhoodAdapter<ToyDevicePolicy<kThreads>>;
using ToyCpu = locus::gpu::CpuNeighborhoodAdapter<locus::test::ToyCpuPolicy>;

SolutionBatch hand_batch() {
    SolutionBatch batch(2, 4);
    const std::vector<std::int32_t> values = {4, 3, 2, 1, 1, 2, 4, 3};
    std::copy(values.begin(), values.end(), batch.data().begin());
    locus::test::evaluate_all(batch);
    return batch;
}

SolutionBatch random_batch(std::size_t count, std::size_t width, std::uint64_t seed) {
    SolutionBatch batch(count, width);
    std::mt19937_64 random(seed);
    std::uniform_int_distribution<std::int32_t> value(0, 19);
    for (auto& x : batch.data())
        x = value(random);
    locus::test::evaluate_all(batch);
    return batch;
}

bool same_batch(const SolutionBatch& a, const SolutionBatch& b) {
    if (!std::equal(a.data().begin(), a.data().end(), b.data().begin())) return false;
    for (std::size_t s = 0; s < a.count(); ++s)
        if (a.objective(s) != b.objective(s)) return false;
    return true;
}

/// Descends `batch` on the device with an applier of kThreads and compares with the CPU.
template <unsigned kThreads>
void check_against_cpu(const SolutionBatch& batch, Pivot pivot, std::uint64_t max_steps,
                       const EngineSettings& settings, bool device_counts) {
    SolutionBatch on_cpu = batch;
    ToyCpu cpu(locus::test::ToyCpuPolicy{}, settings);
    const DescentStats expected = cpu.descend(on_cpu, pivot, max_steps, {});
    SolutionBatch on_device = batch;
    ToyDevice<kThreads> device(settings, static_cast<std::int32_t>(batch.width()), 0,
                               device_counts);
    const DescentStats got = device.descend(on_device, pivot, max_steps, {});
    CAPTURE(kThreads);
    CAPTURE(settings.sync_every);
    CAPTURE(settings.check_moves);
    CAPTURE(max_steps);
    CAPTURE(device_counts);
    CHECK(got.steps == expected.steps);
    CHECK(got.evaluations == expected.evaluations);
    CHECK(got.stopped == expected.stopped);
    CHECK(same_batch(on_cpu, on_device));
}

} // namespace

TEST_CASE("device descent of the toy problem: hand-computed counts for every sync_every") {
    for (const std::uint32_t sync_every : {1u, 2u, 3u, 4u, 8u}) {
        for (const bool check_moves : {false, true}) {
            EngineSettings settings;
            settings.sync_every = sync_every;
            settings.check_moves = check_moves;
            ToyDevice<1> device(settings, 4, 0, false);
            SolutionBatch batch = hand_batch();
            const DescentStats stats = device.descend(batch, Pivot::best, 0, {});
            CAPTURE(sync_every);
            CHECK(stats.steps == 7);
            CHECK(stats.evaluations == 42);
            CHECK_FALSE(stats.stopped);
            CHECK(std::is_sorted(batch[0].begin(), batch[0].end()));
            CHECK(std::is_sorted(batch[1].begin(), batch[1].end()));
            CHECK(batch.objective(0) == 0);
            CHECK(batch.objective(1) == 0);
        }
    }
}

TEST_CASE("sync_every does not change device descents: same results as the CPU wrapper") {
    // NOTE: under compute-sanitizer (LOCUS_SANITIZER_RUN) one seed, one step limit and two
    // group sizes (one step per launch, and groups that end mid-descent) keep racecheck within
    // minutes; the full grid runs in ctest.
    const bool sanitizer = std::getenv("LOCUS_SANITIZER_RUN") != nullptr;
    const std::vector<std::uint64_t> seeds =
        sanitizer ? std::vector<std::uint64_t>{1} : std::vector<std::uint64_t>{1, 2};
    const std::vector<std::uint64_t> limits =
        sanitizer ? std::vector<std::uint64_t>{7} : std::vector<std::uint64_t>{0, 7, 50};
    const std::vector<std::uint32_t> groups =
        sanitizer ? std::vector<std::uint32_t>{1, 3} : std::vector<std::uint32_t>{1, 2, 3, 5, 16};
    for (const std::uint64_t seed : seeds) {
        const SolutionBatch batch = random_batch(9, 40, seed);
        for (const Pivot pivot : {Pivot::best, Pivot::first}) {
            for (const std::uint64_t max_steps : limits) {
                for (const std::uint32_t sync_every : groups) {
                    EngineSettings settings;
                    settings.sync_every = sync_every;
                    check_against_cpu<1>(batch, pivot, max_steps, settings, false);
                    check_against_cpu<64>(batch, pivot, max_steps, settings, true);
                }
                EngineSettings checked;
                checked.check_moves = true;
                check_against_cpu<1>(batch, pivot, max_steps, checked, true);
            }
        }
    }
}

TEST_CASE("device explore, apply and stop match the CPU wrapper") {
    const SolutionBatch batch = random_batch(5, 25, 7);
    ToyCpu cpu(locus::test::ToyCpuPolicy{}, EngineSettings{});
    ToyDevice<64> device(EngineSettings{}, 25, 0, false);
    for (const Pivot pivot : {Pivot::best, Pivot::first}) {
        std::vector<MoveChoice> a(5);
        std::vector<MoveChoice> b(5);
        cpu.explore(batch, pivot, a);
        device.explore(batch, pivot, b);
        for (std::size_t s = 0; s < 5; ++s) {
            CHECK(a[s].index == b[s].index);
            CHECK(a[s].delta == b[s].delta);
        }
        SolutionBatch x = batch;
        SolutionBatch y = batch;
        cpu.apply(x, a);
        device.apply(y, b);
        CHECK(same_batch(x, y));
    }
    // stop is asked between groups: after the first group of 4 steps here.
    SolutionBatch stopped = batch;
    EngineSettings settings;
    settings.sync_every = 4;
    ToyDevice<1> grouped(settings, 25, 0, false);
    int calls = 0;
    const DescentStats stats =
        grouped.descend(stopped, Pivot::best, 0, [&] { return ++calls > 1; });
    SolutionBatch four = batch;
    const DescentStats expected = cpu.descend(four, Pivot::best, 4, {});
    CHECK(stats.stopped);
    CHECK(calls == 2);
    CHECK(stats.steps == expected.steps);
    CHECK(same_batch(stopped, four));
}

TEST_CASE("device check_moves catches a wrong delta; undecodable moves are reported") {
    EngineSettings checked;
    checked.check_moves = true;
    ToyDevice<1> wrong(checked, 4, -1, false);
    SolutionBatch batch = hand_batch();
    CHECK(locus::test::error_message<locus::Error>([&] {
              wrong.descend(batch, Pivot::best, 0, {});
          }) == "check_moves: solution 0 after move index 0 has objective 4 by delta but 5 by full "
                "evaluation");

    ToyDevice<64> device(EngineSettings{}, 4, 0, false);
    SolutionBatch target = hand_batch();
    const std::vector<MoveChoice> bad = {MoveChoice{}, MoveChoice{9, -1.0}};
    CHECK(locus::test::error_message<locus::Error>([&] { device.apply(target, bad); }) ==
          "move index 9 is not a move of the toy neighborhood");
    // The error word is cleared: the adapter keeps working.
    const DescentStats stats = device.descend(target, Pivot::best, 0, {});
    CHECK(stats.steps == 7);
}

TEST_CASE("a batch beyond the memory budget is refused before allocating") {
    EngineSettings tight;
    tight.memory.bytes = 1024;
    ToyDevice<1> device(tight, 4, 0, false);
    SolutionBatch batch = hand_batch();
    const std::string message = locus::test::error_message<locus::CudaError>(
        [&] { device.descend(batch, Pivot::best, 0, {}); });
    CHECK(message.rfind("GPU memory: the toy neighborhood needs ", 0) == 0);
    CHECK(message.find(" MiB of device memory for 2 solutions of width 4, the memory budget "
                       "allows 0 MiB; reduce `batch` (or raise memory_budget / memory_fraction)") !=
          std::string::npos);
    CHECK(batch.objective(0) == 6); // untouched

    EngineSettings roomy;
    roomy.memory.bytes = std::size_t{64} << 20;
    ToyDevice<1> fits(roomy, 4, 0, false);
    CHECK(fits.descend(batch, Pivot::best, 0, {}).steps == 7);
}
