/* The larger space (issue 16): the farm and core-count time formulas on
 * hand-computed examples, hand-checked rankings, the table's NAME[k] rows,
 * and Z3 against the exhaustive oracle on random tables with farms and
 * core counts for every objective. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "front/app.h"
#include "front/device.h"
#include "front/table.h"
#include "sched/model.h"
#include "sched/plan.h"
#include "sched/space.h"
#include "rng.h"
#include "suites.h"

/* 1 / (1/3 + 1/6) = 2; with F = (0.5, 1): 1 / (1/3.5 + 1/7) = 7/3; a
 * member at 0 ms makes the farm 0. */
static void test_farm_formula(void)
{
	double a[] = { 3, 6 }, b[] = { 3.5, 7 }, c[] = { 2, 0, 5 };
	CU_ASSERT_DOUBLE_EQUAL(btc_model_farm_ms(a, 2), 2.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(btc_model_farm_ms(b, 2), 7.0 / 3.0, 1e-12);
	CU_ASSERT_EQUAL(btc_model_farm_ms(c, 3), 0.0);
	double d[] = { 4, 4, 4, 4 };
	CU_ASSERT_DOUBLE_EQUAL(btc_model_farm_ms(d, 4), 1.0, 1e-12);

	/* stages 0..1 on PUs 0 (cpu, 2 cores, 1-core times) and 1 (gpu) */
	double t[] = { 1, 2, 2, 4 };
	double fixed[] = { 0.5, 1 };
	struct btc_sched_cores cores[2] = { { 2, 1, { 1 } }, { 0, 0, { 0 } } };
	double tc[2 * 2 * BTC_SCHED_MAX_CORE_COUNTS];
	for (size_t k = 0; k < sizeof(tc) / sizeof(*tc); k++)
		tc[k] = NAN;
	tc[btc_sched_cores_index(2, 0, 0, 0)] = 1.5;
	tc[btc_sched_cores_index(2, 1, 0, 0)] = 3.5;
	struct btc_sched_problem p = { .n_stages = 2, .n_pus = 2,
				       .time_ms = t, .cores = cores,
				       .time_cores_ms = tc };
	struct btc_sched_chunk farm = { 0, 0, 1, 0, 3u, 0 };
	struct btc_sched_chunk one = { 0, 0, 1, 0, 0, 1 };
	/* cpu: 1 + 2 = 3, gpu: 2 + 4 = 6 */
	CU_ASSERT_DOUBLE_EQUAL(btc_model_chunk_time_ms(&p, &farm), 2.0, 1e-12);
	/* one core: 1.5 + 3.5 */
	CU_ASSERT_DOUBLE_EQUAL(btc_model_chunk_time_ms(&p, &one), 5.0, 1e-12);
	p.fixed_ms = fixed;
	CU_ASSERT_DOUBLE_EQUAL(btc_model_chunk_time_ms(&p, &farm), 7.0 / 3.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(btc_model_chunk_time_ms(&p, &one), 5.5, 1e-12);
	/* an unprofiled count has no time */
	struct btc_sched_chunk three = { 0, 0, 1, 0, 0, 3 };
	CU_ASSERT(isnan(btc_model_chunk_time_ms(&p, &three)));
}

/* Farms that never lose: {1 ms, 10 ms} over one stage needs 10
 * TaskObjects beyond one per worker (the fast worker finishes 10 while the
 * slow one holds the oldest task): pool 2 + 1 + 10, period 1 / (1 + 1/10).
 * {1 ms, 100 ms} would need 100 > BTRT_FARM_EXTRA_MAX: the slow member is
 * left idle, the farm predicts the fast one alone (1 ms, pool 3), never
 * more; the farm beside a chunk adds that chunk's TaskObject. The
 * optimizer's candidates carry the same pool (check_space_candidate). */
static void test_farm_pool(void)
{
	double t[] = { 1, 10, 100, 2, 2, 2 };
	struct btc_sched_problem p = { .n_stages = 2, .n_pus = 3, .time_ms = t };
	struct btc_schedule s = { .n_chunks = 1 };
	s.chunks[0] = (struct btc_sched_chunk){ 0, 0, 0, 0, 3u, 0 };
	btc_model_fill_times(&p, &s);
	CU_ASSERT_DOUBLE_EQUAL(s.chunks[0].time_ms, 1.0 / 1.1, 1e-12);
	CU_ASSERT_EQUAL(s.pool, 2 + 1 + 10);
	int extra;
	CU_ASSERT_EQUAL(btc_model_farm_admitted(&p, &s.chunks[0], &extra), 3u);
	CU_ASSERT_EQUAL(extra, 10);
	s.chunks[0].farm = 5u; /* {1 ms, 100 ms} */
	btc_model_fill_times(&p, &s);
	CU_ASSERT_DOUBLE_EQUAL(s.chunks[0].time_ms, 1.0, 1e-12);
	CU_ASSERT_EQUAL(btc_model_farm_admitted(&p, &s.chunks[0], &extra), 1u);
	CU_ASSERT_EQUAL(extra, 0);
	CU_ASSERT_EQUAL(s.pool, 2 + 1);
	/* all three: 100 ms is left out, the others need 10 */
	s.chunks[0].farm = 7u;
	btc_model_fill_times(&p, &s);
	CU_ASSERT_DOUBLE_EQUAL(s.chunks[0].time_ms, 1.0 / 1.1, 1e-12);
	CU_ASSERT_EQUAL(s.pool, 3 + 1 + 10);
	/* a farm of stage 0 and an ordinary chunk of stage 1 */
	s.n_chunks = 2;
	s.chunks[0].farm = 3u;
	s.chunks[1] = (struct btc_sched_chunk){ 2, 1, 1, 0, 0, 0 };
	btc_model_fill_times(&p, &s);
	CU_ASSERT_EQUAL(s.pool, 2 + 1 + 1 + 10);
	/* never above the fastest member, whatever the times */
	double m[4] = { 3, 0.5, 7, 200 };
	for (int n = 1; n <= 4; n++)
		CU_ASSERT_TRUE(btc_model_farm_ms(m, n) <= 0.5 || (n == 1 && btc_model_farm_ms(m, 1) == 3));
	int64_t q[3] = { 1000, 100000, 2000 };
	CU_ASSERT_EQUAL(btc_space_farm_q(q, 3), 667); /* 1 / (1/1000 + 1/2000), 100000 idle */
}

static void solve_both(const struct btc_sched_problem *p, const struct btc_sched_options *o,
		       struct btc_sched_result *z)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_sched_result e;
	CU_ASSERT_EQUAL_FATAL(btc_sched_solve_z3(p, o, z, &d), BTC_OK);
	CU_ASSERT_EQUAL_FATAL(btc_sched_solve_exhaustive(p, o, &e, &d), BTC_OK);
	same_ranking("hand example", z, &e);
	for (int k = 0; k < z->n_candidates; k++)
		check_space_candidate(p, o, &z->candidates[k]);
	btc_sched_result_free(&e);
}

/* Stage 0 takes 1 ms and stage 1 5 ms on both PUs: the paper's best is
 * 5 ms (one stage per PU); the farm of both over both stages takes
 * 1 / (1/6 + 1/6) = 3 ms and is rank 1. */
static void test_farm_wins(void)
{
	double t[] = { 1, 1, 5, 5 };
	struct btc_sched_problem p = { .n_stages = 2, .n_pus = 2, .time_ms = t };
	struct btc_sched_options o;
	btc_sched_options_init(&o);
	o.objective = BTC_SCHED_LATENCY;
	struct btc_sched_result z;
	solve_both(&p, &o, &z);
	CU_ASSERT_EQUAL(z.n_candidates, 2);
	CU_ASSERT_DOUBLE_EQUAL(z.candidates[0].tmax_ms, 5.0, 1e-12);
	btc_sched_result_free(&z);

	o.farms = true;
	solve_both(&p, &o, &z);
	/* the farm over both, then the two pipelines */
	CU_ASSERT_EQUAL_FATAL(z.n_candidates, 3);
	const struct btc_sched_chunk *ch = &z.candidates[0].chunks[0];
	CU_ASSERT_EQUAL(z.candidates[0].n_chunks, 1);
	CU_ASSERT_EQUAL(ch->farm, 3u);
	CU_ASSERT_EQUAL(ch->pu, 0);
	CU_ASSERT_EQUAL(ch->cores, 0);
	CU_ASSERT_EQUAL(ch->last_stage, 1);
	CU_ASSERT_DOUBLE_EQUAL(z.candidates[0].tmax_ms, 3.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(z.candidates[0].gapness_ms, 0.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(btc_sched_speedup(&z, &z.candidates[0]), 2.0, 1e-12);
	btc_sched_result_free(&z);
}

/* One CPU PU of 4 cores, 3 stages of 4 ms (all cores), 5 ms on 2 cores
 * and 8 ms on 1: the paper has no candidate (one PU); split, three 1-core
 * chunks take 8 ms at gapness 0, then the three ways to give one stage 2
 * cores (8 ms, gapness 3) in vector order: 1-core chunks first. */
static void test_core_split_wins(void)
{
	double t[] = { 4, 4, 4 };
	struct btc_sched_cores cores[1] = { { 4, 2, { 1, 2 } } };
	double tc[3 * BTC_SCHED_MAX_CORE_COUNTS];
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < BTC_SCHED_MAX_CORE_COUNTS; j++)
			tc[btc_sched_cores_index(1, i, 0, j)] = NAN;
		tc[btc_sched_cores_index(1, i, 0, 0)] = 8;
		tc[btc_sched_cores_index(1, i, 0, 1)] = 5;
	}
	struct btc_sched_problem p = { .n_stages = 3, .n_pus = 1, .time_ms = t,
				       .cores = cores, .time_cores_ms = tc };
	struct btc_sched_options o;
	btc_sched_options_init(&o);
	o.objective = BTC_SCHED_LATENCY;
	struct btc_sched_result z;
	solve_both(&p, &o, &z);
	CU_ASSERT_EQUAL(z.n_candidates, 0);
	CU_ASSERT_EQUAL(z.n_baselines, 1);
	btc_sched_result_free(&z);

	o.core_splits = true;
	solve_both(&p, &o, &z);
	CU_ASSERT_FATAL(z.n_candidates >= 4);
	static const int want[4][3] = {
		{ 1, 1, 1 }, { 1, 1, 2 }, { 1, 2, 1 }, { 2, 1, 1 }
	};
	for (int r = 0; r < 4; r++) {
		const struct btc_schedule *s = &z.candidates[r];
		CU_ASSERT_DOUBLE_EQUAL(s->tmax_ms, 8.0, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(s->gapness_ms, r ? 3.0 : 0.0, 1e-12);
		CU_ASSERT_EQUAL_FATAL(s->n_chunks, 3);
		for (int k = 0; k < 3; k++)
			CU_ASSERT_EQUAL(s->chunks[k].cores, want[r][k]);
	}
	/* cheaper than the whole PU: 8 / 12 */
	CU_ASSERT_DOUBLE_EQUAL(btc_sched_speedup(&z, &z.candidates[0]), 1.5, 1e-12);
	btc_sched_result_free(&z);
}

/* ---- the table's NAME[k] rows ---- */

static const char app_text[] =
	"app: demo\n"
	"buffers:\n  - {name: x, type: f32, count: 16}\n"
	"stages:\n"
	"  - {name: a, cpu: a_cpu}\n"
	"  - {name: b, cpu: b_cpu}\n";
static const char dev_text[] =
	"device: testdev\nos: linux\narch: aarch64\npus:\n"
	"  - {name: little, kind: cpu, cores: [0, 1, 2, 3]}\n"
	"  - {name: big, kind: cpu, cores: [4]}\n"
	"  - {name: gpu, kind: vulkan}\n";
#define HDR "stage,pu,mode,mean_ms,stddev_ms,samples\n"
#define FULL "a,little,isolated,2,0.1,30\na,big,isolated,1,0.1,30\n" \
	     "b,little,isolated,4,0.2,30\nb,big,isolated,3,0.1,30\n"

static struct btc_app *app;
static struct btc_device *dev;

static struct btc_table *load(const char *text, struct btc_diag *d)
{
	btc_diag_init(d, NULL);
	return btc_table_load("t.csv", text, app, dev, BTC_MODE_INTERFERENCE, d);
}

static void expect_table_error(const char *text, const char *msg)
{
	struct btc_diag d;
	struct btc_table *t = load(text, &d);
	CU_ASSERT_PTR_NULL(t);
	if (!strstr(d.last, msg))
		fprintf(stderr, "\n    expected: %s\n    got:      %s\n", msg, d.last);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.last, msg));
	btc_table_free(t);
}

static void test_table_cores(void)
{
	struct btc_diag d;
	/* counts in any order; stored ascending, written back, read again */
	struct btc_table *t = load(HDR FULL "a,little[2],isolated,3,0.1,30\n"
				   "b,little[2],isolated,6,0.1,30\n"
				   "a,little[1],isolated,5,0.1,30\n"
				   "b,little[1],isolated,9,0.1,30\n", &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->n_core_counts[0], 2);
	CU_ASSERT_EQUAL(t->core_counts[0][0], 1);
	CU_ASSERT_EQUAL(t->core_counts[0][1], 2);
	CU_ASSERT_EQUAL(t->n_core_counts[1], 0);
	CU_ASSERT_DOUBLE_EQUAL(btc_table_cores_at(t, BTC_MODE_ISOLATED, 1, 0, 0)->mean_ms, 9, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(btc_table_cores_at(t, BTC_MODE_ISOLATED, 0, 0, 1)->mean_ms, 3, 1e-12);
	/* the mode's "all cores" times are unchanged */
	CU_ASSERT_DOUBLE_EQUAL(btc_table_at(t, BTC_MODE_ISOLATED, 0, 0)->mean_ms, 2, 1e-12);

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	btc_table_write(t, app, dev, f);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "b,little[1],isolated,9.000000,0.100000,30\n"));
	struct btc_table *t2 = load(text, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t2);
	CU_ASSERT_EQUAL(t2->n_core_counts[0], 2);
	CU_ASSERT_DOUBLE_EQUAL(btc_table_cores_at(t2, BTC_MODE_ISOLATED, 1, 0, 1)->mean_ms, 6,
			       1e-12);

	/* the problem the optimizer gets: little has 4 cores, counts 1, 2 */
	struct btc_plan_buf pb;
	btc_plan_buf_init(&pb, app, dev);
	struct btc_sched_problem p;
	CU_ASSERT_FATAL(btc_plan_problem(app, dev, t, BTC_MODE_ISOLATED, true, &p, &pb, &d));
	CU_ASSERT_PTR_NOT_NULL_FATAL(p.cores);
	CU_ASSERT_EQUAL(p.cores[0].size, 4);
	CU_ASSERT_EQUAL(p.cores[0].n_counts, 2);
	CU_ASSERT_EQUAL(p.cores[1].size, 1);
	CU_ASSERT_EQUAL(p.cores[1].n_counts, 0);
	CU_ASSERT_EQUAL(p.cores[2].size, 0);
	CU_ASSERT_DOUBLE_EQUAL(p.time_cores_ms[btc_sched_cores_index(3, 0, 0, 1)], 3, 1e-12);
	btc_plan_buf_free(&pb);
	free(text);
	btc_table_free(t2);
	btc_table_free(t);

	/* a table without NAME[k] rows has no core counts */
	t = load(HDR FULL, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	btc_plan_buf_init(&pb, app, dev);
	CU_ASSERT_FATAL(btc_plan_problem(app, dev, t, BTC_MODE_ISOLATED, true, &p, &pb, &d));
	CU_ASSERT_PTR_NULL(p.cores);
	CU_ASSERT_PTR_NULL(p.time_cores_ms);
	btc_plan_buf_free(&pb);
	btc_table_free(t);
}

static void test_table_core_errors(void)
{
	expect_table_error(HDR FULL "a,little[4],isolated,3,0.1,30\n",
			   "t.csv:6:3: error: 'little[4]': core count 4 outside 1..3 "
			   "(PU 'little' has 4 cores; 'little' alone means all of them)");
	expect_table_error(HDR FULL "a,big[1],isolated,3,0.1,30\n",
			   "'big[1]': core count 1 outside 1..0");
	expect_table_error(HDR FULL "a,gpu[1],isolated,3,0.1,30\n",
			   "'gpu[1]': core counts apply to CPU PUs only, and 'gpu' is vulkan");
	expect_table_error(HDR FULL "a,little[x],isolated,3,0.1,30\n",
			   "PU field 'little[x]' is not NAME or NAME[CORES]");
	expect_table_error(HDR FULL "a,little[2,isolated,3,0.1,30\n",
			   "not NAME or NAME[CORES]");
	expect_table_error(HDR FULL "a,huge[2],isolated,3,0.1,30\n",
			   "unknown PU 'huge' (device 'testdev')");
	expect_table_error(HDR FULL "a,little[2],isolated,3,0.1,30\n"
			   "a,little[2],isolated,3,0.1,30\n",
			   "duplicate row for stage a on PU little[2] (isolated)");
	/* a count timed in a mode must time every stage there */
	expect_table_error(HDR FULL "a,little[2],isolated,3,0.1,30\n",
			   "table lacks stage 2 'b' on PU 'little[2]' (isolated)");
}

static int table_init(void)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	app = btc_app_load("demo.yaml", app_text, NULL, 0, &d);
	dev = btc_device_load("dev.yaml", NULL, dev_text, &d);
	return !app || !dev;
}

static int table_cleanup(void)
{
	btc_app_free(app);
	btc_device_free(dev);
	return 0;
}

/* ---- random tables: Z3 == oracle ---- */

#define N_SPACE_TABLES 300

static void test_random_space(void)
{
	rng_state = 20261123;
	int compared = 0, with_farm = 0, with_split = 0;
	for (int t = 0; t < N_SPACE_TABLES; t++) {
		int n = rnd_in(2, 7), np = rnd_in(1, 4);
		double time_ms[7 * 4], fixed[4], tc[7 * 4 * BTC_SCHED_MAX_CORE_COUNTS];
		double xfer[7 * 4 * 7];
		struct btc_sched_cores cores[4];
		bool coarse = rnd_in(0, 9) < 3;
		for (size_t k = 0; k < sizeof(tc) / sizeof(*tc); k++)
			tc[k] = NAN;
		for (int c = 0; c < np; c++) {
			/* a CPU PU of 2..4 cores with 0..2 profiled counts */
			bool cpu = rnd_in(0, 2) > 0;
			cores[c] = (struct btc_sched_cores){ cpu ? rnd_in(2, 4) : 0, 0, { 0 } };
			for (int k = 1; cpu && k < cores[c].size; k++)
				if (rnd_in(0, 1) && cores[c].n_counts < 2)
					cores[c].counts[cores[c].n_counts++] = k;
		}
		for (int i = 0; i < n; i++) {
			int have = 0;
			for (int c = 0; c < np; c++) {
				double v = coarse ? 0.5 * rnd_in(0, 8) : rnd_in(1, 200000) / 1e4;
				bool missing = rnd_in(0, 9) < 2;
				time_ms[i * np + c] = missing ? NAN : v;
				have += !missing;
				for (int j = 0; !missing && j < cores[c].n_counts; j++) {
					/* slower on fewer cores, or arbitrary */
					double s = (double)cores[c].size / cores[c].counts[j];
					double w = rnd_in(0, 3) ? v * s * rnd_in(5, 10) / 10.0
							       : rnd_in(0, 200000) / 1e4;
					tc[btc_sched_cores_index(np, i, c, j)] =
						coarse ? 0.5 * round(w * 2) : round(w * 1e4) / 1e4;
				}
			}
			if (!have) {
				int c = rnd_in(0, np - 1);
				time_ms[i * np + c] = rnd_in(1, 200000) / 1e4;
			}
		}
		struct btc_sched_problem p = { .n_stages = n, .n_pus = np, .time_ms = time_ms,
					       .cores = cores, .time_cores_ms = tc };
		if (rnd_in(0, 3) == 0) {
			for (int c = 0; c < np; c++)
				fixed[c] = rnd_in(0, 1) ? rnd_in(0, 20000) / 1e4 : 0;
			p.fixed_ms = fixed;
			p.io_ms = rnd_in(0, 1) ? rnd_in(0, 30000) / 1e4 : 0;
			if (rnd_in(0, 1)) {
				for (size_t k = 0; k < (size_t)n * np * n; k++)
					xfer[k] = coarse ? 0.5 * rnd_in(0, 2) : rnd_in(0, 20000) / 1e4;
				p.xfer_ms = xfer;
			}
		}
		struct btc_sched_options o;
		btc_sched_options_init(&o);
		int kind = rnd_in(0, 2);
		o.farms = kind != 1;
		o.core_splits = kind != 0;
		static const int most[] = { 0, 2, 3 };
		o.farm_max_pus = most[rnd_in(0, 2)];
		o.top_k = rnd_in(1, 25);
		static const int utils[] = { 0, 25, 50, 75, 100 };
		o.util_pct = utils[rnd_in(0, 4)];
		int pin[7];
		if (np > 1 && rnd_in(0, 5) == 0)
			o.forbid_mask = 1u << rnd_in(0, np - 1);
		if (rnd_in(0, 5) == 0)
			o.max_chunks = rnd_in(2, 4);
		if (rnd_in(0, 5) == 0)
			o.pin = rnd_pin(pin, time_ms, n, np, o.forbid_mask);
		for (int ob = 0; ob < 3; ob++) {
			o.objective = (enum btc_sched_objective)ob;
			struct btc_diag d;
			btc_diag_init(&d, NULL);
			struct btc_sched_result z, e;
			/* a fifth through the one-at-a-time paths (window of
			 * 1), a fifth through bt's window instead of its walk */
			btc_sched_z3_window_cap = t % 5 == 0 ? 1 : 0;
			btc_space_walk_steps = t % 5 == 1 ? 1 : 0;
			enum btc_status sz = btc_sched_solve_z3(&p, &o, &z, &d);
			btc_sched_z3_window_cap = 0;
			btc_space_walk_steps = 0;
			enum btc_status se = btc_sched_solve_exhaustive(&p, &o, &e, &d);
			CU_ASSERT_EQUAL(sz, se);
			if (sz == BTC_OK && se == BTC_OK) {
				char what[96];
				snprintf(what, sizeof(what),
					 "space table %d (%dx%d, K %d, U %d, farms %d, splits %d) %s",
					 t, n, np, o.top_k, o.util_pct, o.farms, o.core_splits,
					 btc_sched_objective_name(o.objective));
				CU_ASSERT(z.optimal);
				same_ranking(what, &z, &e);
				no_duplicates(&z);
				if (o.objective == BTC_SCHED_BT)
					CU_ASSERT_EQUAL(z.gstar_q, e.gstar_q);
				for (int k = 0; k < z.n_candidates; k++) {
					const struct btc_schedule *s = &z.candidates[k];
					check_space_candidate(&p, &o, s);
					for (int j = 0; j < s->n_chunks; j++) {
						with_farm += s->chunks[j].farm != 0;
						with_split += s->chunks[j].cores != 0;
					}
				}
				compared++;
			}
			btc_sched_result_free(&z);
			btc_sched_result_free(&e);
		}
	}
	/* the tables must exercise farms and splits, not corner cases only */
	CU_ASSERT(compared >= 3 * N_SPACE_TABLES * 9 / 10);
	CU_ASSERT(with_farm > 100);
	CU_ASSERT(with_split > 100);
}

/* Farms and splits off: the same result as without the new fields, bytes
 * included (the paper's space, the paper's code path). */
static void test_off_is_paper(void)
{
	double t[] = { 1, 2, 3, 4, 5, 6, 2, 2, 1 };
	struct btc_sched_cores cores[3] = { { 4, 1, { 2 } }, { 0, 0, { 0 } }, { 0, 0, { 0 } } };
	double tc[3 * 3 * BTC_SCHED_MAX_CORE_COUNTS];
	for (size_t k = 0; k < sizeof(tc) / sizeof(*tc); k++)
		tc[k] = 1;
	struct btc_sched_problem a = { .n_stages = 3, .n_pus = 3, .time_ms = t };
	struct btc_sched_problem b = a;
	b.cores = cores;
	b.time_cores_ms = tc;
	for (int ob = 0; ob < 3; ob++) {
		struct btc_sched_options o;
		btc_sched_options_init(&o);
		o.objective = (enum btc_sched_objective)ob;
		struct btc_diag d;
		btc_diag_init(&d, stderr);
		struct btc_sched_result x, y;
		CU_ASSERT_EQUAL(btc_sched_solve_z3(&a, &o, &x, &d), BTC_OK);
		CU_ASSERT_EQUAL(btc_sched_solve_z3(&b, &o, &y, &d), BTC_OK);
		same_ranking("splits off", &x, &y);
		CU_ASSERT_EQUAL(x.n_checks, y.n_checks);
		btc_sched_result_free(&x);
		btc_sched_result_free(&y);
	}
}

/* The time budget in the larger space: 32 stages x 8 PUs with farms and
 * splits cannot be solved in 1 ms; the result says so, and whatever it
 * holds is valid. */
static void test_space_budget(void)
{
	enum { N = 32, P = 8 };
	double t[N * P], tc[N * P * BTC_SCHED_MAX_CORE_COUNTS];
	struct btc_sched_cores cores[P];
	rng_state = 7;
	for (size_t k = 0; k < sizeof(tc) / sizeof(*tc); k++)
		tc[k] = NAN;
	for (int c = 0; c < P; c++) {
		cores[c] = (struct btc_sched_cores){ c < 4 ? 4 : 0, c < 4 ? 2 : 0, { 1, 2 } };
		for (int i = 0; i < N; i++) {
			t[i * P + c] = rnd_in(1000, 100000) / 1e4;
			for (int j = 0; j < cores[c].n_counts; j++)
				tc[btc_sched_cores_index(P, i, c, j)] =
					t[i * P + c] * 4 / cores[c].counts[j] * 0.8;
		}
	}
	struct btc_sched_problem p = { .n_stages = N, .n_pus = P, .time_ms = t,
				       .cores = cores, .time_cores_ms = tc };
	for (int ob = 0; ob < 3; ob++) {
		struct btc_sched_options o;
		btc_sched_options_init(&o);
		o.objective = (enum btc_sched_objective)ob;
		o.farms = o.core_splits = true;
		o.time_budget_ms = 1;
		struct btc_diag d;
		btc_diag_init(&d, stderr);
		struct btc_sched_result r;
		CU_ASSERT_EQUAL(btc_sched_solve_z3(&p, &o, &r, &d), BTC_OK);
		CU_ASSERT_FALSE(r.optimal);
		for (int k = 0; k < r.n_candidates; k++)
			check_space_candidate(&p, &o, &r.candidates[k]);
		btc_sched_result_free(&r);
	}
}

int register_space_suite(void)
{
	CU_pSuite s = CU_add_suite("space", table_init, table_cleanup);
	if (!s || !CU_add_test(s, "farm and core-count times", test_farm_formula) ||
	    !CU_add_test(s, "a farm beats the paper's best", test_farm_wins) ||
	    !CU_add_test(s, "a farm's pool, a member left idle", test_farm_pool) ||
	    !CU_add_test(s, "core splits on one PU", test_core_split_wins) ||
	    !CU_add_test(s, "table NAME[k] rows", test_table_cores) ||
	    !CU_add_test(s, "table NAME[k] errors", test_table_core_errors) ||
	    !CU_add_test(s, "off: the paper's space", test_off_is_paper) ||
	    !CU_add_test(s, "time budget", test_space_budget) ||
	    !CU_add_test(s, "300 random tables with farms and core counts: z3 == exhaustive",
			 test_random_space))
		return -1;
	return 0;
}
