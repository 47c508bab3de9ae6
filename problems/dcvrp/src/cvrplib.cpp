#include "locus/dcvrp/cvrplib.hpp"

#include <limits>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/formats/keyed_file.hpp"
#include "locus/formats/weight_matrix.hpp"
#include "locus/text.hpp"

namespace locus::dcvrp {

namespace {

using formats::KeyedFile;
using formats::KeyedLine;
using formats::KeyedValue;

/// What a .vrp file is read for. NOTE: other keys (COMMENT, DISPLAY_DATA_TYPE,
/// NODE_COORD_TYPE, ...) do not change the model and are ignored.
formats::KeyedLayout cvrplib_layout() {
    return {{"NAME", "TYPE", "DIMENSION", "CAPACITY", "DISTANCE", "SERVICE_TIME", "VEHICLES",
             "EDGE_WEIGHT_TYPE", "EDGE_WEIGHT_FORMAT"},
            {},
            {"NODE_COORD_SECTION", "DEMAND_SECTION", "DEPOT_SECTION", "EDGE_WEIGHT_SECTION"}};
}

std::size_t dimension(const KeyedFile& file) {
    const std::int64_t value = file.whole_number("DIMENSION");
    if (value < 2 || value > kMaxNodes)
        file.fail(file.value("DIMENSION").line,
                  fmt::format("DIMENSION {} is out of range 2..{} (the depot and at least one "
                              "customer)",
                              value, kMaxNodes));
    return static_cast<std::size_t>(value);
}

std::int64_t capacity(const KeyedFile& file) {
    const KeyedValue& capacity = file.required("CAPACITY");
    const auto value = parse_integer(capacity.value);
    if (!value || *value < 1)
        file.fail(capacity.line, fmt::format("CAPACITY must be a positive whole number, got '{}'",
                                             capacity.value));
    return *value;
}

void read_limits(const KeyedFile& file, Instance& instance) {
    if (const KeyedValue& distance = file.value("DISTANCE"); distance.present()) {
        const auto value = parse_number(distance.value);
        if (!value || *value <= 0.0)
            file.fail(distance.line,
                      fmt::format("DISTANCE must be a positive number, got '{}'", distance.value));
        instance.max_duration = *value;
    }
    if (const KeyedValue& service = file.value("SERVICE_TIME"); service.present()) {
        const auto value = parse_number(service.value);
        if (!value || *value < 0.0)
            file.fail(
                service.line,
                fmt::format("SERVICE_TIME must be a non-negative number, got '{}'", service.value));
        instance.service_time = *value;
    }
    if (const KeyedValue& vehicles = file.value("VEHICLES"); vehicles.present()) {
        const auto value = parse_integer(vehicles.value);
        if (!value || *value < 1 || *value > std::numeric_limits<std::int32_t>::max())
            file.fail(vehicles.line, fmt::format("VEHICLES must be a positive whole number, got "
                                                 "'{}'",
                                                 vehicles.value));
        instance.vehicles = static_cast<std::int32_t>(*value);
    }
}

/// The keys both readers share: DIMENSION, NAME, CAPACITY, DISTANCE, SERVICE_TIME, VEHICLES.
Instance read_header(const KeyedFile& file) {
    Instance instance;
    instance.n = static_cast<std::int32_t>(dimension(file));
    instance.name = file.name(".vrp");
    instance.capacity = capacity(file);
    read_limits(file, instance);
    return instance;
}

/// The 0-based file index of the single depot of DEPOT_SECTION.
std::size_t depot_index(const KeyedFile& file, std::size_t n) {
    const formats::KeyedSection& section = file.section("DEPOT_SECTION");
    if (!section.present()) file.fail_missing("DEPOT_SECTION (no depot)");
    const std::vector<std::int64_t> ids = file.terminated_ids(section, n, "depot");
    if (ids.empty()) file.fail(section.line, "DEPOT_SECTION lists no depot");
    if (ids.size() > 1)
        file.fail(section.line, fmt::format("DEPOT_SECTION lists {} depots ({}); only one depot "
                                            "is supported",
                                            ids.size(), fmt::join(ids, ", ")));
    return static_cast<std::size_t>(ids.front() - 1);
}

void read_demands(const KeyedFile& file, Instance& instance, std::size_t depot) {
    const auto n = static_cast<std::size_t>(instance.n);
    std::vector<std::int64_t> demand;
    file.for_each_node(
        file.required_section("DEMAND_SECTION"), n, 2, "id demand", "entries",
        [&](std::size_t v, const KeyedLine& line, std::span<const std::string_view> words) {
            const auto q = parse_integer(words[1]);
            if (!q)
                file.fail(line.number, fmt::format("node {}: demand '{}' is not a whole number",
                                                   v + 1, words[1]));
            if (*q < 0)
                file.fail(line.number, fmt::format("node {} has negative demand {}", v + 1, *q));
            // The same words as validate_instance, at the demand's line (a CAPACITY below 1 is
            // left to it).
            if (v == depot && *q != 0)
                file.fail(line.number, fmt::format("depot node {} has demand {} (a depot has no "
                                                   "demand)",
                                                   v + 1, *q));
            if (v != depot && instance.capacity >= 1 && *q > instance.capacity)
                file.fail(line.number, fmt::format("customer node {} has demand {}, more than "
                                                   "CAPACITY {}",
                                                   v + 1, *q, instance.capacity));
            if (demand.empty()) demand.assign(n, 0);
            demand[v] = *q;
        });
    instance.demand = std::move(demand);
}

/// The n*n matrix (file node order) of EDGE_WEIGHT_SECTION; zero diagonal.
std::vector<double> read_weights(const KeyedFile& file, std::size_t n) {
    const formats::WeightFormat format = formats::explicit_format(file);
    std::vector<double> matrix = formats::read_weight_matrix<double>(
        file, format, n, [](double w, std::string_view, const KeyedLine&) { return w; });
    // NOTE: a route never travels from a node to itself, except depot -> depot for an empty
    // route of the giant tour, which must cost nothing: the diagonal is ignored.
    for (std::size_t i = 0; i < n; ++i)
        matrix[i * n + i] = 0.0;
    return matrix;
}

/// The instance with the depot as node 0 and the customers in file order, with distances.
Instance renumber(const Instance& file, std::size_t depot, const std::vector<double>& matrix,
                  RoundingOption rounding_option) {
    const auto n = static_cast<std::size_t>(file.n);
    std::vector<std::size_t> order; // order[v] = file index of node v
    order.reserve(n);
    order.push_back(depot);
    for (std::size_t i = 0; i < n; ++i)
        if (i != depot) order.push_back(i);
    Instance instance = file;
    instance.explicit_weights = !matrix.empty();
    instance.node_id.assign(n, 0);
    for (std::size_t v = 0; v < n; ++v) {
        instance.demand[v] = file.demand[order[v]];
        instance.node_id[v] = static_cast<std::int32_t>(order[v] + 1);
        if (!file.x.empty()) {
            instance.x[v] = file.x[order[v]];
            instance.y[v] = file.y[order[v]];
        }
        if (file.has_time_windows()) {
            instance.ready[v] = file.ready[order[v]];
            instance.due[v] = file.due[order[v]];
        }
    }
    const Rounding rounding = resolve_rounding(rounding_option, instance.name);
    if (matrix.empty()) {
        use_coordinates(instance, rounding);
        return instance;
    }
    instance.rounding = rounding;
    instance.dist.assign(n * n, 0.0);
    for (std::size_t a = 0; a < n; ++a)
        for (std::size_t b = 0; b < n; ++b)
            instance.dist[a * n + b] = matrix[order[a] * n + order[b]];
    return instance;
}

/// What a VRPTW .vrp file is read for (the CVRPLIB-style files of the Gehring-Homberger and
/// Solomon sets; DISTANCE also allowed, a route duration limit beside the windows).
formats::KeyedLayout vrptw_layout() {
    return {{"NAME", "TYPE", "DIMENSION", "CAPACITY", "DISTANCE", "SERVICE_TIME", "VEHICLES",
             "EDGE_WEIGHT_TYPE"},
            {},
            {"NODE_COORD_SECTION", "DEMAND_SECTION", "TIME_WINDOW_SECTION",
             "SERVICE_TIME_SECTION", "DEPOT_SECTION"}};
}

/// SERVICE_TIME_SECTION (`id time`), when present: one service time for every customer (the
/// instance's SERVICE_TIME); the depot's must be 0.
void read_service_times(const KeyedFile& file, Instance& instance, std::size_t depot) {
    const formats::KeyedSection& section = file.section("SERVICE_TIME_SECTION");
    if (!section.present()) return;
    const auto n = static_cast<std::size_t>(instance.n);
    std::optional<double> common;
    std::size_t first = 0;
    const KeyedValue& key = file.value("SERVICE_TIME");
    if (key.present()) common = instance.service_time;
    file.for_each_node(
        section, n, 2, "id time", "entries",
        [&](std::size_t v, const KeyedLine& line, std::span<const std::string_view> words) {
            const auto s = parse_number(words[1]);
            if (!s || *s < 0.0)
                file.fail(line.number, fmt::format("node {}: service time '{}' is not a "
                                                   "non-negative number",
                                                   v + 1, words[1]));
            if (v == depot) {
                if (*s != 0.0)
                    file.fail(line.number, fmt::format("depot node {} has service time {} (the "
                                                       "depot has none)",
                                                       v + 1, words[1]));
                return;
            }
            if (!common) {
                common = *s;
                first = line.number;
            } else if (*s != *common) {
                file.fail(line.number,
                          fmt::format("node {} has service time {} where {} gives {}: every "
                                      "customer must have the same service time (different "
                                      "ones are not supported)",
                                      v + 1, words[1],
                                      first != 0 ? fmt::format("line {}", first)
                                                 : std::string("SERVICE_TIME"),
                                      format_number(*common)));
            }
        });
    instance.service_time = common.value_or(0.0);
}

/// TIME_WINDOW_SECTION (`id earliest latest`) in file node order; `lines[v]` is the line of
/// node v's window.
void read_windows(const KeyedFile& file, Instance& instance, std::vector<std::size_t>& lines) {
    const auto n = static_cast<std::size_t>(instance.n);
    std::vector<double> ready(n, 0.0), due(n, 0.0);
    lines.assign(n, 0);
    file.for_each_node(
        file.required_section("TIME_WINDOW_SECTION"), n, 3, "id earliest latest", "entries",
        [&](std::size_t v, const KeyedLine& line, std::span<const std::string_view> words) {
            const auto e = parse_number(words[1]);
            const auto l = parse_number(words[2]);
            if (!e || !l)
                file.fail(line.number, fmt::format("node {}: time window '{} {}' is not two "
                                                   "numbers",
                                                   v + 1, words[1], words[2]));
            ready[v] = *e;
            due[v] = *l;
            lines[v] = line.number;
        });
    instance.ready = std::move(ready);
    instance.due = std::move(due);
}

} // namespace

Instance parse_vrptw(std::string_view text, const std::string& source, RoundingOption rounding) {
    const KeyedFile file(text, source, vrptw_layout());
    file.required("TYPE");
    file.choice("TYPE", {"VRPTW"}, 0);
    Instance in_file = read_header(file); // in file node order; renumbered at the end
    const auto n = static_cast<std::size_t>(in_file.n);
    file.required("EDGE_WEIGHT_TYPE");
    file.choice("EDGE_WEIGHT_TYPE", {"EUC_2D"}, 0);
    const std::size_t depot = depot_index(file, n);
    auto xy = file.coordinates(file.required_section("NODE_COORD_SECTION"), n);
    in_file.x = std::move(xy.x);
    in_file.y = std::move(xy.y);
    read_demands(file, in_file, depot);
    read_service_times(file, in_file, depot);
    std::vector<std::size_t> lines;
    read_windows(file, in_file, lines);
    // NOTE: the VRPTW benchmarks' best-known values use the DIMACS convention (distances and
    // travel times truncated to one decimal), whatever their names.
    const RoundingOption option =
        rounding == RoundingOption::automatic ? RoundingOption::tenths : rounding;
    Instance instance = renumber(in_file, depot, {}, option);
    // Windows no route can respect, reported at their line before the other checks.
    if (const auto problem = window_problem(instance))
        file.fail(lines[static_cast<std::size_t>(instance.node_id[static_cast<std::size_t>(
                      problem->first)] -
                  1)],
                  problem->second);
    validate_instance(instance, source);
    return instance;
}

Instance read_vrptw(const std::filesystem::path& path, RoundingOption rounding) {
    const std::string source = path.string();
    const std::string text = read_text_file(path, "instance");
    return is_solomon_text(text) ? parse_solomon(text, source, rounding)
                                 : parse_vrptw(text, source, rounding);
}

Instance parse_cvrplib(std::string_view text, const std::string& source, RoundingOption rounding) {
    const KeyedFile file(text, source, cvrplib_layout());
    // NOTE: a file without TYPE is read as a CVRP.
    file.choice("TYPE", {"CVRP", "DCVRP"}, 0);
    Instance in_file = read_header(file); // in file node order; renumbered at the end
    const auto n = static_cast<std::size_t>(in_file.n);
    file.required("EDGE_WEIGHT_TYPE");
    const bool explicit_weights = file.choice("EDGE_WEIGHT_TYPE", {"EUC_2D", "EXPLICIT"}, 0) == 1;
    const std::size_t depot = depot_index(file, n);
    const formats::KeyedSection& coords = file.section("NODE_COORD_SECTION");
    // NOTE: coordinates are optional for EXPLICIT.
    if (coords.present() || !explicit_weights) {
        auto xy = file.coordinates(file.required_section("NODE_COORD_SECTION"), n);
        in_file.x = std::move(xy.x);
        in_file.y = std::move(xy.y);
    }
    read_demands(file, in_file, depot);
    std::vector<double> matrix;
    if (explicit_weights) matrix = read_weights(file, n);
    Instance instance = renumber(in_file, depot, matrix, rounding);
    validate_instance(instance, source);
    return instance;
}

Instance read_routing_instance(const std::filesystem::path& path, RoundingOption rounding) {
    const std::string source = path.string();
    const std::string text = read_text_file(path, "instance");
    if (is_solomon_text(text)) return parse_solomon(text, source, rounding);
    for (const KeyedLine& line : formats::split_keyed_lines(text))
        if (line.keyword && line.has_colon && line.key == "TYPE" && line.value == "VRPTW")
            return parse_vrptw(text, source, rounding);
    return parse_cvrplib(text, source, rounding);
}

Instance read_cvrplib(const std::filesystem::path& path, RoundingOption rounding) {
    const std::string source = path.string();
    return parse_cvrplib(read_text_file(path, "instance"), source, rounding);
}

} // namespace locus::dcvrp
