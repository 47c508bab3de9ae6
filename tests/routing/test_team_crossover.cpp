// The team forms of the route crossover and the Split against the serial ones: teams of 1, 3
// and 8 CPU threads (a barrier per sync, collectives by value) make the same sequences, Split
// labels, predecessors, route counts and rows as one thread, so that a block on the device
// does too.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "locus/rng.hpp"
#include "locus/routing/route_crossover.hpp"
#include "locus/routing/split.hpp"
#include "thread_team.hpp"

namespace {

using locus::test::run_team;
using locus::test::ThreadTeam;

std::vector<std::int32_t> shuffled(std::int32_t count, locus::Rng& rng) {
    std::vector<std::int32_t> seq(static_cast<std::size_t>(count));
    for (std::int32_t k = 0; k < count; ++k)
        seq[static_cast<std::size_t>(k)] = k + 1;
    for (std::int32_t k = count - 1; k > 0; --k)
        std::swap(seq[static_cast<std::size_t>(k)],
                  seq[rng.below(static_cast<std::uint32_t>(k + 1))]);
    return seq;
}

/// A row of `routes` routes over the customers 1..count, markers 0 before each, padded with
/// markers to 2 count words.
std::vector<std::int32_t> random_row(std::int32_t count, std::int32_t routes, locus::Rng& rng) {
    const std::vector<std::int32_t> seq = shuffled(count, rng);
    std::vector<std::int32_t> row;
    std::vector<bool> cut(static_cast<std::size_t>(count), false);
    for (std::int32_t r = 1; r < routes; ++r)
        cut[1 + rng.below(static_cast<std::uint32_t>(count - 1))] = true;
    for (std::int32_t k = 0; k < count; ++k) {
        if (k == 0 || cut[static_cast<std::size_t>(k)]) row.push_back(0);
        row.push_back(seq[static_cast<std::size_t>(k)]);
    }
    row.resize(2 * static_cast<std::size_t>(count), 0);
    return row;
}

} // namespace

TEST_CASE("team route crossover: the same customers by heading and the same child as one "
          "thread, on teams of 1, 3 and 8 threads") {
    locus::Rng rng(41, 0);
    for (int round = 0; round < 60; ++round) {
        const auto count = static_cast<std::int32_t>(2 + rng.below(120));
        const auto routes = static_cast<std::int32_t>(
            1 + rng.below(static_cast<std::uint32_t>(std::min(count, 30))));
        const auto width = 2 * count;
        // Headings of the customers. A route whose headings sum to zero is the one place the
        // orders may differ (the team's takes it as the x axis); at these ranges none does.
        std::vector<std::int32_t> heading(2 * static_cast<std::size_t>(count + 1), 0);
        for (std::int32_t v = 1; v <= count; ++v) {
            heading[2 * static_cast<std::size_t>(v)] =
                static_cast<std::int32_t>(rng.below(201)) - 100;
            heading[2 * static_cast<std::size_t>(v) + 1] =
                static_cast<std::int32_t>(rng.below(201)) - 100;
        }
        const std::vector<std::int32_t> a = random_row(count, routes, rng);
        const std::vector<std::int32_t> b = random_row(count, routes, rng);
        std::vector<std::int64_t> keys(2 * static_cast<std::size_t>(count) + 2);
        std::vector<std::int32_t> order(static_cast<std::size_t>(count) + 1);
        std::vector<std::int32_t> serial_a(static_cast<std::size_t>(count));
        std::vector<std::int32_t> serial_b(serial_a.size());
        locus::routing::customers_by_heading(a.data(), width, heading.data(), keys.data(),
                                             order.data(), serial_a.data());
        locus::routing::customers_by_heading(b.data(), width, heading.data(), keys.data(),
                                             order.data(), serial_b.data());
        std::vector<std::int32_t> serial_child = serial_a;
        std::vector<std::uint8_t> used(static_cast<std::size_t>(count) + 1);
        locus::Rng draw(static_cast<std::uint64_t>(round), 3);
        locus::routing::order_crossover(serial_child.data(), serial_b.data(), count, used.data(),
                                        draw);
        for (const std::uint32_t threads : {1u, 3u, 8u}) {
            INFO("round " << round << ", " << threads << " threads, " << count << " customers");
            std::vector<std::int32_t> seq_a(serial_a.size(), -1);
            std::vector<std::int32_t> seq_b(serial_a.size(), -1);
            std::vector<std::int32_t> starts(static_cast<std::size_t>(count) + 1);
            std::vector<std::int32_t> lengths(starts.size());
            std::vector<std::uint8_t> flags(used.size());
            run_team(threads, [&](const ThreadTeam& team) {
                locus::routing::customers_by_heading(team, a.data(), width, heading.data(),
                                                     keys.data(), starts.data(), lengths.data(),
                                                     seq_a.data());
                locus::routing::customers_by_heading(team, b.data(), width, heading.data(),
                                                     keys.data(), starts.data(), lengths.data(),
                                                     seq_b.data());
            });
            CHECK(seq_a == serial_a);
            CHECK(seq_b == serial_b);
            std::vector<std::int32_t> child = seq_a;
            run_team(threads, [&](const ThreadTeam& team) {
                locus::Rng mine(static_cast<std::uint64_t>(round), 3); // every rank's copy
                locus::routing::order_crossover(team, child.data(), seq_b.data(), count,
                                                flags.data(), mine);
            });
            CHECK(child == serial_child);
        }
    }
}

TEST_CASE("team Split: the same labels, predecessors, routes and row as the serial Split, "
          "priced, within a fleet and unpriced, on teams of 1, 3 and 8 threads") {
    locus::Rng rng(42, 0);
    int within_differs = 0; // rounds where the fleet bound changed the division
    for (int round = 0; round < 60; ++round) {
        const auto count = static_cast<std::int32_t>(1 + rng.below(120));
        const std::int32_t nodes = count + 1;
        std::vector<std::int64_t> demand(static_cast<std::size_t>(nodes), 0);
        std::vector<std::int64_t> px(demand.size());
        std::vector<std::int64_t> py(demand.size());
        for (std::int32_t v = 0; v < nodes; ++v) {
            px[static_cast<std::size_t>(v)] = rng.below(1000);
            py[static_cast<std::size_t>(v)] = rng.below(1000);
            if (v > 0) demand[static_cast<std::size_t>(v)] = 1 + rng.below(20);
        }
        // Asymmetric distances, so the return legs are read as d(node, 0).
        const auto d = [&](std::int32_t u, std::int32_t v) {
            const auto su = static_cast<std::size_t>(u);
            const auto sv = static_cast<std::size_t>(v);
            return std::abs(px[su] - px[sv]) + std::abs(py[su] - py[sv]) + (u < v ? 7 : 0);
        };
        const std::int64_t capacity = 20 + rng.below(40);
        const std::int64_t service = rng.below(3) * 10;
        const std::int64_t duration =
            rng.below(2) == 0 ? std::int64_t{1} << 40 : 3000 + rng.below(6000);
        const locus::routing::SplitLimits limits{demand.data(), capacity, service, duration, {}, 0};
        const std::vector<std::int32_t> seq = shuffled(count, rng);
        const std::int64_t price = rng.below(2) * rng.below(500);
        const std::int64_t weight = rng.below(2) * (1 + rng.below(50));
        std::vector<std::int64_t> label(static_cast<std::size_t>(nodes));
        std::vector<std::int32_t> from(label.size());
        const std::int32_t serial = locus::routing::split_routes_priced(
            seq.data(), count, d, limits, price, weight, label.data(), from.data());
        const std::vector<std::int64_t> serial_label = label;
        const std::vector<std::int32_t> serial_from = from;
        std::int32_t serial_within = -1;
        std::vector<std::int32_t> within_from;
        std::int32_t fleet = 0;
        if (serial > 1) {
            fleet = serial - 1;
            serial_within = locus::routing::split_routes_within(
                seq.data(), count, d, limits, fleet, 1 + weight, label.data(), from.data());
            within_from = from;
            if (serial_within > 0) ++within_differs;
        }
        std::vector<std::int32_t> serial_row;
        if (serial > 0) {
            serial_row.assign(2 * static_cast<std::size_t>(count), -1);
            locus::routing::write_split(seq.data(), count, serial_from.data(), serial,
                                        serial_row.data(), 2 * count);
        }
        for (const std::uint32_t threads : {1u, 3u, 8u}) {
            INFO("round " << round << ", " << threads << " threads, " << count << " customers");
            std::vector<std::int64_t> sums(3 * static_cast<std::size_t>(nodes), -1);
            const locus::routing::SplitSums view{sums.data(), sums.data() + nodes,
                                                 sums.data() + 2 * nodes};
            std::vector<std::int64_t> team_label(label.size(), -1);
            std::vector<std::int32_t> team_from(label.size(), 0); // as the serial run's
            std::vector<std::int32_t> bounds(label.size());
            std::vector<std::int32_t> row(2 * static_cast<std::size_t>(count), -1);
            std::vector<std::int32_t> answers(threads, -2);
            std::vector<std::int32_t> within_answers(threads, -2);
            std::vector<std::int64_t> priced_label;
            std::vector<std::int32_t> priced_from;
            run_team(threads, [&](const ThreadTeam& team) {
                locus::routing::split_sums(team, seq.data(), count, d, demand.data(), view);
                const std::int32_t routes = locus::routing::split_routes_priced(
                    team, seq.data(), count, d, limits, view, price, weight, team_label.data(),
                    team_from.data());
                answers[team.rank()] = routes;
                if (routes > 0)
                    locus::routing::write_split(team, seq.data(), count, team_from.data(), routes,
                                                row.data(), 2 * count, bounds.data());
                if (team.rank() == 0) {
                    priced_label = team_label;
                    priced_from = team_from;
                }
                team.sync();
                if (fleet > 0)
                    within_answers[team.rank()] = locus::routing::split_routes_within(
                        team, seq.data(), count, d, limits, view, fleet, 1 + weight,
                        team_label.data(), team_from.data());
            });
            CHECK(std::all_of(answers.begin(), answers.end(),
                              [&](std::int32_t r) { return r == serial; }));
            if (serial > 0) {
                CHECK(priced_label == serial_label);
                CHECK(priced_from == serial_from);
                CHECK(row == serial_row);
            }
            if (fleet > 0) {
                CHECK(std::all_of(within_answers.begin(), within_answers.end(),
                                  [&](std::int32_t r) { return r == serial_within; }));
                if (serial_within > 0) CHECK(team_from == within_from);
            }
        }
    }
    CHECK(within_differs > 10); // the fleet-bound Split ran with a division to compare
}
