#include "locus/program_directory.hpp"

#include <mutex>
#include <system_error>

namespace locus {

namespace {

std::mutex g_program_mutex;
std::filesystem::path g_program_directory;

} // namespace

std::filesystem::path program_directory() {
    {
        std::lock_guard lock(g_program_mutex);
        if (!g_program_directory.empty()) return g_program_directory;
    }
    std::error_code error;
    const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
    if (error) return {};
    return executable.parent_path();
}

void set_program_directory(std::filesystem::path dir) {
    std::lock_guard lock(g_program_mutex);
    g_program_directory = std::move(dir);
}

} // namespace locus
