#pragma once
/// \file
/// QAPLIB files: instances (.dat) and solutions (.sln).
///
/// A .dat file is a stream of whitespace-separated integers: n, then A (n*n, flows), then B
/// (n*n, distances), row-major; rows may wrap over lines and blank lines are optional. A .sln
/// file holds "n value" followed by the n entries of the permutation (1-based in the standard
/// form).

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "locus/qap/instance.hpp"

namespace locus::qap {

/// Reads a QAPLIB .dat file; the instance is named after the file stem. Throws InstanceError
/// "cannot open instance file '<path>': <reason>" and the errors of parse_qaplib with the path
/// as source.
Instance read_qaplib(const std::filesystem::path& path);

/// Parses QAPLIB .dat text; `source` names it in error messages and gives the instance name.
/// Throws InstanceError:
///   "<source>: empty file, expected n"
///   "<source>:<line>: '<token>' is not an integer"
///   "<source>:<line>: '<token>' does not fit in 64 bits"
///   "<source>:<line>: n = <n> is out of range 2..5000"
///   "<source>: expected 2*n*n = <2n^2> matrix entries after n = <n>, found <k>"
///   "<source>:<line>: unexpected number '<token>' after the 2*n*n = <2n^2> matrix entries"
///   "<source>:<line>: negative entry <v> in matrix A|B (flows and distances must be
///    non-negative)"
///   and the overflow error of validate_instance.
Instance parse_qaplib(std::string_view text, const std::string& source);

/// How the permutation of a .sln file was read.
enum class SlnReading {
    one_based,          ///< the standard form: p[i] is the location (1-based) of facility i
    zero_based,         ///< entries 0..n-1 (e.g. tai40a.sln)
    one_based_inverted, ///< the file lists p^-1 (e.g. tai60a, tai80a, kra30a)
    zero_based_inverted,
};

/// A solution read from a .sln file.
struct SlnSolution {
    std::int64_t value = 0;      ///< the value stated in the file (= its objective)
    std::vector<std::int32_t> p; ///< the permutation, 0-based, p[facility] = location
    SlnReading reading = SlnReading::one_based; ///< how the file had to be read
};

/// Reads a .sln file for `instance`. Throws InstanceError "cannot open solution file
/// '<path>': <reason>" and the errors of parse_solution with the path as source.
SlnSolution read_solution(const std::filesystem::path& path, const Instance& instance);

/// Parses .sln text. The entries are read 0-based when they contain 0 and 1-based otherwise
/// (a permutation of 1..n never contains 0, one of 0..n-1 always does); the permutation is
/// then taken as given or inverted, whichever reproduces the stated value (as given first).
/// Throws InstanceError:
///   "<source>: empty file, expected 'n value'"
///   "<source>:<line>: '<token>' is not an integer" / "... does not fit in 64 bits"
///   "<source>: n = <k> does not match the instance <name> (n = <n>)"
///   "<source>: expected <n> permutation entries, found <k>"
///   "<source>:<line>: entry <v> is out of range 1..<n>" (0..<n-1> for 0-based files)
///   "<source>:<line>: <v> appears twice in the permutation"
///   "<source>: no reading of the permutation (1-based, 0-based, inverted) gives the stated
///    value <value>; closest <best>"
SlnSolution parse_solution(std::string_view text, const std::string& source,
                           const Instance& instance);

/// The standard .sln text: "<n> <value>\n" then the 1-based permutation on one line.
/// Precondition: p is a permutation of 0..n-1.
std::string format_solution(std::span<const std::int32_t> p, std::int64_t value);

/// Writes format_solution(p, value) to `path`. Throws InstanceError "invalid solution for
/// <name>: <why>" when p is not a permutation, and "cannot write solution file '<path>':
/// <reason>" when the file cannot be written.
void write_solution(const std::filesystem::path& path, std::string_view name,
                    std::span<const std::int32_t> p, std::int64_t value);

} // namespace locus::qap
