// The random-cvrp generator: determinism, canonical names, the model it draws, spec errors, and
// the .vrp text of a generated instance read back.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "locus/dcvrp/cvrplib.hpp"
#include "locus/dcvrp/dcvrp_problem.hpp"
#include "locus/dcvrp/generator.hpp"
#include "locus/error.hpp"
#include "test_support.hpp"

using locus::InstanceError;
using locus::dcvrp::generate_from_spec;
using locus::dcvrp::Instance;

namespace {

std::string spec_error(const std::string& spec) {
    return locus::test::error_message<InstanceError>([&] { generate_from_spec(spec); });
}

} // namespace

TEST_CASE("generated instances are deterministic and named by their canonical spec") {
    const Instance a = generate_from_spec("random-cvrp:seed=4,n=30");
    const Instance b = generate_from_spec("random-cvrp:n=30,seed=4,capacity=50");
    CHECK(a.name == "random-cvrp:n=30,seed=4");
    CHECK(b.name == a.name);
    CHECK(a.x == b.x);
    CHECK(a.y == b.y);
    CHECK(a.demand == b.demand);
    CHECK(generate_from_spec("random-cvrp:n=30,seed=5").x != a.x);
    CHECK(generate_from_spec("random-cvrp:n=30").name == "random-cvrp:n=30,seed=1");
    CHECK(generate_from_spec("random-cvrp:n=30,capacity=7,distance=2500.5").name ==
          "random-cvrp:n=30,seed=1,capacity=7,distance=2500.5");
}

TEST_CASE("the generator draws the documented model") {
    const Instance inst = generate_from_spec("random-cvrp:n=200,seed=2,capacity=6,distance=1500");
    CHECK(inst.n == 200);
    CHECK(inst.capacity == 6);
    CHECK(inst.max_duration == 1500.0);
    CHECK(inst.service_time == 0.0);
    CHECK(inst.x[0] == 500.0);
    CHECK(inst.y[0] == 500.0);
    CHECK(inst.demand[0] == 0);
    bool full = false;
    for (std::int32_t c = 1; c < inst.n; ++c) {
        const auto v = static_cast<std::size_t>(c);
        CHECK(inst.demand[v] >= 1);
        CHECK(inst.demand[v] <= 6);
        full = full || inst.demand[v] == 6;
        CHECK(inst.x[v] == std::floor(inst.x[v]));
        CHECK(inst.x[v] >= 0.0);
        CHECK(inst.x[v] < 1000.0);
        CHECK(inst.y[v] >= 0.0);
        CHECK(inst.y[v] < 1000.0);
        const double dx = inst.x[v] - 500.0;
        const double dy = inst.y[v] - 500.0;
        CHECK(inst.distance(0, c) == std::sqrt(dx * dx + dy * dy));
    }
    CHECK(full);
    // rounding: nint on request.
    const auto rounded = locus::dcvrp::DcvrpProblem::load("random-cvrp:n=50,seed=2",
                                                          locus::dcvrp::RoundingOption::nint);
    const Instance& r = rounded->instance();
    CHECK(r.dist.empty()); // coordinates: no matrix
    for (std::int32_t a = 0; a < r.n; ++a)
        for (std::int32_t b = 0; b < r.n; ++b) {
            const double d = r.distance(a, b);
            CHECK(d == std::floor(d));
            CHECK(d == r.distance(b, a));
        }
}

TEST_CASE("bad generator specs give exact errors") {
    CHECK(spec_error("random-cvrp:seed=1") == "invalid instance generator spec "
                                              "'random-cvrp:seed=1': missing parameter 'n' "
                                              "(nodes, the depot included)");
    CHECK(spec_error("random-cvrp:n=1") ==
          "invalid instance generator spec 'random-cvrp:n=1': n = 1 is out of range 2..268435456");
    CHECK(spec_error("random-cvrp:n=10,capacity=0") ==
          "invalid instance generator spec 'random-cvrp:n=10,capacity=0': capacity = 0 is out "
          "of range 1..1099511627776");
    CHECK(spec_error("random-cvrp:n=10,distance=0") ==
          "invalid instance generator spec 'random-cvrp:n=10,distance=0': distance = 0 must be "
          "a positive number");
    CHECK(spec_error("random-cvrp:n=10,speed=3") ==
          "invalid instance generator spec 'random-cvrp:n=10,speed=3': unknown parameter "
          "'speed' (parameters: n, seed, capacity, distance)");
    CHECK(spec_error("random-vrp:n=10") == "invalid instance generator spec 'random-vrp:n=10': "
                                           "unknown generator 'random-vrp' (available: "
                                           "random-cvrp, random-vrptw)");
    CHECK(locus::dcvrp::is_generator_spec("random-vrp:n=10"));
    CHECK_FALSE(locus::dcvrp::is_generator_spec("cvrplib/CMT1.vrp"));
    const std::string unreachable = spec_error("random-cvrp:n=10,distance=100");
    CHECK(unreachable.starts_with("random-cvrp:n=10,seed=1,distance=100: customer node "));
    CHECK(unreachable.find(" cannot be served within DISTANCE 100 even alone (depot -> ") !=
          std::string::npos);
}

TEST_CASE("the .vrp text of a generated instance reads back as the same instance") {
    const Instance inst = generate_from_spec("random-cvrp:n=40,seed=6,capacity=20,distance=1900");
    const std::string text = locus::dcvrp::format_cvrplib(inst);
    CHECK(text.starts_with("NAME : random-cvrp:n=40,seed=6,capacity=20,distance=1900\nTYPE : "
                           "DCVRP\nDIMENSION : 40\nCAPACITY : 20\nDISTANCE : 1900\n"
                           "EDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n1 500 500\n"));
    CHECK(text.ends_with("DEPOT_SECTION\n1\n-1\nEOF\n"));
    const Instance back = locus::dcvrp::parse_cvrplib(text, "gen.vrp");
    CHECK(back.name == inst.name);
    CHECK(back.n == inst.n);
    CHECK(back.capacity == inst.capacity);
    CHECK(back.max_duration == inst.max_duration);
    CHECK(back.demand == inst.demand);
    CHECK(back.x == inst.x);
    CHECK(back.y == inst.y);
    for (std::int32_t c = 0; c < inst.n; ++c)
        CHECK(back.distance(0, c) == inst.distance(0, c));
}
