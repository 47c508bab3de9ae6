// Linked into GPU suites only: tells the shared main to skip (exit 77) without a device.
int locus_test_requires_gpu() { return 1; }
