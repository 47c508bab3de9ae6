#pragma once
/// \file
/// The plugin ABI: what a plugin author includes to make a shared object loadable by locus.
///
/// A plugin exports exactly one symbol, `locus_plugin_v<ABI>` (a PluginDescriptor with C
/// layout), defined by the LOCUS_PLUGIN macro:
///
///     void register_tsp(locus::Registry& registry) { registry.add(schema, factory); }
///     LOCUS_PLUGIN("tsp", "Travelling salesman problem", register_tsp)
///
/// The loader checks the ABI version and the build id of the descriptor before it calls anything
/// in the plugin, and the registration callback runs inside a try/catch so that no exception
/// crosses the library boundary. See docs/writing-a-plugin.md (ABI details).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>

#include "locus/build_info.hpp"
#include "locus/hd.hpp"

/// Version of the plugin ABI: the PluginDescriptor layout and the meaning of its fields, and the
/// binary interface of everything the core shares with plugins. Bumped on every incompatible
/// change; the entry point symbol carries it in its name.
#define LOCUS_ABI_VERSION 1

#define LOCUS_PLUGIN_CONCAT_IMPL(a, b) a##b
#define LOCUS_PLUGIN_CONCAT(a, b) LOCUS_PLUGIN_CONCAT_IMPL(a, b)
#define LOCUS_PLUGIN_STRINGIZE_IMPL(a) #a
#define LOCUS_PLUGIN_STRINGIZE(a) LOCUS_PLUGIN_STRINGIZE_IMPL(a)

/// Identifier of the entry point of this ABI version (`locus_plugin_v1`).
#define LOCUS_PLUGIN_ENTRY LOCUS_PLUGIN_CONCAT(locus_plugin_v, LOCUS_ABI_VERSION)

namespace locus {

class Registry;

/// Name of the entry point symbol the loader looks up ("locus_plugin_v1").
inline constexpr const char* plugin_entry_symbol = LOCUS_PLUGIN_STRINGIZE(LOCUS_PLUGIN_ENTRY);

/// Registration callback written by the plugin author. It adds the plugin's components with
/// `registry.add(schema, factory)`; it may throw (the entry point catches and reports). The
/// registry it receives only collects the plugin's own components: the loader moves them into
/// the real registry afterwards, tagged with the plugin file.
using RegisterFunction = void (*)(Registry&);

extern "C" {
/// The entry point of a plugin, exported as `locus_plugin_v<ABI>`. Plain C layout; it never
/// changes for a given ABI version, and `abi_version` is the first field in every version so the
/// loader can always read it.
struct PluginDescriptor {
    std::uint32_t abi_version; ///< LOCUS_ABI_VERSION the plugin was compiled with
    const char* build_id;      ///< LOCUS_BUILD_ID the plugin was compiled with
    const char* name;          ///< short name, e.g. "tsp"
    const char* description;   ///< one line for `locus plugins`
    /// Registers the plugin's components into `registry`. Returns 0 on success; otherwise
    /// nonzero with a NUL-terminated message (truncated to `error_size`) written to `error`.
    /// `plugin_file` is the path the plugin was loaded from. Never throws.
    int (*register_components)(Registry* registry, const char* plugin_file, char* error,
                               std::size_t error_size) noexcept;
};
}

namespace detail {

/// Copies `message` into `error` (capacity `size`, always NUL-terminated when size > 0).
inline void copy_plugin_message(char* error, std::size_t size, const char* message) noexcept {
    if (error == nullptr || size == 0)
        return;
    const std::size_t length = std::strlen(message);
    const std::size_t count = length < size - 1 ? length : size - 1;
    std::memcpy(error, message, count);
    error[count] = '\0';
}

/// Runs `function` on `*registry`, turning any exception into a return code and message.
inline int call_register_function(RegisterFunction function, Registry* registry, char* error,
                                  std::size_t error_size) noexcept {
    try {
        function(*registry);
        return 0;
    } catch (const std::exception& e) {
        copy_plugin_message(error, error_size, e.what());
    } catch (...) {
        copy_plugin_message(error, error_size,
                            "unknown exception (not derived from std::exception)");
    }
    return 1;
}

} // namespace detail

} // namespace locus

/// Defines the entry point of a plugin: `extern "C" const locus::PluginDescriptor
/// locus_plugin_v1`, the only exported symbol a plugin needs. `name` and `description` are string
/// literals; `register_function` is a locus::RegisterFunction. Use once per plugin, at namespace
/// scope, without a trailing semicolon. The build id recorded is LOCUS_BUILD_ID as seen where the
/// macro is expanded.
#define LOCUS_PLUGIN(name, description, register_function)                                         \
    extern "C" {                                                                                   \
    extern LOCUS_EXPORT const ::locus::PluginDescriptor LOCUS_PLUGIN_ENTRY;                        \
    const ::locus::PluginDescriptor LOCUS_PLUGIN_ENTRY = {                                         \
        LOCUS_ABI_VERSION, LOCUS_BUILD_ID, name, description,                                      \
        [](::locus::Registry* registry, const char*, char* error,                                  \
           std::size_t error_size) noexcept -> int {                                               \
            return ::locus::detail::call_register_function(register_function, registry, error,     \
                                                           error_size);                            \
        }};                                                                                        \
    }
