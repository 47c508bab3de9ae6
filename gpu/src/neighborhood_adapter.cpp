// Host pieces of the neighborhood adapter: settings from a BuildContext and the messages of both
// wrappers (fmt lives here, out of the headers that .cu files include).

#include "locus/gpu/neighborhood_adapter.hpp"

#include <fmt/format.h>

namespace locus::gpu {

EngineSettings engine_settings(const BuildContext& build) {
    EngineSettings settings;
    settings.threads = build.threads;
    settings.device = build.device;
    settings.check_moves = build.check_moves;
    settings.memory = MemoryBudget{build.memory_budget, build.memory_fraction};
    if (build.problem != nullptr) settings.sense = build.problem->objective_sense();
    return settings;
}

namespace detail {

namespace {
/// MiB rounded up (needs) and down (allowances), so that a refusal never reads "needs 1 MiB,
/// allows 1 MiB".
std::size_t mib_up(std::size_t bytes) { return (bytes + (std::size_t{1} << 20) - 1) >> 20; }
std::size_t mib_down(std::size_t bytes) { return bytes >> 20; }
} // namespace

std::string check_moves_message(std::size_t solution, std::string_view move, Objective by_delta,
                                Objective full, ObjectiveSense sense) {
    return fmt::format("check_moves: solution {} after {} has objective {} by delta but {} by full "
                       "evaluation",
                       solution, move, user_objective(sense, by_delta), user_objective(sense, full));
}

std::string memory_budget_message(std::string_view label, std::uint32_t batch, std::size_t width,
                                  std::size_t need, std::size_t allowed) {
    return fmt::format("GPU memory: the {} neighborhood needs {} MiB of device memory for {} "
                       "solutions of width {}, the memory budget allows {} MiB; reduce `batch` "
                       "(or raise memory_budget / memory_fraction)",
                       label, mib_up(need), batch, width, mib_down(allowed));
}

std::string undecodable_move_message(std::string_view label, std::uint64_t index) {
    return fmt::format("move index {} is not a move of the {} neighborhood", index, label);
}

} // namespace detail

} // namespace locus::gpu
