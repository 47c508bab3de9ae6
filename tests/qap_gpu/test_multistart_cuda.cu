// The multi-start engine on CUDA, with each mapping, gives the same searches as the CPU twin:
// best permutations and results (best, final objective, moves, when the best was found).

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "locus/error.hpp"
#include "locus/qap/generator.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/multistart.cuh"
#include "locus/qap/multistart.hpp"
#include "locus/qap/multistart_policy.hpp"
#include "test_support.hpp"

using namespace locus;
using namespace locus::qap;

namespace {

std::vector<std::int32_t> random_starts(std::int32_t n, std::uint32_t searches,
                                        std::uint64_t seed) {
    return locus::qap::random_permutations(n, searches, seed);
}

void compare(const Instance& inst, std::uint32_t searches, gpu::Strategy strategy,
             std::uint64_t iterations, gpu::Schedule schedule = gpu::Schedule::geometric) {
    const auto starts =
        random_starts(inst.n, searches, static_cast<std::uint64_t>(inst.n) * 31 + searches);
    gpu::MultiStartConfig config;
    config.strategy = strategy;
    config.iterations = iterations;
    config.seed = 99;
    config.schedule = schedule;
    std::vector<std::int32_t> cpu_best(starts.size());
    std::vector<gpu::SearchResult> cpu_results(searches);
    make_cpu_multistart(inst, 0)->run(config, searches, starts.data(), cpu_best.data(),
                                      cpu_results.data());
    for (const gpu::Mapping mapping :
         {gpu::Mapping::thread, gpu::Mapping::warp, gpu::Mapping::block}) {
        CAPTURE(inst.n);
        CAPTURE(static_cast<int>(strategy));
        CAPTURE(static_cast<int>(mapping));
        std::vector<std::int32_t> best(starts.size());
        std::vector<gpu::SearchResult> results(searches);
        make_cuda_multistart(inst, searches, mapping, strategy, 0)
            ->run(config, searches, starts.data(), best.data(), results.data());
        CHECK(best == cpu_best);
        std::size_t mismatches = 0;
        for (std::uint32_t s = 0; s < searches; ++s)
            mismatches += results[s].best != cpu_results[s].best ||
                          results[s].final != cpu_results[s].final ||
                          results[s].moves != cpu_results[s].moves ||
                          results[s].improved_at != cpu_results[s].improved_at;
        CHECK(mismatches == 0);
    }
}

} // namespace

TEST_CASE("CUDA multi-start searches equal the CPU twin for every strategy and mapping") {
    // Under compute-sanitizer (scripts/gpu-check) fewer searches and moves keep it short.
    const bool sanitizer = std::getenv("LOCUS_SANITIZER_RUN") != nullptr;
    const std::uint32_t searches = sanitizer ? 4 : 70;
    for (const std::int32_t n : {12, 37}) {
        if (sanitizer && n != 12) continue;
        const Instance inst = generate_random(n, static_cast<std::uint64_t>(n), 100, n == 12);
        compare(inst, searches, gpu::Strategy::hc_best, sanitizer ? 40 : 1000000);
        compare(inst, searches, gpu::Strategy::hc_first, sanitizer ? 40 : 1000000);
        compare(inst, searches, gpu::Strategy::sa, sanitizer ? 100 : 3000);
        compare(inst, searches, gpu::Strategy::sa, sanitizer ? 100 : 3000, gpu::Schedule::linear);
        compare(inst, searches, gpu::Strategy::sa, sanitizer ? 100 : 3000,
                gpu::Schedule::lundy_mees);
        compare(inst, searches, gpu::Strategy::ts, sanitizer ? 30 : 400);
    }
}

TEST_CASE("CUDA multi-start with matrices too large for shared memory (read-only cache path)") {
    const Instance inst = generate_random(180, 5, 100, true);
    compare(inst, 5, gpu::Strategy::ts, 25);
    compare(inst, 5, gpu::Strategy::hc_first, 25);
}

TEST_CASE("CUDA multi-start says how much memory too many searches need") {
    const Instance inst = generate_random(100, 1, 100, false);
    const auto words = matrix_words(inst);
    locus::gpu::DeviceBuffer<std::int32_t> d_words(words.size(), "test matrices");
    d_words.upload(words.data(), words.size());
    const std::string message = test::error_message<Error>([&] {
        gpu::MultiStartEngine<QapSwapPolicy> engine(swap_policy(d_words.data(), inst.n, true),
                                                    50000000, gpu::Mapping::block,
                                                    gpu::Strategy::ts);
    });
    CHECK(message.find("multi-start engine (50000000 searches of n = 100): needs ") == 0);
    CHECK(message.find("MiB of GPU memory (largest arrays: multi-start swap-delta tables") !=
          std::string::npos);
    CHECK(message.find("; run fewer searches per launch (the batch size)") != std::string::npos);
}

TEST_CASE("CUDA multi-start rounds larger than the engine run in several launches, same searches") {
    const Instance inst = generate_random(21, 8, 100, true);
    const auto words = matrix_words(inst);
    locus::gpu::DeviceBuffer<std::int32_t> d_words(words.size(), "test matrices");
    d_words.upload(words.data(), words.size());
    const std::uint32_t searches = 45;
    const auto starts = random_starts(inst.n, searches, 3);
    gpu::MultiStartConfig config;
    config.strategy = gpu::Strategy::ts;
    config.iterations = 60;
    std::vector<std::int32_t> cpu_best(starts.size()), best(starts.size());
    std::vector<gpu::SearchResult> cpu_results(searches), results(searches);
    make_cpu_multistart(inst, 0)->run(config, searches, starts.data(), cpu_best.data(),
                                      cpu_results.data());
    for (const gpu::Mapping mapping : {gpu::Mapping::thread, gpu::Mapping::block}) {
        gpu::MultiStartEngine<QapSwapPolicy> engine(swap_policy(d_words.data(), inst.n, true), 16,
                                                    mapping, gpu::Strategy::ts);
        CHECK(engine.run(config, searches, starts.data(), best.data(), results.data()) == searches);
        CHECK(best == cpu_best);
        for (std::uint32_t s = 0; s < searches; ++s)
            CHECK(results[s].best == cpu_results[s].best);

        // A stop request is honoured between launches: two launches of 16, complete results.
        int asked = 0;
        std::vector<gpu::SearchResult> partial(searches);
        const std::uint32_t ran = engine.run(config, searches, starts.data(), best.data(),
                                             partial.data(), [&asked] { return ++asked == 2; });
        CHECK(ran == 32);
        CHECK(asked == 2);
        for (std::uint32_t s = 0; s < ran; ++s)
            CHECK(partial[s].best == cpu_results[s].best);
    }
}

TEST_CASE(
    "a stopped CUDA multi-start round: searches of launches that did not run keep their start") {
    const Instance inst = generate_random(19, 4, 100, false);
    const std::uint32_t searches = 45;
    const auto starts = random_starts(inst.n, searches, 8);
    gpu::MultiStartConfig config;
    config.strategy = gpu::Strategy::hc_best;
    config.iterations = 100;
    std::vector<std::int32_t> best(starts.size(), -1);
    std::vector<gpu::SearchResult> results(searches, gpu::SearchResult{-1, -1, 99, 99, 0, 0});
    // A runner of 16 searches per launch: the round of 45 needs three launches; stop after one.
    const auto runner =
        make_cuda_multistart(inst, 16, gpu::Mapping::block, gpu::Strategy::hc_best, 0);
    int asked = 0;
    const std::uint32_t ran = runner->run(config, searches, starts.data(), best.data(),
                                          results.data(), [&asked] { return ++asked == 1; });
    CHECK(ran == 16);
    CHECK(asked == 1);
    const auto n = static_cast<std::size_t>(inst.n);
    std::uint32_t moved = 0;
    for (std::uint32_t s = 0; s < searches; ++s) {
        const std::span<const std::int32_t> b(best.data() + s * n, n);
        CHECK(results[s].best == objective(inst, b));
        if (s < ran) {
            moved += results[s].moves > 0;
            continue;
        }
        CHECK(std::equal(b.begin(), b.end(), starts.begin() + static_cast<std::ptrdiff_t>(s * n)));
        CHECK(results[s].final == results[s].best);
        CHECK(results[s].moves == 0);
        CHECK(results[s].improved_at == 0);
    }
    CHECK(moved > 0);
}
