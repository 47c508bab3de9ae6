#pragma once
/// \file
/// Hierarchies of segment summaries (route_segment.hpp) of one giant tour (Schulz 2011, §4.3):
/// SegmentTable builds the summaries of every segment (zero-level hierarchy: n(n+1)/2
/// summaries) or of a one-level hierarchy (parts of about n^(1/3) positions: every segment
/// inside a part plus every run of whole parts), and answers segment(i, j) with at most two
/// joins. The builders are host-device steps (build_edge, build_inner_row, build_run_row) that
/// the host runs in a loop and the device as kernels (segment_table.cuh), so both give the
/// same summaries bit for bit. Every type is generic over the composed resources R
/// (SegmentResources<...>).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "locus/hd.hpp"
#include "locus/routing/route_segment.hpp"

namespace locus::routing {

/// Read access to a hierarchy of segment summaries (host or device pointers): segment(i, j) joins
/// at most three stored summaries. Trivially copyable, so kernels take it by value.
template <class R> struct SegmentView {
    using Segment = typename R::Segment;
    const Segment* inner = nullptr; ///< n x part: segment (i, j) of one part at i*part + j-i
    const Segment* runs = nullptr;  ///< parts x parts: runs of whole parts a..b
    const double* edges = nullptr;  ///< n: length of the edge into position k (k >= 1)
    std::int32_t n = 0;
    std::int32_t part = 1;
    std::int32_t parts = 0;
    R resources;

    /// The summary of positions [i, j] (i <= j).
    LOCUS_HD_INLINE Segment segment(std::int32_t i, std::int32_t j) const {
        const std::int32_t pi = i / part;
        const std::int32_t pj = j / part;
        const auto at = [this](std::int32_t a, std::int32_t b) {
            return inner[static_cast<std::int64_t>(a) * part + (b - a)];
        };
        if (pi == pj) return at(i, j);
        const std::int32_t end_i = (pi + 1) * part - 1;
        Segment s = at(i, end_i);
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
    LOCUS_HD_INLINE std::int64_t inner_size() const { return static_cast<std::int64_t>(n) * part; }
    LOCUS_HD_INLINE std::int64_t runs_size() const {
        return static_cast<std::int64_t>(parts) * parts;
    }
};

/// The arrays of one tour's hierarchy that the builders write (host or device memory).
template <class R> struct SegmentArrays {
    typename R::Segment* inner = nullptr; ///< shape.inner_size()
    typename R::Segment* runs = nullptr;  ///< shape.runs_size()
    double* edges = nullptr;              ///< shape.n (edges[0] = 0)
    HierarchyShape shape;
};

/// Builder step 1 for position k of `tour`: edges[k] = d(tour[k-1], tour[k]) (0 for k = 0).
template <class Distance, class R>
LOCUS_HD_INLINE void build_edge(const std::int32_t* tour, const Distance& distance,
                                const SegmentArrays<R>& a, std::int32_t k) {
    a.edges[k] = k == 0 ? 0.0 : distance(tour[k - 1], tour[k]);
}

/// Builder step 2 (after every edge): row i of level 0, the summaries of [i, j] for every j in
/// i's part, joined left to right.
template <class R>
LOCUS_HD_INLINE void build_inner_row(const R& resources, const std::int32_t* tour,
                                     const SegmentArrays<R>& a, std::int32_t i) {
    const HierarchyShape& h = a.shape;
    const std::int32_t end = (i / h.part + 1) * h.part < h.n ? (i / h.part + 1) * h.part : h.n;
    typename R::Segment* row = a.inner + static_cast<std::int64_t>(i) * h.part;
    typename R::Segment s = resources.leaf(tour[i]);
    row[0] = s;
    for (std::int32_t j = i + 1; j < end; ++j) {
        s = resources.join(s, resources.leaf(tour[j]), a.edges[j]);
        row[j - i] = s;
    }
}

/// The summary of the whole part `part` (from level 0).
template <class R>
LOCUS_HD_INLINE typename R::Segment whole_part(const SegmentArrays<R>& a, std::int32_t part) {
    const HierarchyShape& h = a.shape;
    const std::int32_t start = part * h.part;
    const std::int32_t stop = (start + h.part < h.n ? start + h.part : h.n) - 1;
    return a.inner[static_cast<std::int64_t>(start) * h.part + (stop - start)];
}

/// Builder step 3 (after every row of level 0): row `first` of level 1, the runs of whole parts
/// first..b for every b >= first, joined left to right: run(first, b) = join(run(first, b - 1),
/// whole_part(b), edge into part b).
template <class R>
LOCUS_HD_INLINE void build_run_row(const R& resources, const SegmentArrays<R>& a,
                                   std::int32_t first) {
    const HierarchyShape& h = a.shape;
    typename R::Segment* row = a.runs + static_cast<std::int64_t>(first) * h.parts;
    typename R::Segment s = whole_part(a, first);
    row[first] = s;
    for (std::int32_t b = first + 1; b < h.parts; ++b) {
        s = resources.join(s, whole_part(a, b), a.edges[b * h.part]);
        row[b] = s;
    }
}

/// The view of built arrays.
template <class R>
LOCUS_HD_INLINE SegmentView<R> view_of(const SegmentArrays<R>& a, const R& resources) {
    SegmentView<R> v;
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
template <class R> class SegmentTable {
public:
    using Segment = typename R::Segment;

    /// Builds the hierarchy of `tour` (node ids, n >= 1): `part` <= 0 builds every segment (zero
    /// level); part >= 1 builds a one-level hierarchy with parts of `part` positions.
    template <class Distance>
    void build(const R& resources, const std::vector<std::int32_t>& tour, const Distance& distance,
               std::int32_t part) {
        build(resources, tour.data(), static_cast<std::int32_t>(tour.size()), distance, part);
    }

    /// The same over `n` positions at `tour`.
    template <class Distance>
    void build(const R& resources, const std::int32_t* tour, std::int32_t n,
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
    Segment segment(std::int32_t i, std::int32_t j) const { return view().segment(i, j); }

    /// The hierarchy as a view over this table's host arrays.
    SegmentView<R> view() const { return view_of(arrays_, resources_); }

    /// Length of the edge into position k (1 <= k < n).
    double edge_before(std::int32_t k) const { return edges_[static_cast<std::size_t>(k)]; }

    /// Stored summaries (the hierarchy's size; level 0 counted without its unused slots).
    std::size_t summaries() const {
        const HierarchyShape& h = arrays_.shape;
        std::size_t count = 0;
        for (std::int32_t i = 0; i < h.n; ++i)
            count += static_cast<std::size_t>(std::min(h.n, (i / h.part + 1) * h.part) - i);
        return count +
               static_cast<std::size_t>(h.parts) * static_cast<std::size_t>(h.parts + 1) / 2;
    }

    /// The part size of a one-level hierarchy for n positions: about n^(1/3), at least 1.
    static std::int32_t part_for(std::int32_t n) {
        return std::max<std::int32_t>(1, static_cast<std::int32_t>(std::lround(std::cbrt(n))));
    }

private:
    R resources_{};
    std::vector<Segment> inner_;
    std::vector<Segment> runs_;
    std::vector<double> edges_;
    SegmentArrays<R> arrays_{};
};

} // namespace locus::routing
