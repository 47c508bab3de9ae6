// QAP instances from models (data given by a host program instead of a file).

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/model.hpp"
#include "locus/qap/instance.hpp"

namespace locus::qap {

Instance instance_from_model(const Model& model) {
    model.check_keys({"flow", "distance"});
    const ModelArray* flow = model.array("flow");
    if (flow == nullptr) throw InstanceError(fmt::format("{}: flow is missing", model.name));
    const std::size_t n = flow->shape.size() == 2 ? flow->shape[0] : 0;
    Instance instance;
    instance.name = model.name;
    instance.n = static_cast<std::int32_t>(std::min<std::size_t>(n, static_cast<std::size_t>(kMaxSize) + 1));
    const auto read = [&](std::string_view key, std::vector<std::int64_t>& out) {
        const std::vector<double>& m = model.matrix(key, n, n);
        out.resize(m.size());
        for (std::size_t k = 0; k < m.size(); ++k)
            out[k] = model_integer(model, fmt::format("{}[{}, {}]", key, k / n, k % n), m[k]);
    };
    read("flow", instance.a);
    read("distance", instance.b);
    validate_instance(instance, model.name);
    return instance;
}

} // namespace locus::qap
