#pragma once
/// \file
/// A grid-path instance on the host: a 2D grid of free and blocked cells and a
/// set of agents, each moving from a start cell to a goal cell by 4-connected
/// steps (up, down, left, right). Coordinates are 0-based everywhere: x is the
/// column, y the row, (0, 0) the top-left cell.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace locus::gridpath {

/// A rectangular grid. Invariant after parse_map / generate: width >= 1, height
/// >= 1 and blocked holds width * height entries, row-major (index y * width +
/// x), 1 = blocked, 0 = free.
struct Grid {
    std::int32_t width = 0;            ///< number of columns
    std::int32_t height = 0;           ///< number of rows
    std::vector<std::uint8_t> blocked; ///< row-major, 1 = blocked, 0 = free

    /// True when (x, y) lies inside the grid.
    bool contains(std::int32_t x, std::int32_t y) const {
        return x >= 0 && y >= 0 && x < width && y < height;
    }
    /// Row-major index of (x, y). Precondition: contains(x, y).
    std::size_t index(std::int32_t x, std::int32_t y) const {
        return static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
               static_cast<std::size_t>(x);
    }
    /// True when (x, y) lies inside the grid and is free (false outside the
    /// grid).
    bool passable(std::int32_t x, std::int32_t y) const {
        return contains(x, y) && blocked[index(x, y)] == 0;
    }
    /// width * height.
    std::size_t cell_count() const {
        return static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    }
    /// Number of blocked cells.
    std::size_t blocked_count() const;

    bool operator==(const Grid&) const = default;
};

/// One agent: it starts on (start_x, start_y) and must reach (goal_x, goal_y).
struct Agent {
    std::int32_t start_x = 0;
    std::int32_t start_y = 0;
    std::int32_t goal_x = 0;
    std::int32_t goal_y = 0;

    bool operator==(const Agent&) const = default;
};

/// A loaded or generated instance. Invariants after load_instance / generate:
/// agents is not empty; every start and goal is a free cell; no two agents
/// share a start, no two share a goal; every goal is reachable from its agent's
/// start by 4-connected moves over free cells.
struct Instance {
    std::string name; ///< scenario file and agent count, or the canonical generator spec
    Grid grid;
    std::vector<Agent> agents;
};

/// |start_x - goal_x| + |start_y - goal_y|: a lower bound on the agent's number
/// of moves.
std::int32_t manhattan(const Agent& agent);

/// Sum of manhattan() over all agents: a lower bound on the sum of the agents'
/// path lengths.
std::int64_t manhattan_lower_bound(const Instance& instance);

/// Number of 4-connected moves over free cells from every cell to (x, y),
/// row-major like Grid::blocked; -1 for blocked cells and cells that cannot
/// reach (x, y). Moves are symmetric, so this is also the distance from (x, y)
/// to every cell. Throws InstanceError when (x, y) is outside the grid or
/// blocked.
std::vector<std::int32_t> distances_to(const Grid& grid, std::int32_t x, std::int32_t y);

/// Connected regions of free cells under 4-connected moves, row-major like
/// Grid::blocked: labels 0, 1, 2, ... numbered in row-major order of each
/// region's first cell; -1 for blocked cells. Two free cells are mutually
/// reachable iff they have the same label.
std::vector<std::int32_t> region_labels(const Grid& grid);

} // namespace locus::gridpath
