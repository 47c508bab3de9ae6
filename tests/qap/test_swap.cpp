// Swap neighborhood: every swap delta against full re-evaluation, and the delta table after
// random swaps against recomputation, on symmetric and asymmetric random instances.
#include <doctest/doctest.h>

#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "locus/qap/generator.hpp"
#include "locus/qap/instance.hpp"
#include "locus/qap/swap.hpp"
#include "locus/rng.hpp"

using locus::Rng;
using locus::qap::DeltaTable;
using locus::qap::generate_random;
using locus::qap::init_delta_table;
using locus::qap::Instance;
using locus::qap::objective;
using locus::qap::swap_delta;
using locus::qap::update_delta_table;

namespace {

std::vector<std::int32_t> random_permutation(std::int32_t n, Rng& rng) {
    std::vector<std::int32_t> p(static_cast<std::size_t>(n));
    std::iota(p.begin(), p.end(), 0);
    for (std::size_t i = p.size() - 1; i > 0; --i)
        std::swap(p[i], p[rng.below(static_cast<std::uint32_t>(i + 1))]);
    return p;
}

} // namespace

TEST_CASE("every swap delta equals the change of the full objective") {
    for (const bool asymmetric : {false, true}) {
        for (const std::int32_t n : {2, 3, 7, 16}) {
            CAPTURE(asymmetric);
            CAPTURE(n);
            const Instance instance = generate_random(n, 11, 1000, asymmetric);
            Rng rng(5, static_cast<std::uint64_t>(n));
            for (int trial = 0; trial < 4; ++trial) {
                std::vector<std::int32_t> p = random_permutation(n, rng);
                const std::int64_t before = objective(instance, p);
                for (std::int32_t r = 0; r < n; ++r) {
                    for (std::int32_t s = r + 1; s < n; ++s) {
                        const std::int64_t delta = swap_delta(instance, p, r, s);
                        std::swap(p[static_cast<std::size_t>(r)], p[static_cast<std::size_t>(s)]);
                        const std::int64_t after = objective(instance, p);
                        std::swap(p[static_cast<std::size_t>(r)], p[static_cast<std::size_t>(s)]);
                        REQUIRE(after - before == delta);
                        // The order of r and s does not matter.
                        REQUIRE(swap_delta(instance, p, s, r) == delta);
                    }
                }
            }
        }
    }
}

TEST_CASE("the delta table follows random swaps exactly") {
    for (const bool asymmetric : {false, true}) {
        for (const std::int32_t n : {4, 9, 20}) {
            CAPTURE(asymmetric);
            CAPTURE(n);
            const Instance instance = generate_random(n, 3, 500, asymmetric);
            Rng rng(9, static_cast<std::uint64_t>(n));
            std::vector<std::int32_t> p = random_permutation(n, rng);
            DeltaTable table;
            init_delta_table(instance, p, table);
            REQUIRE(table.d.size() == static_cast<std::size_t>(n * n));
            for (int step = 0; step < 30; ++step) {
                const auto u = static_cast<std::int32_t>(rng.below(static_cast<std::uint32_t>(n)));
                auto v = static_cast<std::int32_t>(rng.below(static_cast<std::uint32_t>(n - 1)));
                if (v >= u) ++v;
                const std::int64_t expected = objective(instance, p) + table.at(u, v);
                std::swap(p[static_cast<std::size_t>(u)], p[static_cast<std::size_t>(v)]);
                REQUIRE(objective(instance, p) == expected);
                update_delta_table(instance, p, u, v, table);
                DeltaTable fresh;
                init_delta_table(instance, p, fresh);
                REQUIRE(table.d == fresh.d);
            }
        }
    }
}

TEST_CASE("swap independence: every pair the rule calls independent adds up when applied "
          "together, every pair it calls dependent does not (exact), on dense and sparse "
          "instances") {
    using locus::qap::QapSwap;
    using locus::qap::swaps_conflict;
    std::uint64_t independent = 0;
    std::uint64_t dependent_disjoint = 0;
    for (const bool asymmetric : {false, true}) {
        for (const bool sparse : {false, true}) {
            Instance instance = generate_random(9, 21, 20, asymmetric);
            if (sparse) // most flows zero: many swaps do not interact
                for (std::size_t k = 0; k < instance.a.size(); ++k)
                    if (k % 5 != 0) instance.a[k] = 0;
            Rng rng(3, asymmetric ? 1 : 0);
            const std::vector<std::int32_t> p = random_permutation(instance.n, rng);
            const std::int64_t base = objective(instance, p);
            std::vector<QapSwap> moves;
            for (std::int32_t r = 0; r < instance.n; ++r)
                for (std::int32_t s = r + 1; s < instance.n; ++s)
                    moves.push_back({r, s, p[static_cast<std::size_t>(r)],
                                     p[static_cast<std::size_t>(s)]});
            for (const QapSwap& x : moves)
                for (const QapSwap& y : moves) {
                    const bool conflict =
                        swaps_conflict(instance.a.data(), instance.b.data(), instance.n, x, y);
                    CHECK(conflict == swaps_conflict(instance.a.data(), instance.b.data(),
                                                     instance.n, y, x));
                    const bool disjoint = x.r != y.r && x.r != y.s && x.s != y.r && x.s != y.s;
                    if (!disjoint) {
                        CHECK(conflict);
                        continue;
                    }
                    std::vector<std::int32_t> both = p;
                    std::swap(both[static_cast<std::size_t>(x.r)],
                              both[static_cast<std::size_t>(x.s)]);
                    std::swap(both[static_cast<std::size_t>(y.r)],
                              both[static_cast<std::size_t>(y.s)]);
                    const bool adds_up = objective(instance, both) - base ==
                                         swap_delta(instance, p, x.r, x.s) +
                                             swap_delta(instance, p, y.r, y.s);
                    CHECK(adds_up == !conflict);
                    independent += conflict ? 0 : 1;
                    dependent_disjoint += conflict ? 1 : 0;
                }
        }
    }
    CHECK(independent > 500);
    CHECK(dependent_disjoint > 500);
}
