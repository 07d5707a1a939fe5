/* Bad tables and options are rejected with the stage and PU named; the
 * exhaustive solver refuses large problems; the time budget returns a
 * valid schedule flagged not optimal; output is byte-for-byte
 * deterministic and follows the JSON contract. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "suites.h"

static const char *const stages3[] = { "morton", "sort", "unique" };
static const char *const pus2[] = { "big", "gpu" };

static enum btc_status solve_table(const double *t, int n, int np,
				   struct btc_sched_options *o,
				   struct btc_diag *d)
{
	struct btc_sched_problem p = { .n_stages = n, .n_pus = np,
				       .time_ms = t,
				       .stage_names = n == 3 ? stages3 : NULL,
				       .pu_names = np == 2 ? pus2 : NULL };
	struct btc_sched_result r;
	enum btc_status st = btc_sched_solve_z3(&p, o, &r, d);
	btc_sched_result_free(&r);
	return st;
}

static void expect_error(const double *t, int n, int np,
			 struct btc_sched_options *o, enum btc_status want,
			 const char *msg)
{
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	enum btc_status st = solve_table(t, n, np, o, &d);
	CU_ASSERT_EQUAL(st, want);
	if (strcmp(d.last, msg) != 0)
		fprintf(stderr, "\n    expected: %s\n    got:      %s\n", msg,
			d.last);
	CU_ASSERT_STRING_EQUAL(d.last, msg);
}

static void test_bad_tables(void)
{
	struct btc_sched_options o;
	btc_sched_options_init(&o);
	double neg[] = { 1, 2, 3, -0.5, 1, 1 };
	expect_error(neg, 3, 2, &o, BTC_ERR_TABLE,
		     "error: profiling table: stage 1 (sort) on PU 1 (gpu): "
		     "time -0.5 ms (must be finite and >= 0)");
	double inf[] = { 1, 2, INFINITY, 4, 1, 1 };
	expect_error(inf, 3, 2, &o, BTC_ERR_TABLE,
		     "error: profiling table: stage 1 (sort) on PU 0 (big): "
		     "time inf ms (must be finite and >= 0)");
	double none[] = { 1, 2, NAN, NAN, 1, 1 };
	expect_error(none, 3, 2, &o, BTC_ERR_TABLE,
		     "error: profiling table: stage 1 (sort) has a time on "
		     "no PU");
	double ok[] = { 1, 2, 3, 4, 5, 6 };
	expect_error(ok, 0, 2, &o, BTC_ERR_TABLE,
		     "error: schedule: 0 stages (1 to 1024 supported)");
	expect_error(ok, 3, 0, &o, BTC_ERR_TABLE,
		     "error: schedule: 0 PUs (1 to 32 supported)");
}

/* One huge entry (1e11 ms) forces a coarse ranking quantum; the real times
 * must not silently round to 0 (and the output must never claim an
 * optimum over rounded-away times): the table is rejected, naming the
 * stage and the PU. */
static void test_quantum_precision(void)
{
	struct btc_sched_options o;
	btc_sched_options_init(&o);
	double huge[] = { 1e11, 0.5, 0.3, 0.4, 0.2, 0.6 };
	expect_error(huge, 3, 2, &o, BTC_ERR_TABLE,
		     "error: profiling table: stage 2 (unique) on PU 1 (gpu): "
		     "time 0.6 ms rounds to 0 in the ranking quantum of "
		     "1000000000 ns, which the largest PU sum (1e+11 ms) "
		     "forces: times span too many orders of magnitude to rank "
		     "exactly");
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	CU_ASSERT_EQUAL(solve_table(huge, 3, 2, &o, &d), BTC_ERR_TABLE);
	CU_ASSERT_EQUAL(d.errors, 5); /* every real time is named */
	/* Coarse but precise enough: 10 ns quanta, every time within 1 %. */
	double fine[] = { 2000, 0.5, 0.3, 0.4, 0.2, 0.6 };
	btc_diag_init(&d, NULL);
	CU_ASSERT_EQUAL(solve_table(fine, 3, 2, &o, &d), BTC_OK);
	CU_ASSERT_EQUAL(d.errors, 0);
	/* Exact zeros stay legal. */
	double zero[] = { 1e11, 0, 0, 0, 0, 0 };
	btc_diag_init(&d, NULL);
	CU_ASSERT_EQUAL(solve_table(zero, 3, 2, &o, &d), BTC_OK);
	CU_ASSERT_EQUAL(d.errors, 0);
}

static void test_bad_options(void)
{
	double t[] = { 1, 2, NAN, 4, 5, 6 };
	struct btc_sched_options o;
	btc_sched_options_init(&o);
	int pin[3] = { -1, 0, -1 };
	o.pin = pin;
	expect_error(t, 3, 2, &o, BTC_ERR_USAGE,
		     "error: schedule: stage 1 (sort) pinned to PU 0 (big), "
		     "which has no kernel for it");
	pin[1] = 1;
	o.forbid_mask = 2;
	expect_error(t, 3, 2, &o, BTC_ERR_USAGE,
		     "error: schedule: stage 1 (sort) pinned to forbidden PU 1 "
		     "(gpu)");
	o.pin = NULL;
	expect_error(t, 3, 2, &o, BTC_ERR_UNSAT,
		     "error: schedule: stage 1 (sort) can run on no allowed "
		     "PU");
	o.forbid_mask = 0;
	o.top_k = 0;
	expect_error(t, 3, 2, &o, BTC_ERR_USAGE,
		     "error: schedule: --top must be >= 1 (got 0)");
}

static void test_options(void)
{
	/* 6 stages x 3 PUs; PU 2 is fast on everything */
	double t[18];
	for (int i = 0; i < 6; i++) {
		t[i * 3 + 0] = 4 + i;
		t[i * 3 + 1] = 3 + 0.5 * i;
		t[i * 3 + 2] = 1 + 0.1 * i;
	}
	struct btc_sched_problem p = { .n_stages = 6, .n_pus = 3,
				       .time_ms = t };
	struct btc_sched_options o;
	btc_sched_options_init(&o);
	o.objective = BTC_SCHED_LATENCY;
	o.forbid_mask = 4;
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_sched_result r;
	CU_ASSERT_EQUAL(btc_sched_solve_z3(&p, &o, &r, &d), BTC_OK);
	CU_ASSERT(r.n_candidates > 0);
	for (int k = 0; k < r.n_candidates; k++) {
		CU_ASSERT_EQUAL(r.candidates[k].n_chunks, 2);
		check_candidate(&p, &o, &r.candidates[k]);
	}
	CU_ASSERT_EQUAL(r.n_baselines, 2); /* forbidden PU: no baseline */
	btc_sched_result_free(&r);

	o.forbid_mask = 0;
	o.max_chunks = 2;
	int pin[6] = { -1, -1, -1, 1, -1, -1 };
	o.pin = pin;
	CU_ASSERT_EQUAL(btc_sched_solve_z3(&p, &o, &r, &d), BTC_OK);
	for (int k = 0; k < r.n_candidates; k++)
		check_candidate(&p, &o, &r.candidates[k]);
	btc_sched_result_free(&r);

	/* one chunk allowed: no candidate, but the baselines */
	o.max_chunks = 1;
	o.pin = NULL;
	CU_ASSERT_EQUAL(btc_sched_solve_z3(&p, &o, &r, &d), BTC_OK);
	CU_ASSERT_EQUAL(r.n_candidates, 0);
	CU_ASSERT_EQUAL(r.n_baselines, 3);
	CU_ASSERT(r.optimal);
	btc_sched_result_free(&r);
}

static void test_exhaustive_limit(void)
{
	int n = 40, np = 8;
	double *t = malloc(sizeof(double) * (size_t)(n * np));
	for (int i = 0; i < n * np; i++)
		t[i] = 1 + i % 7;
	struct btc_sched_problem p = { .n_stages = n, .n_pus = np,
				       .time_ms = t };
	struct btc_sched_options o;
	btc_sched_options_init(&o);
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	struct btc_sched_result r;
	CU_ASSERT_EQUAL(btc_sched_solve_exhaustive(&p, &o, &r, &d),
			BTC_ERR_LIMIT);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.last, "exhaustive solver is limited"));
	btc_sched_result_free(&r);
	free(t);
}

static void test_time_budget(void)
{
	/* 48 stages x 8 PUs, gapness objective: not provable within the budget
	 * (minutes), while the first candidates come within milliseconds; the
	 * budget leaves room for a loaded CI machine. */
	int n = 48, np = 8;
	double *t = malloc(sizeof(double) * (size_t)(n * np));
	uint32_t s = 7;
	for (int i = 0; i < n * np; i++) {
		s = s * 1103515245u + 12345u;
		t[i] = 0.01 + (s >> 8) % 100000 / 1e4;
	}
	struct btc_sched_problem p = { .n_stages = n, .n_pus = np,
				       .time_ms = t };
	struct btc_sched_options o;
	btc_sched_options_init(&o);
	o.objective = BTC_SCHED_GAPNESS;
	o.time_budget_ms = 1000;
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_sched_result r;
	CU_ASSERT_EQUAL(btc_sched_solve_z3(&p, &o, &r, &d), BTC_OK);
	CU_ASSERT(!r.optimal);
	CU_ASSERT(r.n_candidates >= 1);
	/* !optimal says the budget stopped the search; no wall time is asserted
	 * (a loaded machine must pass); a solver that ignored the budget runs
	 * into the meson test's timeout. */
	for (int k = 0; k < r.n_candidates; k++)
		check_candidate(&p, &o, &r.candidates[k]);
	btc_sched_result_free(&r);
	free(t);
}

static char *render(const struct btc_sched_problem *p,
		    const struct btc_sched_options *o, bool json)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_sched_result r;
	CU_ASSERT_EQUAL(btc_sched_solve_z3(p, o, &r, &d), BTC_OK);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (json)
		btc_sched_print_json(f, p, &r, false);
	else
		btc_sched_print_text(f, p, &r, false);
	fclose(f);
	btc_sched_result_free(&r);
	return buf;
}

static void test_output(void)
{
	double t[] = { 1.5, 0.5, 2.25, 1.0, 0.75, 2.25 };
	const char *pus[] = { "big", "gpu" };
	struct btc_sched_problem p = { .n_stages = 3, .n_pus = 2,
				       .time_ms = t, .pu_names = pus,
				       .app = "toy", .device = "dev",
				       .mode = "interference" };
	struct btc_sched_options o;
	btc_sched_options_init(&o);
	o.objective = BTC_SCHED_LATENCY;
	o.top_k = 2;
	char *a = render(&p, &o, true), *b = render(&p, &o, true);
	CU_ASSERT_STRING_EQUAL(a, b);
	/* rows are stages: big 1.5 2.25 0.75, gpu 0.5 1.0 2.25. Schedules:
	 * gpu[0-1] big[2] (T_max 1.5), gpu[0] big[1-2] (3.0), big[0] gpu[1-2]
	 * (3.25), big[0-1] gpu[2] (3.75); baselines big 4.5, gpu 3.75. */
	const char *want =
		"{\"app\":\"toy\",\"device\":\"dev\",\"mode\":\"interference\","
		"\"objective\":\"latency\",\"candidates\":[\n"
		"{\"rank\":1,\"tmax_ms\":1.500000,\"tmin_ms\":0.750000,"
		"\"gapness_ms\":0.750000,\"speedup\":2.5000,\"chunks\":["
		"{\"pu\":\"gpu\",\"first_stage\":0,\"last_stage\":1,"
		"\"time_ms\":1.500000},{\"pu\":\"big\",\"first_stage\":2,"
		"\"last_stage\":2,\"time_ms\":0.750000}]},\n"
		"{\"rank\":2,\"tmax_ms\":3.000000,\"tmin_ms\":0.500000,"
		"\"gapness_ms\":2.500000,\"speedup\":1.2500,\"chunks\":["
		"{\"pu\":\"gpu\",\"first_stage\":0,\"last_stage\":0,"
		"\"time_ms\":0.500000},{\"pu\":\"big\",\"first_stage\":1,"
		"\"last_stage\":2,\"time_ms\":3.000000}]}],\n"
		"\"baselines\":[{\"pu\":\"big\",\"time_ms\":4.500000},"
		"{\"pu\":\"gpu\",\"time_ms\":3.750000}],\n"
		"\"optimal\":true,\"solve_ms\":0.000}\n";
	if (strcmp(a, want) != 0)
		fprintf(stderr, "\n%s", a);
	CU_ASSERT_STRING_EQUAL(a, want);
	free(a);
	free(b);
	a = render(&p, &o, false);
	b = render(&p, &o, false);
	CU_ASSERT_STRING_EQUAL(a, b);
	CU_ASSERT_PTR_NOT_NULL(strstr(a, "gpu 3.7500 ms  (best)"));
	free(a);
	free(b);
}

int register_input_suite(void)
{
	CU_pSuite s = CU_add_suite("input", NULL, NULL);
	if (!s || !CU_add_test(s, "bad tables", test_bad_tables) ||
	    !CU_add_test(s, "quantum precision", test_quantum_precision) ||
	    !CU_add_test(s, "bad options", test_bad_options) ||
	    !CU_add_test(s, "forbid, pin, max chunks", test_options) ||
	    !CU_add_test(s, "exhaustive size limit", test_exhaustive_limit) ||
	    !CU_add_test(s, "time budget", test_time_budget) ||
	    !CU_add_test(s, "deterministic output", test_output))
		return -1;
	return 0;
}
