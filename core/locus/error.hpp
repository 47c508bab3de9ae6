#pragma once
/// \file
/// Error types of locus. Host code throws these; the launcher turns them into one line on
/// stderr and a nonzero exit status.

#include <stdexcept>
#include <string>

namespace locus {

/// Base class of all locus errors. `what()` is a complete, user-actionable message.

class __attribute__((visibility("default"))) Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
};

/// Invalid configuration: YAML syntax, unknown keys or components, wrong types or ranges.
class __attribute__((visibility("default"))) ConfigError : public Error {
public:
    using Error::Error;
};

/// Malformed, truncated or unsupported instance or solution files.
class __attribute__((visibility("default"))) InstanceError : public Error {
public:
    using Error::Error;
};

/// Plugin missing, not a locus plugin, wrong ABI version or build id, or failed registration.
class __attribute__((visibility("default"))) PluginError : public Error {
public:
    using Error::Error;
};

/// A CUDA runtime error, no device, or device out of memory.
class __attribute__((visibility("default"))) CudaError : public Error {
public:
    using Error::Error;
};

/// A requested operation that the component does not provide.
class __attribute__((visibility("default"))) NotImplemented : public Error {
public:
    using Error::Error;
};

} // namespace locus
