#pragma once
// Toy problems of the successor engine, shared by the CPU and GPU suites.
//  - ColouringProblem: a chain of V variables, each gets a colour; variables v with v % 3 == 2
//    are of type 1 (fewer possibilities, weights from the aggregated maximum); ratings hash the
//    variable, the colour and the neighbours' current colours; some weights are 0 (forbidden).
//  - TableProblem: one variable whose weights come from a table (host pointer).
//  - ExclusiveProblem: V variables with the single possibility "take the token", forbidden once
//    another variable holds it (FANG §3.5).
#include <cstdint>

#include "locus/hd.hpp"
#include "locus/rng.hpp"

namespace locus::test {

/// Rating of ColouringProblem: a hash and the number of neighbours already of this colour.
struct ColourRating {
    std::uint32_t hash;
    std::int32_t conflicts;
};

/// Aggregator: the largest hash.
struct MaxHash {
    std::uint32_t max = 0;
    LOCUS_HD void add(const ColourRating& r) { max = r.hash > max ? r.hash : max; }
    LOCUS_HD void combine(const MaxHash& other) { max = other.max > max ? other.max : max; }
};

struct ColouringProblem {
    using rating_type = ColourRating;
    using aggregator_type = MaxHash;
    static constexpr int kVariableTypes = 2;

    std::uint32_t vars;
    std::uint32_t colours;        ///< possibilities of type-0 variables
    std::uint32_t forbid_per_256; ///< share of forbidden (weight 0) possibilities
    std::uint64_t key;

    LOCUS_HD std::uint32_t state_words() const { return vars; }
    LOCUS_HD std::uint32_t variables() const { return vars; }
    LOCUS_HD std::uint32_t max_possibilities() const { return colours; }
    LOCUS_HD int variable_type(std::uint32_t var) const { return var % 3 == 2 ? 1 : 0; }

    template <int T>
    LOCUS_HD std::uint32_t possibilities(const std::int32_t*, std::uint32_t) const {
        return T == 0 ? colours : colours / 2 + 1;
    }
    LOCUS_HD std::int32_t neighbour(const std::int32_t* state, std::int64_t var) const {
        return var < 0 || var >= static_cast<std::int64_t>(vars) ? -1 : state[var];
    }
    template <int T>
    LOCUS_HD ColourRating rate(const std::int32_t* state, std::uint32_t var,
                               std::uint32_t l) const {
        const std::int32_t left = neighbour(state, static_cast<std::int64_t>(var) - 1);
        const std::int32_t right = neighbour(state, static_cast<std::int64_t>(var) + 1);
        const std::uint64_t h =
            derive_key(key, var * 65536ull + l, static_cast<std::uint32_t>(left),
                       static_cast<std::uint32_t>(right));
        const auto colour = static_cast<std::int32_t>(l);
        return {static_cast<std::uint32_t>(h), (left == colour) + (right == colour)};
    }
    LOCUS_HD bool forbidden(const ColourRating& r) const { return (r.hash >> 24) < forbid_per_256; }
    template <int T> LOCUS_HD std::uint32_t map(const ColourRating& r, const MaxHash& a) const {
        if (forbidden(r) || r.conflicts > 0) return 0;
        if constexpr (T == 0)
            return (r.hash & 0xFFFFu) + 1;
        else
            return (a.max - r.hash) / 65536u + 1;
    }
    template <int T>
    LOCUS_HD void assign(std::int32_t* state, std::uint32_t var, std::uint32_t l) const {
        state[var] = static_cast<std::int32_t>(l);
    }
    template <int T> LOCUS_HD void could_not_assign(std::int32_t* state, std::uint32_t var) const {
        state[var] = T == 0 ? -2 : -3;
    }
};

/// Aggregator that ignores ratings.
struct NoAggregate {
    LOCUS_HD void add(std::uint32_t) {}
    LOCUS_HD void combine(const NoAggregate&) {}
};

struct TableProblem {
    using rating_type = std::uint32_t;
    using aggregator_type = NoAggregate;
    static constexpr int kVariableTypes = 1;

    const std::uint32_t* weights;
    std::uint32_t count;

    LOCUS_HD std::uint32_t state_words() const { return 1; }
    LOCUS_HD std::uint32_t variables() const { return 1; }
    LOCUS_HD std::uint32_t max_possibilities() const { return count; }
    LOCUS_HD int variable_type(std::uint32_t) const { return 0; }
    template <int T>
    LOCUS_HD std::uint32_t possibilities(const std::int32_t*, std::uint32_t) const {
        return count;
    }
    template <int T>
    LOCUS_HD std::uint32_t rate(const std::int32_t*, std::uint32_t, std::uint32_t l) const {
        return weights[l];
    }
    template <int T> LOCUS_HD std::uint32_t map(std::uint32_t r, const NoAggregate&) const {
        return r;
    }
    template <int T>
    LOCUS_HD void assign(std::int32_t* state, std::uint32_t, std::uint32_t l) const {
        state[0] = static_cast<std::int32_t>(l);
    }
    template <int T> LOCUS_HD void could_not_assign(std::int32_t* state, std::uint32_t) const {
        state[0] = -2;
    }
};

struct ExclusiveProblem {
    using rating_type = std::uint32_t;
    using aggregator_type = NoAggregate;
    static constexpr int kVariableTypes = 1;

    std::uint32_t vars;

    LOCUS_HD std::uint32_t state_words() const { return vars; }
    LOCUS_HD std::uint32_t variables() const { return vars; }
    LOCUS_HD std::uint32_t max_possibilities() const { return 1; }
    LOCUS_HD int variable_type(std::uint32_t) const { return 0; }
    template <int T>
    LOCUS_HD std::uint32_t possibilities(const std::int32_t*, std::uint32_t) const {
        return 1;
    }
    template <int T>
    LOCUS_HD std::uint32_t rate(const std::int32_t* state, std::uint32_t, std::uint32_t) const {
        std::uint32_t taken = 0;
        for (std::uint32_t v = 0; v < vars; ++v)
            taken += state[v] == 1;
        return taken == 0 ? 1u : 0u;
    }
    template <int T> LOCUS_HD std::uint32_t map(std::uint32_t r, const NoAggregate&) const {
        return r;
    }
    template <int T>
    LOCUS_HD void assign(std::int32_t* state, std::uint32_t var, std::uint32_t) const {
        state[var] = 1;
    }
    template <int T> LOCUS_HD void could_not_assign(std::int32_t* state, std::uint32_t var) const {
        state[var] = -2;
    }
};

} // namespace locus::test
