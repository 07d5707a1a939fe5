/* The suites of sched-tests, in `-l` order; main() is the shared runner
 * (test/common/cunit_main.h). */
#include "cunit_main.h"
#include "suites.h"

static const struct btc_test_suite suites[] = {
	{ "oracle", register_oracle_suite },
	{ "property", register_property_suite },
	{ "input", register_input_suite },
	{ "space", register_space_suite },
	{ "bound", register_bound_suite },
	{ "assign", register_assign_suite },
	{ "multi", register_multi_suite },
};

const struct btc_test_program btc_test_program = {
	.name = "sched-tests",
	.suites = suites,
	.n_suites = sizeof suites / sizeof suites[0],
};
