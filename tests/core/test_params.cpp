// Schemas, validated params and their canonical text.
#include <doctest/doctest.h>

#include <cstdint>
#include <memory>

#include "locus/error.hpp"
#include "locus/params.hpp"

using locus::ComponentSchema;
using locus::ConfigError;
using locus::Params;
using locus::ParamType;
using locus::SourceLocation;

TEST_CASE("SourceLocation::str names file, line and column") {
    CHECK(SourceLocation{"run.yaml", 7, 5}.str() == "run.yaml:7:5");
    CHECK(SourceLocation{"run.yaml", 0, 0}.str() == "run.yaml");
    CHECK(SourceLocation{"<command line>", 0, 0}.str() == "<command line>");
    CHECK(SourceLocation{}.str() == "<default>");
}

TEST_CASE("ComponentSchema fluent helpers record typed parameters") {
    ComponentSchema schema;
    schema.kind = "algorithm";
    schema.name = "ils";
    schema.integer("restarts", "0", "restarts", 0.0, 10.0)
        .real("temperature", "1.5", "initial temperature", 0.0)
        .boolean("verbose", "false", "log steps")
        .string("label", "", "free text")
        .choice("acceptance", "better", {"better", "always"}, "acceptance rule")
        .component("local_search", "algorithm", "descent", "inner search")
        .component_list("neighborhoods", "neighborhood", "[two_opt]", "moves")
        .required();

    REQUIRE(schema.params.size() == 7);
    const auto* restarts = schema.find("restarts");
    REQUIRE(restarts != nullptr);
    CHECK(restarts->type == ParamType::integer);
    CHECK(restarts->default_yaml == "0");
    CHECK(*restarts->min == 0.0);
    CHECK(*restarts->max == 10.0);
    CHECK_FALSE(schema.find("temperature")->max.has_value());
    CHECK(schema.find("acceptance")->choices == std::vector<std::string>{"better", "always"});
    CHECK(schema.find("local_search")->component_kind == "algorithm");
    const auto* neighborhoods = schema.find("neighborhoods");
    CHECK(neighborhoods->type == ParamType::component_list);
    CHECK(neighborhoods->required);
    CHECK(neighborhoods->default_yaml.empty());
    CHECK_FALSE(schema.find("local_search")->required);
    CHECK(schema.find("missing") == nullptr);
}

TEST_CASE("Params accessors return typed values and reject other types") {
    Params params("algorithm", "ils", "algorithm", SourceLocation{"run.yaml", 2, 3});
    params.set("restarts", std::int64_t{4}, SourceLocation{"run.yaml", 3, 13});
    params.set("temperature", 2.5);
    params.set("verbose", true);
    params.set("acceptance", std::string("better"));
    params.set("target", std::monostate{});

    CHECK(params.get_int("restarts") == 4);
    CHECK(params.get_real("restarts") == 4.0); // integers are accepted as reals
    CHECK(params.get_real("temperature") == 2.5);
    CHECK(params.get_bool("verbose"));
    CHECK(params.get_string("acceptance") == "better");
    CHECK(params.has("restarts"));
    CHECK_FALSE(params.has("target"));
    CHECK_FALSE(params.has("nothing"));
    CHECK(params.keys() ==
          std::vector<std::string>{"acceptance", "restarts", "target", "temperature", "verbose"});
    CHECK(params.location_of("restarts").str() == "run.yaml:3:13");
    CHECK(params.location_of("temperature").str() == "run.yaml:2:3"); // falls back

    CHECK_THROWS_WITH_AS(params.get_int("temperature"),
                         "algorithm.temperature: expected an integer, the value is a real number",
                         ConfigError);
    CHECK_THROWS_WITH_AS(params.get_string("verbose"),
                         "algorithm.verbose: expected a string, the value is a boolean",
                         ConfigError);
    CHECK_THROWS_WITH_AS(params.get_bool("acceptance"),
                         "algorithm.acceptance: expected a boolean, the value is a string",
                         ConfigError);
    CHECK_THROWS_WITH_AS(params.get_component("restarts"),
                         "algorithm.restarts: expected a component, the value is an integer",
                         ConfigError);
    CHECK_THROWS_WITH_AS(params.get_int("steps"),
                         "algorithm.steps: no value for parameter 'steps' of algorithm 'ils' "
                         "(expected an integer)",
                         ConfigError);
    CHECK_THROWS_WITH_AS(params.get_real("target"),
                         "algorithm.target: no value for parameter 'target' of algorithm 'ils' "
                         "(expected a real number)",
                         ConfigError);
}

TEST_CASE("Params hold nested components and component lists") {
    auto inner = std::make_shared<Params>("algorithm", "descent", "algorithm.local_search",
                                          SourceLocation{});
    inner->set("max_steps", std::int64_t{0});
    auto first = std::make_shared<Params>("neighborhood", "two_opt", "n[0]", SourceLocation{});
    auto second = std::make_shared<Params>("neighborhood", "swap", "n[1]", SourceLocation{});
    second->set("radius", 0.25);

    Params outer("algorithm", "ils", "algorithm", SourceLocation{});
    outer.set("local_search", std::shared_ptr<const Params>(inner));
    outer.set("neighborhoods", std::vector<std::shared_ptr<const Params>>{first, second});

    CHECK(outer.get_component("local_search").name() == "descent");
    CHECK(outer.get_component("local_search").get_int("max_steps") == 0);
    const auto list = outer.get_components("neighborhoods");
    REQUIRE(list.size() == 2);
    CHECK(list[1]->name() == "swap");
    CHECK(list[1]->get_real("radius") == 0.25);
    CHECK_THROWS_WITH_AS(outer.get_components("local_search"),
                         "algorithm.local_search: expected a component list, the value is a "
                         "component",
                         ConfigError);

    CHECK(outer.canonical() == "!algorithm ils\n"
                               "local_search: !algorithm descent\n"
                               "  max_steps: 0\n"
                               "neighborhoods:\n"
                               "  - !neighborhood two_opt\n"
                               "  - !neighborhood swap\n"
                               "    radius: 0.25\n");
}

TEST_CASE("Params::canonical sorts keys, skips absent values and prints numbers exactly") {
    Params a("job", "job", "", SourceLocation{});
    a.set("seed", std::int64_t{7});
    a.set("limit", 0.1);
    a.set("whole", 3.0);
    a.set("label", std::string("say \"hi\"\n"));
    a.set("flag", false);
    a.set("target", std::monostate{});

    Params b("job", "job", "", SourceLocation{"other.yaml", 4, 1});
    b.set("target", std::monostate{});
    b.set("flag", false);
    b.set("label", std::string("say \"hi\"\n"));
    b.set("whole", 3.0);
    b.set("limit", 0.1);
    b.set("seed", std::int64_t{7});

    const std::string expected = "!job job\n"
                                 "flag: false\n"
                                 "label: \"say \\\"hi\\\"\\n\"\n"
                                 "limit: 0.1\n"
                                 "seed: 7\n"
                                 "whole: 3.0\n";
    CHECK(a.canonical() == expected);
    CHECK(b.canonical() == expected); // insertion order and locations do not matter

    Params c("job", "job", "", SourceLocation{});
    c.set("x", 0.1 + 0.2);
    CHECK(c.canonical() == "!job job\nx: 0.30000000000000004\n");
}
