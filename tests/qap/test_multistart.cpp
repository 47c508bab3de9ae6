// The multi-start engine on the CPU twin with the QAP policy: hill climbing ends in local
// optima, every strategy reports the objective of the permutation it returns, results do not
// depend on the thread count, the software exponential, and the plan's errors.

#include <doctest/doctest.h>

#include <chrono>

#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "locus/error.hpp"
#include "locus/gpu/multistart.hpp"
#include "locus/qap/generator.hpp"
#include "locus/qap/instance.hpp"
#include "locus/qap/multistart_policy.hpp"
#include "locus/qap/swap.hpp"

using namespace locus;
using locus::gpu::MultiStartConfig;
using locus::gpu::SearchResult;
using locus::gpu::Strategy;

namespace {

std::vector<std::int32_t> random_starts(std::int32_t n, std::uint32_t searches,
                                        std::uint64_t seed) {
    return locus::qap::random_permutations(n, searches, seed);
}

struct Outcome {
    std::vector<std::int32_t> best;
    std::vector<SearchResult> results;
};

Outcome run(const qap::Instance& inst, const MultiStartConfig& config,
            const std::vector<std::int32_t>& starts, int threads) {
    const auto words = qap::matrix_words(inst);
    const auto searches =
        static_cast<std::uint32_t>(starts.size() / static_cast<std::size_t>(inst.n));
    Outcome o{std::vector<std::int32_t>(starts.size()), std::vector<SearchResult>(searches)};
    gpu::run_multistart_cpu(qap::swap_policy(words.data(), inst.n, false), config, searches,
                            starts.data(), o.best.data(), o.results.data(), threads);
    return o;
}

bool is_permutation(std::span<const std::int32_t> p) {
    std::vector<char> seen(p.size(), 0);
    for (const std::int32_t v : p) {
        if (v < 0 || static_cast<std::size_t>(v) >= p.size() || seen[static_cast<std::size_t>(v)])
            return false;
        seen[static_cast<std::size_t>(v)] = 1;
    }
    return true;
}

} // namespace

TEST_CASE("multi-start hill climbing ends in local optima and reports their objectives") {
    for (const bool asymmetric : {false, true}) {
        const qap::Instance inst = qap::generate_random(17, asymmetric ? 5 : 4, 100, asymmetric);
        const auto starts = random_starts(inst.n, 12, 3);
        for (const Strategy strategy : {Strategy::hc_best, Strategy::hc_first}) {
            MultiStartConfig config;
            config.strategy = strategy;
            config.iterations = 100000;
            const Outcome o = run(inst, config, starts, 2);
            for (std::size_t s = 0; s < o.results.size(); ++s) {
                const std::span<const std::int32_t> p(o.best.data() + s * 17, 17);
                REQUIRE(is_permutation(p));
                CHECK(o.results[s].best == qap::objective(inst, p));
                CHECK(o.results[s].final == o.results[s].best);
                CHECK(o.results[s].best <= qap::objective(inst, std::span<const std::int32_t>(
                                                                    starts.data() + s * 17, 17)));
                std::int64_t best_delta = 0;
                for (std::int32_t r = 0; r < 17; ++r)
                    for (std::int32_t q = r + 1; q < 17; ++q)
                        best_delta = std::min(best_delta, qap::swap_delta(inst, p, r, q));
                CHECK(best_delta == 0); // no improving swap left
            }
        }
    }
}

TEST_CASE("simulated annealing and tabu search return the best permutation they report") {
    const qap::Instance inst = qap::generate_random(23, 9, 50, true);
    const auto starts = random_starts(inst.n, 9, 4);
    for (const Strategy strategy : {Strategy::sa, Strategy::ts}) {
        MultiStartConfig config;
        config.strategy = strategy;
        config.iterations = strategy == Strategy::sa ? 30000 : 3000;
        config.seed = 77;
        const Outcome o = run(inst, config, starts, 2);
        std::int64_t start_best = INT64_MAX;
        std::int64_t found = INT64_MAX;
        for (std::size_t s = 0; s < o.results.size(); ++s) {
            const std::span<const std::int32_t> p(o.best.data() + s * 23, 23);
            REQUIRE(is_permutation(p));
            CHECK(o.results[s].best == qap::objective(inst, p));
            CHECK(o.results[s].best <= o.results[s].final);
            CHECK(o.results[s].moves > 0);
            start_best = std::min(
                start_best,
                qap::objective(inst, std::span<const std::int32_t>(starts.data() + s * 23, 23)));
            found = std::min(found, o.results[s].best);
        }
        CAPTURE(static_cast<int>(strategy));
        CHECK(found < start_best);
        // Hill climbing from the same starts ends no better than tabu search / annealing.
        MultiStartConfig hc;
        hc.strategy = Strategy::hc_best;
        hc.iterations = 100000;
        const Outcome h = run(inst, hc, starts, 2);
        std::int64_t hc_found = INT64_MAX;
        for (const auto& r : h.results)
            hc_found = std::min(hc_found, r.best);
        CHECK(found <= hc_found);
    }
}

TEST_CASE("annealing schedules: each reports true objectives, thread-count independent, distinct") {
    const qap::Instance inst = qap::generate_random(19, 12, 80, true);
    const auto starts = random_starts(inst.n, 8, 6);
    std::vector<std::vector<std::int32_t>> finals;
    for (const gpu::Schedule schedule :
         {gpu::Schedule::geometric, gpu::Schedule::linear, gpu::Schedule::lundy_mees}) {
        MultiStartConfig config;
        config.strategy = Strategy::sa;
        config.schedule = schedule;
        config.iterations = 4000;
        const Outcome one = run(inst, config, starts, 1);
        const Outcome two = run(inst, config, starts, 2);
        CHECK(one.best == two.best);
        for (std::size_t s = 0; s < one.results.size(); ++s)
            CHECK(one.results[s].best == qap::objective(inst, std::span<const std::int32_t>(
                                                                  one.best.data() + s * 19, 19)));
        finals.push_back(one.best);
    }
    CHECK(finals[0] != finals[1]);
    CHECK(finals[0] != finals[2]);
    CHECK(finals[1] != finals[2]);
}

TEST_CASE("multi-start results do not depend on the thread count and follow the seed") {
    const qap::Instance inst = qap::generate_random(15, 2, 100, false);
    const auto starts = random_starts(inst.n, 10, 8);
    for (const Strategy strategy : {Strategy::hc_first, Strategy::sa, Strategy::ts}) {
        MultiStartConfig config;
        config.strategy = strategy;
        config.iterations = 500;
        const Outcome one = run(inst, config, starts, 1);
        const Outcome two = run(inst, config, starts, 2);
        CHECK(one.best == two.best);
        for (std::size_t s = 0; s < one.results.size(); ++s) {
            CHECK(one.results[s].best == two.results[s].best);
            CHECK(one.results[s].moves == two.results[s].moves);
        }
        if (strategy != Strategy::hc_first) {
            config.seed = 2;
            const Outcome other = run(inst, config, starts, 2);
            CHECK(other.best != one.best);
        }
    }
}

TEST_CASE("the software exponential matches std::exp to 1e-14 relative") {
    for (double x = -699.0; x <= 0.0; x += 0.37)
        CHECK(std::abs(gpu::exp_nonpositive(x) - std::exp(x)) <= 1e-14 * std::exp(x));
    CHECK(gpu::exp_nonpositive(-800.0) == 0.0);
    CHECK(gpu::exp_nonpositive(0.0) == 1.0);
}

TEST_CASE("multi-start plan errors name the setting") {
    MultiStartConfig config;
    CHECK_THROWS_WITH_AS(
        gpu::plan_multistart(config, 1),
        "multi-start engine: permutations of length 1 have no swap moves (need n >= 2)", Error);
    CHECK_THROWS_WITH_AS(
        gpu::plan_multistart(config, 46341),
        "multi-start engine: permutations of length 46341 exceed the 46340 its 32-bit pair "
        "indices allow",
        Error);
    config.accept0 = 1.0;
    CHECK_THROWS_WITH_AS(gpu::plan_multistart(config, 5),
                         "multi-start engine: accept0 must lie in (0, 1)", Error);
    config.accept0 = 0.5;
    config.tenure_min = 9;
    config.tenure_max = 4;
    CHECK_THROWS_WITH_AS(gpu::plan_multistart(config, 5),
                         "multi-start engine: tabu tenure [9, 4] is empty or starts at 0", Error);
    config.tenure_min = 0;
    config.tenure_max = 0;
    const auto plan = gpu::plan_multistart(config, 50);
    CHECK(plan.tenure_min == 45);
    CHECK(plan.tenure_min + plan.tenure_span - 1 == 55);
    // The halt flag is read every ~2^22 pair terms of the delta table: 64 rows at n = 50, a few
    // at n = 1000 (a 64-row chunk there held a time limit up by a second on a loaded machine).
    CHECK(plan.halt_rows == 64);
    CHECK(gpu::plan_multistart(config, 1000).halt_rows == 4);
    CHECK(gpu::plan_multistart(config, 5000).halt_rows == 1);
}

TEST_CASE("matrix words reject values beyond 32 bits") {
    qap::Instance inst = qap::generate_random(4, 1, 10, false);
    inst.name = "big";
    inst.a[5] = 5000000000LL;
    CHECK_THROWS_WITH_AS(
        qap::matrix_words(inst),
        "big: value 5000000000 does not fit in 32 bits, which the multi-start engine "
        "stores the matrices in",
        InstanceError);
}

TEST_CASE("multi-start device memory: tables per search, tabu matrices for tabu search only") {
    // n = 10: permutations 2 x 40 bytes, deltas 800, results 48 per search; tabu 400; the
    // thread mapping's current permutations 40; each array padded to 256 bytes at most.
    const auto bytes = [](Strategy strategy, gpu::Mapping mapping) {
        return gpu::multistart_bytes_needed(10, 3, mapping, strategy);
    };
    const std::size_t sa = bytes(Strategy::sa, gpu::Mapping::block);
    CHECK(sa >= 3 * (80 + 800 + 48));
    CHECK(sa < 3 * (80 + 800 + 48) + 6 * 256);
    const std::size_t tabu = bytes(Strategy::ts, gpu::Mapping::block) - sa;
    CHECK(tabu >= 3 * 400);
    CHECK(tabu < 3 * 400 + 256);
    const std::size_t perms =
        bytes(Strategy::ts, gpu::Mapping::thread) - bytes(Strategy::ts, gpu::Mapping::block);
    CHECK(perms >= 3 * 40);
    CHECK(perms < 3 * 40 + 256);
    CHECK(gpu::multistart_bytes_needed(10, 3000, gpu::Mapping::block, Strategy::sa) >=
          1000 * (sa - 6 * 256));
}

TEST_CASE("the CPU twin stops inside a search at the limit: the rest keep their starts") {
    // A search of 10^6 tabu iterations on n = 200 takes minutes; `stop` turns true after
    // 0.2 s, the watchdog raises the halt flag, the search under way ends with its best so far
    // and the searches not started are skipped.
    const qap::Instance inst = qap::generate_random(200, 3, 50, false);
    const auto starts = random_starts(inst.n, 4, 2);
    const auto words = qap::matrix_words(inst);
    MultiStartConfig config;
    config.strategy = Strategy::ts;
    config.iterations = 1000000;
    std::vector<std::int32_t> best(starts.size());
    std::vector<SearchResult> results(4);
    const auto t0 = std::chrono::steady_clock::now();
    const auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    const std::uint32_t ran = gpu::run_multistart_cpu(
        qap::swap_policy(words.data(), inst.n, false), config, 4, starts.data(), best.data(),
        results.data(), 1, [&] { return elapsed() > 0.2; });
    CHECK(elapsed() < 2.0);
    CHECK(ran == 1);
    CHECK(results[0].moves > 0);
    CHECK(results[0].moves < config.iterations);
    for (std::size_t s = 0; s < 4; ++s) {
        CAPTURE(s);
        const std::span<const std::int32_t> start(starts.data() + s * 200, 200);
        const std::span<const std::int32_t> p(best.data() + s * 200, 200);
        CHECK(results[s].best == qap::objective(inst, p));
        if (s > 0) {
            CHECK(results[s].moves == 0);
            CHECK(std::equal(p.begin(), p.end(), start.begin()));
        }
    }
}

TEST_CASE("matrix words reject instances whose swap deltas could overflow 64 bits") {
    qap::Instance inst = qap::generate_random(4, 1, 10, false);
    inst.name = "huge";
    inst.a[1] = 2147483647;
    inst.b[2] = 2147483647;
    CHECK_THROWS_WITH_AS(qap::matrix_words(inst),
                         "huge: swap deltas could overflow 64 bits (8 n max(A) max(B) with n = 4, "
                         "max(A) = 2147483647, max(B) = 2147483647 exceeds 2^62)",
                         InstanceError);
}

namespace {
/// The QAP policy with a wrong O(1) delta update (off by one): check_moves must catch it.
struct WrongUpdate : qap::QapSwapPolicy {
    LOCUS_HD_INLINE std::int64_t updated(const std::int32_t* p, std::int64_t d, std::int32_t r,
                                         std::int32_t s, std::int32_t u, std::int32_t v) const {
        return qap::QapSwapPolicy::updated(p, d, r, s, u, v) + 1;
    }
};
} // namespace

TEST_CASE("check_moves: every multi-start strategy verifies each move by full evaluation") {
    const qap::Instance inst = qap::generate_random(20, 4, 100, true);
    const auto words = qap::matrix_words(inst);
    const auto starts = random_starts(inst.n, 4, 2);
    for (Strategy strategy : {Strategy::hc_best, Strategy::hc_first, Strategy::sa, Strategy::ts}) {
        CAPTURE(static_cast<int>(strategy));
        MultiStartConfig config;
        config.strategy = strategy;
        config.iterations = 200;
        config.check_moves = true;
        std::vector<std::int32_t> best(starts.size());
        std::vector<SearchResult> results(4);
        gpu::run_multistart_cpu(qap::swap_policy(words.data(), inst.n, false), config, 4,
                                starts.data(), best.data(), results.data(), 1);
        for (const SearchResult& r : results)
            CHECK(r.check_failed == 0);
        WrongUpdate wrong;
        static_cast<qap::QapSwapPolicy&>(wrong) = qap::swap_policy(words.data(), inst.n, false);
        gpu::run_multistart_cpu(wrong, config, 4, starts.data(), best.data(), results.data(), 1);
        int caught = 0;
        for (const SearchResult& r : results) {
            if (r.check_failed == 0) continue;
            ++caught;
            CHECK(r.full != r.final);
            CHECK(r.moves >= 2); // the first move's deltas are exact, later ones drift
        }
        CHECK(caught > 0);
    }
}
