/* cunit_main.h: the one CUnit runner of btc's tests (cunit_main.c holds
 * main()). A test executable links it and defines btc_test_program: its
 * name and its suites, each a name and a register function. Usage:
 *
 *   PROGRAM [-r SUITE [-t TEST]] [-l]
 *
 *   -r SUITE  register and run only SUITE (unknown name: exit 2)
 *   -t TEST   with -r, run only that test of the suite (unknown: exit 2)
 *   -l        list the suites, one per line, and exit 0
 *   (none)    register and run every suite
 *
 * Register functions run only for the selected suites (they may open a
 * device), and return
 *   0                      registered: CU_add_suite(NAME, ...) was called
 *                          with the table's name and tests added to it;
 *   btc_test_skip(...)     the suite's hardware is absent (testutil.h):
 *                          77, the suite is left out; or 1 when the
 *                          matching $BTC_REQUIRE_* says it must be there;
 *   anything else          registration failed.
 *
 * Exit status:
 *   2   bad usage, unknown suite or test;
 *   1   a registration failed, the selected suite was not registered
 *       under its name, $BTRT_VK_VALIDATION asks for a validation layer
 *       that is missing, or, after the run: any suite's init or cleanup
 *       failed (missing test data is an init failure), any test or
 *       assertion failed, a CUnit framework error, or no test ran;
 *   77  nothing failed but a selected suite was skipped (meson: SKIP);
 *   0   every selected suite was registered and all its tests ran and
 *       passed.
 * A last line on stderr says which and why. */
#ifndef BTC_CUNIT_MAIN_H
#define BTC_CUNIT_MAIN_H

#include <stddef.h>

#include "testutil.h"

struct btc_test_suite {
	const char *name;   /* the name given to CU_add_suite and -r */
	int (*reg)(void);   /* see above */
};

struct btc_test_program {
	const char *name;                     /* in messages: "octree_test" */
	const struct btc_test_suite *suites;
	size_t n_suites;
	/* Optional: called first with argv (it may re-exec the program, e.g.
	 * btrt_omp_env_init). */
	void (*start)(char **argv);
	/* Optional: SIGALRM after this many seconds, so that a hang fails the
	 * test rather than the CI job (0: none). */
	unsigned timeout_s;
};

/* Defined once by every test executable that links the runner. */
extern const struct btc_test_program btc_test_program;

#endif
