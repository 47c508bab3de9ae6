// The DCVRP's decomposition of solutions into sectors of routes (route_decomposition.hpp).

#include "locus/dcvrp/route_decomposition.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>

#include <fmt/format.h>

#include "locus/dcvrp/giant_tour.hpp"
#include "locus/error.hpp"

namespace locus::dcvrp {

RouteDecomposition::RouteDecomposition(const Instance& instance)
    : n_(instance.n), x_(instance.x), y_(instance.y) {
    if (instance.explicit_weights || x_.size() != static_cast<std::size_t>(n_))
        throw ConfigError("exchange: decompose groups routes by the polar angle of their "
                          "barycentres around the depot and needs node coordinates; this "
                          "instance has explicit weights only (use exchange: elite)");
}

std::vector<std::vector<std::int32_t>>
RouteDecomposition::split(std::span<const std::int32_t> solution, std::uint32_t size,
                          std::uint32_t most, std::uint64_t draw) const {
    const auto routes = split_routes(solution);
    const std::size_t count = routes.size();
    std::vector<double> angle(count);
    std::size_t customers = 0;
    for (std::size_t r = 0; r < count; ++r) {
        double sx = 0.0, sy = 0.0;
        for (const std::int32_t c : routes[r]) {
            sx += x_[static_cast<std::size_t>(c)] - x_[0];
            sy += y_[static_cast<std::size_t>(c)] - y_[0];
        }
        angle[r] = std::atan2(sy, sx); // the mean's angle: the sums have the same
        customers += routes[r].size();
    }
    std::vector<std::size_t> order(count);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return angle[a] < angle[b]; });
    const std::size_t wanted =
        size == 0 ? 1 : (customers + size / 2) / static_cast<std::size_t>(size);
    const std::size_t groups =
        std::clamp<std::size_t>(wanted, 1, std::max<std::size_t>(1, std::min<std::size_t>(most, count)));
    std::vector<std::vector<std::int32_t>> out(groups);
    if (count == 0) return {};
    // Sector g ends once the customers so far reach (g + 1) / groups of all: every sector
    // holds whole routes and about customers / groups customers.
    const std::size_t start = static_cast<std::size_t>(draw % count);
    std::size_t g = 0;
    std::size_t taken = 0;
    for (std::size_t k = 0; k < count; ++k) {
        const auto& route = routes[order[(start + k) % count]];
        out[g].insert(out[g].end(), route.begin(), route.end());
        taken += route.size();
        if (g + 1 < groups && taken * groups >= (g + 1) * customers) ++g;
    }
    out.erase(std::remove_if(out.begin(), out.end(), [](const auto& v) { return v.empty(); }),
              out.end());
    return out;
}

void RouteDecomposition::assemble(std::span<const std::vector<std::int32_t>> groups,
                                  std::span<const std::span<const std::int32_t>> parts,
                                  std::span<std::int32_t> out) const {
    if (groups.size() != parts.size())
        throw Error(fmt::format("decompose: {} groups but {} parts", groups.size(), parts.size()));
    std::vector<std::int32_t> group_of(static_cast<std::size_t>(n_), -1);
    for (std::size_t g = 0; g < groups.size(); ++g)
        for (const std::int32_t c : groups[g]) {
            if (c <= 0 || c >= n_ || group_of[static_cast<std::size_t>(c)] != -1)
                throw Error(fmt::format("decompose: customer {} is not in exactly one group", c));
            group_of[static_cast<std::size_t>(c)] = static_cast<std::int32_t>(g);
        }
    std::size_t q = 0;
    std::size_t placed = 0;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        std::size_t in_group = 0;
        for (const auto& route : split_routes(parts[g])) {
            const std::int32_t owner = group_of[static_cast<std::size_t>(route.front())];
            if (owner != static_cast<std::int32_t>(g)) continue;
            if (q + 1 + route.size() > out.size())
                throw Error("decompose: the assembled routes do not fit a solution");
            out[q++] = 0;
            for (const std::int32_t c : route) {
                if (group_of[static_cast<std::size_t>(c)] != owner)
                    throw Error(fmt::format("decompose: a route of group {} holds customer {} "
                                            "of group {}: a confined chain left its region",
                                            g, c, group_of[static_cast<std::size_t>(c)]));
                out[q++] = c;
            }
            in_group += route.size();
        }
        if (in_group != groups[g].size())
            throw Error(fmt::format("decompose: group {} has {} customers but its part routes {}",
                                    g, groups[g].size(), in_group));
        placed += in_group;
    }
    if (placed != static_cast<std::size_t>(n_ - 1))
        throw Error(fmt::format("decompose: the groups hold {} of {} customers", placed, n_ - 1));
    std::fill(out.begin() + static_cast<std::ptrdiff_t>(q), out.end(), 0);
}

} // namespace locus::dcvrp
