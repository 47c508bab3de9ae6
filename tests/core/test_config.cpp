// Config composition: schemas, defaults, nested components, overrides and exact error texts.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "locus/config.hpp"
#include "locus/error.hpp"
#include "test_support.hpp"

namespace {

using locus::ComponentSchema;
using locus::ConfigError;
using locus::Params;
using locus::Registry;

ComponentSchema schema(std::string kind, std::string name, std::string problem = {}) {
    ComponentSchema s;
    s.kind = std::move(kind);
    s.name = std::move(name);
    s.problem = std::move(problem);
    return s;
}

/// Fake components: problems "toy" (generic) and "grid" (scoped to itself), neighborhoods and
/// constructions scoped to them, a generic "swap" shadowed by toy's, and algorithms "descent"
/// and "ils" nesting them.
Registry make_registry() {
    Registry r;
    locus::register_job_schema(r);
    const locus::Factory none = [](const Params&, locus::BuildContext&) { return nullptr; };
    r.add(schema("problem", "toy")
              .string("instance", "", "instance file")
              .required()
              .integer("scale", "1", "size multiplier", 1.0),
          none);
    r.add(schema("problem", "grid", "grid").string("instance", "", "map file").required(), none);
    r.add(schema("neighborhood", "two_opt", "toy").integer("max_moves", "0", "cap", 0.0), none);
    r.add(schema("neighborhood", "or_opt", "toy").integer("segment", "3", "length", 1.0, 3.0),
          none);
    r.add(schema("neighborhood", "swap", "toy").real("radius", "1", "radius", 0.0), none);
    r.add(schema("neighborhood", "swap"), none);
    r.add(schema("neighborhood", "step", "grid"), none);
    r.add(schema("construction", "random", "toy"), none);
    r.add(schema("construction", "greedy", "toy"), none);
    r.add(schema("construction", "random", "grid"), none);
    r.add(schema("perturbation", "double_bridge", "toy")
              .integer("strength", "1", "segments moved", 1.0, 10.0),
          none);
    r.add(schema("perturbation", "restart"), none);
    r.add(schema("algorithm", "descent")
              .component_list("neighborhoods", "neighborhood", "[two_opt, or_opt]", "moves")
              .choice("pivot", "best", {"best", "first"}, "pivoting rule")
              .integer("max_steps", "0", "step limit", 0.0),
          none);
    r.add(schema("algorithm", "ils")
              .component("local_search", "algorithm", "descent", "inner search")
              .component("perturbation", "perturbation", "double_bridge", "kick")
              .choice("acceptance", "better", {"better", "always", "annealing"}, "rule")
              .component("construction", "construction", "", "restart construction")
              .integer("restarts", "0", "restarts", 0.0)
              .real("temperature", "", "annealing temperature", 0.0),
          none);
    return r;
}

const Registry& registry() {
    static const Registry r = make_registry();
    return r;
}

Params compose(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
    return locus::compose_config(yaml, "run.yaml", overrides, registry());
}

const std::string kMinimal = "problem: {name: toy, instance: a.toy}\n"
                             "algorithm: descent\n";

} // namespace

TEST_CASE("compose_config fills every default of the job") {
    const Params job = compose(kMinimal);
    CHECK(job.kind() == "job");
    CHECK(job.name() == "job");
    CHECK(job.get_int("seed") == 1);
    CHECK(job.get_string("backend") == "auto");
    CHECK(job.get_int("device") == 0);
    CHECK(job.get_int("threads") == 0);
    CHECK(job.get_int("batch") == 1);
    CHECK(job.get_string("output") == "results");
    CHECK(job.get_string("best_known").empty());
    CHECK_FALSE(job.get_bool("check_moves"));
    CHECK(job.get_string("name").empty());

    const Params& problem = job.get_component("problem");
    CHECK(problem.name() == "toy");
    CHECK(problem.path() == "problem");
    CHECK(problem.get_string("instance") == "a.toy");
    CHECK(problem.get_int("scale") == 1);
    CHECK(problem.location().str() == "run.yaml:1:10");
    CHECK(problem.location_of("instance").str() == "run.yaml:1:32");

    CHECK(job.get_component("construction").name() == "random");
    CHECK(job.get_component("construction").kind() == "construction");

    const Params& termination = job.get_component("termination");
    CHECK(termination.name() == "limits");
    CHECK(termination.get_real("time_limit") == 0.0);
    CHECK(termination.get_int("iterations") == 0);
    CHECK(termination.get_int("evaluations") == 0);
    CHECK(termination.get_int("stagnation") == 0);
    CHECK_FALSE(termination.has("target"));
    CHECK_FALSE(termination.has("target_gap"));

    // Defaults are validated like user input: "[two_opt, or_opt]" becomes two components.
    const Params& descent = job.get_component("algorithm");
    const auto neighborhoods = descent.get_components("neighborhoods");
    REQUIRE(neighborhoods.size() == 2);
    CHECK(neighborhoods[0]->name() == "two_opt");
    CHECK(neighborhoods[1]->name() == "or_opt");
    CHECK(neighborhoods[1]->path() == "algorithm.neighborhoods[1]");
    CHECK(neighborhoods[1]->get_int("segment") == 3);
    CHECK(descent.location_of("neighborhoods").str() == "<default>");
}

TEST_CASE("components are given by name, by map with name, or by map without name") {
    const Params job = compose("problem: {name: toy, instance: a.toy}\n"
                               "construction: greedy\n"
                               "algorithm:\n"
                               "  name: ils\n"
                               "  local_search: {max_steps: 5, neighborhoods: [swap]}\n"
                               "  perturbation: {name: double_bridge, strength: 3}\n"
                               "  temperature: 2\n"
                               "termination: {time_limit: 1.5, target: -4}\n");
    CHECK(job.get_component("construction").name() == "greedy");
    const Params& ils = job.get_component("algorithm");
    CHECK(ils.name() == "ils");
    CHECK(ils.get_string("acceptance") == "better");
    CHECK_FALSE(ils.has("construction"));
    CHECK(ils.get_real("temperature") == 2.0);
    const Params& local = ils.get_component("local_search");
    CHECK(local.name() == "descent"); // the default component, with the given params
    CHECK(local.path() == "algorithm.local_search");
    CHECK(local.get_int("max_steps") == 5);
    CHECK(local.get_components("neighborhoods")[0]->get_real("radius") == 1.0);
    CHECK(ils.get_component("perturbation").get_int("strength") == 3);
    const Params& termination = job.get_component("termination");
    CHECK(termination.name() == "limits");
    CHECK(termination.get_real("time_limit") == 1.5);
    CHECK(termination.get_real("target") == -4.0);
    CHECK(termination.location_of("time_limit").str() == "run.yaml:8:27");
}

TEST_CASE("problem-scoped components are resolved for the configured problem") {
    // grid: the generic swap is visible (no params) and toy's neighborhoods are not.
    const Params job = compose("problem: {name: grid, instance: m.map}\n"
                               "algorithm: {name: descent, neighborhoods: [step, swap]}\n");
    CHECK(job.get_component("problem").name() == "grid");
    const auto list = job.get_component("algorithm").get_components("neighborhoods");
    REQUIRE(list.size() == 2);
    CHECK(list[1]->name() == "swap");
    CHECK_FALSE(list[1]->has("radius"));

    CHECK_THROWS_WITH_AS(compose("problem: {name: grid, instance: m.map}\n"
                                 "algorithm: {name: descent, neighborhoods: [{name: swap, "
                                 "radius: 2}]}\n"),
                         "run.yaml:2:57: algorithm.neighborhoods[0].radius: unknown key "
                         "'radius' for neighborhood 'swap' (it has no parameters)",
                         ConfigError);
    CHECK_THROWS_WITH_AS(compose("problem: {name: grid, instance: m.map}\n"
                                 "algorithm: {name: descent, neighborhoods: [two_opt]}\n"),
                         "run.yaml:2:44: algorithm.neighborhoods[0]: unknown neighborhood "
                         "'two_opt' for problem 'grid' (valid: step, swap)",
                         ConfigError);
    // Defaults are validated for the problem too.
    CHECK_THROWS_WITH_AS(compose("problem: {name: grid, instance: m.map}\n"
                                 "algorithm: descent\n"),
                         "<default>: algorithm.neighborhoods[0]: unknown neighborhood 'two_opt' "
                         "for problem 'grid' (valid: step, swap)",
                         ConfigError);
}

TEST_CASE("overrides set values, list items and params of components given by name") {
    const Params job =
        compose(kMinimal, {"seed=42", "algorithm.pivot=first", "termination.time_limit=2.5",
                           "name=", "problem.scale=3"});
    CHECK(job.get_int("seed") == 42);
    CHECK(job.location_of("seed").str() == "<command line>");
    CHECK(job.get_string("name").empty());
    CHECK(job.get_component("problem").get_int("scale") == 3);
    // `algorithm: descent` became {name: descent, pivot: first}.
    CHECK(job.get_component("algorithm").name() == "descent");
    CHECK(job.get_component("algorithm").get_string("pivot") == "first");
    CHECK(job.get_component("termination").get_real("time_limit") == 2.5);

    const std::string lists = "problem: {name: toy, instance: a.toy}\n"
                              "algorithm:\n"
                              "  name: descent\n"
                              "  neighborhoods: [two_opt, or_opt, swap]\n";
    const Params edited = compose(
        lists, {"algorithm.neighborhoods.1.segment=2", "algorithm.neighborhoods[2]=two_opt"});
    const auto list = edited.get_component("algorithm").get_components("neighborhoods");
    REQUIRE(list.size() == 3);
    CHECK(list[1]->name() == "or_opt");
    CHECK(list[1]->get_int("segment") == 2);
    CHECK(list[2]->name() == "two_opt");

    const Params replaced = compose(lists, {"algorithm.neighborhoods=[swap]"});
    const auto one = replaced.get_component("algorithm").get_components("neighborhoods");
    REQUIRE(one.size() == 1);
    CHECK(one[0]->name() == "swap");

    const Params nested =
        compose("problem: {name: toy, instance: a.toy}\nalgorithm: ils\n",
                {"algorithm.perturbation.strength=4", "algorithm.local_search=descent"});
    CHECK(nested.get_component("algorithm").name() == "ils");
    CHECK(nested.get_component("algorithm").get_component("perturbation").get_int("strength") == 4);

    // An empty file is completed by overrides alone.
    const Params from_overrides =
        compose("", {"problem.name=toy", "problem.instance=b.toy", "algorithm=descent"});
    CHECK(from_overrides.get_component("problem").get_string("instance") == "b.toy");
}

TEST_CASE("malformed overrides are reported with the override text") {
    CHECK_THROWS_WITH_AS(compose(kMinimal, {"foo"}), "--set 'foo': expected key.path=value",
                         ConfigError);
    CHECK_THROWS_WITH_AS(compose(kMinimal, {"algorithm..pivot=best"}),
                         "--set 'algorithm..pivot=best': empty key in path 'algorithm..pivot'",
                         ConfigError);
    CHECK_THROWS_WITH_AS(compose("problem: {name: toy, instance: a.toy}\n"
                                 "algorithm: {name: descent, neighborhoods: [swap]}\n",
                                 {"algorithm.neighborhoods[3]=swap"}),
                         "--set 'algorithm.neighborhoods[3]=swap': index 3 is out of range "
                         "('algorithm.neighborhoods' has 1 items)",
                         ConfigError);
    CHECK_THROWS_WITH_AS(compose(kMinimal, {"seed[0]=1"}),
                         "--set 'seed[0]=1': 'seed' is not a list", ConfigError);
    CHECK_THROWS_WITH_AS(compose(kMinimal, {"seed=abc"}),
                         "<command line>: seed: expected an integer, got 'abc'", ConfigError);
}

TEST_CASE("value errors give file:line:col, key path and the bad value") {
    CHECK_THROWS_WITH_AS(compose(kMinimal + "termination:\n  time_limit: -3\n"),
                         "run.yaml:4:15: termination.time_limit: expected a number >= 0, got '-3'",
                         ConfigError);
    CHECK_THROWS_WITH_AS(compose(kMinimal + "seed: abc\n"),
                         "run.yaml:3:7: seed: expected an integer, got 'abc'", ConfigError);
    CHECK_THROWS_WITH_AS(compose(kMinimal + "seed: 1e3\n"),
                         "run.yaml:3:7: seed: expected an integer, got '1e3'", ConfigError);
    CHECK_THROWS_WITH_AS(compose(kMinimal + "seed: 1.0\n"),
                         "run.yaml:3:7: seed: expected an integer, got '1.0'", ConfigError);
    CHECK_THROWS_WITH_AS(compose(kMinimal + "seed: [1]\n"),
                         "run.yaml:3:7: seed: expected an integer, got a list", ConfigError);
    CHECK_THROWS_WITH_AS(compose(kMinimal + "batch: 0\n"),
                         "run.yaml:3:8: batch: expected an integer in [1, 1048576] or auto, got '0'",
                         ConfigError);
    CHECK_THROWS_WITH_AS(compose(kMinimal + "batch: many\n"),
                         "run.yaml:3:8: batch: expected an integer or auto, got 'many'",
                         ConfigError);
    CHECK_THROWS_WITH_AS(compose(kMinimal + "seed: auto\n"),
                         "run.yaml:3:7: seed: expected an integer, got 'auto'", ConfigError);
    // auto is held as 0, outside the range; the launcher resolves it (batch: the device's
    // multiprocessors).
    CHECK(compose(kMinimal + "batch: auto\n").get_int("batch") == 0);
    CHECK(compose(kMinimal, {"batch=auto"}).get_int("batch") == 0);
    // ... and remembered as auto (the results' config says auto, which reads back), unlike a
    // number or an override of auto by a number.
    CHECK(compose(kMinimal + "batch: auto\n").is_auto("batch"));
    CHECK(compose(kMinimal, {"batch=auto"}).is_auto("batch"));
    CHECK_FALSE(compose(kMinimal + "batch: 3\n").is_auto("batch"));
    CHECK_FALSE(compose(kMinimal + "batch: auto\n", {"batch=3"}).is_auto("batch"));
    CHECK_FALSE(compose(kMinimal).is_auto("batch"));
    CHECK_THROWS_WITH_AS(compose(kMinimal + "check_moves: yes\n"),
                         "run.yaml:3:14: check_moves: expected true or false, got 'yes'",
                         ConfigError);
    CHECK_THROWS_WITH_AS(compose(kMinimal + "termination: {time_limit: fast}\n"),
                         "run.yaml:3:27: termination.time_limit: expected a number, got 'fast'",
                         ConfigError);
    CHECK_THROWS_WITH_AS(compose(kMinimal + "output: {dir: x}\n"),
                         "run.yaml:3:9: output: expected a string, got a map", ConfigError);
    CHECK(compose(kMinimal + "termination: {time_limit: 30}\n")
              .get_component("termination")
              .get_real("time_limit") == 30.0);
}

TEST_CASE("invalid choices list the valid values and suggest a close one") {
    // "gpu" is one letter from "cpu", but users who write it mean the CUDA backend.
    CHECK_THROWS_WITH_AS(compose("backend: gpu\n" + kMinimal),
                         "run.yaml:1:10: backend: invalid value 'gpu'; did you mean 'cuda'? "
                         "(valid: auto, cpu, cuda)",
                         ConfigError);
    CHECK_THROWS_WITH_AS(compose("backend: cpp\n" + kMinimal),
                         "run.yaml:1:10: backend: invalid value 'cpp'; did you mean 'cpu'? "
                         "(valid: auto, cpu, cuda)",
                         ConfigError);
    CHECK_THROWS_WITH_AS(compose("backend: opencl\n" + kMinimal),
                         "run.yaml:1:10: backend: invalid value 'opencl' (valid: auto, cpu, cuda)",
                         ConfigError);
}

TEST_CASE("unknown components and keys list the alternatives") {
    const std::string head = "problem: {name: toy, instance: a.toy}\n";
    CHECK_THROWS_WITH_AS(compose(head + "algorithm:\n"
                                        "  name: ils\n"
                                        "  local_search:\n"
                                        "    name: descent\n"
                                        "    neighborhoods:\n"
                                        "      - swap\n"
                                        "      - two_op\n"),
                         "run.yaml:8:9: algorithm.local_search.neighborhoods[1]: unknown "
                         "neighborhood 'two_op' for problem 'toy'; did you mean 'two_opt'? "
                         "(valid: or_opt, swap, two_opt)",
                         ConfigError);
    CHECK_THROWS_WITH_AS(compose(head + "algorithm:\n"
                                        "  name: ils\n"
                                        "  perturbaton: restart\n"),
                         "run.yaml:4:3: algorithm.perturbaton: unknown key 'perturbaton' for "
                         "algorithm 'ils'; did you mean 'perturbation'? (valid: acceptance, "
                         "construction, local_search, perturbation, restarts, temperature)",
                         ConfigError);
    CHECK_THROWS_WITH_AS(compose(kMinimal + "seeed: 3\n"),
                         "run.yaml:3:1: seeed: unknown key 'seeed'; did you mean 'seed'? (valid: "
                         "algorithm, backend, batch, best_known, check_moves, construction, "
                         "device, memory_budget, memory_fraction, name, output, problem, seed, "
                         "termination, threads)",
                         ConfigError);
    CHECK_THROWS_WITH_AS(compose("problem: {name: tot, instance: a}\nalgorithm: descent\n"),
                         "run.yaml:1:17: problem: unknown problem 'tot'; did you mean 'toy'? "
                         "(valid: grid, toy); a plugin in another folder is loaded with "
                         "--plugin-path DIR or LOCUS_PLUGIN_PATH",
                         ConfigError);
    CHECK_THROWS_WITH_AS(compose(head + "algorithm: annealing\n"),
                         "run.yaml:2:12: algorithm: unknown algorithm 'annealing' (valid: "
                         "descent, ils)",
                         ConfigError);
    CHECK_THROWS_WITH_AS(compose(head + "algorithm: {max_steps: 3}\n"),
                         "run.yaml:2:12: algorithm: missing 'name' of the algorithm (there is no "
                         "default algorithm; valid: descent, ils)",
                         ConfigError);
    CHECK_THROWS_WITH_AS(compose(head + "algorithm: [descent]\n"),
                         "run.yaml:2:12: algorithm: expected an algorithm (a name or a map with "
                         "'name'), got a list",
                         ConfigError);
}

TEST_CASE("missing required keys name the parent map") {
    CHECK_THROWS_WITH_AS(compose("problem: {name: toy, instance: a.toy}\n"),
                         "run.yaml: algorithm: required key missing", ConfigError);
    CHECK_THROWS_WITH_AS(compose("problem: {name: toy}\nalgorithm: descent\n"),
                         "run.yaml:1:10: problem.instance: required key missing", ConfigError);
    CHECK_THROWS_WITH_AS(compose("problem: toy\nalgorithm: descent\n"),
                         "run.yaml:1:10: problem.instance: required key missing", ConfigError);
    CHECK_THROWS_WITH_AS(compose("problem: {name: toy, instance: a.toy}\nalgorithm:\n"),
                         "run.yaml:2:1: algorithm: required key has no value", ConfigError);
}

TEST_CASE("YAML syntax errors and documents that are not maps") {
    CHECK_THROWS_WITH_AS(compose("problem: {name: toy\nalgorithm: descent\n"),
                         "run.yaml:2:10: YAML syntax error: end of map flow not found",
                         ConfigError);
    CHECK_THROWS_WITH_AS(compose("seed: 1\n  bad: [\n"),
                         "run.yaml:2:6: YAML syntax error: illegal map value", ConfigError);
    CHECK_THROWS_WITH_AS(compose(""),
                         "run.yaml: the config is empty; expected a map with at least the keys "
                         "algorithm, problem",
                         ConfigError);
    CHECK_THROWS_WITH_AS(compose("# only a comment\n"),
                         "run.yaml: the config is empty; expected a map with at least the keys "
                         "algorithm, problem",
                         ConfigError);
    CHECK_THROWS_WITH_AS(compose("- problem\n- algorithm\n"),
                         "run.yaml:1:1: expected a map of job keys (algorithm, problem, ...) at "
                         "the root of the config, got a list",
                         ConfigError);
    CHECK_THROWS_WITH_AS(compose(kMinimal + "seed: 1\nseed: 2\n"),
                         "run.yaml:4:1: seed: duplicate key 'seed'", ConfigError);
}

TEST_CASE("load_config reads files and reports unreadable ones") {
    CHECK_THROWS_WITH_AS(locus::load_config("/nonexistent/x.yaml", {}, registry()),
                         "cannot open config file '/nonexistent/x.yaml': No such file or directory",
                         ConfigError);
    const auto dir = locus::test::temp_dir("config");
    locus::test::write_file(dir / "run.yaml", kMinimal + "seed: 9\n");
    const Params job = locus::load_config(dir / "run.yaml", {"batch=4"}, registry());
    CHECK(job.get_int("seed") == 9);
    CHECK(job.get_int("batch") == 4);
    CHECK(job.location_of("seed").str() == (dir / "run.yaml").string() + ":3:7");
    const std::string is_directory =
        "cannot open config file '" + dir.string() + "': Is a directory";
    CHECK_THROWS_WITH_AS(locus::load_config(dir, {}, registry()), is_directory.c_str(),
                         ConfigError);
}

TEST_CASE("config_hash is stable across spelling and changes with any value") {
    const std::string a = "problem: {name: toy, instance: a.toy}\n"
                          "algorithm: {name: descent, pivot: first}\n"
                          "seed: 1\n";
    const std::string b = "seed: 1\n"
                          "algorithm:\n"
                          "  pivot: first\n"
                          "  name: descent\n"
                          "  neighborhoods: [two_opt, {name: or_opt, segment: 3}]\n"
                          "problem: {instance: a.toy, name: toy, scale: 1}\n"
                          "termination: limits\n";
    const std::string hash = locus::config_hash(compose(a));
    CHECK(hash.size() == 16);
    CHECK(hash.find_first_not_of("0123456789abcdef") == std::string::npos);
    CHECK(hash == locus::config_hash(compose(b)));
    CHECK(hash == locus::config_hash(compose(a)));
    CHECK(hash != locus::config_hash(compose(a, {"seed=2"})));
    CHECK(hash != locus::config_hash(compose(a, {"termination.time_limit=0.5"})));
    CHECK(hash != locus::config_hash(compose(a, {"algorithm.neighborhoods=[or_opt, two_opt]"})));
}

TEST_CASE("register_job_schema registers job and limits once") {
    Registry r;
    locus::register_job_schema(r);
    locus::register_job_schema(r); // idempotent
    REQUIRE(r.find("job", "job") != nullptr);
    const auto* limits = r.find("termination", "limits");
    REQUIRE(limits != nullptr);
    CHECK(limits->schema.find("target")->default_yaml.empty());
    CHECK_FALSE(limits->schema.find("target")->required);
    const auto* job = r.find("job", "job");
    CHECK(job->schema.find("problem")->required);
    CHECK(job->schema.find("algorithm")->required);
    CHECK(job->schema.find("backend")->choices == std::vector<std::string>{"auto", "cpu", "cuda"});
    locus::BuildContext ctx;
    const Params params("termination", "limits", "termination", {});
    CHECK_THROWS_AS(r.create_component(params, ctx), locus::NotImplemented);
}
