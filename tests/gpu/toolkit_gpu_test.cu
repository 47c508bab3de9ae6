// Device-side pieces of the toolkit: RNG streams identical on host and device, device buffers,
// streams and the out-of-memory message.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "locus/error.hpp"
#include "locus/gpu/cuda_check.hpp"
#include "locus/gpu/device.hpp"
#include "locus/gpu/device_buffer.hpp"
#include "locus/gpu/stream.hpp"
#include "locus/rng.hpp"

namespace {

constexpr int kDrawsPerKind = 16;
constexpr int kDrawsPerStream = 3 * kDrawsPerKind;

/// One draw sequence of stream `stream` of `seed`: raw words, bounded integers, uniforms.
LOCUS_HD void draw_sequence(std::uint64_t seed, std::uint64_t stream, std::uint64_t* out) {
    locus::Rng rng(locus::derive_key(seed, stream), stream);
    for (int i = 0; i < kDrawsPerKind; ++i)
        out[i] = rng.next_u32();
    for (int i = 0; i < kDrawsPerKind; ++i) {
        const std::uint32_t bound = i % 2 == 0 ? 0x80000001u : static_cast<std::uint32_t>(i + 1);
        out[kDrawsPerKind + i] = rng.below(bound);
    }
    for (int i = 0; i < kDrawsPerKind; ++i) {
        const double u = rng.uniform();
        std::uint64_t bits = 0;
        memcpy(&bits, &u, sizeof bits);
        out[2 * kDrawsPerKind + i] = bits;
    }
}

__global__ void draw_kernel(std::uint64_t seed, std::uint32_t streams, std::uint64_t* out) {
    const std::uint32_t stream = blockIdx.x * blockDim.x + threadIdx.x;
    if (stream < streams)
        draw_sequence(seed, stream, out + static_cast<std::uint64_t>(stream) * kDrawsPerStream);
}

} // namespace

TEST_CASE("Rng draws are identical on host and device for many streams") {
    constexpr std::uint32_t kStreams = 5000;
    constexpr std::uint64_t kSeed = 20240601;
    locus::gpu::Stream stream;
    locus::gpu::DeviceBuffer<std::uint64_t> d_draws(kStreams * kDrawsPerStream, "rng draws");
    draw_kernel<<<(kStreams + 127) / 128, 128, 0, stream>>>(kSeed, kStreams, d_draws.data());
    LOCUS_CUDA_CHECK_LAUNCH();
    std::vector<std::uint64_t> device(d_draws.size());
    d_draws.download_async(device.data(), device.size(), stream);
    stream.synchronize();

    std::vector<std::uint64_t> host(d_draws.size());
    for (std::uint32_t s = 0; s < kStreams; ++s)
        draw_sequence(kSeed, s, host.data() + static_cast<std::size_t>(s) * kDrawsPerStream);
    int mismatches = 0;
    for (std::size_t i = 0; i < host.size(); ++i)
        mismatches += host[i] == device[i] ? 0 : 1;
    CHECK(mismatches == 0);
    CHECK(host[0] != host[kDrawsPerStream]); // distinct streams
}

TEST_CASE("DeviceBuffer round trips through blocking and stream-ordered copies") {
    std::vector<int> values(1000);
    for (std::size_t i = 0; i < values.size(); ++i)
        values[i] = static_cast<int>(i * i) - 7;

    locus::gpu::DeviceBuffer<int> buffer(values.size(), "round trip");
    CHECK(buffer.size() == 1000);
    CHECK(buffer.bytes() == 4000);
    buffer.upload(values.data(), values.size());
    std::vector<int> back(values.size(), 0);
    buffer.download(back.data(), back.size());
    CHECK(back == values);

    locus::gpu::Stream stream;
    locus::gpu::PinnedBuffer<int> pinned(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
        pinned[i] = -values[i];
    buffer.upload_async(pinned.data(), values.size(), stream);
    locus::gpu::DeviceBuffer<int> moved(std::move(buffer));
    CHECK(buffer.data() == nullptr);
    CHECK(buffer.size() == 0);
    CHECK(moved.size() == values.size());
    std::vector<int> again(values.size(), 0);
    moved.download_async(again.data(), again.size(), stream);
    stream.synchronize();
    for (std::size_t i = 0; i < values.size(); ++i)
        REQUIRE(again[i] == -values[i]);
}

TEST_CASE("an impossible allocation throws a CudaError that names the request") {
    locus::gpu::DeviceBuffer<char> buffer;
    try {
        buffer.allocate(std::size_t{1} << 50, "the distance matrix");
        FAIL("allocating 1 PiB did not throw");
    } catch (const locus::CudaError& error) {
        const std::string message = error.what();
        CHECK(message.rfind("GPU out of memory allocating the distance matrix: requested "
                            "1073741824.0 MiB, the device has ",
                            0) == 0);
        CHECK(message.find("out of memory") != std::string::npos);
        CHECK(message.ends_with("or use --backend cpu"));
    }
    CHECK(buffer.empty());
    // The failure does not linger in the runtime's error state.
    CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("device_description names the compute capability and memory") {
    locus::gpu::require_device(0);
    const std::string description = locus::gpu::device_description(0);
    CHECK(description.find(" (sm_") != std::string::npos);
    CHECK(description.ends_with(" GiB)"));
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    locus::gpu::memory_info(free_bytes, total_bytes);
    CHECK(free_bytes > 0);
    CHECK(free_bytes <= total_bytes);
}
