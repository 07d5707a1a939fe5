/* driver/workload_capacity: the fluid bound with each PU's capacity
 * measured in the job's other joint runs, on synthetic reports where the
 * GPU runs two streams' chunks at once (a CUDA GPU delivers more than one
 * PU-ms of table work per ms), against hand-solved LPs. The time-shared
 * bound (capacity 1) lies below the measured M there: the old bound fails,
 * the new one holds. */
#include <math.h>
#include <string.h>

#include "driver/workload_capacity.h"
#include "suites.h"

/* Two apps of one stage each, a stream each, on PUs 0 "cpu" (4 ms) and 1
 * "gpu" (1 ms); weights 1 / P* = 1 (the solo on the gpu, 1 ms). Fluid,
 * time-shared: the gpu does 1 task/ms, the cpu 1/4, shared by two
 * streams at rate theta each: theta = 1.25 / 2 = 0.625. With the gpu's
 * capacity kappa: theta = (kappa + 0.25) / 2. */
static const double two_t[2] = {4, 1};
static struct btc_sched_problem two_p = {.n_stages = 1, .n_pus = 2, .time_ms = two_t};
static struct btc_multi_stream two_st[2] = {{.p = &two_p, .app = 0, .weight = 1},
					    {.p = &two_p, .app = 1, .weight = 1}};
static const struct btc_multi_problem two_m = {
	.n_streams = 2, .n_pus = 2, .streams = two_st, .top_k = 1};
static const int on_gpu[2] = {1, 1};
static const int *const two_cand[2] = {on_gpu, on_gpu};

/* One run per candidate (a report's medians): the chosen 0 at 750
 * tasks/s per stream (M 0.75), candidate 1 at 800 (a gpu load of 1.6). */
static void test_concurrent_gpu(void)
{
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	double old;
	CU_ASSERT_EQUAL_FATAL(btc_multi_bound(&two_m, &old, &d), BTC_OK);
	CU_ASSERT_DOUBLE_EQUAL(old, 0.625, 1e-9);
	double m = 0.75;
	CU_ASSERT(m > old); /* the time-shared bound does not bound this run */
	const double r0[2] = {750, 750}, r1[2] = {800, 800};
	const double *const rate[2] = {r0, r1};
	const int run_cand[2] = {0, 1};
	struct btc_workload_capacity c;
	CU_ASSERT_TRUE_FATAL(btc_workload_capacity_problem(&two_m, NULL, NULL, two_cand, 2, 2,
							   run_cand, rate, 0, &c, &d));
	CU_ASSERT_DOUBLE_EQUAL(c.load[0 * 2 + 1], 1.5, 1e-12); /* the chosen's gpu */
	CU_ASSERT_DOUBLE_EQUAL(c.load[1 * 2 + 1], 1.6, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(c.load[1 * 2 + 0], 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(c.kappa[1], 1.6, 1e-12); /* from run 1 only */
	CU_ASSERT_DOUBLE_EQUAL(c.kappa[0], 1, 0);
	CU_ASSERT_EQUAL(c.n_from, 1);
	CU_ASSERT_EQUAL(c.n_judged, 1);
	CU_ASSERT_EQUAL(c.judged, 0);
	CU_ASSERT_FALSE(c.capacity_exceeded);
	CU_ASSERT_DOUBLE_EQUAL(c.bound, (1.6 + 0.25) / 2, 1e-9);
	CU_ASSERT(m <= c.bound);
	btc_workload_capacity_free(&c);
	/* the judged run delivered more than the other: it is not in its own
	 * capacity (kappa 1.6 < its 1.8), and this is reported */
	const double r2[2] = {900, 900};
	const double *const rate2[2] = {r2, r1};
	CU_ASSERT_TRUE_FATAL(btc_workload_capacity_problem(&two_m, NULL, NULL, two_cand, 2, 2,
							   run_cand, rate2, 0, &c, &d));
	CU_ASSERT_DOUBLE_EQUAL(c.kappa[1], 1.6, 1e-12);
	CU_ASSERT_TRUE(c.capacity_exceeded);
	btc_workload_capacity_free(&c);
	/* no other run (one candidate, one run): kappa 1, the old bound */
	CU_ASSERT_TRUE_FATAL(btc_workload_capacity_problem(&two_m, NULL, NULL, two_cand, 2, 1,
							   run_cand, rate, 0, &c, &d));
	CU_ASSERT_EQUAL(c.n_from, 0);
	CU_ASSERT_DOUBLE_EQUAL(c.kappa[1], 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(c.bound, old, 1e-12);
	btc_workload_capacity_free(&c);
	CU_ASSERT_EQUAL(d.errors, 0);
}

/* Rounds of the chosen (a report's rounds_tasks_per_s): 700, 750, 900
 * tasks/s per stream (gpu loads 1.4, 1.5, 1.8), candidate 1's one run
 * 800 (1.6). B_i leaves out run i: 1.8 for the first two (theta 1.025),
 * 1.6 for the third (0.925); the bound is the lower median, 1.025, of a
 * round that the others' capacity covers. */
static void test_rounds(void)
{
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	const double a[2] = {700, 700}, b[2] = {750, 750}, x[2] = {900, 900}, o[2] = {800, 800};
	const double *const rate[4] = {a, b, x, o};
	const int run_cand[4] = {0, 0, 0, 1};
	struct btc_workload_capacity c;
	CU_ASSERT_TRUE_FATAL(btc_workload_capacity_problem(&two_m, NULL, NULL, two_cand, 2, 4,
							   run_cand, rate, 0, &c, &d));
	CU_ASSERT_EQUAL(c.n_judged, 3);
	CU_ASSERT_EQUAL(c.n_from, 3);
	CU_ASSERT(c.judged == 0 || c.judged == 1);
	CU_ASSERT_DOUBLE_EQUAL(c.kappa[1], 1.8, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(c.bound, (1.8 + 0.25) / 2, 1e-9);
	CU_ASSERT_FALSE(c.capacity_exceeded);
	btc_workload_capacity_free(&c);
}

/* In M's units: the gpu's times x2 (cal->scale), solo periods 2 ms,
 * weights w / 2. The other run's 400 tasks/s per stream load the scaled
 * gpu 0.4 x 2 x 2 = 1.6; fluid: the gpu 1.6 / 2 = 0.8 tasks/ms, the cpu
 * 0.25, r = theta / 2 each: theta = 1.05. */
static void test_calibrated(void)
{
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	struct btc_workload_calib cal;
	memset(&cal, 0, sizeof(cal));
	cal.n_apps = 2;
	cal.n_pus = 2;
	for (int a = 0; a < 2; a++) {
		cal.scale[a][0] = 1;
		cal.scale[a][1] = 2;
		cal.io_scale[a] = 1;
		cal.measured_ms[a] = 2;
	}
	const double w[2] = {1, 1}, r0[2] = {350, 350}, r1[2] = {400, 400};
	const double *const rate[2] = {r0, r1};
	const int run_cand[2] = {0, 1};
	struct btc_workload_capacity c;
	CU_ASSERT_TRUE_FATAL(btc_workload_capacity_problem(&two_m, &cal, w, two_cand, 2, 2,
							   run_cand, rate, 0, &c, &d));
	CU_ASSERT_DOUBLE_EQUAL(c.load[1 * 2 + 1], 1.6, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(c.kappa[1], 1.6, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(c.bound, 1.05, 1e-9);
	/* the measured M: 350 tasks/s x 2 ms = 0.7 */
	CU_ASSERT(0.7 <= c.bound);
	btc_workload_capacity_free(&c);
}

/* A plan made with @share rows (kappa_gpu(2) = 1.3): the measured
 * capacity never falls below the plan's row, so the bound is never below
 * the plan's own (theta (1.3 + 0.25) / 2 without any other run), and a
 * load above it raises it (1.6: as in test_concurrent_gpu). */
static void test_planned_capacity(void)
{
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	double cap[2 * 3] = {1, 1, 1, 1, 1, 1.3}; /* [p * (S + 1) + n] */
	struct btc_multi_problem m = two_m;
	m.capacity = cap;
	double plan;
	CU_ASSERT_EQUAL_FATAL(btc_multi_bound(&m, &plan, &d), BTC_OK);
	CU_ASSERT_DOUBLE_EQUAL(plan, (1.3 + 0.25) / 2, 1e-9);
	const double r0[2] = {750, 750}, r1[2] = {800, 800}, low[2] = {500, 500};
	const double *const rate[2] = {r0, low};
	const int run_cand[2] = {0, 1};
	struct btc_workload_capacity c;
	CU_ASSERT_TRUE_FATAL(btc_workload_capacity_problem(&m, NULL, NULL, two_cand, 2, 2, run_cand,
							   rate, 0, &c, &d));
	CU_ASSERT_DOUBLE_EQUAL(c.hi[1], 1.3, 0);
	CU_ASSERT_DOUBLE_EQUAL(c.kappa[1], 1.3, 0); /* the other run's 1.0 is below */
	CU_ASSERT_DOUBLE_EQUAL(c.bound, plan, 1e-12);
	btc_workload_capacity_free(&c);
	const double *const rate2[2] = {r0, r1};
	CU_ASSERT_TRUE_FATAL(btc_workload_capacity_problem(&m, NULL, NULL, two_cand, 2, 2, run_cand,
							   rate2, 0, &c, &d));
	CU_ASSERT_DOUBLE_EQUAL(c.kappa[1], 1.6, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(c.bound, (1.6 + 0.25) / 2, 1e-9);
	btc_workload_capacity_free(&c);
}

int register_workload_capacity_suite(void)
{
	CU_pSuite s = CU_add_suite("workload-capacity", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "a concurrent GPU: the old bound fails, the measured one holds",
		    test_concurrent_gpu);
	CU_add_test(s, "rounds of the chosen, each left out", test_rounds);
	CU_add_test(s, "in the calibrated units", test_calibrated);
	CU_add_test(s, "never below the plan's capacity", test_planned_capacity);
	return 0;
}
