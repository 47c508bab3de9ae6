// The CPU twin of the neighborhood engine against hand-computed grids and the naive serial
// reference, over random sizes, batches, pivot rules, delta types and thread counts.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "hash_evaluator.hpp"
#include "locus/gpu/neighborhood_engine.hpp"

using locus::kNoMove;
using locus::Pivot;
using locus::gpu::invalid_delta;
using locus::gpu::MoveGrid;
using locus::gpu::MoveResult;
using locus::test::HashEvaluator;
using locus::test::TableEvaluator;

namespace {

constexpr int kInvalid = invalid_delta<int>();

template <class E>
std::vector<MoveResult<typename E::delta_type>> select_cpu(const E& eval, std::uint32_t batch,
                                                           Pivot pivot, int threads) {
    std::vector<MoveResult<typename E::delta_type>> out(batch, {0, 12345});
    locus::gpu::select_moves_cpu(eval, batch, pivot, out.data(), threads);
    return out;
}

/// A random evaluator configuration: sizes 0..max, batches 1..9, invalid shares from none to
/// all, and delta ranges with no improving move, few improving moves, or many ties.
template <class D>
HashEvaluator<D> random_evaluator(std::mt19937_64& random, std::uint32_t max_rows,
                                  std::uint32_t max_cols) {
    static constexpr std::uint32_t kInvalidShares[] = {0, 0, 40, 128, 250, 256};
    static constexpr std::int32_t kLows[] = {-3, -40, 0, 1, -1000};
    static constexpr std::uint32_t kSpans[] = {1, 3, 8, 100, 5000};
    HashEvaluator<D> eval{};
    eval.shape = {static_cast<std::uint32_t>(random() % (max_rows + 1)),
                  static_cast<std::uint32_t>(random() % (max_cols + 1))};
    eval.seed = random();
    eval.invalid_per_256 = kInvalidShares[random() % 6];
    eval.low = kLows[random() % 5];
    eval.span = kSpans[random() % 5];
    return eval;
}

} // namespace

TEST_CASE("select_moves_cpu on a hand-computed grid") {
    // Solution 0:          Solution 1:
    //   5  -2  X             X  X  X
    //  -2  -7 -7             4  4  X
    const int X = kInvalid;
    const std::vector<int> table = {5, -2, X, -2, -7, -7, X, X, X, 4, 4, X};
    const TableEvaluator<int> eval{{2, 3}, table.data()};
    for (const int threads : {1, 0}) {
        const auto best = select_cpu(eval, 2, Pivot::best, threads);
        CHECK(best[0].index == 4);
        CHECK(best[0].delta == -7);
        CHECK(best[1].index == 3); // tie 4/4 -> lowest index; no improving move needed
        CHECK(best[1].delta == 4);
        const auto first = select_cpu(eval, 2, Pivot::first, threads);
        CHECK(first[0].index == 1);
        CHECK(first[0].delta == -2);
        CHECK(first[1].index == kNoMove);
        CHECK(first[1].delta == kInvalid);
    }
}

TEST_CASE("select_moves_cpu reports kNoMove for an all-invalid grid and an empty grid") {
    HashEvaluator<double> eval{{17, 23}, 5, 256, -3, 8};
    const auto best = select_cpu(eval, 3, Pivot::best, 0);
    for (const auto& move : best) {
        CHECK(move.index == kNoMove);
        CHECK(move.delta == invalid_delta<double>());
        CHECK_FALSE(move.found());
    }
    eval.shape = {0, 23};
    CHECK(select_cpu(eval, 2, Pivot::best, 0)[1].index == kNoMove);
    eval.shape = {23, 0};
    CHECK(select_cpu(eval, 2, Pivot::first, 0)[0].index == kNoMove);
}

TEST_CASE("select_moves_cpu breaks ties by lowest index across row chunks") {
    // Every valid cell has delta 2: best is the lowest valid index, first finds nothing.
    HashEvaluator<int> eval{{300, 7}, 11, 128, 2, 1};
    for (std::uint32_t s = 0; s < 4; ++s) {
        const auto expected = locus::test::reference_select(eval, s, Pivot::best);
        REQUIRE(expected.index != kNoMove);
        for (const int threads : {1, 2, 0}) {
            const auto best = select_cpu(eval, 4, Pivot::best, threads);
            CHECK(best[s].index == expected.index);
            CHECK(best[s].delta == 2);
            CHECK(select_cpu(eval, 4, Pivot::first, threads)[s].index == kNoMove);
        }
    }
}

TEST_CASE_TEMPLATE("select_moves_cpu equals the serial reference on random grids", D, int,
                   long long, std::int16_t, float, double) {
    std::mt19937_64 random(0xC0FFEEull + sizeof(D));
    for (int trial = 0; trial < 100; ++trial) {
        const auto eval = random_evaluator<D>(random, 70, 90);
        const auto batch = static_cast<std::uint32_t>(1 + random() % 9);
        for (const Pivot pivot : {Pivot::best, Pivot::first}) {
            const auto serial = select_cpu(eval, batch, pivot, 1);
            const auto parallel = select_cpu(eval, batch, pivot, 0);
            const auto three = select_cpu(eval, batch, pivot, 3);
            for (std::uint32_t s = 0; s < batch; ++s) {
                const auto expected = locus::test::reference_select(eval, s, pivot);
                CAPTURE(trial);
                CAPTURE(s);
                CHECK(locus::test::same_move(serial[s], expected));
                CHECK(locus::test::same_move(parallel[s], expected));
                CHECK(locus::test::same_move(three[s], expected));
            }
        }
    }
}

TEST_CASE("select_moves_cpu splits one large solution over threads") {
    const HashEvaluator<long long> eval{{400, 350}, 99, 30, -200000, 1000000};
    for (const Pivot pivot : {Pivot::best, Pivot::first}) {
        const auto expected = locus::test::reference_select(eval, 0, pivot);
        REQUIRE(expected.index != kNoMove);
        for (const int threads : {1, 2, 0})
            CHECK(locus::test::same_move(select_cpu(eval, 1, pivot, threads)[0], expected));
    }
}

TEST_CASE_TEMPLATE("improving_moves_cpu equals the serial reference", D, int, double) {
    std::mt19937_64 random(0xBADC0DEull + sizeof(D));
    const MoveResult<D> untouched{D(99), 777};
    for (int trial = 0; trial < 150; ++trial) {
        const auto eval = random_evaluator<D>(random, 60, 80);
        const auto batch = static_cast<std::uint32_t>(1 + random() % 6);
        static constexpr std::uint32_t kCapacities[] = {0, 1, 5, 64, 100000};
        const std::uint32_t capacity = kCapacities[random() % 5];
        for (const int threads : {1, 0}) {
            std::vector<MoveResult<D>> out(static_cast<std::size_t>(batch) * capacity + 1,
                                           untouched);
            std::vector<std::uint32_t> counts(batch, 12345);
            locus::gpu::improving_moves_cpu(eval, batch, capacity, out.data(), counts.data(),
                                            threads);
            for (std::uint32_t s = 0; s < batch; ++s) {
                const auto expected = locus::test::reference_improving(eval, s);
                CAPTURE(trial);
                CAPTURE(s);
                REQUIRE(counts[s] == expected.size());
                const std::size_t stored = std::min<std::size_t>(expected.size(), capacity);
                int mismatches = 0;
                for (std::size_t k = 0; k < capacity && k < 5000; ++k) {
                    const auto& slot = out[static_cast<std::size_t>(s) * capacity + k];
                    mismatches +=
                        locus::test::same_move(slot, k < stored ? expected[k] : untouched) ? 0 : 1;
                }
                CHECK(mismatches == 0);
            }
            CHECK(locus::test::same_move(out.back(), untouched));
        }
    }
}

TEST_CASE("improving_moves_cpu keeps the lowest indices when capacity is exceeded") {
    const int X = kInvalid;
    // Improving cells at indices 1, 3, 4, 5 (row-major 2 x 3).
    const std::vector<int> table = {5, -2, X, -2, -7, -1};
    const TableEvaluator<int> eval{{2, 3}, table.data()};
    std::vector<MoveResult<int>> out(3, {0, 0});
    std::uint32_t count = 0;
    locus::gpu::improving_moves_cpu(eval, 1, 3, out.data(), &count, 0);
    CHECK(count == 4);
    CHECK(out[0].index == 1);
    CHECK(out[1].index == 3);
    CHECK(out[2].index == 4);
    CHECK(out[2].delta == -7);
}
