// `locus new-problem NAME`: a plugin project to start a problem from, made from the Max-Cut
// example (docs/examples/maxcut; installed under share/locus/examples/maxcut). Every file is
// copied with the example's names replaced by NAME's, so the result builds and loads as it is
// (against an installed locus: find_package(locus)) and is then edited into the new problem.
// NAME may not be the name of a plugin that ships with locus or that the launcher finds: the
// new plugin file would shadow it (or be shadowed) in the plugin search path.

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "launcher.hpp"
#include "locus/error.hpp"
#include "locus/plugin_loader.hpp"

namespace locus::app {
namespace {

namespace fs = std::filesystem;

/// The plugins that ship with locus (problems/ and plugins/ of its source tree).
constexpr const char* kShippedPlugins[] = {"tsp", "qap",    "dcvrp",        "gridpath",
                                           "ils", "repeat", "local_search", "beam_search"};

/// Where the example comes from, and the install prefix when it is an installed launcher's.
struct TemplateSource {
    fs::path dir;
    std::optional<fs::path> prefix;
};

/// The launcher's own path ("" when /proc/self/exe cannot be read).
fs::path launcher_path() {
    std::error_code error;
    const fs::path exe = fs::read_symlink("/proc/self/exe", error);
    return error ? fs::path() : exe;
}

/// The install prefix of a launcher in <prefix>/<bindir>: the leading ".." steps of the path
/// from the launcher's folder to the examples (bindir and datadir both lie in the prefix).
fs::path install_prefix(const fs::path& launcher_dir) {
    fs::path prefix = launcher_dir;
    for (const fs::path& step : fs::path(LOCUS_RELATIVE_EXAMPLES_DIR)) {
        if (step != "..") break;
        prefix /= step;
    }
    std::error_code error;
    const fs::path canonical = fs::canonical(prefix, error);
    return error ? prefix.lexically_normal() : canonical;
}

/// The example's folder: next to an installed launcher (whose install prefix is then known),
/// else in the source tree it was built from.
TemplateSource template_source() {
    std::error_code error;
    const fs::path exe = launcher_path();
    std::vector<fs::path> candidates;
    if (!exe.empty()) {
        const fs::path installed = exe.parent_path() / LOCUS_RELATIVE_EXAMPLES_DIR / "maxcut";
        if (fs::is_regular_file(installed / "maxcut.cpp", error))
            return {installed.lexically_normal(), install_prefix(exe.parent_path())};
        candidates.push_back(installed);
    }
    const fs::path source = fs::path(LOCUS_SOURCE_EXAMPLES_DIR) / "maxcut";
    if (fs::is_regular_file(source / "maxcut.cpp", error))
        return {source.lexically_normal(), std::nullopt};
    candidates.push_back(source);
    std::string searched;
    for (const fs::path& dir : candidates)
        searched += (searched.empty() ? "" : ", ") + dir.lexically_normal().string();
    throw Error("new-problem: the example plugin to copy is missing (looked in: " + searched + ")");
}

/// Refuses `name` when a plugin of that name ships with locus or lies in the plugin search path
/// (LOCUS_PLUGIN_PATH, the launcher's folder, the installed plugin folder): locus_NAME.so would
/// shadow it or be shadowed by it.
void refuse_plugin_names(const std::string& name) {
    for (const char* shipped : kShippedPlugins)
        if (name == shipped)
            throw ConfigError("new-problem: '" + name +
                              "' is the name of a plugin that ships with locus; choose another "
                              "name");
    const std::string file = "locus_" + name + ".so";
    for (const fs::path& dir : PluginLoader().search_path()) {
        std::error_code error;
        const fs::path found = dir / file;
        if (!fs::is_regular_file(found, error)) continue;
        const fs::path canonical = fs::canonical(found, error);
        throw ConfigError("new-problem: '" + name + "' is the name of a plugin in the plugin " +
                          "search path (" +
                          (error ? found.lexically_normal() : canonical).string() +
                          "); choose another name");
    }
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

} // namespace

int new_problem(const std::string& name, const std::string& out) {
    const bool valid =
        !name.empty() && name.size() <= 40 && std::islower(static_cast<unsigned char>(name[0])) &&
        name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos;
    if (!valid)
        throw ConfigError(fmt::format("new-problem: '{}' is not a problem name: use a lower-case "
                                      "letter, then letters, digits or '_' (at most 40)",
                                      name.substr(0, 60)));
    static const char* const kKeywords[] = {
        "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
        "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
        "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
        "co_return", "co_yield", "decltype", "default", "delete", "do", "double",
        "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
        "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new",
        "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private",
        "protected", "public", "register", "reinterpret_cast", "requires", "return", "short",
        "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch",
        "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid",
        "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t",
        "while", "xor", "xor_eq", "locus", "std", "gpu"};
    for (const char* keyword : kKeywords)
        if (name == keyword)
            throw ConfigError("new-problem: '" + name +
                              "' is a C++ keyword or a namespace of locus; choose another name");
    if (name == "maxcut")
        throw ConfigError("new-problem: 'maxcut' is the example's own name; choose another");
    refuse_plugin_names(name);
    const fs::path dir = out.empty() ? fs::path(name) : fs::path(out);
    std::error_code error;
    if (fs::exists(dir, error))
        throw ConfigError("new-problem: '" + dir.string() + "' exists; choose another --out");
    std::string camel, dashed = name;
    bool upper = true;
    for (const char c : name) {
        if (c == '_')
            upper = true;
        else
            camel += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c,
                upper = false;
    }
    for (char& c : dashed)
        c = c == '_' ? '-' : c;
    const TemplateSource source = template_source();
    const fs::path& from = source.dir;
    fs::create_directories(dir);
    for (const auto& entry : fs::directory_iterator(from)) {
        if (!entry.is_regular_file()) continue;
        std::ifstream in(entry.path(), std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        std::string body = replace_all(text.str(), "random-maxcut", "random-" + dashed);
        body = replace_all(replace_all(replace_all(body, "MaxCut", camel), "Max-Cut", name),
                           "maxcut", name);
        const fs::path target = dir / replace_all(entry.path().filename().string(), "maxcut", name);
        std::ofstream(target, std::ios::binary) << body;
        if (!fs::is_regular_file(target, error))
            throw Error("new-problem: cannot write '" + target.string() + "'");
    }
    // The commands name this launcher and, when it is installed, its prefix; a launcher of a
    // build tree has no package to build against until that build is installed.
    const fs::path exe = launcher_path();
    const std::string launcher = exe.empty() ? std::string("locus") : exe.string();
    const std::string prefix = source.prefix ? source.prefix->string() : "<locus install prefix>";
    const std::string d = dir.string();
    std::printf("%s: a %s plugin project copied from the Max-Cut example (%s)\n",
                d.c_str(), name.c_str(), from.string().c_str());
    if (!source.prefix)
        std::printf("this locus runs from its build tree: install it first "
                    "(cmake --install <build> --prefix <dir>) and build against that prefix\n");
    std::printf("  cmake -S %s -B %s/build -DCMAKE_PREFIX_PATH=%s\n"
                "  cmake --build %s/build\n"
                "  ctest --test-dir %s/build\n"
                "  %s run %s/%s.yaml --plugin-path %s/build\n"
                "then replace the graph, the cut and the flip neighborhood by the new problem's "
                "(docs/writing-a-plugin.md)\n",
                d.c_str(), d.c_str(), prefix.c_str(), d.c_str(), d.c_str(), launcher.c_str(),
                d.c_str(), name.c_str(), d.c_str());
    return kOk;
}

} // namespace locus::app
