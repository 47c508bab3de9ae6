#pragma once
/// \file
/// A quadratic assignment problem instance on the host, its objective and permutation checks.
///
/// A solution is a permutation p of 0..n-1: facility i is placed at location p[i]. The
/// objective is sum_ij a[i][j] * b[p[i]][p[j]] (Koopmans-Beckmann form), valid for asymmetric
/// matrices and non-zero diagonals.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace locus {
class Model;
}

namespace locus::qap {

/// Largest n accepted by the readers and the generator (two 5000^2 int64 matrices = 400 MB).
inline constexpr std::int32_t kMaxSize = 5000;

/// A loaded instance. Invariants after parse_qaplib / generate_random / validate_instance:
/// 2 <= n <= kMaxSize; a and b hold n*n entries, row-major; every entry is >= 0; and
/// min(sum(a) * max(b), sum(b) * max(a)) <= 2^53 (every objective is then exact as a double
/// and far from int64 overflow).
///
/// NOTE: entries are stored as int64 although every QAPLIB entry fits in int32: the
/// bound above then guarantees that every product a_ij * b_kl, the objective, every
/// swap delta and every partial sum of their formulas fit in int64 without casts at the use
/// sites (the delta formulas sum at most 2n - 2 <= n^2 products). Device code that wants half
/// the memory traffic may copy the matrices to int32 when max(a), max(b) < 2^31.
struct Instance {
    std::string name;            ///< file stem of the .dat file, or the generator spec
    std::int32_t n = 0;          ///< number of facilities (= number of locations)
    std::vector<std::int64_t> a; ///< n*n flows between facilities, a[i*n+j]
    std::vector<std::int64_t> b; ///< n*n distances between locations, b[k*n+l]

    /// Flow from facility i to facility j (precondition: both < n).
    std::int64_t flow(std::int32_t i, std::int32_t j) const {
        return a[static_cast<std::size_t>(i) * static_cast<std::size_t>(n) +
                 static_cast<std::size_t>(j)];
    }
    /// Distance from location k to location l (precondition: both < n).
    std::int64_t distance(std::int32_t k, std::int32_t l) const {
        return b[static_cast<std::size_t>(k) * static_cast<std::size_t>(n) +
                 static_cast<std::size_t>(l)];
    }
};

/// Checks the invariants of Instance. Throws InstanceError prefixed with "<source>: " when n
/// is outside 2..kMaxSize, a or b do not hold n*n entries, an entry is negative, or
/// min(sum(a) max(b), sum(b) max(a)) exceeds 2^53 (an objective could then be inexact as a
/// double).
///
/// NOTE: negative entries are rejected: flows and distances are non-negative in QAPLIB and
/// in the model, and the overflow bound (hence the exactness of every 64-bit sum) and the
/// gaps to best-known values assume a non-negative objective.
void validate_instance(const Instance& instance, std::string_view source);

/// sum_ij a_ij * b_{p(i) p(j)}. Precondition: p is a permutation of 0..n-1 (see
/// check_permutation) and the instance satisfies its invariants. O(n^2).
std::int64_t objective(const Instance& instance, std::span<const std::int32_t> p);

/// Why `p` is not a permutation of 0..n-1, or nullopt when it is. Messages: "expected <n>
/// entries, found <k>", "entry <i> = <v> is out of range 0..<n-1>", "location <v> appears
/// twice (entries <i> and <j>)" (0-based entry indices).
std::optional<std::string> check_permutation(std::span<const std::int32_t> p, std::int32_t n);

/// The inverse permutation q (q[p[i]] = i). Precondition: p is a permutation.
std::vector<std::int32_t> invert_permutation(std::span<const std::int32_t> p);

/// The instance of a QAP model (locus/model.hpp): `flow` (A, n x n, between facilities) and
/// `distance` (B, n x n, between locations) of non-negative integers. Throws InstanceError
/// "<name>: <reason>" with the reasons of validate_instance.
Instance instance_from_model(const Model& model);

} // namespace locus::qap
