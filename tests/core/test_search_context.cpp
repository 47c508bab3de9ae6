// SearchContext: the best of a run, and the trajectory reported with it only while it still
// ends at that best.

#include <doctest/doctest.h>

#include <chrono>
#include <set>
#include <thread>
#include <vector>

#include "locus/problem.hpp"
#include "locus/rng_salts.hpp"
#include "locus/search_context.hpp"

using namespace locus;

namespace {

/// A problem of one value; the objective is the value.
class OneValue final : public Problem {
public:
    std::string_view problem_name() const override { return "one-value"; }
    std::string instance_name() const override { return "toy"; }
    std::size_t size() const override { return 1; }
    std::size_t solution_width() const override { return 1; }
    Objective evaluate(std::span<const std::int32_t> s) const override { return s[0]; }
    Verdict verify(std::span<const std::int32_t> s) const override {
        return {true, evaluate(s), {}};
    }
    std::string solution_extension() const override { return ".txt"; }
    void write_solution(const std::filesystem::path&, std::span<const std::int32_t>,
                        Objective) const override {}
    std::vector<std::int32_t> read_solution(const std::filesystem::path&) const override {
        return {0};
    }
};

} // namespace

TEST_CASE("a trajectory is reported with the run only while it ends at the run's best") {
    OneValue problem;
    std::vector<RunSummary> runs;
    SearchContext::Callbacks callbacks;
    callbacks.on_run_end = [&runs](const RunSummary& s) { runs.push_back(s); };
    SearchContext ctx(problem, nullptr, Termination{}, 1, std::chrono::steady_clock::now(),
                      std::nullopt, callbacks);
    const std::vector<std::int32_t> a{5}, b{3}, start{9};
    CHECK(ctx.offer(a, 5.0));
    ctx.set_trajectory({start, a});
    ctx.next_run();
    CHECK(ctx.offer(a, 5.0));
    ctx.set_trajectory({start, a});
    CHECK(ctx.offer(b, 3.0)); // a better solution after the trajectory: it no longer applies
    ctx.next_run();
    CHECK(ctx.offer(b, 3.0));
    ctx.finish();
    REQUIRE(runs.size() == 3);
    CHECK(runs[0].trajectory == std::vector<std::vector<std::int32_t>>{start, a});
    CHECK(runs[1].best_solution == b);
    CHECK(runs[1].trajectory.empty());
    CHECK(runs[2].trajectory.empty()); // cleared between runs
}

TEST_CASE("the process-wide stop flag rises at the run's deadline, without reading the clock") {
    OneValue problem;
    clear_interrupt();
    Termination termination;
    termination.time_limit_s = 0.3;
    const auto start = SearchContext::Clock::now();
    {
        SearchContext ctx(problem, nullptr, termination, 1, start, std::nullopt, {});
        CHECK_FALSE(stop_requested());
        // A loop that reads only the flag (as a construction or a table build does) ends at the
        // deadline.
        while (!stop_requested())
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        const double seconds =
            std::chrono::duration<double>(SearchContext::Clock::now() - start).count();
        CHECK(seconds >= 0.3);
        CHECK(ctx.should_stop());
        CHECK(ctx.stop_reason() == StopReason::time_limit);
        // The next run has a deadline of its own: the flag is down until it passes.
        ctx.next_run();
        CHECK_FALSE(stop_requested());
    }
    // A finished context leaves no deadline behind; a job without a limit has none.
    CHECK_FALSE(stop_requested());
    termination.time_limit_s = 0.0;
    SearchContext unlimited(problem, nullptr, termination, 1, SearchContext::Clock::now(),
                            std::nullopt, {});
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    CHECK_FALSE(stop_requested());
    // An interrupt raises it at once.
    request_interrupt();
    CHECK(stop_requested());
    clear_interrupt();
    CHECK_FALSE(stop_requested());
}

TEST_CASE("a deadline armed by a later context is not disarmed by an earlier one") {
    const auto now = std::chrono::steady_clock::now();
    const std::uint64_t first = arm_deadline(now + std::chrono::hours(1));
    const std::uint64_t second = arm_deadline(now - std::chrono::seconds(1));
    CHECK(stop_requested()); // the second deadline has passed
    disarm_deadline(first);
    CHECK(stop_requested());
    disarm_deadline(second);
    CHECK_FALSE(stop_requested());
}

TEST_CASE("the RNG salts are pairwise distinct, so no two purposes share a stream") {
    const std::uint64_t salts[] = {
        salt::kConstruction,     salt::kIlsAcceptance,  salt::kIlsPerturbation,
        salt::kIlsRestart,       salt::kBeamExpansion,  salt::kChainRestart,
        salt::kChainPopulation,  salt::kChainAcceptance, salt::kChainRecombination,
        salt::kTspFang,          salt::kTspGenerator,   salt::kQapGenerator,
        salt::kGridpathGenerator, salt::kQapGreedy,     salt::kQapMultiStart,
        salt::kQapKick,          salt::kDcvrpGenerator};
    const std::set<std::uint64_t> distinct(std::begin(salts), std::end(salts));
    CHECK(distinct.size() == std::size(salts));
    // NOTE: ILS perturbation round r uses kIlsPerturbation + r, r below max_strength (at most
    // 100,000): no other salt lies in that range.
    for (const std::uint64_t s : salts)
        CHECK_FALSE((s > salt::kIlsPerturbation && s < salt::kIlsPerturbation + 100000));
}
