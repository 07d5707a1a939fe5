/* The 12 reference tables (pixel7a and jetson-orin-nano x octree,
 * alexnet-dense, alexnet-sparse x isolated, interference): for every
 * objective, the Z3 ranking must be exactly the exhaustive oracle's, and
 * every reported time the sum recomputed from the table. Each table is
 * solved with the default options and with a restricted variant (K = 7, at
 * most 3 chunks, and little forbidden or stage 0 pinned), 24 problems. */
#include <stdio.h>
#include <stdlib.h>

#include <CUnit/CUnit.h>

#include "ref_table.h"
#include "suites.h"
#include "testutil.h"

static const char *const modes[] = { "isolated", "interference" };

static void solve_both(const char *label, const struct btc_sched_problem *p,
		       const struct btc_sched_options *o)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_sched_result z, e;
	CU_ASSERT_EQUAL(btc_sched_solve_z3(p, o, &z, &d), BTC_OK);
	CU_ASSERT_EQUAL(btc_sched_solve_exhaustive(p, o, &e, &d), BTC_OK);
	CU_ASSERT(z.optimal);
	char what[256];
	snprintf(what, sizeof(what), "%s %s", label,
		 btc_sched_objective_name(o->objective));
	same_ranking(what, &z, &e);
	no_duplicates(&z);
	for (int k = 0; k < z.n_candidates; k++)
		check_candidate(p, o, &z.candidates[k]);
	if (o->objective == BTC_SCHED_BT) {
		CU_ASSERT_EQUAL(z.gstar_q, e.gstar_q);
		/* the utilisation filter holds for every candidate */
		int64_t num = o->util_pct, den = 100;
		for (int k = 0; k < z.n_candidates; k++)
			CU_ASSERT(num * z.candidates[k].tmax_q -
					  den * z.candidates[k].tmin_q <=
				  den * z.gstar_q);
	}
	/* at least one candidate where a multi-chunk schedule exists */
	CU_ASSERT(z.n_candidates > 0);
	CU_ASSERT(z.n_candidates <= o->top_k);
	btc_sched_result_free(&z);
	btc_sched_result_free(&e);
}

static void test_reference_tables(void)
{
	for (int dv = 0; dv < 2; dv++)
		for (int ap = 0; ap < 3; ap++)
			for (int md = 0; md < 2; md++) {
				char path[512], label[128];
				struct ref_table t;
				CU_ASSERT_FATAL(ref_table_load_named(btc_test_data("profiles"),
								     ref_devices[dv], ref_apps[ap],
								     modes[md], path, sizeof(path),
								     &t) == 0);
				struct btc_sched_problem p = ref_table_problem(&t);
				for (int variant = 0; variant < 2; variant++) {
					int pin[64];
					struct btc_sched_options o;
					btc_sched_options_init(&o);
					if (variant) {
						o.top_k = 7;
						o.max_chunks = 3;
						for (int i = 0; i < t.n_stages; i++)
							pin[i] = -1;
						if (t.n_pus > 2) {
							o.forbid_mask = 1; /* little */
						} else {
							pin[0] = 0;
							o.pin = pin;
						}
					}
					for (int ob = 0; ob < 3; ob++) {
						o.objective = (enum btc_sched_objective)ob;
						snprintf(label, sizeof(label),
							 "%s/%s/%s%s", ref_devices[dv],
							 ref_apps[ap], modes[md],
							 variant ? " (restricted)" : "");
						solve_both(label, &p, &o);
					}
				}
				ref_table_free(&t);
			}
}

/* The reference implementation ranked by gapness alone and returned the
 * all-little schedule first; here no candidate is homogeneous, and every
 * homogeneous schedule is a baseline. */
static void test_baselines_apart(void)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/pixel7a/octree/interference.csv",
		 btc_test_data("profiles"));
	struct ref_table t;
	CU_ASSERT_FATAL(ref_table_load(path, &t) == 0);
	struct btc_sched_problem p = ref_table_problem(&t);
	struct btc_sched_options o;
	btc_sched_options_init(&o);
	o.objective = BTC_SCHED_GAPNESS;
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_sched_result r;
	CU_ASSERT_EQUAL(btc_sched_solve_z3(&p, &o, &r, &d), BTC_OK);
	CU_ASSERT_EQUAL(r.n_candidates, 20);
	for (int k = 0; k < r.n_candidates; k++)
		CU_ASSERT(r.candidates[k].n_chunks >= 2);
	CU_ASSERT_EQUAL(r.n_baselines, 4);
	CU_ASSERT_EQUAL(r.baselines[r.best_baseline].pu, 2); /* big */
	for (int k = 0; k < r.n_baselines; k++)
		CU_ASSERT(r.baselines[k].time_ms >=
			  r.baselines[r.best_baseline].time_ms);
	btc_sched_result_free(&r);
	ref_table_free(&t);
}

/* the reference tables */
static int init(void)
{
	return btc_test_need_data("profiles");
}

int register_oracle_suite(void)
{
	CU_pSuite s = CU_add_suite("oracle", init, NULL);
	if (!s ||
	    !CU_add_test(s, "24 reference problems x 3 objectives",
			 test_reference_tables) ||
	    !CU_add_test(s, "homogeneous schedules are baselines",
			 test_baselines_apart))
		return -1;
	return 0;
}
