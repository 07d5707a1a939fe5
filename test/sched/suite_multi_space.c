/* The joint model's larger space (sched/multi.h, farms and core splits;
 * docs/scheduler.md "Farms and core splits in the joint space"): a
 * hand-solved workload (a split's k / n x t_k load and its team's own
 * limit, a farm's load on each member), and 300 random small workloads
 * with farms and splits (a quarter with same-PU capacities) on which
 * the branch and bound, the occupancy
 * search and the exhaustive oracle rank the same (vectors and costs),
 * btc_multi_solve answers as they do, every candidate re-evaluates to its
 * cost and decodes to a schedule, and the fluid bound lies at or above the
 * best; and 60 random workloads of three streams (three apps or two)
 * with farms, core splits and co-run slowdowns at once, K up to 20, on
 * which every solver ranks as the oracle. Fixed seed, a private
 * generator. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "sched/multi.h"
#include "multi_testlib.h"
#include "suites.h"

/* One app of two stages on a 4-core CPU (PU 0; 1 and 2 cores profiled)
 * and a GPU (PU 1). Stage times on all cores 2, 2; on 2 cores 3, 3; on 1
 * core 5, 5; on the GPU 4, 4. */
static const double hand_t[] = {2, 4, 2, 4};
static const struct btc_sched_cores hand_cores[] = {{.size = 4, .n_counts = 2, .counts = {1, 2}},
						    {0}};
static double hand_k[2 * 2 * BTC_SCHED_MAX_CORE_COUNTS];

static void test_hand(void)
{
	for (size_t i = 0; i < sizeof(hand_k) / sizeof(hand_k[0]); i++)
		hand_k[i] = NAN;
	for (int i = 0; i < 2; i++) {
		hand_k[btc_sched_cores_index(2, i, 0, 0)] = 5;
		hand_k[btc_sched_cores_index(2, i, 0, 1)] = 3;
	}
	struct btc_sched_problem p = {.n_stages = 2, .n_pus = 2, .time_ms = hand_t,
				      .cores = hand_cores, .time_cores_ms = hand_k};
	struct btc_multi_stream st = {.p = &p, .weight = 1};
	struct btc_multi_problem m = {.n_streams = 1, .n_pus = 2, .streams = &st, .top_k = 200,
				      .core_splits = true};
	/* options in code order: 0 cpu, 1 cpu[1], 2 cpu[2], 3 gpu; entries
	 * 2 o + cut. cpu[2]:0, cpu[2]:1 (a cut): load 2/4 x 3 x 2 = 3 on the
	 * CPU, each team 3 ms: cost 3. */
	int split2[] = {4, 5};
	struct btc_multi_eval e;
	CU_ASSERT_FATAL(btc_multi_evaluate(&m, split2, &e));
	CU_ASSERT_DOUBLE_EQUAL(e.cost, 3, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(e.t[0], 3, 1e-12);
	btc_multi_eval_free(&e);
	/* cpu[1]:0 cpu[1]:1: load 2 x 1/4 x 5 = 2.5, but each team takes 5
	 * ms a task: its own limit binds (bottleneck -1 - S - 0) */
	int split1[] = {2, 3};
	CU_ASSERT_FATAL(btc_multi_evaluate(&m, split1, &e));
	CU_ASSERT_DOUBLE_EQUAL(e.cost, 5, 1e-12);
	CU_ASSERT_EQUAL(e.bottleneck, -2);
	btc_multi_eval_free(&e);
	/* cpu[2] and cpu[1] side by side on 3 of 4 cores: fits; cpu[2] twice
	 * and cpu[1] would not (one stage each: only two stages) */
	int mixed[] = {4, 2};
	CU_ASSERT_FATAL(btc_multi_evaluate(&m, mixed, &e));
	CU_ASSERT_DOUBLE_EQUAL(e.cost, 5, 1e-12); /* cpu[1]'s 5 ms team */
	btc_multi_eval_free(&e);
	/* a cut where the option changes is no schedule */
	int bad[] = {4, 3};
	CU_ASSERT_FALSE(btc_multi_evaluate(&m, bad, &e));
	btc_multi_eval_free(&e);
	/* cpu on all cores and cpu[1] together exceed the 4 cores */
	int over[] = {0, 2};
	CU_ASSERT_FALSE(btc_multi_evaluate(&m, over, &e));
	btc_multi_eval_free(&e);

	/* farms: options 0 cpu, 1 {cpu,gpu}, 2 gpu. The farm over both
	 * stages: members 4 and 8 ms, rate sum 1/4 + 1/8: 8/3 ms, loading
	 * both PUs 8/3 per task. */
	m.core_splits = false;
	m.farms = true;
	int farm[] = {2, 2};
	CU_ASSERT_FATAL(btc_multi_evaluate(&m, farm, &e));
	CU_ASSERT_DOUBLE_EQUAL(e.cost, 8.0 / 3, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(e.t[0], 8.0 / 3, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(e.t[1], 8.0 / 3, 1e-12);
	btc_multi_eval_free(&e);
	struct btc_sched_chunk ch[2];
	CU_ASSERT_EQUAL(btc_multi_stream_schedule(&m, 0, farm, ch), 1);
	CU_ASSERT_EQUAL(ch[0].farm, 3u);
	/* the ranking: the farm (8/3) beats cpu:0 gpu:1 (4) and cpu (4) */
	struct btc_multi_result r;
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	CU_ASSERT_EQUAL_FATAL(btc_multi_solve(&m, &r, &d), BTC_OK);
	CU_ASSERT(r.n >= 3);
	CU_ASSERT(!memcmp(r.c[0].a, farm, sizeof(farm)));
	btc_multi_result_free(&r);
	/* Z3 stays on the paper's space */
	CU_ASSERT_EQUAL(btc_multi_solve_z3(&m, &r, &d), BTC_ERR_USAGE);
	btc_multi_result_free(&r);
}

enum { MS = 3, MN = 3, MP = 3 };

static void test_random(void)
{
	multi_seed(20261126);
	int compared = 0, with_split = 0, with_farm = 0, best_split = 0, best_farm = 0;
	int with_kappa = 0;
	for (int k = 0; k < 300; k++) {
		int np = multi_rnd(2, MP), S = multi_rnd(1, MS);
		enum btc_multi_objective obj = (enum btc_multi_objective)(k % 9 == 0 ? 2 : k % 2);
		if (obj == BTC_MULTI_SUM && S > 2)
			S = 2;
		int n_apps = multi_rnd(1, S);
		static double t[MS][MN * MP], f[MS][MP], tk[MS][MN * MP * BTC_SCHED_MAX_CORE_COUNTS];
		static struct btc_sched_cores cores[MS][MP];
		struct btc_sched_problem p[MS];
		struct btc_multi_stream st[MS];
		for (int a = 0; a < n_apps; a++) {
			int n = multi_rnd(1, obj == BTC_MULTI_SUM ? 2 : MN);
			for (int i = 0; i < n; i++)
				for (int c = 0; c < np; c++)
					t[a][i * np + c] = c > 0 && multi_rnd(0, 7) == 0 ? NAN
										: multi_rnd(1, 400) / 40.0;
			p[a] = (struct btc_sched_problem){.n_stages = n, .n_pus = np,
							  .time_ms = t[a]};
			/* PU 0 a CPU of 2..4 cores with 1..2 profiled counts */
			memset(cores[a], 0, sizeof(cores[a]));
			int size = multi_rnd(2, 4), nc = multi_rnd(1, size - 1 < 2 ? size - 1 : 2);
			cores[a][0].size = size;
			cores[a][0].n_counts = nc;
			for (int j = 0; j < nc; j++)
				cores[a][0].counts[j] = j == 0 ? multi_rnd(1, size - nc) : cores[a][0].counts[j - 1] + 1;
			for (size_t j = 0; j < sizeof(tk[a]) / sizeof(double); j++)
				tk[a][j] = NAN;
			for (int i = 0; i < n; i++)
				for (int j = 0; j < nc; j++) /* slower on fewer cores, speedup below linear */
					tk[a][btc_sched_cores_index(np, i, 0, j)] =
						t[a][i * np] * size / cores[a][0].counts[j] *
						multi_rnd(40, 100) / 100.0;
			p[a].cores = cores[a];
			p[a].time_cores_ms = tk[a];
			if (multi_rnd(0, 2) == 0) {
				for (int c = 0; c < np; c++)
					f[a][c] = multi_rnd(0, 40) / 40.0;
				p[a].fixed_ms = f[a];
				p[a].io_ms = multi_rnd(0, 3) ? 0 : multi_rnd(1, 400) / 40.0;
			}
		}
		for (int s = 0; s < S; s++) {
			int a = s < n_apps ? s : multi_rnd(0, n_apps - 1);
			st[s] = (struct btc_multi_stream){.p = &p[a], .app = a,
							  .weight = multi_rnd(0, 1) ? 1 : multi_rnd(1, 4),
							  .rate = multi_rnd(1, 200) / 1e3};
		}
		double slow[MS][MP * MP];
		struct btc_multi_problem m = {.n_streams = S, .n_pus = np, .streams = st,
					      .objective = obj, .top_k = multi_rnd(1, 6)};
		int sp = multi_rnd(1, 3);
		m.farms = sp & 1;
		m.core_splits = sp & 2;
		m.farm_max_pus = multi_rnd(0, 1) ? 0 : 2;
		with_farm += m.farms;
		with_split += m.core_splits;
		if (multi_rnd(0, 2) == 0) {
			for (int a = 0; a < n_apps; a++)
				for (int j = 0; j < np * np; j++)
					slow[a][j] = multi_rnd(0, 3) ? 1 + multi_rnd(0, 40) / 40.0 : 0.5;
			for (int s = 0; s < S; s++)
				st[s].slowdown = slow[st[s].app];
		}
		if (multi_rnd(0, 5) == 0)
			m.forbid_mask = 1u << multi_rnd(1, np - 1);
		static double kappa[MP * (MS + 1)];
		if (multi_rnd(0, 3) == 0) { /* same-PU capacities kappa_p(n), 0.5..2 */
			for (int j = 0; j < np * (S + 1); j++)
				kappa[j] = multi_rnd(20, 80) / 40.0;
			m.capacity = kappa;
			with_kappa++;
		}
		struct btc_multi_result b, r[3];
		enum btc_status rb = multi_run(btc_multi_solve_exhaustive, &m, &b);
		if (rb == BTC_ERR_LIMIT) { /* too many vectors for the oracle */
			btc_multi_result_free(&b);
			continue;
		}
		static const struct multi_solver sv[] = {{btc_multi_solve, "solve"},
							 {btc_multi_solve_bb, "bb"},
							 {btc_multi_solve_occupancy, "occupancy"}};
		if (multi_check_solvers(&m, rb, &b, 3, sv, r, k, "")) {
			compared++;
			for (int i = 0; i < b.n; i++) {
				CU_ASSERT(btc_multi_canonical(&m, b.c[i].a));
				struct btc_multi_eval e;
				CU_ASSERT(btc_multi_evaluate(&m, b.c[i].a, &e));
				CU_ASSERT(e.cost == b.c[i].cost);
				btc_multi_eval_free(&e);
				struct btc_sched_chunk ch[MN];
				for (int s = 0; s < S; s++) {
					int nc = btc_multi_stream_schedule(
						&m, s, b.c[i].a + btc_multi_offset(&m, s), ch);
					CU_ASSERT(nc >= 1);
					for (int j = 0; i == 0 && j < nc; j++) {
						best_split += ch[j].cores > 0;
						best_farm += ch[j].farm != 0;
					}
				}
			}
			multi_check_bound(&m, multi_best_of_cost(&m, b.c[0].cost), k, "");
		}
		btc_multi_result_free(&b);
		multi_results_free(r, 3);
	}
	CU_ASSERT(compared >= 250);
	CU_ASSERT(with_farm >= 100);
	CU_ASSERT(with_split >= 100);
	CU_ASSERT(with_kappa >= 50);
	/* the larger space's chunks win some workloads */
	CU_ASSERT(best_split >= 20);
	CU_ASSERT(best_farm >= 20);
	printf(" (%d compared; best with a split chunk %d, a farm %d) ", compared, best_split,
	       best_farm);
}

/* Three apps (a quarter of the workloads: two streams of one app, the
 * third of another), farms, core splits and co-run slowdowns at once on
 * 3 PUs, K up to 20 (the occupancy search's cuts by the K-th cost run
 * early and often): every solver ranks as the oracle. */
static void test_three_apps(void)
{
	multi_seed(20261127);
	int compared = 0;
	for (int k = 0; k < 60; k++) {
		enum { NP = 3 };
		static double t[3][MN * NP], tk[3][MN * NP * BTC_SCHED_MAX_CORE_COUNTS];
		static double slow[3][NP * NP];
		static struct btc_sched_cores cores[3][NP];
		struct btc_sched_problem p[3];
		struct btc_multi_stream st[3];
		int n_apps = k % 4 == 3 ? 2 : 3;
		for (int a = 0; a < n_apps; a++) {
			/* 2 or 3 stages, one app of 1: the oracle's limit */
			int n = a == 0 ? 1 : multi_rnd(2, 3);
			for (int i = 0; i < n; i++)
				for (int c = 0; c < NP; c++)
					t[a][i * NP + c] = c > 0 && multi_rnd(0, 9) == 0 ? NAN
										: multi_rnd(1, 400) / 40.0;
			memset(cores[a], 0, sizeof(cores[a]));
			cores[a][0] = (struct btc_sched_cores){.size = 4, .n_counts = 2,
							      .counts = {1, multi_rnd(2, 3)}};
			for (size_t j = 0; j < sizeof(tk[a]) / sizeof(double); j++)
				tk[a][j] = NAN;
			for (int i = 0; i < n; i++)
				for (int j = 0; j < 2; j++)
					tk[a][btc_sched_cores_index(NP, i, 0, j)] =
						t[a][i * NP] * 4 / cores[a][0].counts[j] *
						multi_rnd(40, 100) / 100.0;
			for (int j = 0; j < NP * NP; j++)
				slow[a][j] = multi_rnd(0, 5) ? 1 + multi_rnd(0, 40) / 40.0 : 0.5;
			p[a] = (struct btc_sched_problem){.n_stages = n, .n_pus = NP,
							  .time_ms = t[a], .cores = cores[a],
							  .time_cores_ms = tk[a]};
		}
		for (int s = 0; s < 3; s++) {
			int a = s < n_apps ? s : n_apps - 1;
			st[s] = (struct btc_multi_stream){.p = &p[a], .app = a,
							  .weight = multi_rnd(0, 1) ? 1 : multi_rnd(1, 4),
							  .rate = multi_rnd(1, 200) / 1e3,
							  .slowdown = slow[a]};
		}
		struct btc_multi_problem m = {.n_streams = 3, .n_pus = NP, .streams = st,
					      .objective = (enum btc_multi_objective)(k % 2),
					      .top_k = multi_rnd(1, 20), .farms = true,
					      .core_splits = true};
		struct btc_multi_result b, r[3];
		enum btc_status rb = multi_run(btc_multi_solve_exhaustive, &m, &b);
		if (rb == BTC_ERR_LIMIT) {
			btc_multi_result_free(&b);
			continue;
		}
		static const struct multi_solver sv[] = {{btc_multi_solve, "solve"},
							 {btc_multi_solve_bb, "bb"},
							 {btc_multi_solve_occupancy, "occupancy"}};
		if (multi_check_solvers(&m, rb, &b, 3, sv, r, k, "three/"))
			compared++;
		btc_multi_result_free(&b);
		multi_results_free(r, 3);
	}
	CU_ASSERT(compared >= 50);
	printf(" (%d compared) ", compared);
}

int register_multi_space_tests(CU_pSuite s);

int register_multi_space_tests(CU_pSuite s)
{
	if (!CU_add_test(s, "larger space: splits and farms by hand", test_hand) ||
	    !CU_add_test(s, "300 random workloads with farms and splits: bb = occupancy = oracle",
			 test_random) ||
	    !CU_add_test(s, "60 random 3-app workloads with farms, splits and slowdowns: = oracle",
			 test_three_apps))
		return -1;
	return 0;
}
