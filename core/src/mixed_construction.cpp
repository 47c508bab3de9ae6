#include "locus/mixed_construction.hpp"

#include <algorithm>
#include <thread>
#include <vector>

#include "locus/error.hpp"
#include "locus/rng.hpp"
#include "locus/search_context.hpp"

namespace locus {

namespace {
/// copy(i) for every i in [begin, end), on every core when the rows are large (1024 tours of
/// 10^6 cities are 4 GB, a fraction of a second per core): copies after a time limit must not
/// overrun it.
template <class Copy>
void copy_rows(std::size_t begin, std::size_t end, std::size_t width, Copy&& copy) {
    const std::size_t rows = end - begin;
    const std::size_t threads = std::min<std::size_t>(
        std::max(1u, std::thread::hardware_concurrency()), (rows * width) >> 20);
    if (threads <= 1) {
        for (std::size_t i = begin; i < end; ++i) copy(i);
        return;
    }
    std::vector<std::thread> pool;
    for (std::size_t t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            for (std::size_t i = begin + t; i < end; i += threads) copy(i);
        });
    for (std::thread& thread : pool) thread.join();
}
} // namespace

MixedConstruction::MixedConstruction(std::vector<std::unique_ptr<Construction>> parts)
    : parts_(std::move(parts)) {
    if (parts_.empty()) throw ConfigError("mixed construction: no constructions given");
}

void MixedConstruction::construct(SolutionBatch& batch, std::uint64_t seed) {
    construct_until(batch, seed, {});
}

void MixedConstruction::construct_until(SolutionBatch& batch, std::uint64_t seed,
                                        const std::function<bool()>& stop) {
    const std::size_t n = batch.count();
    const std::size_t k = parts_.size();
    std::size_t built = 0;
    for (std::size_t j = 0; j < k; ++j) {
        const std::size_t begin = block_begin(j, k, n);
        const std::size_t end = block_begin(j + 1, k, n);
        if (begin == end) continue;
        if (built > 0 && stop && stop()) break;
        SolutionBatch block(end - begin, batch.width());
        try {
            parts_[j]->construct_until(block, derive_key(seed, j), stop);
        } catch (const Stopped&) {
            if (built == 0) throw;
            break;
        }
        copy_rows(begin, end, batch.width(),
                  [&](std::size_t i) { batch.copy_from(i, block, i - begin); });
        built = end;
    }
    copy_rows(built, n, batch.width(), [&](std::size_t i) { batch.copy_from(i, batch, 0); });
}

} // namespace locus
