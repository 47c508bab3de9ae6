#pragma once
/// \file
/// Segment summaries of a giant tour composed per resource (Schulz 2011, §4.3, after Irnich's
/// resource extension functions; one summary type per resource as in Vidal et al. 2013): a
/// route set is one sequence of nodes in which copies of the depot delimit the routes, and any
/// contiguous part of it — a segment, which may span several routes — is summarised so that the
/// summary of two segments joined by an edge, and the feasibility of a whole giant tour, follow
/// in O(1).
///
/// A summary keeps, for the open route pieces at its two ends (before its first depot copy and
/// after its last one), each resource's piece (e.g. load, duration) and the number of
/// customers; for the routes that lie complete inside it, how many are non-empty and each
/// resource's excess over its limit (the resources are reset at every depot copy); and the
/// segment's length. Host-device code: the CPU twin and kernels use the same functions, in the
/// same order, and agree bit for bit.
///
/// A resource R is a type with
///   R::Piece    the summary of an open route piece (members named after the resource),
///   R::Excess   the excess of complete routes over R's limit (members named after it),
///   R::symmetric  whether a reversed piece has the same summary,
///   leaf(piece, node), static concat(r, a, b, edge), static add(r, a, b), close(excess,
///   piece), static feasible(excess),
/// and its instance data as members (load_resource.hpp, duration_resource.hpp). A problem
/// composes the resources it needs: SegmentResources<LoadResource, DurationResource>.

#include <concepts>
#include <cstdint>
#include <type_traits>

#include "locus/hd.hpp"

namespace locus::routing {

/// What SegmentResources needs of a resource R (the list above), checked when a problem
/// composes it.
template <class R>
concept Resource = std::is_trivially_copyable_v<R> &&
    requires(const R r, typename R::Piece& piece, const typename R::Piece& in,
             typename R::Excess& excess, const typename R::Excess& sum, std::int32_t node,
             double edge) {
    { R::symmetric } -> std::convertible_to<bool>;
    r.leaf(piece, node);
    R::concat(piece, in, in, edge);
    R::add(excess, sum, sum);
    r.close(excess, in);
    { R::feasible(sum) } -> std::convertible_to<bool>;
};

/// An open route piece at one end of a segment: every resource's piece, plus its customers.
template <class... Rs> struct RoutePiece : Rs::Piece... {
    std::int32_t customers = 0; ///< customers in it
};

/// The summary of a segment of a giant tour: every resource's excess over the complete routes
/// inside it (as base classes: s.excess_load, s.excess_duration, ...), and the rest.
template <class... Rs> struct RouteSegment : Rs::Excess... {
    std::int32_t first = 0;  ///< node at the start
    std::int32_t last = 0;   ///< node at the end
    double cost = 0.0;       ///< sum of its edge lengths
    bool depot = false;      ///< contains a depot copy
    RoutePiece<Rs...> head;  ///< before the first depot copy (the whole segment if none)
    RoutePiece<Rs...> tail;  ///< after the last depot copy (empty if none)
    std::int32_t routes = 0; ///< non-empty routes complete inside the segment
};

/// The resources Rs... of a routing instance composed (host or device pointers in each): the
/// O(1) operations on segment summaries. Trivially copyable, so kernels take it by value.
/// Aggregate: SegmentResources<A, B>{{A's data}, {B's data}, depot}.
// NOTE: the resources are base classes, so their pieces and excesses keep their own member
// names and a fold over Rs... calls each resource's operation once, in the order composed;
// composing the same resource twice is not possible (one base per type).
template <class... Rs> struct SegmentResources : Rs... {
    static_assert((Resource<Rs> && ...),
                  "a resource of SegmentResources lacks one of Piece, Excess, symmetric, leaf, "
                  "concat, add, close, feasible (see routing/route_segment.hpp)");
    using Piece = RoutePiece<Rs...>;
    using Segment = RouteSegment<Rs...>;
    /// Whether every resource is symmetric, so that reversed() is defined.
    static constexpr bool symmetric = (Rs::symmetric && ...);

    std::int32_t depot = 0; ///< the node that delimits routes

    /// The summary of the one-node segment `node`.
    LOCUS_HD_INLINE Segment leaf(std::int32_t node) const {
        Segment s;
        s.first = node;
        s.last = node;
        if (node == depot) {
            s.depot = true;
        } else {
            (Rs::leaf(s.head, node), ...);
            s.head.customers = 1;
        }
        return s;
    }

    /// Adds the complete route `piece` to the inner routes of `s`.
    LOCUS_HD_INLINE void close(Segment& s, const Piece& piece) const {
        if (piece.customers == 0) return;
        ++s.routes;
        (Rs::close(s, piece), ...);
    }

    /// The summary of `a` followed by `b`, joined by an edge of length `edge` (from a.last to
    /// b.first). O(1): each resource concatenates its pieces once.
    LOCUS_HD_INLINE Segment join(const Segment& a, const Segment& b, double edge) const {
        Segment r;
        r.first = a.first;
        r.last = b.last;
        r.cost = a.cost + edge + b.cost;
        r.depot = a.depot || b.depot;
        r.routes = a.routes + b.routes;
        (Rs::add(r, a, b), ...);
        // The open piece at a's end and the one at b's start become one piece across the edge.
        const Piece& left = a.depot ? a.tail : a.head;
        Piece middle;
        (Rs::concat(middle, left, b.head, edge), ...);
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

    /// The summary of `s` traversed backwards (every resource symmetric: its ends exchanged).
    LOCUS_HD_INLINE static Segment reversed(const Segment& s) {
        static_assert(symmetric, "reversed() needs symmetric resources; an asymmetric one "
                                 "(time windows) needs summaries per direction");
        Segment r = s;
        r.first = s.last;
        r.last = s.first;
        if (s.depot) {
            r.head = s.tail;
            r.tail = s.head;
        }
        return r;
    }

    /// Whether no complete route of `s` exceeds a limit of any resource.
    LOCUS_HD_INLINE static bool feasible(const Segment& s) { return (Rs::feasible(s) && ...); }
};

/// A closed giant tour's verdict: feasible when no route exceeds a resource's limit; the
/// penalised objective adds lambda per route beyond the vehicle limit (z = z_w + lambda_K z_K).
struct TourVerdict {
    bool feasible = false;
    double cost = 0.0;
    std::int32_t routes = 0;
    double objective = 0.0;
};

/// The verdict of a giant tour that starts and ends with a depot copy, from its summary.
template <class... Rs>
LOCUS_HD_INLINE TourVerdict closed_tour(const RouteSegment<Rs...>& tour, std::int32_t vehicles,
                                        double lambda) {
    TourVerdict v;
    v.feasible = (Rs::feasible(tour) && ...);
    v.cost = tour.cost;
    v.routes = tour.routes;
    const std::int32_t extra = vehicles > 0 && tour.routes > vehicles ? tour.routes - vehicles : 0;
    v.objective = tour.cost + lambda * extra;
    return v;
}

} // namespace locus::routing
