#include "locus/tsp/combine.hpp"

#include <algorithm>
#include <vector>

namespace locus::tsp {

std::int64_t combine_tours(const Instance& instance, std::span<std::int32_t> into,
                           std::span<const std::int32_t> from, std::int32_t max_length) {
    const auto n = static_cast<std::int32_t>(into.size());
    if (n < 5) return 0;
    const auto at = [n](auto tour, std::int32_t q) {
        return tour[static_cast<std::size_t>(q >= n ? q - n : q)];
    };
    std::vector<std::int32_t> pos(static_cast<std::size_t>(n));
    for (std::int32_t q = 0; q < n; ++q)
        pos[static_cast<std::size_t>(from[static_cast<std::size_t>(q)])] = q;
    const auto d = [&](std::int32_t a, std::int32_t b) {
        return static_cast<std::int64_t>(instance.distance(a, b));
    };
    // Offset of city c from `from`'s position p0 walking in direction dir (1..n-1).
    const auto offset = [&](std::int32_t c, std::int32_t p0, std::int32_t dir) {
        const std::int32_t o = (pos[static_cast<std::size_t>(c)] - p0) * dir;
        return o < 0 ? o + n : o;
    };
    const std::int32_t limit = std::min(max_length, n - 3);
    std::int64_t change = 0;
    std::vector<std::int32_t> path;
    for (std::int32_t q = 0; q < n; ++q) {
        const std::int32_t x = at(into, q);
        const std::int32_t p0 = pos[static_cast<std::size_t>(x)];
        const std::int32_t next = at(into, q + 1);
        if (offset(next, p0, 1) == 1 || offset(next, p0, -1) == 1) continue; // a common edge
        // Grow into[q+1 .. q+k]; it matches from's path x -> k cities -> y in direction dir when
        // its cities' largest offset is k (so they are offsets 1..k) and y = into[q+k+1] is at
        // offset k+1.
        std::int32_t largest[2] = {0, 0};
        std::int32_t found = 0;
        std::int32_t dir_found = 1;
        for (std::int32_t k = 1; k <= limit && found == 0; ++k) {
            const std::int32_t c = at(into, q + k);
            const std::int32_t y = at(into, q + k + 1);
            for (int side = 0; side < 2 && found == 0; ++side) {
                const std::int32_t dir = side == 0 ? 1 : -1;
                largest[side] = std::max(largest[side], offset(c, p0, dir));
                if (largest[side] == k && offset(y, p0, dir) == k + 1) {
                    found = k;
                    dir_found = dir;
                }
            }
            if (std::min(largest[0], largest[1]) > limit) break;
        }
        if (found < 2) continue;
        std::int64_t old_cost = 0;
        std::int64_t new_cost = 0;
        path.resize(static_cast<std::size_t>(found));
        std::int32_t prev_old = x;
        std::int32_t prev_new = x;
        for (std::int32_t k = 1; k <= found; ++k) {
            const std::int32_t c_old = at(into, q + k);
            std::int32_t p = p0 + dir_found * k;
            p = p < 0 ? p + n : (p >= n ? p - n : p);
            const std::int32_t c_new = from[static_cast<std::size_t>(p)];
            path[static_cast<std::size_t>(k - 1)] = c_new;
            old_cost += d(prev_old, c_old);
            new_cost += d(prev_new, c_new);
            prev_old = c_old;
            prev_new = c_new;
        }
        const std::int32_t y = at(into, q + found + 1);
        old_cost += d(prev_old, y);
        new_cost += d(prev_new, y);
        if (new_cost < old_cost) {
            for (std::int32_t k = 1; k <= found; ++k) {
                std::int32_t p = q + k;
                p = p >= n ? p - n : p;
                into[static_cast<std::size_t>(p)] = path[static_cast<std::size_t>(k - 1)];
            }
            change += new_cost - old_cost;
        }
        q += found; // continue after the exchanged (or kept) sub-path
    }
    return change;
}

Objective SegmentExchange::combine(SolutionBatch& into, std::size_t i, const SolutionBatch& from,
                                   std::size_t j) {
    const std::int64_t change =
        combine_tours(problem_.instance(), into[i], from[j], max_length_);
    into.objective(i) += static_cast<Objective>(change);
    return static_cast<Objective>(change);
}

} // namespace locus::tsp
