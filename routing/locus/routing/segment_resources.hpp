#pragma once
/// \file
/// Segment resources for routing problems on a giant tour (Schulz, GPU local search for the
/// DCVRP, §4.3, after Irnich's resource extension functions): a route set is one sequence of
/// nodes in which copies of the depot delimit the routes, and any contiguous part of it — a
/// segment, which may span several routes — is summarised so that the summary of two segments
/// joined by an edge, and the feasibility and penalty of a whole giant tour, follow in O(1).
///
/// A summary keeps, for the open route pieces at its two ends (before its first depot copy and
/// after its last one), their load, duration (edge lengths plus service times) and number of
/// customers; for the routes that lie complete inside it, how many are non-empty and by how much
/// they exceed the capacity and the duration limit (the resources are reset at every depot
/// copy); and the segment's length. Distances are symmetric, so a reversed segment has the same
/// summary with its ends exchanged. Host-device code: the CPU twin and kernels use the same
/// functions, in the same order, and agree bit for bit.
///
/// SegmentTable builds the summaries of every segment of one giant tour (zero-level hierarchy:
/// n(n+1)/2 summaries) or of a one-level hierarchy (parts of about n^(1/3) positions: every
/// segment inside a part plus every run of whole parts), and answers segment(i, j) with at most
/// two joins.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "locus/hd.hpp"

namespace locus::routing {

/// An open route piece at one end of a segment.
struct RoutePiece {
    std::int64_t load = 0;       ///< demand of its customers
    double duration = 0.0;       ///< its edges plus the service times of its customers
    std::int32_t customers = 0;  ///< customers in it
};

/// The summary of a segment of a giant tour.
struct RouteSegment {
    std::int32_t first = 0;      ///< node at the start
    std::int32_t last = 0;       ///< node at the end
    double cost = 0.0;           ///< sum of its edge lengths
    bool depot = false;          ///< contains a depot copy
    RoutePiece head;             ///< before the first depot copy (the whole segment if none)
    RoutePiece tail;             ///< after the last depot copy (empty if none)
    std::int32_t routes = 0;     ///< non-empty routes complete inside the segment
    std::int64_t excess_load = 0;   ///< summed load above the capacity of those routes
    double excess_duration = 0.0;   ///< summed duration above the limit of those routes
};

/// The resources of a routing instance the summaries need (host or device pointers).
struct RouteResources {
    const std::int64_t* demand = nullptr;  ///< per node (depot: 0)
    const double* service = nullptr;       ///< per node (null: no service times)
    std::int64_t capacity = 0;
    double max_duration = HUGE_VAL;        ///< route duration limit (HUGE_VAL: none)
    std::int32_t depot = 0;                ///< the node that delimits routes

    /// The summary of the one-node segment `node`.
    LOCUS_HD_INLINE RouteSegment leaf(std::int32_t node) const {
        RouteSegment s;
        s.first = node;
        s.last = node;
        if (node == depot) {
            s.depot = true;
        } else {
            s.head.load = demand[node];
            s.head.duration = service == nullptr ? 0.0 : service[node];
            s.head.customers = 1;
        }
        return s;
    }

    /// Adds the complete route `piece` to the inner routes of `s`.
    LOCUS_HD_INLINE void close(RouteSegment& s, const RoutePiece& piece) const {
        if (piece.customers == 0)
            return;
        ++s.routes;
        if (piece.load > capacity)
            s.excess_load += piece.load - capacity;
        if (piece.duration > max_duration)
            s.excess_duration += piece.duration - max_duration;
    }

    /// The summary of `a` followed by `b`, joined by an edge of length `edge` (from a.last to
    /// b.first).
    LOCUS_HD_INLINE RouteSegment join(const RouteSegment& a, const RouteSegment& b,
                                      double edge) const {
        RouteSegment r;
        r.first = a.first;
        r.last = b.last;
        r.cost = a.cost + edge + b.cost;
        r.depot = a.depot || b.depot;
        r.routes = a.routes + b.routes;
        r.excess_load = a.excess_load + b.excess_load;
        r.excess_duration = a.excess_duration + b.excess_duration;
        // The open piece at a's end and the one at b's start become one piece across the edge.
        const RoutePiece& left = a.depot ? a.tail : a.head;
        RoutePiece middle;
        middle.load = left.load + b.head.load;
        middle.duration = left.duration + edge + b.head.duration;
        middle.customers = left.customers + b.head.customers;
        if (!a.depot && !b.depot) {
            r.head = middle;
        } else if (a.depot && !b.depot) {
            r.head = a.head;
            r.tail = middle;
        } else if (!a.depot) {
            r.head = middle;
            r.tail = b.tail;
        } else {
            r.head = a.head;
            r.tail = b.tail;
            close(r, middle);
        }
        return r;
    }

    /// The summary of `s` traversed backwards (symmetric distances).
    LOCUS_HD_INLINE static RouteSegment reversed(const RouteSegment& s) {
        RouteSegment r = s;
        r.first = s.last;
        r.last = s.first;
        if (s.depot) {
            r.head = s.tail;
            r.tail = s.head;
        }
        return r;
    }
};

/// A closed giant tour's verdict: feasible when no route exceeds the capacity or the duration
/// limit; the penalised objective adds lambda per route beyond the vehicle limit (z = z_w +
/// lambda_K z_K).
struct TourVerdict {
    bool feasible = false;
    double cost = 0.0;
    std::int32_t routes = 0;
    double objective = 0.0;
};

/// The verdict of a giant tour that starts and ends with a depot copy, from its summary.
LOCUS_HD_INLINE TourVerdict closed_tour(const RouteSegment& tour, std::int32_t vehicles,
                                        double lambda) {
    TourVerdict v;
    v.feasible = tour.excess_load == 0 && tour.excess_duration == 0.0;
    v.cost = tour.cost;
    v.routes = tour.routes;
    const std::int32_t extra = vehicles > 0 && tour.routes > vehicles ? tour.routes - vehicles : 0;
    v.objective = tour.cost + lambda * extra;
    return v;
}

/// Read access to a hierarchy of segment summaries (host or device pointers): segment(i, j) joins
/// at most three stored summaries. Trivially copyable, so kernels take it by value.
struct SegmentView {
    const RouteSegment* inner = nullptr; ///< n x part: segment (i, j) of one part at i*part + j-i
    const RouteSegment* runs = nullptr;  ///< parts x parts: runs of whole parts a..b
    const double* edges = nullptr;       ///< n: length of the edge into position k (k >= 1)
    std::int32_t n = 0;
    std::int32_t part = 1;
    std::int32_t parts = 0;
    RouteResources resources;

    /// The summary of positions [i, j] (i <= j).
    LOCUS_HD_INLINE RouteSegment segment(std::int32_t i, std::int32_t j) const {
        const std::int32_t pi = i / part;
        const std::int32_t pj = j / part;
        const auto at = [this](std::int32_t a, std::int32_t b) {
            return inner[static_cast<std::int64_t>(a) * part + (b - a)];
        };
        if (pi == pj)
            return at(i, j);
        const std::int32_t end_i = (pi + 1) * part - 1;
        RouteSegment s = at(i, end_i);
        if (pj > pi + 1)
            s = resources.join(s, runs[static_cast<std::int64_t>(pi + 1) * parts + (pj - 1)],
                               edges[end_i + 1]);
        const std::int32_t start_j = pj * part;
        return resources.join(s, at(start_j, j), edges[start_j]);
    }
};

/// The shape of a hierarchy over n positions: `part` positions per part (n for the zero-level
/// hierarchy), `parts` parts. Level 0 stores n x part summaries (row i: segments [i, j] for j in
/// i's part), level 1 parts x parts (row a: runs of whole parts a..b), plus n edge lengths.
struct HierarchyShape {
    std::int32_t n = 0;
    std::int32_t part = 1;
    std::int32_t parts = 0;

    /// part <= 0 or part >= n: zero level (one part holding every position).
    LOCUS_HD_INLINE static HierarchyShape of(std::int32_t n, std::int32_t part) {
        HierarchyShape s;
        s.n = n;
        s.part = part <= 0 || part > n ? (n > 0 ? n : 1) : part;
        s.parts = (n + s.part - 1) / s.part;
        return s;
    }
    LOCUS_HD_INLINE std::int64_t inner_size() const {
        return static_cast<std::int64_t>(n) * part;
    }
    LOCUS_HD_INLINE std::int64_t runs_size() const {
        return static_cast<std::int64_t>(parts) * parts;
    }
};

/// The arrays of one tour's hierarchy that the builders write (host or device memory).
struct SegmentArrays {
    RouteSegment* inner = nullptr; ///< shape.inner_size()
    RouteSegment* runs = nullptr;  ///< shape.runs_size()
    double* edges = nullptr;       ///< shape.n (edges[0] = 0)
    HierarchyShape shape;
};

/// Builder step 1 for position k of `tour`: edges[k] = d(tour[k-1], tour[k]) (0 for k = 0).
template <class Distance>
LOCUS_HD_INLINE void build_edge(const std::int32_t* tour, const Distance& distance,
                                const SegmentArrays& a, std::int32_t k) {
    a.edges[k] = k == 0 ? 0.0 : distance(tour[k - 1], tour[k]);
}

/// Builder step 2 (after every edge): row i of level 0, the summaries of [i, j] for every j in
/// i's part, joined left to right.
LOCUS_HD_INLINE void build_inner_row(const RouteResources& resources, const std::int32_t* tour,
                                     const SegmentArrays& a, std::int32_t i) {
    const HierarchyShape& h = a.shape;
    const std::int32_t end = (i / h.part + 1) * h.part < h.n ? (i / h.part + 1) * h.part : h.n;
    RouteSegment* row = a.inner + static_cast<std::int64_t>(i) * h.part;
    RouteSegment s = resources.leaf(tour[i]);
    row[0] = s;
    for (std::int32_t j = i + 1; j < end; ++j) {
        s = resources.join(s, resources.leaf(tour[j]), a.edges[j]);
        row[j - i] = s;
    }
}

/// The summary of the whole part `part` (from level 0).
LOCUS_HD_INLINE RouteSegment whole_part(const SegmentArrays& a, std::int32_t part) {
    const HierarchyShape& h = a.shape;
    const std::int32_t start = part * h.part;
    const std::int32_t stop = (start + h.part < h.n ? start + h.part : h.n) - 1;
    return a.inner[static_cast<std::int64_t>(start) * h.part + (stop - start)];
}

/// Builder step 3 (after every row of level 0): row `first` of level 1, the runs of whole parts
/// first..b for every b >= first, joined left to right: run(first, b) = join(run(first, b - 1),
/// whole_part(b), edge into part b).
LOCUS_HD_INLINE void build_run_row(const RouteResources& resources, const SegmentArrays& a,
                                   std::int32_t first) {
    const HierarchyShape& h = a.shape;
    RouteSegment* row = a.runs + static_cast<std::int64_t>(first) * h.parts;
    RouteSegment s = whole_part(a, first);
    row[first] = s;
    for (std::int32_t b = first + 1; b < h.parts; ++b) {
        s = resources.join(s, whole_part(a, b), a.edges[b * h.part]);
        row[b] = s;
    }
}

/// The view of built arrays.
LOCUS_HD_INLINE SegmentView view_of(const SegmentArrays& a, const RouteResources& resources) {
    SegmentView v;
    v.inner = a.inner;
    v.runs = a.runs;
    v.edges = a.edges;
    v.n = a.shape.n;
    v.part = a.shape.part;
    v.parts = a.shape.parts;
    v.resources = resources;
    return v;
}

/// Summaries of the segments of one giant tour (host), zero- or one-level hierarchy, built by
/// the same steps as the device builds them (build_edge, build_inner_row, build_run_row).
/// `Distance` is any callable d(u, v) -> double over node ids.
class SegmentTable {
public:
    /// Builds the hierarchy of `tour` (node ids, n >= 1): `part` <= 0 builds every segment (zero
    /// level); part >= 1 builds a one-level hierarchy with parts of `part` positions.
    template <class Distance>
    void build(const RouteResources& resources, const std::vector<std::int32_t>& tour,
               const Distance& distance, std::int32_t part) {
        build(resources, tour.data(), static_cast<std::int32_t>(tour.size()), distance, part);
    }

    /// The same over `n` positions at `tour`.
    template <class Distance>
    void build(const RouteResources& resources, const std::int32_t* tour, std::int32_t n,
               const Distance& distance, std::int32_t part) {
        resources_ = resources;
        const HierarchyShape shape = HierarchyShape::of(n, part);
        inner_.resize(static_cast<std::size_t>(shape.inner_size()));
        runs_.resize(static_cast<std::size_t>(shape.runs_size()));
        edges_.resize(static_cast<std::size_t>(n));
        arrays_ = {inner_.data(), runs_.data(), edges_.data(), shape};
        for (std::int32_t k = 0; k < n; ++k)
            build_edge(tour, distance, arrays_, k);
        for (std::int32_t i = 0; i < n; ++i)
            build_inner_row(resources, tour, arrays_, i);
        for (std::int32_t a = 0; a < shape.parts; ++a)
            build_run_row(resources, arrays_, a);
    }

    /// The summary of positions [i, j] (i <= j), from at most three stored summaries.
    RouteSegment segment(std::int32_t i, std::int32_t j) const { return view().segment(i, j); }

    /// The hierarchy as a view over this table's host arrays.
    SegmentView view() const { return view_of(arrays_, resources_); }

    /// Length of the edge into position k (1 <= k < n).
    double edge_before(std::int32_t k) const { return edges_[static_cast<std::size_t>(k)]; }

    /// Stored summaries (the hierarchy's size; level 0 counted without its unused slots).
    std::size_t summaries() const {
        const HierarchyShape& h = arrays_.shape;
        std::size_t count = 0;
        for (std::int32_t i = 0; i < h.n; ++i)
            count += static_cast<std::size_t>(std::min(h.n, (i / h.part + 1) * h.part) - i);
        return count + static_cast<std::size_t>(h.parts) * static_cast<std::size_t>(h.parts + 1) / 2;
    }

    /// The part size of a one-level hierarchy for n positions: about n^(1/3), at least 1.
    static std::int32_t part_for(std::int32_t n) {
        return std::max<std::int32_t>(1, static_cast<std::int32_t>(std::lround(std::cbrt(n))));
    }

private:
    RouteResources resources_{};
    std::vector<RouteSegment> inner_;
    std::vector<RouteSegment> runs_;
    std::vector<double> edges_;
    SegmentArrays arrays_{};
};

} // namespace locus::routing
