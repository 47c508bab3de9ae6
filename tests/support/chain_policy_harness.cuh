#pragma once
// Checks of a many-chain policy on the Block team (device): moves of one solution, one block
// per move, each block refreshing its own chain's workspace from the solution, evaluating the
// move's delta, applying it and re-evaluating the objective in full. The host compares the
// deltas with the Serial team's and every objective with before + delta.

#include <doctest/doctest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "locus/gpu/chain_engine.hpp"
#include "locus/gpu/cuda_check.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/storage.hpp"
#include "locus/gpu/team.cuh"

namespace locus::test {

namespace harness_detail {

template <int k, class P, unsigned kThreads>
__global__ void __launch_bounds__(kThreads)
    block_moves_kernel(const P policy, const std::int32_t* base, std::int32_t width,
                       const std::int32_t* active, const std::int32_t* active_count,
                       const std::uint64_t* indices, std::int32_t* solutions, std::int64_t* out) {
    __shared__ typename gpu::BlockTeam<kThreads>::Storage s_team;
    const gpu::BlockTeam<kThreads> team{&s_team};
    const std::uint32_t m = blockIdx.x;
    std::int32_t* solution = solutions + static_cast<std::int64_t>(m) * width;
    for (std::int32_t i = static_cast<std::int32_t>(team.rank()); i < width;
         i += static_cast<std::int32_t>(team.size()))
        solution[i] = base[i];
    team.sync();
    policy.refresh(team, m, solution);
    const auto eval = policy.template evaluator<k>(m, solution, active, active_count);
    const std::uint64_t index = indices[m];
    const auto cols = eval.grid().cols;
    const auto delta = eval(eval.row(0, static_cast<std::uint32_t>(index / cols)),
                            static_cast<std::uint32_t>(index % cols));
    const auto move = eval.decode(0, index);
    team.sync(); // every thread decoded before the solution changes
    policy.apply(team, m, solution, move);
    const std::int64_t after = policy.evaluate(team, m, solution);
    if (team.rank() == 0) {
        out[2 * m] = static_cast<std::int64_t>(delta);
        out[2 * m + 1] = after;
    }
}

} // namespace harness_detail

/// Neighborhood k of `device_policy` (device pointers to its instance data; its workspace is
/// allocated here) and of `host_policy` (the same policy over host data, workspace declared
/// here) from `solution`: up to `most` valid moves (spread over the grid) run on the device,
/// one block each. Returns the number of moves checked; CHECKs every delta and objective.
template <int k, class P>
std::uint64_t check_block_moves(P host_policy, P device_policy,
                                const std::vector<std::int32_t>& solution, std::uint32_t most) {
    constexpr unsigned kThreads = 128;
    using Delta = typename P::delta_type;
    gpu::ArrayList host_list;
    host_policy.declare(host_list, 1);
    gpu::HostStorage host_storage;
    host_storage.allocate(host_list);
    std::vector<std::int32_t> base = solution;
    std::vector<std::int32_t> all(static_cast<std::size_t>(host_policy.elements()));
    std::iota(all.begin(), all.end(), 0);
    const std::int32_t count = host_policy.elements();
    host_policy.refresh(gpu::SerialTeam{}, 0, base.data());
    const std::int64_t before = host_policy.evaluate(gpu::SerialTeam{}, 0, base.data());
    const auto eval = host_policy.template evaluator<k>(0, base.data(), all.data(), &count);
    const gpu::MoveGrid grid = eval.grid();
    std::vector<std::uint64_t> valid;
    std::vector<std::int64_t> host_delta;
    for (std::uint64_t index = 0; index < grid.size(); ++index) {
        const Delta d = eval(eval.row(0, static_cast<std::uint32_t>(index / grid.cols)),
                             static_cast<std::uint32_t>(index % grid.cols));
        if (d == gpu::invalid_delta<Delta>())
            continue;
        valid.push_back(index);
        host_delta.push_back(static_cast<std::int64_t>(d));
    }
    std::vector<std::uint64_t> chosen;
    std::vector<std::int64_t> expected;
    const std::size_t step = valid.size() <= most ? 1 : (valid.size() + most - 1) / most;
    for (std::size_t i = 0; i < valid.size(); i += step) {
        chosen.push_back(valid[i]);
        expected.push_back(host_delta[i]);
    }
    const auto moves = static_cast<std::uint32_t>(chosen.size());
    if (moves == 0)
        return 0;

    gpu::ArrayList list;
    device_policy.declare(list, moves);
    gpu::DeviceStorage storage;
    storage.allocate(list, {}, "harness", "");
    const auto width = static_cast<std::size_t>(host_policy.width());
    gpu::DeviceBuffer<std::int32_t> d_base(width), d_active(all.size()), d_count(1);
    gpu::DeviceBuffer<std::int32_t> d_solutions(width * moves);
    gpu::DeviceBuffer<std::uint64_t> d_indices(moves);
    gpu::DeviceBuffer<std::int64_t> d_out(2 * static_cast<std::size_t>(moves));
    d_base.upload(base.data(), width);
    d_active.upload(all.data(), all.size());
    d_count.upload(&count, 1);
    d_indices.upload(chosen.data(), moves);
    harness_detail::block_moves_kernel<k, P, kThreads><<<moves, kThreads>>>(
        device_policy, d_base.data(), static_cast<std::int32_t>(width), d_active.data(),
        d_count.data(), d_indices.data(), d_solutions.data(), d_out.data());
    LOCUS_CUDA_CHECK(cudaGetLastError());
    LOCUS_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<std::int64_t> out(2 * static_cast<std::size_t>(moves));
    d_out.download(out.data(), out.size());
    std::uint64_t wrong_delta = 0;
    std::uint64_t wrong_objective = 0;
    for (std::uint32_t m = 0; m < moves; ++m) {
        wrong_delta += out[2 * m] != expected[m] ? 1 : 0;
        wrong_objective += out[2 * m + 1] != before + out[2 * m] ? 1 : 0;
    }
    CHECK(wrong_delta == 0);
    CHECK(wrong_objective == 0);
    return moves;
}

} // namespace locus::test
