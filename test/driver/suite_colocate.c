/* driver/colocate: the statistics of the workload job's measurements
 * over synthetic runs (colocate_internal.h): the solo rate r* per app,
 * the max-min normalised throughput M per run, racing, the paired gains,
 * the stop rule, the result's figures, the streams' common window and
 * the tasks per stream. No program runs. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "driver/colocate_internal.h"
#include "suites.h"

/* Two streams of two apps, weights 1 and 2, K joint candidates. */
static const char *const names2[] = {"a#0", "b#0"};
static const int app2[] = {0, 1};
static const double weight2[] = {1, 2};
static const long solo2[] = {1, 1};
static const long joint2[] = {0, 0, 0, 1, 1, 0};

static struct btc_colocate_setup setup2(int k)
{
	return (struct btc_colocate_setup){
		.program = "prog",
		.work_dir = ".",
		.n_streams = 2,
		.stream_names = names2,
		.stream_app = app2,
		.weight = weight2,
		.solo_schedule = solo2,
		.n_joint = k,
		.joint_schedule = joint2,
		.baselines = true,
		.multiplex_turn = 4,
	};
}

/* cfg[] index of a kind (and joint index). */
static struct colo_cfg *cfg_of(struct colo_state *st, enum colo_kind kind, int joint)
{
	for (int k = 0; k < st->n_cfg; k++)
		if (st->cfg[k].kind == kind && (kind != COLO_JOINT || st->cfg[k].joint == joint))
			return &st->cfg[k];
	return NULL;
}

static void record2(struct colo_state *st, struct colo_cfg *c, int round, double r0, double r1)
{
	double r[2] = {r0, r1};
	colo_record(st, c, round, r);
}

/* Solo runs: app 0 at 90, 100, 110 tasks/s (r* 100), app 1 at 50. */
static void solos(struct colo_state *st, int rounds)
{
	for (int r = 1; r <= rounds; r++) {
		record2(st, cfg_of(st, COLO_SOLO, 0), r, 90 + 10 * ((r - 1) % 3), NAN);
		/* the solo of stream 1 is the second solo configuration */
		for (int k = 0; k < st->n_cfg; k++)
			if (st->cfg[k].kind == COLO_SOLO && st->cfg[k].stream == 1)
				record2(st, &st->cfg[k], r, NAN, 50);
	}
}

/* M = min_s r_s / (w_s r*_s): min(80 / 100, 60 / (2 x 50)) = 0.6; NAN
 * in a round without a run, and before the solo rates are known. */
static void test_merit(void)
{
	struct btc_colocate_setup s = setup2(1);
	struct colo_state st;
	colo_state_init(&st, &s, 10);
	CU_ASSERT_EQUAL(st.n_cfg, 2 + 1 + 2);
	struct colo_cfg *j = cfg_of(&st, COLO_JOINT, 0);
	record2(&st, j, 1, 80, 60);
	CU_ASSERT(isnan(colo_merit(&st, j, 1))); /* no r* yet */
	solos(&st, 3);
	CU_ASSERT_DOUBLE_EQUAL(colo_solo_rate(&st, 0), 100, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(colo_solo_rate(&st, 1), 50, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(colo_merit(&st, j, 1), 0.6, 1e-12);
	CU_ASSERT(isnan(colo_merit(&st, j, 2)));
	record2(&st, j, 2, 100, 200); /* stream 0 binds: 100 / 100 */
	CU_ASSERT_DOUBLE_EQUAL(colo_merit(&st, j, 2), 1.0, 1e-12);
	struct btc_colocate_stat m;
	colo_merit_stat(&st, j, &m);
	CU_ASSERT_DOUBLE_EQUAL(m.median, 0.8, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(m.lo, 0.6, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(m.hi, 1.0, 1e-12);
	CU_ASSERT_FALSE(m.exact); /* 2 rounds: [min, max] */
	colo_state_free(&st);
}

/* Streams of one app share its solo runs. */
static void test_shared_solo(void)
{
	static const int app[] = {0, 0, 1};
	static const double w[] = {1, 1, 1};
	static const long solo[] = {0, 0, 0}, joint[] = {0, 0, 0};
	static const char *const names[] = {"a#0", "a#1", "b#0"};
	struct btc_colocate_setup s = {.n_streams = 3,
				       .stream_names = names,
				       .stream_app = app,
				       .weight = w,
				       .solo_schedule = solo,
				       .n_joint = 1,
				       .joint_schedule = joint,
				       .baselines = false};
	struct colo_state st;
	colo_state_init(&st, &s, 4);
	CU_ASSERT_EQUAL(st.n_cfg, 2 + 1);
	CU_ASSERT_EQUAL(st.solo_of[0], st.solo_of[1]);
	CU_ASSERT_NOT_EQUAL(st.solo_of[0], st.solo_of[2]);
	double r[3] = {40, NAN, NAN};
	colo_record(&st, &st.cfg[st.solo_of[0]], 1, r);
	CU_ASSERT_DOUBLE_EQUAL(colo_solo_rate(&st, 1), 40, 1e-12);
	CU_ASSERT(isnan(colo_solo_rate(&st, 2)));
	colo_state_free(&st);
}

/* Racing drops a candidate only when both intervals are exact (6 rounds)
 * and its interval lies entirely below the best's; the stop rule then
 * decides on the gains; the result's best is the candidate's index. */
static void test_race_gain_stop(void)
{
	struct btc_colocate_setup s = setup2(3);
	struct colo_state st;
	colo_state_init(&st, &s, 10);
	solos(&st, 6);
	struct colo_cfg *j0 = cfg_of(&st, COLO_JOINT, 0), *j1 = cfg_of(&st, COLO_JOINT, 1),
			*j2 = cfg_of(&st, COLO_JOINT, 2), *nv = cfg_of(&st, COLO_NAIVE, 0),
			*mx = cfg_of(&st, COLO_MULTIPLEX, 0);
	for (int r = 1; r <= 6; r++) {
		double e = 0.01 * (r % 3);
		/* j0: M about 0.5; j1 about 0.9 (stream 1 binds: 90 / 100);
		 * j2 overlaps j1; naive 0.45, multiplex 0.3 */
		record2(&st, j0, r, 50 * (1 + e), 1000);
		record2(&st, j1, r, 1000, 90 * (1 + e));
		record2(&st, j2, r, 1000, 88 * (1 + 2 * e));
		record2(&st, nv, r, 45, 1000);
		record2(&st, mx, r, 30 * (1 + e), 1000);
		if (r == 5) {
			colo_race(&st, false);
			CU_ASSERT_EQUAL(colo_joint_live(&st), 3); /* inexact: nobody dropped */
		}
	}
	colo_race(&st, false);
	CU_ASSERT_FALSE(j0->finalist);
	CU_ASSERT_TRUE(j1->finalist && j2->finalist); /* overlapping intervals */
	CU_ASSERT_EQUAL(colo_joint_live(&st), 2);
	CU_ASSERT_PTR_EQUAL(&st.cfg[colo_best(&st)], j1);
	/* two left, not within 3 %: go on; within 30 %: converged */
	CU_ASSERT_PTR_NULL(colo_stop(&st, 0.03));
	CU_ASSERT_STRING_EQUAL(colo_stop(&st, 0.3), "converged");
	struct btc_colocate_stat g;
	colo_gain(&st, j1, nv, &g);
	CU_ASSERT(g.exact);
	CU_ASSERT_DOUBLE_EQUAL(g.median, 0.9 * 1.01 / 0.45, 1e-9); /* paired per round */
	CU_ASSERT(g.lo > 1);
	/* j2 fails: one finalist left, both gains exclude 1: decided */
	colo_fail(j2, 7, "check of task 3 failed");
	colo_fail(j2, 8, "a later message");
	CU_ASSERT_STRING_EQUAL(j2->why, "check of task 3 failed");
	CU_ASSERT_STRING_EQUAL(colo_stop(&st, 0.03), "decided");
	struct btc_colocate_result res;
	memset(&res, 0, sizeof(res));
	colo_result(&st, &res);
	CU_ASSERT_EQUAL(res.n_streams, 2);
	CU_ASSERT_EQUAL(res.n_joint, 3);
	CU_ASSERT_EQUAL(res.best, 1);
	CU_ASSERT_TRUE(res.joint[1].ok);
	CU_ASSERT_FALSE(res.joint[2].ok);
	CU_ASSERT_STRING_EQUAL(res.joint[2].why, "check of task 3 failed");
	CU_ASSERT_EQUAL(res.joint[1].rounds, 6);
	CU_ASSERT_DOUBLE_EQUAL(res.solo_rate[0], 100, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(res.joint[1].stream_rate[0], 1000, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(res.joint[1].stream_normalised[0], 10, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(res.naive.merit.median, 0.45, 1e-12);
	CU_ASSERT_TRUE(res.naive.ok && res.multiplex.ok);
	CU_ASSERT(res.gain_multiplex.lo > 1);
	CU_ASSERT_DOUBLE_EQUAL(res.gain_naive.median, g.median, 1e-12);
	btc_colocate_result_free(&res);
	colo_state_free(&st);
}

/* A failed solo run leaves nothing to normalise: no best. */
static void test_solo_failed(void)
{
	struct btc_colocate_setup s = setup2(1);
	struct colo_state st;
	colo_state_init(&st, &s, 4);
	solos(&st, 1);
	record2(&st, cfg_of(&st, COLO_JOINT, 0), 1, 80, 60);
	CU_ASSERT_FALSE(colo_solo_failed(&st));
	colo_fail(cfg_of(&st, COLO_SOLO, 0), 2, "the program exited with status 1");
	CU_ASSERT_TRUE(colo_solo_failed(&st));
	struct btc_colocate_result res;
	memset(&res, 0, sizeof(res));
	colo_result(&st, &res);
	CU_ASSERT_EQUAL(res.best, -1);
	CU_ASSERT(isnan(res.gain_naive.median));
	CU_ASSERT_FALSE(res.naive.ok); /* never run */
	btc_colocate_result_free(&res);
	colo_state_free(&st);
}

/* The common window: stream 0 checks every 10 ns from 0 to 200, stream 1
 * every 2 ns from 50 to 100 (warm-up 2: their windows start at 10 and
 * 52); the window [52, 100] holds stream 0's 60..100 (5 checks, 4
 * intervals over 40 ns) and stream 1's 52..100 (25 checks over 48 ns).
 * Streams that never ran together: false, rates untouched. */
static void test_common_window(void)
{
	double a[21], b[26], rate[2] = {-1, -1};
	for (int i = 0; i < 21; i++)
		a[i] = 10.0 * i;
	for (int i = 0; i < 26; i++)
		b[i] = 50 + 2.0 * i;
	const double *at[2] = {a, b};
	int n[2] = {21, 26};
	int w[2] = {2, 2};
	CU_ASSERT_TRUE(colo_common_rates(2, at, n, w, rate));
	CU_ASSERT_DOUBLE_EQUAL(rate[0], 4 / 40.0 * 1e9, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(rate[1], 24 / 48.0 * 1e9, 1e-3);
	for (int i = 0; i < 26; i++)
		b[i] = 300 + 2.0 * i; /* after stream 0 ended */
	rate[0] = rate[1] = -1;
	CU_ASSERT_FALSE(colo_common_rates(2, at, n, w, rate));
	CU_ASSERT_DOUBLE_EQUAL(rate[0], -1, 0);
	for (int i = 0; i < 26; i++)
		b[i] = 50 + 2.0 * i;
	w[1] = 25; /* stream 1's own warm-up ends at 98: 1 check of stream 0 after */
	CU_ASSERT_FALSE(colo_common_rates(2, at, n, w, rate));
	CU_ASSERT_DOUBLE_EQUAL(rate[0], -1, 0);
	w[1] = 2;
	n[1] = 0; /* no check times at all */
	CU_ASSERT_FALSE(colo_common_rates(2, at, n, w, rate));
}

/* The chunks as run: the means over the verified runs added, per stream;
 * a run whose chunk count for a stream changed is left out for it; the
 * Vulkan device and queue the last verified run's; the solo chunks come
 * from the stream's app's solo. */
static void one_chunk(struct btc_colocate_chunks *c, const char *pu, int first, int last,
		      double ms, double share)
{
	snprintf(c->c[c->n].pu, sizeof(c->c[c->n].pu), "%s", pu);
	c->c[c->n].first_stage = first;
	c->c[c->n].last_stage = last;
	c->c[c->n].ms = ms;
	c->c[c->n].stages_ms = ms / 2;
	c->c[c->n].share = share;
	c->n++;
}

static void test_chunks(void)
{
	struct btc_colocate_setup s = setup2(1);
	struct colo_state st;
	colo_state_init(&st, &s, 4);
	solos(&st, 1);
	struct colo_cfg *j = cfg_of(&st, COLO_JOINT, 0);
	struct btc_colocate_chunks run[2];
	memset(run, 0, sizeof(run));
	one_chunk(&run[0], "cpu", 0, 3, 2.0, 0.5);
	one_chunk(&run[0], "vulkan", 4, 6, 1.0, 0.25);
	one_chunk(&run[1], "vulkan", 0, 8, 0.3, 0.9);
	run[0].vk_device = run[1].vk_device = 0;
	run[0].vk_queue = 1;
	run[1].vk_queue = 0;
	colo_add_chunks(j, run, 2);
	run[0].c[0].ms = 4.0;
	run[0].vk_queue = 0; /* the last verified run's queue */
	run[0].c[1].share = 0.75;
	run[1].n = 2; /* a chunk more than before: not averaged in */
	colo_add_chunks(j, run, 2);
	struct btc_colocate_chunks solo[2];
	memset(solo, 0, sizeof(solo));
	one_chunk(&solo[0], "cpu", 0, 6, 2.5, 1.0);
	colo_add_chunks(cfg_of(&st, COLO_SOLO, 0), solo, 2);
	record2(&st, j, 1, 80, 60);
	struct btc_colocate_result res;
	memset(&res, 0, sizeof(res));
	colo_result(&st, &res);
	const struct btc_colocate_chunks *c = res.joint[0].chunks;
	CU_ASSERT_EQUAL(c[0].n, 2);
	CU_ASSERT_EQUAL(c[0].runs, 2);
	CU_ASSERT_STRING_EQUAL(c[0].c[1].pu, "vulkan");
	CU_ASSERT_EQUAL(c[0].c[1].first_stage, 4);
	CU_ASSERT_EQUAL(c[0].c[1].last_stage, 6);
	CU_ASSERT_DOUBLE_EQUAL(c[0].c[0].ms, 3.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(c[0].c[0].stages_ms, 1.0, 1e-12); /* 2.0 / 2 twice */
	CU_ASSERT_DOUBLE_EQUAL(c[0].c[1].ms, 1.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(c[0].c[1].share, 0.5, 1e-12);
	CU_ASSERT_EQUAL(c[1].n, 1);
	CU_ASSERT_EQUAL(c[1].runs, 1);
	CU_ASSERT_DOUBLE_EQUAL(c[1].c[0].ms, 0.3, 1e-12);
	CU_ASSERT_EQUAL(c[0].vk_device, 0);
	CU_ASSERT_EQUAL(c[0].vk_queue, 0);
	CU_ASSERT_EQUAL(c[1].vk_queue, 0);
	CU_ASSERT_EQUAL(res.solo_chunks[0].n, 1);
	CU_ASSERT_DOUBLE_EQUAL(res.solo_chunks[0].c[0].ms, 2.5, 1e-12);
	CU_ASSERT_EQUAL(res.solo_chunks[1].n, 0); /* stream 1's app: none added */
	CU_ASSERT_EQUAL(res.naive.chunks[0].n, 0);
	btc_colocate_result_free(&res);
	colo_state_free(&st);
}

/* Tasks per stream: the base for the slowest, twice its time's worth at
 * r* for the others, at most 64 x; the base for all while an r* is
 * unknown. */
static void test_stream_tasks(void)
{
	struct btc_colocate_setup s = setup2(1);
	struct colo_state st;
	colo_state_init(&st, &s, 4);
	int t[2];
	colo_stream_tasks(&st, 8, t);
	CU_ASSERT(t[0] == 8 && t[1] == 8);
	solos(&st, 1); /* r* 90 and 50 */
	colo_stream_tasks(&st, 8, t);
	CU_ASSERT_EQUAL(t[0], 29); /* round(2 x 8 x 90 / 50) */
	CU_ASSERT_EQUAL(t[1], 8);  /* the slowest */
	double r[2] = {NAN, 50 * 1000.0};
	colo_record(&st, &st.cfg[st.solo_of[1]], 2, r); /* r* of stream 1: 25025 */
	colo_stream_tasks(&st, 8, t);
	CU_ASSERT_EQUAL(t[0], 8);
	CU_ASSERT_EQUAL(t[1], 8 * 64);
	/* naive co-location: the solo rule until it ran, then its own rates */
	struct colo_cfg *nv = cfg_of(&st, COLO_NAIVE, 0), *j = cfg_of(&st, COLO_JOINT, 0);
	colo_cfg_tasks(&st, nv, 8, t);
	CU_ASSERT(t[0] == 8 && t[1] == 8 * 64);
	record2(&st, nv, 1, 40, 60);
	record2(&st, nv, 2, 40, 100);
	record2(&st, j, 1, 40, 60);
	colo_cfg_tasks(&st, nv, 8, t);
	CU_ASSERT_EQUAL(t[0], 8);  /* the slowest in naive */
	CU_ASSERT_EQUAL(t[1], 32); /* round(2 x 8 x 80 / 40): median of 60, 100 */
	colo_cfg_tasks(&st, j, 8, t); /* a joint run: the solo rule */
	CU_ASSERT(t[0] == 8 && t[1] == 8 * 64);
	colo_state_free(&st);
}

/* The warm-up by time: ceil(S x the expected rate), at least the base;
 * the plan's rates before the solos, r* after them (a joint candidate's
 * scaled by min(1, predicted M x w_s)), a co-located configuration's own
 * median rates once it ran; the base alone at S 0 or with no rate. */
static void test_warmup_tasks(void)
{
	struct btc_colocate_setup s = setup2(1);
	struct colo_state st;
	colo_state_init(&st, &s, 4);
	struct colo_cfg *s0 = &st.cfg[st.solo_of[0]], *s1 = &st.cfg[st.solo_of[1]];
	struct colo_cfg *j = cfg_of(&st, COLO_JOINT, 0), *nv = cfg_of(&st, COLO_NAIVE, 0);
	struct colo_cfg *mx = cfg_of(&st, COLO_MULTIPLEX, 0);
	const double plan[2] = {200, 100};
	int w[2];
	CU_ASSERT_STRING_EQUAL(colo_warmup_tasks(&st, s0, 0.5, 4, plan, NAN, w), "plan");
	CU_ASSERT(w[0] == 100 && w[1] == 4); /* stream 1 does not run */
	CU_ASSERT_STRING_EQUAL(colo_warmup_tasks(&st, s1, 0.5, 4, NULL, NAN, w), "none");
	CU_ASSERT(w[0] == 4 && w[1] == 4);
	solos(&st, 1); /* r* 90 and 50 */
	CU_ASSERT_STRING_EQUAL(colo_warmup_tasks(&st, s1, 0.5, 4, plan, NAN, w), "solo");
	CU_ASSERT(w[0] == 4 && w[1] == 25);
	colo_warmup_tasks(&st, mx, 0.5, 4, plan, NAN, w);
	CU_ASSERT(w[0] == 45 && w[1] == 25);
	/* predicted M 0.5: stream 0 (w 1) at 45 tasks/s, stream 1 (w 2) at r* */
	CU_ASSERT_STRING_EQUAL(colo_warmup_tasks(&st, j, 0.5, 4, plan, 0.5, w), "solo");
	CU_ASSERT(w[0] == 23 && w[1] == 25);
	colo_warmup_tasks(&st, j, 0.5, 4, plan, NAN, w);
	CU_ASSERT(w[0] == 45 && w[1] == 25);
	colo_warmup_tasks(&st, nv, 0.01, 4, plan, NAN, w); /* 0.9 and 0.5 tasks */
	CU_ASSERT(w[0] == 4 && w[1] == 4);
	record2(&st, nv, 1, 40, 60);
	record2(&st, nv, 2, 40, 100);
	CU_ASSERT_STRING_EQUAL(colo_warmup_tasks(&st, nv, 0.5, 4, plan, NAN, w), "measured");
	CU_ASSERT(w[0] == 20 && w[1] == 40); /* medians 40 and 80 */
	CU_ASSERT_STRING_EQUAL(colo_warmup_tasks(&st, nv, 0, 4, plan, NAN, w), "none");
	CU_ASSERT(w[0] == 4 && w[1] == 4);
	colo_state_free(&st);
}

/* Multiplexing's turns: equal time at equal normalised throughput, T for
 * the stream with the least w_s tasks[s], the others in proportion,
 * rounded, at least 1. */
static void test_multiplex_turns(void)
{
	double w[3] = {1, 2, 1};
	int tasks[3] = {8, 29, 12};
	long turn[3];
	colo_multiplex_turns(3, w, tasks, 4, turn);
	CU_ASSERT_EQUAL(turn[0], 4);  /* the least w tasks: T */
	CU_ASSERT_EQUAL(turn[1], 29); /* round(4 x 2 x 29 / 8) */
	CU_ASSERT_EQUAL(turn[2], 6);  /* 4 x 12 / 8 */
	double w1[2] = {1e-6, 1};
	int t1[2] = {8, 8};
	colo_multiplex_turns(2, w1, t1, 1, turn);
	CU_ASSERT_EQUAL(turn[0], 1);
	CU_ASSERT_EQUAL(turn[1], 1000000);
	double w2[2] = {1, 1};
	int t2[2] = {1000, 1};
	colo_multiplex_turns(2, w2, t2, 1, turn);
	CU_ASSERT_EQUAL(turn[1], 1);
	CU_ASSERT_EQUAL(turn[0], 1000);
}

int register_colocate_suite(void)
{
	CU_pSuite s = CU_add_suite("colocate", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "merit M", test_merit);
	CU_add_test(s, "streams of one app share its solo", test_shared_solo);
	CU_add_test(s, "racing, gains and the stop rule", test_race_gain_stop);
	CU_add_test(s, "a failed solo run", test_solo_failed);
	CU_add_test(s, "the streams' common window", test_common_window);
	CU_add_test(s, "tasks per stream", test_stream_tasks);
	CU_add_test(s, "the warm-up by time", test_warmup_tasks);
	CU_add_test(s, "multiplexing's turns", test_multiplex_turns);
	CU_add_test(s, "the chunks as run", test_chunks);
	return 0;
}
