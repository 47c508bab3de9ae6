// Deprecated component names (ComponentAlias): an old flat config composes as its target with
// the keys the target does not know moved into the target's nested component, unknown keys
// are refused as before, and the deprecation is noted once.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "locus/config.hpp"
#include "locus/error.hpp"
#include "locus/registry.hpp"

namespace {

using locus::ComponentAlias;
using locus::ComponentSchema;
using locus::Params;
using locus::Registry;

/// A problem "toy" with a chain policy "ils" (kick), an algorithm "chains" (epoch, policy) and
/// "resident_ils" for toy as the deprecated flat form of chains.
void fill(Registry& r) {
    locus::register_job_schema(r);
    const locus::Factory none = [](const Params&, locus::BuildContext&) { return nullptr; };
    r.add(ComponentSchema{"problem", "toy", "", ""}.string("instance", "", "file").required(),
          none);
    r.add(ComponentSchema{"construction", "random", "", ""}, none);
    r.add(ComponentSchema{"chain_policy", "ils", "toy", ""}
              .integer("kick", "0", "swaps per kick", 0.0, 10.0)
              .boolean("segments", "false", "segment moves"),
          none);
    r.add(ComponentSchema{"algorithm", "chains", "", ""}
              .component("policy", "chain_policy", "ils", "the problem's chains")
              .integer("epoch", "20", "iterations per epoch", 1.0),
          none);
    r.add_alias(ComponentAlias{"algorithm", "resident_ils", "toy", "chains", "policy"});
}

Params compose(const Registry& r, const std::string& algorithm) {
    return locus::compose_config(
        "problem: {name: toy, instance: a.toy}\nalgorithm: " + algorithm + "\n", "run.yaml", {}, r);
}

std::string error_of(const Registry& r, const std::string& algorithm) {
    try {
        compose(r, algorithm);
    } catch (const locus::ConfigError& e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST_CASE("alias: an old flat config composes exactly as the target with its nested component") {
    Registry r;
    fill(r);
    const Params old_form = compose(r, "{name: resident_ils, kick: 3, epoch: 7}");
    const Params new_form = compose(r, "{name: chains, policy: {kick: 3}, epoch: 7}");
    const Params& algorithm = old_form.get_component("algorithm");
    CHECK(algorithm.name() == "chains");
    CHECK(algorithm.get_int("epoch") == 7);
    const Params& policy = algorithm.get_component("policy");
    CHECK(policy.kind() == "chain_policy");
    CHECK(policy.name() == "ils");
    CHECK(policy.get_int("kick") == 3);
    CHECK_FALSE(policy.get_bool("segments"));
    // The moved keys keep the alias's path: messages about them read as before.
    CHECK(policy.path() == "algorithm");
    CHECK(old_form.canonical() == new_form.canonical());
    CHECK(locus::config_hash(old_form) == locus::config_hash(new_form));
    // The bare name and overrides of the flat keys work too.
    CHECK(compose(r, "resident_ils").canonical() == compose(r, "chains").canonical());
    const Params overridden =
        locus::compose_config("problem: {name: toy, instance: a.toy}\nalgorithm: resident_ils\n",
                              "run.yaml", {"algorithm.kick=5"}, r);
    CHECK(overridden.get_component("algorithm").get_component("policy").get_int("kick") == 5);
}

TEST_CASE("alias: unknown keys and bad values are refused with the usual message and location") {
    Registry r;
    fill(r);
    CHECK(error_of(r, "{name: resident_ils, kik: 3}") ==
          "run.yaml:2:33: algorithm.kik: unknown key 'kik' for algorithm 'resident_ils'; did you "
          "mean 'kick'? (valid: epoch, kick, segments)");
    // The target's nested key is not a key of the flat form.
    CHECK(error_of(r, "{name: resident_ils, policy: ils}") ==
          "run.yaml:2:33: algorithm.policy: unknown key 'policy' for algorithm 'resident_ils' "
          "(valid: epoch, kick, segments)");
    CHECK(error_of(r, "{name: resident_ils, kick: 20}") ==
          "run.yaml:2:39: algorithm.kick: expected an integer in [0, 10], got '20'");
    CHECK(error_of(r, "{name: resident_ils, epoch: 0}") ==
          "run.yaml:2:40: algorithm.epoch: expected an integer >= 1, got '0'");
    // Aliases are not offered as names: an unknown name lists the components only.
    CHECK(error_of(r, "resident") ==
          "run.yaml:2:12: algorithm: unknown algorithm 'resident' (valid: chains)");
}

TEST_CASE("alias: composing notes the deprecation once, naming the replacement") {
    Registry r;
    fill(r);
    std::vector<std::string> notes;
    r.set_note_sink([&](const std::string& text) { notes.push_back(text); });
    compose(r, "chains");
    CHECK(notes.empty());
    compose(r, "{name: resident_ils, kick: 1}");
    compose(r, "resident_ils");
    REQUIRE(notes.size() == 1);
    CHECK(notes[0] == "algorithm 'resident_ils' (problem 'toy') is deprecated; use {name: "
                      "chains, policy: {...}}: its keys that chains does not know go under "
                      "policy, with the same values and results");
}

TEST_CASE("alias: registered once per name and scope, never over a component") {
    Registry r;
    fill(r);
    CHECK_THROWS_AS(r.add_alias(ComponentAlias{"algorithm", "chains", "", "chains", ""}),
                    locus::PluginError);
    CHECK_THROWS_AS(r.add_alias(ComponentAlias{"algorithm", "resident_ils", "toy", "chains", ""}),
                    locus::PluginError);
    CHECK_THROWS_AS(r.add(ComponentSchema{"algorithm", "resident_ils", "toy", ""},
                          [](const Params&, locus::BuildContext&) { return nullptr; }),
                    locus::PluginError);
    REQUIRE(r.aliases().size() == 1);
    CHECK(r.aliases()[0]->target == "chains");
    CHECK(r.find_alias("algorithm", "resident_ils", "toy") != nullptr);
    CHECK(r.find_alias("algorithm", "resident_ils", "other") == nullptr);
    CHECK(r.find("algorithm", "resident_ils", "toy") == nullptr);
}
