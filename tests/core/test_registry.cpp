// The component registry: registration, problem scoping, creation and name suggestions.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "locus/error.hpp"
#include "locus/problem.hpp"
#include "locus/registry.hpp"

namespace {

using locus::BuildContext;
using locus::Component;
using locus::ComponentSchema;
using locus::Params;
using locus::Registry;

ComponentSchema schema(std::string kind, std::string name, std::string problem = {}) {
    ComponentSchema s;
    s.kind = std::move(kind);
    s.name = std::move(name);
    s.problem = std::move(problem);
    return s;
}

/// A construction that remembers the params it was built from.
class FakeConstruction : public locus::Construction {
  public:
    explicit FakeConstruction(std::string tag) : tag_(std::move(tag)) {}
    void construct(locus::SolutionBatch&, std::uint64_t) override {}
    const std::string& tag() const { return tag_; }

  private:
    std::string tag_;
};

locus::Factory make_construction(std::string tag) {
    return [tag](const Params&, BuildContext&) -> std::unique_ptr<Component> {
        return std::make_unique<FakeConstruction>(tag);
    };
}

locus::Factory no_object() {
    return [](const Params&, BuildContext&) -> std::unique_ptr<Component> { return nullptr; };
}

} // namespace

TEST_CASE("Registry rejects a second registration of the same kind, name and problem") {
    Registry registry;
    registry.add(schema("neighborhood", "two_opt", "tsp"), no_object(), "locus_tsp.so");
    CHECK_THROWS_WITH_AS(
        registry.add(schema("neighborhood", "two_opt", "tsp"), no_object(), "locus_other.so"),
        "neighborhood 'two_opt' for problem 'tsp' is registered twice (first by "
        "'locus_tsp.so', again by 'locus_other.so')",
        locus::PluginError);
    registry.add(schema("neighborhood", "two_opt", "dcvrp"), no_object(), "locus_dcvrp.so");
    CHECK(registry.find("neighborhood", "two_opt", "dcvrp")->plugin == "locus_dcvrp.so");
    CHECK(registry.find("neighborhood", "two_opt", "tsp")->plugin == "locus_tsp.so");
}

TEST_CASE("Registry reports duplicates of built-in components") {
    Registry registry;
    registry.add(schema("algorithm", "descent"), no_object());
    CHECK_THROWS_WITH_AS(registry.add(schema("algorithm", "descent"), no_object()),
                         "algorithm 'descent' is registered twice (first built in, again built "
                         "in)",
                         locus::PluginError);
    // Same name, other problem or other kind: no conflict.
    registry.add(schema("algorithm", "descent", "qap"), no_object());
    registry.add(schema("neighborhood", "descent"), no_object());
    CHECK(registry.entries().size() == 3);
}

TEST_CASE("Problem-scoped components shadow generic ones and are hidden from other problems") {
    Registry registry;
    registry.add(schema("construction", "random"), make_construction("generic"));
    registry.add(schema("construction", "random", "tsp"), make_construction("tsp"));
    registry.add(schema("construction", "greedy", "tsp"), make_construction("tsp greedy"));
    registry.add(schema("construction", "sweep", "dcvrp"), make_construction("sweep"));

    CHECK(registry.find("construction", "random", "tsp")->schema.problem == "tsp");
    CHECK(registry.find("construction", "random", "qap")->schema.problem.empty());
    CHECK(registry.find("construction", "random")->schema.problem.empty());
    CHECK(registry.find("construction", "greedy", "qap") == nullptr);
    CHECK(registry.find("construction", "greedy") == nullptr);
    CHECK(registry.find("algorithm", "random", "tsp") == nullptr);

    CHECK(registry.names("construction", "tsp") == std::vector<std::string>{"greedy", "random"});
    CHECK(registry.names("construction", "qap") == std::vector<std::string>{"random"});
    CHECK(registry.names("construction") == std::vector<std::string>{"random"});
    CHECK(registry.names("construction", "", true) ==
          std::vector<std::string>{"greedy", "random", "sweep"});

    const auto entries = registry.entries();
    REQUIRE(entries.size() == 4);
    CHECK(entries[0]->schema.problem.empty());
    CHECK(entries[1]->schema.problem == "dcvrp");
    CHECK(entries[2]->schema.name == "greedy");
    CHECK(entries[3]->schema.name == "random");
    CHECK(entries[3]->schema.problem == "tsp");
}

TEST_CASE("Registry::create builds the visible component and checks its kind") {
    Registry registry;
    registry.add(schema("construction", "random"), make_construction("generic"));
    registry.add(schema("construction", "empty"), no_object(), "locus_fake.so");
    BuildContext ctx;
    ctx.registry = &registry;

    const Params random("construction", "random", "construction", {});
    auto built = registry.create<locus::Construction>(random, ctx);
    REQUIRE(built != nullptr);
    CHECK(static_cast<FakeConstruction&>(*built).tag() == "generic");

    CHECK_THROWS_WITH_AS(registry.create<locus::Perturbation>(random, ctx),
                         "construction: expected a component of kind 'perturbation', got "
                         "'construction'",
                         locus::ConfigError);
    const Params unknown("construction", "greedy", "construction", {});
    CHECK_THROWS_WITH_AS(registry.create_component(unknown, ctx),
                         "construction: unknown construction 'greedy'", locus::ConfigError);
    const Params empty("construction", "empty", "construction", {});
    CHECK_THROWS_WITH_AS(registry.create_component(empty, ctx),
                         "construction 'empty' (plugin 'locus_fake.so') returned no object for "
                         "construction",
                         locus::PluginError);
}

TEST_CASE("closest_name suggests only close candidates") {
    const std::vector<std::string> names{"or_opt", "swap", "two_opt"};
    CHECK(locus::closest_name("two_op", names) == "two_opt");
    CHECK(locus::closest_name("tow_opt", names) == "two_opt"); // transposition counts once
    CHECK(locus::closest_name("Swap", names) == "swap");
    CHECK(locus::closest_name("sawp", names) == "swap");
    CHECK(locus::closest_name("opt", names).empty()); // 3 edits for 3 letters
    CHECK(locus::closest_name("insertion", names).empty());
    CHECK(locus::closest_name("x", names).empty());
    CHECK(locus::closest_name("two_opt", {}).empty());
    // Long words allow len/3 edits: 12 letters, 4 edits.
    CHECK(locus::closest_name("perturbation", {"pertxxxation"}) == "pertxxxation");
    CHECK(locus::closest_name("perturbation", {"pexxxxxation"}).empty());
    CHECK(locus::closest_name("gpu", {"auto", "cpu", "cuda"}) == "cpu");
}

TEST_CASE("Registry checks every parameter default against its own type and range") {
    Registry registry;
    const auto bad = [&](ComponentSchema s) {
        std::string message = "(no error)";
        try {
            registry.add(std::move(s), no_object(), "locus_x.so");
        } catch (const locus::PluginError& e) {
            message = e.what();
        }
        return message;
    };
    CHECK(bad(ComponentSchema("algorithm", "a", "", "").integer("steps", "0", "", 1, 10)) ==
          "plugin 'locus_x.so': algorithm 'a': parameter 'steps': default '0' is outside its "
          "range 1..10");
    CHECK(bad(ComponentSchema("algorithm", "b", "", "").real("rate", "fast", "")) ==
          "plugin 'locus_x.so': algorithm 'b': parameter 'rate': default 'fast' is not a number");
    CHECK(bad(ComponentSchema("algorithm", "c", "", "").choice("pivot", "worst",
                                                               {"best", "first"}, "")) ==
          "plugin 'locus_x.so': algorithm 'c': parameter 'pivot': default 'worst' is not one of "
          "its choices (best, first)");
    CHECK(bad(ComponentSchema("algorithm", "d", "", "").boolean("on", "yes", "")) ==
          "plugin 'locus_x.so': algorithm 'd': parameter 'on': default 'yes' is not true or "
          "false");
    CHECK(bad(ComponentSchema("algorithm", "e", "", "")
                  .integer("steps", "10", "", 1, 10)
                  .real("rate", "-0.5", "", -1.0)
                  .choice("pivot", "\"first\"", {"best", "first"}, "")) == "(no error)");
    CHECK(registry.entries().size() == 1);
}

TEST_CASE("A plugin's own registry names the plugin in its duplicate messages") {
    Registry staging("locus_x.so");
    staging.add(schema("algorithm", "descent"), no_object());
    CHECK(staging.find("algorithm", "descent")->plugin == "locus_x.so");
    CHECK_THROWS_WITH_AS(staging.add(schema("algorithm", "descent"), no_object()),
                         "algorithm 'descent' is registered twice (first by 'locus_x.so', again "
                         "by 'locus_x.so')",
                         locus::PluginError);
}
