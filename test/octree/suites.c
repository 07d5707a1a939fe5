/* suites.c: the suites of octree_test, in `-l` order; main() is the shared
 * runner (test/common/cunit_main.h). */
#include "cunit_main.h"
#include "suites.h"

static const struct btc_test_suite suites[] = {
	{ "pcd", octree_pcd_register },
	{ "cpu", octree_cpu_register },
	{ "vulkan", octree_vk_register },
	{ "schedules", octree_sched_register },
};

const struct btc_test_program btc_test_program = {
	.name = "octree_test",
	.suites = suites,
	.n_suites = sizeof suites / sizeof suites[0],
};
