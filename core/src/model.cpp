#include "locus/model.hpp"

#include <cmath>
#include <mutex>

#include <fmt/format.h>

#include "locus/error.hpp"

namespace locus {

namespace {

std::mutex g_models_mutex;
std::map<std::string, std::shared_ptr<const Model>, std::less<>> g_models;
unsigned long long g_next_model = 1;

constexpr std::string_view kModelPrefix = "model:";

} // namespace

std::string shape_text(const std::vector<std::size_t>& shape) {
    std::string text = "(";
    for (std::size_t i = 0; i < shape.size(); ++i)
        text += (i > 0 ? ", " : "") + std::to_string(shape[i]);
    return text + (shape.size() == 1 ? ",)" : ")");
}

const ModelArray* Model::array(std::string_view key) const {
    const auto it = arrays.find(key);
    return it == arrays.end() ? nullptr : &it->second;
}

std::optional<double> Model::number(std::string_view key) const {
    const auto it = numbers.find(key);
    if (it == numbers.end()) return std::nullopt;
    return it->second;
}

std::optional<std::string> Model::text(std::string_view key) const {
    const auto it = texts.find(key);
    if (it == texts.end()) return std::nullopt;
    return it->second;
}

const std::vector<double>& Model::matrix(std::string_view key, std::size_t rows,
                                         std::size_t columns) const {
    const ModelArray* a = array(key);
    if (a == nullptr) throw InstanceError(fmt::format("{}: {} is missing", name, key));
    const bool ok = a->shape.size() == 2 && (rows == 0 || a->shape[0] == rows) &&
                    (columns == 0 || a->shape[1] == columns);
    if (!ok)
        throw InstanceError(fmt::format("{}: {} must have shape ({}, {}), got {}", name, key,
                                        rows == 0 ? "n" : std::to_string(rows),
                                        columns == 0 ? "n" : std::to_string(columns),
                                        shape_text(a->shape)));
    return a->values;
}

std::pair<std::vector<double>, std::vector<double>> Model::columns(std::string_view key,
                                                                  std::size_t rows) const {
    const std::vector<double>& values = matrix(key, rows, 2);
    std::pair<std::vector<double>, std::vector<double>> out;
    out.first.resize(values.size() / 2);
    out.second.resize(values.size() / 2);
    for (std::size_t i = 0; i < values.size() / 2; ++i) {
        out.first[i] = values[2 * i];
        out.second[i] = values[2 * i + 1];
    }
    return out;
}

const std::vector<double>& Model::vector(std::string_view key, std::size_t size) const {
    const ModelArray* a = array(key);
    if (a == nullptr) throw InstanceError(fmt::format("{}: {} is missing", name, key));
    if (a->shape.size() != 1 || (size != 0 && a->shape[0] != size))
        throw InstanceError(fmt::format("{}: {} must have shape ({},), got {}", name, key,
                                        size == 0 ? "n" : std::to_string(size),
                                        shape_text(a->shape)));
    return a->values;
}

void Model::check_keys(const std::vector<std::string_view>& known) const {
    auto check = [&](const std::string& key) {
        for (const std::string_view k : known)
            if (k == key) return;
        std::string list;
        for (const std::string_view k : known)
            list += (list.empty() ? "" : ", ") + std::string(k);
        throw InstanceError(fmt::format("{}: unknown field '{}' of a {} model (fields: {})", name,
                                        key, problem, list));
    };
    for (const auto& [key, value] : arrays)
        check(key);
    for (const auto& [key, value] : numbers)
        check(key);
    for (const auto& [key, value] : texts)
        check(key);
}

std::string register_model(std::shared_ptr<const Model> model) {
    std::lock_guard lock(g_models_mutex);
    std::string spec = std::string(kModelPrefix) + std::to_string(g_next_model++);
    g_models.emplace(spec, std::move(model));
    return spec;
}

void forget_model(std::string_view spec) {
    std::lock_guard lock(g_models_mutex);
    const auto it = g_models.find(spec);
    if (it != g_models.end()) g_models.erase(it);
}

bool is_model_spec(std::string_view spec) {
    if (!spec.starts_with(kModelPrefix) || spec.size() == kModelPrefix.size()) return false;
    for (const char c : spec.substr(kModelPrefix.size()))
        if (c < '0' || c > '9') return false;
    return true;
}

std::shared_ptr<const Model> find_model(std::string_view spec) {
    std::lock_guard lock(g_models_mutex);
    const auto it = g_models.find(spec);
    if (it == g_models.end())
        throw InstanceError(fmt::format("no model is registered as '{}' (models exist only in "
                                        "the process that made them)",
                                        spec));
    return it->second;
}

std::shared_ptr<const Model> find_model(std::string_view spec, std::string_view problem) {
    auto model = find_model(spec);
    if (model->problem != problem)
        throw InstanceError(fmt::format("model '{}' is a {} model, not a {} one", model->name,
                                        model->problem, problem));
    return model;
}

long long model_integer(const Model& model, std::string_view what, double value) {
    // NOTE: 2^63 is exactly representable; values at or above it do not fit.
    if (!std::isfinite(value) || value != std::floor(value) || value >= 9223372036854775808.0 ||
        value < -9223372036854775808.0)
        throw InstanceError(
            fmt::format("{}: {} = {} is not an integer", model.name, what, value));
    return static_cast<long long>(value);
}

} // namespace locus
