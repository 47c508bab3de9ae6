// The shared simulated-annealing rule decides identically on host and device: temperatures of
// every schedule (bit for bit), Metropolis decisions and the chain engine's acceptance.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "locus/gpu/annealing.hpp"
#include "locus/gpu/chain_acceptance.hpp"
#include "locus/gpu/cuda_check.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/stream.hpp"
#include "locus/rng.hpp"

namespace {

constexpr int kSteps = 256;
constexpr int kWords = 3 * kSteps + kSteps; ///< three schedules' temperatures, then decisions

/// Lane w's record: T after every step of each schedule (as bits), then one Metropolis decision
/// and one chain acceptance per step (bit 0 and bit 1).
LOCUS_HD void record(std::uint32_t w, std::uint64_t* out) {
    using locus::gpu::Cooling;
    using locus::gpu::Schedule;
    const double t0 = locus::gpu::derived_temperature(static_cast<double>(1000 + 37 * w), 7 + w % 5,
                                                      -0.6931471805599453);
    const Schedule schedules[3] = {Schedule::geometric, Schedule::linear, Schedule::lundy_mees};
    for (int s = 0; s < 3; ++s) {
        const Cooling c = Cooling::make(schedules[s], t0, 0.97, 1e-3, kSteps);
        double t = t0;
        for (int k = 0; k < kSteps; ++k) {
            t = c.next(t, static_cast<std::uint64_t>(k));
            std::uint64_t bits = 0;
            memcpy(&bits, &t, sizeof bits);
            out[s * kSteps + k] = bits;
        }
    }
    locus::gpu::Acceptance a;
    a.kind = locus::gpu::AcceptanceKind::annealing;
    a.temperature = t0;
    a.log_cooling = -0.01;
    locus::Rng rng(locus::derive_key(77, w), 0);
    for (int k = 0; k < kSteps; ++k) {
        const double uphill = static_cast<double>(1 + (w * 131 + k * 17) % 400);
        const double t =
            locus::gpu::geometric_temperature(t0, -0.01, static_cast<std::uint64_t>(k));
        const bool m = locus::gpu::metropolis(uphill, t, locus::gpu::unit_interval(rng.next_u64()));
        const bool c = a.accept(5000 + static_cast<std::int64_t>(uphill), 5000, 9, w,
                                static_cast<std::uint64_t>(k));
        out[3 * kSteps + k] = (m ? 1u : 0u) | (c ? 2u : 0u);
    }
}

__global__ void record_kernel(std::uint32_t lanes, std::uint64_t* out) {
    const std::uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w < lanes) record(w, out + static_cast<std::size_t>(w) * kWords);
}

} // namespace

TEST_CASE("annealing: schedules, Metropolis decisions and chain acceptance agree on host and "
          "device bit for bit") {
    constexpr std::uint32_t kLanes = 512;
    locus::gpu::Stream stream;
    locus::gpu::DeviceBuffer<std::uint64_t> d_out(kLanes * kWords, "annealing records");
    record_kernel<<<(kLanes + 127) / 128, 128, 0, stream>>>(kLanes, d_out.data());
    LOCUS_CUDA_CHECK_LAUNCH();
    std::vector<std::uint64_t> device(d_out.size());
    d_out.download_async(device.data(), device.size(), stream);
    stream.synchronize();
    std::vector<std::uint64_t> host(d_out.size());
    for (std::uint32_t w = 0; w < kLanes; ++w)
        record(w, host.data() + static_cast<std::size_t>(w) * kWords);
    int mismatches = 0;
    int accepted = 0;
    for (std::size_t i = 0; i < host.size(); ++i) {
        mismatches += host[i] == device[i] ? 0 : 1;
        if (i % kWords >= 3 * kSteps) accepted += static_cast<int>(host[i] & 1u);
    }
    CHECK(mismatches == 0);
    CHECK(accepted > 0); // the decisions are not all alike
    CHECK(accepted < static_cast<int>(kLanes) * kSteps);
}
