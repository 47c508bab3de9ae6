// `locus new-problem NAME`: a plugin project to start a problem from, made from the Max-Cut
// example (docs/examples/maxcut; installed under share/locus/examples/maxcut). Every file is
// copied with the example's names replaced by NAME's, so the result builds and loads as it is
// (against an installed locus: find_package(locus)) and is then edited into the new problem.

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "launcher.hpp"
#include "locus/error.hpp"

namespace locus::app {
namespace {

namespace fs = std::filesystem;

/// The example's folder: next to an installed launcher, else in the source tree it was built
/// from.
fs::path template_dir() {
    std::error_code error;
    const fs::path exe = fs::read_symlink("/proc/self/exe", error);
    std::vector<fs::path> candidates;
    if (!error) candidates.push_back(exe.parent_path() / LOCUS_RELATIVE_EXAMPLES_DIR / "maxcut");
    candidates.emplace_back(fs::path(LOCUS_SOURCE_EXAMPLES_DIR) / "maxcut");
    for (const fs::path& dir : candidates)
        if (fs::is_regular_file(dir / "maxcut.cpp", error)) return dir.lexically_normal();
    std::string searched;
    for (const fs::path& dir : candidates)
        searched += (searched.empty() ? "" : ", ") + dir.string();
    throw Error("new-problem: the example plugin to copy is missing (looked in: " + searched + ")");
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
    const fs::path from = template_dir();
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
    std::printf("%s: a %s plugin project copied from the Max-Cut example (%s)\n"
                "  cmake -S %s -B %s/build -DCMAKE_PREFIX_PATH=<locus install prefix>\n"
                "  cmake --build %s/build\n"
                "  locus run %s/%s.yaml --plugin-path %s/build\n"
                "then replace the graph, the cut and the flip neighborhood by the new problem's "
                "(docs/writing-a-plugin.md)\n",
                dir.string().c_str(), name.c_str(), from.string().c_str(), dir.string().c_str(),
                dir.string().c_str(), dir.string().c_str(), dir.string().c_str(), name.c_str(),
                dir.string().c_str());
    return kOk;
}

} // namespace locus::app
