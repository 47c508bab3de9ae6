#pragma once
/// \file
/// Successor generation as a component (kind "successor_generator"): the neighbourhood function
/// N(x) of population and beam searches, typically backed by the FANG successor engine of gpu/.

#include <cstdint>
#include <span>
#include <string_view>

#include "locus/component.hpp"
#include "locus/types.hpp"

namespace locus {

class SuccessorGenerator : public Component {
public:
    static constexpr std::string_view kind = "successor_generator";

    /// Expands every solution of `sources` into `per_source` successors: `out` becomes a batch
    /// of sources.count() * per_source solutions (successor t of source s at s * per_source + t)
    /// with objectives set. Successors are drawn from streams keyed by `seed`; the same inputs
    /// give the same successors on every backend.
    virtual void expand(const SolutionBatch& sources, std::uint32_t per_source, std::uint64_t seed,
                        SolutionBatch& out) = 0;

    /// True when `solution` is a goal state (a search may stop there).
    virtual bool is_goal(std::span<const std::int32_t> solution) const = 0;
};

} // namespace locus
