/* One CUnit runner for the front-end suites: `frontend-tests [-r SUITE]`. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "suites.h"

void assert_first_error(const struct btc_diag *d, const char *name,
			const char *expect)
{
	if (d->errors == 0 || strcmp(d->first, expect) != 0)
		fprintf(stderr, "\n  case %s:\n    expected: %s\n    got:      %s (%d errors)\n",
			name, expect, d->errors ? d->first : "(no error)", d->errors);
	CU_ASSERT(d->errors > 0);
	CU_ASSERT_STRING_EQUAL(d->first, expect);
}

int main(int argc, char **argv)
{
	const char *only = NULL;
	int c;
	while ((c = getopt(argc, argv, "r:")) != -1) {
		if (c != 'r') {
			fprintf(stderr, "usage: %s [-r SUITE]\n", argv[0]);
			return 2;
		}
		only = optarg;
	}
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	if (register_expr_suite() || register_app_suite() ||
	    register_device_suite() || register_table_suite() ||
	    register_gen_suite() || register_escape_suite()) {
		CU_cleanup_registry();
		return 1;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	if (only) {
		CU_pSuite s = CU_get_suite(only);
		if (!s) {
			fprintf(stderr, "no suite '%s'\n", only);
			CU_cleanup_registry();
			return 2;
		}
		CU_basic_run_suite(s);
	} else {
		CU_basic_run_tests();
	}
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
