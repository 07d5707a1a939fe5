/* suite_io.c: the io source and sink threads (btrt_pipe.h): every task is
 * loaded on the source thread and checked on the sink (the caller's
 * thread), in input order, on their service cores; load and check of
 * different tasks overlap (read from the run's records, not from a
 * timing ratio). The sink's check farm (check_threads k): every task
 * checked exactly once, worker seq mod k, each worker in seq order on its
 * own thread and core, checks of different tasks overlapping, the first
 * failing seq reported. */
#include "suites.h"
#include "toy.h"

#include <btrt_model.h>
#include <btrt_pipeline.h>
#include <btrt_trace.h>

#include <CUnit/CUnit.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int pinning(void)
{
	const char *np = getenv("BTRT_NO_PIN");
	return !(np && *np && strcmp(np, "0") != 0);
}

/* Runs `items` items through chunks with io_cores[0..n_io-1]; asserts
 * that every item was loaded on one thread and checked on another (the
 * caller's), each on its service core, in input order, and that the
 * records show each item's check after its load and the checks one after
 * another. */
static void expect_in_order(const struct btrt_chunk *chunks, uint32_t n_chunks,
			    const int *io_cores, uint32_t n_io, int load_cpu, int check_cpu)
{
	struct toy_params p;
	toy_default_params(&p);
	const uint64_t items = 300;
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX };
	if (pinning()) {
		io.load_cpu1 = load_cpu + 1;
		io.check_cpu1 = check_cpu + 1;
	}
	struct btrt_run *run = NULL;
	struct btrt_error err;
	toy_io_cores = io_cores;
	toy_n_io_cores = n_io;
	toy_keep_run = &run;
	int rc = toy_run(&p, toy_stages_cpu, chunks, n_chunks, 4, items, BTRT_BACKEND_HOST, NULL,
			 NULL, &io, NULL, &err);
	toy_keep_run = NULL;
	toy_io_cores = NULL;
	toy_n_io_cores = 0;
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(io.loaded, items);
	CU_ASSERT_EQUAL(io.checked, items);
	CU_ASSERT_EQUAL(io.next_seq, items);
	CU_ASSERT_EQUAL(io.order_errors, 0);
	/* one source thread, one sink thread: the caller's */
	CU_ASSERT_EQUAL(io.load_tids, 0);
	CU_ASSERT_EQUAL(io.check_tids, 0);
	CU_ASSERT_NOT_EQUAL(io.load_tid, io.check_tid);
	CU_ASSERT_EQUAL(io.check_tid, (long)syscall(SYS_gettid));
	CU_ASSERT_EQUAL(io.load_cpu_errors, 0);
	CU_ASSERT_EQUAL(io.check_cpu_errors, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(run);
	CU_ASSERT_EQUAL(btrt_run_items(run), items);
	uint64_t prev_end = 0, ls, le, cs, ce;
	for (uint64_t i = 0; i < items; i++) {
		CU_ASSERT_EQUAL_FATAL(btrt_run_io_times(run, i, &ls, &le, &cs, &ce), 0);
		CU_ASSERT(ls > 0 && ls <= le && le <= cs && cs <= ce);
		CU_ASSERT(cs >= prev_end); /* checked after the previous one */
		prev_end = ce;
	}
	CU_ASSERT_EQUAL(btrt_run_io_times(run, items, &ls, &le, &cs, &ce), -1);
	btrt_run_free(run);
}

static void test_two_service_cores(void)
{
	int cores[2];
	test_two_cores(cores);
	expect_in_order(toy_three, 3, cores, 2, cores[0], cores[1]);
}

static void test_one_service_core(void)
{
	int cores[2];
	test_two_cores(cores);
	expect_in_order(toy_three, 3, &cores[1], 1, cores[1], cores[1]);
}

static void test_farm(void)
{
	int cores[2];
	test_two_cores(cores);
	expect_in_order(toy_farmed, 4, cores, 2, cores[0], cores[1]);
}

static void test_unpinned(void)
{
	expect_in_order(toy_one, 1, NULL, 0, -1, -1);
}

/* Load takes L, check C (sleeps: io waiting on a device), the chunk next
 * to nothing: the records must show a task's check overlapping a later
 * task's load (one io thread would run them one after the other). */
static void test_overlap(void)
{
	struct toy_params p;
	toy_default_params(&p);
	p.n = 16;
	p.load_sleep_us = 2000;
	p.check_sleep_us = 3000;
	const uint64_t items = 24;
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX };
	struct btrt_run *run = NULL;
	struct btrt_error err;
	toy_keep_run = &run;
	int rc = toy_run(&p, toy_stages_cpu, toy_one, 1, 4, items, BTRT_BACKEND_HOST, NULL, NULL, &io,
			 NULL, &err);
	toy_keep_run = NULL;
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(io.checked, items);
	CU_ASSERT_EQUAL(io.order_errors, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(run);
	uint64_t overlapping = 0; /* items whose check overlaps a later load */
	for (uint64_t i = 0; i < items; i++) {
		uint64_t ls, le, cs, ce;
		CU_ASSERT_EQUAL_FATAL(btrt_run_io_times(run, i, &ls, &le, &cs, &ce), 0);
		for (uint64_t j = i + 1; j < items; j++) {
			uint64_t ls2, le2, cs2, ce2;
			CU_ASSERT_EQUAL_FATAL(btrt_run_io_times(run, j, &ls2, &le2, &cs2, &ce2), 0);
			if (ls2 < ce && cs < le2) {
				overlapping++;
				break;
			}
		}
	}
	fprintf(stderr, "  (%llu of %llu checks overlap a later load) ",
		(unsigned long long)overlapping, (unsigned long long)items);
	CU_ASSERT(overlapping > 0);
	btrt_run_free(run);
}

/* ---- the check farm (btrt_pipeline_config.check_threads) --------------- */

/* Runs `items` items through the three-chunk pipeline with k check workers
 * and io_cores[0..n_io-1]; asserts every item loaded once and checked
 * exactly once, each worker's items (seq mod k) in seq order on one thread
 * of its own, worker 0 the caller (the sink), worker w on CPU
 * worker_cpu[w] (>= 0) and the records: each check after its load, each
 * worker's checks one after another. */
static void expect_farm(uint32_t k, const int *io_cores, uint32_t n_io, const int *worker_cpu)
{
	struct toy_params p;
	toy_default_params(&p);
	const uint64_t items = 300;
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX, .check_threads = k };
	for (uint32_t w = 0; w < k && worker_cpu && pinning(); w++)
		io.worker_cpu1[w] = worker_cpu[w] + 1;
	struct btrt_run *run = NULL;
	struct btrt_error err;
	toy_io_cores = io_cores;
	toy_n_io_cores = n_io;
	toy_keep_run = &run;
	int rc = toy_run(&p, toy_stages_cpu, toy_three, 3, 6, items, BTRT_BACKEND_HOST, NULL, NULL,
			 &io, NULL, &err);
	toy_keep_run = NULL;
	toy_io_cores = NULL;
	toy_n_io_cores = 0;
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(io.loaded, items);
	CU_ASSERT_EQUAL(io.checked, items);
	CU_ASSERT_EQUAL(io.order_errors, 0); /* per worker, in seq order */
	for (uint32_t w = 0; w < k; w++) {
		uint64_t last = w + (items - 1 - w) / k * k; /* its last task */
		CU_ASSERT_EQUAL(io.worker_next[w], last + k);
		CU_ASSERT_EQUAL(io.worker_tids[w], 0);
		CU_ASSERT_EQUAL(io.worker_cpu_errors[w], 0);
		CU_ASSERT_NOT_EQUAL(io.worker_tid[w], io.load_tid);
		for (uint32_t v = 0; v < w; v++)
			CU_ASSERT_NOT_EQUAL(io.worker_tid[w], io.worker_tid[v]);
	}
	CU_ASSERT_EQUAL(io.worker_tid[0], (long)syscall(SYS_gettid));
	CU_ASSERT_PTR_NOT_NULL_FATAL(run);
	CU_ASSERT_EQUAL(btrt_run_items(run), items);
	uint64_t prev_end[TOY_MAX_CHECKERS] = { 0 }, ls, le, cs, ce;
	for (uint64_t i = 0; i < items; i++) {
		CU_ASSERT_EQUAL_FATAL(btrt_run_io_times(run, i, &ls, &le, &cs, &ce), 0);
		CU_ASSERT(ls > 0 && ls <= le && le <= cs && cs <= ce);
		CU_ASSERT(cs >= prev_end[i % k]);
		prev_end[i % k] = ce;
	}
	btrt_run_free(run);
}

static void test_farm_unpinned(void)
{
	expect_farm(3, NULL, 0, NULL);
}

/* Two service cores for k = 2: the source on the first, the sink and the
 * other worker share the second. Three: a core each (worker 1 given the
 * source's core here, the 2-core box has no third). */
static void test_farm_placed(void)
{
	int cores[2];
	test_two_cores(cores);
	int shared[2] = { cores[1], cores[1] };
	expect_farm(2, cores, 2, shared);
	int three_cores[3] = { cores[0], cores[1], cores[0] }, each[2] = { cores[1], cores[0] };
	expect_farm(2, three_cores, 3, each);
}

/* Checks sleep C, loads and chunks next to nothing: with k = 2 the
 * records show checks of different tasks running at the same time (one
 * checker runs them one after another), each task still checked once. */
static void test_farm_overlap(void)
{
	struct toy_params p;
	toy_default_params(&p);
	p.n = 16;
	p.check_sleep_us = 3000;
	const uint64_t items = 24;
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX, .check_threads = 2 };
	struct btrt_run *run = NULL;
	struct btrt_error err;
	toy_keep_run = &run;
	int rc = toy_run(&p, toy_stages_cpu, toy_one, 1, 6, items, BTRT_BACKEND_HOST, NULL, NULL, &io,
			 NULL, &err);
	toy_keep_run = NULL;
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(io.checked, items);
	CU_ASSERT_EQUAL(io.order_errors, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(run);
	uint64_t overlapping = 0; /* checks that overlap the next task's check */
	for (uint64_t i = 0; i + 1 < items; i++) {
		uint64_t ls, le, cs, ce, cs2, ce2;
		CU_ASSERT_EQUAL_FATAL(btrt_run_io_times(run, i, &ls, &le, &cs, &ce), 0);
		CU_ASSERT_EQUAL_FATAL(btrt_run_io_times(run, i + 1, &ls, &le, &cs2, &ce2), 0);
		overlapping += cs2 < ce && cs < ce2;
	}
	fprintf(stderr, "  (%llu of %llu checks overlap the next one) ",
		(unsigned long long)overlapping, (unsigned long long)items - 1);
	CU_ASSERT(overlapping > 0);
	btrt_run_free(run);
}

/* Two corrupt tasks: 3 (worker 1 of 2) and 4 (worker 0, the sink). The
 * run fails with the first failing seq, 3, whichever worker's check fails
 * first; likewise for one corrupt task on each worker of 3. */
static void expect_first_failure(uint32_t k, uint64_t bad1, uint64_t bad2)
{
	struct toy_params p;
	toy_default_params(&p);
	p.n = 64;
	p.check_sleep_us = 1000;
	p.corrupt_seq = bad1;
	p.corrupt_seq2 = bad2;
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX, .check_threads = k };
	struct btrt_error err;
	int rc = toy_run(&p, toy_stages_cpu, toy_three, 3, 6, 40, BTRT_BACKEND_HOST, NULL, NULL, &io,
			 NULL, &err);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_CHECK);
	CU_ASSERT_EQUAL(err.seq, BTRT_MIN(bad1, bad2));
	CU_ASSERT_EQUAL(io.order_errors, 0);
	CU_ASSERT(io.checked > BTRT_MIN(bad1, bad2)); /* every task before it */
}

static void test_farm_first_failure(void)
{
	expect_first_failure(2, 3, 4);
	expect_first_failure(3, 8, 4);
	expect_first_failure(1, 4, 3);
}

static int serial_check(void *s, uint64_t seq, const void *t, FILE *out, char *e, size_t el)
{
	(void)s, (void)seq, (void)t, (void)out, (void)e, (void)el;
	return 0;
}

static int no_task_done(void *ctx, const struct btrt_task_done *d)
{
	(void)ctx, (void)d;
	return 0;
}

/* Where the checks must stay on one thread, the run uses one worker. */
static void test_farm_effective_k(void)
{
	const struct btrt_app_io concurrent = { .check = serial_check };
	const struct btrt_app_io serial = { .check = serial_check, .check_serial = 1 };
	struct btrt_pipeline_config c = { .io = &concurrent, .check = 1, .check_threads = 3 };
	CU_ASSERT_EQUAL(btrt_io_check_threads(&c), 3);
	c.check_threads = 0;
	CU_ASSERT_EQUAL(btrt_io_check_threads(&c), 1);
	c.check_threads = 1000;
	CU_ASSERT_EQUAL(btrt_io_check_threads(&c), BTRT_CHECK_THREADS_MAX);
	c.check_threads = 3;
	c.io = &serial;
	CU_ASSERT_EQUAL(btrt_io_check_threads(&c), 1);
	c.io = &concurrent;
	c.check = 0;
	CU_ASSERT_EQUAL(btrt_io_check_threads(&c), 1);
	c.check = 1;
	c.check_out = stderr;
	CU_ASSERT_EQUAL(btrt_io_check_threads(&c), 1);
	c.check_out = NULL;
	c.on_task_done = no_task_done;
	CU_ASSERT_EQUAL(btrt_io_check_threads(&c), 1);
}

/* ---- the load farm (btrt_pipeline_config.load_threads) ------------------ */

/* k_load loaders and k_check check workers over `items` items (0: until
 * the toy's load returns 0 at `limit`): every item loaded and checked
 * once, each loader's items in seq order on one thread of its own (loader
 * 0 the source, not the caller), the records' loads before their checks. */
static void expect_load_farm(uint32_t kl, uint32_t kc, uint64_t items, uint64_t limit,
			     uint32_t load_sleep_us)
{
	struct toy_params p;
	toy_default_params(&p);
	p.load_sleep_us = load_sleep_us;
	uint64_t want = items ? items : limit;
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX, .check_threads = kc,
				   .load_threads = kl, .limit = limit };
	struct btrt_run *run = NULL;
	struct btrt_error err;
	toy_keep_run = &run;
	int rc = toy_run(&p, toy_stages_cpu, toy_three, 3, 6, items, BTRT_BACKEND_HOST, NULL, NULL,
			 &io, NULL, &err);
	toy_keep_run = NULL;
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(io.loaded, want);
	CU_ASSERT_EQUAL(io.checked, want);
	CU_ASSERT_EQUAL(io.order_errors, 0);
	for (uint32_t w = 0; w < kl; w++) {
		CU_ASSERT_EQUAL(io.loader_tids[w], 0);
		CU_ASSERT_NOT_EQUAL(io.loader_tid[w], (long)syscall(SYS_gettid));
		for (uint32_t v = 0; v < w; v++)
			CU_ASSERT_NOT_EQUAL(io.loader_tid[w], io.loader_tid[v]);
	}
	CU_ASSERT_EQUAL(io.loader_tid[0], io.load_tid);
	CU_ASSERT_PTR_NOT_NULL_FATAL(run);
	CU_ASSERT_EQUAL(btrt_run_items(run), want);
	CU_ASSERT_EQUAL(btrt_run_load_threads(run), kl);
	uint64_t ls, le, cs, ce, overlapping = 0, prev_le = 0;
	for (uint64_t i = 0; i < want; i++) {
		CU_ASSERT_EQUAL_FATAL(btrt_run_io_times(run, i, &ls, &le, &cs, &ce), 0);
		CU_ASSERT(ls > 0 && ls <= le && le <= cs && cs <= ce);
		overlapping += i > 0 && ls < prev_le; /* began before the previous ended */
		prev_le = le;
	}
	CU_ASSERT_EQUAL(btrt_run_io_times(run, want, &ls, &le, &cs, &ce), -1);
	if (load_sleep_us) {
		fprintf(stderr, "  (%llu of %llu loads overlap the previous one) ",
			(unsigned long long)overlapping, (unsigned long long)want - 1);
		CU_ASSERT(overlapping > 0);
	}
	btrt_run_free(run);
}

static void test_load_farm(void)
{
	expect_load_farm(3, 1, 300, 0, 0);
	expect_load_farm(2, 2, 300, 0, 0);
	expect_load_farm(2, 1, 24, 0, 3000); /* loads of different items overlap */
}

/* The end of input found by a loader or by the source: the stream ends
 * there, every item before it checked. */
static void test_load_farm_end(void)
{
	for (uint64_t limit = 30; limit < 33; limit++)
		expect_load_farm(3, 2, 0, limit, 0);
}

/* A failed load stops the run with that item's seq. */
static void test_load_farm_failure(void)
{
	for (uint64_t bad = 6; bad < 9; bad++) {
		struct toy_params p;
		toy_default_params(&p);
		struct toy_io_state io = { .load_fail_seq = bad, .load_threads = 3 };
		struct btrt_error err;
		int rc = toy_run(&p, toy_stages_cpu, toy_three, 3, 6, 40, BTRT_BACKEND_HOST, NULL, NULL,
				 &io, NULL, &err);
		CU_ASSERT_EQUAL(rc, -1);
		CU_ASSERT_EQUAL(err.kind, BTRT_E_IO);
		CU_ASSERT_EQUAL(err.seq, bad);
		CU_ASSERT(io.checked <= bad);
	}
}

/* Where the loads must stay on one thread, the run uses the source alone. */
static void test_load_farm_effective_k(void)
{
	const struct btrt_app_io concurrent = { .check = serial_check };
	const struct btrt_app_io serial = { .check = serial_check, .load_serial = 1 };
	struct btrt_pipeline_config c = { .io = &concurrent, .load_threads = 3 };
	CU_ASSERT_EQUAL(btrt_io_load_threads(&c), 3);
	c.load_threads = 0;
	CU_ASSERT_EQUAL(btrt_io_load_threads(&c), 1);
	c.load_threads = 1000;
	CU_ASSERT_EQUAL(btrt_io_load_threads(&c), BTRT_LOAD_THREADS_MAX);
	c.io = &serial;
	CU_ASSERT_EQUAL(btrt_io_load_threads(&c), 1);
	c.io = &concurrent;
	c.on_task_done = no_task_done;
	CU_ASSERT_EQUAL(btrt_io_load_threads(&c), 1);
}

/* The chunk model's io term and the io farms' sizes (btrt_model.h). */
static void test_model_io(void)
{
	/* octree on the H100 (docs/results/h100.md): load 0.56, check 0.83 */
	CU_ASSERT_DOUBLE_EQUAL(btrt_model_io_ms(0.56, 0.83, 1, 1), 0.83, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(btrt_model_io_ms(0.56, 0.83, 1, 2), 0.56, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(btrt_model_io_ms(0.56, 0.83, 2, 2), 0.415, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(btrt_model_io_ms(0.56, 0.83, 0, 0), 0.83, 1e-12); /* 0: 1 */
	CU_ASSERT_DOUBLE_EQUAL(btrt_model_io_ms(NAN, 0.83, 1, 2), 0.415, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(btrt_model_io_ms(0.3, NAN, 1, 2), 0.3, 1e-12);
	CU_ASSERT(isnan(btrt_model_io_ms(NAN, NAN, 1, 1)));
	uint32_t kl, kc;
	/* octree on the H100: compute 0.51 needs 2 and 2; T_io 0.415 */
	btrt_model_io_threads(0.56, 0.83, 0.51, 2, &kl, &kc);
	CU_ASSERT(kl == 2 && kc == 2);
	/* one thread more only: the check's farm, which the loss hurts most */
	btrt_model_io_threads(0.56, 0.83, 0.51, 1, &kl, &kc);
	CU_ASSERT(kl == 1 && kc == 2);
	btrt_model_io_threads(0.56, 0.83, 0.51, 0, &kl, &kc);
	CU_ASSERT(kl == 1 && kc == 1);
	btrt_model_io_threads(0.2, 0.83, 0.3, 8, &kl, &kc); /* ceil 2.77 */
	CU_ASSERT(kl == 1 && kc == 3);
	btrt_model_io_threads(0.2, 0.83, 0.1, 15, &kl, &kc); /* ceil 2, ceil 8.3 */
	CU_ASSERT(kl == 2 && kc == 9);
	btrt_model_io_threads(0.2, 0.4, 0.5, 8, &kl, &kc); /* the io fits */
	CU_ASSERT(kl == 1 && kc == 1);
	btrt_model_io_threads(NAN, 0.83, 0.5, 8, &kl, &kc);
	CU_ASSERT(kl == 1 && kc == 2);
	btrt_model_io_threads(0.9, NAN, 0.5, 8, &kl, &kc);
	CU_ASSERT(kl == 2 && kc == 1);
	btrt_model_io_threads(0.2, 0.83, INFINITY, 8, &kl, &kc);
	CU_ASSERT(kl == 1 && kc == 1);
	/* a load of 1.2 with only two threads more: 2 + 2 beats 3 + 1 */
	btrt_model_io_threads(1.2, 0.9, 0.4, 2, &kl, &kc);
	CU_ASSERT(kl == 2 && kc == 2);
}

/* The default pool covers every position that holds a task (loaders,
 * chunk entries, check workers) plus BTRT_POOL_SLACK (btrt_model.h). */
static void test_model_default_pool(void)
{
	CU_ASSERT_EQUAL(BTRT_POOL_SLACK, 3);
	/* octree cuda:0-5 cpu:6 on an H100: 2 entries (table pool 3), 1
	 * loader, 2 check workers: 5 positions (the pool was 4) */
	CU_ASSERT_EQUAL(btrt_model_default_pool(3, 1, 2), 5 + BTRT_POOL_SLACK);
	CU_ASSERT_EQUAL(btrt_model_default_pool(3, 1, 1), 4 + BTRT_POOL_SLACK);
	CU_ASSERT_EQUAL(btrt_model_default_pool(3, 0, 0), 4 + BTRT_POOL_SLACK); /* 0: 1 */
	CU_ASSERT_EQUAL(btrt_model_default_pool(2, 2, 3), 6 + BTRT_POOL_SLACK);
	/* a farm {fast, slow} of 2 entries and extra 10: table 13 */
	CU_ASSERT_EQUAL(btrt_model_default_pool(13, 1, 1), 2 + 10 + 2 + BTRT_POOL_SLACK);
	CU_ASSERT_EQUAL(btrt_model_default_pool(UINT32_MAX, 16, 16), UINT32_MAX);
}

/* The run's warm-up covers every TaskObject's first use (issue 25,
 * btrt_model_warmup): max(--warmup, pool), and the extra warm-up tasks
 * are streamed besides --tasks, so tasks - warmup are measured. */
static void test_model_warmup(void)
{
	uint64_t w = 0, n = 0;
	/* the tuner's runs: 68 tasks, 4 warm-up; alexnet-dense cuda, pool 7 */
	btrt_model_warmup(68, 4, 7, &w, &n);
	CU_ASSERT_EQUAL(w, 7);
	CU_ASSERT_EQUAL(n, 71);
	CU_ASSERT_EQUAL(n - w, 68 - 4);
	/* a pool within the warm-up asked for: unchanged */
	btrt_model_warmup(68, 4, 3, &w, &n);
	CU_ASSERT(w == 4 && n == 68);
	btrt_model_warmup(68, 7, 7, &w, &n);
	CU_ASSERT(w == 7 && n == 68);
	btrt_model_warmup(300, 20, 7, &w, &n);
	CU_ASSERT(w == 20 && n == 300);
	/* no warm-up asked: the pool's first uses still go before the clock */
	btrt_model_warmup(10, 0, 10, &w, &n);
	CU_ASSERT(w == 10 && n == 20);
	/* NULL outputs; saturation */
	btrt_model_warmup(5, 1, 4, NULL, &n);
	CU_ASSERT_EQUAL(n, 8);
	btrt_model_warmup(5, 1, 4, &w, NULL);
	CU_ASSERT_EQUAL(w, 4);
	btrt_model_warmup(UINT64_MAX - 1, 0, 9, &w, &n);
	CU_ASSERT(w == 9 && n == UINT64_MAX);
}

/* The premise of btrt_model_warmup: the first `pool` items are the pool's
 * slots' first uses, item s in slot s, with one loader and with a load
 * farm, and no slot is left unused by a long run. */
static void test_slots_first_use(void)
{
	for (uint32_t k = 1; k <= 2; k++) {
		struct toy_params p;
		toy_default_params(&p);
		struct toy_io_state io = { .load_fail_seq = UINT64_MAX, .load_threads = k };
		struct btrt_error err;
		int rc = toy_run(&p, toy_stages_cpu, toy_three, 3, 9, 40, BTRT_BACKEND_HOST, NULL,
				 NULL, &io, NULL, &err);
		if (rc)
			fprintf(stderr, "%s\n", err.msg);
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_EQUAL(io.slots_seen, (1ull << 9) - 1);
		CU_ASSERT_EQUAL(io.slot_first_errors, 0);
	}
}

/* The farms' admission cover is the pool beyond every position, io
 * included (btrt_model_farm_cover), not the pool beyond the chunk entries:
 * a {1 ms, 10 ms} farm needs 10. */
static void test_model_farm_cover(void)
{
	/* the default pool of {1, 10} (table pool 2 + 1 + 10 = 13) with 1
	 * loader and 1 check worker: 17, 4 positions, cover 13 */
	CU_ASSERT_EQUAL(btrt_model_farm_cover(17, 2, 1, 1), 13.0);
	CU_ASSERT_EQUAL(btrt_model_farm_cover(17, 2, 0, 0), 13.0); /* 0: 1 */
	/* pool 16 with 4 loaders and 4 check workers: 10 positions, cover 6
	 * (the old rule, pool - entries, gave 14) */
	CU_ASSERT_EQUAL(btrt_model_farm_cover(16, 2, 4, 4), 6.0);
	/* the table pool run as the pool with the runtime's two io threads
	 * (not the paper's one): 9, one short of the extra */
	CU_ASSERT_EQUAL(btrt_model_farm_cover(13, 2, 1, 1), 9.0);
	/* a pool at or below the positions covers nothing */
	CU_ASSERT_EQUAL(btrt_model_farm_cover(4, 2, 1, 1), 0.0);
	CU_ASSERT_EQUAL(btrt_model_farm_cover(1, 2, 1, 1), 0.0);
	CU_ASSERT_EQUAL(btrt_model_farm_cover(UINT32_MAX, UINT32_MAX, 16, 16), 0.0);
	/* the default pool's cover is the farm extras + BTRT_POOL_SLACK,
	 * whatever the io farms */
	for (uint32_t kl = 1; kl <= 4; kl++)
		for (uint32_t kc = 1; kc <= 4; kc++)
			CU_ASSERT_EQUAL(btrt_model_farm_cover(btrt_model_default_pool(2 + 1 + 10, kl, kc),
							      2, kl, kc),
					10.0 + BTRT_POOL_SLACK);
}

/* btrt_io_copy copies exactly the bytes asked, on both sides of
 * BTRT_IO_COPY_STREAM_MIN and at every destination alignment: the bytes
 * around the destination stay as they were. */
static void test_io_copy(void)
{
	const size_t m = BTRT_IO_COPY_STREAM_MIN;
	const size_t sizes[] = {0, 1, 63, 4096, m - 1, m, m + 77, 3 * m + 5};
	const size_t max = 3 * m + 5, guard = 64;
	unsigned char *src = malloc(max + 16), *dst = malloc(max + 2 * guard + 16);
	CU_ASSERT_FATAL(src && dst);
	for (size_t i = 0; i < max + 16; i++)
		src[i] = (unsigned char)(i * 131u + 7u);
	for (int stream = 1; stream >= 0; stream--) /* BTRT_IO_COPY=memcpy too */
		for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
			btrt_io_copy_configure(stream);
			for (size_t dofs = 0; dofs < 16; dofs += 5)
				for (size_t sofs = 0; sofs < 4; sofs += 3) {
					memset(dst, 0xA5, max + 2 * guard + 16);
					unsigned char *d = dst + guard + dofs;
					btrt_io_copy(d, src + sofs, sizes[k]);
					CU_ASSERT(memcmp(d, src + sofs, sizes[k]) == 0);
					int clean = 1;
					for (size_t i = 0; i < guard + dofs; i++)
						clean &= dst[i] == 0xA5;
					for (size_t i = 0; i < guard; i++)
						clean &= d[sizes[k] + i] == 0xA5;
					CU_ASSERT(clean);
				}
		}
	btrt_io_copy_configure(1);
	free(src);
	free(dst);
}

/* btrt_io_parallel's fn: counts each item's calls and the calling thread. */
struct parallel_items {
	atomic_int *calls; /* [n] */
	pthread_t *by;     /* [n] */
};

static void parallel_one(void *ctx, size_t i)
{
	struct parallel_items *p = ctx;
	atomic_fetch_add(&p->calls[i], 1);
	p->by[i] = pthread_self();
}

/* btrt_io_parallel calls fn once for every item, on at most min(n, the
 * process's cores, 64) threads, the caller's among them; n = 0 calls
 * nothing. */
static void test_io_parallel(void)
{
	enum { N = 200 };
	atomic_int calls[N];
	pthread_t by[N];
	struct parallel_items p = {calls, by};
	cpu_set_t cpus;
	CU_ASSERT_FATAL(sched_getaffinity(0, sizeof cpus, &cpus) == 0);
	size_t cores = (size_t)CPU_COUNT(&cpus);
	const size_t ns[] = {0, 1, 2, 7, N};
	for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
		for (int i = 0; i < N; i++)
			atomic_init(&calls[i], 0);
		size_t n = ns[k], th = btrt_io_parallel(n, parallel_one, &p);
		size_t most = n < cores ? n : cores;
		CU_ASSERT(th <= (most < 64 ? most : 64));
		CU_ASSERT(n == 0 ? th == 0 : th >= 1);
		int once = 1, caller = n == 0;
		for (size_t i = 0; i < N; i++) {
			once &= atomic_load(&calls[i]) == (i < n);
			caller |= i < n && pthread_equal(by[i], pthread_self());
		}
		CU_ASSERT(once);
		CU_ASSERT(caller || th > 1); /* with one thread, the caller ran every item */
	}
}

int suite_io_register(void)
{
	CU_pSuite s = CU_add_suite("io", NULL, NULL);
	if (!s || !CU_add_test(s, "in order, source and sink on two service cores", test_two_service_cores) ||
	    !CU_add_test(s, "btrt_io_copy: the bytes asked, any size and alignment", test_io_copy) ||
	    !CU_add_test(s, "btrt_io_parallel: every item once, at most one thread a core", test_io_parallel) ||
	    !CU_add_test(s, "in order, source and sink sharing one service core", test_one_service_core) ||
	    !CU_add_test(s, "in order through a farm", test_farm) ||
	    !CU_add_test(s, "in order, unpinned", test_unpinned) ||
	    !CU_add_test(s, "a check overlaps a later load", test_overlap) ||
	    !CU_add_test(s, "check farm: every task once, each worker in order, unpinned", test_farm_unpinned) ||
	    !CU_add_test(s, "check farm: workers on their service cores", test_farm_placed) ||
	    !CU_add_test(s, "check farm: checks of different tasks overlap", test_farm_overlap) ||
	    !CU_add_test(s, "check farm: the first failing seq is reported", test_farm_first_failure) ||
	    !CU_add_test(s, "check farm: one worker where checks must stay serial", test_farm_effective_k) ||
	    !CU_add_test(s, "load farm: every item once, each loader in order", test_load_farm) ||
	    !CU_add_test(s, "load farm: the end of input", test_load_farm_end) ||
	    !CU_add_test(s, "load farm: a failed load's seq", test_load_farm_failure) ||
	    !CU_add_test(s, "load farm: the source alone where loads must stay serial", test_load_farm_effective_k) ||
	    !CU_add_test(s, "chunk model: io term max(load / k_load, check / k_check), the farms' sizes", test_model_io) ||
	    !CU_add_test(s, "the default pool: every position that holds a task, and slack", test_model_default_pool) ||
	    !CU_add_test(s, "the warm-up: at least one task per TaskObject, tasks - warmup measured", test_model_warmup) ||
	    !CU_add_test(s, "the first `pool` items are the slots' first uses, in order", test_slots_first_use) ||
	    !CU_add_test(s, "the farms' cover: the pool beyond every position", test_model_farm_cover))
		return -1;
	return 0;
}
