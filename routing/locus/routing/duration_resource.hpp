#pragma once
/// \file
/// The duration resource of a route (Vidal et al. 2013's duration segment without time
/// windows): its edge lengths plus the service times of its customers; a route whose duration
/// passes the limit exceeds it by the difference. One of the resources a problem composes into
/// its segment summaries (route_segment.hpp). With symmetric distances a reversed piece lasts
/// as long; a time-window resource, which is not symmetric, is a resource type of its own.

#include <cmath>
#include <cstdint>

#include "locus/hd.hpp"

namespace locus::routing {

/// Duration: edges plus service times along a route, limited by max_duration.
struct DurationResource {
    /// An open route piece's duration.
    struct Piece {
        double duration = 0.0; ///< its edges plus the service times of its customers
    };
    /// The complete routes' duration above the limit.
    struct Excess {
        double excess_duration = 0.0; ///< summed over the complete routes
    };
    /// Symmetric distances: a reversed piece lasts as long.
    static constexpr bool symmetric = true;

    const double* service = nullptr; ///< per node (host or device pointer; null: no service)
    double max_duration = HUGE_VAL;  ///< route duration limit (HUGE_VAL: none)

    /// The piece of the one customer `node`: its service time.
    LOCUS_HD_INLINE void leaf(Piece& p, std::int32_t node) const {
        p.duration = service == nullptr ? 0.0 : service[node];
    }

    /// `a` followed by `b` over an edge of length `edge`: r = a + edge + b, O(1).
    LOCUS_HD_INLINE static void concat(Piece& r, const Piece& a, const Piece& b, double edge) {
        r.duration = a.duration + edge + b.duration;
    }

    /// The excess of two disjoint sets of complete routes together.
    LOCUS_HD_INLINE static void add(Excess& r, const Excess& a, const Excess& b) {
        r.excess_duration = a.excess_duration + b.excess_duration;
    }

    /// Adds the complete route `p` to `e`.
    LOCUS_HD_INLINE void close(Excess& e, const Piece& p) const {
        if (p.duration > max_duration) e.excess_duration += p.duration - max_duration;
    }

    /// Whether no complete route of `e` exceeds the limit.
    LOCUS_HD_INLINE static bool feasible(const Excess& e) { return e.excess_duration == 0.0; }
};

} // namespace locus::routing
