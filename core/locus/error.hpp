#pragma once
/// \file
/// Error types of locus. Host code throws these; the launcher turns them into one line on
/// stderr and a nonzero exit status.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace locus {

/// The longest error message in bytes (a launcher line adds "locus: error: ").
inline constexpr std::size_t kMaxMessageBytes = 1980;

/// `text` as one printable line of valid UTF-8 (control bytes, NUL and line breaks included,
/// and invalid UTF-8 as \xHH) of at most `max_bytes` bytes: a longer text is cut at a character
/// boundary and ends with "...(N bytes)".
__attribute__((visibility("default"))) std::string message_line(
    std::string_view text, std::size_t max_bytes = kMaxMessageBytes);

/// Base class of all locus errors. `what()` is a complete, user-actionable message, made one
/// safe line by message_line (a message may quote the bytes of a file).
class __attribute__((visibility("default"))) Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message_line(message)) {}
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
