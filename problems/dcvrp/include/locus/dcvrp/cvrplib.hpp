#pragma once
/// \file
/// CVRPLIB .vrp reader (TSPLIB-style text, read with the keyed-file reader of locus::formats).
///
/// Supported: TYPE CVRP or DCVRP (or none); DIMENSION (nodes, depot included); CAPACITY;
/// DISTANCE (maximum route duration); SERVICE_TIME (per customer, counted in the duration);
/// VEHICLES (a fleet size, optional); EDGE_WEIGHT_TYPE EUC_2D (NODE_COORD_SECTION) or EXPLICIT
/// (EDGE_WEIGHT_SECTION) with EDGE_WEIGHT_FORMAT FULL_MATRIX, UPPER_ROW, LOWER_ROW,
/// UPPER_DIAG_ROW, LOWER_DIAG_ROW and their column twins (identical streams for symmetric
/// matrices); DEMAND_SECTION (`id demand`); DEPOT_SECTION (one depot id, then -1); EOF
/// (optional). Accepted quirks: CRLF, tabs around header values, `KEY:value` without blanks,
/// scientific notation, weights wrapped over lines at will. DISPLAY_DATA_SECTION and other
/// sections are skipped; unknown `KEY : value` lines are ignored.
///
/// Nodes are renumbered so that the depot is node 0 and the customers keep the file order
/// (for the usual depot at node 1, customer c is file node c + 1, as in CVRPLIB .sol files).
/// EUC_2D distances follow `rounding` (RoundingOption::automatic: default_rounding of the
/// NAME); EXPLICIT weights are taken as given, with the diagonal set to 0.

#include <filesystem>
#include <string>
#include <string_view>

#include "locus/dcvrp/instance.hpp"

namespace locus::dcvrp {

/// Reads a .vrp file. Throws InstanceError "cannot open instance file '<path>': <reason>" and
/// the errors of parse_cvrplib with the path as source.
Instance read_cvrplib(const std::filesystem::path& path,
                      RoundingOption rounding = RoundingOption::automatic);

/// Parses .vrp text; `source` names it in error messages and gives the instance name when the
/// text has no NAME. Throws InstanceError "<source>[:<line>]: <message>", among them:
///   "missing DIMENSION" / "missing CAPACITY" / "missing EDGE_WEIGHT_TYPE"
///   "missing DEMAND_SECTION" / "missing NODE_COORD_SECTION"
///   "missing DEPOT_SECTION (no depot)" / "<line>: DEPOT_SECTION lists no depot"
///   "<line>: DEPOT_SECTION lists <k> depots (<ids>); only one depot is supported"
///   "NODE_COORD_SECTION has <k> nodes, DIMENSION says <n>"
///   "DEMAND_SECTION has <k> entries, DIMENSION says <n>"
///   "<line>: node <id> has negative demand <d>"
///   "<line>: unsupported TYPE '<t>' (supported: CVRP, DCVRP)"
///   "<line>: unsupported EDGE_WEIGHT_TYPE '<t>' (supported: EUC_2D, EXPLICIT)"
///   "<line>: unsupported EDGE_WEIGHT_FORMAT '<f>' (supported: FULL_MATRIX, UPPER_ROW, ...)"
///   and the errors of validate_instance (demand above CAPACITY, a customer out of reach
///   within DISTANCE, ...).
Instance parse_cvrplib(std::string_view text, const std::string& source,
                       RoundingOption rounding = RoundingOption::automatic);

/// The .vrp text of an instance with coordinates (EUC_2D): NAME, TYPE (DCVRP when it has a
/// DISTANCE, else CVRP), DIMENSION, CAPACITY, DISTANCE, SERVICE_TIME and VEHICLES when set,
/// the sections and EOF; numbers in the shortest form that reads back as the same double, the
/// depot as node 1. Reading it back with the instance's rounding gives the same instance.
/// Throws InstanceError "<name>: cannot write an EXPLICIT instance as EUC_2D" when the
/// instance has no coordinates. Used to hand generated instances to other tools.
std::string format_cvrplib(const Instance& instance);

} // namespace locus::dcvrp
