#include "locus/dcvrp/sol_io.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/text.hpp"
#include "text_lines.hpp"

namespace locus::dcvrp {

namespace {

/// The customer list of a `Route #<k>: ...` line, or nullopt when the line is not one.
std::optional<std::string_view> route_body(std::string_view text) {
    if (!text.starts_with("Route")) return std::nullopt;
    text = trim(text.substr(5));
    if (!text.starts_with('#')) return std::nullopt;
    text = trim(text.substr(1));
    std::size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9')
        ++digits;
    if (digits == 0) return std::nullopt;
    text = trim(text.substr(digits));
    if (!text.starts_with(':')) return std::nullopt;
    return trim(text.substr(1));
}

/// The value text of a `Cost <value>` line, or nullopt when the line is not one.
std::optional<std::string_view> cost_body(std::string_view text) {
    if (!text.starts_with("Cost")) return std::nullopt;
    const std::string_view rest = text.substr(4);
    if (rest.empty() || !is_blank(rest.front())) return std::nullopt;
    return trim(rest);
}

/// Half a unit of the last digit of number text that parse_number accepted: 0.5 x 10^(e - d)
/// for d digits after the point and an exponent e ("524.61": 0.005, "1.5e3": 50).
double half_last_digit(std::string_view text) {
    const std::size_t e = text.find_first_of("eE");
    const std::string_view mantissa = text.substr(0, e);
    const std::size_t dot = mantissa.find('.');
    const auto decimals =
        dot == std::string_view::npos ? 0L : static_cast<long>(mantissa.size() - dot - 1);
    long exponent = 0;
    if (e != std::string_view::npos)
        exponent = std::strtol(std::string(text.substr(e + 1)).c_str(), nullptr, 10);
    return 0.5 * std::pow(10.0, static_cast<double>(exponent - decimals));
}

} // namespace

SolFile parse_sol(std::string_view text, const std::string& source, std::int32_t n) {
    const auto fail = [&](std::size_t line, const std::string& message) {
        return InstanceError(fmt::format("{}:{}: {}", source, line, message));
    };
    SolFile sol;
    std::vector<std::size_t> seen(static_cast<std::size_t>(n), 0); // line of each customer
    std::size_t cost_line = 0;
    for (const detail::Line& line : detail::split_lines(text)) {
        if (const auto body = route_body(line.text)) {
            std::vector<std::int32_t> route;
            for (const std::string_view word : split_words(*body)) {
                const auto c = detail::parse_integer(word);
                if (!c) throw fail(line.number, fmt::format("non-numeric customer '{}'", word));
                if (*c < 1 || *c >= n)
                    throw fail(line.number,
                               fmt::format("customer {} out of range 1..{}", *c, n - 1));
                std::size_t& first = seen[static_cast<std::size_t>(*c)];
                if (first != 0)
                    throw fail(
                        line.number,
                        fmt::format("customer {} appears twice (first on line {})", *c, first));
                first = line.number;
                route.push_back(static_cast<std::int32_t>(*c));
            }
            if (!route.empty()) sol.routes.push_back(std::move(route));
            continue;
        }
        if (const auto body = cost_body(line.text)) {
            if (cost_line != 0)
                throw fail(line.number,
                           fmt::format("duplicate Cost (first on line {})", cost_line));
            const auto value = detail::parse_number(*body);
            if (!value) throw fail(line.number, fmt::format("Cost '{}' is not a number", *body));
            sol.cost = *value;
            sol.cost_precision = half_last_digit(*body);
            cost_line = line.number;
            continue;
        }
        throw fail(line.number,
                   fmt::format("expected 'Route #<k>: <customers>' or 'Cost <value>', found '{}'",
                               line.text));
    }
    std::vector<std::int32_t> missing;
    for (std::int32_t c = 1; c < n; ++c)
        if (seen[static_cast<std::size_t>(c)] == 0) missing.push_back(c);
    if (!missing.empty()) {
        constexpr std::size_t kListed = 10;
        const std::size_t listed = std::min(missing.size(), kListed);
        const std::vector<std::int32_t> head(missing.begin(),
                                             missing.begin() + static_cast<std::ptrdiff_t>(listed));
        throw InstanceError(fmt::format("{}: {} of {} customers are not visited: {}{}", source,
                                        missing.size(), n - 1, fmt::join(head, ", "),
                                        missing.size() > kListed ? ", ..." : ""));
    }
    sol.cost_line = cost_line;
    return sol;
}

SolFile read_sol(const std::filesystem::path& path, std::int32_t n) {
    return parse_sol(read_text_file(path, "solution"), path.string(), n);
}

std::string format_sol(const Routes& routes, double cost) {
    std::string text;
    std::size_t number = 0;
    for (const auto& route : routes) {
        if (route.empty()) continue;
        fmt::format_to(std::back_inserter(text), "Route #{}: {}\n", ++number,
                       fmt::join(route, " "));
    }
    // NOTE: "{}" is the shortest decimal that reads back as the same double; integral costs
    // (nint instances) come out without a fraction, as in the CVRPLIB files.
    fmt::format_to(std::back_inserter(text), "Cost {}\n", cost);
    return text;
}

void write_sol(const std::filesystem::path& path, std::string_view name, std::int32_t n,
               std::span<const std::int32_t> tour, double cost) {
    if (const auto why = check_giant_tour(tour, n))
        throw InstanceError(fmt::format("invalid solution for {}: {}", name, *why));
    const std::string text = format_sol(split_routes(tour), cost);
    errno = 0;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (out) out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out)
        throw InstanceError(fmt::format("cannot write solution file '{}': {}", path.string(),
                                        errno != 0 ? std::strerror(errno) : "write failed"));
}

} // namespace locus::dcvrp
