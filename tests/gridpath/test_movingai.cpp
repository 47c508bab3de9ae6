// Moving AI .map / .scen readers: hand-written files parse into the exact
// objects, and every malformed input gives its exact error message.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "locus/error.hpp"
#include "locus/gridpath/instance.hpp"
#include "locus/gridpath/movingai.hpp"
#include "test_support.hpp"

using locus::InstanceError;
using locus::gridpath::Agent;
using locus::gridpath::Grid;
using locus::gridpath::parse_map;
using locus::gridpath::parse_scenario;

namespace {

// 6 columns, 4 rows; rows start on line 5.
const std::string kMap = "type octile\n"
                         "height 4\n"
                         "width 6\n"
                         "map\n"
                         "..@.GS\n"
                         "..O.T.\n"
                         "W.....\n"
                         "...@..\n";

std::string map_error(const std::string& text) {
    return locus::test::error_message<InstanceError>([&] {
        parse_map(text, "x.map");
    });
}

std::string scen_error(const std::string& rows, std::size_t max_agents = 0) {
    const Grid grid = parse_map(kMap, "x.map");
    return locus::test::error_message<InstanceError>([&] {
        parse_scenario("version 1\n" + rows, "x.scen", grid, max_agents);
    });
}

std::string row(int sx, int sy, int gx, int gy, const std::string& size = "6\t4") {
    return "0\tx.map\t" + size + "\t" + std::to_string(sx) + "\t" + std::to_string(sy) + "\t" +
           std::to_string(gx) + "\t" + std::to_string(gy) + "\t5.0\n";
}

} // namespace

TEST_CASE("parse_map: cell kinds, row-major layout") {
    const Grid grid = parse_map(kMap, "x.map");
    CHECK(grid.width == 6);
    CHECK(grid.height == 4);
    const std::vector<std::uint8_t> expected = {
        0, 0, 1, 0, 0, 0, //
        0, 0, 1, 0, 1, 0, //
        1, 0, 0, 0, 0, 0, //
        0, 0, 0, 1, 0, 0,
    };
    CHECK(grid.blocked == expected);
}

TEST_CASE("parse_map: width before height, CRLF, trailing blanks and blank "
          "lines accepted") {
    const Grid grid =
        parse_map("type octile\r\nwidth 3\r\nheight 2\r\nmap\r\n.@.  \r\nT..\r\n\r\n", "y.map");
    CHECK(grid.width == 3);
    CHECK(grid.height == 2);
    CHECK(grid.blocked == std::vector<std::uint8_t>{0, 1, 0, 1, 0, 0});
}

TEST_CASE("parse_map: exact error messages") {
    CHECK(map_error("") == "x.map: empty file (expected 'type octile' on the first line)");
    CHECK(map_error("height 4\n") == "x.map:1: expected 'type octile', found 'height 4'");
    CHECK(map_error("type hex\n") ==
          "x.map:1: unsupported map type 'hex' (expected 'type octile')");
    CHECK(map_error("type octile\nheight 4\nmap\n") ==
          "x.map:3: expected 'height <rows>' or 'width <columns>', found 'map'");
    CHECK(map_error("type octile\nheight 4\nheight 5\n") == "x.map:3: 'height' given twice");
    CHECK(map_error("type octile\nheight 0\n") ==
          "x.map:2: height '0' is not an integer in 1..65536");
    CHECK(map_error("type octile\nheight 2\nwidth x\n") ==
          "x.map:3: width 'x' is not an integer in 1..65536");
    CHECK(map_error("type octile\nheight 65536\nwidth 65536\n") ==
          "x.map:3: a 65536x65536 map has more than 268435456 cells");
    CHECK(map_error("type octile\nheight 2\n") ==
          "x.map: the file ends inside the header (expected 'height <rows>', "
          "'width <columns>' "
          "and 'map')");
    CHECK(map_error("type octile\nheight 2\nwidth 2\nmaps\n..\n..\n") ==
          "x.map:4: expected 'map', found 'maps'");
}

TEST_CASE("parse_map: row errors") {
    const std::string header = "type octile\nheight 5\nwidth 16\nmap\n";
    const std::string full = "................\n";
    CHECK(map_error(header + full + full + "............\n") ==
          "x.map:7: row 3 has 12 cells, width is 16");
    CHECK(map_error(header + full + full + full + full + "..Z.............\n") ==
          "x.map:9: row 5, column 3: unknown cell 'Z' (passable: . G S; blocked: "
          "@ O T W)");
    CHECK(map_error(header + full + ".\x01..............\n") ==
          "x.map:6: row 2, column 2: unknown cell '\\x01' (passable: . G S; "
          "blocked: @ O T W)");
    CHECK(map_error(header + full + full + full) ==
          "x.map: the map ends after 3 rows, height is 5");
    CHECK(map_error(header + full + full + full + full + full + "\n" + full) ==
          "x.map:11: unexpected line after the 5 rows of the map");
}

TEST_CASE("parse_scenario: agents in file order, max_agents keeps the first ones") {
    const Grid grid = parse_map(kMap, "x.map");
    const std::string text = "version 1\n" + row(0, 0, 5, 3) + row(5, 0, 0, 3) +
                             "1 x.map 6 4 3 1 3 0 1\n"; // blank-separated row
    const std::vector<Agent> agents = parse_scenario(text, "x.scen", grid);
    const std::vector<Agent> expected = {Agent{0, 0, 5, 3}, Agent{5, 0, 0, 3}, Agent{3, 1, 3, 0}};
    CHECK(agents == expected);
    CHECK(parse_scenario(text, "x.scen", grid, 2) ==
          std::vector<Agent>{Agent{0, 0, 5, 3}, Agent{5, 0, 0, 3}});
    // max_agents stops reading: a broken row after the kept ones is not looked
    // at.
    CHECK(parse_scenario("version 1.0\n" + row(0, 0, 5, 3) + "garbage\n", "x.scen", grid, 1) ==
          std::vector<Agent>{Agent{0, 0, 5, 3}});
}

TEST_CASE("parse_scenario: exact error messages") {
    const Grid grid = parse_map(kMap, "x.map");
    CHECK_THROWS_WITH_AS(parse_scenario("", "x.scen", grid),
                         "x.scen: empty file (expected 'version 1' on the first line)",
                         InstanceError);
    CHECK_THROWS_WITH_AS(parse_scenario("version 2\n" + row(0, 0, 5, 3), "x.scen", grid),
                         "x.scen:1: expected 'version 1' on the first line, found 'version 2'",
                         InstanceError);
    CHECK(scen_error("") == "x.scen: no agents (no rows after 'version 1')");
    CHECK(scen_error("0\tx.map\t6\t4\t0\t0\n") ==
          "x.scen:2: expected 9 fields (bucket map width height start_x start_y "
          "goal_x goal_y "
          "optimal_length), found 6");
    CHECK(scen_error("a x.map 6 4 0 0 5 3 5\n") == "x.scen:2: bucket 'a' is not an integer");
    CHECK(scen_error("0 x.map 6 4 0 y 5 3 5\n") == "x.scen:2: start_y 'y' is not an integer");
    CHECK(scen_error("0 x.map 6 4 0 0 5 3 long\n") ==
          "x.scen:2: optimal_length 'long' is not a number");
    CHECK(scen_error(row(0, 0, 5, 3, "8\t4")) ==
          "x.scen:2: the scenario is for a 8x4 map (width x height), the map is "
          "6x4");
    CHECK(scen_error(row(6, 0, 5, 3)) == "x.scen:2: start (6, 0) is outside the 6x4 map");
    CHECK(scen_error(row(0, 0, 5, -1)) == "x.scen:2: goal (5, -1) is outside the 6x4 map");
    CHECK(scen_error(row(2, 0, 5, 3)) == "x.scen:2: start (2, 0) is on a blocked cell");
    CHECK(scen_error(row(0, 0, 4, 1)) == "x.scen:2: goal (4, 1) is on a blocked cell");
    CHECK(scen_error(row(0, 0, 5, 3) + row(0, 0, 4, 3)) ==
          "x.scen:3: start (0, 0) is also the start of the agent on line 2");
    CHECK(scen_error(row(0, 0, 5, 3) + "\n" + row(1, 0, 5, 3)) ==
          "x.scen:4: goal (5, 3) is also the goal of the agent on line 2");
}

TEST_CASE("parse_scenario: unreachable goal (4-connected moves only)") {
    // (0, 0) is enclosed diagonally: an octile path exists, a 4-connected one
    // does not.
    const Grid grid = parse_map("type octile\nheight 3\nwidth 3\nmap\n.@.\n@..\n...\n", "d.map");
    CHECK_THROWS_WITH_AS(
        parse_scenario("version 1\n0\td.map\t3\t3\t0\t0\t2\t2\t2.83\n", "d.scen", grid),
        "d.scen:2: goal (2, 2) is not reachable from start (0, 0) by 4-connected "
        "moves",
        InstanceError);
}

TEST_CASE("load_instance reads files; missing files and short scenarios are "
          "reported") {
    const auto dir = locus::test::temp_dir("gridpath-movingai");
    locus::test::write_file(dir / "x.map", kMap);
    locus::test::write_file(dir / "x.scen", "version 1\n" + row(0, 0, 5, 3) + row(5, 0, 0, 3));
    const locus::gridpath::Instance all =
        locus::gridpath::load_instance(dir / "x.map", dir / "x.scen");
    CHECK(all.name == "x.scen, 2 agents");
    CHECK(all.grid == parse_map(kMap, "x.map"));
    CHECK(all.agents == std::vector<Agent>{Agent{0, 0, 5, 3}, Agent{5, 0, 0, 3}});
    const locus::gridpath::Instance one =
        locus::gridpath::load_instance(dir / "x.map", dir / "x.scen", 1);
    CHECK(one.name == "x.scen, 1 agent");
    CHECK(one.agents.size() == 1);
    const std::string short_scenario =
        (dir / "x.scen").string() + ": 3 agents requested, the scenario has only 2";
    CHECK_THROWS_WITH_AS(locus::gridpath::load_instance(dir / "x.map", dir / "x.scen", 3),
                         short_scenario.c_str(), InstanceError);
    const std::string no_map =
        "cannot open map file '" + (dir / "none.map").string() + "': No such file or directory";
    CHECK_THROWS_WITH_AS(locus::gridpath::read_map(dir / "none.map"), no_map.c_str(),
                         InstanceError);
    const std::string no_scenario = "cannot open scenario file '" + (dir / "none.scen").string() +
                                    "': No such file or directory";
    CHECK_THROWS_WITH_AS(locus::gridpath::load_instance(dir / "x.map", dir / "none.scen"),
                         no_scenario.c_str(), InstanceError);
}
