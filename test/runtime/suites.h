/* Suites of the runtime tests, listed in suites.c and run by the shared
 * runner (test/common/cunit_main.h); each returns 0 when registered,
 * btc_test_skip()'s value when the hardware it needs is absent, -1 on a
 * CUnit error. */
#ifndef RUNTIME_SUITES_H
#define RUNTIME_SUITES_H
#include <btrt_env.h>
int suite_ring_register(void);
int suite_env_register(void);
int suite_pipeline_register(void);
int suite_io_register(void);
int suite_probe_register(void);
int suite_farm_register(void);
int suite_streams_register(void);
int suite_adapt_register(void);
int suite_profiler_register(void);
int suite_fsafe_register(void);
int suite_vulkan_register(void);
int suite_cuda_register(void);
/* The environment, read once at start (btrt_env_read) and applied to the
 * rings there; suites apply it to their configs. */
extern struct btrt_env test_btrt_env;
/* Cores to pin two test threads to: {0, 1} when available, else {0, 0}. */
void test_two_cores(int cores[2]);
/* Threads of this process (/proc/self/task), or -1. */
int test_count_threads(void);
/* Asserts that no thread of a finished run is left: this process has at
 * most `before` threads (test_count_threads before the run) within 10 s
 * (OpenMP team threads leave shortly after their dispatcher; the machine
 * may be loaded). Not "equal": threads of an earlier test may still have
 * been exiting when `before` was counted. */
void test_assert_threads_gone(int before);
#endif
