// Grid-path instance helpers: Manhattan bounds, BFS distances on a small maze,
// region labels.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "locus/error.hpp"
#include "locus/gridpath/instance.hpp"
#include "locus/gridpath/movingai.hpp"

using locus::InstanceError;
using locus::gridpath::Agent;
using locus::gridpath::Grid;
using locus::gridpath::Instance;

namespace {

/// A grid from rows of '.' (free) and '@' (blocked).
Grid grid_of(const std::vector<std::string>& rows) {
    std::string text = "type octile\nheight " + std::to_string(rows.size()) + "\nwidth " +
                       std::to_string(rows.front().size()) + "\nmap\n";
    for (const std::string& row : rows)
        text += row + "\n";
    return locus::gridpath::parse_map(text, "maze.map");
}

} // namespace

TEST_CASE("Grid cell access: row-major index, passable outside the grid is false") {
    const Grid grid = grid_of({"..@", "@.."});
    CHECK(grid.cell_count() == 6);
    CHECK(grid.blocked_count() == 2);
    CHECK(grid.index(2, 1) == 5);
    CHECK(grid.passable(0, 0));
    CHECK_FALSE(grid.passable(2, 0));
    CHECK_FALSE(grid.passable(0, 1));
    CHECK(grid.passable(2, 1));
    CHECK_FALSE(grid.passable(-1, 0));
    CHECK_FALSE(grid.passable(3, 0));
    CHECK_FALSE(grid.passable(0, 2));
}

TEST_CASE("manhattan and manhattan_lower_bound") {
    CHECK(locus::gridpath::manhattan(Agent{0, 0, 3, 4}) == 7);
    CHECK(locus::gridpath::manhattan(Agent{5, 1, 2, 6}) == 8);
    CHECK(locus::gridpath::manhattan(Agent{2, 2, 2, 2}) == 0);
    Instance instance;
    instance.grid = grid_of(
        {"........", "........", "........", "........", "........", "........", "........"});
    instance.agents = {Agent{0, 0, 3, 4}, Agent{5, 1, 2, 6}, Agent{7, 0, 7, 1}};
    CHECK(locus::gridpath::manhattan_lower_bound(instance) == 7 + 8 + 1);
}

TEST_CASE("distances_to: BFS distances on a small maze") {
    // Target (0, 0). The walls force one winding corridor: down column 0, along
    // row 3, up column 2, along row 0 and down column 4.
    const Grid grid = grid_of({
        ".@...",
        ".@.@.",
        ".@.@.",
        "...@.",
        "@@@@.",
    });
    const std::vector<std::int32_t> d = locus::gridpath::distances_to(grid, 0, 0);
    const std::vector<std::int32_t> expected = {
        0,  -1, 8,  9,  10, //
        1,  -1, 7,  -1, 11, //
        2,  -1, 6,  -1, 12, //
        3,  4,  5,  -1, 13, //
        -1, -1, -1, -1, 14,
    };
    CHECK(d == expected);
}

TEST_CASE("distances_to: unreachable cells are -1 and bad targets throw") {
    const Grid grid = grid_of({"..@..", "..@..", "..@.."});
    const std::vector<std::int32_t> d = locus::gridpath::distances_to(grid, 4, 2);
    CHECK(d[grid.index(3, 0)] == 3);
    CHECK(d[grid.index(0, 0)] == -1);
    CHECK(d[grid.index(2, 1)] == -1);
    CHECK_THROWS_WITH_AS(locus::gridpath::distances_to(grid, 2, 0),
                         "distances_to: cell (2, 0) is blocked", InstanceError);
    CHECK_THROWS_WITH_AS(locus::gridpath::distances_to(grid, 5, 0),
                         "distances_to: cell (5, 0) is outside the 5x3 grid", InstanceError);
}

TEST_CASE("region_labels numbers regions in row-major order of their first cell") {
    const Grid grid = grid_of({"..@.", "@@@.", ".@@."});
    const std::vector<std::int32_t> expected = {0, 0, -1, 1, -1, -1, -1, 1, 2, -1, -1, 1};
    CHECK(locus::gridpath::region_labels(grid) == expected);
}

TEST_CASE("distances_to takes the shorter of two routes around an obstacle") {
    // From (0, 1) to (4, 1): around the wall through row 0 (6 moves) or row 3 (8
    // moves).
    const Grid grid = grid_of({
        ".....",
        ".@@@.",
        ".@@@.",
        ".....",
    });
    const std::vector<std::int32_t> d = locus::gridpath::distances_to(grid, 0, 1);
    CHECK(d[grid.index(4, 1)] == 6);
    CHECK(d[grid.index(4, 2)] == 7); // 7 moves either way
    CHECK(d[grid.index(2, 3)] == 4);
    CHECK(d[grid.index(4, 3)] == 6);
}
