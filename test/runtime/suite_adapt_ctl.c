/* The adaptive controller alone (btrt_adapt_ctl_*) on synthetic
 * observations: trigger, re-ranking, trials, reverts, the next-ranked
 * candidate, hysteresis, no flapping, no decision without a disturbance;
 * and the cost model's chunk and period formulas. Part of the "adapt"
 * suite (suite_adapt.c), also under ThreadSanitizer. */
#include "suite_adapt_ctl.h"

#include <btrt_adapt.h>
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* 4 stages of 1 ms on both PUs A and B, T_io 0.5 ms. */
static const double syn_time[4 * 2] = { 1, 1, 1, 1, 1, 1, 1, 1 };
static const char *const syn_pus[2] = { "A", "B" };
static const struct btrt_model syn_model = { 4, 2, syn_time, NULL, NULL, 0.5, syn_pus, "test", NULL };
static struct btrt_chunk syn_c[5][2];
static const uint32_t syn_ab[2] = { 0, 1 }, syn_a[1] = { 0 }, syn_b[1] = { 1 };
static struct btrt_adapt_schedule syn_s[5];

static void syn_init(void)
{
	/* S0 A:0-1 B:2-3 (P 2), S1 A:0-2 B:3 (3), S2 A:0 B:1-3 (3), S3 A:0-3 (4), S4 B:0-3 (4) */
	static const uint32_t split[3] = { 2, 3, 1 };
	for (int k = 0; k < 3; k++) {
		syn_c[k][0] = (struct btrt_chunk){ "A", BTRT_PU_CPU, NULL, 0, 0, split[k], NULL, NULL, 0 };
		syn_c[k][1] = (struct btrt_chunk){ "B", BTRT_PU_CPU, NULL, 0, split[k], 4 - split[k],
						    NULL, NULL, 0 };
		syn_s[k] = (struct btrt_adapt_schedule){ "split", syn_c[k], 2, syn_ab, 0, 0 };
	}
	syn_c[3][0] = (struct btrt_chunk){ "A", BTRT_PU_CPU, NULL, 0, 0, 4, NULL, NULL, 0 };
	syn_c[4][0] = (struct btrt_chunk){ "B", BTRT_PU_CPU, NULL, 0, 0, 4, NULL, NULL, 0 };
	syn_s[3] = (struct btrt_adapt_schedule){ "A", syn_c[3], 1, syn_a, 0, 0 };
	syn_s[4] = (struct btrt_adapt_schedule){ "B", syn_c[4], 1, syn_b, 0, 0 };
}

struct feed {
	struct btrt_adapt_ctl *ctl;
	uint64_t seq, now;
	int switched; /* observe returned 1 */
};

/* A controller over the synthetic schedules (syn_s, as syn_init and the
 * test left them) with options o, starting on S0, pool 3; fails the test
 * when it cannot be made. */
static struct feed syn_feed(const struct btrt_adapt_options *o)
{
	struct feed f = { btrt_adapt_ctl_create(&syn_model, syn_s, 5, 0, 3, o), 0, 0, 0 };
	CU_ASSERT_PTR_NOT_NULL_FATAL(f.ctl);
	return f;
}

/* Feeds n tasks of the current schedule: chunk k takes ms[k], tasks
 * complete every period_ms; spike: one task in 100 takes spike_ms more.
 * Stops at the first switch request. */
static void feed(struct feed *f, uint32_t n, const double *ms, double period_ms, double spike_ms)
{
	uint64_t chunk_ns[2];
	for (uint32_t i = 0; i < n && !f->switched; i++) {
		double p = period_ms + (spike_ms > 0 && f->seq % 100 == 50 ? spike_ms : 0);
		f->now += (uint64_t)(p * 1e6);
		chunk_ns[0] = (uint64_t)(ms[0] * 1e6);
		chunk_ns[1] = (uint64_t)(ms[1] * 1e6);
		struct btrt_task_done d = { f->seq++, f->now, 500000, 2, chunk_ns, 500000, 0 };
		f->switched = btrt_adapt_ctl_observe(f->ctl, &d);
	}
}

static uint32_t n_switches(const struct btrt_adapt_ctl *c)
{
	uint32_t n, k = 0;
	const struct btrt_adapt_decision *d = btrt_adapt_ctl_decisions(c, &n);
	for (uint32_t i = 0; i < n; i++)
		k += d[i].to != d[i].from;
	return k;
}

/* A synthetic machine: per schedule, each chunk's time and the period
 * (ms); jitter: each task's interval times a factor in [1 - jitter, 1 +
 * jitter] (deterministic). */
struct world {
	double chunk_ms[5][2];
	double period_ms[5];
	double jitter;
};

/* Feeds n tasks of whatever schedule runs, switching (as btrt_adapt_run
 * does: the drained tasks are not observed) whenever the controller asks.
 * Returns the switches made. */
static uint32_t world_feed(struct feed *f, const struct world *w, uint32_t n)
{
	uint32_t sw = 0;
	uint64_t rnd = 12345;
	uint64_t chunk_ns[2];
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = btrt_adapt_ctl_current(f->ctl);
		rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
		double u = (double)(rnd >> 11) / (double)(1ull << 53); /* [0, 1) */
		double p = w->period_ms[k] * (1.0 + w->jitter * (2.0 * u - 1.0));
		f->now += (uint64_t)(p * 1e6);
		chunk_ns[0] = (uint64_t)(w->chunk_ms[k][0] * 1e6);
		chunk_ns[1] = (uint64_t)(w->chunk_ms[k][1] * 1e6);
		struct btrt_task_done d = { f->seq++, f->now, 500000, syn_s[k].n_chunks, chunk_ns, 500000, 0 };
		if (btrt_adapt_ctl_observe(f->ctl, &d)) {
			CU_ASSERT_NOT_EQUAL(btrt_adapt_ctl_target(f->ctl), k);
			btrt_adapt_ctl_switched(f->ctl);
			sw++;
		}
	}
	return sw;
}

/* The kinds of the decisions after the calibration, e.g. "trial revert". */
static void kinds(const struct btrt_adapt_ctl *c, char *buf, size_t len)
{
	uint32_t n;
	const struct btrt_adapt_decision *d = btrt_adapt_ctl_decisions(c, &n);
	buf[0] = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!strcmp(d[i].kind, "calibrated"))
			continue;
		size_t l = strlen(buf);
		snprintf(buf + l, len - l, "%s%s %u>%u", l ? " " : "", d[i].kind, d[i].from, d[i].to);
	}
}

/* Every schedule as the model predicts with B three times slower (chunk
 * times; periods x 1.1, the handoffs), S0 at its start. */
static void world_b3(struct world *w)
{
	memset(w, 0, sizeof *w);
	static const double ch[5][2] = { { 2, 6 }, { 3, 3 }, { 1, 9 }, { 4, 0 }, { 12, 0 } };
	static const double p[5] = { 6.6, 3.3, 9.9, 4.4, 13.2 };
	memcpy(w->chunk_ms, ch, sizeof ch);
	memcpy(w->period_ms, p, sizeof p);
}

/* The defaults, with windows counted in tasks only: the synthetic worlds
 * below are written in tasks (test_ctl_window_ms covers window_ms). */
static void opts_init(struct btrt_adapt_options *o)
{
	btrt_adapt_options_init(o);
	o->window_ms = 0;
}

static void test_model_chunk_ms(void)
{
	/* F + sum t + X, with F and X present */
	static const double t[3 * 2] = { 1.0, 0.5, 2.0, 0.25, 4.0, 0.125 };
	static const double fixed[2] = { 0.0, 0.75 };
	double x[3 * 2 * 3] = { 0 };
	x[btrt_model_xfer_index(3, 2, 1, 0, 2)] = 3.0;
	x[btrt_model_xfer_index(3, 2, 1, 1, 1)] = 0.5;
	const struct btrt_model m = { 3, 2, t, fixed, x, 0.2, NULL, NULL, NULL };
	CU_ASSERT_DOUBLE_EQUAL(btrt_model_chunk_ms(&m, 0, 0, 2), 7.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(btrt_model_chunk_ms(&m, 1, 0, 2), 0.75 + 0.875 + 3.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(btrt_model_chunk_ms(&m, 1, 1, 1), 0.75 + 0.25 + 0.5, 1e-12);
	const struct btrt_chunk ch[2] = { { "a", BTRT_PU_CPU, NULL, 0, 0, 1, NULL, NULL, 0 },
					  { "b", BTRT_PU_CPU, NULL, 0, 1, 2, NULL, NULL, 0 } };
	const uint32_t pus[2] = { 0, 1 };
	const struct btrt_adapt_schedule s = { "s", ch, 2, pus, 0, 0 };
	/* chunks 1.0 and 0.75 + 0.375 = 1.125; P = max(0.2, 1.125) */
	CU_ASSERT_DOUBLE_EQUAL(btrt_model_period_ms(&m, &s, NULL, -1), 1.125, 1e-12);
	const double slow[2] = { 3.0, 1.0 };
	CU_ASSERT_DOUBLE_EQUAL(btrt_model_period_ms(&m, &s, slow, -1), 3.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(btrt_model_period_ms(&m, &s, NULL, 5.0), 5.0, 1e-12);
	static const double tn[2] = { 1.0, NAN };
	const struct btrt_model mn = { 1, 2, tn, NULL, NULL, 0, NULL, NULL, NULL };
	CU_ASSERT(isnan(btrt_model_chunk_ms(&mn, 1, 0, 0)));
	/* The chunk boundary term S_{f,c}: paid once, by the chunk's first
	 * stage; t holds t^in, so F + t_f(alone) + sum t^in of the rest + X */
	static const double s_[3 * 2] = { 0.0, 0.5, 0.0, 1.0, 0.0, 2.0 };
	const struct btrt_model ms = { 3, 2, t, fixed, x, 0.2, NULL, NULL, s_ };
	CU_ASSERT_DOUBLE_EQUAL(btrt_model_chunk_ms(&ms, 1, 0, 2), 0.75 + 0.5 + 0.875 + 3.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(btrt_model_chunk_ms(&ms, 1, 1, 2), 0.75 + 1.0 + 0.375, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(btrt_model_chunk_ms(&ms, 1, 1, 1), 0.75 + 1.0 + 0.25 + 0.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(btrt_model_chunk_ms(&ms, 1, 2, 2), 0.75 + 2.0 + 0.125, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(btrt_model_chunk_ms(&ms, 0, 0, 2), 7.0, 1e-12); /* S 0 on PU 0 */
	/* two chunks pay two boundaries: 1..1 and 2..2 against one 1..2 */
	CU_ASSERT(btrt_model_chunk_ms(&ms, 1, 1, 1) + btrt_model_chunk_ms(&ms, 1, 2, 2) >
		  btrt_model_chunk_ms(&ms, 1, 1, 2) + 0.75);
}

static void test_ctl_switches_away(void)
{
	syn_init();
	struct btrt_adapt_options o;
	opts_init(&o);
	struct feed f = syn_feed(&o);
	/* as the model says, plus 10 % of handoffs: calibrates, no trigger */
	const double even[2] = { 2.0, 2.0 };
	feed(&f, 400, even, 2.2, 0);
	CU_ASSERT_EQUAL(f.switched, 0);
	CU_ASSERT_EQUAL(n_switches(f.ctl), 0);
	/* B three times slower: S1 (A:0-2 B:3) is then best, P 3 vs 6 */
	const double slow_b[2] = { 2.0, 6.0 };
	uint64_t onset = f.seq;
	feed(&f, 400, slow_b, 6.6, 0);
	CU_ASSERT_EQUAL(f.switched, 1);
	CU_ASSERT_EQUAL(btrt_adapt_ctl_target(f.ctl), 1);
	/* within the patience windows after the onset (and the one it falls in) */
	CU_ASSERT(f.seq - onset <= (o.patience + 1) * o.window);
	uint32_t n;
	const struct btrt_adapt_decision *d = btrt_adapt_ctl_decisions(f.ctl, &n);
	const struct btrt_adapt_decision *last = &d[n - 1];
	CU_ASSERT_EQUAL(last->from, 0);
	CU_ASSERT_EQUAL(last->to, 1);
	CU_ASSERT_STRING_EQUAL(last->kind, "trial");
	CU_ASSERT_DOUBLE_EQUAL(last->slowdown[0], 1.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(last->slowdown[1], 3.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(last->predicted_from_ms, 6.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(last->predicted_to_ms, 3.0, 1e-9);
	/* times the current schedule's observed / predicted ratio, 6.6 / 6 */
	CU_ASSERT_DOUBLE_EQUAL(last->expected_to_ms, 3.3, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(last->observed_ms, 6.6, 1e-6);
	/* every schedule behaves as predicted: the trial (3.3) beats the 6.6
	 * measured before the switch; S3 (A:0-3), never run, is expected at
	 * 4.4, within the exploration range (1.5 x 3.3): tried, slower, back
	 * to S1, the best measured; then nothing */
	btrt_adapt_ctl_switched(f.ctl);
	f.switched = 0;
	CU_ASSERT_EQUAL(btrt_adapt_ctl_current(f.ctl), 1);
	struct world w;
	world_b3(&w);
	CU_ASSERT_EQUAL(world_feed(&f, &w, 3000), 2);
	char k[256];
	kinds(f.ctl, k, sizeof k);
	CU_ASSERT_STRING_EQUAL(k, "trial 0>1 trial 1>3 revert 3>1");
	CU_ASSERT_EQUAL(btrt_adapt_ctl_current(f.ctl), 1);
	uint32_t n2;
	d = btrt_adapt_ctl_decisions(f.ctl, &n2);
	CU_ASSERT_EQUAL_FATAL(n2, n + 2);
	CU_ASSERT_DOUBLE_EQUAL(d[n].trial_ms, 3.3, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(d[n].compared_ms, 6.6, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(d[n + 1].trial_ms, 4.4, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(d[n + 1].compared_ms, 3.3, 1e-6);
	btrt_adapt_ctl_free(f.ctl);
}

static void test_ctl_no_flapping(void)
{
	syn_init();
	struct btrt_adapt_options o;
	opts_init(&o);
	struct feed f = syn_feed(&o);
	const double even[2] = { 2.0, 2.0 };
	/* isolated stalls (one task in 100 takes 20 ms more): its window is
	 * above the threshold, never two windows in a row */
	feed(&f, 2000, even, 2.2, 20.0);
	CU_ASSERT_EQUAL(f.switched, 0);
	/* the whole machine 1.7 x slower: a trigger, but re-ranking with
	 * equal slowdowns keeps the schedule; then quiet (hysteresis) */
	const double slow[2] = { 3.4, 3.4 };
	feed(&f, 2000, slow, 3.74, 0);
	CU_ASSERT_EQUAL(f.switched, 0);
	CU_ASSERT_EQUAL(n_switches(f.ctl), 0);
	uint32_t n;
	const struct btrt_adapt_decision *d = btrt_adapt_ctl_decisions(f.ctl, &n);
	uint32_t keeps = 0;
	for (uint32_t i = 0; i < n; i++)
		keeps += strcmp(d[i].reason, "calibrated") != 0;
	CU_ASSERT_EQUAL(keeps, 1);
	/* back to normal: faster than expected never triggers */
	feed(&f, 2000, even, 2.2, 0);
	CU_ASSERT_EQUAL(f.switched, 0);
	btrt_adapt_ctl_decisions(f.ctl, &n);
	CU_ASSERT_EQUAL(n, keeps + 1);
	btrt_adapt_ctl_free(f.ctl);
}

static void test_ctl_margin(void)
{
	syn_init();
	struct btrt_adapt_options o;
	opts_init(&o);
	o.explore = 0;
	struct feed f = syn_feed(&o);
	const double even[2] = { 2.0, 2.0 };
	feed(&f, 200, even, 2.0, 0);
	/* B 1.4 x: below the threshold; then S0 predicts 2.8, S1 3.0 */
	const double b14[2] = { 2.0, 2.8 };
	feed(&f, 200, b14, 2.8, 0);
	CU_ASSERT_EQUAL(f.switched, 0);
	/* B 1.7 x: S0 3.4 vs S1 3.0: better, but not by the 20 % margin (no
	 * exploration: test_ctl_explore_uneven has it) */
	const double b17[2] = { 2.0, 3.4 };
	feed(&f, 200, b17, 3.4 * 1.31, 0);
	CU_ASSERT_EQUAL(f.switched, 0);
	CU_ASSERT_EQUAL(n_switches(f.ctl), 0);
	btrt_adapt_ctl_free(f.ctl);
}

static void test_ctl_relative_slowdown(void)
{
	syn_init();
	struct btrt_adapt_options o;
	opts_init(&o);
	struct feed f = syn_feed(&o);
	/* A's chunk runs at half the table's time from the start (the table
	 * is off there, not the machine): no slowdown of A */
	const double start[2] = { 1.0, 2.0 };
	feed(&f, 200, start, 2.2, 0);
	/* B 3 x: A taken at the table's times, S1 (A:0-2 B:3, 3) wins; with
	 * A at half its table time, all on A (S3, 2) would */
	const double b3[2] = { 1.0, 6.0 };
	feed(&f, 400, b3, 6.6, 0);
	CU_ASSERT_EQUAL(f.switched, 1);
	CU_ASSERT_EQUAL(btrt_adapt_ctl_target(f.ctl), 1);
	uint32_t n;
	const struct btrt_adapt_decision *d = btrt_adapt_ctl_decisions(f.ctl, &n);
	CU_ASSERT_DOUBLE_EQUAL(d[n - 1].slowdown[0], 1.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(d[n - 1].slowdown[1], 3.0, 1e-9);
	btrt_adapt_ctl_free(f.ctl);
}

static void test_ctl_learned_ratio(void)
{
	syn_init();
	struct btrt_adapt_options o;
	opts_init(&o);
	struct feed f = syn_feed(&o);
	const double even[2] = { 2.0, 2.0 };
	feed(&f, 200, even, 2.2, 0);
	/* A 3 x slower, and the period twice its chunk (what the per-PU model
	 * misses, e.g. the io thread squeezed onto the other core): S2
	 * (A:0 B:1-3) is expected at 3 x 2 */
	const double a3[2] = { 6.0, 2.0 };
	feed(&f, 400, a3, 12.0, 0);
	CU_ASSERT_EQUAL_FATAL(f.switched, 1);
	CU_ASSERT_EQUAL(btrt_adapt_ctl_target(f.ctl), 2);
	btrt_adapt_ctl_switched(f.ctl);
	f.switched = 0;
	/* on S2, B turns out 3 x slower too once it carries 3 stages: S0 is
	 * predicted at 6 by the slowdowns, but it ran at 2 x its prediction:
	 * expected 12, no better than the 10 observed: kept, no flapping */
	const double s2[2] = { 3.0, 9.0 };
	feed(&f, 2000, s2, 10.0, 0);
	CU_ASSERT_EQUAL(f.switched, 0);
	CU_ASSERT_EQUAL(n_switches(f.ctl), 1);
	uint32_t n;
	const struct btrt_adapt_decision *d = btrt_adapt_ctl_decisions(f.ctl, &n);
	CU_ASSERT_EQUAL(d[n - 1].to, d[n - 1].from);
	CU_ASSERT_DOUBLE_EQUAL(d[n - 1].observed_ms, 10.0, 1e-6);
	btrt_adapt_ctl_free(f.ctl);
}

static void test_ctl_trial_revert(void)
{
	syn_init();
	struct btrt_adapt_options o;
	opts_init(&o);
	o.log = getenv("TOY_VERBOSE") ? stderr : NULL;
	struct feed f = syn_feed(&o);
	struct world w;
	world_b3(&w);
	const double even[2] = { 2.0, 2.0 };
	feed(&f, 200, even, 2.2, 0);
	/* B 3 x: the model names S1 (3.3 expected), but S1 runs at 10 ms
	 * (what the model does not see: its chunk times are as predicted);
	 * the next-ranked, S3 (A:0-3), is then expected at 4 x 10 / 3: not
	 * tried; back to S0, once, and it stays there */
	w.period_ms[1] = 10.0;
	w.period_ms[3] = 12.0;
	uint32_t sw = world_feed(&f, &w, 5000);
	char k[256];
	kinds(f.ctl, k, sizeof k);
	CU_ASSERT_STRING_EQUAL(k, "trial 0>1 revert 1>0");
	CU_ASSERT_EQUAL(sw, 2);
	CU_ASSERT_EQUAL(btrt_adapt_ctl_current(f.ctl), 0);
	uint32_t n;
	const struct btrt_adapt_decision *d = btrt_adapt_ctl_decisions(f.ctl, &n);
	CU_ASSERT_DOUBLE_EQUAL(d[n - 1].trial_ms, 10.0, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(d[n - 1].compared_ms, 6.6, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(d[n - 1].expected_to_ms, 6.6, 1e-6);
	/* S0 slows further (10.5 > 1.5 x 6.6): a new episode; S1 carries its
	 * measured ratio (10 / 3): expected 10, not 20 % below 10.5: not
	 * tried again; S3 (A:0-3, expected 4 x 10.5 / 6) is, runs at 12, and
	 * the run goes back to S0 for good */
	w.period_ms[0] = 10.5;
	sw = world_feed(&f, &w, 5000);
	CU_ASSERT_EQUAL(sw, 2);
	kinds(f.ctl, k, sizeof k);
	CU_ASSERT_STRING_EQUAL(k, "trial 0>1 revert 1>0 trial 0>3 revert 3>0");
	CU_ASSERT_EQUAL(btrt_adapt_ctl_current(f.ctl), 0);
	btrt_adapt_ctl_free(f.ctl);
}

static void test_ctl_next_candidate(void)
{
	syn_init();
	struct btrt_adapt_options o;
	opts_init(&o);
	struct world w;
	const double even[2] = { 2.0, 2.0 };
	char k[256];
	/* S1 better than S0 (6 vs 6.6, as predicted: B 6 x under it): S3
	 * (A:0-3) is then expected at 4 x 1.1 (the highest ratio measured,
	 * S0's): tried; it runs at 4.2: stays */
	struct feed f = syn_feed(&o);
	world_b3(&w);
	w.chunk_ms[1][1] = 6.0;
	w.period_ms[1] = 6.0;
	w.period_ms[3] = 4.2;
	feed(&f, 200, even, 2.2, 0);
	CU_ASSERT_EQUAL(world_feed(&f, &w, 3000), 2);
	kinds(f.ctl, k, sizeof k);
	CU_ASSERT_STRING_EQUAL(k, "trial 0>1 trial 1>3 accept 3>3");
	CU_ASSERT_EQUAL(btrt_adapt_ctl_current(f.ctl), 3);
	btrt_adapt_ctl_free(f.ctl);
	/* the same, S3 at 7: back to the best measured, S1, not to S0 */
	f = syn_feed(&o);
	w.period_ms[3] = 7.0;
	feed(&f, 200, even, 2.2, 0);
	CU_ASSERT_EQUAL(world_feed(&f, &w, 3000), 3);
	kinds(f.ctl, k, sizeof k);
	CU_ASSERT_STRING_EQUAL(k, "trial 0>1 trial 1>3 revert 3>1");
	CU_ASSERT_EQUAL(btrt_adapt_ctl_current(f.ctl), 1);
	btrt_adapt_ctl_free(f.ctl);
	/* max_trials 1: S1 stays, S3 is not tried */
	o.max_trials = 1;
	f = syn_feed(&o);
	feed(&f, 200, even, 2.2, 0);
	CU_ASSERT_EQUAL(world_feed(&f, &w, 3000), 1);
	kinds(f.ctl, k, sizeof k);
	CU_ASSERT_STRING_EQUAL(k, "trial 0>1 accept 1>1");
	btrt_adapt_ctl_free(f.ctl);
}

static void test_ctl_no_flap_misleading_model(void)
{
	syn_init();
	struct btrt_adapt_options o;
	opts_init(&o);
	struct feed f = syn_feed(&o);
	const double even[2] = { 2.0, 2.0 };
	feed(&f, 200, even, 2.2, 0);
	/* B 3 x, and every other schedule runs at twice S0's period whatever
	 * the model says, with 30 % jitter per task: at most max_trials trials
	 * and one revert in the episode, then S0 for good */
	struct world w;
	world_b3(&w);
	w.jitter = 0.3;
	for (int k = 1; k < 5; k++)
		w.period_ms[k] = 13.2;
	uint32_t sw = world_feed(&f, &w, 20000);
	CU_ASSERT(sw >= 2 && sw <= o.max_trials + 1);
	CU_ASSERT_EQUAL(btrt_adapt_ctl_current(f.ctl), 0);
	uint32_t n;
	const struct btrt_adapt_decision *d = btrt_adapt_ctl_decisions(f.ctl, &n);
	CU_ASSERT_STRING_EQUAL(d[n - 1].kind, "revert");
	/* each schedule tried once */
	uint32_t tried[5] = { 0 };
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(d[i].kind, "trial"))
			CU_ASSERT_EQUAL(tried[d[i].to]++, 0);
	btrt_adapt_ctl_free(f.ctl);
}

static void test_ctl_no_disturbance(void)
{
	syn_init();
	struct btrt_adapt_options o;
	opts_init(&o);
	struct feed f = syn_feed(&o);
	/* the table is off on this machine (S0 at 3 x its prediction from
	 * the start), tasks jitter by 40 %: the baseline is this run's first
	 * windows, not the table: no decision */
	struct world w;
	memset(&w, 0, sizeof w);
	for (int k = 0; k < 5; k++) {
		w.chunk_ms[k][0] = w.chunk_ms[k][1] = 6.0;
		w.period_ms[k] = 6.6;
	}
	w.jitter = 0.4;
	CU_ASSERT_EQUAL(world_feed(&f, &w, 10000), 0);
	/* a burst on B shorter than the patience (two windows at 2 x): no
	 * decision; the third window is back to normal */
	w.jitter = 0;
	w.chunk_ms[0][1] = 12.0;
	w.period_ms[0] = 13.2;
	CU_ASSERT_EQUAL(world_feed(&f, &w, 2 * o.window), 0);
	w.chunk_ms[0][1] = 6.0;
	w.period_ms[0] = 6.6;
	CU_ASSERT_EQUAL(world_feed(&f, &w, 5000), 0);
	char k[256];
	kinds(f.ctl, k, sizeof k);
	CU_ASSERT_STRING_EQUAL(k, "");
	btrt_adapt_ctl_free(f.ctl);
}

static void test_ctl_window_ms(void)
{
	syn_init();
	struct btrt_adapt_options o;
	btrt_adapt_options_init(&o); /* window 16 tasks, window_ms 100 */
	struct feed f = syn_feed(&o);
	/* tasks of 2.2 ms: a window is 46 tasks (101.2 ms), not 16 */
	const double even[2] = { 2.0, 2.0 };
	feed(&f, 400, even, 2.2, 0);
	uint32_t n;
	const struct btrt_adapt_decision *d = btrt_adapt_ctl_decisions(f.ctl, &n);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_STRING_EQUAL(d[0].kind, "calibrated");
	/* tasks 0-6 settle (pool 3 + 4), then 2 windows of 46 intervals */
	CU_ASSERT_EQUAL(d[0].seq, 7 + 2 * 46 - 1);
	/* B 3 x (6.6 ms tasks: 16 of them are 105.6 ms): the trigger after
	 * the patience's 3 windows of 16 tasks, plus the one the onset is in */
	const double slow_b[2] = { 2.0, 6.0 };
	uint64_t onset = f.seq;
	feed(&f, 400, slow_b, 6.6, 0);
	CU_ASSERT_EQUAL(f.switched, 1);
	CU_ASSERT(f.seq - onset <= 46 + 3 * 16);
	CU_ASSERT(f.seq - onset > 3 * 16);
	btrt_adapt_ctl_free(f.ctl);
	/* a settle below the pool is raised to it (btrt_adapt_settle: every
	 * slot's first use before the windows): pool 10, settle 2 asked */
	o.settle = 2;
	f = (struct feed){ btrt_adapt_ctl_create(&syn_model, syn_s, 5, 0, 10, &o), 0, 0, 0 };
	CU_ASSERT_PTR_NOT_NULL_FATAL(f.ctl);
	feed(&f, 200, even, 2.2, 0);
	d = btrt_adapt_ctl_decisions(f.ctl, &n);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(d[0].seq, 10 + 2 * 46 - 1); /* was 2 + 2 * 46 - 1 */
	btrt_adapt_ctl_free(f.ctl);
}

static void test_ctl_explore_uneven(void)
{
	/* The table is off on A (2.5 ms a stage; the machine: 1), and the run
	 * starts on S2 (A:0 B:1-3), which barely uses A; the build holds S2,
	 * S3 (A:0-3) and S4 (B:0-3). A hog makes B 3 x slower: the model puts
	 * S3 at 10 x 1.1 = 11 against the 9.9 left: no gain, let alone 20 %;
	 * but the PUs slowed unevenly (B 3, A 1), so S3, never run, is tried:
	 * it runs at 4.2 and stays. Without exploration the schedule is kept. */
	static const double t_off[4 * 2] = { 2.5, 1, 2.5, 1, 2.5, 1, 2.5, 1 };
	const struct btrt_model m = { 4, 2, t_off, NULL, NULL, 0.5, syn_pus, "test", NULL };
	struct world w;
	memset(&w, 0, sizeof w);
	static const double ch[5][2] = { { 2, 6 }, { 3, 3 }, { 1, 9 }, { 4, 0 }, { 12, 0 } };
	static const double p[5] = { 6.6, 3.3, 9.9, 4.2, 13.2 };
	memcpy(w.chunk_ms, ch, sizeof ch);
	memcpy(w.period_ms, p, sizeof p);
	char k[256];
	for (int explore = 1; explore >= 0; explore--) {
		syn_init();
		syn_s[0].skip = syn_s[1].skip = 1;
		struct btrt_adapt_options o;
		opts_init(&o);
		if (!explore)
			o.explore = 0;
		struct feed f = { btrt_adapt_ctl_create(&m, syn_s, 5, 2, 3, &o), 0, 0, 0 };
		CU_ASSERT_PTR_NOT_NULL_FATAL(f.ctl);
		const double start[2] = { 1.0, 3.0 };
		feed(&f, 200, start, 3.3, 0);
		CU_ASSERT_EQUAL(f.switched, 0);
		world_feed(&f, &w, 3000);
		kinds(f.ctl, k, sizeof k);
		if (explore) {
			CU_ASSERT_STRING_EQUAL(k, "trial 2>3 accept 3>3");
			CU_ASSERT_EQUAL(btrt_adapt_ctl_current(f.ctl), 3);
		} else {
			CU_ASSERT_STRING_EQUAL(k, "keep 2>2");
			CU_ASSERT_EQUAL(btrt_adapt_ctl_current(f.ctl), 2);
		}
		btrt_adapt_ctl_free(f.ctl);
	}
	syn_init();
}

int suite_adapt_ctl_add(CU_pSuite s)
{
	if (!CU_add_test(s, "cost model: chunk and period", test_model_chunk_ms) ||
	    !CU_add_test(s, "controller: a window lasts window_ms at least; settle >= pool",
			 test_ctl_window_ms) ||
	    !CU_add_test(s, "controller: uneven slowdowns try a schedule never run",
			 test_ctl_explore_uneven) ||
	    !CU_add_test(s, "controller: a slow PU is left for the re-ranked best", test_ctl_switches_away) ||
	    !CU_add_test(s, "controller: stalls and uniform slowdown do not switch", test_ctl_no_flapping) ||
	    !CU_add_test(s, "controller: a gain below the margin does not switch", test_ctl_margin) ||
	    !CU_add_test(s, "controller: slowdowns are relative to the start, not to the table",
			 test_ctl_relative_slowdown) ||
	    !CU_add_test(s, "controller: a schedule that ran slower than predicted is not taken back",
			 test_ctl_learned_ratio) ||
	    !CU_add_test(s, "controller: a trial slower than the schedule left is reverted, once",
			 test_ctl_trial_revert) ||
	    !CU_add_test(s, "controller: after a trial the next-ranked is tried; the best measured stays",
			 test_ctl_next_candidate) ||
	    !CU_add_test(s, "controller: a model wrong about every candidate does not flap",
			 test_ctl_no_flap_misleading_model) ||
	    !CU_add_test(s, "controller: no disturbance, jitter and short bursts: no decision",
			 test_ctl_no_disturbance))
		return -1;
	return 0;
}
