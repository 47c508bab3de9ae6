// The FANG tour construction on the CPU twin.

#include <doctest/doctest.h>

#include "locus/tsp/fang_construction.hpp"
#include "locus/tsp/generator.hpp"
#include "locus/tsp/heuristics.hpp"
#include "locus/tsp/tour_io.hpp"
#include "locus/tsp/tsp_problem.hpp"

using namespace locus;
using namespace locus::tsp;

namespace {
double mean_length(const TspProblem& problem, std::int32_t greed, std::uint64_t seed) {
    SolutionBatch batch(8, problem.size());
    FangTour(problem, greed, Backend::cpu, 0).construct(batch, seed);
    double sum = 0;
    for (std::size_t s = 0; s < batch.count(); ++s) {
        REQUIRE_FALSE(check_tour(batch[s], problem.size()).has_value());
        CHECK(batch.objective(s) == problem.evaluate(batch[s]));
        sum += batch.objective(s);
    }
    return sum / 8.0;
}
} // namespace

TEST_CASE("FANG tours are permutations whose greed moves them from random to nearest-neighbor") {
    TspProblem problem(generate_random_uniform(300, 6, 100000));
    const double random_like = mean_length(problem, 0, 1);
    const double mild = mean_length(problem, 1, 1);
    const double greedy = mean_length(problem, 4, 1);
    SolutionBatch nn(8, 300);
    NearestNeighborTour(problem, -1).construct(nn, 1);
    double nn_mean = 0;
    for (std::size_t s = 0; s < 8; ++s) nn_mean += nn.objective(s) / 8.0;
    CHECK(greedy < mild);
    CHECK(mild < random_like);
    CHECK(greedy < 1.6 * nn_mean);
    CHECK(random_like > 4.0 * nn_mean);
}

TEST_CASE("FANG tours are reproducible by seed and start at the drawn city") {
    TspProblem problem(generate_random_uniform(120, 2, 1000));
    std::vector<std::int32_t> starts = {5, 17, 5};
    std::vector<std::int32_t> a(3 * 120), b(3 * 120), c(3 * 120);
    fang_tours_cpu(problem, 3, starts.data(), 3, 99, 1, a.data());
    fang_tours_cpu(problem, 3, starts.data(), 3, 99, 0, b.data());
    fang_tours_cpu(problem, 3, starts.data(), 3, 100, 0, c.data());
    CHECK(a == b);
    CHECK(a != c);
    CHECK(a[0] == 5);
    CHECK(a[120] == 17);
    CHECK(a[240] == 5);
    // Same start, different clone streams: different tours.
    CHECK_FALSE(std::equal(a.begin(), a.begin() + 120, a.begin() + 240));
}

TEST_CASE("FANG tours built in parts equal the tours built at once") {
    // construct_until builds a batch chunk by chunk; tour s keeps its stream (first + t).
    TspProblem problem(generate_random_uniform(150, 4, 1000));
    const std::vector<std::int32_t> starts = {3, 9, 27, 81, 3, 140, 77};
    const std::size_t n = 150;
    std::vector<std::int32_t> whole(7 * n), parts(7 * n);
    fang_tours_cpu(problem, 3, starts.data(), 7, 42, 0, whole.data());
    fang_tours_cpu(problem, 3, starts.data(), 3, 42, 0, parts.data(), 0);
    fang_tours_cpu(problem, 3, starts.data() + 3, 4, 42, 0, parts.data() + 3 * n, 3);
    CHECK(whole == parts);
    // Shifting the numbering changes the tours (the offset is used).
    std::vector<std::int32_t> shifted(4 * n);
    fang_tours_cpu(problem, 3, starts.data() + 3, 4, 42, 0, shifted.data(), 0);
    CHECK_FALSE(std::equal(shifted.begin(), shifted.end(), whole.begin() + 3 * n));
}

TEST_CASE("a FANG batch stopped early keeps what it built and copies tour 0 into the rest") {
    TspProblem problem(generate_random_uniform(2000, 5, 100000));
    const std::uint32_t chunk = FangTour::chunk_tours(2000, Backend::cpu, 1);
    REQUIRE(chunk >= 1);
    REQUIRE(chunk < 64);
    SolutionBatch batch(64, problem.size()), full(64, problem.size());
    FangTour fang(problem, 2, Backend::cpu, 1);
    int polls = 0;
    fang.construct_until(batch, 8, [&] { return ++polls >= 2; }); // stops before chunk 2
    fang.construct(full, 8);
    CHECK(polls == 2);
    for (std::size_t s = 0; s < 64; ++s) {
        CAPTURE(s);
        REQUIRE_FALSE(check_tour(batch[s], problem.size()).has_value());
        CHECK(batch.objective(s) == problem.evaluate(batch[s]));
        const auto& expect = s < 2 * chunk ? full[s] : full[0];
        CHECK(std::equal(batch[s].begin(), batch[s].end(), expect.begin()));
    }
}
