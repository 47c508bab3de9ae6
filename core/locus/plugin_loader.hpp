#pragma once
/// \file
/// Finding and loading plugins (shared objects exporting a locus::PluginDescriptor).

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "locus/error.hpp"

namespace locus {

/// A plugin file built for another locus: another plugin ABI version or build id. Rebuilding
/// the plugin with this locus cures it.
class __attribute__((visibility("default"))) PluginBuildMismatch : public PluginError {
public:
    using PluginError::PluginError;
};

class Registry;

/// What is known about a loaded plugin.
struct PluginInfo {
    std::filesystem::path file; ///< canonical path of the shared object
    std::string name;           ///< from the descriptor
    std::string description;    ///< from the descriptor
    std::string build_id;       ///< from the descriptor (equal to LOCUS_BUILD_ID)
    std::uint32_t abi_version = 0;
};

/// Loads plugins and registers their components.
///
/// Libraries stay loaded until process exit, whatever happens to the loader, so components and
/// factories made by a plugin stay usable after the loader is destroyed. Not thread safe: use one
/// loader from one thread (loading itself is serialized process-wide).
class PluginLoader {
public:
    /// Search path: `extra_dirs` (from --plugin-path, in order), then each directory of
    /// $LOCUS_PLUGIN_PATH (colon-separated, empty entries ignored), then the program directory
    /// (program_directory.hpp: the running executable's unless a host program set it) and the
    /// installed plugin folder beside it. The environment is read here, once.
    explicit PluginLoader(std::vector<std::filesystem::path> extra_dirs = {});

    /// The directories searched by load_all() and load_named(), in order.
    std::vector<std::filesystem::path> search_path() const;

    /// Loads one plugin file and registers its components into `registry`, each tagged with the
    /// plugin's canonical path. The ABI version and build id are checked before anything in the
    /// plugin is called; the registration is all or nothing. Loading a file this loader already
    /// loaded is a no-op returning the same info. Throws PluginError when the file is missing,
    /// cannot be loaded, is not a locus plugin, has another ABI version or build id, or its
    /// registration fails (message of the plugin included).
    PluginInfo load(const std::filesystem::path& file, Registry& registry);

    /// Loads every `locus_*.so` of the search path; for a file name present in several
    /// directories the first one wins, and each file it shadows is named in a warning line on
    /// stderr ("locus: warning: plugin 'FIRST' shadows 'LATER' ..."; none for two paths of the
    /// same file). Loads in order of file name and returns what was loaded
    /// (including files this loader had loaded before). A file that fails to load is skipped
    /// (nothing of it registered) and its PluginError message kept in failures(): one broken
    /// plugin does not stop the jobs of the others.
    std::vector<PluginInfo> load_all(Registry& registry);

    /// The messages of the plugin files load_all() skipped, in file-name order.
    const std::vector<std::string>& failures() const { return failures_; }

    /// A file among those of failures() built for another locus (PluginBuildMismatch: another
    /// plugin ABI version or build id), with its message as in failures().
    struct OtherBuild {
        std::filesystem::path file;
        std::string message;
    };
    /// The files load_all() skipped as built for another locus, in file-name order.
    const std::vector<OtherBuild>& other_builds() const { return other_builds_; }

    /// Loads `locus_<name>.so` from the first directory of the search path holding it (warning
    /// on stderr, as load_all does, about the files of that name it shadows). Throws
    /// PluginError "plugin 'name' not found (searched: dir1, dir2, ...)" when there is none.
    PluginInfo load_named(const std::string& name, Registry& registry);

    /// The plugins this loader loaded, in loading order.
    const std::vector<PluginInfo>& loaded() const { return loaded_; }

private:
    std::vector<std::filesystem::path> search_path_;
    std::vector<PluginInfo> loaded_;
    std::vector<std::string> failures_;
    std::vector<OtherBuild> other_builds_;
};

} // namespace locus
