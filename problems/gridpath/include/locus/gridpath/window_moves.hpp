#pragma once
/// \file
/// The grid-path successor generator "window_moves": FANG successor generation with the
/// GridMovesPolicy (every agent not on its goal moves within the j x j window around it), on the
/// CPU twin or the CUDA successor engine.

#include <cstdint>
#include <memory>
#include <vector>

#include "locus/gpu/successor_engine.hpp"
#include "locus/gridpath/gridpath_problem.hpp"
#include "locus/gridpath/moves_policy.hpp"
#include "locus/successor.hpp"

namespace locus::gridpath {

struct WindowMovesOptions {
    std::int32_t window = 5; ///< j (odd, >= 3): |R| = j*j - 1 possibilities per agent
    std::int32_t load = 1;   ///< distance evaluations per rating (FANG's load factor)
    std::int32_t greed = 2;  ///< weight = (max - d + 1)^greed over allowed cells (0..4)
    int threads = 0;         ///< CPU threads (0 = all cores)
};

/// One backend of the successor engine for the grid-path policy: expands `count` state slots
/// into count * k successor slots (host memory, valid until the next call); `first` numbers the
/// first clone when a generation is expanded in parts (the successor engine's generate).
class MoveExpander {
public:
    virtual ~MoveExpander() = default;
    virtual const std::int32_t* expand(const std::int32_t* slots, std::uint32_t count,
                                       std::uint32_t k, std::uint64_t seed,
                                       std::uint64_t first) = 0;
    /// Successor states per part of a generation (the stop flag is read between parts).
    virtual std::uint32_t part_states() const = 0;
};

std::unique_ptr<MoveExpander> make_cpu_expander(const Instance& instance,
                                                const WindowMovesOptions& options);
/// Throws CudaError when no device is usable.
std::unique_ptr<MoveExpander> make_cuda_expander(const Instance& instance,
                                                 const WindowMovesOptions& options);

/// The goal x, y of every agent of `instance` (2A words).
std::vector<std::int32_t> goal_words(const Instance& instance);

/// The policy of `instance` over the arrays at `blocked`, `goals` (goal_words) and `load_goals`
/// (make_load_goals(goal_words(instance), options.load)), host or device. Throws ConfigError for
/// a window, load or grid the policy cannot handle.
GridMovesPolicy make_policy(const Instance& instance, const WindowMovesOptions& options,
                            const std::uint8_t* blocked, const std::int32_t* goals,
                            const LoadGoal* load_goals);

class WindowMoves final : public SuccessorGenerator {
public:
    WindowMoves(const GridpathProblem& problem, const WindowMovesOptions& options, Backend backend);
    void expand(const SolutionBatch& sources, std::uint32_t per_source, std::uint64_t seed,
                SolutionBatch& out) override;
    bool is_goal(std::span<const std::int32_t> solution) const override {
        return problem_.remaining(solution) == 0;
    }

private:
    const GridpathProblem& problem_;
    gpu::SuccessorLayout layout_;
    std::unique_ptr<MoveExpander> expander_;
};

} // namespace locus::gridpath
