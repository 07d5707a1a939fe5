/* Runtime benchmarks, printed side by side in one run:
 *  1. per-item handoff cost of btrt_ring_spsc against Concurrency Kit's
 *     ck_ring (SPSC) on the same two pinned cores, same loop shape, and of
 *     the blocking btrt_ring_spsc_push/pop (their waiting path);
 *  2. overhead per task per chunk of empty-stage CPU pipelines;
 *  3. CPU time of an idle pipeline (input trickling in) over its wall time.
 * usage: bench_runtime [-n ring_items] [-t pipeline_items] [-r rounds]
 * Timings on a shared 2-core box are noisy: compare the columns, which
 * are measured alternately in the same run. */
#include <btrt.h>
#include <btrt_pipeline.h>
#include <btrt_pool.h>
#include <btrt_ring.h>
#include <btrt_trace.h>
#include <ck_ring.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <immintrin.h>

#include "bench_util.h"
#define relax() _mm_pause()
#else
#define relax() ((void)0)
#endif

#define RING_CAP 1024u
#define P(i) ((void *)(uintptr_t)(i))

static int core_a, core_b;
static int all_cores[64], n_cores; /* the cores this process may use */

static void pick_cores(void)
{
	cpu_set_t set;
	core_a = core_b = 0;
	n_cores = 0;
	if (sched_getaffinity(0, sizeof set, &set))
		return;
	for (int c = 0; c < CPU_SETSIZE && n_cores < 64; c++)
		if (CPU_ISSET(c, &set))
			all_cores[n_cores++] = c;
	core_a = n_cores > 0 ? all_cores[0] : 0;
	core_b = n_cores > 1 ? all_cores[1] : core_a;
}

/* ---- 1. ring handoff --------------------------------------------------- */

enum ring_kind { RING_BTRT, RING_CK, RING_BTRT_BLOCKING };

struct ring_bench {
	enum ring_kind kind;
	uint64_t n;
	struct btrt_ring_spsc *bt;
	struct ck_ring *ck;
	struct ck_ring_buffer *ckbuf;
	uint64_t bad;
	uint64_t t_start, t_end;
};

static void *ring_producer(void *arg)
{
	struct ring_bench *b = arg;
	btrt_pin_self(&core_a, 1, NULL);
	if (b->kind == RING_CK) {
		for (uint64_t i = 1; i <= b->n; i++)
			while (!ck_ring_enqueue_spsc(b->ck, b->ckbuf, P(i)))
				relax();
	} else if (b->kind == RING_BTRT_BLOCKING) {
		for (uint64_t i = 1; i <= b->n; i++)
			btrt_ring_spsc_push(b->bt, P(i), NULL);
	} else {
		for (uint64_t i = 1; i <= b->n; i++)
			while (!btrt_ring_spsc_try_push(b->bt, P(i)))
				relax();
	}
	return NULL;
}

/* Returns ns per item for one run. */
static double ring_once(enum ring_kind kind, uint64_t n)
{
	static struct btrt_ring_spsc bt;
	static struct ck_ring ck;
	static struct ck_ring_buffer ckbuf[RING_CAP];
	struct ring_bench b = { .kind = kind, .n = n, .bt = &bt, .ck = &ck, .ckbuf = ckbuf };
	int use_ck = kind == RING_CK;
	if (use_ck)
		ck_ring_init(&ck, RING_CAP);
	else if (btrt_ring_spsc_init(&bt, RING_CAP))
		return -1;
	btrt_pin_self(&core_b, 1, NULL);
	pthread_t th;
	uint64_t t0 = btrt_now_ns();
	pthread_create(&th, NULL, ring_producer, &b);
	uint64_t bad = 0;
	if (use_ck) {
		for (uint64_t i = 1; i <= n; i++) {
			void *p;
			while (!ck_ring_dequeue_spsc(&ck, ckbuf, &p))
				relax();
			bad += p != P(i);
		}
	} else if (kind == RING_BTRT_BLOCKING) {
		for (uint64_t i = 1; i <= n; i++)
			bad += btrt_ring_spsc_pop(&bt, NULL) != P(i);
	} else {
		for (uint64_t i = 1; i <= n; i++) {
			void *p;
			while (!(p = btrt_ring_spsc_try_pop(&bt)))
				relax();
			bad += p != P(i);
		}
	}
	uint64_t t1 = btrt_now_ns();
	pthread_join(th, NULL);
	if (!use_ck)
		btrt_ring_spsc_destroy(&bt);
	if (bad) {
		fprintf(stderr, "ring bench: %llu items out of order\n", (unsigned long long)bad);
		exit(1);
	}
	return (double)(t1 - t0) / (double)n;
}

static void ring_bench(uint64_t n, int rounds)
{
	double bt[32], ck[32], bb[32];
	if (rounds > 32)
		rounds = 32;
	for (int r = 0; r < rounds; r++) { /* alternate to share the noise */
		bt[r] = ring_once(RING_BTRT, n);
		ck[r] = ring_once(RING_CK, n);
		bb[r] = ring_once(RING_BTRT_BLOCKING, n);
	}
	qsort(bt, (size_t)rounds, sizeof *bt, bench_cmp_double);
	qsort(ck, (size_t)rounds, sizeof *ck, bench_cmp_double);
	qsort(bb, (size_t)rounds, sizeof *bb, bench_cmp_double);
	printf("== SPSC ring handoff: %llu items, capacity %u, producer core %d, consumer core %d, %d rounds alternating\n",
	       (unsigned long long)n, RING_CAP, core_a, core_b, rounds);
	printf("%-22s %12s %12s %12s\n", "ns/item", "best", "median", "worst");
	printf("%-22s %12.2f %12.2f %12.2f\n", "btrt_ring_spsc", bt[0], bt[rounds / 2], bt[rounds - 1]);
	printf("%-22s %12.2f %12.2f %12.2f\n", "ck_ring (spsc)", ck[0], ck[rounds / 2], ck[rounds - 1]);
	printf("%-22s %12.2f %12.2f\n", "ratio btrt/ck", bt[0] / ck[0], bt[rounds / 2] / ck[rounds / 2]);
	printf("%-22s %12.2f %12.2f %12.2f\n", "btrt blocking push/pop", bb[0], bb[rounds / 2], bb[rounds - 1]);
}

/* ---- 2. empty-stage pipeline -------------------------------------------- */

static int empty_kernel(void *t) { return 0; }
static int load_nothing(void *s, uint64_t seq, void *t, char *e, size_t el) { return 1; }
static const struct btrt_app_io empty_io = { NULL, load_nothing, NULL, NULL, NULL, 0, 0 };

#define MAX_CHUNKS 8

static void pipe_once(uint32_t n_chunks, uint32_t pool_size, uint64_t items, double *per_item,
		      double *disp_mean)
{
	struct btrt_stage st[MAX_CHUNKS];
	struct btrt_chunk ch[MAX_CHUNKS];
	/* One core per chunk (the io source and sink share the next one) when
	 * there are enough cores, else chunks alternate over the first two. */
	int dedicated = n_cores > (int)n_chunks;
	for (uint32_t i = 0; i < n_chunks; i++) {
		st[i] = (struct btrt_stage){ .name = "empty", .cpu = empty_kernel };
		const int *core = dedicated ? &all_cores[i] : (i % 2 ? &core_b : &core_a);
		ch[i] = (struct btrt_chunk){ "cpu", BTRT_PU_CPU, core, 1, i, 1, NULL, NULL, 0 };
	}
	struct btrt_pool *pool = bench_pool(pool_size);
	struct btrt_pipeline_config cfg = {
		.app = "empty", .stages = st, .n_stages = n_chunks, .chunks = ch, .n_chunks = n_chunks,
		.pool = pool, .io = &empty_io, .n_items = items,
		.io_cores = dedicated ? &all_cores[n_chunks] : NULL, .n_io_cores = dedicated ? 1 : 0,
	};
	struct btrt_run *run = bench_run(&cfg);
	*per_item = (double)btrt_run_wall_ns(run) / (double)btrt_run_items(run);
	double sum = 0;
	for (uint32_t c = 0; c < n_chunks; c++) {
		struct btrt_summary s;
		btrt_run_chunk_summary(run, c, &s);
		sum += s.mean_ns;
	}
	*disp_mean = sum / n_chunks;
	btrt_run_free(run);
	btrt_pool_destroy(pool);
}

static void pipe_bench(uint64_t items)
{
	static const uint32_t chunks[] = { 1, 3, 5 };
	printf("\n== Empty-stage CPU pipelines: %llu items; %s\n", (unsigned long long)items,
	       n_cores > 5 ? "each chunk and the io thread on a core of its own"
			   : "where cores < chunks + 1, chunks alternate over 2 cores and the io thread is unpinned");
	printf("%-8s %-6s %14s %22s %22s\n", "chunks", "pool", "wall ns/item", "wall ns/(item*chunk)",
	       "in-chunk ns/task");
	for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
		uint32_t pools[] = { chunks[i] + 1, 16 };
		for (int k = 0; k < 2; k++) {
			double per_item, disp;
			pipe_once(chunks[i], pools[k], items, &per_item, &disp);
			printf("%-8u %-6u %14.1f %22.1f %22.1f\n", chunks[i], pools[k], per_item,
			       per_item / chunks[i], disp);
		}
	}
	/* One TaskObject: every handoff finds its consumer waiting. */
	double per_item, disp;
	uint64_t lat_items = items / 20 ? items / 20 : 1;
	pipe_once(3, 1, lat_items, &per_item, &disp);
	printf("%-8u %-6u %14.1f %22.1f %22.1f   (pool of 1: latency-bound)\n", 3u, 1u, per_item,
	       per_item / 3, disp);
}

/* ---- 3. idle pipeline ---------------------------------------------------- */

#define IDLE_ITEMS 10
#define IDLE_GAP_NS 20000000L /* 20 ms between items */

static int load_slowly(void *s, uint64_t seq, void *t, char *e, size_t el)
{
	struct timespec ts = { 0, IDLE_GAP_NS };
	nanosleep(&ts, NULL);
	return 1;
}
static const struct btrt_app_io slow_io = { NULL, load_slowly, NULL, NULL, NULL, 0, 0 };

static double cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* CPU seconds the whole process used while 3 empty chunks waited for
 * input that arrives every 20 ms, over the wall seconds of the run. */
static void idle_bench(void)
{
	struct btrt_stage st[3];
	struct btrt_chunk ch[3];
	for (uint32_t i = 0; i < 3; i++) {
		st[i] = (struct btrt_stage){ .name = "empty", .cpu = empty_kernel };
		ch[i] = (struct btrt_chunk){ "cpu", BTRT_PU_CPU, i % 2 ? &core_b : &core_a, 1, i, 1, NULL, NULL, 0 };
	}
	struct btrt_pool *pool = bench_pool(4);
	struct btrt_pipeline_config cfg = {
		.app = "idle", .stages = st, .n_stages = 3, .chunks = ch, .n_chunks = 3,
		.pool = pool, .io = &slow_io, .n_items = IDLE_ITEMS,
	};
	double c0 = cpu_seconds();
	uint64_t t0 = btrt_now_ns();
	struct btrt_run *run = bench_run(&cfg);
	double wall = (double)(btrt_now_ns() - t0) / 1e9, cpu = cpu_seconds() - c0;
	printf("\n== Idle pipeline: 3 empty chunks on cores %d,%d, %d items %ld ms apart\n",
	       core_a, core_b, IDLE_ITEMS, IDLE_GAP_NS / 1000000);
	printf("CPU %.4f s over wall %.4f s = %.2f %% of one core\n", cpu, wall, 100.0 * cpu / wall);
	for (uint32_t t = 0; t <= 4; t++) { /* 3 chunks, the io sink, the io source */
		struct btrt_wait_stats w;
		btrt_run_wait_stats(run, t, &w);
		printf("%s%s %llu waits, %llu polls, %llu blocks", t ? "; " : "waits: ",
		       t < 3 ? "chunk" : t == 3 ? "io sink" : "io source", (unsigned long long)w.waits,
		       (unsigned long long)w.polls, (unsigned long long)w.blocks);
	}
	printf("\n");
	btrt_run_free(run);
	btrt_pool_destroy(pool);
}

int main(int argc, char **argv)
{
	uint64_t ring_items = 10000000, pipe_items = 200000;
	int rounds = 5, opt;
	while ((opt = getopt(argc, argv, "n:t:r:")) != -1) {
		if (opt == 'n')
			ring_items = strtoull(optarg, NULL, 10);
		else if (opt == 't')
			pipe_items = strtoull(optarg, NULL, 10);
		else if (opt == 'r')
			rounds = atoi(optarg);
		else {
			fprintf(stderr, "usage: %s [-n ring_items] [-t pipeline_items] [-r rounds]\n", argv[0]);
			return 2;
		}
	}
	pick_cores();
	ring_bench(ring_items, rounds < 1 ? 1 : rounds);
	pipe_bench(pipe_items);
	idle_bench();
	return 0;
}
