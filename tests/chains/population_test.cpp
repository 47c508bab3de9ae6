// The population of the many-chain search's population exchange: admission (cheapest first,
// clones dropped, at most `generation`), survivors by biased fitness (never the cheapest),
// biased fitness against a hand computation, tournaments; the copy_best exchange on islands;
// the population exchange's parents, and its new population after a restart.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <span>
#include <random>
#include <vector>

#include "exchanges.hpp"
#include "islands.hpp"
#include "locus/error.hpp"
#include "locus/gpu/chain_engine.hpp"
#include "population.hpp"

using namespace locus;
using namespace locus::chains;
using locus::gpu::descends_at_start;

namespace {

/// One-word solutions on a line: distance |a - b| / 100.
double line(std::span<const std::int32_t> a, std::span<const std::int32_t> b) {
    return std::abs(a[0] - b[0]) / 100.0;
}

/// Chains of one-word solutions: best_solutions hands out `rows`; restart_from records the
/// parents the population exchange drew.
class RecordingRunner final : public locus::gpu::ChainRunner {
public:
    std::vector<std::int32_t> rows;
    std::vector<std::int32_t> first, second;
    void start(std::span<const std::int32_t>, std::span<const std::int64_t>,
               const std::function<bool()>&, std::uint32_t) override {}
    void epoch(std::uint64_t, std::uint32_t, const std::function<bool()>&) override {}
    std::vector<std::int64_t> best_objectives() override { return {}; }
    void best_solution(std::uint32_t c, std::span<std::int32_t> out) override { out[0] = rows[c]; }
    void continue_from(std::span<const std::uint32_t>) override {}
    void recombine(std::span<const std::uint32_t>, std::span<const std::uint32_t>,
                   std::uint64_t) override {}
    void merge(std::span<const std::uint32_t>, std::span<const std::uint32_t>,
               std::uint64_t) override {}
    void best_solutions(std::span<std::int32_t> out) override {
        std::ranges::copy(rows, out.begin());
    }
    void restart_from(std::span<const std::int32_t> a, std::span<const std::int32_t> b,
                      std::uint64_t) override {
        first.assign(a.begin(), a.end());
        second.assign(b.begin(), b.end());
    }
    void reset(std::span<const std::int32_t>, std::int64_t) override {}
    void restrict_chains(std::span<const std::int32_t>, std::span<const std::uint32_t>) override {}
    std::uint64_t evaluations() override { return 0; }
    locus::gpu::ChainCheck check() override { return {}; }
    std::size_t bytes() const override { return 0; }
};

} // namespace

TEST_CASE("population exchange: parents come from the population; after a restart of the chains "
          "only from their new children") {
    ExchangeOptions o;
    o.exchange = Exchange::population;
    o.population.size = 6;
    o.population.generation = 8;
    Exchanges exchanges(o, 5, 1, line);
    RecordingRunner runner;
    // Epoch 0: eight chains' children at 100..107 (cheap) -> the population holds six of them.
    runner.rows = {100, 101, 102, 103, 104, 105, 106, 107};
    const std::vector<std::int64_t> cheap = {1, 2, 3, 4, 5, 6, 7, 8};
    exchanges.before_epoch(runner, cheap, 0);
    REQUIRE(runner.first.size() == 8);
    for (std::size_t c = 0; c < 8; ++c) {
        CHECK(runner.first[c] >= 100);
        CHECK(runner.first[c] <= 107);
        CHECK(runner.first[c] != runner.second[c]);
    }
    // Epoch 1 without a restart: costlier children at 500..507 join the old members, which
    // win by cost -> most parents are still old ones.
    runner.rows = {500, 501, 502, 503, 504, 505, 506, 507};
    const std::vector<std::int64_t> costly = {50, 51, 52, 53, 54, 55, 56, 57};
    exchanges.before_epoch(runner, costly, 1);
    const auto old = std::ranges::count_if(runner.first, [](std::int32_t v) { return v < 500; }) +
                     std::ranges::count_if(runner.second, [](std::int32_t v) { return v < 500; });
    CHECK(old > 0);
    // A restart: the chains started again from new solutions, the next population is made of
    // their children only, however costly.
    exchanges.started();
    runner.rows = {900, 901, 902, 903, 904, 905, 906, 907};
    exchanges.before_epoch(runner, costly, 2);
    for (std::size_t c = 0; c < 8; ++c) {
        CHECK(runner.first[c] >= 900);
        CHECK(runner.second[c] >= 900);
    }
}

TEST_CASE("population: admission takes the cheapest distinct children, at most generation") {
    PopulationOptions o;
    o.size = 10;
    o.generation = 3;
    Population pop(o, line);
    // Rows 5 and 5 (same cost) are clones; 7 and 7 with different costs are not.
    const std::vector<std::int32_t> rows = {5, 5, 7, 7, 40, 90};
    const std::vector<std::int64_t> costs = {10, 10, 12, 11, 9, 50};
    CHECK(pop.update(rows, 1, costs) == 3);
    REQUIRE(pop.count() == 3);
    std::vector<std::int64_t> kept;
    for (std::size_t i = 0; i < pop.count(); ++i)
        kept.push_back(pop.cost(i));
    std::ranges::sort(kept);
    CHECK(kept == std::vector<std::int64_t>{9, 10, 11}); // the clone of cost 10 came second
    // A clone of a member is refused in a later update as well.
    CHECK(pop.update(std::vector<std::int32_t>{40}, 1, std::vector<std::int64_t>{9}) == 0);
    CHECK(pop.distance(0, 0) == 0.0);
}

TEST_CASE("population: a distance with a form computes each child's form once and ranks as the "
          "same distance on rows does") {
    // The form doubles the word; between halves the difference again: the distances of `line`.
    std::size_t forms = 0;
    const SolutionDistance formed(
        [](std::span<const std::int32_t> a, std::span<const std::int32_t> b) {
            return std::abs(a[0] - b[0]) / 200.0;
        },
        [&forms](std::span<const std::int32_t> row) {
            ++forms;
            return std::vector<std::int32_t>{2 * row[0]};
        });
    CHECK(formed.between(formed.form_of(std::vector<std::int32_t>{3}),
                         formed.form_of(std::vector<std::int32_t>{10})) ==
          line(std::vector<std::int32_t>{3}, std::vector<std::int32_t>{10}));
    forms = 0;
    PopulationOptions o;
    o.size = 5;
    o.generation = 8;
    Population by_form(o, formed);
    Population by_row(o, line);
    std::mt19937 rng(3);
    std::size_t offered = 0;
    for (int round = 0; round < 6; ++round) {
        std::vector<std::int32_t> rows(8);
        std::vector<std::int64_t> costs(8);
        for (std::size_t c = 0; c < 8; ++c) {
            rows[c] = static_cast<std::int32_t>(rng() % 60);
            costs[c] = static_cast<std::int64_t>(rng() % 20);
        }
        offered += rows.size();
        CHECK(by_form.update(rows, 1, costs) == by_row.update(rows, 1, costs));
        REQUIRE(by_form.count() == by_row.count());
        for (std::size_t i = 0; i < by_form.count(); ++i) {
            CHECK(by_form.row(i)[0] == by_row.row(i)[0]);
            CHECK(by_form.fitness(i) == by_row.fitness(i));
            for (std::size_t j = 0; j < by_form.count(); ++j)
                CHECK(by_form.distance(i, j) == by_row.distance(i, j));
        }
    }
    // One form per child considered (every child here: generation = the chains), not one per
    // pair of a child and a member (about 5-12 members each).
    CHECK(forms == offered);
}

TEST_CASE("population: wide children measured on 1 and 4 threads give the same members, "
          "distances and fitness as one child at a time") {
    // Rows of 3,000 words (the work is parallel from 2^16 words compared); the distance is the
    // share of differing words. Among the children: clones of members, a clone of a cheaper
    // child of the same update, and more children than `generation`, so that dropped clones
    // let later ones in.
    const std::size_t width = 3000;
    const SolutionDistance share([](std::span<const std::int32_t> a,
                                    std::span<const std::int32_t> b) {
        std::size_t differ = 0;
        for (std::size_t i = 0; i < a.size(); ++i)
            differ += a[i] != b[i] ? 1 : 0;
        return static_cast<double>(differ) / static_cast<double>(a.size());
    });
    PopulationOptions o;
    o.size = 7;
    o.generation = 6;
    o.close = 3;
    std::vector<Population> pops;
    for (const int threads : {1, 4}) {
        o.threads = threads;
        pops.emplace_back(o, share);
    }
    std::mt19937 rng(11);
    std::vector<std::int32_t> previous;
    std::vector<std::int64_t> previous_costs;
    for (int round = 0; round < 8; ++round) {
        const std::size_t chains = 10;
        std::vector<std::int32_t> rows(width * chains);
        std::vector<std::int64_t> costs(chains);
        for (std::size_t c = 0; c < chains; ++c) {
            for (std::size_t i = 0; i < width; ++i)
                rows[c * width + i] = static_cast<std::int32_t>(rng() % 3);
            costs[c] = static_cast<std::int64_t>(rng() % 6);
        }
        // Child 1 repeats child 0 (same cost): a clone within the update; child 2 repeats a
        // child of the last update with its cost: likely a clone of a member.
        std::copy_n(rows.begin(), width, rows.begin() + width);
        costs[1] = costs[0];
        if (!previous.empty()) {
            std::copy_n(previous.begin(), width, rows.begin() + 2 * width);
            costs[2] = previous_costs[0];
        }
        // The children admitted one at a time, cheapest first (stable), against the members
        // before the update and the children admitted before them.
        std::vector<std::vector<std::int32_t>> kept;
        std::vector<std::int64_t> kept_costs;
        for (std::size_t i = 0; i < pops[0].count(); ++i) {
            kept.emplace_back(pops[0].row(i).begin(), pops[0].row(i).end());
            kept_costs.push_back(pops[0].cost(i));
        }
        std::vector<std::size_t> order(chains);
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::ranges::stable_sort(order, {}, [&](std::size_t c) { return costs[c]; });
        std::size_t expected = 0;
        for (const std::size_t c : order) {
            if (expected == o.generation) break;
            const std::span<const std::int32_t> row(rows.data() + c * width, width);
            bool clone = false;
            for (std::size_t m = 0; m < kept.size() && !clone; ++m)
                clone = kept_costs[m] == costs[c] && std::ranges::equal(kept[m], row);
            if (clone) continue;
            kept.emplace_back(row.begin(), row.end());
            kept_costs.push_back(costs[c]);
            ++expected;
        }
        std::vector<std::size_t> admitted;
        for (auto& pop : pops)
            admitted.push_back(pop.update(rows, width, costs));
        CHECK(admitted[0] == expected);
        CHECK(admitted[1] == expected);
        const Population& one = pops[0];
        const Population& four = pops[1];
        REQUIRE(one.count() == four.count());
        for (std::size_t i = 0; i < one.count(); ++i) {
            CHECK(std::ranges::equal(one.row(i), four.row(i)));
            CHECK(one.cost(i) == four.cost(i));
            CHECK(one.fitness(i) == four.fitness(i));
            for (std::size_t j = 0; j < one.count(); ++j) {
                CHECK(one.distance(i, j) == four.distance(i, j));
                CHECK(one.distance(i, j) == share.between(one.row(i), one.row(j)));
                // No two members are clones.
                if (i != j)
                    CHECK_FALSE((one.distance(i, j) == 0.0 && one.cost(i) == one.cost(j)));
            }
        }
        previous.assign(rows.begin(), rows.begin() + width);
        previous_costs.assign(costs.begin(), costs.begin() + 1);
    }
}

TEST_CASE("population: biased fitness by cost rank and diversity rank, worst removed") {
    PopulationOptions o;
    o.size = 3;
    o.generation = 10;
    o.elite = 1;
    o.close = 1;
    Population pop(o, line);
    // Members on a line at 0, 1, 2 and 50 with costs 1, 2, 3, 4. Nearest distances: 0.01,
    // 0.01, 0.01, 0.48 -> 50 is the most diverse. With N = 4 and elite 1 the weight is 3/4.
    // The admitted four are ranked, then the worst biased fitness is removed (never cost 1).
    const std::vector<std::int32_t> rows = {0, 1, 2, 50};
    const std::vector<std::int64_t> costs = {1, 2, 3, 4};
    CHECK(pop.update(rows, 1, costs) == 4);
    REQUIRE(pop.count() == 3);
    // Fitness with 4: cost ranks 0,1,2,3 /3; diversity ranks (ties by index) 50 -> 0, then
    // 0 -> 1, 1 -> 2, 2 -> 3 (all 0.01): f(0) = 0 + .75/3, f(1) = 1/3 + .75*2/3,
    // f(2) = 2/3 + .75, f(50) = 1 + 0. Worst: member at 2 (1.4167) is removed.
    std::vector<std::int32_t> left;
    for (std::size_t i = 0; i < pop.count(); ++i)
        left.push_back(pop.row(i)[0]);
    CHECK(left == std::vector<std::int32_t>{0, 1, 50});
    // Ranked again with three: cost ranks 0, .5, 1; nearest 0.01, 0.01, 0.49 -> diversity
    // ranks 50 -> 0, 0 -> .5, 1 -> 1; weight 2/3.
    CHECK(pop.fitness(0) == doctest::Approx(0.0 + 2.0 / 3.0 * 0.5));
    CHECK(pop.fitness(1) == doctest::Approx(0.5 + 2.0 / 3.0 * 1.0));
    CHECK(pop.fitness(2) == doctest::Approx(1.0 + 0.0));
    CHECK(pop.diversity() == doctest::Approx((0.01 + 0.50 + 0.49) / 3.0));
}

TEST_CASE("population: the fitness kept through removals equals the formula on the survivors") {
    // Many ties in costs and distances; every update removes many members, each removal
    // updating only the contributions it touches. The fitness of the survivors must be the
    // biased fitness computed from scratch on them (stable ranks, ties to the lower index).
    for (const std::size_t close : {1u, 3u, 5u}) {
        PopulationOptions o;
        o.size = 6;
        o.generation = 20;
        o.elite = 2;
        o.close = close;
        Population pop(o, line);
        std::mt19937 rng(static_cast<unsigned>(close));
        for (int round = 0; round < 30; ++round) {
            std::vector<std::int32_t> rows(20);
            std::vector<std::int64_t> costs(20);
            for (std::size_t c = 0; c < rows.size(); ++c) {
                rows[c] = static_cast<std::int32_t>(rng() % 40);
                costs[c] = static_cast<std::int64_t>(rng() % 8);
            }
            pop.update(rows, 1, costs);
            const std::size_t n = pop.count();
            REQUIRE(n >= 2);
            const std::size_t k = std::min(close, n - 1);
            std::vector<double> contribution(n);
            for (std::size_t i = 0; i < n; ++i) {
                std::vector<double> d;
                for (std::size_t j = 0; j < n; ++j)
                    if (j != i) d.push_back(pop.distance(i, j));
                std::ranges::sort(d);
                double sum = 0.0;
                for (std::size_t q = 0; q < k; ++q)
                    sum += d[q];
                contribution[i] = sum / static_cast<double>(k);
            }
            const double weight = 1.0 - 2.0 / static_cast<double>(n);
            for (std::size_t i = 0; i < n; ++i) {
                // Rank of i by cost (ascending) and by contribution (descending), ties by index.
                std::size_t by_cost = 0, by_diversity = 0;
                for (std::size_t j = 0; j < n; ++j) {
                    if (pop.cost(j) < pop.cost(i) || (pop.cost(j) == pop.cost(i) && j < i))
                        ++by_cost;
                    if (contribution[j] > contribution[i] ||
                        (contribution[j] == contribution[i] && j < i))
                        ++by_diversity;
                }
                const double expected = (static_cast<double>(by_cost) +
                                         weight * static_cast<double>(by_diversity)) /
                                        static_cast<double>(n - 1);
                INFO("close " << close << ", round " << round << ", member " << i);
                CHECK(pop.fitness(i) == doctest::Approx(expected).epsilon(1e-12));
            }
        }
    }
}

TEST_CASE("population: the cheapest member survives, tournaments prefer fitter members") {
    PopulationOptions o;
    o.size = 4;
    o.generation = 100;
    o.elite = 1;
    Population pop(o, line);
    // The cheapest sits among clones of itself by position (distance 0, other costs): least
    // diverse, yet kept.
    std::vector<std::int32_t> rows;
    std::vector<std::int64_t> costs;
    for (std::int32_t k = 0; k < 12; ++k) {
        rows.push_back(k < 6 ? 10 : 10 + 7 * k);
        costs.push_back(k == 3 ? 1 : 100 + k);
    }
    pop.update(rows, 1, costs);
    REQUIRE(pop.count() == 4);
    bool cheapest = false;
    for (std::size_t i = 0; i < pop.count(); ++i)
        cheapest = cheapest || pop.cost(i) == 1;
    CHECK(cheapest);
    // Tournaments: the fittest member wins more often than the least fit.
    std::size_t fittest = 0, least = 0;
    for (std::size_t i = 1; i < pop.count(); ++i) {
        if (pop.fitness(i) < pop.fitness(fittest)) fittest = i;
        if (pop.fitness(i) > pop.fitness(least)) least = i;
    }
    std::vector<int> wins(pop.count(), 0);
    Rng rng(42, 0);
    for (int t = 0; t < 4000; ++t)
        ++wins[pop.tournament(rng)];
    CHECK(wins[fittest] > wins[least] + 500);
    for (int t = 0; t < 200; ++t) {
        const auto [a, b] = pop.parents(rng);
        CHECK(a != b);
    }
}

TEST_CASE("population: options out of range are refused") {
    PopulationOptions o;
    o.size = 0;
    CHECK_THROWS_AS(Population(o, line), ConfigError);
    CHECK_THROWS_AS(Population(PopulationOptions{}, SolutionDistance{}), ConfigError);
}

TEST_CASE("cross_islands: the best leader takes in every other leader once, in island order") {
    std::mt19937 rng(11);
    for (const std::uint32_t islands : {1u, 2u, 3u, 6u}) {
        for (int trial = 0; trial < 20; ++trial) {
            std::vector<std::int64_t> values(12);
            for (auto& v : values)
                v = static_cast<std::int64_t>(rng() % 4); // many ties
            std::vector<std::uint32_t> leaders(islands);
            for (auto& l : leaders)
                l = static_cast<std::uint32_t>(rng() % values.size());
            const auto folds = island_folds(leaders, values);
            INFO(islands << " islands, trial " << trial);
            REQUIRE(folds.size() == islands - 1);
            // Brute force: the first island whose leader no other leader beats.
            std::uint32_t best = 0;
            for (std::uint32_t i = 0; i < islands; ++i)
                if (std::none_of(leaders.begin(), leaders.end(),
                                 [&](std::uint32_t l) { return values[l] < values[leaders[i]]; })) {
                    best = i;
                    break;
                }
            std::uint32_t next = 0;
            for (const auto& [target, other] : folds) {
                CHECK(target == leaders[best]);
                if (next == best) ++next;
                CHECK(other == leaders[next++]);
            }
        }
    }
    CHECK(island_folds({}, std::vector<std::int64_t>{}).empty());
}

TEST_CASE("islands: every chain continues from its island's leader, against a brute force") {
    std::mt19937 rng(7);
    for (const std::uint32_t chains : {1u, 5u, 16u, 33u}) {
        for (const std::uint32_t islands : {1u, 2u, 3u, 5u}) {
            if (islands > chains) continue;
            std::vector<std::int64_t> values(chains);
            for (auto& v : values)
                v = static_cast<std::int64_t>(rng() % 6); // many ties
            const auto sources = island_leaders(values, islands);
            REQUIRE(sources.size() == chains);
            for (std::uint32_t c = 0; c < chains; ++c) {
                INFO(chains << " chains, " << islands << " islands, chain " << c);
                // Island of c: the i with i N / I <= c < (i + 1) N / I.
                std::uint32_t island = 0;
                while (static_cast<std::uint64_t>(island + 1) * chains / islands <= c)
                    ++island;
                const auto begin =
                    static_cast<std::uint32_t>(std::uint64_t{island} * chains / islands);
                const auto end =
                    static_cast<std::uint32_t>(std::uint64_t{island + 1} * chains / islands);
                std::uint32_t leader = begin;
                for (std::uint32_t d = begin; d < end; ++d)
                    if (values[d] < values[leader]) leader = d;
                CHECK(sources[c] == leader);
                // Only the first chain of each island descends from its start.
                CHECK(descends_at_start(c, islands, chains) == (c == begin));
                CHECK(descends_at_start(c, 0, chains));
                CHECK_FALSE(descends_at_start(c, chains + 1, chains));
            }
        }
    }
    // One island is the plain copy_best: everyone follows the first chain of least objective.
    const std::vector<std::int64_t> values{5, 3, 4, 3, 9};
    CHECK(island_leaders(values, 1) == std::vector<std::uint32_t>(5, 1));
    CHECK(island_leaders(values, 5) == std::vector<std::uint32_t>{0, 1, 2, 3, 4});
}
