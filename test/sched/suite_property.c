/* Property test: 500 random tables in full, 100 by default (2 to 10
 * stages, 2 to 5 PUs, missing kernels, deliberate ties), each with random
 * options, for each objective: Z3 and the exhaustive enumerator give the
 * same ranking (hence the same optimum), no candidate twice, every
 * candidate satisfies C1-C3 and the options; and 200 (by default 40)
 * tables with the chunk model's F, X and T_io terms. Fixed seed; a private
 * generator so every libc gives the same tables; the default runs are the
 * first fifth of the full sequences (BTC_TEST_FULL=1, docs/testing.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "sched/model.h"
#include "rng.h"
#include "suites.h"
#include "testutil.h"

/* Under BTC_TEST_FULL=1 (scripts/test --full); by default the first
 * fifth of the same sequences (docs/testing.md, "Default and full sizes"). */
#define N_TABLES 500
#define N_MODEL_TABLES 200
#define QUICK_DIVISOR 5

/* The chunk model's terms for a random table: F_c on some PUs, T_io, and
 * transfers X_c(f, l) either from random buffers read and written by the
 * stages (what btc computes for an app; X is not monotone in the chunk)
 * or arbitrary (adversarial); on the coarse grid too, for ties. */
static void random_model(struct btc_sched_problem *p, bool coarse,
			 double *fixed, double *xfer)
{
	int n = p->n_stages, np = p->n_pus;
	for (int c = 0; c < np; c++)
		fixed[c] = rnd_in(0, 2) ? (coarse ? 0.5 * rnd_in(0, 2)
						  : rnd_in(0, 20000) / 1e4)
					: 0;
	p->fixed_ms = rnd_in(0, 3) ? fixed : NULL;
	p->io_ms = rnd_in(0, 2) ? 0 : rnd_in(0, 300000) / 1e4;
	int kind = rnd_in(0, 2);
	if (kind == 0) {
		p->xfer_ms = NULL;
		return;
	}
	if (kind == 1) {
		for (size_t k = 0; k < (size_t)n * np * n; k++)
			xfer[k] = coarse ? 0.5 * rnd_in(0, 3)
					 : rnd_in(0, 30000) / 1e4;
	} else {
		enum { NB = 6 };
		double bytes[NB];
		unsigned char rd[10 * NB], wr[10 * NB], io[NB];
		for (int b = 0; b < NB; b++) {
			bytes[b] = rnd_in(1, 1 << 22);
			io[b] = rnd_in(0, 3) == 0;
		}
		for (int k = 0; k < n * NB; k++) {
			rd[k] = rnd_in(0, 3) == 0;
			wr[k] = rnd_in(0, 4) == 0;
		}
		struct btc_model_buffers mb = { n, NB, bytes, rd, wr, io, NULL, NULL };
		struct btc_model_link links[5];
		bool has[5];
		for (int c = 0; c < np; c++) {
			has[c] = rnd_in(0, 1);
			links[c] = (struct btc_model_link){
				rnd_in(0, 500) / 1e4, rnd_in(0, 5000) / 1e4,
				rnd_in(0, 500) / 1e4, rnd_in(0, 5000) / 1e4 };
		}
		btc_model_fill_transfers(&mb, links, has, np, xfer);
	}
	p->xfer_ms = xfer;
}

/* The chunk boundary term S_{i,c} (an `@in_chunk` row's t - t^in) on
 * about half the PUs, as on a GPU PU: 0 elsewhere. */
static void random_starts(struct btc_sched_problem *p, bool coarse, double *start)
{
	int n = p->n_stages, np = p->n_pus;
	for (int c = 0; c < np; c++) {
		bool gpu = rnd_in(0, 1);
		for (int i = 0; i < n; i++)
			start[i * np + c] = !gpu || isnan(p->time_ms[i * np + c]) ? 0
					    : coarse ? 0.5 * rnd_in(0, 4)
						     : rnd_in(0, 40000) / 1e4;
	}
	p->start_ms = start;
}

/* The least T_max over the multi-chunk schedules of the paper's space
 * (contiguous chunks, one per PU) that respect o, in doubles through
 * btc_model_chunk_ms: a check of the solvers' quantised chunk terms
 * independent of both. Stages from f on, PUs in `used`, T_max so far. */
static double brute_tmax(const struct btc_sched_problem *p, const struct btc_sched_options *o,
			 int f, uint32_t used, int chunks, double tmax)
{
	int n = p->n_stages, np = p->n_pus;
	if (f == n)
		return chunks >= 2 && (!o->max_chunks || chunks <= o->max_chunks) ? tmax
										 : INFINITY;
	double best = INFINITY;
	for (int c = 0; c < np; c++) {
		if ((used | o->forbid_mask) & (1u << c))
			continue;
		for (int l = f; l < n; l++) {
			double t = p->time_ms[l * np + c];
			if (isnan(t) || (o->pin && o->pin[l] >= 0 && o->pin[l] != c))
				break;
			double ch = btc_model_chunk_ms(p, c, f, l);
			best = fmin(best, brute_tmax(p, o, l + 1, used | 1u << c, chunks + 1,
						     fmax(tmax, ch)));
		}
	}
	return best;
}

static void random_tables(int n_tables, bool model, bool starts, uint64_t seed)
{
	rng_state = seed;
	int compared = 0, with_candidates = 0;
	for (int t = 0; t < n_tables; t++) {
		int n = rnd_in(2, 10), np = rnd_in(2, 5);
		double time_ms[10 * 5], fixed[5], xfer[10 * 5 * 10], start[10 * 5];
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
		if (model)
			random_model(&p, coarse, fixed, xfer);
		if (starts)
			random_starts(&p, coarse, start);
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
		if (rnd_in(0, 4) == 0)
			o.pin = rnd_pin(pin, time_ms, n, np, o.forbid_mask);
		for (int ob = 0; ob < 3; ob++) {
			o.objective = (enum btc_sched_objective)ob;
			struct btc_diag d;
			btc_diag_init(&d, NULL);
			struct btc_sched_result z, e;
			/* the first fifth of the tables also through the
			 * one-by-one fallback (window of 1 schedule) */
			btc_sched_z3_window_cap = t < n_tables / 5 ? 1 : 0;
			enum btc_status sz = btc_sched_solve_z3(&p, &o, &z, &d);
			btc_sched_z3_window_cap = 0;
			enum btc_status se =
				btc_sched_solve_exhaustive(&p, &o, &e, &d);
			CU_ASSERT_EQUAL(sz, se);
			if (sz == BTC_OK && se == BTC_OK) {
				char what[64];
				snprintf(what, sizeof(what),
					 "%stable %d (%dx%d, K %d, U %d) %s",
					 model ? "model " : "", t,
					 n, np, o.top_k, o.util_pct,
					 btc_sched_objective_name(o.objective));
				CU_ASSERT(z.optimal);
				same_ranking(what, &z, &e);
				/* with S: the best T_max is the model's, within the
				 * quantisation (BTC_SCHED_MAX_QUANT_ERR per term) */
				if (starts && o.objective == BTC_SCHED_LATENCY && z.n_candidates) {
					double want = brute_tmax(&p, &o, 0, 0, 0, 0);
					double got = z.candidates[0].tmax_ms;
					CU_ASSERT(fabs(got - want) <= 0.02 * want + 1e-9);
					if (!(fabs(got - want) <= 0.02 * want + 1e-9))
						fprintf(stderr, "%s: best T_max %g, the model's %g\n",
							what, got, want);
				}
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
	CU_ASSERT(compared >= 3 * n_tables * 9 / 10);
	CU_ASSERT(with_candidates >= compared * 3 / 4);
}

static void test_random_tables(void)
{
	random_tables(btc_test_full() ? N_TABLES : N_TABLES / QUICK_DIVISOR, false, false, 20241121);
}

static void test_random_start_tables(void)
{
	random_tables(btc_test_full() ? N_MODEL_TABLES : N_MODEL_TABLES / QUICK_DIVISOR, true,
		      true, 20261126);
}

static void test_random_model_tables(void)
{
	random_tables(btc_test_full() ? N_MODEL_TABLES : N_MODEL_TABLES / QUICK_DIVISOR, true,
		      false, 20250301);
}

/* The buffers a chunk moves (btc_model_chunk_bytes, the CUDA runtime's
 * rule): 4 stages, buffers (bytes):
 *   w 1    weights, read by s1 only, no stage writes it: never moves
 *   a 10   written s0, read s1
 *   b 100  written s1, read s2 (an intermediate when s1, s2 share a chunk)
 *   o 1000 written s3, read by no stage (an output)
 *   p 10000 written s0, read s3, in place (pinned): never moves
 *   l 100000 io-loaded, written s2, read s3 */
static void test_moved_buffers(void)
{
	enum { NS = 4, B = 6 };
	double bytes[B] = { 1, 10, 100, 1000, 10000, 100000 };
	unsigned char rd[NS * B] = {0}, wr[NS * B] = {0}, io[B] = {0}, in_place[B] = {0};
	wr[0 * B + 1] = 1; rd[1 * B + 1] = 1;   /* a */
	rd[1 * B + 0] = 1;                      /* w */
	wr[1 * B + 2] = 1; rd[2 * B + 2] = 1;   /* b */
	wr[3 * B + 3] = 1;                      /* o */
	wr[0 * B + 4] = 1; rd[3 * B + 4] = 1;   /* p */
	in_place[4] = 1;
	io[5] = 1; wr[2 * B + 5] = 1; rd[3 * B + 5] = 1; /* l */
	struct btc_model_buffers mb = { NS, B, bytes, rd, wr, io, in_place, NULL };
	static const struct { int f, l; double bytes; int n; } want[] = {
		{ 0, 0, 10, 1 },        /* a (read by s1) */
		{ 1, 1, 110, 2 },       /* a in, b out; w resident */
		{ 1, 2, 100010, 2 },    /* a, l; b private to the chunk */
		{ 2, 3, 101100, 3 },    /* b, o, l; p in place */
		{ 0, 3, 101000, 2 },    /* o (output), l (io-loaded); a, b private */
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		double in, out;
		int n_in, n_out;
		btc_model_chunk_bytes(&mb, want[i].f, want[i].l, &in, &n_in, &out, &n_out);
		CU_ASSERT_DOUBLE_EQUAL(in, want[i].bytes, 1e-9);
		CU_ASSERT_DOUBLE_EQUAL(out, want[i].bytes, 1e-9);
		CU_ASSERT_EQUAL(n_in, want[i].n);
		CU_ASSERT_EQUAL(n_out, want[i].n);
		if (in != want[i].bytes || n_in != want[i].n)
			fprintf(stderr, "chunk %d..%d: moved %.0f bytes in %d buffers, want %.0f in %d\n",
				want[i].f, want[i].l, in, n_in, want[i].bytes, want[i].n);
	}
	/* o marked scratch (`scratch: true`): no output, so the chunk that
	 * alone touches it keeps it; a chunk beside another stage that touches
	 * a scratch buffer still moves it */
	unsigned char scratch[B] = {0};
	scratch[3] = 1;
	mb.scratch = scratch;
	double in, out;
	int n_in, n_out;
	btc_model_chunk_bytes(&mb, 0, 3, &in, &n_in, &out, &n_out);
	CU_ASSERT_DOUBLE_EQUAL(in, 100000, 1e-9); /* l alone */
	CU_ASSERT_EQUAL(n_in, 1);
	scratch[3] = 0;
	scratch[1] = 1; /* a, read by s1 outside the chunk 0..0 */
	btc_model_chunk_bytes(&mb, 0, 0, &in, &n_in, &out, &n_out);
	CU_ASSERT_DOUBLE_EQUAL(in, 10, 1e-9);
	CU_ASSERT_EQUAL(n_in, 1);
}

int register_property_suite(void)
{
	CU_pSuite s = CU_add_suite("property", NULL, NULL);
	if (!s || !CU_add_test(s, "random tables (500 in full): z3 == exhaustive",
			       test_random_tables) ||
	    !CU_add_test(s, "random tables with F, X, T_io (200 in full): z3 == "
			 "exhaustive", test_random_model_tables) ||
	    !CU_add_test(s, "random tables with F, X, T_io and the chunk boundary term S: "
			 "z3 == exhaustive", test_random_start_tables) ||
	    !CU_add_test(s, "the buffers a chunk moves", test_moved_buffers))
		return -1;
	return 0;
}
