#include "test_support.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include "locus/gpu/device.hpp"

namespace locus::test {

namespace fs = std::filesystem;

fs::path data_root() { return LOCUS_TEST_DATA_DIR; }

fs::path data_file(const std::string& relative) {
    std::vector<fs::path> roots;
    if (const char* env = std::getenv("LOCUS_DATA")) {
        std::stringstream ss(env);
        std::string dir;
        while (std::getline(ss, dir, ':'))
            if (!dir.empty()) roots.emplace_back(dir);
    }
    roots.push_back(data_root());
    std::string looked;
    for (const auto& root : roots) {
        const fs::path candidate = root / relative;
        if (fs::is_regular_file(candidate)) return candidate;
        looked += (looked.empty() ? "" : ", ") + candidate.string();
    }
    FAIL("benchmark data file '" << relative << "' is missing (looked in: " << looked
                                 << "); the data/ folder of the source tree must hold it");
    return {}; // not reached: FAIL throws
}

namespace {
bool& skipped_flag() {
    static bool skipped = false;
    return skipped;
}
} // namespace

void skip_test(const std::string& reason) {
    std::printf("SKIP: %s\n", reason.c_str());
    std::fflush(stdout);
    skipped_flag() = true;
}

bool test_skipped() { return skipped_flag(); }

fs::path bin_dir() { return LOCUS_TEST_BIN_DIR; }
fs::path source_dir() { return LOCUS_TEST_SOURCE_DIR; }

fs::path temp_dir(const std::string& tag) {
    const fs::path dir = fs::temp_directory_path() /
                         ("locus-test-" + tag + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

void write_file(const fs::path& path, const std::string& text) {
    if (path.has_parent_path()) fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary);
    out << text;
}

bool gpu_available() { return locus::gpu::device_count() > 0; }

CommandResult run_command(const std::string& command) {
    CommandResult result;
    FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
    if (pipe == nullptr) return result;
    std::array<char, 4096> buffer{};
    while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe) != nullptr)
        result.output += buffer.data();
    const int status = ::pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
}

} // namespace locus::test
