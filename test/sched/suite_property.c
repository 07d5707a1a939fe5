/* Property test: 500 random tables (2 to 10 stages, 2 to 5 PUs, missing
 * kernels, deliberate ties), each with random options, for each objective:
 * Z3 and the exhaustive enumerator give the same ranking (hence the same
 * optimum), no candidate twice, every candidate satisfies C1-C3 and the
 * options. Fixed seed; a private generator so every libc gives the same
 * tables. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "suites.h"

#define N_TABLES 500

static uint64_t rng_state;

static uint32_t rnd(void)
{
	/* splitmix64 */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (uint32_t)((z ^ (z >> 31)) >> 32);
}

static int rnd_in(int lo, int hi) /* inclusive */
{
	return lo + (int)(rnd() % (uint32_t)(hi - lo + 1));
}

static void test_random_tables(void)
{
	rng_state = 20241121;
	int compared = 0, with_candidates = 0;
	for (int t = 0; t < N_TABLES; t++) {
		int n = rnd_in(2, 10), np = rnd_in(2, 5);
		double time_ms[10 * 5];
		bool coarse = rnd_in(0, 9) < 3; /* many equal sums: ties */
		for (int i = 0; i < n; i++) {
			int have = 0;
			for (int c = 0; c < np; c++) {
				double v = coarse ? 0.5 * rnd_in(0, 8)
						  : rnd_in(1, 200000) / 1e4;
				bool missing = rnd_in(0, 9) < 2;
				time_ms[i * np + c] = missing ? NAN : v;
				have += !missing;
			}
			if (!have)
				time_ms[i * np + rnd_in(0, np - 1)] =
					rnd_in(1, 200000) / 1e4;
		}
		struct btc_sched_problem p = { .n_stages = n, .n_pus = np,
					       .time_ms = time_ms };
		struct btc_sched_options o;
		btc_sched_options_init(&o);
		int pin[10];
		o.top_k = rnd_in(1, 25);
		static const int utils[] = { 0, 25, 50, 75, 100 };
		o.util_pct = utils[rnd_in(0, 4)];
		if (rnd_in(0, 4) == 0)
			o.forbid_mask = 1u << rnd_in(0, np - 1);
		if (rnd_in(0, 4) == 0)
			o.max_chunks = rnd_in(2, np);
		if (rnd_in(0, 4) == 0) {
			for (int i = 0; i < n; i++)
				pin[i] = -1;
			int i = rnd_in(0, n - 1), c = rnd_in(0, np - 1);
			if (!isnan(time_ms[i * np + c]) &&
			    !(o.forbid_mask & (1u << c))) {
				pin[i] = c;
				o.pin = pin;
			}
		}
		for (int ob = 0; ob < 3; ob++) {
			o.objective = (enum btc_sched_objective)ob;
			struct btc_diag d;
			btc_diag_init(&d, NULL);
			struct btc_sched_result z, e;
			/* the first 100 tables also through the one-by-one
			 * fallback (window of 1 schedule) */
			btc_sched_z3_window_cap = t < 100 ? 1 : 0;
			enum btc_status sz = btc_sched_solve_z3(&p, &o, &z, &d);
			btc_sched_z3_window_cap = 0;
			enum btc_status se =
				btc_sched_solve_exhaustive(&p, &o, &e, &d);
			CU_ASSERT_EQUAL(sz, se);
			if (sz == BTC_OK && se == BTC_OK) {
				char what[64];
				snprintf(what, sizeof(what),
					 "table %d (%dx%d, K %d, U %d) %s", t,
					 n, np, o.top_k, o.util_pct,
					 btc_sched_objective_name(o.objective));
				CU_ASSERT(z.optimal);
				same_ranking(what, &z, &e);
				no_duplicates(&z);
				for (int k = 0; k < z.n_candidates; k++)
					check_candidate(&p, &o,
							&z.candidates[k]);
				compared++;
				with_candidates += z.n_candidates > 0;
			}
			btc_sched_result_free(&z);
			btc_sched_result_free(&e);
		}
	}
	/* the generator must exercise the solvers, not only corner cases */
	CU_ASSERT(compared >= 3 * N_TABLES * 9 / 10);
	CU_ASSERT(with_candidates >= compared * 3 / 4);
}

int register_property_suite(void)
{
	CU_pSuite s = CU_add_suite("property", NULL, NULL);
	if (!s || !CU_add_test(s, "500 random tables: z3 == exhaustive",
			       test_random_tables))
		return -1;
	return 0;
}
