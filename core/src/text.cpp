// Reading whole instance and solution files.

#include "locus/text.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "locus/error.hpp"

namespace locus {

std::string read_text_file(const std::filesystem::path& path, std::string_view what) {
    errno = 0;
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                         &std::fclose);
    if (!file)
        throw InstanceError(
            fmt::format("cannot open {} file '{}': {}", what, path.string(), std::strerror(errno)));
    std::string text;
    char buffer[1 << 16];
    std::size_t got = 0;
    while ((got = std::fread(buffer, 1, sizeof buffer, file.get())) > 0)
        text.append(buffer, got);
    if (std::ferror(file.get()) != 0)
        throw InstanceError(
            fmt::format("cannot read {} file '{}': {}", what, path.string(), std::strerror(errno)));
    return text;
}

} // namespace locus
