#pragma once
/// \file
/// CVRPLIB solution files (.sol): one line `Route #<k>: <c1> <c2> ...` per route, then
/// `Cost <value>`. Customers are numbered 1..n-1, the node indices of Instance (for the usual
/// depot at file node 1: the file's node id minus one); the depot is omitted.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "locus/dcvrp/giant_tour.hpp"

namespace locus::dcvrp {

/// A parsed .sol file.
struct SolFile {
    Routes routes;              ///< the non-empty routes in file order
    std::optional<double> cost; ///< the stated Cost, when the file has one
    std::size_t cost_line = 0;  ///< its line (0 without one)
    /// Half a unit of the Cost's last written digit ("27591": 0.5, "524.61": 0.005): how far
    /// the routes' cost may lie from the stated value it was rounded to.
    double cost_precision = 0.0;
};

/// Parses .sol text for an instance with n nodes; `source` names it in messages. Blank lines
/// and CRLF are accepted, route lines without customers are skipped, the route numbers are not
/// checked. Throws InstanceError:
///   "<source>:<line>: expected 'Route #<k>: <customers>' or 'Cost <value>', found '<text>'"
///   "<source>:<line>: non-numeric customer '<word>'"
///   "<source>:<line>: customer <c> out of range 1..<n-1>"
///   "<source>:<line>: customer <c> appears twice (first on line <l>)"
///   "<source>:<line>: Cost '<text>' is not a number"
///   "<source>:<line>: duplicate Cost (first on line <l>)"
///   "<source>: <k> of <n-1> customers are not visited: <c1>, <c2>, ..." (the first ten)
SolFile parse_sol(std::string_view text, const std::string& source, std::int32_t n);

/// Reads a .sol file. Throws InstanceError "cannot open solution file '<path>': <reason>" and
/// the errors of parse_sol with the path as source.
SolFile read_sol(const std::filesystem::path& path, std::int32_t n);

/// The .sol text of `routes` (empty routes skipped, numbered from 1) and `cost`: "Cost <v>"
/// with the shortest decimal that reads back as the same double ("Cost 27591" for integers).
std::string format_sol(const Routes& routes, double cost);

/// Writes format_sol(split_routes(tour), cost) to `path`. Throws InstanceError "invalid
/// solution for <name>: <why>" when `tour` is not an encoding for n nodes and "cannot write
/// solution file '<path>': <reason>" when the file cannot be written.
void write_sol(const std::filesystem::path& path, std::string_view name, std::int32_t n,
               std::span<const std::int32_t> tour, double cost);

} // namespace locus::dcvrp
