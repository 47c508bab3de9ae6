#pragma once
/// \file
/// Beam search over FANG successors for multi-agent grid movement: every state of the beam is
/// expanded into `successors` states by the successor engine (agents not at their goal are the
/// active variables), the successors are scored by the remaining Manhattan distance (then the
/// moves made, then their index), and the best `width` form the next beam. It stops when a
/// state has every agent on its goal or after `max_steps` steps.

#include <cstdint>
#include <functional>
#include <vector>

#include "locus/gridpath/instance.hpp"

namespace locus::gridpath {

struct BeamOptions {
    std::int32_t width = 64;     ///< states kept per step (|X|)
    std::int32_t successors = 8; ///< successors generated per state
    std::int32_t window = 5;     ///< j: an agent moves within the j x j window around it
    std::int32_t load = 1;       ///< distance evaluations per rating
    std::int32_t greed = 2;      ///< weight exponent (0 = uniform over allowed cells, <= 4)
    std::int32_t max_steps = 100000;
    std::uint64_t seed = 1;
    int threads = 0; ///< CPU threads (0 = all cores)
};

struct BeamResult {
    bool solved = false;
    std::int32_t steps = 0;              ///< beam steps made
    std::int64_t total_moves = 0;        ///< Manhattan length of all moves of the best state
    std::int64_t remaining = 0;          ///< remaining Manhattan distance of the best state
    std::int64_t lower_bound = 0;        ///< sum of the agents' start-goal Manhattan distances
    std::vector<std::int32_t> positions; ///< x, y of every agent in the best state
};

/// Runs the beam search with the CPU twin of the successor engine. `on_step` (may be empty)
/// sees the result after every step and returns true to stop. Throws locus::Error for options
/// out of range (window even or < 3, greed > 4, width or successors < 1).
BeamResult beam_search_cpu(const Instance& instance, const BeamOptions& options,
                           const std::function<bool(const BeamResult&)>& on_step = {});

/// The same search with the CUDA successor engine: identical results for the same options.
/// Throws CudaError when no device is usable.
BeamResult beam_search_cuda(const Instance& instance, const BeamOptions& options,
                            const std::function<bool(const BeamResult&)>& on_step = {});

} // namespace locus::gridpath
