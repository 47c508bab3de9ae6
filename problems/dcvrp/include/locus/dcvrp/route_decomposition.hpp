#pragma once
/// \file
/// The DCVRP's decomposition of solutions for chains confined to regions (the decompose
/// exchange of the chains algorithm): a region is the customers of a sector of whole routes,
/// routes ordered by the polar angle of their barycentre around the depot (Santini, Schneider,
/// Vidal & Vigo 2023 compare such route-based decompositions), the sectors cut to about equal
/// customer counts from a drawn first route, so that the borders move from one split to the
/// next. Confined route moves keep a region's customers within its routes (no route is
/// opened), so each group's routes come whole from the chain that improved them most.

#include <cstdint>
#include <span>
#include <vector>

#include "locus/dcvrp/instance.hpp"
#include "locus/gpu/chain_policy_component.hpp"

namespace locus::dcvrp {

class RouteDecomposition final : public gpu::Decomposition {
public:
    /// Throws ConfigError for an instance without coordinates (explicit weights only).
    explicit RouteDecomposition(const Instance& instance);

    std::vector<std::vector<std::int32_t>> split(std::span<const std::int32_t> solution,
                                                 std::uint32_t size, std::uint32_t most,
                                                 std::uint64_t draw) const override;
    void assemble(std::span<const std::vector<std::int32_t>> groups,
                  std::span<const std::span<const std::int32_t>> parts,
                  std::span<std::int32_t> out) const override;

private:
    std::int32_t n_;
    std::vector<double> x_, y_;
};

} // namespace locus::dcvrp
