// The QAP on the many-chain engine (CPU twin): the chain policy's swap moves against full
// re-evaluation, exact objectives, determinism, exchanges with recombination.

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>

#include "chain_policy_harness.hpp"
#include "locus/qap/chain_policy.hpp"
#include "locus/qap/chain_runner.hpp"
#include "locus/qap/generator.hpp"
#include "locus/qap/qap_problem.hpp"
#include "locus/rng.hpp"

using namespace locus;
using namespace locus::qap;

namespace {

struct Outcome {
    std::vector<std::int64_t> best;
    std::vector<std::int32_t> solutions;
    std::uint64_t evaluations;
};

Outcome run(const QapProblem& problem, std::uint32_t chains, int threads, bool recombine) {
    const std::int32_t n = problem.instance().n;
    gpu::ChainParams params;
    params.seed = 23;
    params.check_moves = true;
    auto runner = make_cpu_chain_runner(problem.instance(), 0, chains, params, threads);
    const auto starts = random_permutations(n, chains, 4);
    std::vector<std::int64_t> objectives(chains);
    for (std::uint32_t c = 0; c < chains; ++c)
        objectives[c] = objective(problem.instance(),
                                  std::span(starts.data() + static_cast<std::size_t>(c) * n, n));
    runner->start(starts, objectives, {}, 0);
    for (std::uint64_t round = 0; round < 3; ++round) {
        if (recombine) {
            std::vector<std::uint32_t> a(chains), b(chains);
            for (std::uint32_t c = 0; c < chains; ++c) {
                a[c] = c;
                b[c] = (c + 1 + static_cast<std::uint32_t>(round)) % chains;
            }
            runner->recombine(a, b, round);
        }
        runner->epoch(round * 5, 5, {});
    }
    REQUIRE_FALSE(runner->check().failed);
    Outcome out{runner->best_objectives(), std::vector<std::int32_t>(starts.size()),
                runner->evaluations()};
    for (std::uint32_t c = 0; c < chains; ++c)
        runner->best_solution(c, std::span(out.solutions.data() + static_cast<std::size_t>(c) * n,
                                           static_cast<std::size_t>(n)));
    return out;
}

} // namespace

TEST_CASE("QAP chain policy: every swap's delta and the incrementally updated table") {
    for (bool asymmetric : {false, true}) {
        const Instance instance = generate_random(23, 5, 100, asymmetric);
        const auto words = matrix_words(instance);
        QapChainPolicy policy;
        policy.matrices = swap_policy(words.data(), instance.n, false);
        policy.n = instance.n;
        const auto start = random_permutations(instance.n, 1, 8);
        locus::test::HarnessCount count;
        locus::test::check_neighborhood<0>(policy, start, count);
        CHECK(count.moves == 23 * 22 / 2);
        CHECK(count.wrong_delta == 0);
        CHECK(count.wrong_workspace == 0);
    }
}

TEST_CASE("QAP chains: exact objectives, improvement, thread-count independence") {
    const QapProblem problem(generate_random(30, 2, 100, false));
    for (bool recombine : {false, true}) {
        CAPTURE(recombine);
        const Outcome a = run(problem, 6, 1, recombine);
        const Outcome b = run(problem, 6, 0, recombine);
        CHECK(a.best == b.best);
        CHECK(a.solutions == b.solutions);
        CHECK(a.evaluations == b.evaluations);
        for (std::uint32_t c = 0; c < 6; ++c) {
            const std::span<const std::int32_t> p(a.solutions.data() + c * 30u, 30);
            std::vector<std::int32_t> sorted(p.begin(), p.end());
            std::sort(sorted.begin(), sorted.end());
            std::vector<std::int32_t> identity(30);
            std::iota(identity.begin(), identity.end(), 0);
            CHECK(sorted == identity);
            CHECK(a.best[c] == objective(problem.instance(), p));
        }
    }
}

TEST_CASE("QAP recombination keeps the locations both parents agree on") {
    const Instance instance = generate_random(16, 3, 100, false);
    const auto words = matrix_words(instance);
    QapChainPolicy policy;
    policy.matrices = swap_policy(words.data(), instance.n, false);
    policy.n = instance.n;
    std::vector<std::int32_t> used(16);
    policy.used = used.data();
    const auto parents = random_permutations(16, 2, 1);
    std::vector<std::int32_t> a(parents.begin(), parents.begin() + 16);
    std::vector<std::int32_t> b = a;
    std::swap(b[2], b[9]);
    std::swap(b[4], b[11]);
    std::vector<std::int32_t> child(16);
    Rng rng(5, 0);
    policy.recombine(0, a.data(), b.data(), child.data(), rng);
    for (std::int32_t i : {0, 1, 3, 5, 6, 7, 8, 10, 12, 13, 14, 15}) CHECK(child[i] == a[i]);
    std::vector<std::int32_t> sorted = child;
    std::sort(sorted.begin(), sorted.end());
    for (std::int32_t i = 0; i < 16; ++i) CHECK(sorted[i] == i);
}
