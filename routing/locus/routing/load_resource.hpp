#pragma once
/// \file
/// The load resource of a route (Vidal et al. 2013's load segment): every customer adds its
/// demand; a route whose load passes the vehicle capacity exceeds it by the difference. One of
/// the resources a problem composes into its segment summaries (route_segment.hpp).

#include <cstdint>

#include "locus/hd.hpp"

namespace locus::routing {

/// Load: the demand of the customers of a route, limited by the capacity. Exact in 64-bit
/// integers (a reader bounds the capacity and the summed demands).
struct LoadResource {
    /// An open route piece's load.
    struct Piece {
        std::int64_t load = 0; ///< demand of its customers
    };
    /// The complete routes' load above the capacity.
    struct Excess {
        std::int64_t excess_load = 0; ///< summed over the complete routes
    };
    /// Loads are sums: a reversed piece has the same load.
    static constexpr bool symmetric = true;

    const std::int64_t* demand = nullptr; ///< per node (host or device pointer; depot: 0)
    std::int64_t capacity = 0;            ///< vehicle capacity

    /// The piece of the one customer `node`.
    LOCUS_HD_INLINE void leaf(Piece& p, std::int32_t node) const { p.load = demand[node]; }

    /// `a` followed by `b` over an edge (loads ignore edges): r = a + b, O(1).
    LOCUS_HD_INLINE static void concat(Piece& r, const Piece& a, const Piece& b, double) {
        r.load = a.load + b.load;
    }

    /// The excess of two disjoint sets of complete routes together.
    LOCUS_HD_INLINE static void add(Excess& r, const Excess& a, const Excess& b) {
        r.excess_load = a.excess_load + b.excess_load;
    }

    /// Adds the complete route `p` to `e`.
    LOCUS_HD_INLINE void close(Excess& e, const Piece& p) const {
        if (p.load > capacity) e.excess_load += p.load - capacity;
    }

    /// Whether no complete route of `e` exceeds the capacity.
    LOCUS_HD_INLINE static bool feasible(const Excess& e) { return e.excess_load == 0; }
};

} // namespace locus::routing
