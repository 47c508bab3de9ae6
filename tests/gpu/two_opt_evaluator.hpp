#pragma once
/// \file
/// A 2-opt neighborhood of symmetric Euclidean tours (TSPLIB EUC_2D rounding), written as an
/// engine evaluator: the realistic workload of the engine's benchmark and a second, structured
/// test evaluator (triangular validity, per-row context).

#include <cmath>
#include <cstdint>
#include <vector>

#include "locus/gpu/neighborhood_engine.hpp"
#include "locus/rng.hpp"

namespace locus::test {

/// Move (i, j), i < j - 1, reverses tour positions i+1..j: replaces edges (t_i, t_i+1) and
/// (t_j, t_j+1) by (t_i, t_j) and (t_i+1, t_j+1). Positions are tour-ordered copies of the
/// coordinates (x[s * n + k] is the x of the k-th city of solution s's tour), `edge` holds the
/// length of (t_k, t_k+1).
struct TwoOptEvaluator {
    using delta_type = int;
    struct row_type {
        float ax, ay, bx, by;
        int ab;
        std::uint32_t i;
        std::uint32_t offset;
    };

    const float* x;
    const float* y;
    const int* edge;
    std::uint32_t n;

    LOCUS_HD static int distance(float x1, float y1, float x2, float y2) {
        const float dx = x1 - x2;
        const float dy = y1 - y2;
        return static_cast<int>(sqrtf(dx * dx + dy * dy) + 0.5f);
    }

    LOCUS_HD gpu::MoveGrid grid() const { return {n, n}; }

    LOCUS_HD row_type row(std::uint32_t solution, std::uint32_t i) const {
        const std::uint32_t offset = solution * n;
        const std::uint32_t next = i + 1 == n ? 0 : i + 1;
        return {
            x[offset + i], y[offset + i], x[offset + next], y[offset + next], edge[offset + i], i,
            offset};
    }

    LOCUS_HD int operator()(const row_type& r, std::uint32_t j) const {
        if (j <= r.i + 1 || (r.i == 0 && j + 1 == n))
            return gpu::invalid_delta<int>();
        const std::uint32_t next = j + 1 == n ? 0 : j + 1;
        const float cx = x[r.offset + j];
        const float cy = y[r.offset + j];
        const float dx = x[r.offset + next];
        const float dy = y[r.offset + next];
        return distance(r.ax, r.ay, cx, cy) + distance(r.bx, r.by, dx, dy) - r.ab -
               edge[r.offset + j];
    }
};

/// Host data of `batch` random tours over n random cities in a 10^6 square.
struct TwoOptData {
    std::vector<float> x;
    std::vector<float> y;
    std::vector<int> edge;

    TwoOptData(std::uint32_t n, std::uint32_t batch, std::uint64_t seed)
        : x(static_cast<std::size_t>(n) * batch), y(x.size()), edge(x.size()) {
        Rng rng(seed, 0);
        for (std::size_t k = 0; k < x.size(); ++k) {
            x[k] = static_cast<float>(rng.below(1000000));
            y[k] = static_cast<float>(rng.below(1000000));
        }
        for (std::uint32_t s = 0; s < batch; ++s)
            for (std::uint32_t k = 0; k < n; ++k) {
                const std::size_t a = static_cast<std::size_t>(s) * n + k;
                const std::size_t b = static_cast<std::size_t>(s) * n + (k + 1 == n ? 0 : k + 1);
                edge[a] = TwoOptEvaluator::distance(x[a], y[a], x[b], y[b]);
            }
    }
};

} // namespace locus::test
