#include "locus/tsp/tsplib.hpp"
#include "locus/weight_matrix.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/text.hpp"

namespace locus::tsp {

namespace {

/// Layout of the numbers of an EDGE_WEIGHT_SECTION (column formats map to their row twins).

using Header = KeyedHeader;
using Section = KeyedSection;

class TsplibParser {
public:
    TsplibParser(std::string_view text, const std::string& source)
        : lines_(split_tsplib_lines(text)), source_(source) {}

    Instance parse() {
        scan();
        check_type();
        Instance instance;
        instance.n = dimension();
        instance.type = edge_weight_type();
        instance.name = instance_name();
        for (std::size_t i = 0; i < comments_.size(); ++i)
            instance.comment += (i == 0 ? "" : "; ") + std::string(comments_[i]);
        if (instance.type == EdgeWeightType::explicit_matrix)
            read_weights(instance);
        else
            read_coordinates(instance);
        prepare_metric(instance, source_);
        return instance;
    }

private:
    [[noreturn]] void fail(std::size_t line, const std::string& message) const {
        if (line == 0) throw InstanceError(fmt::format("{}: {}", source_, message));
        throw InstanceError(fmt::format("{}:{}: {}", source_, line, message));
    }

    void set(Header& header, const TsplibLine& line) { set_keyed_header(header, line, source_); }

    /// Records headers and section ranges (scan_keyed_file).
    void scan() {
        const auto section_of = [this](std::string_view key) -> Section* {
            return key == "NODE_COORD_SECTION"    ? &coords_
                   : key == "EDGE_WEIGHT_SECTION" ? &weights_
                                                  : nullptr;
        };
        scan_keyed_file(lines_, source_, section_of, [this](const auto& line) {
            if (line.key == "NAME")
                set(name_, line);
            else if (line.key == "TYPE")
                set(type_, line);
            else if (line.key == "DIMENSION")
                set(dimension_, line);
            else if (line.key == "EDGE_WEIGHT_TYPE")
                set(edge_weight_type_, line);
            else if (line.key == "EDGE_WEIGHT_FORMAT")
                set(edge_weight_format_, line);
            else if (line.key == "NODE_COORD_TYPE")
                set(node_coord_type_, line);
            else if (line.key == "COMMENT")
                comments_.push_back(line.value);
            // NOTE: other keys (DISPLAY_DATA_TYPE, EDGE_DATA_FORMAT, ...) do not change the
            // distances of a TSP and are ignored.
        });
    }

    void check_type() const {
        if (type_.line == 0) return; // NOTE: a file without TYPE is read as a TSP
        if (type_.value == "TSP") return;
        if (type_.value == "ATSP")
            fail(type_.line, "unsupported TYPE 'ATSP': asymmetric instances are not supported "
                             "(supported: TSP)");
        fail(type_.line, fmt::format("unsupported TYPE '{}' (supported: TSP)", type_.value));
    }

    std::size_t dimension() const {
        if (dimension_.line == 0) fail(0, "missing DIMENSION");
        const auto value = parse_integer(dimension_.value);
        if (!value)
            fail(dimension_.line,
                 fmt::format("DIMENSION must be a whole number, got '{}'", dimension_.value));
        if (*value < 3)
            fail(dimension_.line,
                 fmt::format("DIMENSION {} is too small (a tour needs at least 3 cities)", *value));
        if (*value > std::numeric_limits<std::int32_t>::max())
            fail(dimension_.line, fmt::format("DIMENSION {} is too large (at most {})", *value,
                                              std::numeric_limits<std::int32_t>::max()));
        return static_cast<std::size_t>(*value);
    }

    EdgeWeightType edge_weight_type() const {
        if (edge_weight_type_.line == 0) fail(0, "missing EDGE_WEIGHT_TYPE");
        const std::string_view t = edge_weight_type_.value;
        if (t == "EUC_2D") return EdgeWeightType::euc_2d;
        if (t == "CEIL_2D") return EdgeWeightType::ceil_2d;
        if (t == "ATT") return EdgeWeightType::att;
        if (t == "GEO") return EdgeWeightType::geo;
        if (t == "EXPLICIT") return EdgeWeightType::explicit_matrix;
        fail(edge_weight_type_.line,
             fmt::format("unsupported EDGE_WEIGHT_TYPE '{}' (supported: EUC_2D, CEIL_2D, ATT, "
                         "GEO, EXPLICIT)",
                         t));
    }

    std::string instance_name() const {
        std::string_view name = name_.value;
        // NOTE: some files (ulysses16/22) write the file name; the instance is "ulysses16".
        if (name.ends_with(".tsp")) name.remove_suffix(4);
        // NOTE: printable: a NAME reaches results lines and terminals (raw bytes, invalid UTF-8).
        if (!name.empty()) return printable(name);
        return printable(std::filesystem::path(source_).stem().string());
    }

    void read_coordinates(Instance& instance) const {
        const std::string_view coord_type = node_coord_type_.value;
        if (node_coord_type_.line != 0 && coord_type != "TWOD_COORDS")
            fail(node_coord_type_.line,
                 fmt::format("unsupported NODE_COORD_TYPE '{}' (supported: TWOD_COORDS)",
                             coord_type));
        if (coords_.line == 0) fail(0, "missing NODE_COORD_SECTION");
        const std::size_t n = instance.n;
        // NOTE: checked before anything of size n is allocated: a DIMENSION of 2^31 - 1 in a
        // small file is an error, not an allocation failure.
        if (coords_.end - coords_.begin != n)
            fail(0, fmt::format("NODE_COORD_SECTION has {} nodes, DIMENSION says {}",
                                coords_.end - coords_.begin, n));
        instance.x.assign(n, 0.0);
        instance.y.assign(n, 0.0);
        std::vector<std::size_t> seen(n, 0);
        std::size_t count = 0;
        for (std::size_t i = coords_.begin; i < coords_.end; ++i) {
            const TsplibLine& line = lines_[i];
            const auto words = split_words(line.text);
            const auto id = parse_integer(words[0]);
            if (!id) fail(line.number, fmt::format("non-numeric node id '{}'", words[0]));
            if (words.size() != 3)
                fail(line.number,
                     fmt::format("node {}: expected 'id x y', found {} values", *id, words.size()));
            if (*id < 1 || static_cast<std::size_t>(*id) > n)
                fail(line.number, fmt::format("node id {} out of range 1..{}", *id, n));
            const auto city = static_cast<std::size_t>(*id - 1);
            if (seen[city] != 0)
                fail(line.number,
                     fmt::format("duplicate node id {} (first on line {})", *id, seen[city]));
            seen[city] = line.number;
            const auto x = parse_number(words[1]);
            const auto y = parse_number(words[2]);
            if (!x || !y)
                fail(line.number, fmt::format("node {}: non-numeric coordinate '{}'", *id,
                                              x ? words[2] : words[1]));
            if (!std::isfinite(*x) || !std::isfinite(*y))
                fail(line.number, fmt::format("node {}: coordinates must be finite", *id));
            // GEO: latitude and longitude in DDD.MM (degrees and minutes); beyond the sphere the
            // distance formula returns numbers that are no distances (latitude 1e300).
            const bool latitude = std::abs(*x) > 90.0;
            if (instance.type == EdgeWeightType::geo && (latitude || std::abs(*y) > 180.0))
                fail(line.number,
                     fmt::format("node {}: GEO {} {} is out of range [{}, {}] (DDD.MM degrees and "
                                 "minutes)",
                                 *id, latitude ? "latitude" : "longitude",
                                 latitude ? words[1] : words[2], latitude ? -90 : -180,
                                 latitude ? 90 : 180));
            instance.x[city] = *x;
            instance.y[city] = *y;
            ++count;
        }
        if (count != n)
            fail(0, fmt::format("NODE_COORD_SECTION has {} nodes, DIMENSION says {}", count, n));
    }

    void read_weights(Instance& instance) const {
        if (edge_weight_format_.line == 0)
            fail(0, "EDGE_WEIGHT_TYPE EXPLICIT needs an EDGE_WEIGHT_FORMAT");
        const std::string_view format_name = edge_weight_format_.value;
        const auto format = weight_format(format_name);
        if (!format)
            fail(edge_weight_format_.line,
                 fmt::format("unsupported EDGE_WEIGHT_FORMAT '{}' (supported: FULL_MATRIX, "
                             "UPPER_ROW, LOWER_ROW, UPPER_DIAG_ROW, LOWER_DIAG_ROW, UPPER_COL, "
                             "LOWER_COL, UPPER_DIAG_COL, LOWER_DIAG_COL)",
                             format_name));
        const std::size_t n = instance.n;
        if (n > kMaxMatrixCities)
            fail(0, fmt::format("{} cities are too many for a full distance matrix (EXPLICIT "
                                "instances are limited to {} cities)",
                                n, kMaxMatrixCities));
        if (weights_.line == 0) fail(0, "missing EDGE_WEIGHT_SECTION");
        const std::size_t needed = weight_count(*format, n);
        std::vector<std::int32_t> weights;
        weights.reserve(needed);
        for (std::size_t i = weights_.begin; i < weights_.end; ++i) {
            const TsplibLine& line = lines_[i];
            for (const std::string_view word : split_words(line.text)) {
                if (weights.size() == needed)
                    fail(line.number,
                         fmt::format("EDGE_WEIGHT_SECTION has more than the {} weights that {} "
                                     "with DIMENSION {} needs",
                                     needed, format_name, n));
                const auto w = parse_number(word);
                if (!w) fail(line.number, fmt::format("non-numeric edge weight '{}'", word));
                if (std::floor(*w) != *w ||
                    std::fabs(*w) > std::numeric_limits<std::int32_t>::max())
                    fail(line.number,
                         fmt::format("edge weight '{}' is not a 32-bit integer", word));
                // Negative weights are no distances: the candidate lists, the 2-opt and Or-opt
                // bounds and the lower bounds all assume d >= 0.
                if (*w < 0)
                    fail(line.number,
                         fmt::format("edge weight '{}' is negative (TSP weights are distances)",
                                     word));
                weights.push_back(static_cast<std::int32_t>(*w));
            }
        }
        if (weights.size() != needed)
            fail(0, fmt::format("EDGE_WEIGHT_SECTION has {} weights, {} with DIMENSION {} needs {}",
                                weights.size(), format_name, n, needed));
        fill_weight_matrix(*format, n, weights, instance.matrix);
        if (*format == WeightFormat::full_matrix) check_symmetric(instance);
    }

    void check_symmetric(const Instance& instance) const {
        const std::size_t n = instance.n;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = i + 1; j < n; ++j)
                if (instance.matrix[i * n + j] != instance.matrix[j * n + i])
                    fail(0, fmt::format("FULL_MATRIX is not symmetric: weight({},{}) = {} but "
                                        "weight({},{}) = {} (TYPE TSP needs symmetric distances)",
                                        i + 1, j + 1, instance.matrix[i * n + j], j + 1, i + 1,
                                        instance.matrix[j * n + i]));
    }

    std::vector<TsplibLine> lines_;
    const std::string& source_;
    Header name_, type_, dimension_, edge_weight_type_, edge_weight_format_, node_coord_type_;
    std::vector<std::string_view> comments_;
    Section coords_, weights_;
};

} // namespace

Instance parse_tsplib(std::string_view text, const std::string& source) {
    return TsplibParser(text, source).parse();
}

Instance read_tsplib(const std::filesystem::path& path) {
    const std::string source = path.string();
    return parse_tsplib(read_text_file(path, "instance"), source);
}

} // namespace locus::tsp
