#pragma once
/// \file
/// Acceptance criteria of iterated local search (kind "acceptance").

#include <cstdint>
#include <memory>
#include <string_view>

#include "locus/component.hpp"
#include "locus/types.hpp"

namespace locus {

class Registry;

/// Decides whether a candidate replaces the current solution of an ILS chain.
class Acceptance : public Component {
public:
    static constexpr std::string_view kind = "acceptance";
    /// Called once per ILS iteration before the decisions of that iteration, with the chains'
    /// current solutions and their candidates (slot i of each: chain i).
    virtual void next_iteration(const SolutionBatch& current, const SolutionBatch& candidates) {
        (void)current, (void)candidates;
    }
    /// True if `candidate` replaces `current`. `u` is a uniform draw in [0, 1) owned by the
    /// caller's random stream (so decisions do not depend on call order).
    virtual bool accept(Objective current, Objective candidate, double u) = 0;
};

/// Registers better / always / annealing.
void register_acceptance(Registry& registry);

} // namespace locus
