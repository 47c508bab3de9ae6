#include "locus/gridpath/instance.hpp"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "locus/error.hpp"

namespace locus::gridpath {

namespace {

/// Breadth-first search over free cells from `seed`: writes `first` into
/// out[seed] and out[parent] + step into every other reached cell. Cells
/// holding anything but -1 are not entered. `queue` is scratch space of
/// cell_count() entries.
void flood(const Grid& grid, std::size_t seed, std::int32_t first, std::int32_t step,
           std::vector<std::int32_t>& out, std::vector<std::int32_t>& queue) {
    const auto width = static_cast<std::size_t>(grid.width);
    std::size_t head = 0;
    std::size_t tail = 0;
    queue[tail++] = static_cast<std::int32_t>(seed);
    out[seed] = first;
    while (head < tail) {
        const auto cell = static_cast<std::size_t>(queue[head++]);
        const std::int32_t next = out[cell] + step;
        const std::size_t x = cell % width;
        const std::size_t y = cell / width;
        auto visit = [&](std::size_t neighbor) {
            if (grid.blocked[neighbor] != 0 || out[neighbor] != -1) return;
            out[neighbor] = next;
            queue[tail++] = static_cast<std::int32_t>(neighbor);
        };
        if (x > 0) visit(cell - 1);
        if (x + 1 < width) visit(cell + 1);
        if (y > 0) visit(cell - width);
        if (y + 1 < static_cast<std::size_t>(grid.height)) visit(cell + width);
    }
}

} // namespace

std::size_t Grid::blocked_count() const {
    return static_cast<std::size_t>(
        std::count_if(blocked.begin(), blocked.end(), [](std::uint8_t b) { return b != 0; }));
}

std::int32_t manhattan(const Agent& agent) {
    return std::abs(agent.start_x - agent.goal_x) + std::abs(agent.start_y - agent.goal_y);
}

std::int64_t manhattan_lower_bound(const Instance& instance) {
    std::int64_t sum = 0;
    for (const Agent& agent : instance.agents)
        sum += manhattan(agent);
    return sum;
}

std::vector<std::int32_t> distances_to(const Grid& grid, std::int32_t x, std::int32_t y) {
    if (!grid.contains(x, y))
        throw InstanceError(fmt::format("distances_to: cell ({}, {}) is outside the {}x{} grid", x,
                                        y, grid.width, grid.height));
    if (!grid.passable(x, y))
        throw InstanceError(fmt::format("distances_to: cell ({}, {}) is blocked", x, y));
    std::vector<std::int32_t> distance(grid.cell_count(), -1);
    std::vector<std::int32_t> queue(grid.cell_count());
    flood(grid, grid.index(x, y), 0, 1, distance, queue);
    return distance;
}

std::vector<std::int32_t> region_labels(const Grid& grid) {
    std::vector<std::int32_t> label(grid.cell_count(), -1);
    std::vector<std::int32_t> queue(grid.cell_count());
    std::int32_t regions = 0;
    for (std::size_t cell = 0; cell < label.size(); ++cell) {
        if (grid.blocked[cell] != 0 || label[cell] != -1) continue;
        const std::int32_t id = regions++;
        flood(grid, cell, id, 0, label, queue);
    }
    return label;
}

} // namespace locus::gridpath
