/* CUnit suites of the btc front end; each file registers one suite, listed
 * in suites.c and run by the shared runner (test/common/cunit_main.h). */
#ifndef FRONTEND_SUITES_H
#define FRONTEND_SUITES_H

#include <CUnit/CUnit.h>

#include "util/diag.h"

int register_expr_suite(void);
int register_app_suite(void);
int register_device_suite(void);
int register_table_suite(void);
int register_table_chunk_suite(void);
int register_gen_suite(void);
int register_escape_suite(void);
int register_spec_suite(void);
int register_plan_bound_suite(void);
int register_plan_slice_suite(void);

/* A bad input and the first diagnostic it must produce, exactly. */
struct bad_case {
	const char *name;
	const char *text;
	const char *expect;
};

/* Asserts that diagnostic sink d reported an error whose first message is
 * exactly `expect`; prints both on mismatch (diag_assert.c). */
void assert_first_error(const struct btc_diag *d, const char *name,
			const char *expect);

#endif
