// TSP instances from models (data given by a host program instead of a file).

#include <cmath>
#include <limits>
#include <tuple>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/model.hpp"
#include "locus/tsp/instance.hpp"

namespace locus::tsp {

namespace {

EdgeWeightType model_edge_weight_type(const Model& model) {
    const std::string type = model.text("edge_weight_type").value_or("EUC_2D");
    if (type == "EUC_2D") return EdgeWeightType::euc_2d;
    if (type == "CEIL_2D") return EdgeWeightType::ceil_2d;
    if (type == "ATT") return EdgeWeightType::att;
    if (type == "GEO") return EdgeWeightType::geo;
    throw InstanceError(fmt::format("{}: edge_weight_type '{}' is not one of EUC_2D, CEIL_2D, "
                                    "ATT, GEO (a matrix gives explicit weights)",
                                    model.name, type));
}

void read_model_matrix(const Model& model, Instance& instance) {
    const std::size_t n = instance.n;
    if (n > kMaxMatrixCities)
        throw InstanceError(fmt::format("{}: {} cities are too many for a full distance matrix "
                                        "(EXPLICIT instances are limited to {} cities)",
                                        model.name, n, kMaxMatrixCities));
    const std::vector<double>& w = model.matrix("matrix", n, n);
    instance.matrix.resize(n * n);
    for (std::size_t k = 0; k < n * n; ++k) {
        const double v = w[k];
        const std::size_t i = k / n, j = k % n;
        if (!std::isfinite(v) || std::floor(v) != v ||
            std::fabs(v) > std::numeric_limits<std::int32_t>::max())
            throw InstanceError(fmt::format("{}: edge weight matrix[{}, {}] = {} is not a 32-bit "
                                            "integer",
                                            model.name, i, j, v));
        if (v < 0)
            throw InstanceError(fmt::format("{}: edge weight matrix[{}, {}] = {} is negative (TSP "
                                            "weights are distances)",
                                            model.name, i, j, v));
        instance.matrix[k] = static_cast<std::int32_t>(v);
    }
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j)
            if (instance.matrix[i * n + j] != instance.matrix[j * n + i])
                throw InstanceError(fmt::format(
                    "{}: the matrix is not symmetric: weight({},{}) = {} but weight({},{}) = {} "
                    "(TYPE TSP needs symmetric distances)",
                    model.name, i, j, instance.matrix[i * n + j], j, i,
                    instance.matrix[j * n + i]));
}

} // namespace

Instance instance_from_model(const Model& model) {
    model.check_keys({"coordinates", "matrix", "edge_weight_type"});
    const bool has_coordinates = model.array("coordinates") != nullptr;
    const bool has_matrix = model.array("matrix") != nullptr;
    if (has_coordinates == has_matrix)
        throw InstanceError(fmt::format("{}: a TSP model needs either coordinates or a matrix{}",
                                        model.name, has_matrix ? ", not both" : ""));
    Instance instance;
    instance.name = model.name;
    if (has_matrix) {
        if (model.text("edge_weight_type"))
            throw InstanceError(fmt::format("{}: edge_weight_type applies to coordinates, not to "
                                            "a matrix",
                                            model.name));
        const ModelArray& m = *model.array("matrix");
        instance.n = m.shape.empty() ? 0 : m.shape[0];
        instance.type = EdgeWeightType::explicit_matrix;
        read_model_matrix(model, instance);
    } else {
        const ModelArray& c = *model.array("coordinates");
        instance.n = c.shape.empty() ? 0 : c.shape[0];
        std::tie(instance.x, instance.y) = model.columns("coordinates", 0);
        instance.type = model_edge_weight_type(model);
    }
    prepare_metric(instance, model.name);
    return instance;
}

} // namespace locus::tsp
