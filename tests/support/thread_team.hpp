#pragma once
/// \file
/// A team of CPU threads for tests of team routines (gpu/team.hpp) without a device: sync is a
/// barrier and the collectives the routing and DCVRP routines use (sum, exclusive_sum) go
/// through one slot per rank, so that strided loops, barriers and broadcasts run as on a
/// block, with real concurrency.

#include <barrier>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace locus::test {

/// A team of CPU threads: rank, size, sync, sum and exclusive_sum of the Team concept.
struct ThreadTeam {
    struct Shared {
        explicit Shared(std::uint32_t n) : barrier(n), slots(n) {}
        std::barrier<> barrier;
        std::vector<std::int64_t> slots;
    };
    std::uint32_t me = 0;
    std::uint32_t count = 1;
    Shared* shared = nullptr;

    std::uint32_t rank() const { return me; }
    std::uint32_t size() const { return count; }
    void sync() const { shared->barrier.arrive_and_wait(); }
    template <class T> T sum(T value) const {
        T total{};
        (void)exclusive_sum(value, total);
        return total;
    }
    template <class T> T exclusive_sum(T value, T& total) const {
        shared->slots[me] = static_cast<std::int64_t>(value);
        sync();
        std::int64_t before = 0;
        std::int64_t all = 0;
        for (std::uint32_t r = 0; r < count; ++r) {
            if (r < me) before += shared->slots[r];
            all += shared->slots[r];
        }
        sync();
        total = static_cast<T>(all);
        return static_cast<T>(before);
    }
};

/// Runs body(team) on `threads` threads of one team.
inline void run_team(std::uint32_t threads, const std::function<void(const ThreadTeam&)>& body) {
    ThreadTeam::Shared shared(threads);
    std::vector<std::thread> pool;
    for (std::uint32_t r = 0; r < threads; ++r)
        pool.emplace_back([&, r] { body(ThreadTeam{r, threads, &shared}); });
    for (auto& t : pool)
        t.join();
}

} // namespace locus::test
