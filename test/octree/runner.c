/* runner.c: CUnit runner of the octree tests. `octree_test -r SUITE` runs
 * one suite (pcd, cpu, vulkan, schedules), `-r SUITE -t TEST` one test of
 * it; no argument runs them all. A
 * suite whose hardware is missing makes the runner exit 77 (meson SKIP). */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

#include "suites.h"

static const struct {
	const char *name;
	int (*reg)(void);
} suites[] = {
	{ "pcd", octree_pcd_register },
	{ "cpu", octree_cpu_register },
	{ "vulkan", octree_vk_register },
	{ "schedules", octree_sched_register },
};

int octree_skip;

int main(int argc, char **argv)
{
	const char *only = NULL, *test = NULL;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-r") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "-t") && i + 1 < argc)
			test = argv[++i];
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	int found = 0;
	for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++)
		if (!only || !strcmp(only, suites[i].name)) {
			found = 1;
			if (suites[i].reg())
				return 1;
		}
	if (!found) {
		fprintf(stderr, "no suite '%s'\n", only);
		return 2;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	if (only && test) {
		CU_pSuite s = CU_get_suite(only);
		CU_pTest t = s ? CU_get_test(s, test) : NULL;
		if (!t) {
			fprintf(stderr, "no test '%s' in suite '%s'\n", test, only);
			return 2;
		}
		CU_basic_run_test(s, t);
	} else {
		CU_basic_run_tests();
	}
	unsigned failed = CU_get_number_of_failures();
	unsigned run = CU_get_number_of_tests_run();
	CU_cleanup_registry();
	if (failed)
		return 1;
	if (octree_skip && run == 0)
		return 77;
	return 0;
}
