/* Same-PU capacities in the joint model (sched/multi.h, kappa_p(n): PU
 * p delivers kappa_p(n) profiled PU-ms per ms while n streams' chunks
 * share it): hand-solved cases where a capacity above 1 makes sharing
 * one PU beat splitting and one below 1 the reverse, and random small
 * workloads with capacities on both sides of 1 where Z3, the branch and
 * bound, the occupancy search and btc_multi_solve rank exactly as the
 * exhaustive oracle and the fluid bound stays at or above the best.
 * Part of the "multi" suite (sched-multi); fixed seed, private generator. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "sched/multi.h"
#include "suites.h"

static unsigned long share_rng;

static int rnd(int lo, int hi)
{
	share_rng = share_rng * 6364136223846793005UL + 1442695040888963407UL;
	return lo + (int)((share_rng >> 33) % (unsigned long)(hi - lo + 1));
}

static bool same(const struct btc_multi_result *x, const struct btc_multi_result *y, int n,
		 int k, const char *what)
{
	bool ok = x->n == y->n;
	for (int i = 0; i < x->n && i < y->n; i++) {
		bool eq = x->c[i].cost == y->c[i].cost &&
			  !memcmp(x->c[i].a, y->c[i].a, (size_t)n * sizeof(int));
		if (!eq)
			fprintf(stderr, "\n    %s workload %d rank %d: %.17g vs %.17g", what, k, i,
				x->c[i].cost, y->c[i].cost);
		ok &= eq;
	}
	return ok;
}

typedef enum btc_status (*solver_fn)(const struct btc_multi_problem *, struct btc_multi_result *,
				     struct btc_diag *);

static enum btc_status run(solver_fn f, const struct btc_multi_problem *m,
			   struct btc_multi_result *r)
{
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	return f(m, r, &d);
}

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
	CU_ASSERT_EQUAL_FATAL(run(btc_multi_solve, &m, &r), BTC_OK);
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
	share_rng = 27062026;
	int compared = 0, above = 0, below = 0;
	for (int k = 0; k < 200; k++) {
		int np = rnd(2, 3), n_apps = rnd(1, 2), S = rnd(2, 4);
		int max_n = S == 4 ? 2 : 3;
		static double t[2][3 * 3], f[2][3], slow[2][9], cap[3 * 5];
		struct btc_sched_problem p[2];
		struct btc_multi_stream st[4];
		for (int a = 0; a < n_apps; a++) {
			int n = rnd(1, max_n);
			for (int i = 0; i < n * np; i++)
				t[a][i] = i % np > 0 && rnd(0, 9) == 0 ? NAN : rnd(1, 30) / 8.0;
			p[a] = (struct btc_sched_problem){.n_stages = n, .n_pus = np, .time_ms = t[a]};
			if (rnd(0, 3) == 0) {
				for (int c = 0; c < np; c++)
					f[a][c] = rnd(0, 10) / 16.0;
				p[a].fixed_ms = f[a];
				p[a].io_ms = rnd(0, 3) ? 0 : rnd(1, 40) / 8.0;
			}
			for (int j = 0; j < np * np; j++)
				slow[a][j] = 1 + rnd(0, 8) / 8.0;
		}
		bool with_slow = rnd(0, 3) == 0;
		for (int s = 0; s < S; s++) {
			int a = s < n_apps ? s : rnd(0, n_apps - 1);
			st[s] = (struct btc_multi_stream){.p = &p[a], .app = a,
							  .weight = rnd(0, 3) ? 1 : 2,
							  .rate = rnd(0, 3) ? 0.25 : 0.5,
							  .slowdown = with_slow ? slow[a] : NULL};
		}
		for (int s = 1; s < S; s++)
			for (int j = s; j > 0 && st[j - 1].app > st[j].app; j--) {
				struct btc_multi_stream tmp = st[j];
				st[j] = st[j - 1];
				st[j - 1] = tmp;
			}
		/* kappa_p(n) from 0.5 to 2 in eighths (1 in a third of them) */
		for (int c = 0; c < np; c++)
			for (int n = 0; n <= S; n++)
				cap[c * (S + 1) + n] = n < 2 || rnd(0, 2) == 0 ? 1 : rnd(4, 16) / 8.0;
		struct btc_multi_problem m = {
			.n_streams = S, .n_pus = np, .streams = st, .top_k = rnd(1, 8),
			.capacity = cap,
			.objective = rnd(0, 2) ? BTC_MULTI_MAXMIN : BTC_MULTI_RATES};
		if (rnd(0, 4) == 0)
			m.forbid_mask = 1u << rnd(1, np - 1);
		struct btc_multi_result o, z, b, q, dflt;
		enum btc_status ro = run(btc_multi_solve_exhaustive, &m, &o),
				rz = run(btc_multi_solve_z3, &m, &z),
				rb = run(btc_multi_solve_bb, &m, &b),
				rq = run(btc_multi_solve_occupancy, &m, &q),
				rd = run(btc_multi_solve, &m, &dflt);
		CU_ASSERT_EQUAL(rz, ro);
		CU_ASSERT_EQUAL(rb, ro);
		CU_ASSERT_EQUAL(rq, ro);
		CU_ASSERT_EQUAL(rd, ro);
		if (ro == BTC_OK && rz == BTC_OK && rb == BTC_OK && rq == BTC_OK && rd == BTC_OK) {
			compared++;
			int N = btc_multi_offset(&m, S);
			CU_ASSERT(same(&z, &o, N, k, "share z3/oracle"));
			CU_ASSERT(same(&b, &o, N, k, "share bb/oracle"));
			CU_ASSERT(same(&q, &o, N, k, "share occupancy/oracle"));
			CU_ASSERT(same(&dflt, &o, N, k, "share default/oracle"));
			struct btc_multi_eval e;
			CU_ASSERT_FATAL(btc_multi_evaluate(&m, o.c[0].a, &e));
			CU_ASSERT(e.cost == o.c[0].cost);
			for (int c = 0; c < np; c++) {
				above += e.kappa[c] > 1;
				below += e.kappa[c] < 1;
			}
			double bound;
			struct btc_diag d;
			btc_diag_init(&d, NULL);
			CU_ASSERT_EQUAL(btc_multi_bound(&m, &bound, &d), BTC_OK);
			if (!(bound >= e.lambda * (1 - 1e-9)))
				fprintf(stderr, "\n    share workload %d: bound %.17g below %.17g", k,
					bound, e.lambda);
			CU_ASSERT(bound >= e.lambda * (1 - 1e-9));
			btc_multi_eval_free(&e);
		}
		btc_multi_result_free(&o);
		btc_multi_result_free(&z);
		btc_multi_result_free(&b);
		btc_multi_result_free(&q);
		btc_multi_result_free(&dflt);
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
