#pragma once
/// \file
/// Multi-agent grid movement as a problem of the successor engine (FANG, Köster et al. §4):
/// every agent is a variable; in one step it may move to any of the j*j-1 other cells of the
/// j x j window around it. The local heuristic rates a target by its Manhattan distance to the
/// agent's goal; cells outside the grid, blocked cells and cells held by another agent are
/// forbidden (weight 0). The same functor runs in the CPU twin (host pointers) and in kernels.
///
/// State words: x and y of every agent (2A words), then the total Manhattan length of all moves
/// made so far (one word).

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "locus/error.hpp"
#include "locus/hd.hpp"

namespace locus::gridpath {

/// Rating of a target cell: its Manhattan distance to the goal, or -1 when forbidden.
using MoveRating = std::int32_t;

/// Aggregator of the ratings of one agent: the largest allowed distance.
struct MaxDistance {
    std::int32_t max = -1;
    LOCUS_HD_INLINE void add(MoveRating r) { max = r > max ? r : max; }
    LOCUS_HD_INLINE void combine(const MaxDistance& other) {
        max = other.max > max ? other.max : max;
    }
};

/// A goal of the load's extra distance evaluations: x for the integer units, y for the FP32
/// units (GridMovesPolicy::rate).
struct LoadGoal {
    std::int32_t x;
    float y;
};

struct GridMovesPolicy {
    using rating_type = MoveRating;
    using aggregator_type = MaxDistance;
    static constexpr int kVariableTypes = 1;

    const std::uint8_t* blocked = nullptr; ///< row-major grid, 1 = blocked
    const std::int32_t* goals = nullptr;   ///< goal x, y of every agent (2A)
    /// Load > 1 (make_load_goals): the goals of agents 1, 2, ..., A + load - 2, agent i's being
    /// agent (i mod A)'s, so that the load's extra goals of agent v start at entry v; then, from
    /// entry `load_copy` on (16-byte aligned), the same goals from agent 2 on.
    const LoadGoal* load_goals = nullptr;
    std::uint32_t load_copy = 0;
    std::int32_t width = 0;
    std::int32_t height = 0;
    std::int32_t agents = 0;
    std::int32_t window = 3; ///< j (odd, >= 3)
    std::int32_t load = 1;   ///< distance evaluations per rating (FANG's load factor)
    std::int32_t greed = 2;  ///< weight = (max - d + 1)^greed among allowed cells (0 = uniform)
    std::int32_t never =
        0x7FFFFFFF; ///< threshold no load sum reaches (keeps the load's work alive)

    LOCUS_HD_INLINE std::uint32_t state_words() const {
        return static_cast<std::uint32_t>(2 * agents + 1);
    }
    LOCUS_HD_INLINE std::uint32_t variables() const { return static_cast<std::uint32_t>(agents); }
    LOCUS_HD_INLINE std::uint32_t max_possibilities() const {
        return static_cast<std::uint32_t>(window * window - 1);
    }
    LOCUS_HD_INLINE int variable_type(std::uint32_t) const { return 0; }

    /// Other agents a rating must check against, found once per variable (prepare): those
    /// inside the agent's window. More than kNearby of them: every agent is checked.
    static constexpr int kNearby = 6;

    /// Per-variable context (prepare): the window's top-left cell, the agent's goal, the number
    /// of cells before the centre, the divisor of the window offsets as a multiply-shift, and
    /// the cells of the other agents inside the window.
    struct Context {
        std::int32_t left, top, goal_x, goal_y;
        std::uint32_t half;  ///< (j*j - 1) / 2: possibilities before the centre
        std::uint32_t magic; ///< 2^32 / window rounded up: floor(c / window) = c * magic >> 32
        std::int32_t nearby; ///< agents in the window; > kNearby: check all of them
        std::int32_t cells[kNearby];
    };

    /// High 32 bits of a * b.
    LOCUS_HD_INLINE static std::uint32_t mul_high(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
        return __umulhi(a, b);
#else
        return static_cast<std::uint32_t>((static_cast<std::uint64_t>(a) * b) >> 32);
#endif
    }
    LOCUS_HD_INLINE static std::int32_t absolute(std::int32_t v) { return v < 0 ? -v : v; }

    /// Column and row inside the window of possibility l (the window's cells in row-major
    /// order, the centre skipped; `half` = max_possibilities() / 2 cells before the centre).
    /// NOTE: c * ceil(2^32 / j) >> 32 = floor(c / j) exactly while c * j < 2^32; here c < j*j
    /// and j <= 1023.
    LOCUS_HD_INLINE void window_cell(std::uint32_t l, std::uint32_t half, std::uint32_t magic,
                                     std::int32_t& column, std::int32_t& row) const {
        const std::uint32_t cell = l < half ? l : l + 1;
        const std::uint32_t r = mul_high(cell, magic);
        column = static_cast<std::int32_t>(cell - r * static_cast<std::uint32_t>(window));
        row = static_cast<std::int32_t>(r);
    }
    /// Offset of possibility l from the agent's cell.
    LOCUS_HD_INLINE void offset(std::uint32_t l, std::uint32_t magic, std::int32_t& dx,
                                std::int32_t& dy) const {
        window_cell(l, max_possibilities() / 2, magic, dx, dy);
        dx -= window / 2;
        dy -= window / 2;
    }
    LOCUS_HD_INLINE std::uint32_t magic() const {
        return static_cast<std::uint32_t>(0xFFFFFFFFu / static_cast<std::uint32_t>(window) + 1);
    }

    template <int T>
    LOCUS_HD_INLINE std::uint32_t possibilities(const std::int32_t*, std::uint32_t) const {
        return max_possibilities();
    }

    template <int T> LOCUS_HD Context prepare(const std::int32_t* state, std::uint32_t var) const {
        Context c{};
        const std::int32_t x = state[2 * var];
        const std::int32_t y = state[2 * var + 1];
        const std::int32_t half = window / 2;
        c.left = x - half;
        c.top = y - half;
        c.goal_x = goals[2 * var];
        c.goal_y = goals[2 * var + 1];
        c.half = max_possibilities() / 2;
        c.magic = magic();
        const auto span = static_cast<std::uint32_t>(window - 1);
        for (std::int32_t a = 0; a < agents; ++a) {
            const std::int32_t ax = state[2 * a], ay = state[2 * a + 1];
            // inside the window: 0 <= ax - x + half <= j - 1, likewise for y
            if (static_cast<std::uint32_t>(ax - c.left) > span ||
                static_cast<std::uint32_t>(ay - c.top) > span ||
                a == static_cast<std::int32_t>(var))
                continue;
            if (c.nearby < kNearby) c.cells[c.nearby] = ay * width + ax;
            ++c.nearby;
        }
        return c;
    }

    template <int T>
    LOCUS_HD MoveRating rate(const std::int32_t* state, std::uint32_t var, std::uint32_t l,
                             const Context& c) const {
        std::int32_t column = 0, row = 0;
        window_cell(l, c.half, c.magic, column, row);
        const std::int32_t x = c.left + column;
        const std::int32_t y = c.top + row;
        if (static_cast<std::uint32_t>(x) >= static_cast<std::uint32_t>(width) ||
            static_cast<std::uint32_t>(y) >= static_cast<std::uint32_t>(height))
            return -1;
        const std::int32_t cell = y * width + x;
        // NOTE: read here, tested last: the load's latency overlaps the distance evaluations
        // (the answer is the same: -1 for a blocked cell).
        const std::uint8_t cell_blocked = blocked[cell];
        // NOTE: every other agent's current cell is forbidden: agents assigned earlier in this
        // step hold their new cell, later ones still their old one (no two agents ever share a
        // cell after a step). Only agents inside the window can hold a target cell.
        if (c.nearby != 0) {
            if (c.nearby <= kNearby) {
                for (std::int32_t k = 0; k < c.nearby; ++k)
                    if (c.cells[k] == cell) return -1;
            } else {
                for (std::int32_t a = 0; a < agents; ++a)
                    if (a != static_cast<std::int32_t>(var) && state[2 * a] == x &&
                        state[2 * a + 1] == y)
                        return -1;
            }
        }
        const std::int32_t d = absolute(x - c.goal_x) + absolute(y - c.goal_y);
        // Load > 1: as many further distance evaluations against the goals of agents v + 1,
        // v + 2, ... (contiguous in `load_goals`), summed; the sums cannot change the rating
        // (they stay below `never` for loads up to kMaxLoad on grids up to 65535 per side), but
        // the work is done. The x terms run on the integer units (|a - b| + c is one device
        // instruction), the y terms on the FP32 units (exact while the sum stays below 2^24, e.g.
        // any load on grids up to 1024 rows; rounded beyond, identically on both backends:
        // additions only, in the same order), so both pipelines share the work.
        if (load <= 1) return cell_blocked != 0 ? -1 : d;
        // Goals of even and odd rank go to two sums each (shorter dependency chains).
        const auto goals_left = static_cast<std::uint32_t>(load - 1);
        const float fy = static_cast<float>(y);
        std::uint32_t x0 = 0, x1 = 0;
        float y0 = 0.0f, y1 = 0.0f;
#if defined(__CUDA_ARCH__)
        // Agent v's run starts 16-byte aligned in the first copy for even v, in the second
        // (shifted by one goal) for odd v; two goals per 16-byte load, eight per round with
        // their four loads issued together; the last round (1..7 goals) loads a whole round (the
        // array is padded: make_load_goals) and adds only the goals of the run.
        const auto* p = reinterpret_cast<const int4*>(
            (var & 1u) != 0 ? load_goals + load_copy + (var - 1) : load_goals + var);
        const auto add = [&](int gx, int gy, std::uint32_t& sx, float& sy) {
            sx = __sad(x, gx, sx);
            sy = __fadd_rn(sy, fabsf(__fadd_rn(fy, -__int_as_float(gy))));
        };
#pragma unroll 1
        for (std::uint32_t rounds = goals_left / 8; rounds != 0; --rounds, p += 4) {
            const int4 a = __ldg(p), b = __ldg(p + 1), e = __ldg(p + 2), f = __ldg(p + 3);
            add(a.x, a.y, x0, y0);
            add(a.z, a.w, x1, y1);
            add(b.x, b.y, x0, y0);
            add(b.z, b.w, x1, y1);
            add(e.x, e.y, x0, y0);
            add(e.z, e.w, x1, y1);
            add(f.x, f.y, x0, y0);
            add(f.z, f.w, x1, y1);
        }
        const std::uint32_t left = goals_left % 8;
        if (left != 0) {
            const int4 a = __ldg(p), b = __ldg(p + 1), e = __ldg(p + 2), f = __ldg(p + 3);
            add(a.x, a.y, x0, y0);
            if (left > 1) add(a.z, a.w, x1, y1);
            if (left > 2) add(b.x, b.y, x0, y0);
            if (left > 3) add(b.z, b.w, x1, y1);
            if (left > 4) add(e.x, e.y, x0, y0);
            if (left > 5) add(e.z, e.w, x1, y1);
            if (left > 6) add(f.x, f.y, x0, y0);
        }
#else
        const LoadGoal* g = load_goals + var;
        std::uint32_t k = 0;
        for (; k + 1 < goals_left; k += 2) {
            x0 += static_cast<std::uint32_t>(absolute(x - g[k].x));
            y0 = y0 + std::fabs(fy + -g[k].y);
            x1 += static_cast<std::uint32_t>(absolute(x - g[k + 1].x));
            y1 = y1 + std::fabs(fy + -g[k + 1].y);
        }
        if (k < goals_left) {
            x0 += static_cast<std::uint32_t>(absolute(x - g[k].x));
            y0 = y0 + std::fabs(fy + -g[k].y);
        }
#endif
        // NOTE: selects, not branches (measured faster on an H200).
        const std::int32_t bump =
            static_cast<std::int32_t>(x0 + x1 >= static_cast<std::uint32_t>(never)) |
            static_cast<std::int32_t>(y0 + y1 >= static_cast<float>(never));
        return cell_blocked != 0 ? -1 : d + bump;
    }

    template <int T> LOCUS_HD_INLINE std::uint32_t map(MoveRating r, const MaxDistance& a) const {
        if (r < 0) return 0;
        const auto base = static_cast<std::uint32_t>(a.max - r + 1);
        switch (greed) {
        case 0:
            return 1;
        case 1:
            return base;
        case 2:
            return base * base;
        case 3:
            return base * base * base;
        default:
            return (base * base) * (base * base);
        }
    }

    template <int T>
    LOCUS_HD_INLINE void assign(std::int32_t* state, std::uint32_t var, std::uint32_t l) const {
        std::int32_t dx = 0, dy = 0;
        offset(l, magic(), dx, dy);
        state[2 * var] += dx;
        state[2 * var + 1] += dy;
        state[2 * agents] += (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
    }

    /// No allowed cell: the agent stays.
    template <int T> LOCUS_HD_INLINE void could_not_assign(std::int32_t*, std::uint32_t) const {}
};

/// The largest load factor: the policy's load sums stay below 2^31 (the y sums, in single
/// precision, are exact below 2^24: for any load on grids up to 1024 rows).
inline constexpr std::int32_t kMaxLoad = 16384;

/// Throws ConfigError unless 1 <= load <= kMaxLoad.
inline void check_load(std::int32_t load) {
    if (load < 1 || load > kMaxLoad)
        throw ConfigError("window_moves: load " + std::to_string(load) + " must be between 1 and " +
                          std::to_string(kMaxLoad));
}

/// Where the second copy of make_load_goals starts (load >= 2, agents >= 1): the goals per copy
/// rounded up to an even count, so that the copy is 16-byte aligned.
inline std::uint32_t load_copy(std::size_t agents, std::int32_t load) {
    const std::size_t count = agents + static_cast<std::size_t>(load) - 2; // goals per copy
    return static_cast<std::uint32_t>(count + (count & 1));                // 16-byte aligned
}
/// Entries after the second copy of make_load_goals: the device reads the goals of a run in
/// rounds of eight.
inline constexpr std::size_t kLoadGoalPadding = 8;

/// The policy's load_goals for `load` from the goal x, y of the A agents (2A words): agents 1,
/// 2, ..., A + load - 2, wrapping around, then the same from agent 2 on, starting at entry
/// load_copy(A, load), then kLoadGoalPadding zero entries (empty for load 1). Throws
/// ConfigError for a load outside 1..kMaxLoad.
inline std::vector<LoadGoal> make_load_goals(const std::vector<std::int32_t>& goal_xy,
                                             std::int32_t load) {
    check_load(load);
    const std::size_t agents = goal_xy.size() / 2;
    std::vector<LoadGoal> goals;
    if (agents == 0 || load == 1) return goals;
    const std::size_t count = agents + static_cast<std::size_t>(load) - 2;
    const std::size_t copy = load_copy(agents, load);
    goals.assign(2 * copy + kLoadGoalPadding, LoadGoal{0, 0.0f});
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t first = (i + 1) % agents;  // copy 0: agent i + 1
        const std::size_t second = (i + 2) % agents; // copy 1: agent i + 2
        goals[i] = LoadGoal{goal_xy[2 * first], static_cast<float>(goal_xy[2 * first + 1])};
        goals[copy + i] =
            LoadGoal{goal_xy[2 * second], static_cast<float>(goal_xy[2 * second + 1])};
    }
    return goals;
}

} // namespace locus::gridpath
