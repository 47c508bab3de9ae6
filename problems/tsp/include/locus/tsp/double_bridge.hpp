#pragma once
/// \file
/// The double-bridge kick as host/device code, shared by the DoubleBridge perturbation (host)
/// and the resident ILS chains (host or device): the same draws and the same rearrangement.

#include <cstdint>

#include "locus/hd.hpp"
#include "locus/rng.hpp"

namespace locus::tsp {

/// Cut positions of a double bridge, cyclic from `start`: [X][B = o1..o2-1][C = o2..o3-1][Y].
struct BridgeCut {
    std::int32_t start = 0;
    std::int32_t o1 = 0, o2 = 0, o3 = 0; ///< 1 <= o1 < o2 < o3 <= window (< n)
};

/// Draws a cut from `rng`: with 0 < window < n, three distinct offsets within `window`
/// positions after a random start (a local double bridge); otherwise anywhere in the tour.
/// Precondition: n >= 8.
LOCUS_HD_INLINE BridgeCut draw_bridge(Rng& rng, std::int32_t n, std::int32_t window) {
    const std::int32_t span = (window <= 0 || window >= n) ? n - 1 : window;
    BridgeCut cut;
    cut.start =
        span == n - 1 ? 0 : static_cast<std::int32_t>(rng.below(static_cast<std::uint32_t>(n)));
    std::int32_t o[3];
    for (int k = 0; k < 3; ++k) {
        bool fresh = false;
        while (!fresh) {
            o[k] = 1 + static_cast<std::int32_t>(rng.below(static_cast<std::uint32_t>(span)));
            fresh = true;
            for (int q = 0; q < k; ++q)
                fresh = fresh && o[q] != o[k];
        }
    }
    for (int x = 0; x < 3; ++x)
        for (int y = x + 1; y < 3; ++y)
            if (o[y] < o[x]) {
                const std::int32_t t = o[x];
                o[x] = o[y];
                o[y] = t;
            }
    cut.o1 = o[0];
    cut.o2 = o[1];
    cut.o3 = o[2];
    return cut;
}

/// Applies a cut ([X B C Y] -> [X C B Y]) to `tour` (n cities) and returns the change of the
/// tour length under `distance(a, b)`. `scratch` holds at least o3 - o1 entries; `ends`
/// receives the six cities at the ends of the removed edges.
template <class Distance>
LOCUS_HD std::int64_t apply_bridge(std::int32_t* tour, std::int32_t n, const BridgeCut& cut,
                                   const Distance& distance, std::int32_t* scratch,
                                   std::int32_t* ends) {
    auto at = [&](std::int32_t offset) -> std::int32_t& { return tour[(cut.start + offset) % n]; };
    ends[0] = at(cut.o1 - 1); // X last
    ends[1] = at(cut.o1);     // B first
    ends[2] = at(cut.o2 - 1); // B last
    ends[3] = at(cut.o2);     // C first
    ends[4] = at(cut.o3 - 1); // C last
    ends[5] = at(cut.o3 % n); // Y first
    const std::int64_t delta = static_cast<std::int64_t>(distance(ends[0], ends[3])) +
                               distance(ends[4], ends[1]) + distance(ends[2], ends[5]) -
                               distance(ends[0], ends[1]) - distance(ends[2], ends[3]) -
                               distance(ends[4], ends[5]);
    std::int32_t m = 0;
    for (std::int32_t q = cut.o2; q < cut.o3; ++q)
        scratch[m++] = at(q);
    for (std::int32_t q = cut.o1; q < cut.o2; ++q)
        scratch[m++] = at(q);
    for (std::int32_t q = cut.o1; q < cut.o3; ++q)
        at(q) = scratch[q - cut.o1];
    return delta;
}

} // namespace locus::tsp
