/* The suites of test_runtime (and of test_runtime_tsan, built with
 * RUNTIME_TEST_HOST_ONLY: no GPU suites), in `-l` order; main() is
 * the shared runner (test/common/cunit_main.h). */
#include "suites.h"

#include <btrt_env.h>
#include <btrt_pipeline.h>
#include <stdio.h>
#include <stdlib.h>

#include "cunit_main.h"

static const struct btc_test_suite suites[] = {
	{ "ring", suite_ring_register },
	{ "env", suite_env_register },
	{ "pipeline", suite_pipeline_register },
	{ "io", suite_io_register },
	{ "probe", suite_probe_register },
	{ "farm", suite_farm_register },
	{ "streams", suite_streams_register },
	{ "adapt", suite_adapt_register },
	{ "profiler", suite_profiler_register },
	{ "fsafe", suite_fsafe_register },
#ifndef RUNTIME_TEST_HOST_ONLY
	{ "vulkan", suite_vulkan_register },
	{ "cuda", suite_cuda_register },
#endif
};

struct btrt_env test_btrt_env;

static void start(char **argv)
{
	btrt_omp_env_init(argv, BTRT_OMP_WAIT_PASSIVE); /* OMP_WAIT_POLICY=passive unless set */
	struct btrt_error err;
	if (btrt_env_init(&test_btrt_env, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		exit(2);
	}
}

#ifdef RUNTIME_TEST_HOST_ONLY
#define PROGRAM "test_runtime_tsan"
#else
#define PROGRAM "test_runtime"
#endif

const struct btc_test_program btc_test_program = {
	.name = PROGRAM,
	.suites = suites,
	.n_suites = sizeof suites / sizeof suites[0],
	.start = start,
	.timeout_s = 300, /* a hung pipeline must fail the test, not the CI job */
};
