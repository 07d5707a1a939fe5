/* One CUnit runner for the driver suites: `driver-tests [-r SUITE]`. */
#include <stdio.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "suites.h"

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
	if (register_sha256_suite() || register_files_suite() || register_result_suite() ||
	    register_signals_suite() || register_diagnose_suite() || register_stats_suite() ||
	    register_calib_suite()) {
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
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed() +
			  CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
