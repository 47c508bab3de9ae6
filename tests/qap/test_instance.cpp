// QAP instance layer: the objective on a hand-computed asymmetric instance, permutation checks
// and the invariant checks of validate_instance.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "locus/error.hpp"
#include "test_support.hpp"
#include "locus/qap/instance.hpp"

using locus::InstanceError;
using locus::qap::check_permutation;
using locus::qap::Instance;
using locus::qap::invert_permutation;
using locus::qap::objective;
using locus::qap::validate_instance;

namespace {

/// Asymmetric, with non-zero diagonals, so that every term of the objective matters.
Instance tiny() {
    Instance instance;
    instance.name = "tiny";
    instance.n = 3;
    instance.a = {1, 2, 0, 3, 0, 4, 0, 5, 2};
    instance.b = {2, 1, 3, 0, 4, 1, 2, 2, 0};
    return instance;
}

std::string validate_error(const Instance& instance) {
    return locus::test::error_message<InstanceError>([&] {
        validate_instance(instance, "t");
    });
}

} // namespace

TEST_CASE("objective of a tiny asymmetric instance matches the hand computation") {
    const Instance instance = tiny();
    // Identity: sum a_ij b_ij = 2+2+0 + 0+0+4 + 0+10+0.
    CHECK(objective(instance, std::vector<std::int32_t>{0, 1, 2}) == 18);
    // p = (1 2 0): rows 1*4+2*1+0 = 6, 3*2+0+4*2 = 14, 0+5*3+2*2 = 19.
    CHECK(objective(instance, std::vector<std::int32_t>{1, 2, 0}) == 39);
    // The inverse (2 0 1) is a different assignment with a different value.
    const std::vector<std::int32_t> q = invert_permutation(std::vector<std::int32_t>{1, 2, 0});
    CHECK(q == std::vector<std::int32_t>{2, 0, 1});
    // rows: a00 b22 + a01 b20 = 0+4, a10 b02 + a12 b01 = 9+4, a21 b10 + a22 b11 = 0+8.
    CHECK(objective(instance, q) == 25);
}

TEST_CASE("check_permutation names the first problem") {
    CHECK_FALSE(check_permutation(std::vector<std::int32_t>{2, 0, 1}, 3).has_value());
    CHECK(check_permutation(std::vector<std::int32_t>{0, 1}, 3) == "expected 3 entries, found 2");
    CHECK(check_permutation(std::vector<std::int32_t>{0, 3, 1}, 3) ==
          "entry 1 = 3 is out of range 0..2");
    CHECK(check_permutation(std::vector<std::int32_t>{0, -1, 1}, 3) ==
          "entry 1 = -1 is out of range 0..2");
    CHECK(check_permutation(std::vector<std::int32_t>{1, 0, 1}, 3) ==
          "location 1 appears twice (entries 0 and 2)");
}

TEST_CASE("validate_instance rejects broken invariants with exact messages") {
    CHECK(validate_error(tiny()) == "(no error)");
    Instance small = tiny();
    small.n = 1;
    CHECK(validate_error(small) == "t: n = 1 is out of range 2..5000");
    Instance sizes = tiny();
    sizes.b.pop_back();
    CHECK(validate_error(sizes) == "t: expected 9 entries in each matrix, found 9 in A and 8 in B");
    Instance negative = tiny();
    negative.b[4] = -4;
    CHECK(validate_error(negative) ==
          "t: negative entry -4 in matrix B (flows and distances must be non-negative)");
    // Objectives must stay exact as doubles: min(sum(A) max(B), sum(B) max(A)) <= 2^53.
    // With a00 = b00 = 2^27 the bound is (2^27 + 13) 2^27 > 2^53; with 2^26, (2^26 + 13) 2^26
    // is below it.
    Instance large = tiny();
    large.a[0] = std::int64_t{1} << 27;
    large.b[0] = std::int64_t{1} << 27;
    CHECK(validate_error(large) ==
          "t: entries too large: objectives can reach min(sum(A) * max(B), sum(B) * max(A)) = "
          "1.80144e+16 with n = 3, max(A) = 134217728, max(B) = 134217728, beyond 2^53 = "
          "9007199254740992, the largest range in which every objective is exact");
    large.a[0] = std::int64_t{1} << 26;
    large.b[0] = std::int64_t{1} << 26;
    CHECK(validate_error(large) == "(no error)");
    // An entry of 2^63 - 1 must not wrap around.
    Instance huge = tiny();
    huge.a[0] = INT64_MAX;
    CHECK(validate_error(huge).find("entries too large") != std::string::npos);
    // A zero matrix makes the objective 0 whatever the other holds.
    huge.b = std::vector<std::int64_t>(9, 0);
    CHECK(validate_error(huge) == "(no error)");
}
