#pragma once
/// \file
/// Evaluators of the neighborhood engine tests: pseudo-random deltas hashed from (seed,
/// solution, index), with a share of invalid cells and many ties; a table evaluator for
/// hand-computed grids; and the naive serial reference of the selection rules.

#include <cstdint>
#include <type_traits>
#include <vector>

#include "locus/gpu/neighborhood_engine.hpp"
#include "locus/gpu/neighborhood_parts.hpp"
#include "locus/rng.hpp"

namespace locus::test {

/// Delta of cell (solution, row, col) = low + hash % span (times 0.25 for floating deltas), or
/// invalid for about invalid_per_256 / 256 of the cells. A small span gives many ties.
template <class D>
struct HashEvaluator {
    using delta_type = D;
    struct row_type {
        std::uint64_t key;
    };

    gpu::MoveGrid shape;
    std::uint64_t seed;
    std::uint32_t invalid_per_256; ///< 0 = every cell valid, 256 = none
    std::int32_t low;              ///< smallest delta (in units)
    std::uint32_t span;            ///< number of distinct delta values (>= 1)

    LOCUS_HD gpu::MoveGrid grid() const { return shape; }

    LOCUS_HD row_type row(std::uint32_t solution, std::uint32_t r) const {
        return {derive_key(seed, solution, r)};
    }

    LOCUS_HD D operator()(const row_type& r, std::uint32_t col) const {
        const std::uint64_t h =
            mix64(r.key ^ (static_cast<std::uint64_t>(col) * 0xD6E8FEB86659FD93ull));
        if ((h & 255u) < invalid_per_256)
            return gpu::invalid_delta<D>();
        const std::int64_t units = low + static_cast<std::int64_t>((h >> 8) % span);
        if constexpr (std::is_floating_point_v<D>)
            return static_cast<D>(units) * static_cast<D>(0.25);
        else
            return static_cast<D>(units);
    }
};

/// Deltas read from a table of batch * rows * cols values (host or device pointer).
template <class D>
struct TableEvaluator {
    using delta_type = D;
    struct row_type {
        const D* cells;
    };

    gpu::MoveGrid shape;
    const D* table;

    LOCUS_HD gpu::MoveGrid grid() const { return shape; }
    LOCUS_HD row_type row(std::uint32_t solution, std::uint32_t r) const {
        return {table + (static_cast<std::uint64_t>(solution) * shape.rows + r) * shape.cols};
    }
    LOCUS_HD D operator()(const row_type& r, std::uint32_t col) const { return r.cells[col]; }
};

/// HashEvaluator with a lower bound: bound(context, col) = the delta less a hashed slack of 0
/// to 3 units, so the engines' threshold paths are exercised.
template <class D>
struct BoundedHashEvaluator : HashEvaluator<D> {
    LOCUS_HD D bound(const typename HashEvaluator<D>::row_type& r, std::uint32_t col) const {
        const D delta = (*this)(r, col);
        const std::uint64_t h = mix64(r.key + col) & 3u;
        if constexpr (std::is_floating_point_v<D>)
            return delta - static_cast<D>(h) * static_cast<D>(0.25);
        else
            return static_cast<D>(delta - static_cast<D>(h));
    }
};

/// A move filter keeping about keep_per_256 / 256 of the cells, hashed from (seed, solution,
/// index).
struct HashFilter {
    std::uint64_t seed;
    std::uint32_t keep_per_256;
    LOCUS_HD bool operator()(std::uint32_t solution, std::uint64_t index) const {
        const std::uint64_t h = mix64(seed ^ (static_cast<std::uint64_t>(solution) << 40) ^
                                      (index * 0x9E3779B97F4A7C15ull));
        return (h & 255u) < keep_per_256;
    }
};

/// Serial reference of select_moves_parts for one solution, from the definitions: each part's
/// best kept move (smallest delta, lowest index); PartPivot::best: the best of all;
/// first_improving: the first part best with delta < 0, else the best of all.
template <class E, class F>
gpu::MoveResult<typename E::delta_type> reference_parts(const E& eval, const F& keep,
                                                        std::uint32_t solution,
                                                        gpu::PartPivot pivot,
                                                        std::uint64_t part) {
    using D = typename E::delta_type;
    const gpu::MoveGrid g = eval.grid();
    gpu::MoveResult<D> all{gpu::invalid_delta<D>(), kNoMove};
    for (std::uint64_t begin = 0; begin < g.size(); begin += part) {
        gpu::MoveResult<D> best{gpu::invalid_delta<D>(), kNoMove};
        for (std::uint64_t index = begin; index < g.size() && index < begin + part; ++index) {
            if (!keep(solution, index))
                continue;
            const auto row = static_cast<std::uint32_t>(index / g.cols);
            const D d = eval(eval.row(solution, row), static_cast<std::uint32_t>(index % g.cols));
            if (d != gpu::invalid_delta<D>() && (best.index == kNoMove || d < best.delta))
                best = {d, index};
        }
        if (best.index != kNoMove && (all.index == kNoMove || best.delta < all.delta))
            all = best;
        if (pivot == gpu::PartPivot::first_improving && best.index != kNoMove && best.delta < D(0))
            return best;
    }
    return all;
}

/// Serial reference of select_moves for one solution, straight from the definitions.
template <class E>
gpu::MoveResult<typename E::delta_type> reference_select(const E& eval, std::uint32_t solution,
                                                         Pivot pivot) {
    using D = typename E::delta_type;
    const gpu::MoveGrid g = eval.grid();
    gpu::MoveResult<D> result{gpu::invalid_delta<D>(), kNoMove};
    for (std::uint32_t r = 0; r < g.rows; ++r) {
        for (std::uint32_t c = 0; c < g.cols; ++c) {
            const D d = eval(eval.row(solution, r), c);
            const std::uint64_t index = static_cast<std::uint64_t>(r) * g.cols + c;
            if (d == gpu::invalid_delta<D>())
                continue;
            if (pivot == Pivot::first && d < D(0))
                return {d, index};
            if (pivot == Pivot::best && (result.index == kNoMove || d < result.delta))
                result = {d, index};
        }
    }
    return result;
}

/// Serial reference of improving_moves for one solution: every improving move, by index.
template <class E>
std::vector<gpu::MoveResult<typename E::delta_type>> reference_improving(const E& eval,
                                                                         std::uint32_t solution) {
    using D = typename E::delta_type;
    const gpu::MoveGrid g = eval.grid();
    std::vector<gpu::MoveResult<D>> moves;
    for (std::uint32_t r = 0; r < g.rows; ++r)
        for (std::uint32_t c = 0; c < g.cols; ++c) {
            const D d = eval(eval.row(solution, r), c);
            if (d < D(0))
                moves.push_back({d, static_cast<std::uint64_t>(r) * g.cols + c});
        }
    return moves;
}

/// Bitwise equality of two results (delta compared by value: no NaN in the engine).
template <class D>
bool same_move(const gpu::MoveResult<D>& a, const gpu::MoveResult<D>& b) {
    return a.index == b.index && a.delta == b.delta;
}

} // namespace locus::test
