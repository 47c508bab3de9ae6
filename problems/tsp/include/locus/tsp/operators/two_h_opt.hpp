#pragma once
/// \file
/// The 2h-opt operator (Bentley 1992): for every pair of tour edges (a, a') = (t[i], t[i+1])
/// and (b, b') = (t[j], t[j+1]), i < j, the 2-opt move that adds (a, b) and (a', b'), and the
/// two node insertions that add one of those edges: b moved between a and a', or a' moved
/// between b and b'. One exploration thus finds the best of 2-opt and single-city Or-opt moves
/// over the pairs the 2-opt neighborhood already reads.
///
/// TourMove (kind two_h_opt): length 0: the 2-opt (i, j) (TwoOpt's fields); length 1: the
/// insertion of city t[i] between t[p] and t[p+1] (OrOpt's fields). Applied, touched and
/// named as those operators' moves; no independence rule.
///
/// Index space TwoHOptFull: rows n (position i), cols 3n (col = 3j + variant; variant 0: the
/// 2-opt, 1: b between a and a', 2: a' between b and b'); a cell holds a move when j >= i + 2
/// and the move is legal (the 2-opt not on the adjacent edges (0, 1) and (n-1, 0)).

#include <cstdint>

#include "locus/tsp/moves.hpp"
#include "locus/tsp/neighborhood_spec.hpp"
#include "locus/tsp/operators/or_opt.hpp"
#include "locus/tsp/operators/two_opt.hpp"
#include "locus/tsp/tour_view.hpp"

namespace locus::tsp {

struct TwoHOpt;

template <class Metric, class Delta = std::int64_t> struct TwoHOptFull {
    using operator_type = TwoHOpt;
    using delta_type = Delta;
    using point_type = typename Metric::point_type;
    struct row_type {
        const point_type* P;
        const std::int32_t* D;
        std::int32_t i;
    };
    TourBatchView<Metric> v;

    /// Grid rows per focused city (0: the space ignores focus).
    static constexpr std::int32_t rows_per_focus = 0;
    LOCUS_HD_INLINE gpu::MoveGrid grid() const {
        return {static_cast<std::uint32_t>(v.n < 5 ? 0 : v.n), static_cast<std::uint32_t>(3 * v.n)};
    }
    LOCUS_HD_INLINE row_type row(std::uint32_t s, std::uint32_t r) const {
        return {v.points(s), v.dists(s), static_cast<std::int32_t>(r)};
    }
    /// The move of cell (i, col), invalid when the cell holds none.
    LOCUS_HD_INLINE TourMove move_of(std::int32_t i, std::uint32_t col) const {
        const auto j = static_cast<std::int32_t>(col / 3);
        const auto variant = static_cast<std::int32_t>(col % 3);
        TourMove m;
        m.kind = MoveKind::two_h_opt;
        if (j < i + 2) return m;
        if (variant == 0) {
            m.i = i;
            m.j = j;
            m.valid = !(i == 0 && j == v.n - 1);
            return m;
        }
        m.length = 1;
        m.i = variant == 1 ? j : i + 1;
        m.p = variant == 1 ? i : j;
        m.valid = or_opt_insertion_ok(v.n, m.i, 1, m.p);
        return m;
    }
    LOCUS_HD_INLINE delta_type operator()(const row_type& x, std::uint32_t col) const {
        const TourMove m = move_of(x.i, col);
        if (!m.valid) return gpu::invalid_delta<delta_type>();
        if (m.length == 0) return two_opt_delta<Delta>(v.metric, x.P, x.D, m.i, m.j);
        return or_opt_delta<Delta>(v.metric, x.P, x.D, v.n, m.i, 1, m.p, false);
    }
    LOCUS_HD_INLINE TourMove decode(std::uint32_t, std::uint64_t index) const {
        const auto cols = static_cast<std::uint64_t>(3 * v.n);
        return move_of(static_cast<std::int32_t>(index / cols),
                       static_cast<std::uint32_t>(index % cols));
    }
};

/// The 2h-opt operator (see the file comment).
struct TwoHOpt {
    static constexpr MoveKind kind = MoveKind::two_h_opt;
    static constexpr const char* name = "two_h_opt";
    static constexpr const char* description =
        "2h-opt (Bentley 1992): for every pair of tour edges (a, a') and (b, b'), the 2-opt move "
        "adding (a, b) and (a', b') and the two node insertions adding one of them (b between a "
        "and a', a' between b and b'); about 3n^2/2 moves.";

    LOCUS_HD_INLINE static ReversalPlan plan(const TourMove& m, std::int32_t n) {
        return m.length == 0 ? TwoOpt::plan(m, n) : OrOpt::plan(m, n);
    }
    LOCUS_HD_INLINE static int touched(const TourMove& m, const std::int32_t* tour, std::int32_t n,
                                       std::int32_t* out) {
        return m.length == 0 ? TwoOpt::touched(m, tour, n, out) : OrOpt::touched(m, tour, n, out);
    }

    template <class Schema> static void declare(Schema&) {}
    /// Calls f(SpaceTag<Evaluator>{}) for the index space (the full one).
    template <class Metric, class Delta, class F>
    static decltype(auto) visit_space(const NeighborhoodSpec&, F&& f) {
        return f(SpaceTag<TwoHOptFull<Metric, Delta>>{});
    }
};

} // namespace locus::tsp
