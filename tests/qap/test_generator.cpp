// random-qap generator: determinism, shape (symmetry, zero diagonal, range), spec parsing and
// its exact errors.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "locus/error.hpp"
#include "test_support.hpp"
#include "locus/qap/generator.hpp"

using locus::InstanceError;
using locus::qap::generate_from_spec;
using locus::qap::generate_random;
using locus::qap::Instance;
using locus::qap::is_generator_spec;

namespace {

std::string spec_error(const std::string& spec) {
    return locus::test::error_message<InstanceError>([&] {
        generate_from_spec(spec);
    });
}

} // namespace

TEST_CASE("generate_random is deterministic and depends on the seed") {
    const Instance first = generate_random(12, 1);
    const Instance again = generate_random(12, 1);
    const Instance other = generate_random(12, 2);
    CHECK(first.a == again.a);
    CHECK(first.b == again.b);
    CHECK(first.a != other.a);
    CHECK(first.name == "random-qap:n=12,seed=1");
    CHECK(generate_random(5, 3, 7, true).name == "random-qap:n=5,seed=3,max=7,asymmetric=1");
}

TEST_CASE("symmetric instances have a zero diagonal, asymmetric ones are not symmetric") {
    const Instance sym = generate_random(15, 4, 50);
    bool any_nonzero = false;
    for (std::int32_t i = 0; i < sym.n; ++i) {
        CHECK(sym.flow(i, i) == 0);
        CHECK(sym.distance(i, i) == 0);
        for (std::int32_t j = 0; j < sym.n; ++j) {
            CHECK(sym.flow(i, j) == sym.flow(j, i));
            CHECK(sym.distance(i, j) == sym.distance(j, i));
            CHECK(sym.flow(i, j) <= 50);
            any_nonzero = any_nonzero || sym.flow(i, j) > 0;
        }
    }
    CHECK(any_nonzero);
    const Instance asym = generate_random(15, 4, 50, true);
    bool asymmetric = false;
    for (std::int32_t i = 0; i < asym.n; ++i)
        for (std::int32_t j = 0; j < asym.n; ++j)
            asymmetric = asymmetric || asym.flow(i, j) != asym.flow(j, i);
    CHECK(asymmetric);
}

TEST_CASE("specs build the same instances as direct calls") {
    CHECK(is_generator_spec("random-qap:n=20,seed=1"));
    CHECK(is_generator_spec("other-gen:n=2"));
    CHECK_FALSE(is_generator_spec("qaplib/nug12.dat"));
    CHECK_FALSE(is_generator_spec("C:\\data\\nug12.dat"));
    const Instance from_spec = generate_from_spec("random-qap:seed=9,n=20,max=30,asymmetric=1");
    const Instance direct = generate_random(20, 9, 30, true);
    CHECK(from_spec.name == direct.name);
    CHECK(from_spec.a == direct.a);
    CHECK(from_spec.b == direct.b);
    CHECK(generate_from_spec("random-qap:n=20").name == "random-qap:n=20,seed=1");
}

TEST_CASE("bad specs and arguments give exact errors") {
    CHECK(spec_error("random-tsp:n=5") ==
          "invalid instance generator spec 'random-tsp:n=5': unknown generator 'random-tsp' "
          "(available: random-qap)");
    CHECK(spec_error("random-qap:seed=1") ==
          "invalid instance generator spec 'random-qap:seed=1': missing parameter 'n'");
    CHECK(spec_error("random-qap:n=5,n=6") ==
          "invalid instance generator spec 'random-qap:n=5,n=6': parameter 'n' given twice");
    CHECK(spec_error("random-qap:n=5,size=3") ==
          "invalid instance generator spec 'random-qap:n=5,size=3': unknown parameter 'size' "
          "(parameters: n, seed, max, asymmetric)");
    CHECK(spec_error("random-qap:n=five") ==
          "invalid instance generator spec 'random-qap:n=five': parameter 'n': expected a "
          "non-negative integer, got 'five'");
    CHECK(spec_error("random-qap:n") ==
          "invalid instance generator spec 'random-qap:n': expected 'key=value', found 'n'");
    CHECK(spec_error("random-qap:n=9000") ==
          "invalid instance generator spec 'random-qap:n=9000': n = 9000 is out of range "
          "2..5000");
    CHECK(spec_error("random-qap:n=5,asymmetric=2") ==
          "invalid instance generator spec 'random-qap:n=5,asymmetric=2': asymmetric = 2 must "
          "be 0 or 1");
    CHECK(spec_error("random-qap:n=5,max=4294967296") ==
          "invalid instance generator spec 'random-qap:n=5,max=4294967296': max = 4294967296 "
          "is out of range 0..2147483647");
    CHECK(spec_error("random-qap:n=1") == "random-qap:n=1,seed=1: n = 1 is out of range 2..5000");
    try {
        generate_random(4, 1, -1);
        FAIL("expected an error");
    } catch (const InstanceError& e) {
        CHECK(std::string(e.what()) ==
              "random-qap:n=4,seed=1,max=-1: max = -1 is out of range 0..2147483647");
    }
}
