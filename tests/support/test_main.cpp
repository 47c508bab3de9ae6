// doctest main shared by all suites. Suites compiled with LOCUS_TEST_REQUIRES_GPU exit with
// 77 (CTest: skipped) and a message when no CUDA device is usable; so does a run in which a test
// case called locus::test::skip_test (its optional environment is absent) and nothing failed.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include "locus/gpu/device.hpp"
#include "test_support.hpp"

int locus_test_requires_gpu() __attribute__((weak));

int main(int argc, char** argv) {
    if (&locus_test_requires_gpu != nullptr && locus_test_requires_gpu() != 0) {
        const std::string reason = locus::gpu::device_unavailable_reason();
        if (!reason.empty()) {
            std::printf("SKIP: GPU tests need a CUDA device: %s\n", reason.c_str());
            return 77;
        }
    }
    doctest::Context context;
    context.applyCommandLine(argc, argv);
    const int result = context.run();
    if (result == 0 && locus::test::test_skipped() && !context.shouldExit()) return 77;
    return result;
}
