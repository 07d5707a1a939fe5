/* driver/workload_calib: the per-app, per-PU scales of a hand table
 * (bottleneck chunk, or the io thread, to the measured period, the other
 * chunks capped at it, idle PUs as they are), the scaled copy of a problem, and
 * the calibrated bound and predicted M: btc_multi_bound and
 * btc_multi_evaluate on tables scaled here by hand, with weights w_s /
 * measured period, and a hand-solved bound. */
#include <math.h>
#include <string.h>

#include "driver/workload_calib.h"
#include "sched/model.h"
#include "suites.h"

/* 2 stages x 2 PUs (0 "cpu", 1 "gpu"): stage 0 cpu 2 gpu 5, stage 1 cpu 3
 * gpu 4. The solo schedule cpu:0, gpu:1 has chunks 2 ms (cpu) and 4 ms
 * (gpu): period 4, the gpu its bottleneck. */
static const double hand_t[4] = {2, 5, 3, 4};
static const int hand_solo[2] = {0, 1};

static struct btc_sched_problem hand(void)
{
	return (struct btc_sched_problem){.n_stages = 2, .n_pus = 2, .time_ms = hand_t};
}

static void test_scales(void)
{
	struct btc_sched_problem p = hand();
	double b[2], io, tab, cal;
	/* slower than the table: only the bottleneck's PU slows */
	btc_workload_calib_scales(&p, hand_solo, 6, b, &io, &tab, &cal);
	CU_ASSERT_DOUBLE_EQUAL(tab, 4, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(b[1], 1.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(b[0], 1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(io, 1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(cal, 6, 1e-12);
	/* faster, above the other chunk: the bottleneck to the period */
	btc_workload_calib_scales(&p, hand_solo, 3, b, &io, &tab, &cal);
	CU_ASSERT_DOUBLE_EQUAL(b[1], 0.75, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(b[0], 1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(cal, 3, 1e-12);
	/* faster than the other chunk too: it is capped at the period */
	btc_workload_calib_scales(&p, hand_solo, 1.5, b, &io, &tab, &cal);
	CU_ASSERT_DOUBLE_EQUAL(b[1], 0.375, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(b[0], 0.75, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(cal, 1.5, 1e-12);
	/* one chunk: the idle PU keeps scale 1 */
	const int all_cpu[2] = {0, 0};
	btc_workload_calib_scales(&p, all_cpu, 2.5, b, &io, &tab, &cal);
	CU_ASSERT_DOUBLE_EQUAL(tab, 5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(b[0], 0.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(b[1], 1, 1e-12);
	/* F scales with its PU */
	const double F[2] = {0.5, 1};
	p.fixed_ms = F;
	btc_workload_calib_scales(&p, hand_solo, 2.5, b, &io, &tab, &cal);
	CU_ASSERT_DOUBLE_EQUAL(tab, 5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(b[1], 0.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(b[0], 1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(cal, 2.5, 1e-12);
	p.fixed_ms = NULL;
	/* an io thread below the bottleneck is capped as the chunks are */
	p.io_ms = 3.5;
	btc_workload_calib_scales(&p, hand_solo, 3, b, &io, &tab, &cal);
	CU_ASSERT_DOUBLE_EQUAL(io, 3 / 3.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(b[1], 0.75, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(cal, 3, 1e-12);
	btc_workload_calib_scales(&p, hand_solo, 5, b, &io, &tab, &cal);
	CU_ASSERT_DOUBLE_EQUAL(io, 1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(b[1], 1.25, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(cal, 5, 1e-12);
	/* the io thread the bottleneck (5 > 4): the period informs it, the
	 * chunks only by the cap */
	p.io_ms = 5;
	btc_workload_calib_scales(&p, hand_solo, 3, b, &io, &tab, &cal);
	CU_ASSERT_DOUBLE_EQUAL(tab, 5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(io, 0.6, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(b[1], 0.75, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(b[0], 1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(cal, 3, 1e-12);
	btc_workload_calib_scales(&p, hand_solo, 6, b, &io, &tab, &cal);
	CU_ASSERT_DOUBLE_EQUAL(io, 1.2, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(b[1], 1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(b[0], 1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(cal, 6, 1e-12);
}

static void test_scaled_problem(void)
{
	struct btc_sched_problem p = hand();
	const double F[2] = {0.5, 1}, S[4] = {0.1, 0.2, 0.3, 0.4};
	double X[8];
	for (int i = 0; i < 8; i++)
		X[i] = 1;
	p.fixed_ms = F;
	p.start_ms = S;
	p.xfer_ms = X;
	p.io_ms = 0.7;
	const double scale[2] = {0.5, 2};
	struct btc_workload_scaled s;
	btc_workload_scaled_make(&p, scale, 1.5, &s);
	for (int i = 0; i < 2; i++)
		for (int c = 0; c < 2; c++) {
			CU_ASSERT_DOUBLE_EQUAL(s.p.time_ms[i * 2 + c], hand_t[i * 2 + c] * scale[c], 0);
			CU_ASSERT_DOUBLE_EQUAL(s.p.start_ms[i * 2 + c], S[i * 2 + c] * scale[c], 0);
		}
	for (int c = 0; c < 2; c++) {
		CU_ASSERT_DOUBLE_EQUAL(s.p.fixed_ms[c], F[c] * scale[c], 0);
		for (int f = 0; f < 2; f++)
			for (int l = f; l < 2; l++)
				CU_ASSERT_DOUBLE_EQUAL(
					s.p.xfer_ms[btc_model_xfer_index(2, 2, c, f, l)], scale[c], 0);
		/* a chunk's model time scales as a whole */
		CU_ASSERT_DOUBLE_EQUAL(btc_model_chunk_ms(&s.p, c, 0, 1),
				       scale[c] * btc_model_chunk_ms(&p, c, 0, 1), 1e-12);
	}
	CU_ASSERT_DOUBLE_EQUAL(s.p.io_ms, 0.7 * 1.5, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(p.io_ms, 0.7, 0);
	CU_ASSERT_PTR_EQUAL(hand_t, p.time_ms); /* the original untouched */
	btc_workload_scaled_free(&s);
}

/* One app, one stream, stages cpu 2 gpu 3 each, solo all on the cpu (4
 * ms). Measured 2 ms: cpu x0.5, the gpu idle in the solo (x1). Fluid:
 * the cpu does 1 stage/ms, the gpu 1/3: r = (4/3) / 2 tasks/ms, M = r x 2
 * = 4/3 (the table's: r = (1/2 + 1/3) / 2 = 5/12, M = 5/12 x 4 = 5/3). */
static void test_hand_bound(void)
{
	static const double t[4] = {2, 3, 2, 3};
	struct btc_sched_problem p = {.n_stages = 2, .n_pus = 2, .time_ms = t};
	struct btc_multi_stream st = {.p = &p, .app = 0, .weight = 1};
	struct btc_multi_problem m = {.n_streams = 1, .n_pus = 2, .streams = &st, .top_k = 1};
	const int solo[2] = {0, 0};
	const int *solos[1] = {solo}, *cand[1] = {solo};
	double ms = 2, w = 1;
	struct btc_workload_calib c;
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	CU_ASSERT_TRUE(btc_workload_calib_problem(&m, 1, solos, &ms, &w, cand, 1, NULL, &c, &d));
	CU_ASSERT_DOUBLE_EQUAL(c.bound, 4.0 / 3.0, 1e-9);
	/* the solo schedule itself, calibrated: M = 1 */
	CU_ASSERT_DOUBLE_EQUAL(c.predicted[0], 1, 1e-12);
	CU_ASSERT_TRUE(isnan(c.naive));
	btc_workload_calib_free(&c);
	ms = 4; /* as the table: nothing moves */
	st.weight = 1.0 / 4;
	double table;
	CU_ASSERT_EQUAL(btc_multi_bound(&m, &table, &d), BTC_OK);
	CU_ASSERT_TRUE(btc_workload_calib_problem(&m, 1, solos, &ms, &w, cand, 1, NULL, &c, &d));
	CU_ASSERT_DOUBLE_EQUAL(c.bound, 5.0 / 3.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(c.bound, table, 1e-12);
	btc_workload_calib_free(&c);
}

/* Two apps (3 stages x 2 PUs, 2 stages x 2 PUs), 2 + 1 streams: the
 * calibrated bound is btc_multi_bound on the tables scaled here with the
 * scales it reports, weights w_s / measured period; each candidate's
 * calibrated M is btc_multi_evaluate's min_s r_s P_a / w_s there. */
static void test_consistent(void)
{
	static const double ta[6] = {1.0, 2.5, 3.0, 1.2, 0.7, 2.0};
	static const double tb[4] = {0.4, 0.3, 0.2, 0.5};
	struct btc_sched_problem pa = {.n_stages = 3, .n_pus = 2, .time_ms = ta};
	struct btc_sched_problem pb = {.n_stages = 2, .n_pus = 2, .time_ms = tb};
	struct btc_multi_stream st[3] = {{.p = &pa, .app = 0, .weight = 9},
					 {.p = &pa, .app = 0, .weight = 9},
					 {.p = &pb, .app = 1, .weight = 9}};
	struct btc_multi_problem m = {.n_streams = 3, .n_pus = 2, .streams = st, .top_k = 1};
	const int sa[3] = {0, 1, 1}, sb[2] = {1, 0};
	const int *solos[2] = {sa, sb};
	const int c0[8] = {0, 1, 1, 0, 0, 1, 1, 0}, c1[8] = {0, 0, 1, 1, 1, 1, 0, 0};
	const int *cand[2] = {c0, c1};
	double ms[2] = {2.1, 0.35}, w[3] = {1, 1, 2};
	struct btc_workload_calib c;
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	CU_ASSERT_TRUE(btc_workload_calib_problem(&m, 2, solos, ms, w, cand, 2, c0, &c, &d));
	/* a: chunks cpu 1.0, gpu 1.2 + 2.0 = 3.2 (the bottleneck): gpu
	 * 2.1 / 3.2, cpu 1 (1.0 < 2.1); b: gpu 0.3 (the bottleneck), cpu
	 * 0.2: gpu 0.35 / 0.3, cpu 1 (0.2 < 0.35) */
	CU_ASSERT_DOUBLE_EQUAL(c.scale[0][1], 2.1 / 3.2, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(c.scale[0][0], 1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(c.scale[1][1], 0.35 / 0.3, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(c.scale[1][0], 1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(c.calibrated_ms[0], 2.1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(c.calibrated_ms[1], 0.35, 1e-12);
	double xa[6], xb[4];
	for (int i = 0; i < 6; i++)
		xa[i] = ta[i] * c.scale[0][i % 2];
	for (int i = 0; i < 4; i++)
		xb[i] = tb[i] * c.scale[1][i % 2];
	struct btc_sched_problem qa = pa, qb = pb;
	qa.time_ms = xa;
	qb.time_ms = xb;
	struct btc_multi_stream q[3] = {{.p = &qa, .app = 0, .weight = w[0] / ms[0]},
					{.p = &qa, .app = 0, .weight = w[1] / ms[0]},
					{.p = &qb, .app = 1, .weight = w[2] / ms[1]}};
	struct btc_multi_problem mq = m;
	mq.streams = q;
	double bound;
	CU_ASSERT_EQUAL(btc_multi_bound(&mq, &bound, &d), BTC_OK);
	CU_ASSERT_DOUBLE_EQUAL(c.bound, bound, 1e-12 * bound);
	for (int k = 0; k < 2; k++) {
		struct btc_multi_eval e;
		CU_ASSERT_TRUE(btc_multi_evaluate(&mq, cand[k], &e));
		double v = INFINITY;
		for (int s = 0; s < 3; s++)
			v = fmin(v, e.rate[s] * ms[q[s].app] / w[s]);
		CU_ASSERT_DOUBLE_EQUAL(c.predicted[k], v, 1e-12);
		CU_ASSERT(c.predicted[k] <= c.bound * (1 + 1e-9));
		btc_multi_eval_free(&e);
	}
	CU_ASSERT_DOUBLE_EQUAL(c.naive, c.predicted[0], 1e-12);
	btc_workload_calib_free(&c);
}

int register_workload_calib_suite(void)
{
	CU_pSuite s = CU_add_suite("workload-calib", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "per-PU scales of a hand table", test_scales);
	CU_add_test(s, "the scaled copy", test_scaled_problem);
	CU_add_test(s, "a hand-solved calibrated bound", test_hand_bound);
	CU_add_test(s, "bound and M on the scaled tables", test_consistent);
	return 0;
}
