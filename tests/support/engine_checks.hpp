#pragma once
/// \file
/// Checks shared by the suites that compare a CPU twin with its CUDA engine.

#include <doctest/doctest.h>

#include <utility>
#include <vector>

#include "locus/types.hpp"

namespace locus::test {

/// Explores `batch` with `pivot` on two engines of one kind (a CPU twin and its CUDA engine),
/// checks that every solution gets the same move (index and delta), and returns both engines'
/// choices.
template <class Engine>
std::pair<std::vector<MoveChoice>, std::vector<MoveChoice>>
same_choices(Engine& cpu, Engine& cuda, const SolutionBatch& batch, Pivot pivot) {
    std::vector<MoveChoice> a(batch.count()), b(batch.count());
    cpu.explore(batch, pivot, a);
    cuda.explore(batch, pivot, b);
    for (std::size_t s = 0; s < batch.count(); ++s) {
        CHECK(a[s].index == b[s].index);
        CHECK(a[s].delta == b[s].delta);
    }
    return {std::move(a), std::move(b)};
}

} // namespace locus::test
