// Candidate lists: the k-d tree search gives exactly the lists of the all-pairs comparison,
// for every planar distance, with many rounding ties, with and without quadrants.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "locus/rng.hpp"
#include "locus/tsp/candidate_lists.hpp"
#include "locus/tsp/generator.hpp"
#include "locus/tsp/tsplib.hpp"

using namespace locus::tsp;

namespace {

/// An instance of `type` ("EUC_2D", "CEIL_2D", "ATT") with n cities drawn from a span of
/// `span` units: small spans give many equal rounded distances and equal coordinates;
/// `fraction` adds fractional coordinates.
Instance planar_instance(const std::string& type, std::size_t n, std::uint32_t span,
                         bool fraction, std::uint64_t seed) {
    locus::Rng rng(seed, 0);
    std::string text = "NAME : t\nTYPE : TSP\nDIMENSION : " + std::to_string(n) +
                       "\nEDGE_WEIGHT_TYPE : " + type + "\nNODE_COORD_SECTION\n";
    for (std::size_t i = 0; i < n; ++i) {
        const double x = rng.below(span) + (fraction ? rng.uniform() : 0.0);
        const double y = rng.below(span) + (fraction ? rng.uniform() : 0.0);
        text += std::to_string(i + 1) + " " + std::to_string(x) + " " + std::to_string(y) + "\n";
    }
    return parse_tsplib(text + "EOF\n", "t.tsp");
}

} // namespace

TEST_CASE("k-d tree candidate lists equal the all-pairs lists") {
    for (const std::string type : {"EUC_2D", "CEIL_2D", "ATT"}) {
        for (const std::uint32_t span : {12u, 1000u, 100000u}) {
            for (const bool fraction : {false, true}) {
                const Instance instance = planar_instance(type, 700, span, fraction, span + 3);
                for (const std::int32_t k : {1, 5, 8, 10, 16}) {
                    for (const bool quadrant : {false, true}) {
                        CAPTURE(type);
                        CAPTURE(span);
                        CAPTURE(fraction);
                        CAPTURE(k);
                        CAPTURE(quadrant);
                        CHECK(candidate_lists(instance, k, quadrant) ==
                              candidate_lists_all_pairs(instance, k, quadrant));
                    }
                }
            }
        }
    }
}

TEST_CASE("candidate lists of a generated instance: k distinct other cities in distance order") {
    const Instance instance = generate_random_uniform(3000, 9);
    const std::int32_t k = 10;
    const auto lists = candidate_lists(instance, k, false);
    REQUIRE(lists.size() == instance.n * k);
    for (std::int32_t a = 0; a < static_cast<std::int32_t>(instance.n); ++a) {
        std::int32_t previous = -1;
        for (std::int32_t c = 0; c < k; ++c) {
            const std::int32_t b = lists[static_cast<std::size_t>(a * k + c)];
            CHECK(b != a);
            CHECK(instance.distance(a, b) >= previous);
            previous = instance.distance(a, b);
        }
    }
    CHECK(lists == candidate_lists_all_pairs(instance, k, false));
}
