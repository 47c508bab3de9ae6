#pragma once
// A route-chain policy with a host workspace, and one perturbation checked against the
// definitions: shared by the kick tests (random kicks, ruin and recreate, route elimination).

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "locus/dcvrp/route_chains.hpp"
#include "locus/gpu/chain_engine.hpp"
#include "locus/rng.hpp"

namespace dcvrp_test {

/// A route-chain policy with its workspace for `chains` chains in host memory (the storage
/// holds the arrays the policy points to, so neither moves).
struct HostWorkspace {
    HostWorkspace(const locus::dcvrp::RouteChainPolicy& p, std::size_t chains) : policy(p) {
        locus::gpu::ArrayList list;
        policy.declare(list, chains);
        storage.allocate(list);
    }
    HostWorkspace(const HostWorkspace&) = delete;
    HostWorkspace& operator=(const HostWorkspace&) = delete;

    locus::dcvrp::RouteChainPolicy policy;
    locus::gpu::HostStorage storage;
};

/// A kicked row and the customers the kick moved (sorted).
struct Kick {
    std::vector<std::int32_t> row;
    std::vector<std::int32_t> moved;
};

/// Chain 0 of `host` perturbs `row` with `rng`, checked: the returned change equals the
/// re-evaluation (with penalties, of the penalised cost), the workspace the kick leaves equals
/// a rebuild from the new row, every customer and marker stays once, and the moved nodes are
/// customers (random kicks may move one twice).
inline Kick checked_kick(HostWorkspace& host, bool penalties, const std::vector<std::int32_t>& row,
                         locus::Rng rng) {
    const auto& policy = host.policy;
    const locus::gpu::SerialTeam team;
    const auto full = [&](const std::int32_t* r) {
        return penalties ? policy.descent_evaluate(team, 0, r) : policy.evaluate(team, 0, r);
    };
    Kick kick{row, std::vector<std::int32_t>(row.size())};
    policy.refresh(team, 0, kick.row.data());
    const std::int64_t before = full(kick.row.data());
    std::int32_t count = 0;
    const std::int64_t change =
        policy.perturb(team, 0, kick.row.data(), rng, kick.moved.data(), count);
    kick.moved.resize(static_cast<std::size_t>(count));
    std::vector<unsigned char> kept(host.storage.bytes());
    std::memcpy(kept.data(), host.storage.data(), kept.size());
    policy.refresh(team, 0, kick.row.data());
    CHECK(std::memcmp(kept.data(), host.storage.data(), kept.size()) == 0);
    CHECK(full(kick.row.data()) == before + change);
    std::vector<std::int32_t> sorted = kick.row;
    std::vector<std::int32_t> expected = row;
    std::ranges::sort(sorted);
    std::ranges::sort(expected);
    CHECK(sorted == expected); // every customer once, the markers kept
    std::ranges::sort(kick.moved);
    CHECK(std::ranges::all_of(kick.moved, [](std::int32_t u) { return u > 0; }));
    return kick;
}

} // namespace dcvrp_test
