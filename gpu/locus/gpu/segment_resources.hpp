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

#include <cmath>
#include <cstdint>
#include <vector>

#include "locus/hd.hpp"

namespace locus::gpu {

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

/// Summaries of the segments of one giant tour (host), zero- or one-level hierarchy.
/// `Distance` is any callable d(u, v) -> double over node ids.
class SegmentTable {
public:
    /// Builds the hierarchy of `tour` (node ids, n >= 1): `part` = 0 builds every segment (zero
    /// level); part >= 1 builds a one-level hierarchy with parts of `part` positions.
    template <class Distance>
    void build(const RouteResources& resources, const std::vector<std::int32_t>& tour,
               const Distance& distance, std::int32_t part) {
        resources_ = resources;
        n_ = static_cast<std::int32_t>(tour.size());
        part_ = part <= 0 ? n_ : part;
        parts_ = (n_ + part_ - 1) / part_;
        tour_ = tour;
        // Level 0: every segment inside a part, rows by start position.
        inner_.assign(static_cast<std::size_t>(n_) * static_cast<std::size_t>(part_), {});
        for (std::int32_t i = 0; i < n_; ++i) {
            const std::int32_t end = std::min(n_, (i / part_ + 1) * part_);
            RouteSegment s = resources.leaf(tour[static_cast<std::size_t>(i)]);
            inner_[index_inner(i, i)] = s;
            for (std::int32_t j = i + 1; j < end; ++j) {
                const std::int32_t u = tour[static_cast<std::size_t>(j - 1)];
                const std::int32_t v = tour[static_cast<std::size_t>(j)];
                s = resources.join(s, resources.leaf(v), distance(u, v));
                inner_[index_inner(i, j)] = s;
            }
        }
        // Level 1: runs of whole parts a..b.
        runs_.assign(static_cast<std::size_t>(parts_) * static_cast<std::size_t>(parts_), {});
        for (std::int32_t a = 0; a < parts_; ++a) {
            RouteSegment s = whole_part(a);
            runs_[index_run(a, a)] = s;
            for (std::int32_t b = a + 1; b < parts_; ++b) {
                s = resources.join(s, whole_part(b), edge_before(b * part_, distance));
                runs_[index_run(a, b)] = s;
            }
        }
        edges_.resize(static_cast<std::size_t>(n_));
        for (std::int32_t k = 1; k < n_; ++k)
            edges_[static_cast<std::size_t>(k)] = edge_before(k, distance);
    }

    /// The summary of positions [i, j] (i <= j), from at most three stored summaries.
    RouteSegment segment(std::int32_t i, std::int32_t j) const { return view().segment(i, j); }

    /// The hierarchy as a view over this table's host arrays.
    SegmentView view() const {
        return {inner_.data(), runs_.data(), edges_.data(), n_, part_, parts_, resources_};
    }

    /// Length of the edge into position k (1 <= k < n).
    double edge_before(std::int32_t k) const { return edges_[static_cast<std::size_t>(k)]; }

    /// Stored summaries (the hierarchy's size).
    std::size_t summaries() const {
        std::size_t count = 0;
        for (std::int32_t i = 0; i < n_; ++i)
            count += static_cast<std::size_t>(std::min(n_, (i / part_ + 1) * part_) - i);
        return count + static_cast<std::size_t>(parts_) * static_cast<std::size_t>(parts_ + 1) / 2;
    }

    /// The part size of a one-level hierarchy for n positions: about n^(1/3), at least 1.
    static std::int32_t part_for(std::int32_t n) {
        return std::max<std::int32_t>(1, static_cast<std::int32_t>(std::lround(std::cbrt(n))));
    }

private:
    std::size_t index_inner(std::int32_t i, std::int32_t j) const {
        return static_cast<std::size_t>(i) * static_cast<std::size_t>(part_) +
               static_cast<std::size_t>(j - i);
    }
    std::size_t index_run(std::int32_t a, std::int32_t b) const {
        return static_cast<std::size_t>(a) * static_cast<std::size_t>(parts_) +
               static_cast<std::size_t>(b);
    }
    RouteSegment whole_part(std::int32_t a) const {
        const std::int32_t start = a * part_;
        const std::int32_t end = std::min(n_, start + part_) - 1;
        return inner_[index_inner(start, end)];
    }
    template <class Distance>
    double edge_before(std::int32_t k, const Distance& distance) const {
        return distance(tour_[static_cast<std::size_t>(k - 1)], tour_[static_cast<std::size_t>(k)]);
    }

    RouteResources resources_{};
    std::int32_t n_ = 0;
    std::int32_t part_ = 1;
    std::int32_t parts_ = 0;
    std::vector<std::int32_t> tour_;
    std::vector<RouteSegment> inner_;
    std::vector<RouteSegment> runs_;
    std::vector<double> edges_;
};

} // namespace locus::gpu
