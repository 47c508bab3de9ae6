#pragma once
/// \file
/// Helpers shared by the test suites.

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

namespace locus::test {

/// A file of the benchmark data (../shared/data or $LOCUS_DATA), or nullopt when absent:
/// tests that need it then return early with a MESSAGE saying they were skipped.
std::optional<std::filesystem::path> data_file(const std::string& relative);

/// Directory holding the launcher and plugins of this build.
std::filesystem::path bin_dir();

/// Source tree root.
std::filesystem::path source_dir();

/// A fresh, empty temporary directory unique to this process and `tag`.
std::filesystem::path temp_dir(const std::string& tag);

/// Writes `text` to `path` (creating parent directories).
void write_file(const std::filesystem::path& path, const std::string& text);

/// True when a CUDA device is usable (for tests that mix CPU and GPU checks).
bool gpu_available();

/// Whether the suites run under a sanitizer (LOCUS_SANITIZER_RUN set by scripts/sanitize and
/// scripts/gpu-check): several times slower, so wall-clock bounds and time-to-quality checks are
/// not asserted then (the runs themselves still are, for memory errors).
inline bool instrumented_run() { return std::getenv("LOCUS_SANITIZER_RUN") != nullptr; }

/// Result of running a command.
struct CommandResult {
    int exit_code = -1;
    std::string output; ///< stdout and stderr together
};

/// Runs a shell command, capturing stdout and stderr.
CommandResult run_command(const std::string& command);

/// The message of the E that `f()` throws, or "(no error)" when it returns normally.
template <class E, class F>
std::string error_message(F&& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    return "(no error)";
}

} // namespace locus::test
