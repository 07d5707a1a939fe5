/* testutil.h: what every test program of btc shares, CUnit or not: where
 * the test data lives, scratch files, what a test does when its hardware
 * is absent, and the Vulkan validation layer check. No CUnit here (the plain C programs
 * of the GPU machine use it too); the CUnit runner is cunit_main.h. */
#ifndef BTC_TESTUTIL_H
#define BTC_TESTUTIL_H

/* The exit status meson reports as SKIP. */
#define BTC_TEST_SKIP 77

/* Path of rel (e.g. "pointclouds", "alexnet-cifar10/conv1_w.npy") under
 * the test data folder: $BTC_DATA_DIR when set, else the checkout's data/
 * (BTC_DATA_DIR of btc_config.h). The string lives until exit; the same
 * rel gives the same pointer. Not thread-safe: call from the main thread.
 * Aborts when the path does not fit (PATH_MAX) or memory runs out. */
const char *btc_test_data(const char *rel);

/* 0 when btc_test_data(rel) is readable; else prints "missing test data:
 * PATH (...)" on stderr and returns -1. Suites call it from their init for
 * every file or folder they read, so that missing data fails the suite
 * (the runner then exits 1) instead of testing nothing. */
int btc_test_need_data(const char *rel);

/* 1 when $BTC_TEST_FULL is set and not "0" (`scripts/test --full`),
 * else 0. An end-to-end test runs its full inputs then (every image, frame
 * or random instance) and a subset of the same real data by default, with
 * the same assertions (docs/testing.md, "Default and full sizes"). */
int btc_test_full(void);

/* Creates an empty scratch file from tmpl, a writable mkstemp(3) template
 * ("/tmp/btc-report-XXXXXX": its last six X are replaced in place by the
 * file's name), and closes it: the suite then writes and reads it by name
 * (btc's writers replace a file rather than write through a descriptor).
 * Returns 0; or prints "btc_test_tmpfile: cannot create a scratch file
 * from TEMPLATE: REASON" on stderr and returns -1 with errno set by
 * mkstemp or close (no file left; tmpl then unspecified): a test asserts the 0
 * (CU_ASSERT_EQUAL_FATAL), a suite's init returns nonzero. The caller
 * unlinks the file once read, or in its suite's cleanup. */
int btc_test_tmpfile(char *tmpl);

/* Replaces the contents of the file at path with the string text (its
 * bytes up to the NUL, nothing added): a hand-written input (a report, a
 * trace) for the code under test to read. Returns 0, or -1 with errno set
 * when path cannot be opened for writing or the write or close fails. */
int btc_test_write_text(const char *path, const char *text);

/* Hardware a test may find absent. */
enum btc_test_hw {
	BTC_TEST_HW_VULKAN, /* a Vulkan device (llvmpipe counts); $BTC_REQUIRE_VULKAN */
	BTC_TEST_HW_CUDA,   /* a CUDA device; $BTC_REQUIRE_CUDA */
	BTC_TEST_HW_CROSS,  /* the aarch64 cross toolchain; $BTC_REQUIRE_CROSS */
};

/* The one way a test says "my hardware is absent". Prints "NAME: SKIP:
 * WHY" on stderr and returns BTC_TEST_SKIP (77), or, when the matching
 * $BTC_REQUIRE_* is set and not "0" (scripts/test sets BTC_REQUIRE_VULKAN
 * and BTC_REQUIRE_CROSS), prints "NAME: FAIL: WHY (BTC_REQUIRE_X=1)" and
 * returns 1. A CUnit suite's register function returns its value; a plain
 * test program exits with it. fmt is printf-like. */
int btc_test_skip(enum btc_test_hw hw, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A validation test must not pass without its validator. When
 * $BTRT_VK_VALIDATION asks for the Khronos validation layer (set and not
 * "0"), returns 0 if VK_LAYER_KHRONOS_validation is installed, else prints
 * "NAME: FAIL: BTRT_VK_VALIDATION=1 but VK_LAYER_KHRONOS_validation is not
 * installed" and returns -1. Returns 0 when validation is not asked for or
 * btc was built without Vulkan (the Vulkan test then has no device). */
int btc_test_check_vk_validation(const char *name);

#endif
