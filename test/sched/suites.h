/* Scheduler test suites, listed in suites.c and run by the shared runner
 * (test/common/cunit_main.h): `sched-tests [-r SUITE]`. The checks below
 * live in checks.c. */
#ifndef BTC_TEST_SCHED_SUITES_H
#define BTC_TEST_SCHED_SUITES_H

#include <stdbool.h>

#include "sched/optimizer.h"

int register_oracle_suite(void);   /* the 12 reference tables, 3 objectives */
int register_property_suite(void); /* 500 random tables, z3 vs exhaustive */
int register_input_suite(void);    /* bad tables, options, output */
int register_space_suite(void);    /* farms and core splits (issue 16) */
int register_bound_suite(void);    /* the fluid bound (sched/bound.h) */
int register_assign_suite(void);   /* the assignment bound (sched/bound.h) */
int register_multi_suite(void);    /* several streams (sched/multi.h) */
/* the same-PU capacity cases of the multi suite (suite_multi_share.c); s
 * a CU_pSuite */
int register_multi_share_tests(void *s);

/* Checks one candidate of a result: C1 (every stage on exactly one PU, in
 * order), C2 (each PU at most one chunk), kernels present and allowed by
 * the options, at least two chunks, and every time equal to the sum
 * recomputed from the table. Reports through CUnit; returns the verdict. */
bool check_candidate(const struct btc_sched_problem *p,
		     const struct btc_sched_options *opt,
		     const struct btc_schedule *s);

/* As check_candidate in the larger space: the chunks tile the stages,
 * every PU's units (its size when split, else 1) suffice, farms of 2 to
 * farm_max_pus allowed PUs (or all of them) with pu the lowest, core counts
 * profiled, pinned stages on their PU alone, a candidate (>= 2 chunks or a
 * farm), and every time equal to the model recomputed here. */
bool check_space_candidate(const struct btc_sched_problem *p,
			   const struct btc_sched_options *opt,
			   const struct btc_schedule *s);

/* Same ranking: same length, and candidate by candidate the same chunks
 * (hence the same T_max and order). Prints the first difference. */
bool same_ranking(const char *what, const struct btc_sched_result *a,
		  const struct btc_sched_result *b);

/* No two candidates are the same schedule. */
bool no_duplicates(const struct btc_sched_result *r);

#endif
