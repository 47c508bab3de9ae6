#pragma once
// The beam-search loop over either backend of the successor engine (CpuSuccessorEngine or the
// device SuccessorEngine); shared by beam_search.cpp and beam_search_cuda.cu.

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "locus/error.hpp"
#include "locus/gpu/successor_engine.hpp"
#include "locus/gridpath/beam_search.hpp"
#include "locus/gridpath/moves_policy.hpp"
#include "locus/rng.hpp"

namespace locus::gridpath::detail {

inline void check_beam_options(const BeamOptions& o) {
    if (o.window < 3 || o.window % 2 == 0)
        throw Error("beam search: window " + std::to_string(o.window) + " must be odd and >= 3");
    if (o.greed < 0 || o.greed > 4)
        throw Error("beam search: greed " + std::to_string(o.greed) + " must be in 0..4");
    if (o.width < 1 || o.successors < 1 || o.load < 1)
        throw Error("beam search: width, successors and load must be >= 1");
}

/// x, y of every agent's goal.
inline std::vector<std::int32_t> goal_words(const Instance& instance) {
    std::vector<std::int32_t> goals;
    for (const Agent& a : instance.agents) {
        goals.push_back(a.goal_x);
        goals.push_back(a.goal_y);
    }
    return goals;
}

/// The policy of `instance` over grid and goal arrays at `blocked` and `goals` (host or device).
inline GridMovesPolicy make_policy(const Instance& instance, const BeamOptions& options,
                                   const std::uint8_t* blocked, const std::int32_t* goals) {
    GridMovesPolicy policy;
    policy.blocked = blocked;
    policy.goals = goals;
    policy.width = instance.grid.width;
    policy.height = instance.grid.height;
    policy.agents = static_cast<std::int32_t>(instance.agents.size());
    policy.window = options.window;
    policy.load = options.load;
    policy.greed = options.greed;
    return policy;
}

inline std::int64_t remaining_distance(const std::int32_t* state,
                                       const std::vector<std::int32_t>& goals,
                                       std::int32_t agents) {
    std::int64_t sum = 0;
    for (std::int32_t a = 0; a < agents; ++a)
        sum += std::abs(state[2 * a] - goals[static_cast<std::size_t>(2 * a)]) +
               std::abs(state[2 * a + 1] - goals[static_cast<std::size_t>(2 * a + 1)]);
    return sum;
}

/// The current states of `engine` in host memory: the CPU engine's own buffer, or a download of
/// the device engine's states into `buffer`.
inline const std::int32_t* host_slots(gpu::CpuSuccessorEngine<GridMovesPolicy>& engine,
                                      std::vector<std::int32_t>&) {
    return engine.slots();
}
template <class Engine>
const std::int32_t* host_slots(Engine& engine, std::vector<std::int32_t>& buffer) {
    buffer.resize(static_cast<std::size_t>(engine.size()) * engine.layout().slot_words);
    engine.download(buffer.data());
    return buffer.data();
}

/// Runs the beam search with `engine` (capacity >= width * successors). `on_step` (may be
/// empty) sees the result after every step and returns true to stop.
template <class Engine>
BeamResult run_beam(Engine& engine, const Instance& instance, const BeamOptions& options,
                    const gpu::SuccessorLayout& layout,
                    const std::function<bool(const BeamResult&)>& on_step) {
    const auto agents = static_cast<std::int32_t>(instance.agents.size());
    const std::vector<std::int32_t> goals = goal_words(instance);
    BeamResult result;
    for (const Agent& a : instance.agents) result.lower_bound += manhattan(a);
    const auto width = static_cast<std::uint32_t>(options.width);
    const auto k = static_cast<std::uint32_t>(options.successors);

    // The beam: slots of the layout; every agent not on its goal is active.
    std::vector<std::int32_t> beam(layout.slot_words, 0);
    for (std::int32_t a = 0; a < agents; ++a) {
        beam[static_cast<std::size_t>(2 * a)] = instance.agents[static_cast<std::size_t>(a)].start_x;
        beam[static_cast<std::size_t>(2 * a + 1)] =
            instance.agents[static_cast<std::size_t>(a)].start_y;
    }
    std::uint32_t size = 1;
    auto activate = [&](std::int32_t* slot) {
        for (std::int32_t a = 0; a < agents; ++a) {
            const bool home = slot[2 * a] == goals[static_cast<std::size_t>(2 * a)] &&
                              slot[2 * a + 1] == goals[static_cast<std::size_t>(2 * a + 1)];
            layout.set_active(slot, static_cast<std::uint32_t>(a), !home);
        }
    };
    activate(beam.data());
    result.remaining = remaining_distance(beam.data(), goals, agents);
    result.positions.assign(beam.begin(), beam.begin() + 2 * agents);
    std::vector<std::uint32_t> order;
    std::vector<std::int32_t> downloaded;
    while (result.remaining > 0 && result.steps < options.max_steps) {
        engine.load(beam.data(), size);
        engine.generate(k, derive_key(options.seed, static_cast<std::uint64_t>(result.steps)));
        ++result.steps;
        const std::uint32_t count = engine.size();
        const std::int32_t* slots = host_slots(engine, downloaded);
        std::vector<std::int64_t> score(count), moves(count);
        for (std::uint32_t s = 0; s < count; ++s) {
            const std::int32_t* slot = slots + static_cast<std::size_t>(s) * layout.slot_words;
            score[s] = remaining_distance(slot, goals, agents);
            moves[s] = slot[2 * agents];
        }
        order.resize(count);
        std::iota(order.begin(), order.end(), 0u);
        const std::uint32_t keep = std::min(count, width);
        std::partial_sort(order.begin(), order.begin() + keep, order.end(),
                          [&](std::uint32_t a, std::uint32_t b) {
                              return score[a] != score[b]
                                         ? score[a] < score[b]
                                         : (moves[a] != moves[b] ? moves[a] < moves[b] : a < b);
                          });
        beam.resize(static_cast<std::size_t>(keep) * layout.slot_words);
        for (std::uint32_t i = 0; i < keep; ++i) {
            std::copy_n(slots + static_cast<std::size_t>(order[i]) * layout.slot_words,
                        layout.slot_words,
                        beam.begin() + static_cast<std::ptrdiff_t>(i) * layout.slot_words);
            activate(beam.data() + static_cast<std::size_t>(i) * layout.slot_words);
        }
        size = keep;
        result.remaining = score[order[0]];
        result.total_moves = moves[order[0]];
        result.positions.assign(beam.begin(), beam.begin() + 2 * agents);
        if (on_step && on_step(result)) break;
    }
    result.solved = result.remaining == 0;
    return result;
}

} // namespace locus::gridpath::detail
