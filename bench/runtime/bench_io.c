/* The io source and sink (btrt_pipe.h) against one io thread: a synthetic
 * io whose load takes L ms and whose check takes C ms, one empty chunk,
 * pool 4. For each (L, C), alternating rounds of
 *   split:  load on the source thread, check on the sink (the runtime);
 *   serial: the same work with the check's time spent inside the load, the
 *           sink idle: what one io thread loading and checking in series
 *           gives (the runtime before the split);
 * and prints the steady-state period beside the measured load + check and
 * max(load, check) (means from the run's records). The split's period
 * should sit at max(load, check), the serial one's at load + check.
 * usage: bench_io [-t items] [-r rounds] [-m sleep|spin]
 *   sleep: the io waits (a device, a file); spin: it computes (a CPU
 *   check), which needs a free core for each io thread to overlap.
 * Then the io farms (btrt_pipeline_config.check_threads, load_threads):
 * load 0.2 ms, check 1.5 ms, one chunk of 0.5 ms (the chunk sleeps or
 * spins like the io), pool 8, k = 1, 2, 3 check workers in interleaved
 * rounds (io threads unpinned); the period should follow
 * max(chunk, load, check / k): 1.5, 0.75, 0.5 ms. The same with the
 * load and check swapped and k = 1, 2, 3 loaders: max(chunk, load / k,
 * check).
 * Timings on a shared 2-core box are noisy: compare the columns, measured
 * alternately in the same run. */
#include <btrt.h>
#include <btrt_model.h>
#include <btrt_pipeline.h>
#include <btrt_pool.h>
#include <btrt_trace.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

struct syn_io {
	uint64_t load_ns, check_ns;
	int spin;                  /* 1: busy-wait, 0: sleep */
	int serial;                /* 1: the check's time spent in the load */
};

static void work(const struct syn_io *s, uint64_t ns)
{
	if (!ns)
		return;
	if (s->spin) {
		uint64_t end = btrt_now_ns() + ns;
		while (btrt_now_ns() < end)
			;
		return;
	}
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
	nanosleep(&ts, NULL);
}

static int syn_load(void *st, uint64_t seq, void *t, char *e, size_t el)
{
	const struct syn_io *s = st;
	work(s, s->serial ? s->load_ns + s->check_ns : s->load_ns);
	return 1;
}

static int syn_check(void *st, uint64_t seq, const void *t, FILE *out, char *e, size_t el)
{
	const struct syn_io *s = st;
	work(s, s->serial ? 0 : s->check_ns);
	return 0;
}

static const struct btrt_app_io syn = { NULL, syn_load, syn_check, NULL, NULL, 0, 0 };
static int empty_kernel(void *t) { return 0; }

/* The check-farm runs' chunk: chunk_ns of sleep or spin (as the io). */
static struct syn_io chunk_work;
static int busy_kernel(void *t)
{
	work(&chunk_work, chunk_work.load_ns);
	return 0;
}

static int all_cores[64], n_cores;

/* The load and check means (ms) come from the split run's records; the
 * serial run's io thread spends both in its load. */

struct result {
	double period_ms, load_ms, check_ms;
};

/* The run's steady period and its load and check means (ms). */
static struct result measure(const struct btrt_run *run)
{
	struct result r;
	struct btrt_summary s;
	r.period_ms = btrt_run_steady_ns(run, 8) / 1e6;
	btrt_run_io_summary(run, 0, &s);
	r.load_ms = s.mean_ns / 1e6;
	btrt_run_io_summary(run, 1, &s);
	r.check_ms = s.mean_ns / 1e6;
	return r;
}

static struct result run_once(struct syn_io *io, uint64_t items)
{
	struct btrt_stage st = { .name = "empty", .cpu = empty_kernel };
	/* The chunk on the first core; the io source and sink on the next two
	 * (one each), on a 2-CPU box on the first and the second (the empty
	 * chunk costs next to nothing), else all on the first. */
	const int *io_cores = n_cores > 2 ? &all_cores[1] : all_cores;
	uint32_t n_io = n_cores > 1 ? 2 : 1;
	struct btrt_chunk ch = { "cpu", BTRT_PU_CPU, all_cores, 1, 0, 1, NULL, NULL, 0 };
	struct btrt_pool *pool = bench_pool(4);
	struct btrt_pipeline_config cfg = {
		.app = "syn-io", .stages = &st, .n_stages = 1, .chunks = &ch, .n_chunks = 1,
		.pool = pool, .io = &syn, .io_state = io, .n_items = items, .check = 1,
		.io_cores = io_cores, .n_io_cores = n_io,
	};
	struct btrt_run *run = bench_run(&cfg);
	struct result r = measure(run);
	btrt_run_free(run);
	btrt_pool_destroy(pool);
	return r;
}

/* The chunk's mean (ms) in the last run_farm. */
static double last_chunk_ms;

/* One run with kl loaders and kc check workers: the period, the load and
 * check means (ms); the chunk's in last_chunk_ms. */
static struct result run_farm(struct syn_io *io, uint32_t kl, uint32_t kc, uint64_t items)
{
	struct btrt_stage st = { .name = "busy", .cpu = busy_kernel };
	struct btrt_chunk ch = { "cpu", BTRT_PU_CPU, NULL, 0, 0, 1, NULL, NULL, 0 };
	struct btrt_pool *pool = bench_pool(8);
	struct btrt_pipeline_config cfg = {
		.app = "syn-farm", .stages = &st, .n_stages = 1, .chunks = &ch, .n_chunks = 1,
		.pool = pool, .io = &syn, .io_state = io, .n_items = items, .check = 1,
		.check_threads = kc, .load_threads = kl,
	};
	struct btrt_run *run = bench_run(&cfg);
	struct result r = measure(run);
	struct btrt_summary s;
	btrt_run_chunk_summary(run, 0, &s);
	last_chunk_ms = s.mean_ns / 1e6;
	btrt_run_free(run);
	btrt_pool_destroy(pool);
	return r;
}

/* k = 1, 2, 3 check workers (loads: 0) or loaders (1), interleaved
 * rounds, medians. */
static void bench_farm(uint64_t items, int rounds, int spin, int loads)
{
	const double load = loads ? 1.5 : 0.2, check = loads ? 0.2 : 1.5, chunk = 0.5;
	enum { KMAX = 3 };
	double period[KMAX][32], chk[KMAX][32], ld[KMAX][32], chu[KMAX][32];
	chunk_work = (struct syn_io){ (uint64_t)(chunk * 1e6), 0, spin, 0 };
	for (int r = 0; r < rounds; r++)
		for (uint32_t k = 1; k <= KMAX; k++) {
			struct syn_io io = { (uint64_t)(load * 1e6), (uint64_t)(check * 1e6), spin, 0 };
			struct result x = run_farm(&io, loads ? k : 1, loads ? 1 : k, items);
			period[k - 1][r] = x.period_ms;
			chk[k - 1][r] = x.check_ms;
			ld[k - 1][r] = x.load_ms;
			chu[k - 1][r] = last_chunk_ms;
		}
	printf("\n== %s farm: load %.2f ms, check %.2f ms (%s), 1 chunk of %.2f ms, pool 8, "
	       "%llu items, %d rounds interleaved, median\n", loads ? "load" : "check", load, check,
	       spin ? "spin" : "sleep", chunk, (unsigned long long)items, rounds);
	printf("%-3s | %8s %8s %8s | %9s %27s | %6s\n", "k", "load", "check", "chunk", "period",
	       loads ? "max(chunk,load/k,check)" : "max(chunk,load,check/k)", "ratio");
	for (uint32_t k = 1; k <= KMAX; k++) {
		double p = bench_median(period[k - 1], rounds), c = bench_median(chk[k - 1], rounds);
		double l = bench_median(ld[k - 1], rounds), h = bench_median(chu[k - 1], rounds);
		double io = btrt_model_io_ms(l, c, loads ? k : 1, loads ? 1 : k);
		double want = h > io ? h : io;
		printf("%-3u | %8.3f %8.3f %8.3f | %9.3f %27.3f | %6.2f\n", k, l, c, h, p, want,
		       p / want);
	}
}

int main(int argc, char **argv)
{
	uint64_t items = 200;
	int rounds = 3, spin = 0, opt;
	while ((opt = getopt(argc, argv, "t:r:m:")) != -1) {
		if (opt == 't')
			items = strtoull(optarg, NULL, 10);
		else if (opt == 'r')
			rounds = atoi(optarg);
		else if (opt == 'm' && (!strcmp(optarg, "spin") || !strcmp(optarg, "sleep")))
			spin = !strcmp(optarg, "spin");
		else {
			fprintf(stderr, "usage: %s [-t items] [-r rounds] [-m sleep|spin]\n", argv[0]);
			return 2;
		}
	}
	if (rounds < 1 || rounds > 32)
		rounds = rounds < 1 ? 1 : 32;
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		for (int c = 0; c < CPU_SETSIZE && n_cores < 64; c++)
			if (CPU_ISSET(c, &set))
				all_cores[n_cores++] = c;
	if (!n_cores)
		n_cores = 1; /* core 0 */
	/* (L, C) ms: octree's io on the GPU machine, equal halves, a slow check. */
	static const double lc[][2] = { { 0.56, 0.77 }, { 1.0, 1.0 }, { 0.2, 1.0 } };
	printf("== io source and sink vs one io thread: synthetic io (%s), 1 empty chunk, pool 4, "
	       "%llu items, %d rounds alternating, median\n", spin ? "spin" : "sleep",
	       (unsigned long long)items, rounds);
	printf("   chunk on core %d; io source on core %d, sink on core %d (%d CPUs)\n", all_cores[0],
	       all_cores[n_cores > 2 ? 1 : 0], all_cores[n_cores > 2 ? 2 : n_cores > 1 ? 1 : 0],
	       n_cores);
	printf("%-5s %-5s | %8s %8s %10s %9s | %12s %12s | %9s %9s\n", "L ms", "C ms", "load",
	       "check", "load+check", "max(l,c)", "period split", "period serial", "split/max",
	       "serial/sum");
	for (size_t k = 0; k < sizeof lc / sizeof lc[0]; k++) {
		double load[32], check[32], split[32], serial[32];
		for (int r = 0; r < rounds; r++) {
			struct syn_io io = { (uint64_t)(lc[k][0] * 1e6), (uint64_t)(lc[k][1] * 1e6),
					     spin, 0 };
			struct result x = run_once(&io, items);
			load[r] = x.load_ms;
			check[r] = x.check_ms;
			split[r] = x.period_ms;
			io.serial = 1;
			serial[r] = run_once(&io, items).period_ms;
		}
		double l = bench_median(load, rounds), c = bench_median(check, rounds);
		double ps = bench_median(split, rounds), pr = bench_median(serial, rounds);
		double sum = l + c, mx = l > c ? l : c;
		printf("%-5.2f %-5.2f | %8.3f %8.3f %10.3f %9.3f | %12.3f %13.3f | %9.2f %10.2f\n",
		       lc[k][0], lc[k][1], l, c, sum, mx, ps, pr, ps / mx, pr / sum);
	}
	bench_farm(items, rounds, spin, 0);
	bench_farm(items, rounds, spin, 1);
	return 0;
}
