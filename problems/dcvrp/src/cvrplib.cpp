#include "locus/dcvrp/cvrplib.hpp"
#include "locus/weight_matrix.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/text.hpp"
#include "text_lines.hpp"

namespace locus::dcvrp {

namespace {

using detail::Line;
using detail::parse_integer;
using detail::parse_number;

/// Layout of the numbers of an EDGE_WEIGHT_SECTION (column formats map to their row twins).
/// The n*n matrix (file node order) from the weights in `format` order; zero diagonal.
std::vector<double> fill_matrix(WeightFormat format, std::size_t n,
                                const std::vector<double>& weights) {
    std::vector<double> matrix;
    fill_weight_matrix(format, n, weights, matrix);
    // NOTE: a route never travels from a node to itself, except depot -> depot for an empty
    // route of the giant tour, which must cost nothing: the diagonal is ignored.
    for (std::size_t i = 0; i < n; ++i)
        matrix[i * n + i] = 0.0;
    return matrix;
}

using Header = KeyedHeader;
using Section = KeyedSection;

class CvrplibParser {
public:
    CvrplibParser(std::string_view text, const std::string& source, RoundingOption rounding)
        : lines_(detail::split_lines(text)), source_(source), rounding_(rounding) {}

    Instance parse() {
        scan();
        check_type();
        const std::size_t n = dimension();
        Instance file; // in file node order; renumbered at the end
        file.n = static_cast<std::int32_t>(n);
        file.name = instance_name();
        file.capacity = capacity();
        read_limits(file);
        const bool explicit_weights = edge_weight_type();
        const std::size_t depot = depot_index(n);
        read_coordinates(file, explicit_weights);
        read_demands(file);
        std::vector<double> matrix;
        if (explicit_weights) matrix = read_weights(n);
        Instance instance = renumber(file, depot, matrix);
        validate_instance(instance, source_);
        return instance;
    }

private:
    [[noreturn]] void fail(std::size_t line, const std::string& message) const {
        if (line == 0) throw InstanceError(fmt::format("{}: {}", source_, message));
        throw InstanceError(fmt::format("{}:{}: {}", source_, line, message));
    }

    void set(Header& header, const Line& line) { set_keyed_header(header, line, source_); }

    /// Records headers and section ranges (scan_keyed_file).
    void scan() {
        const auto section_of = [this](std::string_view key) -> Section* {
            if (key == "NODE_COORD_SECTION") return &coords_;
            if (key == "DEMAND_SECTION") return &demands_;
            if (key == "DEPOT_SECTION") return &depots_;
            if (key == "EDGE_WEIGHT_SECTION") return &weights_;
            return nullptr;
        };
        scan_keyed_file(lines_, source_, section_of, [this](const auto& line) {
            if (line.key == "NAME")
                set(name_, line);
            else if (line.key == "TYPE")
                set(type_, line);
            else if (line.key == "DIMENSION")
                set(dimension_, line);
            else if (line.key == "CAPACITY")
                set(capacity_, line);
            else if (line.key == "DISTANCE")
                set(distance_, line);
            else if (line.key == "SERVICE_TIME")
                set(service_time_, line);
            else if (line.key == "VEHICLES")
                set(vehicles_, line);
            else if (line.key == "EDGE_WEIGHT_TYPE")
                set(edge_weight_type_, line);
            else if (line.key == "EDGE_WEIGHT_FORMAT")
                set(edge_weight_format_, line);
            // NOTE: other keys (COMMENT, DISPLAY_DATA_TYPE, NODE_COORD_TYPE, ...) do not
            // change the model and are ignored.
        });
    }

    void check_type() const {
        if (type_.line == 0) return; // NOTE: a file without TYPE is read as a CVRP
        if (type_.value == "CVRP" || type_.value == "DCVRP") return;
        fail(type_.line,
             fmt::format("unsupported TYPE '{}' (supported: CVRP, DCVRP)", type_.value));
    }

    std::size_t dimension() const {
        if (dimension_.line == 0) fail(0, "missing DIMENSION");
        const auto value = parse_integer(dimension_.value);
        if (!value)
            fail(dimension_.line,
                 fmt::format("DIMENSION must be a whole number, got '{}'", dimension_.value));
        if (*value < 2 || *value > kMaxNodes)
            fail(dimension_.line,
                 fmt::format("DIMENSION {} is out of range 2..{} (the depot and at least one "
                             "customer)",
                             *value, kMaxNodes));
        return static_cast<std::size_t>(*value);
    }

    std::int64_t capacity() const {
        if (capacity_.line == 0) fail(0, "missing CAPACITY");
        const auto value = parse_integer(capacity_.value);
        if (!value || *value < 1)
            fail(capacity_.line, fmt::format("CAPACITY must be a positive whole number, got '{}'",
                                             capacity_.value));
        return *value;
    }

    void read_limits(Instance& file) const {
        if (distance_.line != 0) {
            const auto value = parse_number(distance_.value);
            if (!value || *value <= 0.0)
                fail(distance_.line,
                     fmt::format("DISTANCE must be a positive number, got '{}'", distance_.value));
            file.max_duration = *value;
        }
        if (service_time_.line != 0) {
            const auto value = parse_number(service_time_.value);
            if (!value || *value < 0.0)
                fail(service_time_.line,
                     fmt::format("SERVICE_TIME must be a non-negative number, got '{}'",
                                 service_time_.value));
            file.service_time = *value;
        }
        if (vehicles_.line != 0) {
            const auto value = parse_integer(vehicles_.value);
            if (!value || *value < 1 || *value > std::numeric_limits<std::int32_t>::max())
                fail(vehicles_.line,
                     fmt::format("VEHICLES must be a positive whole number, got '{}'",
                                 vehicles_.value));
            file.vehicles = static_cast<std::int32_t>(*value);
        }
    }

    /// True for EXPLICIT, false for EUC_2D.
    bool edge_weight_type() const {
        if (edge_weight_type_.line == 0) fail(0, "missing EDGE_WEIGHT_TYPE");
        if (edge_weight_type_.value == "EUC_2D") return false;
        if (edge_weight_type_.value == "EXPLICIT") return true;
        fail(edge_weight_type_.line,
             fmt::format("unsupported EDGE_WEIGHT_TYPE '{}' (supported: EUC_2D, EXPLICIT)",
                         edge_weight_type_.value));
    }

    std::string instance_name() const {
        std::string_view name = name_.value;
        if (name.ends_with(".vrp")) name.remove_suffix(4);
        // NOTE: printable: a NAME reaches results lines and terminals (raw bytes, invalid UTF-8).
        if (!name.empty()) return printable(name);
        return printable(std::filesystem::path(source_).stem().string());
    }

    /// The 0-based file index of the single depot of DEPOT_SECTION.
    std::size_t depot_index(std::size_t n) const {
        if (depots_.line == 0) fail(0, "missing DEPOT_SECTION (no depot)");
        std::vector<std::int64_t> ids;
        bool ended = false;
        for (std::size_t i = depots_.begin; i < depots_.end; ++i) {
            const Line& line = lines_[i];
            for (const std::string_view word : split_words(line.text)) {
                if (ended)
                    fail(line.number, fmt::format("unexpected '{}' after the -1 that ends "
                                                  "DEPOT_SECTION",
                                                  word));
                const auto id = parse_integer(word);
                if (!id) fail(line.number, fmt::format("non-numeric depot id '{}'", word));
                if (*id == -1) {
                    ended = true;
                    continue;
                }
                if (*id < 1 || static_cast<std::size_t>(*id) > n)
                    fail(line.number, fmt::format("depot id {} out of range 1..{}", *id, n));
                ids.push_back(*id);
            }
        }
        if (ids.empty()) fail(depots_.line, "DEPOT_SECTION lists no depot");
        if (ids.size() > 1)
            fail(depots_.line, fmt::format("DEPOT_SECTION lists {} depots ({}); only one depot "
                                           "is supported",
                                           ids.size(), fmt::join(ids, ", ")));
        return static_cast<std::size_t>(ids.front() - 1);
    }

    /// Checks an `id ...` line of a node section and returns the 0-based node index.
    std::size_t node_index(const Line& line, const std::vector<std::string_view>& words,
                           std::size_t expected_words, std::string_view layout,
                           std::vector<std::size_t>& seen) const {
        const auto id = parse_integer(words[0]);
        if (!id) fail(line.number, fmt::format("non-numeric node id '{}'", words[0]));
        if (words.size() != expected_words)
            fail(line.number,
                 fmt::format("node {}: expected '{}', found {} values", *id, layout, words.size()));
        if (*id < 1 || static_cast<std::size_t>(*id) > seen.size())
            fail(line.number, fmt::format("node id {} out of range 1..{}", *id, seen.size()));
        const auto index = static_cast<std::size_t>(*id - 1);
        if (seen[index] != 0)
            fail(line.number,
                 fmt::format("duplicate node id {} (first on line {})", *id, seen[index]));
        seen[index] = line.number;
        return index;
    }

    void read_coordinates(Instance& file, bool explicit_weights) const {
        if (coords_.line == 0) {
            if (explicit_weights) return; // NOTE: coordinates are optional for EXPLICIT
            fail(0, "missing NODE_COORD_SECTION");
        }
        const auto n = static_cast<std::size_t>(file.n);
        // NOTE: the count is checked before the ids so that a missing or extra line is
        // reported as the DIMENSION mismatch it is.
        if (coords_.end - coords_.begin != n)
            fail(0, fmt::format("NODE_COORD_SECTION has {} nodes, DIMENSION is {}",
                                coords_.end - coords_.begin, n));
        file.x.assign(n, 0.0);
        file.y.assign(n, 0.0);
        std::vector<std::size_t> seen(n, 0);
        for (std::size_t i = coords_.begin; i < coords_.end; ++i) {
            const Line& line = lines_[i];
            const auto words = split_words(line.text);
            const std::size_t v = node_index(line, words, 3, "id x y", seen);
            const auto x = parse_number(words[1]);
            const auto y = parse_number(words[2]);
            if (!x || !y)
                fail(line.number, fmt::format("node {}: non-numeric coordinate '{}'", v + 1,
                                              x ? words[2] : words[1]));
            file.x[v] = *x;
            file.y[v] = *y;
        }
    }

    void read_demands(Instance& file) const {
        if (demands_.line == 0) fail(0, "missing DEMAND_SECTION");
        const auto n = static_cast<std::size_t>(file.n);
        if (demands_.end - demands_.begin != n)
            fail(0, fmt::format("DEMAND_SECTION has {} entries, DIMENSION is {}",
                                demands_.end - demands_.begin, n));
        file.demand.assign(n, 0);
        std::vector<std::size_t> seen(n, 0);
        for (std::size_t i = demands_.begin; i < demands_.end; ++i) {
            const Line& line = lines_[i];
            const auto words = split_words(line.text);
            const std::size_t v = node_index(line, words, 2, "id demand", seen);
            const auto q = parse_integer(words[1]);
            if (!q)
                fail(line.number,
                     fmt::format("node {}: demand '{}' is not a whole number", v + 1, words[1]));
            if (*q < 0) fail(line.number, fmt::format("node {} has negative demand {}", v + 1, *q));
            file.demand[v] = *q;
        }
    }

    std::vector<double> read_weights(std::size_t n) const {
        if (edge_weight_format_.line == 0)
            fail(0, "EDGE_WEIGHT_TYPE EXPLICIT needs an EDGE_WEIGHT_FORMAT");
        const std::string_view format_name = edge_weight_format_.value;
        const auto format = weight_format(format_name);
        if (!format)
            fail(edge_weight_format_.line,
                 fmt::format("unsupported EDGE_WEIGHT_FORMAT '{}' (supported: FULL_MATRIX, "
                             "LOWER_ROW, UPPER_ROW, LOWER_DIAG_ROW, UPPER_DIAG_ROW, LOWER_COL, "
                             "UPPER_COL, LOWER_DIAG_COL, UPPER_DIAG_COL)",
                             format_name));
        if (weights_.line == 0) fail(0, "missing EDGE_WEIGHT_SECTION");
        const std::size_t needed = weight_count(*format, n);
        std::vector<double> weights;
        weights.reserve(needed);
        for (std::size_t i = weights_.begin; i < weights_.end; ++i) {
            const Line& line = lines_[i];
            for (const std::string_view word : split_words(line.text)) {
                if (weights.size() == needed)
                    fail(line.number, fmt::format("EDGE_WEIGHT_SECTION has more than the {} "
                                                  "weights that {} with DIMENSION {} needs",
                                                  needed, format_name, n));
                const auto w = parse_number(word);
                if (!w) fail(line.number, fmt::format("non-numeric edge weight '{}'", word));
                weights.push_back(*w);
            }
        }
        if (weights.size() != needed)
            fail(0, fmt::format("EDGE_WEIGHT_SECTION has {} weights, {} with DIMENSION {} needs "
                                "{}",
                                weights.size(), format_name, n, needed));
        std::vector<double> matrix = fill_matrix(*format, n, weights);
        if (*format == WeightFormat::full_matrix) check_symmetric(matrix, n);
        return matrix;
    }

    void check_symmetric(const std::vector<double>& matrix, std::size_t n) const {
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = i + 1; j < n; ++j)
                if (matrix[i * n + j] != matrix[j * n + i])
                    fail(0, fmt::format("FULL_MATRIX is not symmetric: weight({},{}) = {} but "
                                        "weight({},{}) = {}",
                                        i + 1, j + 1, format_number(matrix[i * n + j]), j + 1,
                                        i + 1, format_number(matrix[j * n + i])));
    }

    /// The instance with the depot as node 0 and the customers in file order, with distances.
    Instance renumber(const Instance& file, std::size_t depot,
                      const std::vector<double>& matrix) const {
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
        }
        const Rounding rounding = resolve_rounding(rounding_, instance.name);
        if (matrix.empty()) {
            compute_distances(instance, rounding);
            return instance;
        }
        instance.rounding = rounding;
        instance.dist.assign(n * n, 0.0);
        for (std::size_t a = 0; a < n; ++a)
            for (std::size_t b = 0; b < n; ++b)
                instance.dist[a * n + b] = matrix[order[a] * n + order[b]];
        return instance;
    }

    std::vector<Line> lines_;
    const std::string& source_;
    RoundingOption rounding_;
    Header name_, type_, dimension_, capacity_, distance_, service_time_, vehicles_,
        edge_weight_type_, edge_weight_format_;
    Section coords_, demands_, depots_, weights_;
};

} // namespace

Instance parse_cvrplib(std::string_view text, const std::string& source, RoundingOption rounding) {
    return CvrplibParser(text, source, rounding).parse();
}

Instance read_cvrplib(const std::filesystem::path& path, RoundingOption rounding) {
    const std::string source = path.string();
    return parse_cvrplib(read_text_file(path, "instance"), source, rounding);
}

} // namespace locus::dcvrp
