#include "locus/gridpath/generator.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/rng.hpp"

namespace locus::gridpath {

namespace {

constexpr std::string_view kRandomGrid = "random-grid";

// NOTE: the generator draws from its own stream key so that an instance and a
// search run with the same seed do not share random numbers.
constexpr std::uint64_t kGeneratorStream = 0x677269642D67656Eull; // "grid-gen"

bool is_name_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }

std::optional<std::uint64_t> parse_unsigned(std::string_view text) {
    std::uint64_t value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
    return value;
}

std::optional<double> parse_real(std::string_view text) {
    double value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
    return value;
}

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
    Rng rng(derive_key(seed, kGeneratorStream), 0);
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
    const std::size_t colon = text.find(':');
    if (colon == std::string_view::npos || colon == 0) return false;
    const std::string_view name = text.substr(0, colon);
    for (const char c : name)
        if (!is_name_char(c)) return false;
    if (name == kRandomGrid) return true;
    const std::string_view rest = text.substr(colon + 1);
    const std::size_t eq = rest.find('=');
    if (eq == std::string_view::npos || eq == 0) return false;
    for (const char c : rest.substr(0, eq))
        if (!is_name_char(c)) return false;
    return true;
}

Instance generate_from_spec(std::string_view spec) {
    auto fail = [&](const std::string& reason) {
        return InstanceError(fmt::format("invalid instance generator spec '{}': {}", spec, reason));
    };
    const std::size_t colon = spec.find(':');
    const std::string_view generator = spec.substr(0, colon);
    if (generator != kRandomGrid)
        throw fail(fmt::format("unknown generator '{}' (available: {})", generator, kRandomGrid));
    std::optional<std::uint64_t> size, agents, seed;
    std::optional<double> obstacles;
    std::string_view rest = colon == std::string_view::npos ? "" : spec.substr(colon + 1);
    while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        const std::string_view item = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? "" : rest.substr(comma + 1);
        const std::size_t eq = item.find('=');
        if (eq == std::string_view::npos)
            throw fail(fmt::format("expected 'key=value', found '{}'", item));
        const std::string_view key = item.substr(0, eq);
        const std::string_view text = item.substr(eq + 1);
        if (key == "obstacles") {
            if (obstacles) throw fail("parameter 'obstacles' given twice");
            obstacles = parse_real(text);
            if (!obstacles)
                throw fail(fmt::format("parameter 'obstacles': expected a number, got '{}'", text));
            continue;
        }
        std::optional<std::uint64_t>* slot = key == "size"     ? &size
                                             : key == "agents" ? &agents
                                             : key == "seed"   ? &seed
                                                               : nullptr;
        if (slot == nullptr)
            throw fail(fmt::format(
                "unknown parameter '{}' (parameters: size, agents, obstacles, seed)", key));
        if (slot->has_value()) throw fail(fmt::format("parameter '{}' given twice", key));
        *slot = parse_unsigned(text);
        if (!slot->has_value())
            throw fail(fmt::format("parameter '{}': expected a non-negative integer, got '{}'", key,
                                   text));
    }
    if (!size) throw fail("missing parameter 'size' (side of the square grid)");
    if (!agents) throw fail("missing parameter 'agents' (number of agents)");
    const std::string problem = range_problem(*size, *agents, obstacles.value_or(0.0));
    if (!problem.empty()) throw fail(problem);
    return generate(static_cast<std::int32_t>(*size), static_cast<std::int32_t>(*agents),
                    obstacles.value_or(0.0), seed.value_or(1));
}

} // namespace locus::gridpath
