#pragma once
/// \file
/// Explicit weight matrices of TSPLIB-family files (EDGE_WEIGHT_TYPE EXPLICIT): the
/// EDGE_WEIGHT_FORMAT names, the number of weights each format lists, the n x n matrix they
/// describe, and the reading of an EDGE_WEIGHT_SECTION into it.
///
/// Formats: FULL_MATRIX, UPPER_ROW, LOWER_ROW, UPPER_DIAG_ROW, LOWER_DIAG_ROW and their column
/// twins UPPER_COL, LOWER_COL, UPPER_DIAG_COL, LOWER_DIAG_COL (identical streams for symmetric
/// matrices). Weights may wrap over lines at will and use scientific notation.

#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "locus/formats/keyed_file.hpp"

namespace locus::formats {

/// The listing orders of a symmetric matrix (the *_COL names map onto these).
enum class WeightFormat { full_matrix, upper_row, lower_row, upper_diag_row, lower_diag_row };

/// The format named `name` (EDGE_WEIGHT_FORMAT), or nullopt.
std::optional<WeightFormat> weight_format(std::string_view name);

/// Weights a matrix of n nodes lists in `format`.
std::size_t weight_count(WeightFormat format, std::size_t n);

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

/// The EDGE_WEIGHT_FORMAT of an EXPLICIT file (a key of `file`'s layout). Throws
/// "<source>: EDGE_WEIGHT_TYPE EXPLICIT needs an EDGE_WEIGHT_FORMAT" and "<source>:<line>:
/// unsupported EDGE_WEIGHT_FORMAT '<f>' (supported: FULL_MATRIX, UPPER_ROW, ...)".
WeightFormat explicit_format(const KeyedFile& file);

/// Calls `take(weight, word, line)` for each weight of the EDGE_WEIGHT_SECTION of `file` (a section
/// of its layout), which must list weight_count(format, n) numbers. Throws "<source>:<last line>:
/// end of file without EDGE_WEIGHT_SECTION", "<line>: non-numeric edge weight '<w>'" (also for
/// numbers that are not finite), "<line>: EDGE_WEIGHT_SECTION has more than the <k> weights that
/// <f> with DIMENSION <n> needs" and "<source>: EDGE_WEIGHT_SECTION has <j> weights, <f> with
/// DIMENSION <n> needs <k>".
void for_each_weight(const KeyedFile& file, WeightFormat format, std::size_t n,
                     const std::function<void(double, std::string_view, const KeyedLine&)>& take);

/// Throws "<source>: FULL_MATRIX is not symmetric: weight(i,j) = a but weight(j,i) = b" (1-based
/// nodes, " (<reason>)" appended when `reason` is not empty) for the first pair (i < j, row by
/// row) that differs.
template <class T>
void check_symmetric(const KeyedFile& file, const std::vector<T>& matrix, std::size_t n,
                     std::string_view reason) {
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j)
            if (matrix[i * n + j] != matrix[j * n + i])
                file.fail(0, fmt::format("FULL_MATRIX is not symmetric: weight({},{}) = {} but "
                                         "weight({},{}) = {}{}",
                                         i + 1, j + 1, matrix[i * n + j], j + 1, i + 1,
                                         matrix[j * n + i],
                                         reason.empty() ? "" : fmt::format(" ({})", reason)));
}

/// The n x n matrix of the EDGE_WEIGHT_SECTION of `file` in `format`: each weight goes through
/// `convert(weight, word, line) -> T`, which may refuse it with file.fail(line.number, ...);
/// a FULL_MATRIX must be symmetric (check_symmetric with `reason`). Throws the errors of
/// for_each_weight and check_symmetric.
template <class T, class Convert>
std::vector<T> read_weight_matrix(const KeyedFile& file, WeightFormat format, std::size_t n,
                                  Convert convert, std::string_view reason = {}) {
    std::vector<T> weights;
    // NOTE: a file of B bytes holds at most B / 2 numbers: DIMENSION is not trusted here.
    weights.reserve(std::min(weight_count(format, n), file.text_bytes() / 2 + 1));
    for_each_weight(file, format, n,
                    [&](double weight, std::string_view word, const KeyedLine& line) {
                        weights.push_back(convert(weight, word, line));
                    });
    std::vector<T> matrix;
    fill_weight_matrix(format, n, weights, matrix);
    if (format == WeightFormat::full_matrix) check_symmetric(file, matrix, n, reason);
    return matrix;
}

} // namespace locus::formats
