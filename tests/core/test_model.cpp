// Models: instances given as data (locus/model.hpp).

#include <doctest/doctest.h>

#include <memory>

#include "locus/error.hpp"
#include "locus/model.hpp"

namespace {

std::shared_ptr<locus::Model> sample() {
    auto model = std::make_shared<locus::Model>();
    model->problem = "dcvrp";
    model->name = "m";
    model->arrays["coordinates"] = {{0, 0, 1, 1, 2, 2}, {3, 2}};
    model->arrays["demands"] = {{0, 1, 2}, {3}};
    model->numbers["capacity"] = 5;
    model->texts["rounding"] = "exact";
    return model;
}

} // namespace

TEST_CASE("models are found by their spec until forgotten, for their problem only") {
    const std::string spec = locus::register_model(sample());
    CHECK(locus::is_model_spec(spec));
    const std::string other = locus::register_model(sample());
    CHECK(other != spec);
    const auto model = locus::find_model(spec, "dcvrp");
    CHECK(model->name == "m");
    CHECK(model->number("capacity") == 5.0);
    CHECK(!model->number("vehicles"));
    CHECK(model->text("rounding") == "exact");
    CHECK_THROWS_WITH_AS(locus::find_model(spec, "tsp"), "model 'm' is a dcvrp model, not a tsp one",
                         locus::InstanceError);
    locus::forget_model(spec);
    CHECK_THROWS_WITH_AS(locus::find_model(spec),
                         ("no model is registered as '" + spec +
                          "' (models exist only in the process that made them)")
                             .c_str(),
                         locus::InstanceError);
    CHECK(locus::find_model(other)->name == "m");
    locus::forget_model(other);
    CHECK(!locus::is_model_spec("model:"));
    CHECK(!locus::is_model_spec("model:12a"));
    CHECK(!locus::is_model_spec("random-cvrp:n=10"));
}

TEST_CASE("model fields are checked by shape, key and integrality with the model's name") {
    const auto model = sample();
    CHECK(model->matrix("coordinates", 3, 2).size() == 6);
    CHECK(model->matrix("coordinates", 0, 2).size() == 6);
    CHECK_THROWS_WITH_AS(model->matrix("coordinates", 4, 2),
                         "m: coordinates must have shape (4, 2), got (3, 2)", locus::InstanceError);
    CHECK_THROWS_WITH_AS(model->vector("coordinates", 0),
                         "m: coordinates must have shape (n,), got (3, 2)", locus::InstanceError);
    CHECK_THROWS_WITH_AS(model->vector("time_windows", 3), "m: time_windows is missing",
                         locus::InstanceError);
    CHECK_NOTHROW(model->check_keys({"coordinates", "demands", "capacity", "rounding"}));
    CHECK_THROWS_WITH_AS(model->check_keys({"coordinates", "demands", "capacity"}),
                         "m: unknown field 'rounding' of a dcvrp model (fields: coordinates, "
                         "demands, capacity)",
                         locus::InstanceError);
    CHECK(locus::model_integer(*model, "x", 3.0) == 3);
    CHECK(locus::model_integer(*model, "x", -7.0) == -7);
    CHECK_THROWS_WITH_AS(locus::model_integer(*model, "demands[2]", 2.5),
                         "m: demands[2] = 2.5 is not an integer", locus::InstanceError);
    CHECK_THROWS_AS(locus::model_integer(*model, "x", 1e300), locus::InstanceError);
    CHECK(locus::shape_text({4}) == "(4,)");
}
