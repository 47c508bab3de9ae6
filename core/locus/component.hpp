#pragma once
/// \file
/// Base of every run-time created component and the context handed to factories.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "locus/defaults.hpp"
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
    /// The job seed, for components whose draws are fixed when they are built (the TSP
    /// three_opt samples); draws made while a run goes derive from SearchContext::seed().
    std::uint64_t seed = 0;
    /// Solutions in the job's batch, so a component can refuse a batch it cannot use while the
    /// job is validated (0: not known; components then check when they run).
    std::size_t batch = 0;
    /// The job's batch is `auto` and a CUDA device is present: the device's streaming
    /// multiprocessors (0 otherwise). `batch` then holds one solution per multiprocessor; a
    /// component that chooses better for the instance (the chains algorithm, from its problem's
    /// chain policy) may set `batch` while it is built, before the batch is allocated.
    std::size_t auto_batch_multiprocessors = 0;
    /// Device memory an engine may allocate, in bytes (0: memory_fraction of the free memory
    /// when the engine is built).
    std::size_t memory_budget = 0;
    double memory_fraction = kDefaultMemoryFraction; ///< share of the free device memory used when
                                                     ///< no budget is set
    /// Where a component records what it made of a setting given as `auto` (key path, e.g.
    /// "algorithm.population" -> 50), for the run's results line; null: nowhere.
    std::map<std::string, std::int64_t>* resolved = nullptr;
};

} // namespace locus
