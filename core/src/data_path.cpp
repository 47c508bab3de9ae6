#include "locus/data_path.hpp"
#include "locus/program_directory.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/text.hpp"

namespace locus {

namespace fs = std::filesystem;

namespace {
fs::path& config_directory() {
    static fs::path dir;
    return dir;
}
} // namespace

void set_config_directory(const fs::path& dir) { config_directory() = dir; }

std::vector<fs::path> data_directories() {
    std::vector<fs::path> dirs;
    if (!config_directory().empty()) dirs.push_back(config_directory());
    if (const char* env = std::getenv("LOCUS_DATA")) {
        std::stringstream ss(env);
        std::string dir;
        while (std::getline(ss, dir, ':'))
            if (!dir.empty()) dirs.emplace_back(dir);
    }
    dirs.emplace_back("data");
    // The data that ships with locus: <prefix>/share/locus/data beside an installed launcher,
    // else the data/ folder of the source tree this build came from.
    std::error_code error;
    const fs::path program = program_directory();
    if (!program.empty()) {
        const fs::path installed = (program / LOCUS_RELATIVE_DATA_DIR).lexically_normal();
        if (fs::is_directory(installed, error)) dirs.push_back(installed);
    }
    const fs::path source_data(LOCUS_SOURCE_DATA_DIR);
    if (fs::is_directory(source_data, error)) dirs.push_back(source_data);
    return dirs;
}

namespace {
/// A file that can be read: a regular file, or a pipe or device (`/dev/stdin`, `<(...)`).
bool readable_file(const fs::path& path) {
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    return !ec && fs::exists(status) && !fs::is_directory(status);
}
} // namespace

fs::path resolve_data_file(const std::string& spec, const std::string& what) {
    const fs::path given(spec);
    if (readable_file(given)) return given;
    std::vector<std::string> looked{spec};
    if (given.is_relative()) {
        for (const auto& dir : data_directories()) {
            const fs::path candidate = dir / given;
            if (readable_file(candidate)) return candidate;
            looked.push_back(candidate.string());
        }
    }
    throw InstanceError(fmt::format("{} '{}' not found (looked in: {})", what, spec,
                                    fmt::join(looked, ", ")));
}

namespace {
std::vector<std::string> split_csv_line(const std::string& line) {
    std::vector<std::string> fields;
    std::string field;
    bool quoted = false;
    for (char c : line) {
        if (c == '"') quoted = !quoted;
        else if (c == ',' && !quoted) {
            fields.push_back(field);
            field.clear();
        } else if (c != '\r')
            field += c;
    }
    fields.push_back(field);
    return fields;
}
std::string stem_of(const std::string& name) {
    const auto slash = name.find_last_of('/');
    std::string base = slash == std::string::npos ? name : name.substr(slash + 1);
    const auto dot = base.find('.');
    return dot == std::string::npos ? base : base.substr(0, dot);
}
} // namespace

BestKnownTable BestKnownTable::load(const fs::path& file) {
    // NOTE: read whole through read_text_file: a device (/dev/zero) is refused unread and the
    // size is bounded like any data file.
    std::istringstream in(read_text_file(file, "best-known table"));
    BestKnownTable table;
    table.source_ = file;
    std::string line;
    if (!std::getline(in, line))
        throw InstanceError(fmt::format("{}: empty best-known table", file.string()));
    const auto header = split_csv_line(line);
    int instance_col = -1, value_col = -1, optimal_col = -1;
    for (std::size_t i = 0; i < header.size(); ++i) {
        if (header[i] == "instance") instance_col = static_cast<int>(i);
        if (header[i] == "best_known") value_col = static_cast<int>(i);
        if (header[i] == "optimal") optimal_col = static_cast<int>(i);
    }
    if (instance_col < 0 || value_col < 0)
        throw InstanceError(fmt::format(
            "{}:1: best-known table needs the columns 'instance' and 'best_known'", file.string()));
    int line_no = 1;
    while (std::getline(in, line)) {
        ++line_no;
        if (line.empty() || line == "\r") continue;
        const auto fields = split_csv_line(line);
        const auto need = static_cast<std::size_t>(std::max(instance_col, value_col));
        if (fields.size() <= need)
            throw InstanceError(fmt::format("{}:{}: too few columns", file.string(), line_no));
        const std::string& text = fields[static_cast<std::size_t>(value_col)];
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || end == text.c_str() || *end != '\0')
            throw InstanceError(fmt::format("{}:{}: best_known '{}' is not a number",
                                            file.string(), line_no, text));
        table.values_.emplace_back(fields[static_cast<std::size_t>(instance_col)], value);
        if (optimal_col >= 0 && static_cast<std::size_t>(optimal_col) < fields.size()) {
            const std::string& flag = fields[static_cast<std::size_t>(optimal_col)];
            if (flag == "yes" || flag == "optimal")
                table.optimal_.push_back(fields[static_cast<std::size_t>(instance_col)]);
        }
    }
    return table;
}

BestKnownTable BestKnownTable::find(const std::string& file) {
    if (!file.empty()) return load(resolve_data_file(file, "best-known table"));
    for (const auto& dir : data_directories()) {
        const fs::path candidate = dir / "best-known.csv";
        if (fs::is_regular_file(candidate)) return load(candidate);
    }
    return {};
}

bool BestKnownTable::optimal(const std::string& instance) const {
    return std::find(optimal_.begin(), optimal_.end(), stem_of(instance)) != optimal_.end();
}

std::optional<Objective> BestKnownTable::lookup(const std::string& instance) const {
    const std::string key = stem_of(instance);
    for (const auto& [name, value] : values_)
        if (name == key) return value;
    return std::nullopt;
}

} // namespace locus
