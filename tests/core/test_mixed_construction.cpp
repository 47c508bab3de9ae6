// The mixed construction: which construction builds which solution, with which seed, and what
// a stop during construction leaves.

#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "locus/error.hpp"
#include "locus/mixed_construction.hpp"
#include "locus/rng.hpp"
#include "locus/search_context.hpp"

using namespace locus;

namespace {

/// Writes (tag, seed, index within its batch) into each solution and counts its calls.
class Tagging final : public Construction {
public:
    Tagging(std::int32_t tag, int* calls) : tag_(tag), calls_(calls) {}
    void construct(SolutionBatch& batch, std::uint64_t seed) override {
        ++*calls_;
        for (std::size_t i = 0; i < batch.count(); ++i) {
            batch[i][0] = tag_;
            batch[i][1] = static_cast<std::int32_t>(seed & 0x7fffffff);
            batch[i][2] = static_cast<std::int32_t>(i);
            batch.objective(i) = 100 * tag_ + static_cast<Objective>(i);
        }
    }

private:
    std::int32_t tag_;
    int* calls_;
};

std::unique_ptr<MixedConstruction> mixed(int parts, std::vector<int>& calls) {
    calls.assign(parts, 0);
    std::vector<std::unique_ptr<Construction>> list;
    for (int j = 0; j < parts; ++j) list.push_back(std::make_unique<Tagging>(j, &calls[j]));
    return std::make_unique<MixedConstruction>(std::move(list));
}

} // namespace

TEST_CASE("mixed construction: contiguous blocks, each from its construction and seed") {
    std::vector<int> calls;
    for (const std::size_t n : {1u, 2u, 3u, 7u, 10u, 64u}) {
        const auto construction = mixed(3, calls);
        SolutionBatch batch(n, 3);
        construction->construct(batch, 99);
        for (std::size_t i = 0; i < n; ++i) {
            // Solution i belongs to block j exactly when j n / 3 <= i < (j + 1) n / 3.
            const auto j = static_cast<std::size_t>(batch[i][0]);
            INFO("n = " << n << ", solution " << i);
            CHECK(j * n / 3 <= i);
            CHECK(i < (j + 1) * n / 3);
            CHECK(MixedConstruction::block_begin(j, 3, n) <= i);
            CHECK(batch[i][1] == static_cast<std::int32_t>(derive_key(99, j) & 0x7fffffff));
            CHECK(static_cast<std::size_t>(batch[i][2]) == i - j * n / 3);
            CHECK(batch.objective(i) == 100 * static_cast<Objective>(j) + batch[i][2]);
        }
        // Empty blocks are not built; every other block is built once.
        for (int j = 0; j < 3; ++j)
            CHECK(calls[j] == ((static_cast<std::size_t>(j + 1) * n / 3 >
                                static_cast<std::size_t>(j) * n / 3)
                                   ? 1
                                   : 0));
    }
}

TEST_CASE("mixed construction: a stop after the first block leaves copies of solution 0") {
    std::vector<int> calls;
    const auto construction = mixed(4, calls);
    SolutionBatch batch(8, 3);
    int polls = 0;
    construction->construct_until(batch, 5, [&polls] { return ++polls >= 1; });
    CHECK(calls == std::vector<int>{1, 0, 0, 0});
    for (std::size_t i = 2; i < 8; ++i) {
        CHECK(batch[i][0] == batch[0][0]);
        CHECK(batch[i][2] == batch[0][2]);
        CHECK(batch.objective(i) == batch.objective(0));
    }
    CHECK(batch[1][2] == 1);
}

TEST_CASE("mixed construction: a later block ended by Stopped is not built; the first rethrows") {
    /// Throws Stopped on its call, as a construction ended by the stop flag does.
    class Stopping final : public Construction {
    public:
        void construct(SolutionBatch&, std::uint64_t) override { throw Stopped(); }
    };
    std::vector<int> calls(1, 0);
    std::vector<std::unique_ptr<Construction>> later;
    later.push_back(std::make_unique<Tagging>(7, &calls[0]));
    later.push_back(std::make_unique<Stopping>());
    MixedConstruction second(std::move(later));
    SolutionBatch batch(6, 3);
    second.construct(batch, 3);
    CHECK(calls[0] == 1);
    for (std::size_t i = 0; i < 6; ++i) {
        CHECK(batch[i][0] == 7);
        CHECK(batch[i][2] == (i < 3 ? static_cast<std::int32_t>(i) : 0));
        CHECK(batch.objective(i) == batch.objective(i < 3 ? i : 0));
    }
    std::vector<std::unique_ptr<Construction>> first;
    first.push_back(std::make_unique<Stopping>());
    first.push_back(std::make_unique<Tagging>(1, &calls[0]));
    MixedConstruction none(std::move(first));
    CHECK_THROWS_AS(none.construct(batch, 3), Stopped);
    CHECK(calls[0] == 1);
}

TEST_CASE("mixed construction: an empty list is refused") {
    CHECK_THROWS_AS(MixedConstruction({}), ConfigError);
}
