/* Shared by the profiling-table suites (suite_table.c,
 * suite_table_chunk.c): the app and device they read tables against, the
 * table written back to text and read again (front/table.h), and the bad
 * tables' loop over their first diagnostics. */
#ifndef FRONTEND_TABLE_TESTLIB_H
#define FRONTEND_TABLE_TESTLIB_H

#include <stddef.h>

#include "front/table.h"
#include "suites.h"

/* demo3: three stages a, b, c with a CPU kernel and a Vulkan shader each,
 * the app the plan suites (suite_plan_bound.c, suite_plan_slice.c) plan
 * against their made-up tables; load it as FRONTEND_DATA_DIR/demo3.yaml. */
extern const char demo3_app_text[];

/* Loads the app (from app_text, as app_path) and the device (dev_text, as
 * "dev.yaml") a suite's tables name, diagnostics on stderr. Returns 0
 * when both load; *app and *dev are the caller's (free them, either may
 * be NULL on failure). */
int table_fixture_load(const char *app_path, const char *app_text, const char *dev_text,
		       struct btc_app **app, struct btc_device **dev);

/* t written with btc_table_write, as a NUL-terminated malloc'ed string:
 * the caller frees it. */
char *table_text(const struct btc_table *t, const struct btc_app *app,
		 const struct btc_device *dev);

/* t written back and read again (as "t2.csv", mode as btc_table_load's):
 * frees t and returns the table read, NULL when it does not read (the
 * errors in d). With text non-NULL, *text receives the written text (the
 * caller frees it); else it is freed here. */
struct btc_table *table_round_trip(struct btc_table *t, const struct btc_app *app,
				   const struct btc_device *dev, enum btc_mode mode,
				   struct btc_diag *d, char **text);

/* Loads each of the n bad tables (as "t.csv", isolated mode) and asserts
 * that it does not load and that its first error is the case's, exactly
 * (assert_first_error). */
void check_bad_tables(const struct bad_case *bad, size_t n, const struct btc_app *app,
		      const struct btc_device *dev);

#endif
