/* Farms (replicated chunks, btrt_chunk.farm) on the CPU: whole-app farms
 * of 2 and 3 workers, a farm between ordinary chunks, two adjacent farms,
 * hundreds of tasks each, every one checked by the toy (results, one visit
 * per stage) and in input order (the io thread and the toy); each task run
 * by exactly one worker (the workers' records add up); a free worker takes
 * the next task while another holds one (self-scheduling, not turns);
 * a fast and a slow worker: with the pool of btrt_model_farm the fast one
 * runs ahead and never waits for the slow one's task in the in-order
 * delivery; with a pool too small for the slow one it is left idle and
 * the farm runs on the fast one alone, also where the pool's spare
 * TaskObjects sit at the loaders and check workers;
 * kernel, load and check errors and SIGINT in a farm stop the run with
 * every thread joined; bad farm tables; the trace has a track per worker.
 * The Vulkan and CUDA suites run farms with a GPU worker. */
#include "suites.h"
#include "testutil.h"
#include "toy.h"

#include <btrt_model.h>
#include <btrt_trace.h>
#include <CUnit/CUnit.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int cores[2];

static int init(void)
{
	test_two_cores(cores);
	return 0;
}

/* Runs the CPU toy over `items` items with k_load loaders and k_check
 * check workers (0: the environment's, else 1); returns the run (caller
 * frees). */
static struct btrt_run *run_io_ok(const struct btrt_chunk *ch, uint32_t n, uint32_t pool,
				  uint64_t items, uint32_t k_load, uint32_t k_check)
{
	struct toy_params p;
	toy_default_params(&p);
	p.n = 1024;
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX, .load_threads = k_load,
				   .check_threads = k_check };
	struct btrt_error err;
	struct btrt_run *run = NULL;
	toy_keep_run = &run;
	int rc = toy_run(&p, toy_stages_cpu, ch, n, pool, items, BTRT_BACKEND_HOST, NULL, NULL, &io, NULL, &err);
	toy_keep_run = NULL;
	if (rc)
		fprintf(stderr, "farm pipeline: %s\n", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(io.checked, items);
	CU_ASSERT_EQUAL(io.next_seq, items);
	CU_ASSERT_EQUAL(io.order_errors, 0);
	return run;
}

static struct btrt_run *run_ok(const struct btrt_chunk *ch, uint32_t n, uint32_t pool,
			       uint64_t items)
{
	return run_io_ok(ch, n, pool, items, 0, 0);
}

/* Tasks recorded by chunks [first, first + n) (the workers of a farm). */
static uint64_t tasks_of(const struct btrt_run *run, uint32_t first, uint32_t n)
{
	uint64_t sum = 0;
	for (uint32_t c = first; c < first + n; c++) {
		struct btrt_summary s;
		CU_ASSERT_EQUAL(btrt_run_chunk_summary(run, c, &s), 0);
		sum += s.n;
	}
	return sum;
}

static void test_whole_app_two(void)
{
	struct btrt_chunk ch[2] = {
		{ "w0", BTRT_PU_CPU, &cores[0], 1, 0, 5, NULL, NULL, 1 },
		{ "w1", BTRT_PU_CPU, &cores[1], 1, 0, 5, NULL, NULL, 1 },
	};
	struct btrt_run *run = run_ok(ch, 2, 4, 500);
	CU_ASSERT_PTR_NOT_NULL_FATAL(run);
	CU_ASSERT_EQUAL(tasks_of(run, 0, 2), 500); /* each task on one worker */
	btrt_run_free(run);
}

static void test_whole_app_three(void)
{
	struct btrt_chunk ch[3] = {
		{ "w0", BTRT_PU_CPU, &cores[0], 1, 0, 5, NULL, NULL, 7 },
		{ "w1", BTRT_PU_CPU, &cores[1], 1, 0, 5, NULL, NULL, 7 },
		{ "w2", BTRT_PU_CPU, cores, 2, 0, 5, NULL, NULL, 7 },
	};
	struct btrt_run *run = run_ok(ch, 3, 6, 400);
	CU_ASSERT_PTR_NOT_NULL_FATAL(run);
	CU_ASSERT_EQUAL(tasks_of(run, 0, 3), 400);
	btrt_run_free(run);
	/* Fewer TaskObjects than workers, and a single one. */
	run = run_ok(ch, 3, 2, 200);
	btrt_run_free(run);
	run = run_ok(ch, 3, 1, 50);
	btrt_run_free(run);
}

static void test_farm_in_the_middle(void)
{
	struct btrt_chunk ch[4] = {
		{ "first", BTRT_PU_CPU, &cores[0], 1, 0, 1, NULL, NULL, 0 },
		{ "wa", BTRT_PU_CPU, &cores[1], 1, 1, 3, NULL, NULL, 1 },
		{ "wb", BTRT_PU_CPU, &cores[0], 1, 1, 3, NULL, NULL, 1 },
		{ "last", BTRT_PU_CPU, &cores[1], 1, 4, 1, NULL, NULL, 0 },
	};
	struct btrt_run *run = run_ok(ch, 4, 5, 400);
	CU_ASSERT_PTR_NOT_NULL_FATAL(run);
	CU_ASSERT_EQUAL(tasks_of(run, 0, 1), 400);
	CU_ASSERT_EQUAL(tasks_of(run, 1, 2), 400);
	CU_ASSERT_EQUAL(tasks_of(run, 3, 1), 400);
	btrt_run_free(run);
}

/* Farm into farm: the second farm's workers claim what any worker of
 * the first stored, by sequence number. */
static void test_adjacent_farms(void)
{
	struct btrt_chunk ch[5] = {
		{ "a0", BTRT_PU_CPU, &cores[0], 1, 0, 2, NULL, NULL, 1 },
		{ "a1", BTRT_PU_CPU, &cores[1], 1, 0, 2, NULL, NULL, 1 },
		{ "b0", BTRT_PU_CPU, &cores[0], 1, 2, 3, NULL, NULL, 2 },
		{ "b1", BTRT_PU_CPU, &cores[1], 1, 2, 3, NULL, NULL, 2 },
		{ "b2", BTRT_PU_CPU, &cores[1], 1, 2, 3, NULL, NULL, 2 },
	};
	struct btrt_run *run = run_ok(ch, 5, 8, 600);
	CU_ASSERT_PTR_NOT_NULL_FATAL(run);
	CU_ASSERT_EQUAL(tasks_of(run, 0, 2), 600);
	CU_ASSERT_EQUAL(tasks_of(run, 2, 3), 600);
	btrt_run_free(run);
}

/* Self-scheduling: worker "held" keeps the first task it gets until worker
 * "free" has finished 20 tasks, and "free" starts its first task only once
 * "held" holds one. With turns (round robin) "free" would wait for the
 * held task's turn and the run could not finish (the hang guard fails it
 * after 120 s); with self-scheduling "free" takes every next task
 * meanwhile, and the tasks still leave in input order. */
static atomic_int free_done, held_first, held_started, free_first;

/* Sleeps 1 ms at a time until *flag >= want; -1 after 120 s (a hang). */
static int await(atomic_int *flag, int want)
{
	for (int i = 0; atomic_load(flag) < want; i++) {
		if (i == 120000)
			return -1;
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	return 0;
}

static int run_stages(struct btrt_task *t, struct btrt_error *err)
{
	for (uint32_t s = 0; s < TOY_N_STAGES; s++)
		if (toy_stages_cpu[s].cpu(t)) {
			err->stage = (int)s;
			return btrt_error_set(err, BTRT_E_KERNEL, 1, "toy stage failed");
		}
	return 0;
}

static int held_body(void *ctx, struct btrt_task *t, struct btrt_error *err)
{
	(void)ctx;
	if (atomic_exchange(&held_first, 0)) {
		atomic_store(&held_started, 1);
		if (await(&free_done, 20))
			return btrt_error_set(err, BTRT_E_KERNEL, 2,
					      "worker 'free' never took 20 tasks");
	}
	return run_stages(t, err);
}

static int free_body(void *ctx, struct btrt_task *t, struct btrt_error *err)
{
	(void)ctx;
	if (atomic_exchange(&free_first, 0) && await(&held_started, 1))
		return btrt_error_set(err, BTRT_E_KERNEL, 3, "worker 'held' never took a task");
	int rc = run_stages(t, err);
	atomic_fetch_add(&free_done, 1);
	return rc;
}

static void test_self_scheduling(void)
{
	atomic_store(&free_done, 0);
	atomic_store(&held_first, 1);
	atomic_store(&held_started, 0);
	atomic_store(&free_first, 1);
	struct btrt_chunk ch[2] = {
		{ "held", BTRT_PU_CPU, &cores[0], 1, 0, 5, held_body, NULL, 3 },
		{ "free", BTRT_PU_CPU, &cores[1], 1, 0, 5, free_body, NULL, 3 },
	};
	struct btrt_run *run = run_ok(ch, 2, 32, 300);
	CU_ASSERT_PTR_NOT_NULL_FATAL(run);
	CU_ASSERT_TRUE(atomic_load(&free_done) >= 20);
	CU_ASSERT_EQUAL(tasks_of(run, 0, 2), 300);
	btrt_run_free(run);
}

/* A fast (1 ms per task) and a slow (10 ms) worker, by sleeps. */
#define FAST_US 1000
#define SLOW_US 10000

static int sleep_body(void *ctx, struct btrt_task *t, struct btrt_error *err)
{
	long us = (long)(intptr_t)ctx;
	struct timespec ts = { 0, us * 1000 };
	nanosleep(&ts, NULL);
	return run_stages(t, err);
}

/* Runs the farm {fast, slow} over `items` items with `pool` TaskObjects,
 * k_load loaders and k_check check workers; *fast / *slow receive the
 * tasks each ran, *fast_waits the fast worker's claims that found their
 * item not there yet. Every item checked, in order (run_io_ok). */
static void run_fast_slow(uint32_t pool, uint32_t k_load, uint32_t k_check, uint64_t items,
			  uint64_t *fast, uint64_t *slow, uint64_t *fast_waits)
{
	struct btrt_chunk ch[2] = {
		{ "fast", BTRT_PU_CPU, &cores[0], 1, 0, 5, sleep_body, (void *)(intptr_t)FAST_US, 1 },
		{ "slow", BTRT_PU_CPU, &cores[1], 1, 0, 5, sleep_body, (void *)(intptr_t)SLOW_US, 1 },
	};
	struct btrt_run *run = run_io_ok(ch, 2, pool, items, k_load, k_check);
	CU_ASSERT_PTR_NOT_NULL_FATAL(run);
	*fast = tasks_of(run, 0, 1);
	*slow = tasks_of(run, 1, 1);
	CU_ASSERT_EQUAL(*fast + *slow, items); /* each task on one worker */
	struct btrt_wait_stats w;
	CU_ASSERT_EQUAL(btrt_run_wait_stats(run, 0, &w), 0);
	*fast_waits = w.waits;
	fprintf(stderr, "  (pool %u, io %u + %u: fast %llu tasks, %llu waits; slow %llu tasks) ",
		pool, k_load, k_check, (unsigned long long)*fast, (unsigned long long)w.waits,
		(unsigned long long)*slow);
	btrt_run_free(run);
}

/* The run's default pool for {1 ms, 10 ms} with one loader and one check
 * worker: btrt_model_farm's extra 10, the table pool 2 entries + 1 + 10 =
 * 13, btrt_model_default_pool 13 - 1 + 1 + 1 + 3 = 17, the cover 17 - 4
 * positions = 13 >= 10: the fast worker runs ahead while the slow one
 * holds the oldest task. It takes about 10 of every 11 tasks and finds its
 * next task loaded whenever it claims one: a few waits at the start and
 * the end, where a pool that made it wait behind the slow worker (as the
 * runs of docs/results/h100-farm did) costs one wait per slow task.
 * Counts, not times, are asserted. */
static void test_fast_runs_ahead(void)
{
	double ms[2] = { FAST_US / 1000.0, SLOW_US / 1000.0 }, period;
	uint32_t extra;
	uint32_t set = btrt_model_farm(ms, 2, BTRT_FARM_EXTRA_MAX, &period, &extra);
	CU_ASSERT_EQUAL(set, 3u);
	CU_ASSERT_EQUAL(extra, 10u);
	CU_ASSERT_TRUE(period < ms[0]);
	uint32_t pool = btrt_model_default_pool(2 + 1 + extra, 1, 1);
	CU_ASSERT_EQUAL(pool, 17u);
	CU_ASSERT_EQUAL(btrt_model_farm_cover(pool, 2, 1, 1), 13.0);
	const uint64_t items = 300;
	uint64_t fast, slow, waits;
	run_fast_slow(pool, 1, 1, items, &fast, &slow, &waits);
	CU_ASSERT_TRUE(fast * 10 >= items * 8); /* the large majority */
	CU_ASSERT_TRUE(slow >= 2);              /* the slow one helped */
	CU_ASSERT_TRUE(waits <= 6);
}

/* A pool of 4 covers 2 tasks, not the 10 the fast worker finishes while
 * the slow one holds one: once both are measured (the first task of each
 * is a warm-up, not averaged) the slow worker is left idle and the farm
 * runs on the fast one alone, never waiting for the slow one again. */
static void test_slow_left_idle(void)
{
	const uint64_t items = 300;
	uint64_t fast, slow, waits;
	run_fast_slow(4, 1, 1, items, &fast, &slow, &waits);
	CU_ASSERT_TRUE(slow <= 4);
	CU_ASSERT_TRUE(fast >= items - 4);
	CU_ASSERT_TRUE(waits <= 8); /* two slow tasks before it was measured */
}

/* The io positions are not cover (btrt_model_farm_cover): {1 ms, 10 ms}
 * needs t_slow * R_fast = 10 TaskObjects of cover. A pool of 13 with 4
 * loaders and 4 check workers has 4 + 2 + 4 = 10 positions, so its cover
 * is 13 - 10 = 3 < 10: the slow worker is left idle, as with pool 4 above.
 * The old cover, pool - chunk entries = 13 - 2 = 11 >= 10, admitted it
 * while the loaders and check workers held TaskObjects the fast one could
 * not run ahead into. The cover is 0.3 times the need, so only a fast
 * worker measured above 3.3 ms (3.3 times its time: a loaded ASan run
 * measured it above 1.6 ms) would admit the slow one; the slow one still
 * takes a few tasks while the four loaders fill the pipeline before both
 * workers are measured (2-6 seen), against about 27 under the old cover. */
static void test_io_positions_not_cover(void)
{
	double ms[2] = { FAST_US / 1000.0, SLOW_US / 1000.0 }, period;
	uint32_t extra;
	CU_ASSERT_EQUAL(btrt_model_farm_cover(13, 2, 4, 4), 3.0);
	CU_ASSERT_EQUAL(btrt_model_farm(ms, 2, btrt_model_farm_cover(13, 2, 4, 4), &period, &extra), 1u);
	CU_ASSERT_EQUAL(btrt_model_farm(ms, 2, 13.0 - 2, &period, &extra), 3u); /* the old cover */
	const uint64_t items = 300;
	uint64_t fast, slow, waits;
	run_fast_slow(13, 4, 4, items, &fast, &slow, &waits);
	CU_ASSERT_TRUE(slow <= 12);
	CU_ASSERT_TRUE(fast >= items - 12);
}

static const struct btrt_chunk err_farm[4] = {
	{ "first", BTRT_PU_CPU, NULL, 0, 0, 1, NULL, NULL, 0 },
	{ "wa", BTRT_PU_CPU, NULL, 0, 1, 3, NULL, NULL, 5 },
	{ "wb", BTRT_PU_CPU, NULL, 0, 1, 3, NULL, NULL, 5 },
	{ "last", BTRT_PU_CPU, NULL, 0, 4, 1, NULL, NULL, 0 },
};

static void test_kernel_error(void)
{
	struct toy_params p;
	toy_default_params(&p);
	p.fail_seq = 37;
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX };
	struct btrt_error err;
	int rc = toy_run(&p, toy_stages_cpu, err_farm, 4, 6, 1000, BTRT_BACKEND_HOST, NULL, NULL, &io, NULL, &err);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_KERNEL);
	CU_ASSERT_EQUAL(err.code, 42);
	CU_ASSERT_TRUE(err.chunk == 1 || err.chunk == 2); /* whichever worker took it */
	CU_ASSERT_EQUAL(err.stage, 2);
	CU_ASSERT_EQUAL(err.seq, 37);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "stage 2 'square' task 37"));
	CU_ASSERT_TRUE(io.checked <= 37);
	CU_ASSERT_EQUAL(io.order_errors, 0);
	fprintf(stderr, "  (error: %s) ", err.msg);
	/* On the first task, in a whole-app farm. */
	p.fail_seq = 0;
	const struct btrt_chunk whole[2] = {
		{ "w0", BTRT_PU_CPU, NULL, 0, 0, 5, NULL, NULL, 1 },
		{ "w1", BTRT_PU_CPU, NULL, 0, 0, 5, NULL, NULL, 1 },
	};
	struct toy_io_state io2 = { .load_fail_seq = UINT64_MAX };
	rc = toy_run(&p, toy_stages_cpu, whole, 2, 4, 0, BTRT_BACKEND_HOST, NULL, NULL, &io2, NULL, &err);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(err.seq, 0);
	CU_ASSERT_EQUAL(io2.checked, 0);
}

static void test_io_errors(void)
{
	struct toy_params p;
	toy_default_params(&p);
	struct toy_io_state io = { .load_fail_seq = 50 };
	struct btrt_error err;
	int rc = toy_run(&p, toy_stages_cpu, err_farm, 4, 6, 0, BTRT_BACKEND_HOST, NULL, NULL, &io, NULL, &err);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_IO);
	CU_ASSERT_EQUAL(err.seq, 50);
	p.corrupt_seq = 20;
	struct toy_io_state io2 = { .load_fail_seq = UINT64_MAX };
	rc = toy_run(&p, toy_stages_cpu, err_farm, 4, 6, 100, BTRT_BACKEND_HOST, NULL, NULL, &io2, NULL, &err);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_CHECK);
	CU_ASSERT_EQUAL(err.seq, 20);
	CU_ASSERT_EQUAL(io2.checked, 21);
	CU_ASSERT_EQUAL(io2.order_errors, 0);
	/* End of input before n_items: every worker leaves. */
	p.corrupt_seq = UINT64_MAX;
	struct toy_io_state io3 = { .limit = 77, .load_fail_seq = UINT64_MAX };
	rc = toy_run(&p, toy_stages_cpu, err_farm, 4, 6, 0, BTRT_BACKEND_HOST, NULL, NULL, &io3, NULL, &err);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(io3.checked, 77);
	/* A single item. */
	struct toy_io_state io4 = { .load_fail_seq = UINT64_MAX };
	rc = toy_run(&p, toy_stages_cpu, err_farm, 4, 6, 1, BTRT_BACKEND_HOST, NULL, NULL, &io4, NULL, &err);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(io4.checked, 1);
}

/* SIGINT while item 5 loads: the run stops with BTRT_E_INTR and every
 * thread it started (workers and their teams) is gone. */
static void test_interrupt(void)
{
	int before = test_count_threads();
	struct toy_params p;
	toy_default_params(&p);
	p.load_sleep_us = 2000;
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX, .signal_seq = 5 };
	struct btrt_error err;
	int rc = toy_run_sigint(&p, toy_stages_cpu, err_farm, 4, 6, 1000, &io, &err);
	fprintf(stderr, "  (%s) ", err.msg);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_INTR);
	CU_ASSERT_EQUAL(err.code, SIGINT);
	CU_ASSERT_TRUE(io.loaded >= 6 && io.loaded <= 7);
	CU_ASSERT_TRUE(io.checked <= 5);
	CU_ASSERT_EQUAL(io.order_errors, 0);
	test_assert_threads_gone(before);
}

static void test_bad_tables(void)
{
	struct toy_params p;
	toy_default_params(&p);
	struct btrt_error err;
	/* Workers of one farm must cover the same stages. */
	struct btrt_chunk uneven[3] = {
		{ "w0", BTRT_PU_CPU, NULL, 0, 0, 3, NULL, NULL, 1 },
		{ "w1", BTRT_PU_CPU, NULL, 0, 0, 2, NULL, NULL, 1 },
		{ "rest", BTRT_PU_CPU, NULL, 0, 3, 2, NULL, NULL, 0 },
	};
	CU_ASSERT_EQUAL(toy_run(&p, toy_stages_cpu, uneven, 3, 4, 10, BTRT_BACKEND_HOST, NULL, NULL, NULL, NULL, &err), -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_INVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "farm 1"));
	/* A Vulkan worker needs a Vulkan pool. */
	struct btrt_chunk gpu[2] = {
		{ "w0", BTRT_PU_CPU, NULL, 0, 0, 5, NULL, NULL, 1 },
		{ "g", BTRT_PU_VULKAN, NULL, 0, 0, 5, NULL, NULL, 1 },
	};
	CU_ASSERT_EQUAL(toy_run(&p, toy_stages_cpu, gpu, 2, 4, 10, BTRT_BACKEND_HOST, NULL, NULL, NULL, NULL, &err), -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_INVAL);
	CU_ASSERT_EQUAL(err.chunk, -1);
	/* The same id on two separate groups is two farms (not one). */
	struct btrt_chunk two[4] = {
		{ "a0", BTRT_PU_CPU, NULL, 0, 0, 2, NULL, NULL, 4 },
		{ "a1", BTRT_PU_CPU, NULL, 0, 0, 2, NULL, NULL, 4 },
		{ "mid", BTRT_PU_CPU, NULL, 0, 2, 1, NULL, NULL, 0 },
		{ "b0", BTRT_PU_CPU, NULL, 0, 3, 2, NULL, NULL, 4 },
	};
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX };
	CU_ASSERT_EQUAL(toy_run(&p, toy_stages_cpu, two, 4, 4, 30, BTRT_BACKEND_HOST, NULL, NULL, &io, NULL, &err), 0);
	CU_ASSERT_EQUAL(io.checked, 30);
}

/* One track per worker; each task's event on the track of the worker that
 * ran it, and the run summary names the farm. */
static void test_trace(void)
{
	struct btrt_chunk ch[2] = {
		{ "w0", BTRT_PU_CPU, &cores[0], 1, 0, 5, NULL, NULL, 1 },
		{ "w1", BTRT_PU_CPU, &cores[1], 1, 0, 5, NULL, NULL, 1 },
	};
	struct toy_params p;
	toy_default_params(&p);
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX };
	struct btrt_error err;
	char path[] = "/tmp/btrt_farmtrace_XXXXXX";
	CU_ASSERT_EQUAL_FATAL(btc_test_tmpfile(path), 0);
	struct btrt_run *run = NULL;
	toy_keep_run = &run;
	int rc = toy_run(&p, toy_stages_cpu, ch, 2, 4, 40, BTRT_BACKEND_HOST, NULL, NULL, &io, path, &err);
	toy_keep_run = NULL;
	CU_ASSERT_EQUAL(rc, 0);
	/* the trace replaces the file (btrt_fsafe.h): read it by name */
	FILE *f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	static char buf[1 << 18];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	remove(path);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "chunk 0 w0 (cpu, farm 1 worker 0)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "chunk 1 w1 (cpu, farm 1 worker 1)"));
	/* Each task appears once as a task event, with its worker's tid. */
	CU_ASSERT_PTR_NOT_NULL_FATAL(run);
	for (unsigned s = 0; s < 40; s++) {
		char key[64];
		int found = 0;
		for (unsigned tid = 1; tid <= 2; tid++) {
			snprintf(key, sizeof key, "\"name\":\"task %u\",\"ph\":\"X\",\"pid\":1,\"tid\":%u,", s, tid);
			for (const char *q = strstr(buf, key); q; q = strstr(q + 1, key))
				found++;
		}
		CU_ASSERT_EQUAL(found, 1);
	}
	btrt_run_free(run);
}

/* Workers of an idle farm block instead of polling: with 6 items 50 ms
 * apart, a worker's claim waits for its item, blocks on the farm link's
 * eventcount and is woken by stores (every store wakes every sleeper, so
 * a worker may wake for the other's item and check again). Each check is
 * a poll: at most one per wait plus one per store into the link (items and
 * end markers), where a polling wait would make hundreds. Counts, not
 * times, are asserted. */
static void test_idle_farm(void)
{
	struct toy_params p;
	toy_default_params(&p);
	p.load_sleep_us = 50000;
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX };
	struct btrt_error err;
	struct btrt_run *run = NULL;
	const uint64_t items = 6;
	toy_keep_run = &run;
	int rc = toy_run(&p, toy_stages_cpu, err_farm, 4, 6, items, BTRT_BACKEND_HOST, NULL, NULL, &io, NULL, &err);
	toy_keep_run = NULL;
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(io.checked, items);
	CU_ASSERT_PTR_NOT_NULL_FATAL(run);
	for (uint32_t t = 1; t <= 2; t++) {
		struct btrt_wait_stats w;
		CU_ASSERT_EQUAL_FATAL(btrt_run_wait_stats(run, t, &w), 0);
		fprintf(stderr, "%s(%s: %llu waits, %llu polls, %llu blocks)", t == 1 ? "  " : " ",
			err_farm[t].name, (unsigned long long)w.waits, (unsigned long long)w.polls,
			(unsigned long long)w.blocks);
		CU_ASSERT_TRUE(w.waits <= items + 1);
		CU_ASSERT_TRUE(w.polls <= w.waits + items + 2);
		CU_ASSERT_TRUE(w.blocks > 0);
	}
	fprintf(stderr, " ");
	btrt_run_free(run);
}

int suite_farm_register(void)
{
	CU_pSuite s = CU_add_suite("farm", init, NULL);
	if (!s)
		return -1;
	if (!CU_add_test(s, "whole-app farm of two workers", test_whole_app_two) ||
	    !CU_add_test(s, "whole-app farm of three workers, small pools", test_whole_app_three) ||
	    !CU_add_test(s, "farm between ordinary chunks", test_farm_in_the_middle) ||
	    !CU_add_test(s, "farm into farm", test_adjacent_farms) ||
	    !CU_add_test(s, "a free worker takes the next task", test_self_scheduling) ||
	    !CU_add_test(s, "a fast worker runs ahead of a slow one", test_fast_runs_ahead) ||
	    !CU_add_test(s, "a slow worker the pool cannot cover is left idle", test_slow_left_idle) ||
	    !CU_add_test(s, "the loaders and check workers are not cover", test_io_positions_not_cover) ||
	    !CU_add_test(s, "kernel error in a worker", test_kernel_error) ||
	    !CU_add_test(s, "load and check errors, end of input", test_io_errors) ||
	    !CU_add_test(s, "SIGINT stops a farm, threads joined", test_interrupt) ||
	    !CU_add_test(s, "bad farm tables", test_bad_tables) ||
	    !CU_add_test(s, "an idle farm sleeps", test_idle_farm) ||
	    !CU_add_test(s, "trace: a track per worker", test_trace))
		return -1;
	return 0;
}
