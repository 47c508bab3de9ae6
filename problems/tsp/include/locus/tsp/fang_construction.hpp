#pragma once
/// \file
/// Randomized tour construction through the FANG successor engine: the tour positions 1..n-1 are
/// the variables, assigned in order; the possibilities of a position are the cities, rated by
/// their distance d to the city at the previous position, with visited cities forbidden. The
/// weight of a city is (254 (dmin + 1) / (d + 1) + 1)^greed, dmin the distance of the nearest
/// unvisited city: from uniform (greed 0: a random tour) to strongly greedy (greed 4). The same
/// policy runs in the CPU twin and in the CUDA engine.
///
/// State words: the tour (n words; position 0 holds the start city), then the visited-city
/// bitset (ceil(n/32) words).

#include <cstdint>

#include "locus/hd.hpp"
#include "locus/problem.hpp"
#include "locus/tsp/metric.hpp"

namespace locus::tsp {

class TspProblem;

/// Aggregator of the ratings of one position: the smallest and largest allowed distances.
struct DistanceRange {
    std::int32_t min = 0x7FFFFFFF;
    std::int32_t max = -1;
    LOCUS_HD_INLINE void add(std::int32_t d) {
        if (d < 0) return;
        min = d < min ? d : min;
        max = d > max ? d : max;
    }
    LOCUS_HD_INLINE void combine(const DistanceRange& o) {
        min = o.min < min ? o.min : min;
        max = o.max > max ? o.max : max;
    }
};

template <class Metric> struct TourConstructionPolicy {
    using rating_type = std::int32_t; ///< distance to the previous city, -1 when visited
    using aggregator_type = DistanceRange;
    static constexpr int kVariableTypes = 1;

    Metric metric;
    std::int32_t n = 0;
    std::int32_t greed = 3; ///< weight exponent, 0..4

    LOCUS_HD_INLINE std::uint32_t bitset_words() const {
        return static_cast<std::uint32_t>((n + 31) / 32);
    }
    LOCUS_HD_INLINE std::uint32_t state_words() const {
        return static_cast<std::uint32_t>(n) + bitset_words();
    }
    LOCUS_HD_INLINE std::uint32_t variables() const { return static_cast<std::uint32_t>(n - 1); }
    LOCUS_HD_INLINE std::uint32_t max_possibilities() const {
        return static_cast<std::uint32_t>(n);
    }
    LOCUS_HD_INLINE int variable_type(std::uint32_t) const { return 0; }

    LOCUS_HD_INLINE static bool visited(const std::int32_t* state, std::int32_t n,
                                        std::int32_t city) {
        const auto* bits = reinterpret_cast<const std::uint32_t*>(state + n);
        return ((bits[city / 32] >> (city % 32)) & 1u) != 0;
    }

    template <int T>
    LOCUS_HD_INLINE std::uint32_t possibilities(const std::int32_t*, std::uint32_t) const {
        return static_cast<std::uint32_t>(n);
    }
    template <int T>
    LOCUS_HD_INLINE std::int32_t rate(const std::int32_t* state, std::uint32_t var,
                                      std::uint32_t l) const {
        const auto city = static_cast<std::int32_t>(l);
        if (visited(state, n, city)) return -1;
        return metric.distance(state[var], city); // var + 1 is the position; var its predecessor
    }
    template <int T>
    LOCUS_HD_INLINE std::uint32_t map(std::int32_t d, const DistanceRange& range) const {
        if (d < 0) return 0;
        // (254 (min + 1) / (d + 1) + 1)^greed <= 255^4 < 2^32: relative to the nearest
        // allowed city, so that twice as far is about 2^greed times less likely.
        const auto base =
            static_cast<std::uint32_t>(254ull * (static_cast<std::uint64_t>(range.min) + 1) /
                                           (static_cast<std::uint64_t>(d) + 1) +
                                       1);
        std::uint32_t w = 1;
        for (std::int32_t g = 0; g < greed; ++g)
            w *= base;
        return w;
    }
    template <int T>
    LOCUS_HD_INLINE void assign(std::int32_t* state, std::uint32_t var, std::uint32_t l) const {
        const auto city = static_cast<std::int32_t>(l);
        state[var + 1] = city;
        auto* bits = reinterpret_cast<std::uint32_t*>(state + n);
        bits[city / 32] |= 1u << (city % 32);
    }
    template <int T>
    LOCUS_HD_INLINE void could_not_assign(std::int32_t* state, std::uint32_t var) const {
        state[var + 1] = -1; // cannot happen: an unvisited city always remains
    }
};

/// The "fang" construction of the TSP plugin (CPU twin or CUDA engine by backend).
class FangTour final : public Construction {
public:
    FangTour(const TspProblem& problem, std::int32_t greed, Backend backend, int threads)
        : problem_(problem), greed_(greed), backend_(backend), threads_(threads) {}
    void construct(SolutionBatch& batch, std::uint64_t seed) override;
    /// Builds the batch in chunks (chunk_tours), polling `stop` between chunks; the tours of
    /// chunks not built copy tour 0. Tour s draws from the same stream whatever the chunking,
    /// so both backends build the same tours.
    void construct_until(SolutionBatch& batch, std::uint64_t seed,
                         const std::function<bool()>& stop) override;
    /// Tours per chunk for `n` cities (CUDA builds 64 times more per chunk than a CPU thread).
    static std::uint32_t chunk_tours(std::size_t n, Backend backend, int threads);

private:
    const TspProblem& problem_;
    std::int32_t greed_;
    Backend backend_;
    int threads_;
};

/// Builds `count` tours with the CPU twin / the CUDA engine into `tours` (count x n), start
/// cities in `starts`, streams keyed by `seed`; they are tours first .. first + count - 1 of a
/// batch (their streams).
void fang_tours_cpu(const TspProblem& problem, std::int32_t greed, const std::int32_t* starts,
                    std::uint32_t count, std::uint64_t seed, int threads, std::int32_t* tours,
                    std::uint64_t first = 0);
void fang_tours_cuda(const TspProblem& problem, std::int32_t greed, const std::int32_t* starts,
                     std::uint32_t count, std::uint64_t seed, std::int32_t* tours,
                     std::uint64_t first = 0);

} // namespace locus::tsp
