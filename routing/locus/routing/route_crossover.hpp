#pragma once
/// \file
/// Route-based order crossover: the customers of a parent listed route by route in the order of
/// the routes' headings from the depot (as HGS-CVRP (Vidal 2022) sorts routes by polar angle before
/// crossover; otherwise order crossover mixes unrelated routes), and the order crossover (OX) of
/// two such sequences. Exact integer arithmetic, host-device code: serial, and over a team
/// (gpu/team.hpp) for the chains, so the CPU twin and kernels make the same children; Split
/// (split.hpp) turns a child into routes.

#include <cstdint>

#include "locus/gpu/team.hpp"
#include "locus/hd.hpp"
#include "locus/rng.hpp"

namespace locus::routing {

/// Whether heading (x1, y1) comes before (x2, y2) counter-clockwise from the positive x axis
/// (exact integer arithmetic; a zero vector is before none and none is before it).
LOCUS_HD_INLINE bool heading_before(std::int64_t x1, std::int64_t y1, std::int64_t x2,
                                    std::int64_t y2) {
    const bool lower1 = y1 < 0 || (y1 == 0 && x1 < 0);
    const bool lower2 = y2 < 0 || (y2 == 0 && x2 < 0);
    if (lower1 != lower2) return lower2;
    return x1 * y2 - y1 * x2 > 0;
}

/// Writes the customers of `row` (width words, depot markers 0) to `out`, route after route in
/// the order of the headings of the routes (the sum of their customers' `heading` vectors,
/// nodes x 2); `keys` (2 per route) and `order` (1 per route) are scratch. Ties keep row order
/// (insertion sort).
LOCUS_HD_INLINE void customers_by_heading(const std::int32_t* row, std::int32_t width,
                                          const std::int32_t* heading, std::int64_t* keys,
                                          std::int32_t* order, std::int32_t* out) {
    std::int32_t routes = 0;
    for (std::int32_t q = 0; q < width; ++q) {
        if (row[q] == 0 || (q > 0 && row[q - 1] != 0)) continue;
        std::int64_t x = 0;
        std::int64_t y = 0;
        for (std::int32_t t = q; t < width && row[t] != 0; ++t) {
            x += heading[2 * row[t]];
            y += heading[2 * row[t] + 1];
        }
        // NOTE: a row that does not start with a marker (chains keep theirs normalised) has
        // its wrapped route listed as two, no customer lost.
        std::int32_t r = routes++;
        keys[2 * r] = x;
        keys[2 * r + 1] = y;
        order[r] = q;
        for (; r > 0 && heading_before(x, y, keys[2 * (r - 1)], keys[2 * (r - 1) + 1]); --r) {
            const std::int64_t kx = keys[2 * r - 2];
            const std::int64_t ky = keys[2 * r - 1];
            keys[2 * r - 2] = keys[2 * r];
            keys[2 * r - 1] = keys[2 * r + 1];
            keys[2 * r] = kx;
            keys[2 * r + 1] = ky;
            const std::int32_t o = order[r - 1];
            order[r - 1] = order[r];
            order[r] = o;
        }
    }
    std::int32_t k = 0;
    for (std::int32_t r = 0; r < routes; ++r)
        for (std::int32_t t = order[r]; t < width && row[t] != 0; ++t)
            out[k++] = row[t];
}

/// Order crossover of the customer sequences `child` (the first parent's, overwritten) and
/// `other` (count customers 1..count each): a random slice [i, j] of the first parent stays in
/// place, the other positions are filled in `other`'s order from after the slice. `used` holds
/// count + 1 flags (scratch). Draws two numbers from `rng`.
LOCUS_HD_INLINE void order_crossover(std::int32_t* child, const std::int32_t* other,
                                     std::int32_t count, std::uint8_t* used, Rng& rng) {
    const auto i = static_cast<std::int32_t>(rng.next_u64() % static_cast<std::uint64_t>(count));
    const auto j = static_cast<std::int32_t>(rng.next_u64() % static_cast<std::uint64_t>(count));
    const std::int32_t lo = i < j ? i : j;
    const std::int32_t hi = i < j ? j : i;
    for (std::int32_t k = 0; k <= count; ++k)
        used[k] = 0;
    for (std::int32_t k = lo; k <= hi; ++k)
        used[child[k]] = 1;
    std::int32_t put = hi + 1 == count ? 0 : hi + 1;
    for (std::int32_t t = 0; t < count; ++t) {
        std::int32_t k = hi + 1 + t;
        k = k >= count ? k - count : k;
        const std::int32_t node = other[k];
        if (used[node] != 0) continue;
        used[node] = 1;
        child[put] = node;
        put = put + 1 == count ? 0 : put + 1;
    }
}

/// The order of routes by heading for the team's customers_by_heading, a strict total order:
/// heading_before with a zero vector taken as the positive x axis, ties by route index.
LOCUS_HD_INLINE bool route_heading_before(std::int64_t x1, std::int64_t y1, std::int32_t i1,
                                          std::int64_t x2, std::int64_t y2, std::int32_t i2) {
    if (x1 == 0 && y1 == 0) x1 = 1;
    if (x2 == 0 && y2 == 0) x2 = 1;
    if (heading_before(x1, y1, x2, y2)) return true;
    if (heading_before(x2, y2, x1, y1)) return false;
    return i1 < i2;
}

/// The team's customers_by_heading: the routes of `row` found by compaction, each route's
/// heading summed by one rank, and each route written at the sum of the lengths of the routes
/// before it (route_heading_before; the serial version's order but for routes whose headings
/// sum to zero). Scratch: `keys` 2 and `starts`, `lengths` 1 per route. Ends synchronised.
LOCUS_EXEC_CHECK_DISABLE
template <class Team>
LOCUS_HD void customers_by_heading(const Team& team, const std::int32_t* row, std::int32_t width,
                                   const std::int32_t* heading, std::int64_t* keys,
                                   std::int32_t* starts, std::int32_t* lengths, std::int32_t* out) {
    const auto rank = static_cast<std::int32_t>(team.rank());
    const auto size = static_cast<std::int32_t>(team.size());
    const auto routes = static_cast<std::int32_t>(gpu::compact(
        team, static_cast<std::uint32_t>(width), [](std::uint32_t q) { return q; },
        [&](std::uint32_t q) { return row[q] != 0 && (q == 0 || row[q - 1] == 0); },
        [&](std::uint32_t k, std::uint32_t q) { starts[k] = static_cast<std::int32_t>(q); }));
    for (std::int32_t r = rank; r < routes; r += size) {
        std::int64_t x = 0;
        std::int64_t y = 0;
        std::int32_t t = starts[r];
        for (; t < width && row[t] != 0; ++t) {
            x += heading[2 * row[t]];
            y += heading[2 * row[t] + 1];
        }
        keys[2 * r] = x;
        keys[2 * r + 1] = y;
        lengths[r] = t - starts[r];
    }
    team.sync();
    for (std::int32_t r = rank; r < routes; r += size) {
        const std::int64_t x = keys[2 * r];
        const std::int64_t y = keys[2 * r + 1];
        std::int32_t k = 0;
        for (std::int32_t o = 0; o < routes; ++o)
            if (route_heading_before(keys[2 * o], keys[2 * o + 1], o, x, y, r)) k += lengths[o];
        for (std::int32_t t = starts[r]; t < starts[r] + lengths[r]; ++t)
            out[k++] = row[t];
    }
    team.sync();
}

/// The team's order_crossover: the same child from the same stream (every rank draws the same
/// two numbers from its copy of it); the slice marked at once, the rest of `other` compacted
/// into place. Ends synchronised.
LOCUS_EXEC_CHECK_DISABLE
template <class Team>
LOCUS_HD void order_crossover(const Team& team, std::int32_t* child, const std::int32_t* other,
                              std::int32_t count, std::uint8_t* used, Rng& rng) {
    const auto rank = static_cast<std::int32_t>(team.rank());
    const auto size = static_cast<std::int32_t>(team.size());
    const auto i = static_cast<std::int32_t>(rng.next_u64() % static_cast<std::uint64_t>(count));
    const auto j = static_cast<std::int32_t>(rng.next_u64() % static_cast<std::uint64_t>(count));
    const std::int32_t lo = i < j ? i : j;
    const std::int32_t hi = i < j ? j : i;
    for (std::int32_t k = rank; k <= count; k += size)
        used[k] = 0;
    team.sync();
    for (std::int32_t k = lo + rank; k <= hi; k += size)
        used[child[k]] = 1;
    team.sync();
    // The t-th entry of `other` from after the slice, and the m-th free position of the child.
    const auto wrap = [count, hi](std::uint32_t t) {
        const std::int32_t k = hi + 1 + static_cast<std::int32_t>(t);
        return k >= count ? k - count : k;
    };
    gpu::compact(
        team, static_cast<std::uint32_t>(count), [&](std::uint32_t t) { return other[wrap(t)]; },
        [&](std::uint32_t t) { return used[other[wrap(t)]] == 0; },
        [&](std::uint32_t m, std::int32_t node) { child[wrap(m)] = node; });
}

} // namespace locus::routing
