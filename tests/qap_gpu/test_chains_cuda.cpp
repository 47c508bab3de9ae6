// The QAP chains on CUDA follow the CPU twin exactly (copy-best and recombining exchanges).

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>

#include "locus/qap/chain_runner.hpp"
#include "locus/qap/generator.hpp"
#include "locus/rng.hpp"

using namespace locus;
using namespace locus::qap;

TEST_CASE("QAP resident chains give identical results on CPU and CUDA") {
    for (std::int32_t n : {12, 45}) {
        const Instance instance = generate_random(n, 3, 100, n == 45);
        const std::uint32_t chains = 10;
        gpu::ChainParams params;
        params.seed = 3;
        params.check_moves = true;
        params.acceptance.kind = gpu::AcceptanceKind::threshold;
        params.acceptance.threshold = 30;
        auto cpu = make_cpu_chain_runner(instance, 0, chains, params, 0);
        auto cuda = make_cuda_chain_runner(instance, 0, chains, params, 0, {});
        std::vector<std::int32_t> starts(static_cast<std::size_t>(n) * chains);
        std::vector<std::int64_t> objectives(chains);
        for (std::uint32_t c = 0; c < chains; ++c) {
            auto* p = starts.data() + static_cast<std::size_t>(c) * n;
            std::iota(p, p + n, 0);
            Rng rng(11, c);
            for (std::int32_t k = n - 1; k > 0; --k)
                std::swap(p[k], p[rng.below(static_cast<std::uint32_t>(k + 1))]);
            objectives[c] = objective(instance, std::span<const std::int32_t>(p, n));
        }
        cpu->start(starts, objectives, {}, 0);
        cuda->start(starts, objectives, {}, 0);
        for (std::uint64_t round = 0; round < 3; ++round) {
            std::vector<std::uint32_t> a(chains), b(chains);
            for (std::uint32_t c = 0; c < chains; ++c) {
                a[c] = (c + static_cast<std::uint32_t>(round)) % chains;
                b[c] = (c + 3) % chains;
            }
            cpu->recombine(a, b, round);
            cuda->recombine(a, b, round);
            cpu->epoch(round * 4, 4, {});
            cuda->epoch(round * 4, 4, {});
        }
        CHECK(cpu->best_objectives() == cuda->best_objectives());
        CHECK(cpu->evaluations() == cuda->evaluations());
        CHECK_FALSE(cuda->check().failed);
        std::vector<std::int32_t> x(n), y(n);
        for (std::uint32_t c = 0; c < chains; ++c) {
            cpu->best_solution(c, x);
            cuda->best_solution(c, y);
            CHECK(x == y);
        }
    }
}
