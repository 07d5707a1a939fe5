/* driver/calib: the per-PU fit recovers a known fixed cost and slowdown
 * from synthetic periods, stays at the model where there is nothing to
 * learn, and its leave-one-out prediction never reads the held-out
 * measurement. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/calib.h"
#include "report/fit.h"
#include "util/diag.h"
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
		chunks[k][m++] = (struct btc_calib_chunk){.pu = 0, .predicted_ms = x0[k]};
		if (!isnan(x1[k]))
			chunks[k][m++] = (struct btc_calib_chunk){.pu = 1, .predicted_ms = x1[k]};
		sched[k] = (struct btc_calib_schedule){chunks[k], m, 0, 0, 0};
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
	struct btc_calib_chunk c[2] = {{.pu = 0, .predicted_ms = 2}, {.pu = 2, .predicted_ms = 1}};
	struct btc_calib_schedule s[2] = {{c, 2, 0, 3, 0}, {c, 1, 0, NAN, 0}};
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
	struct btc_calib_schedule io = {c, 2, 7.5, NAN, 0};
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

/* The calibration the bounds use (issue 25). Lease H's octree runs had
 * per-PU lines fitted by least squares on large chunks that read a small
 * chunk (or a noisy median) above the period its schedule ran at: a
 * "bound" above a measurement. Here PU 0 runs at a fixed cost 0.2 ms +
 * 0.7 x, one schedule 20 % faster than that (a short noisy run), PU 1 at
 * x; the least-squares line predicts that schedule above its period, and
 * the lowered one predicts no measured schedule above its period, no
 * chunk of PU 0 above its schedule's period, and T_io at most the least
 * period. */
#define NL 8
static void lowered_build(struct btc_calib_chunk ch[NL][2], struct btc_calib_schedule s[NL])
{
	static const double x0[NL] = {4, 3, 2.5, 2, 1.5, 1, 0.6, 0.4};
	static const double x1[NL] = {1, 1, 1, 1, 2, 2.5, 3, 3.5};
	for (int k = 0; k < NL; k++) {
		ch[k][0] = (struct btc_calib_chunk){.pu = 0, .predicted_ms = x0[k]};
		ch[k][1] = (struct btc_calib_chunk){.pu = 1, .predicted_ms = x1[k]};
		double y = fmax(0.2 + 0.7 * x0[k], x1[k]);
		s[k] = (struct btc_calib_schedule){ch[k], 2, 1.0, k == 2 ? 0.8 * y : y, 0};
	}
}

static void test_lowered(void)
{
	struct btc_calib_chunk ch[NL][2];
	struct btc_calib_schedule s[NL];
	lowered_build(ch, s);
	struct btc_calib_options o;
	btc_calib_options_init(&o);
	struct btc_calib_fit f;
	btc_calib_fit(s, NL, 2, NULL, &o, &f);
	/* the old calibration of the bound: a measured period below it */
	bool above = false;
	for (int k = 0; k < NL; k++)
		above |= btc_calib_predict(&f, &s[k]) > s[k].measured_ms + 1e-9;
	CU_ASSERT_TRUE(above);
	double b0 = f.b[0];
	btc_calib_lower(s, NL, NULL, &f);
	for (int k = 0; k < NL; k++) {
		CU_ASSERT(btc_calib_predict(&f, &s[k]) <= s[k].measured_ms + 1e-12);
		for (int c = 0; c < 2; c++)
			CU_ASSERT(f.a_ms[ch[k][c].pu] + f.b[ch[k][c].pu] * ch[k][c].predicted_ms <=
				  s[k].measured_ms + 1e-12);
	}
	/* lowered by a factor, not reshaped; tight at the point that binds */
	CU_ASSERT(f.b[0] < b0 && f.b[0] > 0.5 * b0);
	double gap = INFINITY;
	for (int k = 0; k < NL; k++)
		gap = fmin(gap, s[k].measured_ms - (f.a_ms[0] + f.b[0] * ch[k][0].predicted_ms));
	CU_ASSERT_DOUBLE_EQUAL(gap, 0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(f.io_cap_ms, 0.8 * (0.2 + 0.7 * 2.5), 1e-12);
	btc_calib_fit_free(&f);
}

/* Leave-one-out for the bound: a schedule left out (use false) is never
 * read by the lowering, however fast its median; a PU with no measured
 * chunk keeps its fit; with no contradiction nothing moves. */
static void test_lowered_loo(void)
{
	struct btc_calib_chunk ch[NL][2];
	struct btc_calib_schedule s[NL];
	lowered_build(ch, s);
	s[2].measured_ms /= 0.8; /* noise-free */
	struct btc_calib_options o;
	btc_calib_options_init(&o);
	o.prior_weight = 1e-9;
	bool use[NL];
	for (int k = 0; k < NL; k++)
		use[k] = k != 5;
	struct btc_calib_fit f, g;
	btc_calib_fit(s, NL, 3, use, &o, &f);
	btc_calib_lower(s, NL, use, &f);
	s[5].measured_ms = 0.01; /* would contradict every line */
	btc_calib_fit(s, NL, 3, use, &o, &g);
	btc_calib_lower(s, NL, use, &g);
	for (int p = 0; p < 3; p++) {
		CU_ASSERT_EQUAL(memcmp(&f.a_ms[p], &g.a_ms[p], sizeof(double)), 0);
		CU_ASSERT_EQUAL(memcmp(&f.b[p], &g.b[p], sizeof(double)), 0);
	}
	CU_ASSERT_DOUBLE_EQUAL(g.b[0], 0.7, 1e-4); /* nothing contradicted the truth */
	CU_ASSERT_DOUBLE_EQUAL(g.a_ms[0], 0.2, 1e-4);
	CU_ASSERT_DOUBLE_EQUAL(g.a_ms[2], 0, 0); /* PU 2: no chunk */
	CU_ASSERT_DOUBLE_EQUAL(g.b[2], 1, 0);
	btc_calib_fit_free(&f);
	/* now in the fit: it is read, and every line drops below it */
	btc_calib_fit(s, NL, 3, NULL, &o, &f);
	btc_calib_lower(s, NL, NULL, &f);
	CU_ASSERT(btc_calib_predict(&f, &s[5]) <= 0.01 + 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(f.io_cap_ms, 0.01, 0);
	btc_calib_fit_free(&f);
	btc_calib_fit_free(&g);
}

/* One fit lowered apart against two sets of schedules (the bound under
 * `placed`: the placed rows against the schedules they predict, the
 * isolated rows of the one-chunk baselines against those; report/
 * fit_bound.c, bound_fit). Schedule 0 stands for a baseline whose rows
 * read PU 0's work 30 % high: lowered with the rest, it pulls PU 0's
 * whole line down; lowered apart, the others' copy is lowered only as far
 * as they contradict it (here not at all: noise-free), the baseline's copy
 * far enough for it, and each set lies at or below its own periods. The
 * copy owns its arrays. */
static void test_lowered_apart(void)
{
	struct btc_calib_chunk ch[NL][2];
	struct btc_calib_schedule s[NL];
	lowered_build(ch, s);
	s[2].measured_ms /= 0.8; /* noise-free */
	ch[0][0].predicted_ms *= 1.3;
	struct btc_calib_options o;
	btc_calib_options_init(&o);
	bool own[NL], other[NL];
	for (int k = 0; k < NL; k++) {
		own[k] = k != 0;
		other[k] = k == 0;
	}
	struct btc_calib_fit f, g, all;
	btc_calib_fit(s, NL, 2, NULL, &o, &f);
	btc_calib_fit_copy(&f, &g);
	btc_calib_fit_copy(&f, &all);
	CU_ASSERT_PTR_NOT_EQUAL(f.b, g.b);
	CU_ASSERT_EQUAL(memcmp(f.b, g.b, 2 * sizeof(double)), 0);
	CU_ASSERT_EQUAL(memcmp(f.a_ms, g.a_ms, 2 * sizeof(double)), 0);
	double b0 = f.b[0];
	btc_calib_lower(s, NL, own, &f);
	btc_calib_lower(s, NL, other, &g);
	btc_calib_lower(s, NL, NULL, &all);
	/* together, the baseline sets PU 0's ratio; apart, it does not */
	CU_ASSERT(all.b[0] < f.b[0] - 1e-6);
	CU_ASSERT(g.b[0] < f.b[0] - 1e-6);
	CU_ASSERT(f.b[0] <= b0 + 1e-12);
	for (int k = 0; k < NL; k++)
		CU_ASSERT(btc_calib_predict(k ? &f : &g, &s[k]) <= s[k].measured_ms + 1e-12);
	/* the baseline under the others' copy: above its period */
	CU_ASSERT(btc_calib_predict(&f, &s[0]) > s[0].measured_ms);
	btc_calib_fit_free(&f);
	CU_ASSERT(g.b[0] > 0); /* g's arrays are its own */
	btc_calib_fit_free(&g);
	btc_calib_fit_free(&all);
}

/* The io cap against the measurements' intervals (issue 25, octree on
 * lease K: the profile's T_io read high, the cap at the least other median
 * lay above the chosen's median). The table's T_io is 1.0 ms, the io
 * threads' true one 0.8; three schedules with small chunks run io-bound
 * at medians 0.90-1.00 ms, the runs of the fastest reaching 0.81 (the
 * lower end of its interval), and the chosen, left out, at 0.82. Capped
 * at the least median (the old rule) T_io reads the chosen 10 % above its
 * period; capped at the least lower end it lies at or below it. The
 * chunks' lowering still uses the medians: the lines do not move. */
static void test_io_cap_interval(void)
{
	enum { NI = 4 };
	static const double x0[NI] = {0.5, 0.4, 0.3, 0.45}, x1[NI] = {0.2, 0.3, 0.4, 0.3};
	static const double med[NI] = {0.90, 0.95, 1.00, 0.82}, low[NI] = {0.81, 0.90, 0.96, 0.80};
	struct btc_calib_chunk ch[NI][2];
	struct btc_calib_schedule s[NI];
	bool use[NI] = {true, true, true, false}; /* schedule 3: the chosen */
	for (int k = 0; k < NI; k++) {
		ch[k][0] = (struct btc_calib_chunk){.pu = 0, .predicted_ms = x0[k]};
		ch[k][1] = (struct btc_calib_chunk){.pu = 1, .predicted_ms = x1[k]};
		s[k] = (struct btc_calib_schedule){ch[k], 2, 1.0, med[k], 0};
	}
	struct btc_calib_options o;
	btc_calib_options_init(&o);
	struct btc_calib_fit f, g;
	btc_calib_fit(s, NI, 2, use, &o, &f);
	btc_calib_lower(s, NI, use, &f);
	/* without intervals: the cap is the least median, above the chosen */
	CU_ASSERT_DOUBLE_EQUAL(f.io_cap_ms, 0.90, 1e-12);
	CU_ASSERT(btc_calib_predict(&f, &s[3]) > med[3]);
	for (int k = 0; k < NI; k++)
		s[k].measured_low_ms = low[k];
	btc_calib_fit(s, NI, 2, use, &o, &g);
	btc_calib_lower(s, NI, use, &g);
	CU_ASSERT_DOUBLE_EQUAL(g.io_cap_ms, 0.81, 1e-12); /* the chosen's 0.80 not read */
	CU_ASSERT(btc_calib_predict(&g, &s[3]) <= med[3]);
	for (int p = 0; p < 2; p++) { /* the chunks' lowering: medians, as before */
		CU_ASSERT_DOUBLE_EQUAL(g.a_ms[p], f.a_ms[p], 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(g.b[p], f.b[p], 1e-12);
	}
	/* a lower end above the median or missing (NAN) leaves the median */
	s[0].measured_low_ms = 0.95;
	s[1].measured_low_ms = NAN;
	btc_calib_lower(s, NI, use, &g);
	CU_ASSERT_DOUBLE_EQUAL(g.io_cap_ms, 0.90, 1e-12);
	btc_calib_fit_free(&f);
	btc_calib_fit_free(&g);
}

/* The bound's per-stage form (issue 25: a small chunk and large ones on
 * one PU, as octree's cuda:0-5 cpu:6 on leases G-I). On the CPU the
 * table reads stage 0 40 % high (1.0 ms, runs in 0.6) and the others
 * right, so every CPU chunk holding stage 0 runs below its table time
 * while the one-stage chunk cpu:3 runs at it. Every schedule of the
 * two-PU space of 4 stages is measured; the chosen, gpu:0-2 cpu:3 (its
 * period set by cpu:3), is left out. The per-PU line, fitted mostly on
 * chunks with stage 0 and lowered, reads the chosen below 0.85 of its
 * measurement; the per-stage factors, lowered the same way, read it at
 * 0.9-1, and no fitted measurement lies below either. */
#define NS 4
#define NG 8
static void stages_build(struct btc_calib_chunk ch[NG][2], struct btc_calib_schedule s[NG])
{
	static const double cpu_t[NS] = {1.0, 0.3, 0.3, 0.7}, gpu_t[NS] = {0.3, 0.1, 0.1, 0.5};
	static const double cpu_f[NS] = {0.6, 1.0, 1.0, 1.0}; /* run / table */
	/* gpu:0-j cpu:j+1-3 (j = 2, 1, 0), cpu:0-j gpu:j+1-3, cpu:0-3 (its one
	 * chunk the second part, on the CPU), gpu:0-3 */
	static const int split[NG] = {2, 1, 0, 0, 1, 2, -1, 3};
	static const bool gpu_first[NG] = {true, true, true, false, false, false, true, true};
	for (int k = 0; k < NG; k++) {
		int n = 0;
		double y = 0;
		for (int part = 0; part < 2; part++) {
			int f = part ? split[k] + 1 : 0, l = part ? NS - 1 : split[k];
			if (f > l)
				continue;
			bool gpu = gpu_first[k] == (part == 0);
			const double *t = gpu ? gpu_t : cpu_t;
			double x = 0, truth = 0;
			for (int i = f; i <= l; i++) {
				x += t[i];
				truth += gpu ? t[i] : cpu_f[i] * t[i];
			}
			ch[k][n++] = (struct btc_calib_chunk){.pu = gpu,
							      .predicted_ms = x,
							      .first_stage = f,
							      .n_stages = l - f + 1,
							      .stage_stride = 1,
							      .stage_ms = &t[f]};
			y = fmax(y, truth);
		}
		s[k] = (struct btc_calib_schedule){ch[k], n, 0, y, 0};
	}
}

static void test_stages(void)
{
	struct btc_calib_chunk ch[NG][2];
	struct btc_calib_schedule s[NG];
	stages_build(ch, s);
	CU_ASSERT_DOUBLE_EQUAL(s[0].measured_ms, 0.7, 1e-12); /* the chosen: cpu:3 */
	bool use[NG];
	for (int k = 0; k < NG; k++)
		use[k] = k != 0;
	double got[2];
	for (int form = 0; form < 2; form++) {
		struct btc_calib_options o;
		btc_calib_options_init(&o);
		o.stage_weight = form ? 0.3 : 0; /* 0.3: the bound's weight */
		struct btc_calib_fit f;
		btc_calib_fit(s, NG, 2, use, &o, &f);
		btc_calib_lower(s, NG, use, &f);
		for (int k = 1; k < NG; k++)
			CU_ASSERT(btc_calib_predict(&f, &s[k]) <= s[k].measured_ms + 1e-12);
		CU_ASSERT_EQUAL(f.d != NULL, form == 1);
		got[form] = btc_calib_predict(&f, &s[0]);
		btc_calib_fit_free(&f);
	}
	CU_ASSERT(got[0] < 0.85 * s[0].measured_ms); /* the per-PU line */
	CU_ASSERT(got[1] >= 0.9 * s[0].measured_ms && got[1] <= s[0].measured_ms + 1e-12);
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

/* A report of two verified schedules for btc_fit_judge_bound: the
 * chosen's median 0.274 ms [95 %: 0.267, 0.281] (H100 lease L's
 * alexnet-dense-vulkan-g1) and another's of 0.300 ms, with or without
 * its interval [0.290, 0.310]. */
static void judged(struct btc_report *r, bool other_ci)
{
	btc_report_init(r);
	r->n_candidates = 2;
	r->candidates = btc_report_candidates_new(2);
	static const double med[2] = {0.274, 0.300}, lo[2] = {0.267, 0.290},
			    hi[2] = {0.281, 0.310};
	for (int k = 0; k < 2; k++) {
		struct btc_report_candidate *c = &r->candidates[k];
		c->label = btc_xstrdup(k ? "cpu:0-8" : "vulkan:0-5 cpu:6-8");
		c->status = BTC_RUN_VERIFIED;
		c->measured_ms = med[k];
		c->ci_low_ms = k && !other_ci ? NAN : lo[k];
		c->ci_high_ms = k && !other_ci ? NAN : hi[k];
	}
	r->chosen = 0;
	r->measured_ms = med[0];
}

/* The printed bound lines of r with an assignment bound a and a fluid
 * bound fl (caller frees). */
static char *printed(struct btc_report *r, double a, double fl)
{
	r->fluid_bound_ms = r->fluid_lp_ms = fl;
	r->fluid_io_ms = 0.002;
	r->assign_bound_ms = a;
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	btc_fit_print_bound(r, f);
	fclose(f);
	return text;
}

/* The judgement is statistical: a median below the bound whose 95 %
 * interval holds it keeps its efficiency (above 100 %, with its interval)
 * and is not flagged; an interval wholly below the bound is flagged with
 * no efficiency; without an interval the median alone decides. */
static void test_judge_bound(void)
{
	struct btc_report r;
	judged(&r, true);
	CU_ASSERT_FALSE(btc_fit_judge_bound(&r, 0.278, 0.237));
	CU_ASSERT_FALSE(r.bound_below);
	CU_ASSERT_DOUBLE_EQUAL(r.efficiency, 0.278 / 0.274, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(r.efficiency_ci_low, 0.278 / 0.281, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(r.efficiency_ci_high, 0.278 / 0.267, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(r.fluid_efficiency, 0.237 / 0.274, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(r.candidates[0].efficiency, 0.278 / 0.274, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(r.candidates[1].efficiency, 0.278 / 0.300, 1e-12);
	char *text = printed(&r, 0.278, 0.237);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "efficiency: assignment bound / measured = 101.5 % "
					    "[98.9, 104.1] for the chosen schedule"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "the bound lies inside the measured 95 % interval"));
	CU_ASSERT_PTR_NULL(strstr(text, "NOT a bound"));
	free(text);
	btc_report_free(&r);

	/* 0.285 > 0.281: the chosen's whole interval lies below the bound */
	judged(&r, true);
	CU_ASSERT_TRUE(btc_fit_judge_bound(&r, 0.285, 0.237));
	CU_ASSERT_TRUE(r.bound_below);
	CU_ASSERT_TRUE(isnan(r.efficiency));
	CU_ASSERT_TRUE(isnan(r.efficiency_ci_low) && isnan(r.efficiency_ci_high));
	CU_ASSERT_TRUE(isnan(r.candidates[0].efficiency));
	CU_ASSERT_DOUBLE_EQUAL(r.candidates[1].efficiency, 0.285 / 0.300, 1e-12);
	r.bound_below_term = btc_xstrdup("compute");
	r.bound_below_pu = btc_xstrdup("vulkan");
	text = printed(&r, 0.285, 0.237);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "assignment bound: NOT a bound here: a measured "
					    "period's 95 % interval lies wholly below it (compute "
					    "term of PU vulkan reads high"));
	CU_ASSERT_PTR_NULL(strstr(text, "efficiency:"));
	free(text);
	btc_report_free(&r);

	/* the other schedule: inside its interval [0.290, 0.310] is within
	 * noise; without an interval its median 0.300 < 0.305 flags it */
	judged(&r, true);
	CU_ASSERT_TRUE(btc_fit_judge_bound(&r, 0.305, 0.237)); /* the chosen too */
	CU_ASSERT_DOUBLE_EQUAL(r.candidates[1].efficiency, 0.305 / 0.300, 1e-12);
	btc_report_free(&r);
	judged(&r, false);
	CU_ASSERT_FALSE(btc_fit_judge_bound(&r, 0.279, 0.237));
	CU_ASSERT_FALSE(r.bound_below);
	CU_ASSERT_DOUBLE_EQUAL(r.efficiency, 0.279 / 0.274, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(r.candidates[1].efficiency, 0.279 / 0.300, 1e-12);
	btc_report_free(&r);
	judged(&r, false);
	r.candidates[1].measured_ms = 0.276;
	CU_ASSERT_TRUE(btc_fit_judge_bound(&r, 0.279, 0.237));
	CU_ASSERT_TRUE(isnan(r.candidates[1].efficiency));
	CU_ASSERT_FALSE(r.bound_below);
	btc_report_free(&r);
}

int register_calib_suite(void)
{
	CU_pSuite s = CU_add_suite("calib", NULL, NULL);
	return !s || !CU_add_test(s, "recovers a and b", test_recovers) ||
	       !CU_add_test(s, "prior", test_prior) ||
	       !CU_add_test(s, "leave one out", test_loo) ||
	       !CU_add_test(s, "lowered for the bound", test_lowered) ||
	       !CU_add_test(s, "lowered, leave one out", test_lowered_loo) ||
	       !CU_add_test(s, "one fit lowered apart", test_lowered_apart) ||
	       !CU_add_test(s, "io cap at the intervals' lower ends", test_io_cap_interval) ||
	       !CU_add_test(s, "per-stage factors for the bound", test_stages) ||
	       !CU_add_test(s, "metrics", test_metrics) ||
	       !CU_add_test(s, "the bound judged on the measured intervals", test_judge_bound);
}
