#pragma once
/// \file
/// Instances given as data rather than as files: named arrays and numbers that a host program
/// (the Python interface) fills and a problem plugin turns into its instance, with the same
/// checks and messages as its file reader. A model is registered under an instance spec
/// "model:<id>", which a job's `problem.instance` names like a file or a generator spec, so
/// configs, overrides, validation and results work unchanged.

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace locus {

/// A numeric array of a model: values in row-major order and their shape (one entry per axis).
struct ModelArray {
    std::vector<double> values;
    std::vector<std::size_t> shape;
};

/// The data of one instance. Keys are the problem's (e.g. "coordinates", "demands"); every
/// reader of a model checks what it needs and refuses keys it does not know (`check_keys`).
/// Immutable once registered.
class Model {
public:
    std::string problem; ///< problem name of the plugin that reads it, e.g. "dcvrp"
    std::string name;    ///< instance name (results, best-known lookup)
    std::map<std::string, ModelArray, std::less<>> arrays;
    std::map<std::string, double, std::less<>> numbers;
    std::map<std::string, std::string, std::less<>> texts;

    /// The array `key`, or null when the model has none.
    const ModelArray* array(std::string_view key) const;
    /// The number `key`, or nothing.
    std::optional<double> number(std::string_view key) const;
    /// The text `key`, or nothing.
    std::optional<std::string> text(std::string_view key) const;
    /// The array `key` as a matrix of `rows` rows and `columns` columns (0: any count): its
    /// values. Throws InstanceError "<name>: <key> must have shape (R, C), got (...)" otherwise.
    const std::vector<double>& matrix(std::string_view key, std::size_t rows,
                                      std::size_t columns) const;
    /// The two columns of the array `key`, a matrix of `rows` rows (0: any) and 2 columns
    /// (coordinates, time windows): matrix()'s checks and messages.
    std::pair<std::vector<double>, std::vector<double>> columns(std::string_view key,
                                                                std::size_t rows) const;
    /// The array `key` as a vector of `size` entries (0: any): its values; InstanceError
    /// "<name>: <key> must have shape (S,), got (...)" otherwise.
    const std::vector<double>& vector(std::string_view key, std::size_t size) const;
    /// Throws InstanceError "<name>: unknown field '<key>' of a <problem> model (fields: ...)"
    /// for the first array or number whose key is not in `known`.
    void check_keys(const std::vector<std::string_view>& known) const;
};

/// "(3, 2)": a shape as messages show it.
std::string shape_text(const std::vector<std::size_t>& shape);

/// Registers `model` for the life of the process (or until forget_model) and returns its
/// instance spec "model:<id>". Thread safe.
std::string register_model(std::shared_ptr<const Model> model);
/// Forgets the model of `spec` (a no-op for an unknown spec). Thread safe.
void forget_model(std::string_view spec);
/// True when `spec` has the form "model:<id>".
bool is_model_spec(std::string_view spec);
/// The model registered under `spec`. Throws InstanceError "no model is registered as '<spec>'
/// (models exist only in the process that made them)" otherwise. Thread safe.
std::shared_ptr<const Model> find_model(std::string_view spec);
/// The model of `spec` for problem `problem`: find_model, and InstanceError "model '<name>' is
/// a <p> model, not a <problem> one" when it was made for another problem.
std::shared_ptr<const Model> find_model(std::string_view spec, std::string_view problem);

/// An integral value of a model field: InstanceError "<name>: <what> = <v> is not an integer"
/// for a value that is not finite and integral within int64.
long long model_integer(const Model& model, std::string_view what, double value);

} // namespace locus
