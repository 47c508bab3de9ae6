// Filtered neighborhoods in parts on the CPU twin (select_moves_parts_cpu) against the serial
// reference of the definitions: every part size, both part pivots, evaluators with and without
// lower bounds, several thread counts; the part size from a memory budget.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "hash_evaluator.hpp"
#include "locus/gpu/neighborhood_parts.hpp"

using locus::kNoMove;
using locus::gpu::KeepEveryCell;
using locus::gpu::MoveGrid;
using locus::gpu::MoveResult;
using locus::gpu::PartPivot;
using locus::gpu::PartStats;
using locus::test::BoundedHashEvaluator;
using locus::test::HashEvaluator;
using locus::test::HashFilter;

namespace {

template <class E, class F>
std::vector<MoveResult<typename E::delta_type>> parts_cpu(const E& eval, const F& keep,
                                                          std::uint32_t batch, PartPivot pivot,
                                                          std::uint64_t part, int threads,
                                                          PartStats* stats = nullptr) {
    std::vector<MoveResult<typename E::delta_type>> out(batch, {0, 12345});
    locus::gpu::select_moves_parts_cpu(eval, keep, batch, pivot, part, out.data(), threads,
                                       stats);
    return out;
}

template <class E> void configure(E& eval, std::mt19937_64& random) {
    static constexpr std::uint32_t kInvalidShares[] = {0, 40, 128, 256};
    static constexpr std::int32_t kLows[] = {-3, -40, 0, 1};
    static constexpr std::uint32_t kSpans[] = {1, 3, 100, 5000};
    eval.shape = {static_cast<std::uint32_t>(1 + random() % 70),
                  static_cast<std::uint32_t>(1 + random() % 90)};
    eval.seed = random();
    eval.invalid_per_256 = kInvalidShares[random() % 4];
    eval.low = kLows[random() % 4];
    eval.span = kSpans[random() % 4];
}

template <class E> void check_random(std::uint64_t seed) {
    std::mt19937_64 random(seed);
    for (int trial = 0; trial < 40; ++trial) {
        E eval{};
        configure(eval, random);
        const HashFilter keep{random(), static_cast<std::uint32_t>(random() % 257)};
        const auto batch = static_cast<std::uint32_t>(1 + random() % 5);
        const std::uint64_t size = eval.grid().size();
        for (const std::uint64_t part : {std::uint64_t{1}, std::uint64_t{7}, size / 3 + 1,
                                         size, size + 100}) {
            for (const PartPivot pivot : {PartPivot::best, PartPivot::first_improving}) {
                const auto got = parts_cpu(eval, keep, batch, pivot, part, trial % 3);
                for (std::uint32_t s = 0; s < batch; ++s) {
                    const auto want = locus::test::reference_parts(eval, keep, s, pivot, part);
                    CAPTURE(trial);
                    CAPTURE(part);
                    CAPTURE(s);
                    CHECK(got[s].index == want.index);
                    if (want.index != kNoMove)
                        CHECK(got[s].delta == want.delta);
                }
            }
        }
    }
}

} // namespace

TEST_CASE_TEMPLATE("select_moves_parts_cpu equals the reference on random filtered grids", D,
                   int, double) {
    check_random<HashEvaluator<D>>(11);
}

TEST_CASE_TEMPLATE("select_moves_parts_cpu with lower bounds equals the reference", D, int,
                   float) {
    check_random<BoundedHashEvaluator<D>>(29);
}

TEST_CASE("select_moves_parts_cpu under PartPivot::best does not depend on the part size") {
    HashEvaluator<int> eval{};
    eval.shape = {300, 211};
    eval.seed = 5;
    eval.invalid_per_256 = 30;
    eval.low = -50;
    eval.span = 200;
    const HashFilter keep{9, 100};
    const auto whole = parts_cpu(eval, keep, 4, PartPivot::best, eval.grid().size(), 0);
    for (const std::uint64_t part : {1000ull, 4096ull, 33333ull}) {
        const auto split = parts_cpu(eval, keep, 4, PartPivot::best, part, 0);
        for (std::uint32_t s = 0; s < 4; ++s)
            CHECK(locus::test::same_move(split[s], whole[s]));
    }
    // The whole grid kept: select_moves_cpu's Pivot::best.
    const auto every = parts_cpu(eval, KeepEveryCell{}, 4, PartPivot::best, 5000, 0);
    std::vector<MoveResult<int>> direct(4);
    locus::gpu::select_moves_cpu(eval, 4, locus::Pivot::best, direct.data(), 0);
    for (std::uint32_t s = 0; s < 4; ++s)
        CHECK(locus::test::same_move(every[s], direct[s]));
}

TEST_CASE("select_moves_parts_cpu stops at the first part with an improving move") {
    // One solution, 1 x 10 grid in parts of 3: parts {0,1,2} {3,4,5} {6,7,8} {9}.
    const int X = locus::gpu::invalid_delta<int>();
    const std::vector<int> table = {4, X, 2, 1, -1, -3, -9, 0, 5, -20};
    const locus::test::TableEvaluator<int> eval{{1, 10}, table.data()};
    PartStats stats;
    auto first = parts_cpu(eval, KeepEveryCell{}, 1, PartPivot::first_improving, 3, 1, &stats);
    CHECK(first[0].index == 5);
    CHECK(first[0].delta == -3);
    CHECK(stats.parts == 2);
    CHECK(stats.kept == 6);
    auto best = parts_cpu(eval, KeepEveryCell{}, 1, PartPivot::best, 3, 1, &stats);
    CHECK(best[0].index == 9);
    CHECK(stats.parts == 4);
    CHECK(stats.kept == 10);
    // A filter that drops cell 5 leaves -1 as the second part's best.
    struct DropFive {
        bool operator()(std::uint32_t, std::uint64_t i) const { return i != 5; }
    };
    first = parts_cpu(eval, DropFive{}, 1, PartPivot::first_improving, 3, 1);
    CHECK(first[0].index == 4);
    // Nothing improving: the best of all parts.
    const std::vector<int> flat = {4, X, 2, 1, 3, 3, 9, 0, 5, 7};
    const locus::test::TableEvaluator<int> none{{1, 10}, flat.data()};
    first = parts_cpu(none, KeepEveryCell{}, 1, PartPivot::first_improving, 3, 1);
    CHECK(first[0].index == 7);
    CHECK(first[0].delta == 0);
    // Nothing kept: no move.
    struct DropAll {
        bool operator()(std::uint32_t, std::uint64_t) const { return false; }
    };
    first = parts_cpu(eval, DropAll{}, 1, PartPivot::best, 3, 1);
    CHECK(first[0].index == kNoMove);
}

TEST_CASE("part_cells_for sizes parts to the budget") {
    const MoveGrid grid{100000, 100000}; // 10^10 cells
    // 1 GiB for one solution: (1 GiB - 8 MiB - 48) / 24 cells.
    const std::size_t gib = std::size_t{1} << 30;
    CHECK(locus::gpu::part_cells_for(gib, grid, 1) == (gib - (8u << 20) - 48) / 24);
    // Four solutions share it.
    CHECK(locus::gpu::part_cells_for(gib, grid, 4) == (gib - (8u << 20) - 4 * 48) / 96);
    // A small grid fits whole.
    CHECK(locus::gpu::part_cells_for(gib, MoveGrid{10, 10}, 3) == 100);
    // Too little memory for kMinPartCells cells: 0.
    CHECK(locus::gpu::part_cells_for(9u << 20, grid, 64) == 0);
}
