// The QAP chain policy on the Block team: every swap's delta equals the Serial team's and the
// objective after the table update equals before + delta.

#include <doctest/doctest.h>

#include <vector>

#include "chain_policy_harness.cuh"
#include "locus/gpu/device_buffer.hpp"
#include "locus/qap/chain_policy.hpp"
#include "locus/qap/generator.hpp"

using namespace locus;
using namespace locus::qap;

TEST_CASE("QAP chain policy on the Block team: every swap") {
    for (std::int32_t n : {23, 60}) {
        const Instance instance = generate_random(n, 9, 100, n == 60);
        const auto words = matrix_words(instance);
        gpu::DeviceBuffer<std::int32_t> d_words(words.size());
        d_words.upload(words.data(), words.size());
        QapChainPolicy host;
        host.matrices = swap_policy(words.data(), n, false);
        host.n = n;
        QapChainPolicy dev = host;
        dev.matrices = swap_policy(d_words.data(), n, true);
        const auto start = random_permutations(n, 1, 6);
        CHECK(locus::test::check_block_moves<0>(host, dev, start, 5000) ==
              static_cast<std::uint64_t>(n * (n - 1) / 2));
    }
}
