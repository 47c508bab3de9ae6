// Riise & Burke's independence of 2-opt moves against brute force: every pair of moves the rule
// calls independent, applied together, changes the tour length by the sum of the two deltas;
// greedy selection of independent improving moves keeps the best move and no conflicting pair,
// and applying the selection changes the length by the sum of its deltas.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "locus/gpu/independent_moves.hpp"
#include "locus/rng.hpp"
#include "locus/tsp/combine.hpp"
#include "locus/tsp/generator.hpp"
#include "locus/tsp/heuristics.hpp"
#include "locus/tsp/independence.hpp"
#include "locus/tsp/tour_engine.hpp"

using namespace locus;
using namespace locus::tsp;

namespace {

struct Points {
    std::vector<double> x, y;
    std::int64_t d(std::int32_t a, std::int32_t b) const {
        const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
        return std::llround(std::hypot(x[ua] - x[ub], y[ua] - y[ub]));
    }
    std::int64_t length(const std::vector<std::int32_t>& t) const {
        std::int64_t sum = 0;
        for (std::size_t k = 0; k < t.size(); ++k)
            sum += d(t[k], t[(k + 1) % t.size()]);
        return sum;
    }
};

Points random_points(std::int32_t n, std::uint64_t seed) {
    Rng rng(seed, 0);
    Points p;
    for (std::int32_t k = 0; k < n; ++k) {
        p.x.push_back(rng.below(1000));
        p.y.push_back(rng.below(1000));
    }
    return p;
}

/// The tour 0, 1, ..., n - 1.
std::vector<std::int32_t> identity_tour(std::int32_t n) {
    std::vector<std::int32_t> tour(static_cast<std::size_t>(n));
    std::iota(tour.begin(), tour.end(), 0);
    return tour;
}

/// Every 2-opt move of a tour of n cities (i < j, the two edges distinct and not adjacent).
std::vector<TourMove> all_two_opt(std::int32_t n) {
    std::vector<TourMove> moves;
    for (std::int32_t i = 0; i < n; ++i)
        for (std::int32_t j = i + 2; j < n; ++j) {
            if (i == 0 && j == n - 1) continue;
            TourMove m;
            m.kind = MoveKind::two_opt;
            m.valid = true;
            m.i = i;
            m.j = j;
            moves.push_back(m);
        }
    return moves;
}

std::int64_t delta(const Points& p, const std::vector<std::int32_t>& t, const TourMove& m) {
    const auto n = static_cast<std::int32_t>(t.size());
    const auto at = [&](std::int32_t q) { return t[static_cast<std::size_t>(wrap(q, n))]; };
    return p.d(at(m.i), at(m.j)) + p.d(at(m.i + 1), at(m.j + 1)) - p.d(at(m.i), at(m.i + 1)) -
           p.d(at(m.j), at(m.j + 1));
}

} // namespace

TEST_CASE("2-opt moves independent by Riise & Burke's rule add up when applied together") {
    std::uint64_t independent = 0;
    std::uint64_t nested = 0;
    for (const std::uint64_t seed : {1u, 2u, 3u}) {
        const std::int32_t n = 13;
        const Points p = random_points(n, seed);
        const std::vector<std::int32_t> tour = identity_tour(n);
        const std::int64_t base = p.length(tour);
        const auto moves = all_two_opt(n);
        for (const TourMove& a : moves)
            for (const TourMove& b : moves) {
                CHECK(two_opt_conflict(a, b) == two_opt_conflict(b, a));
                if (two_opt_conflict(a, b)) continue;
                ++independent;
                nested += (a.i < b.i && b.j < a.j) ? 1 : 0;
                std::vector<std::int32_t> both = tour;
                apply_independent_two_opt<std::int32_t>(both, {a, b});
                CAPTURE(a.i);
                CAPTURE(a.j);
                CAPTURE(b.i);
                CAPTURE(b.j);
                CHECK(p.length(both) == base + delta(p, tour, a) + delta(p, tour, b));
                // A permutation of the cities still.
                std::vector<std::int32_t> sorted = both;
                std::sort(sorted.begin(), sorted.end());
                CHECK(sorted == tour);
            }
        // A move conflicts with itself (it shares both edges).
        for (const TourMove& a : moves)
            CHECK(two_opt_conflict(a, a));
    }
    CHECK(independent > 1000);
    CHECK(nested > 100);
}

TEST_CASE("greedy selection of independent improving 2-opt moves: the best first, no conflict, "
          "gains that add up") {
    for (const std::uint64_t seed : {4u, 5u, 6u}) {
        const std::int32_t n = 60;
        const Points p = random_points(n, seed);
        const std::vector<std::int32_t> tour = identity_tour(n);
        const auto moves = all_two_opt(n);
        std::vector<std::int64_t> deltas;
        for (const TourMove& m : moves)
            deltas.push_back(delta(p, tour, m));
        const auto picked = gpu::select_independent<TourMove, std::int64_t>(
            moves, deltas, [](const TourMove& a, const TourMove& b) {
                return two_opt_conflict(a, b);
            });
        REQUIRE(picked.size() > 1);
        const auto best = static_cast<std::size_t>(
            std::min_element(deltas.begin(), deltas.end()) - deltas.begin());
        CHECK(picked.front() == best);
        std::int64_t sum = 0;
        std::vector<TourMove> chosen;
        for (std::size_t a = 0; a < picked.size(); ++a) {
            CHECK(deltas[picked[a]] < 0);
            sum += deltas[picked[a]];
            chosen.push_back(moves[picked[a]]);
            for (std::size_t b = a + 1; b < picked.size(); ++b)
                CHECK_FALSE(two_opt_conflict(moves[picked[a]], moves[picked[b]]));
        }
        // Every improving move left out conflicts with a kept move at least as good.
        for (std::size_t m = 0; m < moves.size(); ++m) {
            if (deltas[m] >= 0 || std::find(picked.begin(), picked.end(), m) != picked.end())
                continue;
            bool blocked = false;
            for (const std::size_t k : picked)
                blocked = blocked || (two_opt_conflict(moves[m], moves[k]) && deltas[k] <= deltas[m]);
            CHECK(blocked);
        }
        std::vector<std::int32_t> after = tour;
        apply_independent_two_opt<std::int32_t>(after, chosen);
        CHECK(p.length(after) == p.length(tour) + sum);
        // The limit caps the count.
        CHECK(gpu::select_independent<TourMove, std::int64_t>(
                  moves, deltas,
                  [](const TourMove& a, const TourMove& b) { return two_opt_conflict(a, b); }, 1)
                  .size() == 1);
    }
}

TEST_CASE("parallel 2-opt descent reaches a 2-opt local optimum in fewer full evaluations than "
          "best improvement, its gains adding up") {
    for (const std::uint64_t seed : {7u, 8u}) {
        const std::int32_t n = 200;
        const Points p = random_points(n, seed);
        const std::vector<std::int32_t> start = identity_tour(n);
        const auto d = [&](std::int32_t a, std::int32_t b) { return p.d(a, b); };
        std::vector<std::int32_t> parallel = start;
        std::vector<std::int32_t> best = start;
        const ParallelDescentStats many = parallel_two_opt_descent(std::span(parallel), d);
        const ParallelDescentStats one = parallel_two_opt_descent(std::span(best), d, 1);
        MESSAGE("n = 200: parallel descent ", many.iterations, " evaluations, ", many.applied,
                " moves; best improvement ", one.iterations, " evaluations");
        CHECK(p.length(parallel) == p.length(start) + many.change);
        CHECK(p.length(best) == p.length(start) + one.change);
        CHECK(one.applied == one.iterations - 1); // one move per evaluation, then none
        CHECK(many.applied > many.iterations);
        CHECK(many.iterations * 3 < one.iterations);
        // Both end in 2-opt local optima: no improving move is left.
        for (const auto* tour : {&parallel, &best})
            for (const TourMove& m : all_two_opt(n))
                CHECK(delta(p, *tour, m) >= 0);
    }
}

TEST_CASE("Or-opt moves independent by the segment rule add up when applied together; every "
          "relocation pair Riise & Burke's rule calls independent is independent") {
    std::uint64_t independent = 0;
    std::uint64_t paper_pairs = 0;
    for (const std::uint64_t seed : {9u, 10u}) {
        const std::int32_t n = 11;
        const Points p = random_points(n, seed);
        const std::vector<std::int32_t> tour = identity_tour(n);
        const std::int64_t base = p.length(tour);
        // Every Or-opt move: segment t[i..i+L-1], L = 1..3, between t[q] and t[q+1], both
        // orientations (reversal only for L > 1).
        std::vector<TourMove> moves;
        for (std::int32_t i = 0; i < n; ++i)
            for (std::int32_t length = 1; length <= 3; ++length)
                for (std::int32_t q = 0; q < n; ++q)
                    for (const bool reversed : {false, true}) {
                        if (reversed && length == 1) continue;
                        if (!or_opt_insertion_ok(n, i, length, q)) continue;
                        TourMove m;
                        m.kind = MoveKind::or_opt;
                        m.valid = true;
                        m.i = i;
                        m.length = length;
                        m.p = q;
                        m.reversed = reversed;
                        moves.push_back(m);
                    }
        // Reference: the move applied alone by the sequential reversals of the engine.
        std::vector<std::int64_t> gain;
        for (const TourMove& m : moves) {
            std::vector<std::int32_t> one = tour;
            apply_move(one.data(), n, m);
            gain.push_back(p.length(one) - base);
            std::vector<std::int32_t> linked = tour;
            apply_independent_or_opt<std::int32_t>(linked, std::span<const TourMove>(&m, 1));
            CHECK(p.length(linked) == p.length(one));
        }
        const auto near = [n](std::int32_t x, std::int32_t y) {
            const std::int32_t gap = x > y ? x - y : y - x;
            return gap <= 1 || n - gap <= 1;
        };
        for (std::size_t a = 0; a < moves.size(); ++a)
            for (std::size_t b = 0; b < moves.size(); ++b) {
                const TourMove& x = moves[a];
                const TourMove& y = moves[b];
                CHECK(or_opt_conflict(x, y, n) == or_opt_conflict(y, x, n));
                if (x.length == 1 && y.length == 1) {
                    // Riise & Burke 2014: Rel(i, j), Rel(k, l) dependent iff |i-k| <= 1, |i-l| <= 1,
                    // |k-j| <= 1 or j = l (cyclic distances).
                    const bool paper = near(x.i, y.i) || near(x.i, y.p) || near(y.i, x.p) ||
                                       x.p == y.p;
                    paper_pairs += paper ? 0 : 1;
                    if (!paper) CHECK_FALSE(or_opt_conflict(x, y, n));
                }
                if (or_opt_conflict(x, y, n)) continue;
                ++independent;
                std::vector<std::int32_t> both = tour;
                const TourMove pair[2] = {x, y};
                apply_independent_or_opt<std::int32_t>(both, pair);
                CAPTURE(x.i);
                CAPTURE(x.length);
                CAPTURE(x.p);
                CAPTURE(x.reversed);
                CAPTURE(y.i);
                CAPTURE(y.length);
                CAPTURE(y.p);
                CAPTURE(y.reversed);
                CHECK(p.length(both) == base + gain[a] + gain[b]);
                std::vector<std::int32_t> sorted = both;
                std::sort(sorted.begin(), sorted.end());
                CHECK(sorted == tour);
            }
        for (const TourMove& m : moves)
            CHECK(or_opt_conflict(m, m, n));
    }
    CHECK(independent > 10000);
    CHECK(paper_pairs > 1000);
}

TEST_CASE("swaps independent by the position rule add up when applied together") {
    std::uint64_t independent = 0;
    for (const std::uint64_t seed : {11u, 12u}) {
        const std::int32_t n = 12;
        const Points p = random_points(n, seed);
        const std::vector<std::int32_t> tour = identity_tour(n);
        const std::int64_t base = p.length(tour);
        std::vector<TourMove> moves;
        for (std::int32_t i = 0; i < n; ++i)
            for (std::int32_t j = i + 1; j < n; ++j) {
                TourMove m;
                m.kind = MoveKind::swap;
                m.valid = true;
                m.i = i;
                m.j = j;
                moves.push_back(m);
            }
        const auto swapped = [&](std::vector<std::int32_t> t, const TourMove& m) {
            std::swap(t[static_cast<std::size_t>(m.i)], t[static_cast<std::size_t>(m.j)]);
            return t;
        };
        for (const TourMove& a : moves)
            for (const TourMove& b : moves) {
                CHECK(swap_conflict(a, b, n) == swap_conflict(b, a, n));
                if (swap_conflict(a, b, n)) continue;
                ++independent;
                const std::int64_t da = p.length(swapped(tour, a)) - base;
                const std::int64_t db = p.length(swapped(tour, b)) - base;
                CHECK(p.length(swapped(swapped(tour, a), b)) == base + da + db);
            }
    }
    CHECK(independent > 1000);
}

TEST_CASE("parallel descent of every TSP neighborhood: exact objectives, a local optimum, fewer "
          "explorations than best improvement, and no dependence on the thread count") {
    TspProblem problem(generate_random_uniform(200, 13, 100000));
    const std::size_t n = problem.size();
    const std::vector<NeighborhoodSpec> specs = {{MoveKind::two_opt, 0},
                                                 {MoveKind::two_opt, 8},
                                                 {MoveKind::or_opt, 0},
                                                 {MoveKind::or_opt, 6},
                                                 {MoveKind::swap, 0}};
    for (const NeighborhoodSpec& spec : specs) {
        CAPTURE(neighborhood_label(spec));
        gpu::EngineSettings checked;
        checked.check_moves = true;
        auto engine = make_cpu_engine(problem, spec, checked);
        SolutionBatch start(3, n);
        RandomTour(problem).construct(start, 17);
        SolutionBatch parallel = start;
        SolutionBatch sequential = start;
        const DescentStats many = engine->descend_independent(parallel, {}, {});
        const DescentStats one = engine->descend(sequential, Pivot::best, 0, {});
        CHECK_FALSE(many.stopped);
        CHECK(many.steps > 3 * many.explorations);
        // Best improvement makes one exploration per applied move and solution (the last finds
        // none); the parallel descent needs far fewer for as many improvements.
        CHECK(many.explorations * 4 < one.steps / 3);
        for (std::size_t s = 0; s < 3; ++s) {
            CHECK(parallel.objective(s) == problem.evaluate(parallel[s]));
            CHECK(parallel.objective(s) < start.objective(s));
        }
        // A local optimum: the best move of every solution does not improve.
        std::vector<MoveChoice> best(3);
        engine->explore(parallel, Pivot::best, best);
        for (const MoveChoice& m : best)
            CHECK((!m.found() || m.delta >= 0));
        // One thread gives the same tours.
        gpu::EngineSettings single;
        single.threads = 1;
        SolutionBatch again = start;
        make_cpu_engine(problem, spec, single)->descend_independent(again, {}, {});
        CHECK(std::ranges::equal(again.data(), parallel.data()));
        // max_moves 1 with room for every improving move applies the best one per exploration:
        // best improvement (the same cycles; 2-opt may reverse the other side of the tour).
        SolutionBatch limited = start;
        IndependentDescentOptions options;
        options.max_moves = 1;
        options.capacity = static_cast<std::uint32_t>(engine->size());
        const DescentStats as_best = engine->descend_independent(limited, options, {});
        CHECK(as_best.steps == one.steps);
        for (std::size_t s = 0; s < 3; ++s)
            CHECK(limited.objective(s) == sequential.objective(s));
        // max_steps bounds the explorations.
        SolutionBatch bounded = start;
        options = {};
        options.max_steps = 2;
        CHECK(engine->descend_independent(bounded, options, {}).explorations == 2);
    }
}

TEST_CASE("Combine: a tour takes the shorter of every pair of interchangeable sub-paths; the "
          "other tour is left alone") {
    for (const std::uint64_t seed : {21u, 22u, 23u}) {
        const std::int32_t n = 300;
        const Instance instance = generate_random_uniform(n, seed, 10000);
        TspProblem problem(instance);
        SolutionBatch from(1, n);
        NearestNeighborTour(problem, 0).construct(from, 1);
        // `into` = `from` with disjoint sub-paths reversed (interior cities of windows of 4-9
        // cities, windows apart): each pair of sub-paths is interchangeable.
        SolutionBatch into = from;
        Rng rng(seed, 0);
        std::int64_t expected = 0;
        const auto d = [&](std::int32_t a, std::int32_t b) {
            return static_cast<std::int64_t>(instance.distance(a, b));
        };
        std::int32_t windows = 0;
        for (std::int32_t w = 3; w + 12 < n; w += 12 + static_cast<std::int32_t>(rng.below(5))) {
            const std::int32_t length = 2 + static_cast<std::int32_t>(rng.below(6)); // reversed
            auto t = into[0];
            const auto x = t[static_cast<std::size_t>(w)];
            const auto first = t[static_cast<std::size_t>(w + 1)];
            const auto last = t[static_cast<std::size_t>(w + length)];
            const auto y = t[static_cast<std::size_t>(w + length + 1)];
            std::reverse(t.begin() + w + 1, t.begin() + w + length + 1);
            const std::int64_t from_cost = d(x, first) + d(last, y);
            const std::int64_t into_cost = d(x, last) + d(first, y);
            expected += std::min<std::int64_t>(0, from_cost - into_cost);
            ++windows;
        }
        into.objective(0) = problem.evaluate(into[0]);
        const SolutionBatch from_before = from;
        const Objective before = into.objective(0);
        SegmentExchange exchange(problem, 1000);
        const Objective change = exchange.combine(into, 0, from, 0);
        CHECK(windows > 15);
        CHECK(expected < 0);
        CHECK(change == static_cast<Objective>(expected));
        CHECK(into.objective(0) == before + change);
        CHECK(into.objective(0) == problem.evaluate(into[0]));
        CHECK(std::ranges::equal(from.data(), from_before.data()));
        // Combining a tour with itself, rotated and reversed, changes nothing.
        SolutionBatch same = from;
        auto s = same[0];
        std::rotate(s.begin(), s.begin() + 17, s.end());
        std::reverse(s.begin(), s.end());
        SolutionBatch copy = from;
        CHECK(exchange.combine(copy, 0, same, 0) == 0);
        CHECK(std::ranges::equal(copy.data(), from.data()));
    }
}
