// The QAP swap neighborhood on CUDA makes the same choices as on the CPU twin.

#include <doctest/doctest.h>

#include <numeric>

#include "locus/qap/generator.hpp"
#include "locus/qap/qap_problem.hpp"
#include "locus/qap/swap_neighborhood.hpp"
#include "locus/rng.hpp"

using namespace locus;
using namespace locus::qap;

TEST_CASE("CUDA and CPU swap explorations and descents are identical") {
    for (std::int32_t n : {12, 40, 100}) {
        for (bool asymmetric : {false, true}) {
            const QapProblem problem(
                generate_random(n, static_cast<std::uint64_t>(n), 100, asymmetric));
            auto cpu = make_cpu_swap(problem, {});
            auto cuda = make_cuda_swap(problem, {});
            SolutionBatch batch(6, problem.size());
            for (std::size_t i = 0; i < 6; ++i) {
                auto p = batch[i];
                std::iota(p.begin(), p.end(), 0);
                Rng rng(7, i);
                for (std::size_t k = p.size() - 1; k > 0; --k)
                    std::swap(p[k], p[rng.below(static_cast<std::uint32_t>(k + 1))]);
                batch.objective(i) = problem.evaluate(p);
            }
            for (Pivot pivot : {Pivot::best, Pivot::first}) {
                std::vector<MoveChoice> a(6), b(6);
                cpu->explore(batch, pivot, a);
                cuda->explore(batch, pivot, b);
                for (std::size_t s = 0; s < 6; ++s) {
                    CHECK(a[s].index == b[s].index);
                    CHECK(a[s].delta == b[s].delta);
                }
                SolutionBatch x = batch, y = batch;
                const DescentStats sx = cpu->descend(x, pivot, 0, {});
                const DescentStats sy = cuda->descend(y, pivot, 0, {});
                CHECK(sx.steps == sy.steps);
                CHECK(sx.evaluations == sy.evaluations);
                CHECK(std::equal(x.data().begin(), x.data().end(), y.data().begin()));
                for (std::size_t s = 0; s < 6; ++s)
                    CHECK(x.objective(s) == y.objective(s));
            }
            // The parallel descent of independent swaps (Riise & Burke's rule, exact for the QAP).
            SolutionBatch x = batch, y = batch;
            const DescentStats px = cpu->descend_independent(x, {}, {});
            const DescentStats py = cuda->descend_independent(y, {}, {});
            CHECK(px.steps == py.steps);
            CHECK(px.explorations == py.explorations);
            CHECK(px.evaluations == py.evaluations);
            CHECK(std::equal(x.data().begin(), x.data().end(), y.data().begin()));
            for (std::size_t s = 0; s < 6; ++s)
                CHECK(x.objective(s) == y.objective(s));
        }
    }
}
