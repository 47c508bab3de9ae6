#pragma once
/// \file
/// A component's own checks of its params: combinations of values that a schema cannot express
/// (a list that must not be empty, a component that must not be nested in another). They see
/// the params only, so config composition runs them: `locus validate` refuses what `locus run`
/// refuses, with the file, line and column of the value, before a run loads an instance.

#include <functional>
#include <memory>
#include <string>

#include "locus/error.hpp"
#include "locus/params.hpp"
#include "locus/registry.hpp"

namespace locus {

/// Throws a ConfigError (made by params_error) when `params`, every value valid for the
/// schema, are not a combination the component accepts. Sees nothing but the params: no
/// problem, instance, backend or batch (checks of those stay in the factory).
using ParamsCheck = std::function<void(const Params&)>;

/// A factory with a check of its params, registered in place of a plain Factory:
///
///     registry.add(schema, CheckedFactory{check_vnd, build_vnd});
///
/// compose_config runs `check` on the component's params as soon as they are validated, so
/// every command that reads a config (run, validate, the runs of an experiment) refuses them at
/// the same point; the factory runs it again before `build`, for params made elsewhere.
struct CheckedFactory {
    ParamsCheck check;
    Factory build;

    std::unique_ptr<Component> operator()(const Params& params, BuildContext& ctx) const {
        if (check) check(params);
        return build(params, ctx);
    }
};

/// The check of a registered factory; null when it is not a CheckedFactory or has no check.
inline const ParamsCheck* params_check(const Factory& factory) {
    const CheckedFactory* checked = factory.target<CheckedFactory>();
    return checked != nullptr && checked->check ? &checked->check : nullptr;
}

/// ConfigError "<file>:<line>:<col>: <path>.<key>: <problem>" located at the value of `key`
/// (at the component itself, "<file>:<line>:<col>: <path>: <problem>", when `key` is empty);
/// "<command line>" or "<default>" stand for the location of a value that came from there.
inline ConfigError params_error(const Params& params, const std::string& key,
                                const std::string& problem) {
    const SourceLocation& where = key.empty() ? params.location() : params.location_of(key);
    const std::string path =
        key.empty() ? params.path() : (params.path().empty() ? key : params.path() + "." + key);
    return ConfigError(where.str() + ": " + (path.empty() ? "" : path + ": ") + problem);
}

} // namespace locus
