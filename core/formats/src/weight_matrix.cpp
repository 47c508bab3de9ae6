// EDGE_WEIGHT_FORMAT names and the reading of EDGE_WEIGHT_SECTION weights.

#include "locus/formats/weight_matrix.hpp"

#include "locus/search_context.hpp"
#include "locus/text.hpp"

namespace locus::formats {

std::optional<WeightFormat> weight_format(std::string_view name) {
    if (name == "FULL_MATRIX") return WeightFormat::full_matrix;
    // NOTE: for a symmetric matrix, listing the upper triangle column by column gives the same
    // stream as listing the lower triangle row by row (and vice versa).
    if (name == "UPPER_ROW" || name == "LOWER_COL") return WeightFormat::upper_row;
    if (name == "LOWER_ROW" || name == "UPPER_COL") return WeightFormat::lower_row;
    if (name == "UPPER_DIAG_ROW" || name == "LOWER_DIAG_COL") return WeightFormat::upper_diag_row;
    if (name == "LOWER_DIAG_ROW" || name == "UPPER_DIAG_COL") return WeightFormat::lower_diag_row;
    return std::nullopt;
}

std::size_t weight_count(WeightFormat format, std::size_t n) {
    switch (format) {
    case WeightFormat::full_matrix:
        return n * n;
    case WeightFormat::upper_row:
    case WeightFormat::lower_row:
        return n * (n - 1) / 2;
    case WeightFormat::upper_diag_row:
    case WeightFormat::lower_diag_row:
        return n * (n + 1) / 2;
    }
    return 0;
}

WeightFormat explicit_format(const KeyedFile& file) {
    const KeyedValue& name = file.value("EDGE_WEIGHT_FORMAT");
    if (!name.present()) file.fail(0, "EDGE_WEIGHT_TYPE EXPLICIT needs an EDGE_WEIGHT_FORMAT");
    const auto format = weight_format(name.value);
    if (!format)
        file.fail(name.line,
                  fmt::format("unsupported EDGE_WEIGHT_FORMAT '{}' (supported: FULL_MATRIX, "
                              "UPPER_ROW, LOWER_ROW, UPPER_DIAG_ROW, LOWER_DIAG_ROW, UPPER_COL, "
                              "LOWER_COL, UPPER_DIAG_COL, LOWER_DIAG_COL)",
                              name.value));
    return *format;
}

void for_each_weight(const KeyedFile& file, WeightFormat format, std::size_t n,
                     const std::function<void(double, std::string_view, const KeyedLine&)>& take) {
    const KeyedSection& section = file.required_section("EDGE_WEIGHT_SECTION");
    const std::string_view format_name = file.value("EDGE_WEIGHT_FORMAT").value;
    const std::size_t needed = weight_count(format, n);
    std::size_t count = 0;
    for (const KeyedLine& line : file.data(section)) {
        for (const std::string_view word : split_words(line.text)) {
            if (count == needed)
                file.fail(line.number, fmt::format("EDGE_WEIGHT_SECTION has more than the {} "
                                                   "weights that {} with DIMENSION {} needs",
                                                   needed, format_name, n));
            const auto weight = parse_number(word);
            if (!weight) file.fail(line.number, fmt::format("non-numeric edge weight '{}'", word));
            take(*weight, word, line);
            // The stop flag every 2^20 weights (a matrix of 10^4 cities has 10^8).
            if ((++count & 0xFFFFF) == 0) throw_if_stopped();
        }
    }
    if (count != needed)
        file.fail(0,
                  fmt::format("EDGE_WEIGHT_SECTION has {} weights, {} with DIMENSION {} needs {}",
                              count, format_name, n, needed));
}

} // namespace locus::formats
