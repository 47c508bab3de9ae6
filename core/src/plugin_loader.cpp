#include "locus/plugin_loader.hpp"
#include "locus/program_directory.hpp"

#include <fmt/format.h>
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>
#include <system_error>

#include <boost/dll/shared_library.hpp>

#include "locus/build_info.hpp"
#include "locus/plugin.hpp"
#include "locus/registry.hpp"

namespace locus {

namespace fs = std::filesystem;

namespace {

/// Libraries opened by any loader of the process, by canonical path, and the lock serializing
/// all loading.
struct LibraryTable {
    std::mutex mutex;
    std::map<fs::path, boost::dll::shared_library> libraries;
};

LibraryTable& library_table() {
    // NOTE: the table is allocated once and intentionally never destroyed. Components, factories
    // (std::function objects whose code lives in a plugin) and objects made by plugins may be
    // destroyed during static destruction or by atexit handlers, in an order we do not control;
    // if the table were a static object its destructor could dlclose a plugin first and those
    // destructors would jump into unmapped code. Libraries are therefore unloaded only by the
    // operating system at process exit.
    static auto* table = new LibraryTable();
    return *table;
}

/// The dynamic linker's reason for failing to open `path`.
std::string dlopen_error(const fs::path& path, const std::error_code& boost_error) {
    // NOTE: Boost.DLL reports a failed dlopen as a generic error code and does not keep the
    // dlerror() text, which names the actual problem (bad ELF header, undefined symbol, missing
    // dependency). Repeating the dlopen is the portable way to get it back.
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        const char* text = ::dlerror();
        if (text != nullptr)
            return text;
    } else {
        ::dlclose(handle);
    }
    return boost_error.message();
}

/// Opens `path` (canonical) once per process; later calls return the same library.
const boost::dll::shared_library& open_library(LibraryTable& table, const fs::path& path) {
    const auto found = table.libraries.find(path);
    if (found != table.libraries.end())
        return found->second;
    // NOTE: rtld_now resolves every symbol at load time, so a plugin built against another core
    // fails here with the undefined symbol named instead of aborting the process at its first
    // call. rtld_local keeps a plugin's symbols out of the global namespace, so two plugins
    // cannot interpose each other's symbols; plugins reach the core through their own DT_NEEDED
    // on liblocus_core.so, which is loaded once and shared.
    boost::dll::shared_library library;
    std::error_code error;
    library.load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local, error);
    if (error || !library.is_loaded())
        throw PluginError("cannot load plugin '" + path.string() +
                          "': " + dlopen_error(path, error));
    return table.libraries.emplace(path, std::move(library)).first->second;
}

/// The message for a library without the entry point of this ABI version.
std::string missing_entry_message(const boost::dll::shared_library& library, const fs::path& path) {
    std::string message = "'" + path.string() + "' is not a locus plugin (no " +
                          plugin_entry_symbol + " entry point)";
    // NOTE: entry points of other ABI versions are probed by name with dlsym; Boost.DLL's
    // library_info reads the static symbol table, which stripped plugins do not have.
    constexpr int max_probed_version = 99;
    for (int version = 0; version <= max_probed_version; ++version) {
        if (version == LOCUS_ABI_VERSION)
            continue;
        if (library.has("locus_plugin_v" + std::to_string(version))) {
            message += fmt::format("; it was built for plugin ABI {}, this locus uses ABI {}; "
                                   "rebuild the plugin",
                                   version, LOCUS_ABI_VERSION);
            break;
        }
    }
    return message;
}

/// Checks the descriptor of `path` without calling into the plugin.
void check_descriptor(const PluginDescriptor& descriptor, const fs::path& path) {
    if (descriptor.abi_version != LOCUS_ABI_VERSION)
        throw PluginBuildMismatch(fmt::format("plugin '{}' was built for plugin ABI version {}, this locus "
                                      "expects {}; rebuild the plugin",
                                      path.string(), descriptor.abi_version, LOCUS_ABI_VERSION));
    const std::string build_id = descriptor.build_id != nullptr ? descriptor.build_id : "";
    if (build_id != LOCUS_BUILD_ID)
        throw PluginBuildMismatch("plugin '" + path.string() + "' comes from another build (build id " +
                          (build_id.empty() ? std::string("<none>") : build_id) +
                          ", locus build id " + LOCUS_BUILD_ID +
                          "); rebuild it together with locus");
    if (descriptor.register_components == nullptr)
        throw PluginError("plugin '" + path.string() +
                          "' failed to register its components: its descriptor has no "
                          "registration function");
}

std::string registration_failure(const fs::path& path, const std::string& reason) {
    return "plugin '" + path.string() + "' failed to register its components: " + reason;
}

/// Runs the plugin's registration into a private registry, then moves the entries into
/// `registry` tagged with `path`: either all of them are added or none.
void register_plugin(const PluginDescriptor& descriptor, const fs::path& path, Registry& registry) {
    // NOTE: the plugin registers into a staging registry so that (1) every entry is tagged with
    // the plugin file without the plugin author passing it, and (2) a plugin that fails half way
    // leaves nothing behind in the real registry.
    Registry staging(path.string());
    std::array<char, 2048> error{};
    const int code =
        descriptor.register_components(&staging, path.c_str(), error.data(), error.size());
    if (code != 0) {
        error.back() = '\0';
        const std::string reason = error[0] != '\0'
                                       ? std::string(error.data())
                                       : "unknown error (code " + std::to_string(code) + ")";
        throw PluginError(registration_failure(path, reason));
    }
    const std::vector<const RegistryEntry*> entries = staging.entries();
    for (const RegistryEntry* entry : entries) {
        const ComponentSchema& schema = entry->schema;
        const RegistryEntry* existing = registry.find(schema.kind, schema.name, schema.problem);
        if (existing != nullptr && existing->schema.problem == schema.problem) {
            // Same wording as Registry::add, which cannot be used for this check without
            // leaving the entries added before the conflicting one behind.
            const std::string scope =
                schema.problem.empty() ? "" : " for problem '" + schema.problem + "'";
            const std::string first =
                existing->plugin.empty() ? "built in" : "by '" + existing->plugin + "'";
            throw PluginError(
                registration_failure(path, schema.kind + " '" + schema.name + "'" + scope +
                                               " is registered twice (first " + first +
                                               ", again by '" + path.string() + "')"));
        }
    }
    // Deprecated names (aliases) move with the entries, checked first as well.
    const std::vector<const ComponentAlias*> aliases = staging.aliases();
    for (const ComponentAlias* alias : aliases) {
        const ComponentAlias* taken = registry.find_alias(alias->kind, alias->name, alias->problem);
        if ((taken != nullptr && taken->problem == alias->problem) ||
            registry.find(alias->kind, alias->name, alias->problem) != nullptr)
            throw PluginError(registration_failure(
                path, alias->kind + " '" + alias->name + "' is registered twice (again as an "
                                                         "alias by '" + path.string() + "')"));
    }
    for (const RegistryEntry* entry : entries)
        registry.add(entry->schema, entry->factory, path.string());
    for (const ComponentAlias* alias : aliases)
        registry.add_alias(*alias, path.string());
}

bool is_plugin_file_name(const std::string& name) {
    const std::string prefix = "locus_";
    const std::string suffix = ".so";
    return name.size() > prefix.size() + suffix.size() && name.starts_with(prefix) &&
           name.ends_with(suffix);
}

/// Warns on stderr that `first`, found first in the search path, shadows `later` (a file of the
/// same name in a later directory, which is not loaded). Two paths of one file (a directory
/// listed twice, a link) shadow nothing.
void warn_shadowed(const fs::path& first, const fs::path& later) {
    std::error_code error;
    if (fs::equivalent(first, later, error)) return;
    const auto shown = [](const fs::path& path) {
        std::error_code canonical_error;
        const fs::path canonical = fs::canonical(path, canonical_error);
        return canonical_error ? path.lexically_normal().string() : canonical.string();
    };
    std::fprintf(stderr,
                 "locus: warning: plugin '%s' shadows '%s' (same file name, later in the plugin "
                 "search path), which is not loaded\n",
                 shown(first).c_str(), shown(later).c_str());
}

} // namespace

PluginLoader::PluginLoader(std::vector<fs::path> extra_dirs) : search_path_(std::move(extra_dirs)) {
    if (const char* env = std::getenv("LOCUS_PLUGIN_PATH")) {
        std::stringstream stream(env);
        std::string dir;
        while (std::getline(stream, dir, ':'))
            if (!dir.empty())
                search_path_.emplace_back(dir);
    }
    std::error_code error;
    const fs::path program = program_directory();
    if (!program.empty()) {
        search_path_.push_back(program);
#ifdef LOCUS_RELATIVE_PLUGIN_DIR
        // The installed layout: <prefix>/bin/locus and <prefix>/lib/locus/plugins.
        const fs::path installed = (program / LOCUS_RELATIVE_PLUGIN_DIR).lexically_normal();
        if (fs::is_directory(installed, error))
            search_path_.push_back(installed);
#endif
    }
}

std::vector<fs::path> PluginLoader::search_path() const { return search_path_; }

PluginInfo PluginLoader::load(const fs::path& file, Registry& registry) {
    const fs::path absolute = fs::absolute(file).lexically_normal();
    std::error_code error;
    if (!fs::exists(absolute, error))
        throw PluginError("plugin '" + absolute.filename().string() +
                          "' not found: " + absolute.string() + " does not exist");
    const fs::path path = fs::canonical(absolute);
    const auto known = std::find_if(loaded_.begin(), loaded_.end(),
                                    [&](const PluginInfo& info) { return info.file == path; });
    if (known != loaded_.end())
        return *known;

    LibraryTable& table = library_table();
    const std::lock_guard<std::mutex> lock(table.mutex);
    const boost::dll::shared_library& library = open_library(table, path);
    if (!library.has(plugin_entry_symbol))
        throw PluginError(missing_entry_message(library, path));
    const auto& descriptor = library.get<const PluginDescriptor>(plugin_entry_symbol);
    check_descriptor(descriptor, path);
    register_plugin(descriptor, path, registry);

    PluginInfo info;
    info.file = path;
    info.name = descriptor.name != nullptr ? descriptor.name : "";
    info.description = descriptor.description != nullptr ? descriptor.description : "";
    info.build_id = descriptor.build_id;
    info.abi_version = descriptor.abi_version;
    loaded_.push_back(info);
    return info;
}

std::vector<PluginInfo> PluginLoader::load_all(Registry& registry) {
    std::map<std::string, fs::path> files; // file name -> first path holding it
    for (const fs::path& dir : search_path_) {
        std::error_code error;
        for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
            const std::string name = it->path().filename().string();
            std::error_code status_error;
            if (!is_plugin_file_name(name) || !it->is_regular_file(status_error)) continue;
            const auto [first, inserted] = files.emplace(name, it->path());
            if (!inserted) warn_shadowed(first->second, it->path());
        }
    }
    std::vector<PluginInfo> result;
    result.reserve(files.size());
    for (const auto& [name, path] : files) {
        try {
            result.push_back(load(path, registry));
        } catch (const PluginBuildMismatch& e) {
            failures_.emplace_back(e.what());
            std::error_code error;
            other_builds_.push_back({fs::weakly_canonical(path, error), e.what()});
        } catch (const PluginError& e) {
            failures_.emplace_back(e.what());
        }
    }
    return result;
}

PluginInfo PluginLoader::load_named(const std::string& name, Registry& registry) {
    const std::string file_name = "locus_" + name + ".so";
    for (auto dir = search_path_.begin(); dir != search_path_.end(); ++dir) {
        std::error_code error;
        const fs::path candidate = *dir / file_name;
        if (!fs::is_regular_file(candidate, error)) continue;
        for (auto later = std::next(dir); later != search_path_.end(); ++later)
            if (fs::is_regular_file(*later / file_name, error))
                warn_shadowed(candidate, *later / file_name);
        return load(candidate, registry);
    }
    std::string searched;
    for (const fs::path& dir : search_path_)
        searched += (searched.empty() ? "" : ", ") + dir.string();
    throw PluginError("plugin '" + name + "' not found (searched: " + searched + ")");
}

} // namespace locus
