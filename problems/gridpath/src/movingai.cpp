#include "locus/gridpath/movingai.hpp"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/text.hpp"
#include "locus/text.hpp"

namespace locus::gridpath {

namespace {

constexpr std::string_view kCellLegend = "(passable: . G S; blocked: @ O T W)";
constexpr std::string_view kScenarioFields =
    "bucket map width height start_x start_y goal_x goal_y optimal_length";

/// One line of a text file, without its terminator and trailing blanks.
struct Line {
    std::size_t number = 0; ///< 1-based
    std::string_view text;
};

/// All lines of `text` (LF or CRLF; a leading UTF-8 byte order mark is
/// skipped), trailing blanks removed; no empty last line after a final
/// terminator.
std::vector<Line> split_lines(std::string_view text) {
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
    std::vector<Line> lines;
    std::size_t number = 0;
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
        while (!line.empty() && is_blank(line.back()))
            line.remove_suffix(1);
        lines.push_back(Line{++number, line});
    }
    return lines;
}

/// Fields of a scenario row: tab-separated when the row holds a tab (then a
/// field may contain spaces), blank-separated otherwise.
std::vector<std::string_view> split_fields(std::string_view line) {
    if (line.find('\t') == std::string_view::npos) return split_words(line);
    std::vector<std::string_view> fields;
    while (true) {
        const std::size_t tab = line.find('\t');
        fields.push_back(trim(line.substr(0, tab)));
        if (tab == std::string_view::npos) break;
        line.remove_prefix(tab + 1);
    }
    return fields;
}

std::optional<std::int32_t> parse_int(std::string_view word) {
    std::int32_t value = 0;
    const char* end = word.data() + word.size();
    const auto [ptr, ec] = std::from_chars(word.data(), end, value);
    if (word.empty() || ec != std::errc() || ptr != end) return std::nullopt;
    return value;
}

std::optional<double> parse_real(std::string_view word) {
    double value = 0;
    const char* end = word.data() + word.size();
    const auto [ptr, ec] = std::from_chars(word.data(), end, value);
    if (word.empty() || ec != std::errc() || ptr != end) return std::nullopt;
    return value;
}

/// A cell character as quoted in messages: itself when printable ASCII, else
/// \xHH.
std::string printable(char c) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7F) return std::string(1, c);
    return fmt::format("\\x{:02X}", byte);
}

/// Cell value of a map character: 0 free, 1 blocked, nullopt unknown.
std::optional<std::uint8_t> cell_value(char c) {
    switch (c) {
    case '.':
    case 'G':
    case 'S':
        return std::uint8_t{0};
    case '@':
    case 'O':
    case 'T':
    case 'W':
        return std::uint8_t{1};
    default:
        return std::nullopt;
    }
}

class MapParser {
public:
    MapParser(std::string_view text, const std::string& source)
        : source_(source), lines_(split_lines(text)) {}

    Grid parse() {
        const Line* line = next_header();
        if (line == nullptr)
            throw InstanceError(
                fmt::format("{}: empty file (expected 'type octile' on the first line)", source_));
        std::vector<std::string_view> words = split_words(line->text);
        if (words.size() != 2 || words[0] != "type")
            throw at(*line, fmt::format("expected 'type octile', found '{}'", trim(line->text)));
        if (words[1] != "octile")
            throw at(*line,
                     fmt::format("unsupported map type '{}' (expected 'type octile')", words[1]));
        std::optional<std::int32_t> height;
        std::optional<std::int32_t> width;
        while (!height || !width) {
            line = next_header();
            if (line == nullptr) throw end_of_header();
            words = split_words(line->text);
            const bool is_height = words.size() == 2 && words[0] == "height";
            const bool is_width = words.size() == 2 && words[0] == "width";
            if (!is_height && !is_width)
                throw at(*line, fmt::format("expected 'height <rows>' or 'width <columns>', "
                                            "found '{}'",
                                            trim(line->text)));
            std::optional<std::int32_t>& slot = is_height ? height : width;
            if (slot) throw at(*line, fmt::format("'{}' given twice", words[0]));
            slot = parse_int(words[1]);
            if (!slot || *slot < 1 || *slot > kMaxMapSide)
                throw at(*line, fmt::format("{} '{}' is not an integer in 1..{}", words[0],
                                            words[1], kMaxMapSide));
        }
        Grid grid;
        grid.width = *width;
        grid.height = *height;
        if (grid.cell_count() > kMaxMapCells)
            throw at(*line, fmt::format("a {}x{} map has more than {} cells", grid.width,
                                        grid.height, kMaxMapCells));
        line = next_header();
        if (line == nullptr) throw end_of_header();
        if (trim(line->text) != "map")
            throw at(*line, fmt::format("expected 'map', found '{}'", trim(line->text)));
        read_rows(grid);
        return grid;
    }

private:
    /// Next non-blank line, or nullptr at the end of the text.
    const Line* next_header() {
        while (next_ < lines_.size() && trim(lines_[next_].text).empty())
            ++next_;
        if (next_ == lines_.size()) return nullptr;
        return &lines_[next_++];
    }

    void read_rows(Grid& grid) {
        grid.blocked.resize(grid.cell_count());
        const auto width = static_cast<std::size_t>(grid.width);
        for (std::int32_t row = 0; row < grid.height; ++row) {
            if (next_ == lines_.size())
                throw InstanceError(fmt::format("{}: the map ends after {} rows, height is {}",
                                                source_, row, grid.height));
            const Line& line = lines_[next_++];
            if (line.text.size() != width)
                throw at(line, fmt::format("row {} has {} cells, width is {}", row + 1,
                                           line.text.size(), grid.width));
            for (std::size_t column = 0; column < width; ++column) {
                const std::optional<std::uint8_t> value = cell_value(line.text[column]);
                if (!value)
                    throw at(line,
                             fmt::format("row {}, column {}: unknown cell '{}' {}", row + 1,
                                         column + 1, printable(line.text[column]), kCellLegend));
                grid.blocked[static_cast<std::size_t>(row) * width + column] = *value;
            }
        }
        for (; next_ < lines_.size(); ++next_)
            if (!lines_[next_].text.empty())
                throw at(lines_[next_],
                         fmt::format("unexpected line after the {} rows of the map", grid.height));
    }

    InstanceError at(const Line& line, const std::string& message) const {
        return InstanceError(fmt::format("{}:{}: {}", source_, line.number, message));
    }

    InstanceError end_of_header() const {
        return InstanceError(fmt::format("{}: the file ends inside the header (expected "
                                         "'height <rows>', 'width <columns>' and 'map')",
                                         source_));
    }

    const std::string& source_;
    std::vector<Line> lines_;
    std::size_t next_ = 0;
};

} // namespace

Grid parse_map(std::string_view text, const std::string& source) {
    return MapParser(text, source).parse();
}

Grid read_map(const std::filesystem::path& path) {
    return parse_map(read_text_file(path, "map"), path.string());
}

std::vector<Agent> parse_scenario(std::string_view text, const std::string& source,
                                  const Grid& grid, std::size_t max_agents) {
    const std::vector<Line> lines = split_lines(text);
    auto at = [&](const Line& line, const std::string& message) {
        return InstanceError(fmt::format("{}:{}: {}", source, line.number, message));
    };
    std::size_t next = 0;
    while (next < lines.size() && trim(lines[next].text).empty())
        ++next;
    if (next == lines.size())
        throw InstanceError(
            fmt::format("{}: empty file (expected 'version 1' on the first line)", source));
    {
        const Line& line = lines[next++];
        const std::vector<std::string_view> words = split_words(line.text);
        if (words.size() != 2 || words[0] != "version" || (words[1] != "1" && words[1] != "1.0"))
            throw at(line, fmt::format("expected 'version 1' on the first line, found '{}'",
                                       trim(line.text)));
    }
    const std::vector<std::int32_t> region = region_labels(grid);
    std::unordered_map<std::size_t, std::size_t> start_line; // cell -> line of its agent
    std::unordered_map<std::size_t, std::size_t> goal_line;
    std::vector<Agent> agents;
    for (; next < lines.size() && (max_agents == 0 || agents.size() < max_agents); ++next) {
        const Line& line = lines[next];
        if (trim(line.text).empty()) continue;
        const std::vector<std::string_view> fields = split_fields(trim(line.text));
        if (fields.size() != 9)
            throw at(line, fmt::format("expected 9 fields ({}), found {}", kScenarioFields,
                                       fields.size()));
        auto integer = [&](std::size_t i, std::string_view what) {
            const std::optional<std::int32_t> value = parse_int(fields[i]);
            if (!value) throw at(line, fmt::format("{} '{}' is not an integer", what, fields[i]));
            return *value;
        };
        integer(0, "bucket");
        const std::int32_t width = integer(2, "width");
        const std::int32_t height = integer(3, "height");
        const Agent agent{integer(4, "start_x"), integer(5, "start_y"), integer(6, "goal_x"),
                          integer(7, "goal_y")};
        if (!parse_real(fields[8]))
            throw at(line, fmt::format("optimal_length '{}' is not a number", fields[8]));
        if (width != grid.width || height != grid.height)
            throw at(line, fmt::format("the scenario is for a {}x{} map (width x height), the map "
                                       "is {}x{}",
                                       width, height, grid.width, grid.height));
        auto check_cell = [&](std::string_view what, std::int32_t x, std::int32_t y,
                              std::unordered_map<std::size_t, std::size_t>& seen) {
            if (!grid.contains(x, y))
                throw at(line, fmt::format("{} ({}, {}) is outside the {}x{} map", what, x, y,
                                           grid.width, grid.height));
            if (!grid.passable(x, y))
                throw at(line, fmt::format("{} ({}, {}) is on a blocked cell", what, x, y));
            const auto [it, fresh] = seen.emplace(grid.index(x, y), line.number);
            if (!fresh)
                throw at(line, fmt::format("{} ({}, {}) is also the {} of the agent on line {}",
                                           what, x, y, what, it->second));
        };
        check_cell("start", agent.start_x, agent.start_y, start_line);
        check_cell("goal", agent.goal_x, agent.goal_y, goal_line);
        if (region[grid.index(agent.start_x, agent.start_y)] !=
            region[grid.index(agent.goal_x, agent.goal_y)])
            throw at(line, fmt::format("goal ({}, {}) is not reachable from start ({}, {}) by "
                                       "4-connected moves",
                                       agent.goal_x, agent.goal_y, agent.start_x, agent.start_y));
        agents.push_back(agent);
    }
    if (agents.empty())
        throw InstanceError(fmt::format("{}: no agents (no rows after 'version 1')", source));
    return agents;
}

std::vector<Agent> read_scenario(const std::filesystem::path& path, const Grid& grid,
                                 std::size_t max_agents) {
    return parse_scenario(read_text_file(path, "scenario"), path.string(), grid, max_agents);
}

Instance load_instance(const std::filesystem::path& map_path,
                       const std::filesystem::path& scen_path, std::size_t agents) {
    Instance instance;
    instance.grid = read_map(map_path);
    instance.agents = read_scenario(scen_path, instance.grid, agents);
    if (agents > 0 && instance.agents.size() < agents)
        throw InstanceError(fmt::format("{}: {} agents requested, the scenario has only {}",
                                        scen_path.string(), agents, instance.agents.size()));
    instance.name = fmt::format("{}, {} agent{}", locus::printable(scen_path.filename().string()),
                                instance.agents.size(), instance.agents.size() == 1 ? "" : "s");
    return instance;
}

} // namespace locus::gridpath
