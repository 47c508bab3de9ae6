#include "locus/gridpath/generator.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/generator_spec.hpp"
#include "locus/rng.hpp"
#include "locus/rng_salts.hpp"

namespace locus::gridpath {

namespace {

constexpr std::string_view kRandomGrid = "random-grid";

/// Why (size, agents, density) cannot be generated, or "" when they are in
/// range.
std::string range_problem(std::uint64_t size, std::uint64_t agents, double density) {
    if (size < 2 || size > static_cast<std::uint64_t>(kMaxGeneratorSize))
        return fmt::format("size = {} is out of range 2..{}", size, kMaxGeneratorSize);
    if (agents < 1 || agents > size * size / 2)
        return fmt::format("agents = {} is out of range 1..{} (half the cells)", agents,
                           size * size / 2);
    if (!(density >= 0.0 && density < 1.0))
        return fmt::format("obstacles = {} is out of range [0, 1)", density);
    return {};
}

/// Places round(density * cells) obstacles, then returns all cells in uniformly
/// random order with the obstacles first (one Fisher-Yates shuffle, so the free
/// cells follow in random order).
std::vector<std::int32_t> place_obstacles(Grid& grid, double density, Rng& rng,
                                          std::size_t& obstacles) {
    const std::size_t cells = grid.cell_count();
    obstacles = static_cast<std::size_t>(std::llround(density * static_cast<double>(cells)));
    std::vector<std::int32_t> order(cells);
    std::iota(order.begin(), order.end(), 0);
    for (std::size_t i = 0; i + 1 < cells; ++i) {
        const std::size_t j = i + rng.below(static_cast<std::uint32_t>(cells - i));
        std::swap(order[i], order[j]);
    }
    grid.blocked.assign(cells, 0);
    for (std::size_t i = 0; i < obstacles; ++i)
        grid.blocked[static_cast<std::size_t>(order[i])] = 1;
    return order;
}

} // namespace

Instance generate(std::int32_t size, std::int32_t agents, double obstacle_density,
                  std::uint64_t seed) {
    Instance instance;
    instance.name = fmt::format("{}:size={},agents={},obstacles={},seed={}", kRandomGrid, size,
                                agents, obstacle_density, seed);
    if (size < 0 || agents < 0)
        throw InstanceError(fmt::format("{}: size and agents must be positive", instance.name));
    const std::string problem = range_problem(static_cast<std::uint64_t>(size),
                                              static_cast<std::uint64_t>(agents), obstacle_density);
    if (!problem.empty()) throw InstanceError(fmt::format("{}: {}", instance.name, problem));

    Grid& grid = instance.grid;
    grid.width = size;
    grid.height = size;
    // NOTE: a stream of its own, so that an instance and a search run with the same seed
    // do not share random numbers.
    Rng rng(derive_key(seed, salt::kGridpathGenerator), 0);
    std::size_t obstacles = 0;
    const std::vector<std::int32_t> order = place_obstacles(grid, obstacle_density, rng, obstacles);

    // Free cells grouped by region, each group in the random order of `order`.
    const std::vector<std::int32_t> region = region_labels(grid);
    std::int32_t regions = 0;
    for (const std::int32_t r : region)
        regions = std::max(regions, r + 1);
    std::vector<std::size_t> remaining(static_cast<std::size_t>(regions), 0);
    for (const std::int32_t r : region)
        if (r >= 0) ++remaining[static_cast<std::size_t>(r)];
    std::size_t capacity = 0;
    for (const std::size_t free_cells : remaining)
        capacity += free_cells / 2;
    if (capacity < static_cast<std::size_t>(agents))
        throw InstanceError(fmt::format("{}: the free cells have room for only {} agents (each "
                                        "needs a start and a goal in "
                                        "one connected region); lower agents or obstacles",
                                        instance.name, capacity));
    std::vector<std::size_t> cursor(remaining.size() + 1,
                                    0); // group offsets, then cursors
    for (std::size_t r = 0; r < remaining.size(); ++r)
        cursor[r + 1] = cursor[r] + remaining[r];
    std::vector<std::int32_t> grouped(cursor.back());
    {
        std::vector<std::size_t> fill(cursor.begin(), cursor.end() - 1);
        for (std::size_t i = obstacles; i < order.size(); ++i) {
            const auto r = static_cast<std::size_t>(region[static_cast<std::size_t>(order[i])]);
            grouped[fill[r]++] = order[i];
        }
    }

    // NOTE: each agent consumes two free cells of one region, so any greedy
    // choice of regions with two unused cells succeeds exactly when capacity >=
    // agents; no re-draws are needed.
    std::vector<std::uint8_t> used(grid.cell_count(), 0);
    std::size_t next = obstacles;
    auto take = [&](std::int32_t cell) {
        used[static_cast<std::size_t>(cell)] = 1;
        --remaining[static_cast<std::size_t>(region[static_cast<std::size_t>(cell)])];
    };
    instance.agents.reserve(static_cast<std::size_t>(agents));
    for (std::int32_t a = 0; a < agents; ++a) {
        std::int32_t start = order[next++];
        while (used[static_cast<std::size_t>(start)] != 0 ||
               remaining[static_cast<std::size_t>(region[static_cast<std::size_t>(start)])] < 2)
            start = order[next++];
        take(start);
        const auto r = static_cast<std::size_t>(region[static_cast<std::size_t>(start)]);
        while (used[static_cast<std::size_t>(grouped[cursor[r]])] != 0)
            ++cursor[r];
        const std::int32_t goal = grouped[cursor[r]];
        take(goal);
        instance.agents.push_back(Agent{start % size, start / size, goal % size, goal / size});
    }
    return instance;
}

bool is_generator_spec(std::string_view text) {
    return locus::is_generator_spec(text, kRandomGrid);
}

Instance generate_from_spec(std::string_view spec) {
    const GeneratorSpec parsed(
        spec, kRandomGrid,
        {{"size"}, {"agents"}, {"obstacles", GeneratorSpec::Kind::real}, {"seed"}});
    auto fail = [&](const std::string& reason) { return parsed.error(reason); };
    const auto size = parsed.integer("size");
    const auto agents = parsed.integer("agents");
    const auto obstacles = parsed.real("obstacles");
    const auto seed = parsed.integer("seed");
    if (!size) throw fail("missing parameter 'size' (side of the square grid)");
    if (!agents) throw fail("missing parameter 'agents' (number of agents)");
    const std::string problem = range_problem(*size, *agents, obstacles.value_or(0.0));
    if (!problem.empty()) throw fail(problem);
    return generate(static_cast<std::int32_t>(*size), static_cast<std::int32_t>(*agents),
                    obstacles.value_or(0.0), seed.value_or(1));
}

} // namespace locus::gridpath
