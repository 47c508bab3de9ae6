#pragma once
/// \file
/// Instance generator specs of problem plugins: "name:key=value,key=value", e.g.
/// "random-uniform:n=2000,seed=7". Shared syntax, parsing and error messages.

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "locus/error.hpp"

namespace locus {

/// True when `text` has the shape of a spec of `generator`: a name of [a-z0-9-] and ':', where
/// the name is `generator` or a "key=" of that alphabet follows (so that a mistyped generator
/// name is reported as such rather than as a missing file).
bool is_generator_spec(std::string_view text, std::string_view generator);

/// The parameters of a generator spec, validated on construction.
class GeneratorSpec {
public:
    enum class Kind { unsigned_integer, real };
    struct Key {
        std::string_view name;
        Kind kind = Kind::unsigned_integer;
    };

    /// Parses `spec` for `generator` with parameters `keys` (listed in this order in messages).
    /// Throws error(...) with "unknown generator 'x' (available: g)", "expected 'key=value',
    /// found 'x'", "unknown parameter 'k' (parameters: ...)", "parameter 'k' given twice",
    /// "parameter 'k': expected a non-negative integer, got 'x'" or "parameter 'k': expected a
    /// number, got 'x'", items checked in order.
    GeneratorSpec(std::string_view spec, std::string_view generator,
                  std::initializer_list<Key> keys);

    /// The value of an integer / real parameter, nullopt when absent.
    std::optional<std::uint64_t> integer(std::string_view key) const;
    std::optional<double> real(std::string_view key) const;

    /// InstanceError "invalid instance generator spec '<spec>': <reason>".
    InstanceError error(const std::string& reason) const;

private:
    std::string spec_;
    std::map<std::string, std::variant<std::uint64_t, double>, std::less<>> values_;
};

} // namespace locus
