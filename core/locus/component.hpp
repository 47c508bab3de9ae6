#pragma once
/// \file
/// Base of every run-time created component and the context handed to factories.

#include <cstdint>
#include <memory>

#include "locus/types.hpp"

namespace locus {

class Registry;
class Problem;
class Params;

/// Base class of all components created through the registry (problems, algorithms,
/// neighborhoods, heuristics, ...). Objects made by a plugin must not outlive it; plugins stay
/// loaded until process exit.
class Component {
public:
    virtual ~Component() = default;
};

/// What a factory may use while building a component.
struct BuildContext {
    Registry* registry = nullptr; ///< to build nested components
    Problem* problem = nullptr;   ///< the loaded problem (null while building the problem)
    Backend backend = Backend::cpu;
    int device = 0;               ///< CUDA device ordinal (backend cuda)
    int threads = 0;              ///< CPU threads for CPU engines (0 = all cores)
    bool check_moves = false;     ///< verify every applied move by full re-evaluation
    std::uint64_t seed = 0;       ///< job seed
};

} // namespace locus
