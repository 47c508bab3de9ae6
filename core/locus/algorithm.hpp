#pragma once
/// \file
/// Metaheuristics and local searches (kind "algorithm") and the search context they run in.

#include <string_view>

#include "locus/component.hpp"
#include "locus/types.hpp"

namespace locus {

class SearchContext;

/// An algorithm improves a batch of solutions in place until it converges or the context
/// asks it to stop. Local searches (descent, VND) and metaheuristics (ILS, repeat) share this
/// interface so that they nest freely in configs.
class Algorithm : public Component {
public:
    static constexpr std::string_view kind = "algorithm";

    /// Improves `batch` (initial solutions with objectives set). Must offer improvements to
    /// `ctx` (SearchContext::offer) and return promptly once ctx.should_stop() is true.
    virtual void run(SolutionBatch& batch, SearchContext& ctx) = 0;
};

} // namespace locus
