#pragma once
/// \file
/// Combine of two TSP tours (Riise & Burke 2014, sec. 2.3): where tour `into` visits a
/// set of cities between two cities x and y, and tour `from` visits exactly the same set on
/// its path from x to y (either direction), the two sub-paths are interchangeable; `into`
/// takes `from`'s when it is shorter. Symmetric distances.

#include <cstdint>
#include <span>

#include "locus/hd.hpp"
#include "locus/problem.hpp"
#include "locus/tsp/tsp_problem.hpp"

namespace locus::tsp {

/// combine_tours on raw arrays (host or one device thread): `into` takes from `from` every
/// shorter interchangeable sub-path of at most `max_length` cities; `pos` (n ints) is scratch
/// for `from`'s positions; `d(a, b)` is the distance between cities. Returns the change of the
/// length of `into` (<= 0).
template <class Distance>
LOCUS_HD std::int64_t combine_into(std::int32_t* into, const std::int32_t* from, std::int32_t* pos,
                                   std::int32_t n, std::int32_t max_length, const Distance& d) {
    if (n < 5) return 0;
    for (std::int32_t q = 0; q < n; ++q)
        pos[from[q]] = q;
    const auto at = [n](const std::int32_t* tour, std::int32_t q) {
        return tour[q >= n ? q - n : q];
    };
    // Offset of city c from `from`'s position p0 walking in direction dir (1..n-1).
    const auto offset = [&](std::int32_t c, std::int32_t p0, std::int32_t dir) {
        const std::int32_t o = (pos[c] - p0) * dir;
        return o < 0 ? o + n : o;
    };
    const std::int32_t limit = max_length < n - 3 ? max_length : n - 3;
    std::int64_t change = 0;
    for (std::int32_t q = 0; q < n; ++q) {
        const std::int32_t x = at(into, q);
        const std::int32_t p0 = pos[x];
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
                const std::int32_t o = offset(c, p0, dir);
                largest[side] = largest[side] > o ? largest[side] : o;
                if (largest[side] == k && offset(y, p0, dir) == k + 1) {
                    found = k;
                    dir_found = dir;
                }
            }
            if ((largest[0] < largest[1] ? largest[0] : largest[1]) > limit) break;
        }
        if (found < 2) continue;
        const auto from_at = [&](std::int32_t k) {
            std::int32_t p = p0 + dir_found * k;
            p = p < 0 ? p + n : (p >= n ? p - n : p);
            return from[p];
        };
        std::int64_t old_cost = 0;
        std::int64_t new_cost = 0;
        std::int32_t prev_old = x;
        std::int32_t prev_new = x;
        for (std::int32_t k = 1; k <= found; ++k) {
            const std::int32_t c_old = at(into, q + k);
            const std::int32_t c_new = from_at(k);
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
                const std::int32_t p = q + k;
                into[p >= n ? p - n : p] = from_at(k);
            }
            change += new_cost - old_cost;
        }
        q += found; // continue after the exchanged (or kept) sub-path
    }
    return change;
}

/// Replaces every sub-path of `into` (at most `max_length` cities) by the interchangeable
/// sub-path of `from` when that is shorter, scanning `into` once from position 0. Returns the
/// change of the tour length (<= 0). `from` must be a tour of the same cities.
std::int64_t combine_tours(const Instance& instance, std::span<std::int32_t> into,
                           std::span<const std::int32_t> from, std::int32_t max_length);

/// Share of the edges of tour a that tour b does not have (undirected; 0: the same tour, 1: no
/// common edge): the distance the population exchange of the chains algorithm ranks diversity by.
/// O(n); both must be tours of the same n >= 3 cities.
double tour_distance(std::span<const std::int32_t> a, std::span<const std::int32_t> b);

/// The combination "segment_exchange" (combine_tours on every pair of a batch).
class SegmentExchange final : public Combination {
public:
    SegmentExchange(const TspProblem& problem, std::int32_t max_length)
        : problem_(problem), max_length_(max_length) {}
    Objective combine(SolutionBatch& into, std::size_t i, const SolutionBatch& from,
                      std::size_t j) override;

private:
    const TspProblem& problem_;
    std::int32_t max_length_;
};

} // namespace locus::tsp
