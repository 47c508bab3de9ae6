// The Solomon text format of VRPTW instances (Solomon 1987; the Gehring-Homberger extension
// uses it too): a name line, a VEHICLE block (NUMBER CAPACITY, then the two values), a CUSTOMER
// block (a header line, then one row per node: CUST NO., XCOORD., YCOORD., DEMAND, READY TIME,
// DUE DATE, SERVICE TIME; customer 0 is the depot).
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "locus/dcvrp/cvrplib.hpp"
#include "locus/error.hpp"
#include "locus/text.hpp"
#include "text_lines.hpp"

namespace locus::dcvrp {

namespace {

constexpr std::string_view kColumns =
    "CUST NO., XCOORD., YCOORD., DEMAND, READY TIME, DUE DATE, SERVICE TIME";

} // namespace

bool is_solomon_text(std::string_view text) {
    for (const detail::Line& line : detail::split_lines(text))
        if (line.text == "VEHICLE") return true;
    return false;
}

Instance parse_solomon(std::string_view text, const std::string& source, RoundingOption rounding) {
    const std::vector<detail::Line> lines = detail::split_lines(text);
    const auto fail = [&](std::size_t line, const std::string& message) {
        return InstanceError(line == 0 ? fmt::format("{}: {}", source, message)
                                       : fmt::format("{}:{}: {}", source, line, message));
    };
    if (lines.empty()) throw fail(0, "empty file (expected a Solomon VRPTW instance)");
    const auto find = [&](std::string_view word) -> std::size_t {
        for (std::size_t k = 0; k < lines.size(); ++k)
            if (lines[k].text == word) return k;
        throw fail(lines.back().number,
                   fmt::format("end of file without {} (a Solomon VRPTW instance has a name "
                               "line, VEHICLE and CUSTOMER blocks)",
                               word));
    };
    Instance instance;
    instance.name = printable(std::string(lines.front().text));
    // VEHICLE, the NUMBER CAPACITY header, then the two numbers.
    const std::size_t vehicle = find("VEHICLE");
    if (vehicle + 2 >= lines.size() || !lines[vehicle + 1].text.starts_with("NUMBER"))
        throw fail(lines[vehicle].number, "expected 'NUMBER CAPACITY' after VEHICLE");
    const detail::Line& fleet = lines[vehicle + 2];
    const std::vector<std::string_view> words = split_words(fleet.text);
    const auto number = words.size() == 2 ? parse_integer(words[0]) : std::nullopt;
    const auto capacity = words.size() == 2 ? parse_integer(words[1]) : std::nullopt;
    if (!number || !capacity || *number < 1 || *capacity < 1 ||
        *number > std::numeric_limits<std::int32_t>::max())
        throw fail(fleet.number, fmt::format("expected the vehicles' NUMBER and CAPACITY, two "
                                             "positive whole numbers, found '{}'",
                                             fleet.text));
    instance.vehicles = static_cast<std::int32_t>(*number);
    instance.capacity = *capacity;
    // CUSTOMER, its header, then the rows.
    const std::size_t customer = find("CUSTOMER");
    if (customer + 1 >= lines.size() || !lines[customer + 1].text.starts_with("CUST"))
        throw fail(lines[customer].number,
                   fmt::format("expected the column header ({}) after CUSTOMER", kColumns));
    std::vector<std::size_t> row_line;
    std::optional<double> service;
    std::size_t service_line = 0;
    for (std::size_t k = customer + 2; k < lines.size(); ++k) {
        const detail::Line& row = lines[k];
        if (row.text == "EOF") break;
        const std::vector<std::string_view> cells = split_words(row.text);
        std::vector<double> value;
        for (const std::string_view cell : cells)
            if (const auto v = parse_number(cell)) value.push_back(*v);
        if (cells.size() != 7 || value.size() != 7)
            throw fail(row.number, fmt::format("expected a customer row of 7 numbers ({}), "
                                               "found '{}'",
                                               kColumns, row.text));
        const auto expected = static_cast<double>(row_line.size());
        if (value[0] != expected)
            throw fail(row.number, fmt::format("customer number {} where {} was due (the rows "
                                               "number the depot 0 and the customers 1, 2, ...)",
                                               cells[0], row_line.size()));
        if (value[3] != std::floor(value[3]) || std::abs(value[3]) > 9.007199254740992e15)
            throw fail(row.number, fmt::format("customer {}: demand '{}' is not a whole number",
                                               cells[0], cells[3]));
        if (value[6] < 0.0)
            throw fail(row.number,
                       fmt::format("customer {} has negative service time {}", cells[0], cells[6]));
        if (row_line.empty()) {
            if (value[6] != 0.0)
                throw fail(row.number, fmt::format("the depot (customer 0) has service time {} "
                                                   "(the depot has none)",
                                                   cells[6]));
        } else if (!service) {
            service = value[6];
            service_line = row.number;
        } else if (value[6] != *service) {
            throw fail(row.number,
                       fmt::format("customer {} has service time {} where line {} "
                                   "gives {}: every customer must have the same "
                                   "service time (different ones are not supported)",
                                   cells[0], cells[6], service_line, format_number(*service)));
        }
        // The words of validate_instance, at the row.
        const auto q = static_cast<std::int64_t>(value[3]);
        if (q < 0)
            throw fail(row.number, fmt::format("node {} has negative demand {}", cells[0], q));
        if (row_line.empty() && q != 0)
            throw fail(row.number, fmt::format("depot node {} has demand {} (a depot has no "
                                               "demand)",
                                               cells[0], q));
        if (!row_line.empty() && q > instance.capacity)
            throw fail(row.number, fmt::format("customer node {} has demand {}, more than "
                                               "CAPACITY {}",
                                               cells[0], q, instance.capacity));
        row_line.push_back(row.number);
        instance.node_id.push_back(static_cast<std::int32_t>(value[0]));
        instance.x.push_back(value[1]);
        instance.y.push_back(value[2]);
        instance.demand.push_back(static_cast<std::int64_t>(value[3]));
        instance.ready.push_back(value[4]);
        instance.due.push_back(value[5]);
    }
    if (row_line.size() < 2)
        throw fail(lines[customer].number, "the CUSTOMER block needs the depot (customer 0) and "
                                           "at least one customer");
    if (row_line.size() > static_cast<std::size_t>(kMaxNodes))
        throw fail(0, fmt::format("{} nodes, more than {}", row_line.size(), kMaxNodes));
    instance.n = static_cast<std::int32_t>(row_line.size());
    instance.service_time = service.value_or(0.0);
    use_coordinates(
        instance,
        resolve_rounding(rounding == RoundingOption::automatic ? RoundingOption::tenths : rounding,
                         instance.name));
    if (const auto problem = window_problem(instance))
        throw fail(row_line[static_cast<std::size_t>(problem->first)], problem->second);
    validate_instance(instance, source);
    return instance;
}

} // namespace locus::dcvrp
