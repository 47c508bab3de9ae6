#pragma once
/// \file
/// The swap operator: exchange the cities at positions i < j. TourMove: i, j.
///
/// Index space SwapFull: rows n, cols n (positions i < j).

#include <cstdint>
#include <span>
#include <utility>

#include "locus/tsp/moves.hpp"
#include "locus/tsp/neighborhood_spec.hpp"
#include "locus/tsp/tour_view.hpp"

namespace locus::tsp {

struct Swap;

/// Delta of swapping the cities at positions i < j.
template <class Delta, class Metric, class Point>
LOCUS_HD_INLINE Delta swap_delta(const Metric& d, const Point* P, const std::int32_t* D,
                                 std::int32_t n, std::int32_t i, std::int32_t j) {
    if (j == i + 1 || (i == 0 && j == n - 1)) {
        // Adjacent: a is directly followed by b.
        const std::int32_t a = (j == i + 1) ? i : j;
        const std::int32_t b = (j == i + 1) ? j : i;
        const std::int32_t pa = wrap(a - 1, n);
        const Point before = P[pa];
        const Point after = P[b + 1];
        return static_cast<Delta>(d(before, P[b])) + d(P[a], after) - D[pa] - D[b];
    }
    const std::int32_t pi = wrap(i - 1, n);
    const std::int32_t pj = j - 1;
    const Delta removed = static_cast<Delta>(D[pi]) + D[i] + D[pj] + D[j];
    const Delta added =
        static_cast<Delta>(d(P[pi], P[j])) + d(P[j], P[i + 1]) + d(P[pj], P[i]) + d(P[i], P[j + 1]);
    return added - removed;
}

template <class Metric, class Delta = std::int64_t> struct SwapFull {
    using operator_type = Swap;
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
        return {static_cast<std::uint32_t>(v.n < 4 ? 0 : v.n), static_cast<std::uint32_t>(v.n)};
    }
    LOCUS_HD_INLINE row_type row(std::uint32_t s, std::uint32_t r) const {
        return {v.points(s), v.dists(s), static_cast<std::int32_t>(r)};
    }
    LOCUS_HD_INLINE delta_type operator()(const row_type& x, std::uint32_t col) const {
        const auto j = static_cast<std::int32_t>(col);
        if (j <= x.i) return gpu::invalid_delta<delta_type>();
        return swap_delta<Delta>(v.metric, x.P, x.D, v.n, x.i, j);
    }
    LOCUS_HD_INLINE TourMove decode(std::uint32_t, std::uint64_t index) const {
        TourMove m;
        m.kind = MoveKind::swap;
        m.i = static_cast<std::int32_t>(index / static_cast<std::uint64_t>(v.n));
        m.j = static_cast<std::int32_t>(index % static_cast<std::uint64_t>(v.n));
        m.valid = m.j > m.i;
        return m;
    }
};

/// Dependency of two swaps of the cities at positions (i, j): a swap changes the four edges at
/// its two positions, so two swaps are independent when no position of one is a position of the
/// other or next to one (cyclic distances).
LOCUS_HD_INLINE bool swap_conflict(const TourMove& a, const TourMove& b, std::int32_t n) {
    const auto near = [n](std::int32_t x, std::int32_t y) {
        const std::int32_t gap = x > y ? x - y : y - x;
        return gap <= 1 || n - gap <= 1;
    };
    return near(a.i, b.i) || near(a.i, b.j) || near(a.j, b.i) || near(a.j, b.j);
}

/// Applies pairwise independent swaps (swap_conflict) together.
template <class T>
void apply_independent_swaps(std::span<T> tour, std::span<const TourMove> moves) {
    for (const TourMove& m : moves)
        std::swap(tour[static_cast<std::size_t>(m.i)], tour[static_cast<std::size_t>(m.j)]);
}

/// The swap operator (see the file comment). Not a reversal: apply() exchanges two entries.
struct Swap {
    static constexpr MoveKind kind = MoveKind::swap;
    static constexpr const char* name = "swap";
    static constexpr const char* description =
        "Swap: exchange the positions of two cities; n(n-1)/2 moves.";

    template <class T> LOCUS_HD_INLINE static void apply(T* tour, std::int32_t, const TourMove& m) {
        const T tmp = tour[m.i];
        tour[m.i] = tour[m.j];
        tour[m.j] = tmp;
    }
    /// The two cities and their tour neighbours.
    LOCUS_HD_INLINE static int touched(const TourMove& m, const std::int32_t* tour, std::int32_t n,
                                       std::int32_t* out) {
        out[0] = tour[wrap(m.i - 1, n)];
        out[1] = tour[m.i];
        out[2] = tour[wrap(m.i + 1, n)];
        out[3] = tour[wrap(m.j - 1, n)];
        out[4] = tour[m.j];
        out[5] = tour[wrap(m.j + 1, n)];
        return 6;
    }
    static bool conflicts(const TourMove& a, const TourMove& b, std::int32_t n) {
        return swap_conflict(a, b, n);
    }
    static void apply_independent(std::span<std::int32_t> tour, std::span<const TourMove> moves) {
        apply_independent_swaps<std::int32_t>(tour, moves);
    }

    template <class Schema> static void declare(Schema&) {}
    /// Calls f(SpaceTag<Evaluator>{}) for the index space (the full one).
    template <class Metric, class Delta, class F>
    static decltype(auto) visit_space(const NeighborhoodSpec&, F&& f) {
        return f(SpaceTag<SwapFull<Metric, Delta>>{});
    }
};

} // namespace locus::tsp
