#include "locus/tsp/tsplib.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/formats/keyed_file.hpp"
#include "locus/formats/weight_matrix.hpp"
#include "locus/text.hpp"

namespace locus::tsp {

namespace {

using formats::KeyedFile;
using formats::KeyedLine;

/// What a .tsp file is read for. NOTE: other keys (DISPLAY_DATA_TYPE, EDGE_DATA_FORMAT, ...)
/// do not change the distances of a TSP and are ignored.
formats::KeyedLayout tsplib_layout() {
    return {
        {"NAME", "TYPE", "DIMENSION", "EDGE_WEIGHT_TYPE", "EDGE_WEIGHT_FORMAT", "NODE_COORD_TYPE"},
        {"COMMENT"},
        {"NODE_COORD_SECTION", "EDGE_WEIGHT_SECTION"}};
}

void check_type(const KeyedFile& file) {
    // NOTE: a file without TYPE is read as a TSP.
    const formats::KeyedValue& type = file.value("TYPE");
    if (type.value == "ATSP")
        file.fail(type.line, "unsupported TYPE 'ATSP': asymmetric instances are not supported "
                             "(supported: TSP)");
    file.choice("TYPE", {"TSP"}, 0);
}

std::size_t dimension(const KeyedFile& file) {
    const std::int64_t value = file.whole_number("DIMENSION");
    const std::size_t line = file.value("DIMENSION").line;
    if (value < 3)
        file.fail(line,
                  fmt::format("DIMENSION {} is too small (a tour needs at least 3 cities)", value));
    if (value > std::numeric_limits<std::int32_t>::max())
        file.fail(line, fmt::format("DIMENSION {} is too large (at most {})", value,
                                    std::numeric_limits<std::int32_t>::max()));
    return static_cast<std::size_t>(value);
}

EdgeWeightType edge_weight_type(const KeyedFile& file) {
    file.required("EDGE_WEIGHT_TYPE");
    static constexpr EdgeWeightType kTypes[] = {EdgeWeightType::euc_2d, EdgeWeightType::ceil_2d,
                                                EdgeWeightType::att, EdgeWeightType::geo,
                                                EdgeWeightType::explicit_matrix};
    return kTypes[file.choice("EDGE_WEIGHT_TYPE", {"EUC_2D", "CEIL_2D", "ATT", "GEO", "EXPLICIT"},
                              0)];
}

void read_coordinates(const KeyedFile& file, Instance& instance) {
    file.choice("NODE_COORD_TYPE", {"TWOD_COORDS"}, 0);
    const bool geo = instance.type == EdgeWeightType::geo;
    // GEO: latitude and longitude in DDD.MM (degrees and minutes); beyond the sphere the
    // distance formula returns numbers that are no distances (latitude 1e300).
    const auto check_geo = [&](std::size_t index, const KeyedLine& line,
                               std::span<const std::string_view> words, double x, double y) {
        const bool latitude = std::abs(x) > 90.0;
        if (!geo || (!latitude && std::abs(y) <= 180.0)) return;
        file.fail(line.number,
                  fmt::format("node {}: GEO {} {} is out of range [{}, {}] (DDD.MM degrees and "
                              "minutes)",
                              index + 1, latitude ? "latitude" : "longitude",
                              latitude ? words[1] : words[2], latitude ? -90 : -180,
                              latitude ? 90 : 180));
    };
    auto coordinates =
        file.coordinates(file.required_section("NODE_COORD_SECTION"), instance.n, check_geo);
    instance.x = std::move(coordinates.x);
    instance.y = std::move(coordinates.y);
}

void read_weights(const KeyedFile& file, Instance& instance) {
    const formats::WeightFormat format = formats::explicit_format(file);
    const std::size_t n = instance.n;
    if (n > kMaxMatrixCities)
        file.fail(0, fmt::format("{} cities are too many for a full distance matrix (EXPLICIT "
                                 "instances are limited to {} cities)",
                                 n, kMaxMatrixCities));
    const auto to_distance = [&](double w, std::string_view word, const KeyedLine& line) {
        if (std::floor(w) != w || std::fabs(w) > std::numeric_limits<std::int32_t>::max())
            file.fail(line.number, fmt::format("edge weight '{}' is not a 32-bit integer", word));
        // Negative weights are no distances: the candidate lists, the 2-opt and Or-opt bounds
        // and the lower bounds all assume d >= 0.
        if (w < 0)
            file.fail(
                line.number,
                fmt::format("edge weight '{}' is negative (TSP weights are distances)", word));
        return static_cast<std::int32_t>(w);
    };
    instance.matrix = formats::read_weight_matrix<std::int32_t>(
        file, format, n, to_distance, "TYPE TSP needs symmetric distances");
}

} // namespace

Instance parse_tsplib(std::string_view text, const std::string& source) {
    const KeyedFile file(text, source, tsplib_layout());
    check_type(file);
    Instance instance;
    instance.n = dimension(file);
    instance.type = edge_weight_type(file);
    // NOTE: some files (ulysses16/22) write the file name; the instance is "ulysses16".
    instance.name = file.name(".tsp");
    const auto& comments = file.list("COMMENT");
    for (std::size_t i = 0; i < comments.size(); ++i)
        instance.comment += (i == 0 ? "" : "; ") + std::string(comments[i].value);
    if (instance.type == EdgeWeightType::explicit_matrix)
        read_weights(file, instance);
    else
        read_coordinates(file, instance);
    prepare_metric(instance, source);
    return instance;
}

Instance read_tsplib(const std::filesystem::path& path) {
    const std::string source = path.string();
    return parse_tsplib(read_text_file(path, "instance"), source);
}

} // namespace locus::tsp
