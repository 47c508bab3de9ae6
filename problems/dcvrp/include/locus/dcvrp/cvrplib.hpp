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

namespace locus {
class Model;
}

namespace locus::dcvrp {

/// Reads a .vrp file. Throws InstanceError "cannot open instance file '<path>': <reason>" and
/// the errors of parse_cvrplib with the path as source.
Instance read_cvrplib(const std::filesystem::path& path,
                      RoundingOption rounding = RoundingOption::automatic);

/// Parses .vrp text; `source` names it in error messages and gives the instance name when the
/// text has no NAME. Throws InstanceError "<source>[:<line>]: <message>", among them:
///   "<last line>: end of file without DIMENSION" (the same for CAPACITY, EDGE_WEIGHT_TYPE,
///   DEMAND_SECTION, NODE_COORD_SECTION and "DEPOT_SECTION (no depot)")
///   "<line>: DEPOT_SECTION lists no depot"
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

/// Parses the text of a VRPTW .vrp file in the CVRPLIB style of the Gehring-Homberger and
/// Solomon sets: TYPE VRPTW, DIMENSION, CAPACITY, SERVICE_TIME (per customer; the depot has
/// none), VEHICLES (optional), DISTANCE (optional, a route duration limit beside the windows),
/// EDGE_WEIGHT_TYPE EUC_2D, NODE_COORD_SECTION, DEMAND_SECTION, TIME_WINDOW_SECTION
/// (`id earliest latest`: the start of service; the depot's window bounds every route's
/// departure and return), SERVICE_TIME_SECTION (optional, `id time`: one time for every
/// customer, the depot's 0) and DEPOT_SECTION. Distances, which are also the travel times,
/// follow `rounding`; automatic means tenths, the DIMACS convention of the published
/// best-known values. Throws InstanceError "<source>[:<line>]: <message>": those of parse_cvrplib
/// for the shared keys and sections, "<line>: unsupported TYPE '<t>' (supported: VRPTW)", "<last
/// line>: end of file without TIME_WINDOW_SECTION", "TIME_WINDOW_SECTION has <k> entries, DIMENSION
/// says <n>", "<line>: node <id>: time window '<a> <b>' is not two numbers", "<line>: node <id> has
/// service time <s> where <line l | SERVICE_TIME> gives <t>: every customer must have the same
/// service time (different ones are not supported)", the reasons of window_problem at the line of
/// the node's window, and the errors of validate_instance.
Instance parse_vrptw(std::string_view text, const std::string& source,
                     RoundingOption rounding = RoundingOption::automatic);

/// Parses a VRPTW instance in the Solomon text format (Solomon 1987, also used by the
/// Gehring-Homberger set): a name line; VEHICLE, a NUMBER CAPACITY header and the two values;
/// CUSTOMER, a column header and one row per node (CUST NO., XCOORD., YCOORD., DEMAND, READY
/// TIME, DUE DATE, SERVICE TIME), customer 0 the depot. Node ids are the customer numbers;
/// windows, travel times and rounding as parse_vrptw. Throws InstanceError
/// "<source>[:<line>]: <message>": "<last line>: end of file without VEHICLE (...)" (or CUSTOMER),
/// "expected 'NUMBER CAPACITY' after VEHICLE", "expected the vehicles' NUMBER and CAPACITY, two
/// positive whole numbers, found '<text>'", "expected the column header (...) after CUSTOMER",
/// "expected a customer row of 7 numbers (...), found '<text>'", "customer number <k> where <j>
/// was due (...)", "customer <k>: demand '<d>' is not a whole number", "customer <k> has
/// negative service time <s>", "the depot (customer 0) has service time <s> (...)", "customer
/// <k> has service time <s> where line <l> gives <t>: every customer must have the same service
/// time (...)", "the CUSTOMER block needs the depot (customer 0) and at least one customer",
/// the reasons of window_problem at the node's row, and the errors of validate_instance.
Instance parse_solomon(std::string_view text, const std::string& source,
                       RoundingOption rounding = RoundingOption::automatic);

/// Whether `text` is in the Solomon format (it has a line "VEHICLE"), not CVRPLIB's.
bool is_solomon_text(std::string_view text);

/// Reads a VRPTW instance file in either format (parse_solomon when is_solomon_text, else
/// parse_vrptw), with the path as source.
Instance read_vrptw(const std::filesystem::path& path,
                    RoundingOption rounding = RoundingOption::automatic);

/// Reads an instance file of any format the DCVRP knows: a VRPTW file (the Solomon format, or
/// TYPE VRPTW) by read_vrptw, else a CVRPLIB .vrp file by read_cvrplib.
Instance read_routing_instance(const std::filesystem::path& path,
                               RoundingOption rounding = RoundingOption::automatic);

/// The .vrp text of an instance with coordinates (EUC_2D): NAME, TYPE (VRPTW with time
/// windows, else DCVRP when it has a DISTANCE, else CVRP), DIMENSION, CAPACITY, DISTANCE,
/// SERVICE_TIME and VEHICLES when set, the sections (TIME_WINDOW_SECTION with windows: read it
/// back with parse_vrptw) and EOF; numbers in the shortest form that reads back as the same
/// double, the depot as node 1. Reading it back with the instance's rounding gives the same
/// instance. Throws InstanceError "<name>: cannot write an EXPLICIT instance as EUC_2D" when
/// the instance has no coordinates. Used to hand generated instances to other tools.
std::string format_cvrplib(const Instance& instance);

/// The instance of a routing model (locus/model.hpp), node 0 the depot: `coordinates` (n x 2)
/// and/or a symmetric distance `matrix` (n x n; it then gives the distances), `demands` (n,
/// the depot's 0), the numbers `capacity`, `duration_limit` (DISTANCE; none when absent),
/// `service_time` and `vehicles` (0: unlimited), optional `time_windows` (n x 2: earliest and
/// latest start; the depot's bound every route) and the text `rounding` of coordinate
/// distances (exact, nint or tenths; `rounding` of the problem, when not auto, wins). Node ids
/// in messages are the array indices. Throws InstanceError "<name>: <reason>" with the reasons
/// of validate_instance.
Instance instance_from_model(const Model& model, RoundingOption rounding);

} // namespace locus::dcvrp
