/* CUnit runner of the runtime suites: test_runtime [-r SUITE] [-l].
 * Exits 77 (meson SKIP) when the selected suite's hardware is absent. */
#include "suites.h"

#include <btrt_pipeline.h>

#include <CUnit/Basic.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct suite {
	const char *name;
	int (*reg)(void);
};

static const struct suite suites[] = {
	{ "ring", suite_ring_register },
	{ "pipeline", suite_pipeline_register },
#ifndef RUNTIME_TEST_HOST_ONLY
	{ "vulkan", suite_vulkan_register },
	{ "cuda", suite_cuda_register },
#endif
};
#define N_SUITES (sizeof suites / sizeof suites[0])

void test_two_cores(int cores[2])
{
	cpu_set_t set;
	cores[0] = cores[1] = 0;
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return;
	int k = 0;
	for (int c = 0; c < CPU_SETSIZE && k < 2; c++)
		if (CPU_ISSET(c, &set))
			cores[k++] = c;
	if (k == 1)
		cores[1] = cores[0];
}

int main(int argc, char **argv)
{
	btrt_omp_env_init(argv); /* OMP_WAIT_POLICY=passive unless set */
	const char *only = NULL;
	int opt;
	while ((opt = getopt(argc, argv, "r:l")) != -1) {
		if (opt == 'r') {
			only = optarg;
		} else if (opt == 'l') {
			for (size_t i = 0; i < N_SUITES; i++)
				puts(suites[i].name);
			return 0;
		} else {
			fprintf(stderr, "usage: %s [-r suite] [-l]\n", argv[0]);
			return 2;
		}
	}
	/* A hung pipeline must fail the test, not the CI job. */
	alarm(300);
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	int found = 0, skipped = 0;
	for (size_t i = 0; i < N_SUITES; i++) {
		if (only && strcmp(only, suites[i].name) != 0)
			continue;
		found++;
		int rc = suites[i].reg();
		if (rc == 77) {
			skipped++;
			continue;
		}
		if (rc != 0) {
			fprintf(stderr, "cannot register suite %s\n", suites[i].name);
			CU_cleanup_registry();
			return 1;
		}
	}
	if (!found) {
		fprintf(stderr, "no suite named %s\n", only);
		CU_cleanup_registry();
		return 2;
	}
	if (only && skipped == found) {
		CU_cleanup_registry();
		return 77;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
