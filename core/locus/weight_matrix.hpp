#pragma once
/// \file
/// EDGE_WEIGHT_SECTION matrices of TSPLIB-style files (.tsp, .vrp): the EDGE_WEIGHT_FORMAT
/// names, the number of weights each format lists, and the n x n matrix they describe.

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace locus {

/// The listing orders of a symmetric matrix (the *_COL names map onto these).
enum class WeightFormat { full_matrix, upper_row, lower_row, upper_diag_row, lower_diag_row };

/// The format named `name` (EDGE_WEIGHT_FORMAT), or nullopt.
inline std::optional<WeightFormat> weight_format(std::string_view name) {
    if (name == "FULL_MATRIX") return WeightFormat::full_matrix;
    // NOTE: for a symmetric matrix, listing the upper triangle column by column gives the same
    // stream as listing the lower triangle row by row (and vice versa).
    if (name == "UPPER_ROW" || name == "LOWER_COL") return WeightFormat::upper_row;
    if (name == "LOWER_ROW" || name == "UPPER_COL") return WeightFormat::lower_row;
    if (name == "UPPER_DIAG_ROW" || name == "LOWER_DIAG_COL") return WeightFormat::upper_diag_row;
    if (name == "LOWER_DIAG_ROW" || name == "UPPER_DIAG_COL") return WeightFormat::lower_diag_row;
    return std::nullopt;
}

/// Weights a matrix of n nodes lists in `format`.
inline std::size_t weight_count(WeightFormat format, std::size_t n) {
    switch (format) {
    case WeightFormat::full_matrix:
        return n * n;
    case WeightFormat::upper_row:
    case WeightFormat::lower_row:
        return n * (n - 1) / 2;
    case WeightFormat::upper_diag_row:
    case WeightFormat::lower_diag_row:
        return n * (n + 1) / 2;
    }
    return 0;
}

/// The n x n row-major matrix from weight_count(format, n) weights in `format` order (entries
/// no format lists stay 0). Triangular formats fill both halves.
template <class T>
void fill_weight_matrix(WeightFormat format, std::size_t n, const std::vector<T>& weights,
                        std::vector<T>& matrix) {
    matrix.assign(n * n, T(0));
    std::size_t k = 0;
    const auto put = [&](std::size_t i, std::size_t j) {
        matrix[i * n + j] = weights[k];
        matrix[j * n + i] = weights[k];
        ++k;
    };
    for (std::size_t i = 0; i < n; ++i) {
        switch (format) {
        case WeightFormat::full_matrix:
            for (std::size_t j = 0; j < n; ++j)
                matrix[i * n + j] = weights[k++];
            break;
        case WeightFormat::upper_row:
            for (std::size_t j = i + 1; j < n; ++j)
                put(i, j);
            break;
        case WeightFormat::lower_row:
            for (std::size_t j = 0; j < i; ++j)
                put(i, j);
            break;
        case WeightFormat::upper_diag_row:
            for (std::size_t j = i; j < n; ++j)
                put(i, j);
            break;
        case WeightFormat::lower_diag_row:
            for (std::size_t j = 0; j <= i; ++j)
                put(i, j);
            break;
        }
    }
}

} // namespace locus
