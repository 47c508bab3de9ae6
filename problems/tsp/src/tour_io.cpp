#include "locus/tsp/tour_io.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/tsp/tsplib.hpp"

namespace locus::tsp {

namespace {

class TourParser {
public:
    TourParser(std::string_view text, const std::string& source, std::size_t n)
        : lines_(split_tsplib_lines(text)), source_(source), n_(n) {}

    std::vector<std::int32_t> parse() {
        std::size_t i = 0;
        bool found_section = false;
        for (; i < lines_.size() && !found_section; ++i) {
            const TsplibLine& line = lines_[i];
            if (!line.keyword)
                fail(line.number,
                     fmt::format("unexpected data '{}' before TOUR_SECTION", line.text));
            if (line.key == "EOF") break;
            if (line.key == "TOUR_SECTION") {
                found_section = true;
            } else if (line.key == "TYPE") {
                if (line.value != "TOUR")
                    fail(line.number,
                         fmt::format("TYPE '{}' is not a tour (expected TYPE : TOUR)", line.value));
            } else if (line.key == "DIMENSION") {
                const auto d = parse_integer(line.value);
                if (!d || *d < 0 || static_cast<std::size_t>(*d) != n_)
                    fail(line.number,
                         fmt::format("DIMENSION '{}' does not match the instance ({} cities)",
                                     line.value, n_));
            } else if (!line.has_colon && !line.key.ends_with("_SECTION")) {
                fail(line.number, fmt::format("expected 'KEY : value', found '{}'", line.text));
            }
        }
        if (!found_section) fail(0, "missing TOUR_SECTION");
        return read_section(i);
    }

private:
    [[noreturn]] void fail(std::size_t line, const std::string& message) const {
        if (line == 0) throw InstanceError(fmt::format("{}: {}", source_, message));
        throw InstanceError(fmt::format("{}:{}: {}", source_, line, message));
    }

    /// Reads ids from line index `i` until -1, a keyword line or the end of the text.
    std::vector<std::int32_t> read_section(std::size_t i) const {
        std::vector<std::int32_t> tour;
        tour.reserve(n_);
        std::vector<std::size_t> seen(n_, 0);
        for (; i < lines_.size() && !lines_[i].keyword; ++i) {
            const TsplibLine& line = lines_[i];
            for (const std::string_view word : split_words(line.text)) {
                const auto id = parse_integer(word);
                if (!id) fail(line.number, fmt::format("non-numeric city id '{}'", word));
                if (*id == -1) return finish(std::move(tour));
                if (*id < 1 || static_cast<std::size_t>(*id) > n_)
                    fail(line.number, fmt::format("city {} out of range 1..{}", *id, n_));
                const auto city = static_cast<std::size_t>(*id - 1);
                if (seen[city] != 0)
                    fail(line.number,
                         fmt::format("city {} appears twice (first on line {})", *id, seen[city]));
                seen[city] = line.number;
                tour.push_back(static_cast<std::int32_t>(city));
            }
        }
        return finish(std::move(tour));
    }

    std::vector<std::int32_t> finish(std::vector<std::int32_t> tour) const {
        if (tour.size() != n_)
            fail(0,
                 fmt::format("TOUR_SECTION has {} cities, the instance has {}", tour.size(), n_));
        return tour;
    }

    std::vector<TsplibLine> lines_;
    const std::string& source_;
    std::size_t n_;
};

} // namespace

std::vector<std::int32_t> parse_tour(std::string_view text, const std::string& source,
                                     std::size_t n) {
    return TourParser(text, source, n).parse();
}

std::vector<std::int32_t> read_tour(const std::filesystem::path& path, std::size_t n) {
    const std::string source = path.string();
    return parse_tour(read_text_file(path, "tour"), source, n);
}

std::optional<std::string> check_tour(std::span<const std::int32_t> tour, std::size_t n) {
    if (tour.size() != n) return fmt::format("tour has {} cities, expected {}", tour.size(), n);
    std::vector<std::size_t> position(n, n);
    for (std::size_t i = 0; i < tour.size(); ++i) {
        const std::int32_t city = tour[i];
        if (city < 0 || static_cast<std::size_t>(city) >= n)
            return fmt::format("city {} at position {} is out of range 0..{}", city, i, n - 1);
        auto& first = position[static_cast<std::size_t>(city)];
        if (first != n)
            return fmt::format("city {} appears twice (positions {} and {})", city, first, i);
        first = i;
    }
    return std::nullopt;
}

void write_tour(const std::filesystem::path& path, const std::string& name,
                std::span<const std::int32_t> tour0, std::int64_t length) {
    if (const auto problem = check_tour(tour0, tour0.size()))
        throw Error(
            fmt::format("cannot write tour file '{}': not a tour: {}", path.string(), *problem));
    std::string text = fmt::format("NAME : {}\nCOMMENT : Length = {}\nTYPE : TOUR\nDIMENSION : "
                                   "{}\nTOUR_SECTION\n",
                                   name, length, tour0.size());
    for (const std::int32_t city : tour0)
        fmt::format_to(std::back_inserter(text), "{}\n", city + 1);
    text += "-1\nEOF\n";
    errno = 0;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (out) out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out)
        throw Error(fmt::format("cannot write tour file '{}': {}", path.string(),
                                errno != 0 ? std::strerror(errno) : "write failed"));
}

} // namespace locus::tsp
