#pragma once
/// \file
/// Small TSP instances for tests: non-integral coordinates (the double metric path) and random
/// symmetric matrices (the matrix path), and random tours over them.

#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "locus/rng.hpp"
#include "locus/tsp/instance.hpp"

namespace locus::tsp::test {

/// n cities with non-integral coordinates in [0, 1000)^2 (euc_2d_real metric).
inline Instance real_instance(std::size_t n, std::uint64_t seed) {
    Instance inst;
    inst.name = "real";
    inst.n = n;
    inst.type = EdgeWeightType::euc_2d;
    Rng rng(seed, 2);
    for (std::size_t i = 0; i < n; ++i) {
        inst.x.push_back(rng.uniform() * 1000.0);
        inst.y.push_back(rng.uniform() * 1000.0);
    }
    prepare_metric(inst, "real");
    return inst;
}

/// An explicit instance with random symmetric weights in [1, max_weight].
inline Instance matrix_instance(std::size_t n, std::uint64_t seed,
                                std::uint32_t max_weight = 1000) {
    Instance inst;
    inst.name = "matrix";
    inst.n = n;
    inst.type = EdgeWeightType::explicit_matrix;
    inst.matrix.assign(n * n, 0);
    Rng rng(seed, 3);
    for (std::size_t a = 0; a < n; ++a)
        for (std::size_t b = a + 1; b < n; ++b)
            inst.matrix[a * n + b] = inst.matrix[b * n + a] =
                static_cast<std::int32_t>(1 + rng.below(max_weight));
    prepare_metric(inst, "matrix");
    return inst;
}

/// A uniformly random tour of n cities (Fisher-Yates over stream (seed, 1)).
inline std::vector<std::int32_t> random_tour(std::size_t n, std::uint64_t seed) {
    std::vector<std::int32_t> tour(n);
    std::iota(tour.begin(), tour.end(), 0);
    Rng rng(seed, 1);
    for (std::size_t k = n - 1; k > 0; --k)
        std::swap(tour[k], tour[rng.below(static_cast<std::uint32_t>(k + 1))]);
    return tour;
}

} // namespace locus::tsp::test
