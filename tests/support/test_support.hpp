#pragma once
/// \file
/// Helpers shared by the test suites.

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

namespace locus::test {

/// A file of the benchmark data that ships with locus (data/ of the source tree; each directory
/// of $LOCUS_DATA first). A missing file is a defect of the product, not an optional part: the
/// calling test case fails with a message naming the file and the folders searched.
std::filesystem::path data_file(const std::string& relative);

/// The data/ folder of the source tree (where data_file looks last).
std::filesystem::path data_root();

/// For tests whose optional environment is absent (the peers' virtual environment, a plotting
/// environment, Slurm): prints "SKIP: <reason>" and marks the run as skipped, so that the suite
/// exits with 77 (CTest: skipped) unless a check failed. The caller returns from its test case.
/// Register such cases in a CTest entry of their own (a doctest test suite run by itself), so
/// that a skip never hides the cases that did run.
void skip_test(const std::string& reason);

/// Whether skip_test was called in this run.
bool test_skipped();

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
