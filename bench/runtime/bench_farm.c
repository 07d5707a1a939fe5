/* Farms that never lose (issue 25): a whole-app farm of a fast and a slow
 * worker (synthetic: each task sleeps t_fast or t_slow ms) beside the fast
 * worker alone, measured side by side: for each (t_fast, t_slow), R rounds,
 * each round running in rotated order
 *   fast alone:  one chunk, the fast worker, with the farm's pool (more
 *                TaskObjects than its own 2 only hide its io's wake-ups);
 *   farm:        {fast, slow} with the default pool a generated program
 *                runs it with (btrt_model_default_pool of btrt_model_farm's
 *                table pool entries + 1 + ceil(t_slow / t_fast), or of the
 *                fast one alone when that is above BTRT_FARM_EXTRA_MAX; one
 *                loader, one check worker): its cover (btrt_model_farm_cover,
 *                the pool beyond the 4 positions) is the extra + 3;
 *   farm pool 3: {fast, slow} with one TaskObject per worker plus one
 *                (cover 0): the slow worker is left idle;
 * and prints each one's median steady period (ms per task), the farm's
 * median per-round ratio to the fast worker alone, the slow worker's share
 * of the tasks, and the rate-sum ideal. Nothing is asserted.
 * usage: bench_farm [-t items] [-r rounds]
 * Sleeps cost no CPU, so the figures hold on a shared box too (beyond the
 * wake-up latency of a loaded kernel). */
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

static int sleep_body(void *ctx, struct btrt_task *t, struct btrt_error *err)
{
	(void)t;
	(void)err;
	uint64_t ns = (uint64_t)(uintptr_t)ctx;
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
	nanosleep(&ts, NULL);
	return 0;
}

static int load_one(void *s, uint64_t seq, void *t, char *e, size_t el)
{
	(void)s, (void)seq, (void)t, (void)e, (void)el;
	return 1;
}

static int check_one(void *s, uint64_t seq, const void *t, FILE *out, char *e, size_t el)
{
	(void)s, (void)seq, (void)t, (void)out, (void)e, (void)el;
	return 0;
}

static const struct btrt_app_io syn_io = { NULL, load_one, check_one, NULL, NULL, 0, 0 };
static int no_kernel(void *t) { (void)t; return 0; }

struct result {
	double period_ms; /* steady ms per task */
	double slow_share; /* tasks the slow worker ran / items */
};

/* Runs `n` chunk entries (1: fast alone, 2: the farm {fast, slow}). */
static struct result run_once(uint32_t n, uint64_t fast_ns, uint64_t slow_ns, uint32_t pool_size,
			      uint64_t items)
{
	struct btrt_stage st = { .name = "sleep", .cpu = no_kernel };
	struct btrt_chunk ch[2] = {
		{ "fast", BTRT_PU_CPU, NULL, 0, 0, 1, sleep_body, (void *)(uintptr_t)fast_ns, n > 1 },
		{ "slow", BTRT_PU_CPU, NULL, 0, 0, 1, sleep_body, (void *)(uintptr_t)slow_ns, 1 },
	};
	struct btrt_pool *pool = bench_pool(pool_size);
	struct btrt_pipeline_config cfg = {
		.app = "syn-farm", .stages = &st, .n_stages = 1, .chunks = ch, .n_chunks = n,
		.pool = pool, .io = &syn_io, .n_items = items, .check = 1,
	};
	struct btrt_run *run = bench_run(&cfg);
	struct result r = { btrt_run_steady_ns(run, items / 10) / 1e6, 0 };
	if (n > 1) {
		struct btrt_summary s;
		btrt_run_chunk_summary(run, 1, &s);
		r.slow_share = (double)s.n / (double)btrt_run_items(run);
	}
	btrt_run_free(run);
	btrt_pool_destroy(pool);
	return r;
}

int main(int argc, char **argv)
{
	uint64_t items = 200;
	int rounds = 5;
	bench_items_rounds(argc, argv, &items, &rounds);
	/* (t_fast, t_slow) ms: 10x; docs/results/h100-farm's alexnet-dense
	 * (cuda 0.41, cpu 2.9); near-equal; 100x (beyond the cover). */
	static const double tf[][2] = { { 1, 10 }, { 0.41, 2.9 }, { 1, 1.5 }, { 0.5, 50 } };
	printf("== farm {fast, slow} vs the fast worker alone: sleep workers, %llu tasks, %d rounds "
	       "(rotated order), median steady ms/task\n", (unsigned long long)items, rounds);
	printf("%-6s %-6s | %5s %9s %9s %12s | %9s %11s | %8s %8s\n", "fast", "slow", "pool",
	       "alone", "farm", "farm pool 3", "ideal", "farm/alone", "slow %", "slow % 3");
	for (size_t k = 0; k < sizeof tf / sizeof tf[0]; k++) {
		double ms[2] = { tf[k][0], tf[k][1] }, ideal;
		uint32_t extra;
		btrt_model_farm(ms, 2, BTRT_FARM_EXTRA_MAX, &ideal, &extra);
		uint32_t pool = btrt_model_default_pool(2 + 1 + extra, 1, 1);
		uint64_t f = (uint64_t)(ms[0] * 1e6), s = (uint64_t)(ms[1] * 1e6);
		double alone[32], farm[32], small[32], ratio[32], share[32], share3[32];
		for (int r = 0; r < rounds; r++)
			for (int j = 0; j < 3; j++) {
				switch ((j + r) % 3) {
				case 0:
					alone[r] = run_once(1, f, s, pool, items).period_ms;
					break;
				case 1: {
					struct result x = run_once(2, f, s, pool, items);
					farm[r] = x.period_ms;
					share[r] = x.slow_share;
					break;
				}
				default: {
					struct result x = run_once(2, f, s, 3, items);
					small[r] = x.period_ms;
					share3[r] = x.slow_share;
				}
				}
			}
		for (int r = 0; r < rounds; r++)
			ratio[r] = farm[r] / alone[r];
		printf("%-6.2f %-6.2f | %5u %9.3f %9.3f %12.3f | %9.3f %11.3f | %8.1f %8.1f\n", ms[0],
		       ms[1], pool, bench_median(alone, rounds), bench_median(farm, rounds),
		       bench_median(small, rounds), ideal, bench_median(ratio, rounds),
		       100 * bench_median(share, rounds), 100 * bench_median(share3, rounds));
	}
	return 0;
}
