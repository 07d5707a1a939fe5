/* The suites of frontend-tests, in `-l` order; main() is the shared runner
 * (test/common/cunit_main.h). */
#include "cunit_main.h"
#include "suites.h"

static const struct btc_test_suite suites[] = {
	{ "expr", register_expr_suite },
	{ "app", register_app_suite },
	{ "device", register_device_suite },
	{ "table", register_table_suite },
	{ "table-chunk", register_table_chunk_suite },
	{ "gen", register_gen_suite },
	{ "escape", register_escape_suite },
	{ "spec", register_spec_suite },
	{ "plan-bound", register_plan_bound_suite },
	{ "plan-slice", register_plan_slice_suite },
};

const struct btc_test_program btc_test_program = {
	.name = "frontend-tests",
	.suites = suites,
	.n_suites = sizeof suites / sizeof suites[0],
};
