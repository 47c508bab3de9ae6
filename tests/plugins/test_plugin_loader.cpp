// The plugin loader: entry point checks with their exact messages, the search path, load_all and
// load_named, double loads, the warning about shadowed plugin files, and the lifetime of objects
// made by plugins.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "fixture_component.hpp"
#include "locus/build_info.hpp"
#include "locus/params.hpp"
#include "locus/plugin.hpp"
#include "locus/plugin_loader.hpp"
#include "locus/registry.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace {

fs::path fixture(const std::string& file) { return fs::canonical(LOCUS_TEST_FIXTURES_DIR) / file; }

fs::path executable_dir() { return fs::read_symlink("/proc/self/exe").parent_path(); }

/// Sets (or unsets, for nullopt) an environment variable for the lifetime of the object.
class EnvOverride {
public:
    EnvOverride(std::string name, const std::optional<std::string>& value)
        : name_(std::move(name)) {
        if (const char* old = std::getenv(name_.c_str()))
            old_ = old;
        if (value)
            ::setenv(name_.c_str(), value->c_str(), 1);
        else
            ::unsetenv(name_.c_str());
    }
    ~EnvOverride() {
        if (old_)
            ::setenv(name_.c_str(), old_->c_str(), 1);
        else
            ::unsetenv(name_.c_str());
    }
    EnvOverride(const EnvOverride&) = delete;
    EnvOverride& operator=(const EnvOverride&) = delete;

private:
    std::string name_;
    std::optional<std::string> old_;
};

/// The message of the PluginError thrown by `load`, or "" when nothing was thrown.
template <class Function> std::string plugin_error(Function&& load) {
    try {
        load();
    } catch (const locus::PluginError& e) {
        return e.what();
    }
    return "";
}

std::unique_ptr<locus::test::FixtureComponent> make_echo(const locus::Registry& registry,
                                                         std::int64_t value) {
    const locus::RegistryEntry* entry = registry.find("fixture", "echo");
    REQUIRE(entry != nullptr);
    locus::Params params("fixture", "echo", "fixture", {});
    params.set("value", value);
    locus::BuildContext ctx;
    std::unique_ptr<locus::Component> component = entry->factory(params, ctx);
    return std::unique_ptr<locus::test::FixtureComponent>(
        static_cast<locus::test::FixtureComponent*>(component.release()));
}

} // namespace

TEST_CASE("the entry point symbol is named after the ABI version") {
    CHECK(std::string(locus::plugin_entry_symbol) ==
          "locus_plugin_v" + std::to_string(LOCUS_ABI_VERSION));
}

TEST_CASE("a good plugin registers its components, tagged with its file") {
    locus::Registry registry;
    locus::PluginLoader loader;
    const fs::path file = fixture("locus_fixture_good.so");
    const locus::PluginInfo info = loader.load(file, registry);
    CHECK(info.file == file);
    CHECK(info.name == "fixture_good");
    CHECK(info.description == "Fixture plugin with one component");
    CHECK(info.build_id == LOCUS_BUILD_ID);
    CHECK(info.abi_version == LOCUS_ABI_VERSION);

    const locus::RegistryEntry* entry = registry.find("fixture", "echo");
    REQUIRE(entry != nullptr);
    CHECK(entry->plugin == file.string());
    REQUIRE(entry->schema.params.size() == 1);
    CHECK(entry->schema.params[0].name == "value");
    CHECK(entry->schema.params[0].default_yaml == "7");

    const auto echo = make_echo(registry, 42);
    CHECK(echo->value() == 42);
    CHECK(echo->describe() == "echo 42");
    REQUIRE(loader.loaded().size() == 1);
    CHECK(loader.loaded()[0].file == file);
}

TEST_CASE("loading the same plugin twice is a no-op") {
    locus::Registry registry;
    locus::PluginLoader loader;
    const fs::path file = fixture("locus_fixture_good.so");
    const locus::PluginInfo first = loader.load(file, registry);
    // Another spelling of the same file; a second registration would throw "registered twice".
    const locus::PluginInfo second =
        loader.load(file.parent_path() / "." / file.filename(), registry);
    CHECK(second.file == first.file);
    CHECK(second.name == first.name);
    CHECK(loader.loaded().size() == 1);
    CHECK(registry.entries().size() == 1);
}

TEST_CASE("objects and factories made by a plugin outlive the loader") {
    locus::Registry registry;
    std::unique_ptr<locus::test::FixtureComponent> echo;
    {
        locus::PluginLoader loader;
        loader.load(fixture("locus_fixture_good.so"), registry);
        echo = make_echo(registry, 5);
    }
    CHECK(echo->describe() == "echo 5");
    const auto later = make_echo(registry, 9); // the factory's code is still mapped
    CHECK(later->describe() == "echo 9");
    echo.reset(); // the destructor runs plugin code
    CHECK(later->value() == 9);
}

TEST_CASE("a second loader registers an already open plugin into its own registry") {
    locus::Registry first_registry;
    locus::Registry second_registry;
    locus::PluginLoader first;
    locus::PluginLoader second;
    first.load(fixture("locus_fixture_good.so"), first_registry);
    second.load(fixture("locus_fixture_good.so"), second_registry);
    CHECK(make_echo(second_registry, 3)->describe() == "echo 3");
}

TEST_CASE("a missing plugin file") {
    locus::Registry registry;
    locus::PluginLoader loader;
    const fs::path file = fs::canonical(LOCUS_TEST_FIXTURES_DIR) / "locus_missing.so";
    CHECK(plugin_error([&] { loader.load(file, registry); }) ==
          "plugin 'locus_missing.so' not found: " + file.string() + " does not exist");
}

TEST_CASE("a file that is not a shared object") {
    const fs::path dir = locus::test::temp_dir("plugins-garbage");
    const fs::path file = dir / "locus_garbage.so";
    locus::test::write_file(file, std::string(200, 'x') + "\nthis is not a shared object\n");
    locus::Registry registry;
    locus::PluginLoader loader;
    CHECK(plugin_error([&] { loader.load(file, registry); }) ==
          "cannot load plugin '" + file.string() + "': " + file.string() + ": invalid ELF header");
    CHECK(loader.loaded().empty());
    fs::remove_all(dir);
}

TEST_CASE("a shared object without a locus entry point") {
    locus::Registry registry;
    locus::PluginLoader loader;
    const fs::path file = fixture("not_a_plugin.so");
    CHECK(plugin_error([&] { loader.load(file, registry); }) ==
          "'" + file.string() + "' is not a locus plugin (no locus_plugin_v1 entry point)");
}

TEST_CASE("a plugin exporting only the entry point of another ABI version") {
    locus::Registry registry;
    locus::PluginLoader loader;
    const fs::path file = fixture("locus_fixture_wrong_entry.so");
    CHECK(plugin_error([&] { loader.load(file, registry); }) ==
          "'" + file.string() +
              "' is not a locus plugin (no locus_plugin_v1 entry point); it was built for plugin "
              "ABI 2, this locus uses ABI 1; rebuild the plugin");
}

TEST_CASE("an ABI version mismatch is rejected before the plugin is called") {
    locus::Registry registry;
    locus::PluginLoader loader;
    const fs::path file = fixture("locus_fixture_wrong_abi.so");
    // The fixture's registration function aborts the process if it is ever called.
    CHECK(plugin_error([&] { loader.load(file, registry); }) ==
          "plugin '" + file.string() +
              "' was built for plugin ABI version 999, this locus expects 1; rebuild the plugin");
    CHECK(loader.loaded().empty());
}

TEST_CASE("a build id mismatch is rejected before the plugin is called") {
    locus::Registry registry;
    locus::PluginLoader loader;
    const fs::path file = fixture("locus_fixture_wrong_build.so");
    CHECK(plugin_error([&] { loader.load(file, registry); }) ==
          "plugin '" + file.string() +
              "' comes from another build (build id fixture-other-build, locus build id " +
              LOCUS_BUILD_ID + "); rebuild it together with locus");
}

TEST_CASE("an exception thrown during registration is reported and nothing is registered") {
    locus::Registry registry;
    locus::PluginLoader loader;
    const fs::path file = fixture("locus_fixture_throws.so");
    CHECK(plugin_error([&] { loader.load(file, registry); }) ==
          "plugin '" + file.string() +
              "' failed to register its components: fixture refuses to register: licence file "
              "missing");
    // The fixture added one component before throwing: registration is all or nothing.
    CHECK(registry.entries().empty());
    CHECK(loader.loaded().empty());
}

TEST_CASE("an exception not derived from std::exception is reported") {
    locus::Registry registry;
    locus::PluginLoader loader;
    const fs::path file = fixture("locus_fixture_throws_unknown.so");
    CHECK(plugin_error([&] { loader.load(file, registry); }) ==
          "plugin '" + file.string() +
              "' failed to register its components: unknown exception (not derived from "
              "std::exception)");
}

TEST_CASE("a component name already taken is reported and nothing is registered") {
    locus::Registry registry;
    locus::ComponentSchema schema;
    schema.kind = "fixture";
    schema.name = "echo";
    registry.add(schema, [](const locus::Params&, locus::BuildContext&) {
        return std::unique_ptr<locus::Component>();
    });
    locus::PluginLoader loader;
    const fs::path file = fixture("locus_fixture_good.so");
    CHECK(plugin_error([&] { loader.load(file, registry); }) ==
          "plugin '" + file.string() +
              "' failed to register its components: fixture 'echo' is registered twice (first "
              "built in, again by '" +
              file.string() + "')");
    CHECK(registry.find("fixture", "echo")->plugin.empty());
}

TEST_CASE("search path: extra dirs, then LOCUS_PLUGIN_PATH, then the executable's dir") {
    const EnvOverride env("LOCUS_PLUGIN_PATH", "/opt/a::/opt/b:");
    const locus::PluginLoader loader({"/first", "/second"});
    const std::vector<fs::path> expected = {"/first", "/second", "/opt/a", "/opt/b",
                                            executable_dir()};
    CHECK(loader.search_path() == expected);
}

TEST_CASE("search path without LOCUS_PLUGIN_PATH") {
    const EnvOverride env("LOCUS_PLUGIN_PATH", std::nullopt);
    const locus::PluginLoader loader;
    CHECK(loader.search_path() == std::vector<fs::path>{executable_dir()});
}

TEST_CASE("load_named finds locus_<name>.so through LOCUS_PLUGIN_PATH") {
    const EnvOverride env("LOCUS_PLUGIN_PATH", "/nonexistent/locus:" LOCUS_TEST_FIXTURES_DIR);
    locus::Registry registry;
    locus::PluginLoader loader;
    const locus::PluginInfo info = loader.load_named("fixture_good", registry);
    CHECK(info.file == fixture("locus_fixture_good.so"));
    CHECK(registry.find("fixture", "echo") != nullptr);
}

TEST_CASE("load_named lists the directories searched when the plugin is absent") {
    const EnvOverride env("LOCUS_PLUGIN_PATH", std::nullopt);
    locus::Registry registry;
    locus::PluginLoader loader({"/nonexistent/one", "/nonexistent/two"});
    CHECK(plugin_error([&] { loader.load_named("nope", registry); }) ==
          "plugin 'nope' not found (searched: /nonexistent/one, /nonexistent/two, " +
              executable_dir().string() + ")");
}

TEST_CASE("load_all loads only locus_*.so files, the first of each name winning") {
    const EnvOverride env("LOCUS_PLUGIN_PATH", std::nullopt);
    const fs::path root = locus::test::temp_dir("plugins-load-all");
    const fs::path first = root / "first";
    const fs::path second = root / "second";
    fs::create_directories(first);
    fs::create_directories(second);
    fs::copy_file(fixture("locus_fixture_good.so"), first / "locus_fixture_good.so");
    // Each of these would throw if it were loaded.
    fs::copy_file(fixture("locus_fixture_wrong_build.so"), second / "locus_fixture_good.so");
    fs::copy_file(fixture("not_a_plugin.so"), first / "not_a_plugin.so");
    fs::copy_file(fixture("locus_fixture_wrong_abi.so"), first / "locus_wrong_abi.so.1");
    fs::copy_file(fixture("locus_fixture_throws.so"), first / "liblocus_throws.so");
    fs::create_directories(first / "locus_directory.so");

    locus::Registry registry;
    locus::PluginLoader loader({first, second});
    const std::vector<locus::PluginInfo> loaded = loader.load_all(registry);
    // The executable's directory is searched too: keep what came from the two test directories.
    std::vector<fs::path> from_test_dirs;
    for (const locus::PluginInfo& info : loaded)
        if (info.file.parent_path().parent_path() == fs::canonical(root))
            from_test_dirs.push_back(info.file);
    CHECK(from_test_dirs == std::vector<fs::path>{fs::canonical(first / "locus_fixture_good.so")});
    CHECK(loader.loaded().size() == loaded.size());
    CHECK(make_echo(registry, 11)->describe() == "echo 11");

    // A broken locus_*.so in the search path is skipped, named in failures(); the others load.
    locus::test::write_file(second / "locus_broken.so", std::string(100, '\0'));
    locus::Registry other;
    locus::PluginLoader failing({first, second});
    const auto survivors = failing.load_all(other);
    REQUIRE(failing.failures().size() == 1);
    CHECK(failing.failures()[0].starts_with("cannot load plugin '" +
                                            fs::canonical(second).string() +
                                            "/locus_broken.so': "));
    CHECK(survivors.size() == loaded.size());
    CHECK(make_echo(other, 12)->describe() == "echo 12");
    fs::remove_all(root);
}

namespace {

/// What `f()` writes to stderr (file descriptor 2, redirected to a file meanwhile).
template <class Function> std::string stderr_of(Function&& f) {
    const fs::path file = locus::test::temp_dir("plugins-stderr") / "stderr.txt";
    std::fflush(stderr);
    const int saved = ::dup(2);
    REQUIRE(saved >= 0);
    std::FILE* sink = std::fopen(file.c_str(), "w");
    REQUIRE(sink != nullptr);
    ::dup2(::fileno(sink), 2);
    f();
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    std::fclose(sink);
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    fs::remove_all(file.parent_path());
    return text.str();
}

std::string shadow_warning(const fs::path& first, const fs::path& later) {
    return "locus: warning: plugin '" + fs::canonical(first).string() + "' shadows '" +
           fs::canonical(later).string() +
           "' (same file name, later in the plugin search path), which is not loaded\n";
}

} // namespace

TEST_CASE("a plugin file shadowing one of the same name later in the search path is warned of") {
    const EnvOverride env("LOCUS_PLUGIN_PATH", std::nullopt);
    const fs::path root = locus::test::temp_dir("plugins-shadow");
    const fs::path first = root / "first";
    const fs::path second = root / "second";
    const fs::path third = root / "third";
    for (const fs::path& dir : {first, second, third})
        fs::create_directories(dir);
    fs::copy_file(fixture("locus_fixture_good.so"), first / "locus_fixture_good.so");
    fs::copy_file(fixture("locus_fixture_wrong_build.so"), second / "locus_fixture_good.so");
    fs::copy_file(fixture("locus_fixture_wrong_abi.so"), third / "locus_fixture_good.so");

    SUBCASE("load_all: one line per shadowed file, naming both; the first one serves") {
        locus::Registry registry;
        locus::PluginLoader loader({first, second, third});
        std::vector<locus::PluginInfo> loaded;
        const std::string warnings = stderr_of([&] { loaded = loader.load_all(registry); });
        CHECK(warnings == shadow_warning(first / "locus_fixture_good.so",
                                         second / "locus_fixture_good.so") +
                              shadow_warning(first / "locus_fixture_good.so",
                                             third / "locus_fixture_good.so"));
        CHECK(loader.failures().empty());
        CHECK(make_echo(registry, 4)->describe() == "echo 4");
    }
    SUBCASE("load_named warns the same way") {
        locus::Registry registry;
        locus::PluginLoader loader({second, first});
        std::string message;
        const std::string warnings = stderr_of(
            [&] { message = plugin_error([&] { loader.load_named("fixture_good", registry); }); });
        CHECK(warnings == shadow_warning(second / "locus_fixture_good.so",
                                         first / "locus_fixture_good.so"));
        CHECK(message.find("comes from another build") != std::string::npos);
    }
    SUBCASE("the same file reached twice (a directory listed twice, a link) shadows nothing") {
        fs::create_directory_symlink(first, root / "link");
        locus::Registry registry;
        locus::PluginLoader loader({first, root / "link", first});
        std::vector<locus::PluginInfo> loaded;
        CHECK(stderr_of([&] { loaded = loader.load_all(registry); }).empty());
        CHECK(make_echo(registry, 6)->describe() == "echo 6");
        locus::Registry named;
        locus::PluginLoader by_name({first, root / "link"});
        CHECK(stderr_of([&] { by_name.load_named("fixture_good", named); }).empty());
    }
    SUBCASE("files of different names shadow nothing") {
        fs::remove(second / "locus_fixture_good.so");
        fs::remove(third / "locus_fixture_good.so");
        fs::copy_file(fixture("locus_fixture_good.so"), second / "locus_fixture_echo.so");
        locus::Registry registry;
        locus::PluginLoader loader({first, second});
        std::vector<locus::PluginInfo> loaded;
        // The second file registers the same component and fails: a load failure, no shadowing.
        CHECK(stderr_of([&] { loaded = loader.load_all(registry); }).empty());
        CHECK(loader.failures().size() == 1);
    }
    fs::remove_all(root);
}
