/* driver/calib: the per-PU fit recovers a known fixed cost and slowdown
 * from synthetic periods, stays at the model where there is nothing to
 * learn, and its leave-one-out prediction never reads the held-out
 * measurement. */
#include <math.h>
#include <string.h>

#include "report/calib.h"
#include "suites.h"

/* Synthetic build: 2 PUs, true a = {0.5, 2.0} ms, b = {1.5, 0.8}.
 * Schedules of one or two chunks with various predicted times, so that
 * each PU is the bottleneck of several. */
#define N 10
static struct btc_calib_chunk chunks[N][2];
static struct btc_calib_schedule sched[N];
static const double true_a[2] = {0.5, 2.0}, true_b[2] = {1.5, 0.8};

static void build(void)
{
	static const double x0[N] = {1, 2, 3, 4, 6, 0.5, 1, 0.2, 5, 0.1};
	static const double x1[N] = {NAN, NAN, NAN, 1, 1, 4, 6, 8, 10, 3};
	for (int k = 0; k < N; k++) {
		int m = 0;
		chunks[k][m++] = (struct btc_calib_chunk){0, x0[k]};
		if (!isnan(x1[k]))
			chunks[k][m++] = (struct btc_calib_chunk){1, x1[k]};
		sched[k] = (struct btc_calib_schedule){chunks[k], m, 0, 0};
		double y = 0;
		for (int c = 0; c < m; c++) {
			int p = chunks[k][c].pu;
			y = fmax(y, true_a[p] + true_b[p] * chunks[k][c].predicted_ms);
		}
		sched[k].measured_ms = y;
	}
}

static void test_recovers(void)
{
	build();
	struct btc_calib_options o;
	btc_calib_options_init(&o);
	o.prior_weight = 1e-9; /* noise-free data: the prior must not pull */
	struct btc_calib_fit f;
	btc_calib_fit(sched, N, 2, NULL, &o, &f);
	CU_ASSERT_TRUE(f.converged);
	for (int p = 0; p < 2; p++) {
		CU_ASSERT_DOUBLE_EQUAL(f.a_ms[p], true_a[p], 1e-5);
		CU_ASSERT_DOUBLE_EQUAL(f.b[p], true_b[p], 1e-6);
		CU_ASSERT(f.n_bottleneck[p] >= 2);
	}
	for (int k = 0; k < N; k++)
		CU_ASSERT_DOUBLE_EQUAL(btc_calib_predict(&f, &sched[k]), sched[k].measured_ms, 1e-5);
	btc_calib_fit_free(&f);
	/* The default prior keeps the fit close but not exact. */
	btc_calib_options_init(&o);
	btc_calib_fit(sched, N, 2, NULL, &o, &f);
	for (int p = 0; p < 2; p++)
		CU_ASSERT_DOUBLE_EQUAL(f.b[p], true_b[p], 0.25);
	btc_calib_fit_free(&f);
}

/* A PU that bottlenecks nothing, and a fit with no measurement, stay at
 * a = 0, b = 1; T_io bounds the prediction from below. */
static void test_prior(void)
{
	struct btc_calib_chunk c[2] = {{0, 2}, {2, 1}};
	struct btc_calib_schedule s[2] = {{c, 2, 0, 3}, {c, 1, 0, NAN}};
	struct btc_calib_options o;
	btc_calib_options_init(&o);
	struct btc_calib_fit f;
	btc_calib_fit(s, 2, 3, NULL, &o, &f);
	CU_ASSERT_DOUBLE_EQUAL(f.a_ms[1], 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(f.b[1], 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(f.a_ms[2], 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(f.b[2], 1, 0);
	/* One observation against one pseudo-observation: half way. */
	CU_ASSERT(btc_calib_predict(&f, &s[0]) > 2.2 && btc_calib_predict(&f, &s[0]) < 2.9);
	btc_calib_fit_free(&f);
	s[1].measured_ms = NAN;
	s[0].measured_ms = NAN;
	btc_calib_fit(s, 2, 3, NULL, &o, &f);
	CU_ASSERT_DOUBLE_EQUAL(btc_calib_predict(&f, &s[0]), 2, 1e-12);
	btc_calib_fit_free(&f);
	struct btc_calib_schedule io = {c, 2, 7.5, NAN};
	CU_ASSERT_DOUBLE_EQUAL(btc_calib_period(&io), 7.5, 0);
}

/* Leave-one-out: schedule 4's measurement made an outlier (x 5) leaves its
 * LOO prediction exactly where it was (the held-out point is never read),
 * near the true period, while the full fit moves towards it. */
static void test_loo(void)
{
	build();
	struct btc_calib_options o;
	btc_calib_options_init(&o);
	o.prior_weight = 1e-9;
	double before[N], after[N];
	btc_calib_loo(sched, N, 2, &o, before);
	double truth = sched[4].measured_ms;
	CU_ASSERT_DOUBLE_EQUAL(before[4], truth, 1e-4);
	sched[4].measured_ms = 5 * truth;
	btc_calib_loo(sched, N, 2, &o, after);
	CU_ASSERT_EQUAL(memcmp(&before[4], &after[4], sizeof(double)), 0);
	CU_ASSERT_DOUBLE_EQUAL(after[4], truth, 1e-4);
	struct btc_calib_fit f;
	btc_calib_fit(sched, N, 2, NULL, &o, &f);
	CU_ASSERT(btc_calib_predict(&f, &sched[4]) > truth * 1.05);
	btc_calib_fit_free(&f);
	/* The others' LOO predictions do see it (it is in their fits). */
	bool moved = false;
	for (int k = 0; k < N; k++)
		moved |= k != 4 && fabs(after[k] - before[k]) > 1e-6;
	CU_ASSERT(moved);
}

static void test_metrics(void)
{
	double p[] = {1, 2, 3, NAN, 4}, m[] = {1.1, 1.9, 3.3, 9, 4.0};
	struct btc_calib_metrics x;
	btc_calib_metrics(p, m, 5, &x);
	CU_ASSERT_EQUAL(x.n, 4);
	CU_ASSERT_DOUBLE_EQUAL(x.spearman_rho, 1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(x.max_abs_rel_err, 0.1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(x.median_abs_rel_err, 0.075, 1e-12);
	CU_ASSERT_EQUAL(x.predicted_best, 0);
	CU_ASSERT_EQUAL(x.measured_best, 0);
	CU_ASSERT_TRUE(x.best_within_5pct);
	double m2[] = {1.1, 1.0, 3, 9, 4};
	btc_calib_metrics(p, m2, 5, &x);
	CU_ASSERT_EQUAL(x.measured_best, 1);
	CU_ASSERT_FALSE(x.best_within_5pct);
}

int register_calib_suite(void)
{
	CU_pSuite s = CU_add_suite("calib", NULL, NULL);
	return !s || !CU_add_test(s, "recovers a and b", test_recovers) ||
	       !CU_add_test(s, "prior", test_prior) ||
	       !CU_add_test(s, "leave one out", test_loo) ||
	       !CU_add_test(s, "metrics", test_metrics);
}
