// Host-side pieces of the device toolkit: the counter-based RNG, CUDA error messages and the
// device queries (which must answer sensibly on machines without a GPU).
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <string>

#include "locus/error.hpp"
#include "locus/gpu/cuda_check.hpp"
#include "locus/gpu/device.hpp"
#include "locus/gpu/storage.hpp"
#include "locus/rng.hpp"

TEST_CASE("Rng::below is uniform over its range and never reaches the bound") {
    locus::Rng rng(2024, 7);
    constexpr int kBuckets = 10;
    constexpr int kDraws = 200000;
    std::array<int, kBuckets> histogram{};
    for (int i = 0; i < kDraws; ++i) {
        const std::uint32_t value = rng.below(kBuckets);
        REQUIRE(value < kBuckets);
        ++histogram[value];
    }
    double chi_square = 0.0;
    const double expected = static_cast<double>(kDraws) / kBuckets;
    for (const int count : histogram)
        chi_square += (count - expected) * (count - expected) / expected;
    CHECK(chi_square < 30.0); // 9 degrees of freedom: p ~ 4e-4

    locus::Rng one(1, 1);
    for (int i = 0; i < 100; ++i)
        CHECK(one.below(1) == 0u);
    // A bound just above 2^31 rejects about half of the raw draws: still in range, both halves hit.
    const std::uint32_t big = 0x80000001u;
    int upper_half = 0;
    for (int i = 0; i < 2000; ++i) {
        const std::uint32_t value = rng.below(big);
        REQUIRE(value < big);
        upper_half += value >= big / 2 ? 1 : 0;
    }
    CHECK(upper_half > 900);
    CHECK(upper_half < 1100);
}

TEST_CASE("Rng::uniform lies in [0, 1) with the mean and variance of U(0, 1)") {
    locus::Rng rng(99, 3);
    constexpr int kDraws = 200000;
    double sum = 0.0;
    double sum_squares = 0.0;
    double low = 1.0;
    double high = 0.0;
    for (int i = 0; i < kDraws; ++i) {
        const double u = rng.uniform();
        REQUIRE(u >= 0.0);
        REQUIRE(u < 1.0);
        sum += u;
        sum_squares += u * u;
        low = std::min(low, u);
        high = std::max(high, u);
    }
    const double mean = sum / kDraws;
    const double variance = sum_squares / kDraws - mean * mean;
    CHECK(std::abs(mean - 0.5) < 0.005);
    CHECK(std::abs(variance - 1.0 / 12.0) < 0.002);
    CHECK(low < 0.001);
    CHECK(high > 0.999);
}

TEST_CASE("Rng streams depend only on their key") {
    const auto draws = [](locus::Rng rng) {
        std::array<std::uint32_t, 8> values{};
        for (auto& value : values)
            value = rng.next_u32();
        return values;
    };
    CHECK(draws(locus::Rng(5, 9)) == draws(locus::Rng(5, 9)));
    CHECK(draws(locus::Rng(5, 9)) != draws(locus::Rng(6, 9)));
    CHECK(draws(locus::Rng(5, 9)) != draws(locus::Rng(5, 10)));
    CHECK(locus::derive_key(1, 2, 3) != locus::derive_key(1, 3, 2));
    CHECK(locus::derive_key(1, 2, 3, 4) != locus::derive_key(1, 2, 3, 5));
    // Neighbouring derived keys give unrelated streams: few equal words among 1000 pairs.
    int equal = 0;
    for (std::uint64_t solution = 0; solution < 1000; ++solution) {
        locus::Rng a(locus::derive_key(42, 0, solution), 0);
        locus::Rng b(locus::derive_key(42, 0, solution + 1), 0);
        equal += a.next_u32() == b.next_u32() ? 1 : 0;
    }
    CHECK(equal == 0);
}

TEST_CASE("check_cuda turns a CUDA error into a CudaError naming the call") {
    try {
        locus::gpu::check_cuda(cudaErrorInvalidValue, "cudaMemcpy(host, device)");
        FAIL("check_cuda did not throw");
    } catch (const locus::CudaError& error) {
        CHECK(std::string(error.what()) ==
              "CUDA error in cudaMemcpy(host, device): cudaErrorInvalidValue: invalid argument");
    }
    CHECK(locus::gpu::cuda_error_message(cudaErrorInvalidValue, "f()", "a.cu", 12) ==
          "CUDA error in f() at a.cu:12: cudaErrorInvalidValue: invalid argument");
    const std::string oom =
        locus::gpu::cuda_error_message(cudaErrorMemoryAllocation, "cudaMalloc(&p, n)", "b.cu", 3);
    CHECK(oom.rfind("CUDA error in cudaMalloc(&p, n) at b.cu:3: out of memory "
                    "(cudaErrorMemoryAllocation)",
                    0) == 0);
    CHECK(oom.find("or use --backend cpu") != std::string::npos);
    CHECK_NOTHROW(locus::gpu::check_cuda(cudaSuccess, "nothing"));
}

TEST_CASE("LOCUS_CUDA_CHECK reports the expression and its location") {
    const auto fail = [] { return cudaErrorInvalidDevice; };
    try {
        LOCUS_CUDA_CHECK(fail());
        FAIL("LOCUS_CUDA_CHECK did not throw");
    } catch (const locus::CudaError& error) {
        const std::string message = error.what();
        CHECK(message.rfind("CUDA error in fail() at ", 0) == 0);
        CHECK(message.find("toolkit_cpu_test.cpp:") != std::string::npos);
        CHECK(message.find(": cudaErrorInvalidDevice: invalid device ordinal") !=
              std::string::npos);
    }
}

TEST_CASE("device queries agree with each other") {
    const int count = locus::gpu::device_count();
    const std::string reason = locus::gpu::device_unavailable_reason();
    if (count == 0) {
        CHECK(reason.rfind("cudaGetDeviceCount failed: ", 0) == 0);
        try {
            locus::gpu::require_device(0);
            FAIL("require_device(0) did not throw without a device");
        } catch (const locus::CudaError& error) {
            const std::string message = error.what();
            CHECK(message.rfind("--backend cuda: no CUDA device is available (cudaGetDeviceCount: ",
                                0) == 0);
            CHECK(message.ends_with("); use --backend cpu"));
        }
    } else {
        CHECK(reason.empty());
        CHECK(locus::gpu::device_description(0).find("(sm_") != std::string::npos);
        CHECK_THROWS_WITH_AS(locus::gpu::require_device(count),
                             ("CUDA device " + std::to_string(count) + " does not exist (" +
                              std::to_string(count) +
                              (count == 1 ? " device present)" : " devices present)"))
                                 .c_str(),
                             locus::CudaError);
        CHECK_THROWS_WITH_AS(locus::gpu::require_device(-1),
                             ("CUDA device -1 does not exist (" + std::to_string(count) +
                              (count == 1 ? " device present)" : " devices present)"))
                                 .c_str(),
                             locus::CudaError);
    }
}

TEST_CASE("HostStorage that cannot be allocated says how much and what, not only bad_alloc") {
    std::int64_t* huge = nullptr;
    std::int32_t* small = nullptr;
    locus::gpu::ArrayList list;
    list.add(huge, std::size_t{1} << 58, "huge rows");
    list.add(small, 16, "small rows");
    locus::gpu::HostStorage storage;
    std::string message;
    try {
        storage.allocate(list);
    } catch (const locus::Error& e) {
        message = e.what();
    }
    CHECK(message.starts_with("out of host memory: the search's arrays need "));
    CHECK(message.find("(largest: huge rows (") != std::string::npos);
    CHECK(message.ends_with("use a smaller batch"));
}

TEST_CASE("HostStorage over a memory budget names the budget key and what needs the memory") {
    std::int64_t* rows = nullptr;
    locus::gpu::ArrayList list;
    list.add(rows, std::size_t{3} << 20, "chain rows"); // 24 MiB
    locus::gpu::HostStorage storage;
    std::string message;
    try {
        storage.allocate(list, std::size_t{16} << 20);
    } catch (const locus::Error& e) {
        message = e.what();
    }
    CHECK(message.starts_with("the search's arrays need 24.0 MiB of host memory (largest: chain "
                              "rows ("));
    CHECK(message.ends_with("memory_budget allows 16.0 MiB; raise memory_budget or use a smaller "
                            "batch"));
    CHECK(rows == nullptr); // nothing bound
    storage.allocate(list, std::size_t{32} << 20);
    REQUIRE(rows != nullptr);
    CHECK(rows[(std::size_t{3} << 20) - 1] == 0);
}
