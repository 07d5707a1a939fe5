/* The pool against the positions that hold a task (issue 25): a synthetic
 * pipeline with the per-task times of octree cuda:0-5 cpu:6 on an H100
 * (docs/results/eval-h100-h/call1.out: io load 0.479 ms on 1 loader, chunks
 * 0.645 and 0.635 ms, io check 0.686 ms on 2 check workers), each a sleep,
 * run with pools of 4 (the default before: entries + 1 + one per further io
 * thread), 5 (the positions: 1 loader + 2 chunks + 2 check workers), 6,
 * 7, 8 (the positions + BTRT_POOL_SLACK, the default now), 10 (twice the
 * positions) and 15; R rounds, each running the pools in rotated order.
 * Twice: with constant times, and with jitter (each time scaled by 1 +
 * U(-0.2, 0.2) per task and stage, and 3x on 2 % of them, as the H100's
 * p99 of 2.9x the mean). Prints each pool's median steady period (ms per
 * task), its range over the rounds, the median per-round ratio to pool 4,
 * and the median Little's-law floor max(T_max, io bound, sum of the
 * measured mean times / pool) (a sleep overshoots by the wake-up latency,
 * so the floor takes the run's measured means).
 * Nothing is asserted.
 * usage: bench_pool [-t items] [-r rounds]
 * Sleeps cost no CPU, so the figures hold on a shared box too (beyond the
 * wake-up latency of a loaded kernel, which lengthens every sleep). */
#include <btrt.h>
#include <btrt_model.h>
#include <btrt_pipeline.h>
#include <btrt_pool.h>
#include <btrt_trace.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

struct syn {
	double ms;     /* mean time of this stage (load, chunk or check) */
	double jitter; /* 0: constant; else +-jitter and 3x on 2 % */
	uint32_t salt; /* per stage, so the stages' jitters differ */
};

/* Sleeps x's time for task seq (a fixed function of seq and the salt, so
 * every pool sees the same sequence). */
static void syn_sleep(const struct syn *x, uint64_t seq)
{
	uint64_t h = (seq + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)x->salt * 0xbf58476d1ce4e5b9ull;
	h ^= h >> 31;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 29;
	double u = (double)(h >> 11) / 9007199254740992.0; /* [0, 1) */
	double f = 1.0;
	if (x->jitter > 0)
		f = u < 0.02 ? 3.0 : 1.0 + x->jitter * (2.0 * (u - 0.02) / 0.98 - 1.0);
	uint64_t ns = (uint64_t)(x->ms * f * 1e6);
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
	nanosleep(&ts, NULL);
}

static int chunk_body(void *ctx, struct btrt_task *t, struct btrt_error *err)
{
	(void)err;
	syn_sleep(ctx, t->seq);
	return 0;
}

struct syn_io_state {
	struct syn load, check;
};

static int load_one(void *s, uint64_t seq, void *t, char *e, size_t el)
{
	(void)t, (void)e, (void)el;
	syn_sleep(&((struct syn_io_state *)s)->load, seq);
	return 1;
}

static int check_one(void *s, uint64_t seq, const void *t, FILE *out, char *e, size_t el)
{
	(void)t, (void)out, (void)e, (void)el;
	syn_sleep(&((struct syn_io_state *)s)->check, seq);
	return 0;
}

static const struct btrt_app_io syn_io = { NULL, load_one, check_one, NULL, NULL, 0, 0 };
static int no_kernel(void *t) { (void)t; return 0; }

/* The H100 octree figures, ms per task. */
#define T_LOAD 0.479
#define T_C0 0.645
#define T_C1 0.635
#define T_CHECK 0.686
#define K_CHECK 2

/* One run with pool_size TaskObjects: the steady period, ms per task;
 * *floor_ms the run's Little's-law floor from its measured means. */
static double run_once(uint32_t pool_size, uint64_t items, double jitter, double *floor_ms)
{
	struct btrt_stage st[2] = { { .name = "c0", .cpu = no_kernel },
				    { .name = "c1", .cpu = no_kernel } };
	struct syn s0 = { T_C0, jitter, 1 }, s1 = { T_C1, jitter, 2 };
	struct syn_io_state io = { { T_LOAD, jitter, 3 }, { T_CHECK, jitter, 4 } };
	struct btrt_chunk ch[2] = {
		{ "c0", BTRT_PU_CPU, NULL, 0, 0, 1, chunk_body, &s0, 0 },
		{ "c1", BTRT_PU_CPU, NULL, 0, 1, 1, chunk_body, &s1, 0 },
	};
	struct btrt_pool *pool = bench_pool(pool_size);
	struct btrt_pipeline_config cfg = {
		.app = "syn-pool", .stages = st, .n_stages = 2, .chunks = ch, .n_chunks = 2,
		.pool = pool, .io = &syn_io, .io_state = &io, .n_items = items, .check = 1,
		.check_threads = K_CHECK, .load_threads = 1,
	};
	struct btrt_run *run = bench_run(&cfg);
	double ms = btrt_run_steady_ns(run, items / 10) / 1e6;
	/* the measured means (a sleep overshoots by the wake-up latency) */
	struct btrt_summary c0, c1, ld, ck;
	btrt_run_chunk_summary(run, 0, &c0);
	btrt_run_chunk_summary(run, 1, &c1);
	if (btrt_run_io_summary(run, 0, &ld) || btrt_run_io_summary(run, 1, &ck))
		ld.mean_ns = ck.mean_ns = 0;
	double tmax = (c0.mean_ns > c1.mean_ns ? c0.mean_ns : c1.mean_ns) / 1e6;
	double iob = btrt_model_io_ms(ld.mean_ns, ck.mean_ns, 1, K_CHECK) / 1e6;
	double sum = (c0.mean_ns + c1.mean_ns + ld.mean_ns + ck.mean_ns) / 1e6;
	*floor_ms = sum / pool_size;
	*floor_ms = *floor_ms > tmax ? *floor_ms : tmax;
	*floor_ms = *floor_ms > iob ? *floor_ms : iob;
	btrt_run_free(run);
	btrt_pool_destroy(pool);
	return ms;
}

int main(int argc, char **argv)
{
	uint64_t items = 300;
	int rounds = 7;
	bench_items_rounds(argc, argv, &items, &rounds);
	/* table pool 3 (2 entries + 1), 1 loader, 2 check workers */
	const uint32_t old = 3 + (K_CHECK - 1), now = btrt_model_default_pool(3, 1, K_CHECK);
	const uint32_t pools[] = { old, 1 + 2 + K_CHECK, 6, 7, now, 2 * (1 + 2 + K_CHECK), 15 };
	enum { NP = sizeof pools / sizeof pools[0] };
	printf("== pool vs positions: load %.3f, chunks %.3f %.3f, check %.3f ms on %d workers "
	       "(sleeps), %llu tasks, %d rounds (rotated order), steady ms/task\n",
	       T_LOAD, T_C0, T_C1, T_CHECK, K_CHECK, (unsigned long long)items, rounds);
	for (int j = 0; j < 2; j++) {
		double jitter = j ? 0.2 : 0.0;
		double ms[NP][32], ratio[NP][32], fl[NP][32];
		for (int r = 0; r < rounds; r++)
			for (int i = 0; i < NP; i++) {
				int p = (i + r) % NP;
				ms[p][r] = run_once(pools[p], items, jitter, &fl[p][r]);
			}
		printf("-- %s\n", j ? "jitter +-20 %, 3x on 2 % of the tasks" : "constant times");
		printf("%5s %9s %9s %9s %11s %11s\n", "pool", "median", "min", "max", "vs pool 4",
		       "floor");
		for (int p = NP - 1; p >= 0; p--) /* before any median sorts ms */
			for (int r = 0; r < rounds; r++)
				ratio[p][r] = ms[p][r] / ms[0][r];
		for (int p = 0; p < NP; p++) {
			double lo = ms[p][0], hi = ms[p][0];
			for (int r = 1; r < rounds; r++) {
				lo = ms[p][r] < lo ? ms[p][r] : lo;
				hi = ms[p][r] > hi ? ms[p][r] : hi;
			}
			printf("%5u %9.3f %9.3f %9.3f %11.3f %11.3f%s\n", pools[p],
			       bench_median(ms[p], rounds), lo, hi, bench_median(ratio[p], rounds), bench_median(fl[p], rounds),
			       pools[p] == now ? "  (default)" : "");
		}
	}
	return 0;
}
