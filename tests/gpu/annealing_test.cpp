// The shared simulated-annealing rule (gpu/locus/gpu/annealing.hpp) and its three users: the
// many-chain engine's acceptance, the multi-start engine's schedules and the ILS plugin's
// `annealing` acceptance (plugins/ils/acceptance.cpp, compiled into this test).

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../../plugins/ils/acceptance.hpp"
#include "locus/config.hpp"
#include "locus/error.hpp"
#include "locus/gpu/annealing.hpp"
#include "locus/gpu/chain_acceptance.hpp"
#include "locus/params.hpp"
#include "locus/registry.hpp"
#include "locus/rng.hpp"
#include "locus/rng_salts.hpp"

namespace {

using locus::gpu::Cooling;
using locus::gpu::Schedule;

bool same_bits(double a, double b) {
    std::uint64_t x = 0, y = 0;
    std::memcpy(&x, &a, sizeof x);
    std::memcpy(&y, &b, sizeof y);
    return x == y;
}

/// The rule as the engines wrote it inline before it was shared (the reference of the
/// bit-identity checks below).
namespace before {
double chain_temperature(double t0, double log_cooling, std::uint64_t it) {
    return locus::gpu::mul_rn(
        t0, locus::gpu::exp_nonpositive(locus::gpu::mul_rn(static_cast<double>(it), log_cooling)));
}
double next(Schedule schedule, double t, double initial, double cooling, double final_ratio,
            std::uint64_t iterations, double beta, std::uint64_t it) {
    using locus::gpu::add_rn;
    using locus::gpu::mul_rn;
    if (schedule == Schedule::geometric) return mul_rn(t, cooling);
    if (schedule == Schedule::linear)
        return mul_rn(initial,
                      add_rn(1.0, -(mul_rn(1.0 - final_ratio, static_cast<double>(it + 1)) /
                                    static_cast<double>(iterations))));
    return t / add_rn(1.0, mul_rn(beta, t));
}
} // namespace before

} // namespace

TEST_CASE("annealing: the Metropolis test accepts an uphill step of T with probability 1/e") {
    const double e1 = locus::gpu::exp_nonpositive(-1.0);
    CHECK(e1 == doctest::Approx(std::exp(-1.0)).epsilon(1e-15));
    CHECK(locus::gpu::metropolis(40.0, 40.0, std::nextafter(e1, 0.0)));
    CHECK_FALSE(locus::gpu::metropolis(40.0, 40.0, e1));
    CHECK(locus::gpu::metropolis(1e6, 1.0, 0.0) == false); // e^-10^6 underflows to 0
    CHECK(locus::gpu::metropolis(1.0, 1e12, 0.999999));
    // 53 random bits: 0 and the largest draw below 1.
    CHECK(locus::gpu::unit_interval(0) == 0.0);
    CHECK(locus::gpu::unit_interval(~std::uint64_t{0}) == 1.0 - 0x1.0p-53);
    locus::Rng a(7, 0), b(7, 0);
    CHECK(locus::gpu::unit_interval(a.next_u64()) == b.uniform());
}

TEST_CASE("annealing: the derived temperature accepts the mean uphill step with accept0") {
    const double t = locus::gpu::derived_temperature(30.0, 3, std::log(0.5));
    CHECK(t == doctest::Approx(10.0 / std::log(2.0)));
    CHECK(std::exp(-10.0 / t) == doctest::Approx(0.5));
    CHECK(locus::gpu::derived_temperature(0.0, 0, std::log(0.5)) ==
          doctest::Approx(1.0 / std::log(2.0)));
}

TEST_CASE("annealing: schedules reach T0 * final_ratio after their steps") {
    const double t0 = 250.0;
    const double ratio = 1e-3;
    const std::uint64_t steps = 1000;
    for (Schedule schedule : {Schedule::geometric, Schedule::linear, Schedule::lundy_mees}) {
        CAPTURE(static_cast<int>(schedule));
        const Cooling c =
            Cooling::make(schedule, t0, locus::gpu::geometric_factor(ratio, steps), ratio, steps);
        double t = t0;
        double previous = t0;
        for (std::uint64_t k = 0; k < steps; ++k) {
            t = c.next(t, k);
            CHECK(t < previous);
            previous = t;
        }
        CHECK(t == doctest::Approx(t0 * ratio).epsilon(1e-9));
    }
    // The closed form of the geometric schedule: T0 c^k.
    CHECK(locus::gpu::geometric_temperature(t0, std::log(0.99), 100) ==
          doctest::Approx(t0 * std::pow(0.99, 100)).epsilon(1e-12));
    CHECK(locus::gpu::geometric_factor(ratio, 0) == 1.0);
}

TEST_CASE("annealing: the shared rule computes bit for bit what the engines computed inline") {
    for (double t0 : {0.5, 3000.0, 1.25e7}) {
        for (double log_cooling : {0.0, -1e-4, -0.01, -1.0})
            for (std::uint64_t it : {0ull, 1ull, 17ull, 1000ull, 123456ull})
                CHECK(same_bits(locus::gpu::geometric_temperature(t0, log_cooling, it),
                                before::chain_temperature(t0, log_cooling, it)));
        for (Schedule schedule : {Schedule::geometric, Schedule::linear, Schedule::lundy_mees}) {
            const std::uint64_t iterations = 777;
            const double ratio = 2e-3;
            const double cooling = std::pow(ratio, 1.0 / static_cast<double>(iterations));
            const double beta = (1.0 / ratio - 1.0) / (static_cast<double>(iterations) * t0);
            const Cooling c = Cooling::make(schedule, t0, cooling, ratio, iterations);
            CHECK(same_bits(c.factor, locus::gpu::geometric_factor(ratio, iterations)));
            CHECK(same_bits(c.beta, beta));
            double shared = t0, inline_t = t0;
            for (std::uint64_t it = 0; it < iterations; ++it) {
                shared = c.next(shared, it);
                inline_t =
                    before::next(schedule, inline_t, t0, cooling, ratio, iterations, beta, it);
                REQUIRE(same_bits(shared, inline_t));
            }
        }
    }
}

TEST_CASE("annealing: the chain engine's acceptance is the shared test on the chain's draw") {
    locus::gpu::Acceptance a;
    a.kind = locus::gpu::AcceptanceKind::annealing;
    a.temperature = 500.0;
    a.log_cooling = -0.002;
    int accepted = 0;
    for (std::uint32_t chain = 0; chain < 8; ++chain)
        for (std::uint64_t it = 0; it < 400; ++it) {
            const std::int64_t current = 10000;
            const std::int64_t trial = current + static_cast<std::int64_t>(1 + (it * 37) % 900);
            locus::Rng rng(locus::derive_key(99, chain, it, locus::salt::kChainAcceptance), 0);
            const double u = static_cast<double>(rng.next_u64() >> 11) * 0x1.0p-53;
            const double t = before::chain_temperature(500.0, -0.002, it);
            const bool expected =
                u < locus::gpu::exp_nonpositive(-static_cast<double>(trial - current) / t);
            REQUIRE(a.accept(trial, current, 99, chain, it) == expected);
            accepted += expected ? 1 : 0;
        }
    // Both outcomes occur (the sweep exercises the test, not only one branch).
    CHECK(accepted > 0);
    CHECK(accepted < 8 * 400);
}

namespace {

/// The ILS acceptance components, registered as the plugin registers them, with a problem, a
/// descent and an ILS-like algorithm to compose configs around them.
locus::Registry make_registry() {
    locus::Registry r;
    locus::register_job_schema(r);
    locus::register_acceptance(r);
    const locus::Factory none = [](const locus::Params&, locus::BuildContext&) { return nullptr; };
    r.add(locus::ComponentSchema{"problem", "toy", "", "toy"}.string("instance", "", "file"), none);
    r.add(locus::ComponentSchema{"construction", "random", "", "random"}, none);
    r.add(locus::ComponentSchema{"algorithm", "walk", "", "walk"}.component(
              "acceptance", "acceptance", "better", "acceptance criterion"),
          none);
    return r;
}

std::unique_ptr<locus::Acceptance> annealing(locus::Registry& registry, double temperature,
                                             double cooling) {
    locus::Params params("acceptance", "annealing", "acceptance", {});
    params.set("temperature", temperature);
    params.set("accept0", 0.5);
    params.set("cooling", cooling);
    locus::BuildContext build;
    build.registry = &registry;
    return registry.create<locus::Acceptance>(params, build);
}

locus::SolutionBatch batch_of(const std::vector<double>& objectives) {
    locus::SolutionBatch b(objectives.size(), 1);
    for (std::size_t i = 0; i < objectives.size(); ++i)
        b.objective(i) = objectives[i];
    return b;
}

} // namespace

TEST_CASE(
    "ILS annealing: temperatures as shares of the best start's objective, given or derived, "
    "cooled per iteration") {
    locus::Registry registry = make_registry();
    const auto current = batch_of({100.0, 100.0, 100.0});
    SUBCASE("a given share: T = share x the best start's objective; an uphill step of T passes "
            "below u = 1/e") {
        auto a = annealing(registry, 0.4, 0.5); // best start 100 (not 130 or 120): T = 40
        a->next_iteration(batch_of({130.0, 100.0, 120.0}), batch_of({150.0, 90.0, 100.0}));
        const double e1 = locus::gpu::exp_nonpositive(-1.0);
        CHECK(a->accept(100.0, 140.0, std::nextafter(e1, 0.0)));
        CHECK_FALSE(a->accept(100.0, 140.0, e1));
        CHECK(a->accept(100.0, 100.0, 0.999)); // not worse: always
        a->next_iteration(current, current);   // T = 20
        CHECK(a->accept(100.0, 120.0, std::nextafter(e1, 0.0)));
        CHECK_FALSE(a->accept(100.0, 140.0, std::nextafter(e1, 0.0)));
    }
    SUBCASE("temperature 0: derived from the first iteration with uphill candidates") {
        auto a = annealing(registry, 0.0, 0.9);
        a->next_iteration(current, batch_of({90.0, 100.0, 95.0})); // nothing uphill: no T yet
        CHECK_FALSE(a->accept(100.0, 100.5, 0.0));
        CHECK(a->accept(100.0, 90.0, 0.999));
        // Mean uphill step 30: accepted with probability accept0 = 0.5.
        a->next_iteration(current, batch_of({120.0, 140.0, 80.0}));
        const double t0 = locus::gpu::derived_temperature(60.0, 2, std::log(0.5));
        CHECK(t0 == doctest::Approx(30.0 / std::log(2.0)));
        const double half = locus::gpu::exp_nonpositive(-30.0 / t0);
        CHECK(half == doctest::Approx(0.5));
        CHECK(a->accept(100.0, 130.0, std::nextafter(half, 0.0)));
        CHECK_FALSE(a->accept(100.0, 130.0, half));
        a->next_iteration(current, current); // cooled by 0.9
        const double cooled = locus::gpu::exp_nonpositive(-30.0 / (t0 * 0.9));
        CHECK(cooled == doctest::Approx(std::pow(0.5, 1.0 / 0.9)));
        CHECK(a->accept(100.0, 130.0, std::nextafter(cooled, 0.0)));
        CHECK_FALSE(a->accept(100.0, 130.0, cooled));
    }
}

TEST_CASE("ILS annealing: the schema refuses the former percent key and a degenerate accept0") {
    locus::Registry registry = make_registry();
    const std::string head = "problem: {name: toy, instance: a}\n";
    CHECK_THROWS_WITH_AS(
        locus::compose_config(head + "algorithm:\n"
                                     "  name: walk\n"
                                     "  acceptance: {name: annealing, initial_temperature: 0.05}\n",
                              "run.yaml", {}, registry),
        "run.yaml:4:33: algorithm.acceptance.initial_temperature: unknown key "
        "'initial_temperature' for acceptance 'annealing' (valid: accept0, cooling, temperature)",
        locus::ConfigError);
    locus::Params params("acceptance", "annealing", "acceptance", {});
    params.set("temperature", 0.0);
    params.set("accept0", 1.0);
    params.set("cooling", 0.9);
    locus::BuildContext build;
    build.registry = &registry;
    CHECK_THROWS_AS(registry.create<locus::Acceptance>(params, build), locus::ConfigError);
}
