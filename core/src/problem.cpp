// Defaults of the problem-side interfaces.

#include "locus/problem.hpp"

#include <string>

#include "locus/error.hpp"

namespace locus {

DescentStats Neighborhood::descend_independent(SolutionBatch&, const IndependentDescentOptions&,
                                               const std::function<bool()>&) {
    throw ConfigError("neighborhood '" + std::string(name()) +
                      "' has no independence rule, so it cannot run a parallel descent "
                      "(parallel_descent, vnd with parallel: true); use descent or vnd "
                      "without parallel");
}

} // namespace locus
