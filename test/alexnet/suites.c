/* The suites of alexnet_tests, in `-l` order; main() is the shared runner
   (test/common/cunit_main.h). */
#include "cunit_main.h"
#include "suites.h"

static const struct btc_test_suite suites[] = {
	{ "readers", alexnet_register_readers },
	{ "prune", alexnet_register_prune },
	{ "cpu", alexnet_register_cpu },
	{ "vulkan", alexnet_register_vulkan },
};

const struct btc_test_program btc_test_program = {
	.name = "alexnet_tests",
	.suites = suites,
	.n_suites = sizeof suites / sizeof suites[0],
};
