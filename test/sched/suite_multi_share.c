/* Same-PU capacities in the joint model (sched/multi.h, kappa_p(n): PU
 * p delivers kappa_p(n) profiled PU-ms per ms while n streams' chunks
 * share it): hand-solved cases where a capacity above 1 makes sharing
 * one PU beat splitting and one below 1 the reverse, and random small
 * workloads with capacities on both sides of 1 where Z3, the branch and
 * bound, the occupancy search and btc_multi_solve rank exactly as the
 * exhaustive oracle and the fluid bound stays at or above the best.
 * Part of the "multi" suite (sched-multi); fixed seed, private generator. */
#include <stdio.h>

#include <CUnit/CUnit.h>

#include "sched/multi.h"
#include "multi_testlib.h"
#include "suites.h"

/* Two equal one-stage streams on two PUs, the stage 1 ms on PU 0 and
 * `other` ms on PU 1; capacity kappa_0(2) = k0. */
static void best_of(double other, double k0, int *a, double *cost, double *kap)
{
	const double t[] = {1, other};
	struct btc_sched_problem p = {.n_stages = 1, .n_pus = 2, .time_ms = t};
	struct btc_multi_stream st[2] = {{.p = &p, .weight = 1}, {.p = &p, .weight = 1}};
	double cap[2 * 3] = {1, 1, k0, 1, 1, 1};
	struct btc_multi_problem m = {.n_streams = 2, .n_pus = 2, .streams = st, .top_k = 3,
				      .capacity = cap};
	struct btc_multi_result r;
	CU_ASSERT_EQUAL_FATAL(multi_run(btc_multi_solve, &m, &r), BTC_OK);
	a[0] = r.c[0].a[0];
	a[1] = r.c[0].a[1];
	*cost = r.c[0].cost;
	struct btc_multi_eval e;
	CU_ASSERT_FATAL(btc_multi_evaluate(&m, r.c[0].a, &e));
	CU_ASSERT_EQUAL(e.cost, r.c[0].cost);
	*kap = e.kappa[0];
	CU_ASSERT(e.peak <= 1 + 1e-12);
	double bound;
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	CU_ASSERT_EQUAL(btc_multi_bound(&m, &bound, &d), BTC_OK);
	CU_ASSERT(bound >= e.lambda * (1 - 1e-12));
	btc_multi_eval_free(&e);
	btc_multi_result_free(&r);
}

static void test_share_hand(void)
{
	int a[2];
	double cost, kap;
	/* kappa 1: apart (1 | 1.5) costs 1.5 against 2 together */
	best_of(1.5, 1.0, a, &cost, &kap);
	CU_ASSERT(a[0] != a[1] && cost == 1.5 && kap == 1);
	/* kappa 1.6: both on PU 0 cost 2 / 1.6 = 1.25 */
	best_of(1.5, 1.6, a, &cost, &kap);
	CU_ASSERT(a[0] == 0 && a[1] == 0 && cost == 2 / 1.6 && kap == 1.6);
	/* other 3: together (2) beats apart (3) at kappa 1; at 0.5 together
	 * costs 4 and apart wins */
	best_of(3, 1.0, a, &cost, &kap);
	CU_ASSERT(a[0] == 0 && a[1] == 0 && cost == 2);
	best_of(3, 0.5, a, &cost, &kap);
	CU_ASSERT(a[0] != a[1] && cost == 3 && kap == 1);
}

static void test_share_random(void)
{
	multi_seed(27062026);
	int compared = 0, above = 0, below = 0;
	for (int k = 0; k < 200; k++) {
		static struct multi_streams w;
		multi_rnd_apps(&w);
		multi_rnd_streams(&w, multi_rnd(0, 3) == 0);
		int np = w.np, S = w.S;
		static double cap[3 * 5];
		/* kappa_p(n) from 0.5 to 2 in eighths (1 in a third of them) */
		for (int c = 0; c < np; c++)
			for (int n = 0; n <= S; n++)
				cap[c * (S + 1) + n] =
					n < 2 || multi_rnd(0, 2) == 0 ? 1 : multi_rnd(4, 16) / 8.0;
		struct btc_multi_problem m = {
			.n_streams = S, .n_pus = np, .streams = w.st, .top_k = multi_rnd(1, 8),
			.capacity = cap,
			.objective = multi_rnd(0, 2) ? BTC_MULTI_MAXMIN : BTC_MULTI_RATES};
		if (multi_rnd(0, 4) == 0)
			m.forbid_mask = 1u << multi_rnd(1, np - 1);
		static const struct multi_solver sv[] = {{btc_multi_solve_z3, "z3"},
							 {btc_multi_solve_bb, "bb"},
							 {btc_multi_solve_occupancy, "occupancy"},
							 {btc_multi_solve, "default"}};
		struct btc_multi_result o, r[4];
		enum btc_status ro = multi_run(btc_multi_solve_exhaustive, &m, &o);
		if (multi_check_solvers(&m, ro, &o, 4, sv, r, k, "share ")) {
			compared++;
			struct btc_multi_eval e;
			CU_ASSERT_FATAL(btc_multi_evaluate(&m, o.c[0].a, &e));
			CU_ASSERT(e.cost == o.c[0].cost);
			for (int c = 0; c < np; c++) {
				above += e.kappa[c] > 1;
				below += e.kappa[c] < 1;
			}
			multi_check_bound(&m, e.lambda, k, "share ");
			btc_multi_eval_free(&e);
		}
		btc_multi_result_free(&o);
		multi_results_free(r, 4);
	}
	CU_ASSERT(compared >= 150);
	/* the best schedules share PUs with capacities on both sides of 1 */
	CU_ASSERT(above >= 20);
	CU_ASSERT(below >= 5);
	fprintf(stderr, "\n    share: %d compared, best shares a PU at kappa > 1: %d, < 1: %d\n",
		compared, above, below);
}

int register_multi_share_tests(void *suite)
{
	CU_pSuite s = suite;
	if (!CU_add_test(s, "same-PU capacity: sharing against splitting", test_share_hand) ||
	    !CU_add_test(s, "200 random workloads with same-PU capacities: every solver = oracle",
			 test_share_random))
		return -1;
	return 0;
}
