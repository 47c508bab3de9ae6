// The results file of an experiment (see experiment_results.hpp).

#include "experiment_results.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "launcher.hpp"
#include "locus/error.hpp"

namespace locus::app {
namespace {

namespace fs = std::filesystem;

/// DIR/results.jsonl, where it exists, must be a regular file: it is appended to and cut.
void check_results_file(const fs::path& results) {
    struct stat info {};
    if (::stat(results.c_str(), &info) == 0 && !S_ISREG(info.st_mode))
        throw Error(fmt::format("results file '{}' is not a regular file", results.string()));
}

} // namespace

std::set<std::string> finished_keys(const fs::path& results) {
    std::set<std::string> keys;
    check_results_file(results);
    std::ifstream in(results, std::ios::binary);
    std::string line;
    for (std::size_t number = 1; next_results_line(in, line, results, number); ++number) {
        if (line.empty()) continue;
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(line);
        } catch (const nlohmann::json::exception&) {
            throw Error(fmt::format("{}:{}: corrupt results line (not JSON); move it away or "
                                    "repair it to go on",
                                    results.string(), number));
        }
        if (!j.contains("experiment_key") || !j["experiment_key"].is_string())
            throw Error(fmt::format("{}:{}: results line without 'experiment_key'",
                                    results.string(), number));
        keys.insert(j["experiment_key"].get<std::string>());
    }
    return keys;
}

void append_line(const fs::path& file, const std::string& line) {
    const std::string text = line + "\n";
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) throw Error(fmt::format("cannot append to '{}'", file.string()));
    const ssize_t written = ::write(fd, text.data(), text.size());
    ::fsync(fd);
    ::close(fd);
    if (written != static_cast<ssize_t>(text.size()))
        throw Error(fmt::format("short write to '{}'", file.string()));
}

void repair_torn_tail(const fs::path& results) {
    std::error_code ec;
    check_results_file(results);
    if (!fs::is_regular_file(results, ec)) return;
    const std::uintmax_t size = fs::file_size(results, ec);
    if (ec || size == 0) return;
    // NOTE: the last line only: at most kMaxResultsLineBytes and its LF before it.
    const std::uintmax_t from =
        size > kMaxResultsLineBytes + 1 ? size - kMaxResultsLineBytes - 1 : 0;
    std::string text(static_cast<std::size_t>(size - from), '\0');
    {
        std::ifstream in(results, std::ios::binary);
        in.seekg(static_cast<std::streamoff>(from));
        in.read(text.data(), static_cast<std::streamsize>(text.size()));
        text.resize(static_cast<std::size_t>(in.gcount()));
    }
    if (text.empty() || text.back() == '\n') return;
    const std::size_t lf = text.rfind('\n');
    if (lf == std::string::npos && from > 0)
        throw Error(fmt::format("{}: its last line exceeds {} bytes (the longest results line "
                                "read)",
                                results.string(), kMaxResultsLineBytes));
    const std::size_t at = lf == std::string::npos ? 0 : lf + 1;
    const std::uintmax_t begin = from + at;
    const nlohmann::json tail = nlohmann::json::parse(text.substr(at), nullptr, false);
    if (!tail.is_discarded() && tail.is_object() && tail.contains("experiment_key")) {
        append_line(results, "");
        return;
    }
    fs::resize_file(results, begin, ec);
    if (ec)
        throw Error(
            fmt::format("{}: cannot cut its torn last line: {}", results.string(), ec.message()));
    put_line(stderr, fmt::format("locus: warning: {} ended in a torn line ({} bytes, not a "
                                 "results line): cut off; its run runs again",
                                 results.string(), text.size() - at));
}

} // namespace locus::app
