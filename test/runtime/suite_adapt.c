/* Adaptive pipelines (btrt_adapt.h) on the toy app: forced switches every
 * N tasks over hundreds of tasks keep every task checked once and in
 * order; a real run whose second PU is slowed down on purpose switches
 * away from it; the hog plan. The controller alone on synthetic
 * observations and the cost model's formulas are in suite_adapt_ctl.c,
 * added to the same suite. Runs under ThreadSanitizer too
 * (test_runtime_tsan). */
#include "suite_adapt_ctl.h"
#include "suites.h"
#include "testutil.h"
#include "toy.h"

#include <btrt_adapt.h>
#include <btrt_hog.h>
#include <btrt_trace.h>
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int cores[2];
static struct btrt_chunk one[1], three[3], five[5];

static int init(void)
{
	test_two_cores(cores);
	one[0] = (struct btrt_chunk){ "all", BTRT_PU_CPU, cores, 2, 0, 5, NULL, NULL, 0 };
	three[0] = (struct btrt_chunk){ "big", BTRT_PU_CPU, &cores[0], 1, 0, 2, NULL, NULL, 0 };
	three[1] = (struct btrt_chunk){ "mid", BTRT_PU_CPU, &cores[1], 1, 2, 1, NULL, NULL, 0 };
	three[2] = (struct btrt_chunk){ "little", BTRT_PU_CPU, cores, 2, 3, 2, NULL, NULL, 0 };
	for (int i = 0; i < 5; i++)
		five[i] = (struct btrt_chunk){ "c", BTRT_PU_CPU, &cores[i % 2], 1, (uint32_t)i, 1,
					       NULL, NULL, 0 };
	return 0;
}

/* The toy stream through an adaptive run of scheds. */
struct toy_adapt {
	struct toy_params p;
	struct toy_io_state io;
	struct btrt_pool *pool;
	struct btrt_pipeline_config base;
};

static int toy_adapt_setup(struct toy_adapt *t, uint32_t pool_size, uint64_t n_items)
{
	toy_default_params(&t->p);
	t->p.n = 1024;
	memset(&t->io, 0, sizeof t->io);
	t->io.p = &t->p;
	t->io.load_fail_seq = UINT64_MAX;
	size_t counts[TOY_N_BUFFERS];
	toy_counts(&t->p, counts);
	struct btrt_pool_config pc = {
		.task_size = sizeof(struct toy_task), .n_tasks = pool_size,
		.buffers = toy_buffers, .counts = counts, .n_buffers = TOY_N_BUFFERS,
		.backend = BTRT_BACKEND_HOST,
	};
	struct btrt_error err;
	if (btrt_pool_create(&t->pool, &pc, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	for (uint32_t i = 0; i < pool_size; i++)
		toy_task_bind(btrt_pool_task(t->pool, i), &t->p);
	t->base = (struct btrt_pipeline_config){
		.app = "toy", .stages = toy_stages_cpu, .n_stages = TOY_N_STAGES,
		.pool = t->pool, .io = &toy_io, .io_state = &t->io, .n_items = n_items,
		.check = 1,
	};
	return 0;
}

static void test_forced_switches(void)
{
	struct toy_adapt t;
	CU_ASSERT_FATAL(toy_adapt_setup(&t, 6, 600) == 0);
	const struct btrt_adapt_schedule scheds[] = {
		{ "all", one, 1, NULL, 0, 0 },
		{ "three", three, 3, NULL, 0, 0 },
		{ "five", five, 5, NULL, 0, 0 },
	};
	struct btrt_adapt_config cfg = { .base = &t.base, .scheds = scheds, .n_scheds = 3, .start = 1 };
	btrt_adapt_options_init(&cfg.opt);
	cfg.opt.force_every = 37;
	struct btrt_adapt_result *res = NULL;
	struct btrt_error err;
	int rc = btrt_adapt_run(&cfg, &res, &err);
	if (rc)
		fprintf(stderr, "adapt: %s\n", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(t.io.checked, 600);
	CU_ASSERT_EQUAL(t.io.next_seq, 600);
	CU_ASSERT_EQUAL(t.io.order_errors, 0);
	CU_ASSERT_EQUAL(t.io.loaded, 600);
	CU_ASSERT_PTR_NOT_NULL_FATAL(res);
	/* a switch after the 37th task of each segment, whose tasks in
	 * flight (up to 5 more) finish first: 600 / 42 .. 600 / 37 */
	uint32_t n;
	const struct btrt_adapt_decision *d = btrt_adapt_decisions(res, &n);
	CU_ASSERT(n >= 600 / 42 && n <= 600 / 37);
	CU_ASSERT_EQUAL(btrt_adapt_switches(res), n);
	uint64_t next = 0;
	for (uint32_t i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(d[i].to, (d[i].from + 1) % 3);
		CU_ASSERT_STRING_EQUAL(d[i].reason, "forced");
		CU_ASSERT_EQUAL(d[i].seq, next + 36);       /* 37th task of the segment */
		CU_ASSERT(d[i].resume_seq > d[i].seq);       /* the tasks in flight finished */
		CU_ASSERT(d[i].resume_seq <= d[i].seq + 6);  /* at most a pool of them */
		CU_ASSERT(d[i].decide_ns <= d[i].drained_ns);
		CU_ASSERT(d[i].drained_ns <= d[i].resumed_ns);
		next = d[i].resume_seq;
	}
	const struct btrt_run *r = btrt_adapt_records(res);
	/* one merged chunk record per (schedule, chunk) that ran */
	CU_ASSERT_EQUAL(btrt_run_chunks(r), 1 + 3 + 5);
	CU_ASSERT_EQUAL(btrt_run_items(r), 600);
	uint64_t recorded = 0; /* tasks x chunks of their schedule */
	static uint64_t ns[600];
	for (uint32_t c = 0; c < btrt_run_chunks(r); c++)
		recorded += btrt_run_chunk_times(r, c, ns, 600);
	uint64_t expect = 0, from = 0;
	uint32_t k = 1;
	for (uint32_t i = 0; i <= n; i++) {
		uint64_t to = i < n ? d[i].resume_seq : 600;
		expect += (to - from) * scheds[k].n_chunks;
		from = to;
		k = (k + 1) % 3;
	}
	CU_ASSERT_EQUAL(recorded, expect);
	btrt_adapt_free(res);
	btrt_pool_destroy(t.pool);
}

/* After a switch the new schedule's chunks use each TaskObject slot for
 * the first time (a CUDA chunk primes its slots again): the figure after
 * the last switch starts a settle of at least the pool later
 * (btrt_adapt_settle), the default pool + 4, and a settle asked below
 * the pool is raised to it. */
static void test_settle_covers_pool(void)
{
	const struct btrt_adapt_schedule scheds[] = {
		{ "all", one, 1, NULL, 0, 0 },
		{ "three", three, 3, NULL, 0, 0 },
	};
	for (uint32_t settle = 0; settle <= 1; settle++) {
		struct toy_adapt t;
		CU_ASSERT_FATAL(toy_adapt_setup(&t, 6, 200) == 0);
		struct btrt_adapt_config cfg = { .base = &t.base, .scheds = scheds, .n_scheds = 2 };
		btrt_adapt_options_init(&cfg.opt);
		/* switches at 80 and 160 of 200: the last one's settle ends
		 * well before the input does, however late the drain resumes */
		cfg.opt.force_every = 80;
		cfg.opt.settle = settle;
		CU_ASSERT_EQUAL(btrt_adapt_settle(&cfg.opt, 6), settle ? 6 : 10);
		struct btrt_adapt_result *res = NULL;
		struct btrt_error err;
		CU_ASSERT_EQUAL(btrt_adapt_run(&cfg, &res, &err), 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(res);
		uint32_t n;
		const struct btrt_adapt_decision *d = btrt_adapt_decisions(res, &n);
		CU_ASSERT_FATAL(n >= 1);
		uint64_t from = 0, last = d[n - 1].resume_seq;
		CU_ASSERT(btrt_adapt_after_switch_ns(res, 6, &from) > 0);
		/* settle 1 asked: from last + 1 (the pool's first uses inside) before */
		CU_ASSERT_EQUAL(from, last + (settle ? 6 : 10));
		btrt_adapt_free(res);
		btrt_pool_destroy(t.pool);
	}
}

static void test_forced_end_of_input(void)
{
	struct toy_adapt t;
	CU_ASSERT_FATAL(toy_adapt_setup(&t, 6, 0) == 0);
	t.io.limit = 251; /* load returns 0 at 251: the stream ends mid-segment */
	const struct btrt_adapt_schedule scheds[] = {
		{ "five", five, 5, NULL, 0, 0 },
		{ "three (skipped)", three, 3, NULL, 0, 1 },
		{ "all", one, 1, NULL, 0, 0 },
	};
	struct btrt_adapt_config cfg = { .base = &t.base, .scheds = scheds, .n_scheds = 3 };
	btrt_adapt_options_init(&cfg.opt);
	cfg.opt.force_every = 10;
	struct btrt_adapt_result *res = NULL;
	struct btrt_error err;
	CU_ASSERT_EQUAL(btrt_adapt_run(&cfg, &res, &err), 0);
	CU_ASSERT_EQUAL(t.io.checked, 251);
	CU_ASSERT_EQUAL(t.io.order_errors, 0);
	CU_ASSERT(btrt_adapt_switches(res) >= 251 / 16 - 1);
	uint32_t n;
	const struct btrt_adapt_decision *d = btrt_adapt_decisions(res, &n);
	for (uint32_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL(d[i].to, d[i].from == 0 ? 2 : 0);
	btrt_adapt_free(res);
	btrt_pool_destroy(t.pool);
}

static void test_forced_check_failure(void)
{
	struct toy_adapt t;
	CU_ASSERT_FATAL(toy_adapt_setup(&t, 4, 400) == 0);
	t.p.corrupt_seq = 123; /* stage 4 writes a wrong value on task 123 */
	const struct btrt_adapt_schedule scheds[] = {
		{ "three", three, 3, NULL, 0, 0 },
		{ "all", one, 1, NULL, 0, 0 },
	};
	struct btrt_adapt_config cfg = { .base = &t.base, .scheds = scheds, .n_scheds = 2 };
	btrt_adapt_options_init(&cfg.opt);
	cfg.opt.force_every = 20;
	struct btrt_adapt_result *res = NULL;
	struct btrt_error err;
	CU_ASSERT_EQUAL(btrt_adapt_run(&cfg, &res, &err), -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_CHECK);
	CU_ASSERT_EQUAL(err.seq, 123);
	CU_ASSERT_EQUAL(t.io.checked, 124);
	CU_ASSERT_PTR_NOT_NULL(res);
	btrt_adapt_free(res);
	btrt_pool_destroy(t.pool);
}

/* ---- a real run with a PU slowed down on purpose ---- */

static atomic_int slow_b;                  /* set once the disturbance starts */

/* Chunk body: the toy stages and 1 ms of sleep, and on PU "B" (range[2])
 * 50 ms more per task once slow_b is set. The floor of 1 ms sets the
 * controller's start (1-3 ms a task on a loaded 2-core box, ASan) on
 * tasks that the machine's stalls of B's thread alone do not make 5
 * times slower for three windows in a row; B's 51 ms are (17-50 x).
 * With microsecond tasks one descheduling of B's thread (an ASan build
 * beside other tests) read as B slowed and switched before task 59. */
static int body(void *ctx, struct btrt_task *t, struct btrt_error *err)
{
	(void)err;
	const uint32_t *range = ctx; /* first stage, count, is B */
	for (uint32_t s = range[0]; s < range[0] + range[1]; s++) {
		int rc = toy_stages_cpu[s].cpu(t);
		if (rc)
			return rc;
	}
	long ms = range[2] && atomic_load(&slow_b) ? 51 : 1;
	struct timespec ts = { 0, ms * 1000 * 1000 };
	nanosleep(&ts, NULL);
	return 0;
}

static int start_slowdown(void *ctx, const struct btrt_task_done *d)
{
	(void)ctx;
	if (d->seq + 1 == 60)
		atomic_store(&slow_b, 1);
	return 0;
}

static void test_real_slowdown(void)
{
	struct toy_adapt t;
	CU_ASSERT_FATAL(toy_adapt_setup(&t, 3, 200) == 0);
	atomic_store(&slow_b, 0);
	/* S0: A stages 0-2, B stages 3-4; S1: everything on A */
	static const uint32_t r0a[3] = { 0, 3, 0 }, r0b[3] = { 3, 2, 1 }, r1[3] = { 0, 5, 0 };
	struct btrt_chunk s0[2] = {
		{ "A", BTRT_PU_CPU, &cores[0], 1, 0, 3, body, (void *)r0a, 0 },
		{ "B", BTRT_PU_CPU, &cores[1], 1, 3, 2, body, (void *)r0b, 0 },
	};
	struct btrt_chunk s1[1] = { { "A", BTRT_PU_CPU, &cores[0], 1, 0, 5, body, (void *)r1, 0 } };
	/* the model: every stage 0.05 ms on both */
	static const double tm[5 * 2] = { .05, .05, .05, .05, .05, .05, .05, .05, .05, .05 };
	static const char *const names[2] = { "A", "B" };
	const struct btrt_model m = { 5, 2, tm, NULL, NULL, 0, names, "test", NULL };
	static const uint32_t p0[2] = { 0, 1 }, p1[1] = { 0 };
	const struct btrt_adapt_schedule scheds[2] = { { "A:0-2 B:3-4", s0, 2, p0, 0, 0 },
						       { "A:0-4", s1, 1, p1, 0, 0 } };
	t.base.on_task_done = start_slowdown;
	struct btrt_adapt_config cfg = { .base = &t.base, .model = &m, .scheds = scheds,
					 .n_scheds = 2 };
	btrt_adapt_options_init(&cfg.opt);
	cfg.opt.window = 8;
	cfg.opt.window_ms = 0; /* windows of 8 tasks, so the start is measured before task 60 */
	cfg.opt.threshold = 4; /* a slowdown above 5 x (body) */
	cfg.opt.log = getenv("TOY_VERBOSE") ? stderr : NULL;
	struct btrt_adapt_result *res = NULL;
	struct btrt_error err;
	int rc = btrt_adapt_run(&cfg, &res, &err);
	if (rc)
		fprintf(stderr, "adapt: %s\n", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(t.io.checked, 200);
	CU_ASSERT_EQUAL(t.io.order_errors, 0);
	uint32_t n;
	const struct btrt_adapt_decision *d = btrt_adapt_decisions(res, &n);
	/* B's 51 ms per task against 1: the run leaves B, once */
	CU_ASSERT_EQUAL(btrt_adapt_switches(res), 1);
	for (uint32_t i = 0; i < n; i++)
		if (d[i].to != d[i].from) {
			CU_ASSERT_EQUAL(d[i].to, 1);
			CU_ASSERT(d[i].seq >= 59);
			CU_ASSERT(d[i].slowdown[1] > d[i].slowdown[0]);
		}
	char path[] = "/tmp/btrt-adapt-trace-XXXXXX";
	CU_ASSERT_EQUAL_FATAL(btc_test_tmpfile(path), 0);
	CU_ASSERT_EQUAL(btrt_adapt_write_trace(res, path, &err), 0);
	FILE *f = fopen(path, "r");
	/* The whole trace: its size grows with the decisions taken (a loaded
	 * machine takes more) and with the io tracks. */
	static char buf[1 << 22];
	size_t len = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	buf[len] = 0;
	if (f)
		fclose(f);
	CU_ASSERT(len < sizeof buf - 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"name\":\"switch 0 -> 1\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"slowdown_B\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"switching 0 -> 1\""));
	CU_ASSERT(len > 4 && !strcmp(buf + len - 4, "\n]}\n"));
	remove(path);
	btrt_adapt_free(res);
	btrt_pool_destroy(t.pool);
}

/* ---- the hog plan ---- */

static void test_hog_plan(void)
{
	int core = cores[1];
	struct btrt_hog_plan p = { .cpu_cores = &core, .n_cpu_cores = 1, .from = 5, .to = 9 };
	uint64_t zero[1] = { 0 };
	for (uint64_t s = 0; s < 12; s++) {
		struct btrt_task_done d = { s, 0, 0, 1, zero, 0, 0 };
		CU_ASSERT_EQUAL(btrt_hog_plan_on_task_done(&p, &d), 0);
		/* running while 5..8 tasks are checked */
		CU_ASSERT_EQUAL(p.cpu_hog != NULL, s + 1 >= 5 && s + 1 < 9);
	}
	CU_ASSERT_EQUAL(p.failed, 0);
	btrt_hog_plan_finish(&p);
	/* counted from task 3 (the program's extra warm-up tasks before it):
	 * the same window, 3 tasks later */
	struct btrt_hog_plan q = { .cpu_cores = &core, .n_cpu_cores = 1, .from = 5, .to = 9,
				   .first = 3 };
	for (uint64_t s = 0; s < 15; s++) {
		struct btrt_task_done d = { s, 0, 0, 1, zero, 0, 0 };
		CU_ASSERT_EQUAL(btrt_hog_plan_on_task_done(&q, &d), 0);
		CU_ASSERT_EQUAL(q.cpu_hog != NULL, s >= 3 && s - 3 + 1 >= 5 && s - 3 + 1 < 9);
	}
	CU_ASSERT_EQUAL(q.failed, 0);
	btrt_hog_plan_finish(&q);
	struct btrt_hog *h;
	struct btrt_error err;
	CU_ASSERT_EQUAL(btrt_hog_cpu_start(&h, &core, 0, &err), -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_INVAL);
}

int suite_adapt_register(void)
{
	CU_pSuite s = CU_add_suite("adapt", init, NULL);
	if (!s)
		return -1;
	if (!CU_add_test(s, "forced switches every 37 tasks over 600, 3 schedules", test_forced_switches) ||
	    !CU_add_test(s, "after a switch, the settle covers the pool", test_settle_covers_pool) ||
	    !CU_add_test(s, "forced switches, end of input mid-segment", test_forced_end_of_input) ||
	    !CU_add_test(s, "forced switches, a failed check stops the run", test_forced_check_failure) ||
	    suite_adapt_ctl_add(s) ||
	    !CU_add_test(s, "real run: PU B slowed by 50 ms per task is left", test_real_slowdown) ||
	    !CU_add_test(s, "hog plan: from / to task numbers, counted from the first", test_hog_plan))
		return -1;
	return 0;
}
