/* CPU-only toy pipelines: 1, 3 and 5 chunks, results and order; end of
 * input; errors in a kernel, in load and in check stop the pipeline with
 * the right error and no hang; bad tables; trace output. */
#include "suites.h"
#include "testutil.h"
#include "toy.h"

/* the run records, for a hand-built run (test_steady_summary) */
#include "../../runtime/src/btrt_internal.h"

#include <btrt_trace.h>
#include <CUnit/CUnit.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static int cores[2];

/* 3 chunks: [scale offset] [square] [mix seal]. */
static struct btrt_chunk three[3];
/* 5 chunks, one per stage. */
static struct btrt_chunk five[5];

static int init(void)
{
	test_two_cores(cores);
	struct btrt_chunk c3[3] = {
		{ "big", BTRT_PU_CPU, &cores[0], 1, 0, 2, NULL, NULL, 0 },
		{ "mid", BTRT_PU_CPU, &cores[1], 1, 2, 1, NULL, NULL, 0 },
		{ "little", BTRT_PU_CPU, cores, 2, 3, 2, NULL, NULL, 0 },
	};
	memcpy(three, c3, sizeof c3);
	for (int i = 0; i < 5; i++)
		five[i] = (struct btrt_chunk){ "c", BTRT_PU_CPU, &cores[i % 2], 1, (uint32_t)i, 1, NULL, NULL, 0 };
	return 0;
}

static void expect_ok(const struct btrt_chunk *ch, uint32_t n, uint32_t pool, uint64_t items)
{
	struct toy_params p;
	toy_default_params(&p);
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX };
	struct btrt_error err;
	int rc = toy_run(&p, toy_stages_cpu, ch, n, pool, items, BTRT_BACKEND_HOST, NULL, NULL, &io, NULL, &err);
	if (rc)
		fprintf(stderr, "pipeline: %s\n", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(io.checked, items);
	CU_ASSERT_EQUAL(io.next_seq, items);
	CU_ASSERT_EQUAL(io.order_errors, 0);
}

static void test_one_chunk(void)
{
	struct btrt_chunk one = { "all", BTRT_PU_CPU, cores, 2, 0, 5, NULL, NULL, 0 };
	expect_ok(&one, 1, 2, 50);
}

static void test_three_chunks(void) { expect_ok(three, 3, 4, 300); }
static void test_five_chunks(void) { expect_ok(five, 5, 6, 300); }
static void test_pool_of_one(void) { expect_ok(three, 3, 1, 40); }

static void test_end_of_input(void)
{
	struct toy_params p;
	toy_default_params(&p);
	struct toy_io_state io = { .limit = 77, .load_fail_seq = UINT64_MAX };
	struct btrt_error err;
	int rc = toy_run(&p, toy_stages_cpu, three, 3, 4, 0, BTRT_BACKEND_HOST, NULL, NULL, &io, NULL, &err);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(io.checked, 77);
	CU_ASSERT_EQUAL(io.order_errors, 0);
}

static void test_kernel_error(void)
{
	struct toy_params p;
	toy_default_params(&p);
	p.fail_seq = 37;
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX };
	struct btrt_error err;
	int rc = toy_run(&p, toy_stages_cpu, five, 5, 6, 1000, BTRT_BACKEND_HOST, NULL, NULL, &io, NULL, &err);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_KERNEL);
	CU_ASSERT_EQUAL(err.code, 42);
	CU_ASSERT_EQUAL(err.chunk, 2);
	CU_ASSERT_EQUAL(err.stage, 2);
	CU_ASSERT_EQUAL(err.seq, 37);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "chunk 2"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "stage 2 'square'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "task 37"));
	CU_ASSERT_TRUE(io.checked <= 37);
	CU_ASSERT_EQUAL(io.order_errors, 0);
	fprintf(stderr, "  (error: %s) ", err.msg);
}

static void test_kernel_error_first_task(void)
{
	struct toy_params p;
	toy_default_params(&p);
	p.fail_seq = 0;
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX };
	struct btrt_error err;
	int rc = toy_run(&p, toy_stages_cpu, three, 3, 4, 0, BTRT_BACKEND_HOST, NULL, NULL, &io, NULL, &err);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(err.chunk, 1);
	CU_ASSERT_EQUAL(err.seq, 0);
	CU_ASSERT_EQUAL(io.checked, 0);
}

static void test_load_error(void)
{
	struct toy_params p;
	toy_default_params(&p);
	struct toy_io_state io = { .load_fail_seq = 50 };
	struct btrt_error err;
	int rc = toy_run(&p, toy_stages_cpu, three, 3, 4, 0, BTRT_BACKEND_HOST, NULL, NULL, &io, NULL, &err);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_IO);
	CU_ASSERT_EQUAL(err.seq, 50);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "planted load failure"));
}

static void test_check_error(void)
{
	struct toy_params p;
	toy_default_params(&p);
	p.corrupt_seq = 20;
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX };
	struct btrt_error err;
	int rc = toy_run(&p, toy_stages_cpu, three, 3, 4, 100, BTRT_BACKEND_HOST, NULL, NULL, &io, NULL, &err);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_CHECK);
	CU_ASSERT_EQUAL(err.seq, 20);
	CU_ASSERT_EQUAL(io.checked, 21);
}

static void test_bad_tables(void)
{
	struct toy_params p;
	toy_default_params(&p);
	struct btrt_error err;
	struct btrt_chunk gap[2] = {
		{ "a", BTRT_PU_CPU, NULL, 0, 0, 2, NULL, NULL, 0 },
		{ "b", BTRT_PU_CPU, NULL, 0, 3, 2, NULL, NULL, 0 },
	};
	CU_ASSERT_EQUAL(toy_run(&p, toy_stages_cpu, gap, 2, 2, 10, BTRT_BACKEND_HOST, NULL, NULL, NULL, NULL, &err), -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_INVAL);
	struct btrt_chunk gpu[1] = { { "g", BTRT_PU_VULKAN, NULL, 0, 0, 5, NULL, NULL, 0 } };
	CU_ASSERT_EQUAL(toy_run(&p, toy_stages_cpu, gpu, 1, 2, 10, BTRT_BACKEND_HOST, NULL, NULL, NULL, NULL, &err), -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_INVAL);
	int bad_core = 100000;
	struct btrt_chunk pin[1] = { { "x", BTRT_PU_CPU, &bad_core, 1, 0, 5, NULL, NULL, 0 } };
	CU_ASSERT_EQUAL(toy_run(&p, toy_stages_cpu, pin, 1, 2, 10, BTRT_BACKEND_HOST, NULL, NULL, NULL, NULL, &err), -1);
	CU_ASSERT_TRUE(err.kind == BTRT_E_INVAL || err.kind == BTRT_E_SYS);
	CU_ASSERT_EQUAL(err.chunk, 0);
}

/* A custom chunk body (generated code may use one instead of the table). */
static int body_ctx_calls;
static int body(void *ctx, struct btrt_task *t, struct btrt_error *err)
{
	int *calls = ctx;
	(*calls)++;
	for (uint32_t s = 3; s < 5; s++)
		if (toy_stages_cpu[s].cpu(t)) {
			err->stage = (int)s;
			return btrt_error_set(err, BTRT_E_KERNEL, 1, "body failed");
		}
	return 0;
}

static void test_custom_body(void)
{
	struct btrt_chunk ch[2] = {
		{ "table", BTRT_PU_CPU, &cores[0], 1, 0, 3, NULL, NULL, 0 },
		{ "body", BTRT_PU_CPU, &cores[1], 1, 3, 2, body, &body_ctx_calls, 0 },
	};
	body_ctx_calls = 0;
	expect_ok(ch, 2, 3, 64);
	CU_ASSERT_EQUAL(body_ctx_calls, 64);
}

/* The dispatcher and its OpenMP team run on the chunk's cores, with one
 * worker per core. */
struct pin_probe {
	int cores[2];
	int bad_affinity;
	int team;
};

static int outside(const int *want, int n)
{
	cpu_set_t set;
	if (pthread_getaffinity_np(pthread_self(), sizeof set, &set))
		return 1;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		int ok = 0;
		for (int i = 0; i < n; i++)
			ok |= want[i] == c;
		if (!ok)
			return 1;
	}
	return 0;
}

static int pin_body(void *ctx, struct btrt_task *t, struct btrt_error *err)
{
	struct pin_probe *pp = ctx;
	int bad = outside(pp->cores, 2), team = 1;
#ifdef _OPENMP
#pragma omp parallel reduction(+ : bad)
	{
		bad += outside(pp->cores, 2);
#pragma omp single
		team = omp_get_num_threads();
	}
#endif
	pp->bad_affinity += bad;
	pp->team = team;
	for (uint32_t s = 3; s < 5; s++)
		if (toy_stages_cpu[s].cpu(t))
			return btrt_error_set(err, BTRT_E_KERNEL, 1, "stage failed");
	return 0;
}

static void test_pinning(void)
{
	static struct pin_probe pp;
	pp.cores[0] = cores[0];
	pp.cores[1] = cores[1];
	pp.bad_affinity = 0;
	pp.team = 0;
	struct btrt_chunk ch[2] = {
		{ "first", BTRT_PU_CPU, &cores[0], 1, 0, 3, NULL, NULL, 0 },
		{ "pinned", BTRT_PU_CPU, pp.cores, 2, 3, 2, pin_body, &pp, 0 },
	};
	if (test_btrt_env.no_pin)
		return; /* pinning disabled on purpose */
	expect_ok(ch, 2, 3, 20);
	CU_ASSERT_EQUAL(pp.bad_affinity, 0);
#ifdef _OPENMP
	CU_ASSERT_EQUAL(pp.team, 2);
#endif
}

static void test_trace(void)
{
	struct toy_params p;
	toy_default_params(&p);
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX };
	struct btrt_error err;
	char path[] = "/tmp/btrt_trace_XXXXXX";
	CU_ASSERT_EQUAL_FATAL(btc_test_tmpfile(path), 0);
	int rc = toy_run(&p, toy_stages_cpu, three, 3, 4, 30, BTRT_BACKEND_HOST, NULL, NULL, &io, path, &err);
	CU_ASSERT_EQUAL(rc, 0);
	/* the trace replaces the file (btrt_fsafe.h): read it by name */
	FILE *f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	char buf[65536];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	remove(path);
	CU_ASSERT_TRUE(n > 100);
	CU_ASSERT_EQUAL(buf[0], '{');
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"traceEvents\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"name\":\"square\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "chunk 2 little (cpu)"));
}

static void test_records(void)
{
	struct btrt_run *run = NULL;
	struct btrt_summary sm;
	toy_keep_run = &run;
	toy_record_limit = 25;
	expect_ok(three, 3, 4, 100);
	toy_keep_run = NULL;
	toy_record_limit = 0;
	CU_ASSERT_PTR_NOT_NULL_FATAL(run);
	CU_ASSERT_EQUAL(btrt_run_items(run), 100);
	CU_ASSERT_EQUAL(btrt_run_chunks(run), 3);
	CU_ASSERT_TRUE(btrt_run_wall_ns(run) > 0);
	CU_ASSERT_EQUAL(btrt_run_chunk_summary(run, 1, &sm), 0);
	CU_ASSERT_EQUAL(sm.n, 25);
	CU_ASSERT_TRUE(sm.median_ns > 0 && sm.p99_ns >= sm.median_ns);
	int gpu = 1;
	CU_ASSERT_EQUAL(btrt_run_stage_summary(run, 4, &sm, &gpu), 0);
	CU_ASSERT_EQUAL(sm.n, 25);
	CU_ASSERT_EQUAL(gpu, 0);
	CU_ASSERT_EQUAL(btrt_run_latency_summary(run, &sm), 0);
	CU_ASSERT_EQUAL(sm.n, 25);
	CU_ASSERT_TRUE(btrt_run_steady_ns(run, 5) > 0);
	/* the steady figure's items: the 25 recorded after the warm-up, all
	 * of them from a warm-up at or past the record limit */
	CU_ASSERT_EQUAL(btrt_run_steady_items(run, 5), 20);
	CU_ASSERT_EQUAL(btrt_run_steady_items(run, 25), 25);
	CU_ASSERT_EQUAL(btrt_run_steady_items(run, 0), 25);
	btrt_run_print(run, stderr);
	btrt_run_free(run);
}

/* Waiting threads block instead of polling. While the input trickles in
 * (50 ms per item, 6 items), every dispatcher waits for every item; each
 * wait spins briefly, then blocks in the kernel until the item is pushed.
 * A thread that polled (yield or sleep loops) would check its ring hundreds
 * of times per 50 ms gap; a blocking one checks it about twice per wait.
 * Nothing here depends on the machine's speed: CPU time over wall time is
 * measured by bench/runtime, not asserted. */
static void test_idle_pipeline(void)
{
	struct toy_params p;
	toy_default_params(&p);
	p.load_sleep_us = 50000;
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX };
	struct btrt_error err;
	struct btrt_run *run = NULL;
	const uint64_t items = 6;
	toy_keep_run = &run;
	int rc = toy_run(&p, toy_stages_cpu, three, 3, 4, items, BTRT_BACKEND_HOST, NULL, NULL, &io, NULL, &err);
	toy_keep_run = NULL;
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(io.checked, items);
	CU_ASSERT_PTR_NOT_NULL_FATAL(run);
	for (uint32_t t = 0; t <= 4; t++) { /* 3 chunks, the io sink, the io source */
		struct btrt_wait_stats w;
		CU_ASSERT_EQUAL_FATAL(btrt_run_wait_stats(run, t, &w), 0);
		fprintf(stderr, "%s(%s: %llu waits, %llu polls, %llu blocks, %llu wakes)",
			t ? " " : "  ", t < 3 ? three[t].name : t == 3 ? "io sink" : "io source",
			(unsigned long long)w.waits,
			(unsigned long long)w.polls, (unsigned long long)w.blocks,
			(unsigned long long)w.wakes);
		/* Every pop (items + end of stream) waits at most once. */
		CU_ASSERT_TRUE(w.waits <= items + 1);
		CU_ASSERT_TRUE(w.polls <= 3 * (items + 1));
		if (t < 3) /* the io threads may find their tasks at once */
			CU_ASSERT_TRUE(w.blocks > 0);
	}
	struct btrt_wait_stats w;
	CU_ASSERT_EQUAL(btrt_run_wait_stats(run, 5, &w), -1);
	fprintf(stderr, " ");
	btrt_run_free(run);
}

/* A SIGINT arriving mid-run (sent by the toy's load of item 5 to the
 * process) stops the pipeline: at most one item is loaded after it, the
 * run returns BTRT_E_INTR, and every thread it started is gone. */
static void test_interrupt(void)
{
	int before = test_count_threads();
	struct toy_params p;
	toy_default_params(&p);
	p.load_sleep_us = 2000;
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX, .signal_seq = 5 };
	struct btrt_error err;
	int rc = toy_run_sigint(&p, toy_stages_cpu, three, 3, 4, 1000, &io, &err);
	fprintf(stderr, "  (%s; %llu loaded, %llu checked) ", err.msg,
		(unsigned long long)io.loaded, (unsigned long long)io.checked);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_INTR);
	CU_ASSERT_EQUAL(err.code, SIGINT);
	/* Items 0-5: the signal came while item 5 loaded; Linux hands a signal
	 * a process sends itself to the sending thread when it can, but any
	 * thread may take it, so allow one more item. */
	CU_ASSERT_TRUE(io.loaded >= 6 && io.loaded <= 7);
	CU_ASSERT_TRUE(io.checked <= 5);
	CU_ASSERT_EQUAL(io.order_errors, 0);
	test_assert_threads_gone(before);

	/* Set before the run: nothing is loaded. */
	btrt_atomic_int stop;
	atomic_store(&stop, SIGTERM);
	struct toy_io_state io2 = { .load_fail_seq = UINT64_MAX };
	toy_interrupt = &stop;
	rc = toy_run(&p, toy_stages_cpu, three, 3, 4, 10, BTRT_BACKEND_HOST, NULL, NULL, &io2, NULL, &err);
	toy_interrupt = NULL;
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_INTR);
	CU_ASSERT_EQUAL(io2.loaded, 0);
}

/* The memory a pool would take, computed before allocating it (the
 * generated program refuses a --pool that does not fit). */
static void test_pool_bytes(void)
{
	struct toy_params p;
	toy_default_params(&p);
	p.n = 1000; /* 4000 bytes: 4032 rounded to 64 */
	size_t counts[TOY_N_BUFFERS];
	toy_counts(&p, counts);
	struct btrt_buffer_desc descs[TOY_N_BUFFERS];
	memcpy(descs, toy_buffers, sizeof descs);
	struct btrt_pool_config pc = { .task_size = sizeof(struct toy_task), .n_tasks = 3,
				       .buffers = descs, .counts = counts,
				       .n_buffers = TOY_N_BUFFERS, .backend = BTRT_BACKEND_HOST };
	uint64_t bytes = 0, task = (sizeof(struct toy_task) + 63) / 64 * 64 +
				   TOY_N_BUFFERS * sizeof(struct btrt_buffer);
	CU_ASSERT_EQUAL(btrt_pool_host_bytes(&pc, &bytes), 0);
	CU_ASSERT_EQUAL(bytes, 3 * (task + 4 * 4032 + 64));
	descs[TOY_BUF_A].placement = BTRT_PLACE_DEVICE; /* not host memory */
	CU_ASSERT_EQUAL(btrt_pool_host_bytes(&pc, &bytes), 0);
	CU_ASSERT_EQUAL(bytes, 3 * (task + 3 * 4032 + 64));
	pc.n_tasks = UINT32_MAX;
	counts[TOY_BUF_IN] = SIZE_MAX / 8; /* 2^61 elements of 4 bytes */
	CU_ASSERT_EQUAL(btrt_pool_host_bytes(&pc, &bytes), -1);
	counts[TOY_BUF_IN] = (size_t)1 << 40; /* 4 TiB per TaskObject, 2^32 of them */
	CU_ASSERT_EQUAL(btrt_pool_host_bytes(&pc, &bytes), -1);
	CU_ASSERT_TRUE(btrt_mem_available() > 0); /* Linux: /proc/meminfo */
}

/* btrt_chunks_gpu_touched: the buffers a GPU chunk's stages read or
 * write, by the stages' lists, and of those the private ones (octree's
 * shape: a GPU middle between CPU ends, all on the GPU, and a farm with a
 * GPU worker; a stage's ping-pong buffer). */
static void test_gpu_touched(void)
{
	/* buffers: 0 points, 1 codes, 2 sorted, 3 tree, 4 nodes, 5 weights */
	static const uint32_t r0[] = {0, 5}, w0[] = {1}, r1[] = {1}, w1[] = {2};
	static const uint32_t r2[] = {2}, w2[] = {3}, r3[] = {3}, w3[] = {4};
	const struct btrt_stage st[4] = {
		{.name = "morton", .reads = r0, .n_reads = 2, .writes = w0, .n_writes = 1},
		{.name = "sort", .reads = r1, .n_reads = 1, .writes = w1, .n_writes = 1},
		{.name = "tree", .reads = r2, .n_reads = 1, .writes = w2, .n_writes = 1},
		{.name = "octree", .reads = r3, .n_reads = 1, .writes = w3, .n_writes = 1},
	};
	unsigned char t[6];
	const struct btrt_chunk mid[3] = {
		{"cpu0", BTRT_PU_CPU, NULL, 0, 0, 1, NULL, NULL, 0},
		{"gpu", BTRT_PU_CUDA, NULL, 0, 1, 2, NULL, NULL, 0},
		{"cpu1", BTRT_PU_CPU, NULL, 0, 3, 1, NULL, NULL, 0},
	};
	memset(t, 7, sizeof t);
	CU_ASSERT_EQUAL(btrt_chunks_gpu_touched(st, 4, mid, 3, NULL, 6, t), 0);
	/* codes and tree are shared with a CPU chunk; sorted is private */
	const unsigned char want_mid[6] = {BTRT_GPU_UNTOUCHED, BTRT_GPU_SHARED,
					   BTRT_GPU_PRIVATE,   BTRT_GPU_SHARED,
					   BTRT_GPU_UNTOUCHED, BTRT_GPU_UNTOUCHED};
	CU_ASSERT_EQUAL(memcmp(t, want_mid, 6), 0);
	/* all on the GPU: nodes is the output the io check reads; points and
	 * weights, which no stage writes, are private here (the CUDA pool
	 * keeps an io-loaded one pinned all the same: btrt_cuda_place) */
	const struct btrt_chunk gpu[1] = {{"gpu", BTRT_PU_CUDA, NULL, 0, 0, 4, NULL, NULL, 0}};
	CU_ASSERT_EQUAL(btrt_chunks_gpu_touched(st, 4, gpu, 1, NULL, 6, t), 0);
	const unsigned char want_gpu[6] = {BTRT_GPU_PRIVATE, BTRT_GPU_PRIVATE, BTRT_GPU_PRIVATE,
					   BTRT_GPU_PRIVATE, BTRT_GPU_SHARED,  BTRT_GPU_PRIVATE};
	CU_ASSERT_EQUAL(memcmp(t, want_gpu, 6), 0);
	/* CPU only: the GPU sees nothing */
	const struct btrt_chunk cpu[1] = {{"cpu", BTRT_PU_CPU, NULL, 0, 0, 4, NULL, NULL, 0}};
	CU_ASSERT_EQUAL(btrt_chunks_gpu_touched(st, 4, cpu, 1, NULL, 6, t), 0);
	const unsigned char none[6] = {0};
	CU_ASSERT_EQUAL(memcmp(t, none, 6), 0);
	/* a farm of stages 0-1 with a Vulkan worker, then the rest on the CPU */
	const struct btrt_chunk farm[3] = {
		{"cpu0", BTRT_PU_CPU, NULL, 0, 0, 2, NULL, NULL, 1},
		{"vk", BTRT_PU_VULKAN, NULL, 0, 0, 2, NULL, NULL, 1},
		{"cpu1", BTRT_PU_CPU, NULL, 0, 2, 2, NULL, NULL, 0},
	};
	CU_ASSERT_EQUAL(btrt_chunks_gpu_touched(st, 4, farm, 3, NULL, 6, t), 0);
	const unsigned char want_farm[6] = {1, 1, 1, 0, 0, 1}; /* the CPU worker: all shared */
	CU_ASSERT_EQUAL(memcmp(t, want_farm, 6), 0);
	/* a buffer one stage reads and writes (a sort's ping-pong) and no
	 * later stage reads: an output by the CUDA chunk's rule, so shared */
	static const uint32_t pr[] = {0, 1}, pw[] = {1, 2}, qr[] = {2}, qw[] = {3};
	const struct btrt_stage pp[2] = {
		{.name = "sort", .reads = pr, .n_reads = 2, .writes = pw, .n_writes = 2},
		{.name = "use", .reads = qr, .n_reads = 1, .writes = qw, .n_writes = 1},
	};
	const struct btrt_chunk pp_gpu[2] = {
		{"gpu", BTRT_PU_CUDA, NULL, 0, 0, 1, NULL, NULL, 0},
		{"cpu", BTRT_PU_CPU, NULL, 0, 1, 1, NULL, NULL, 0},
	};
	CU_ASSERT_EQUAL(btrt_chunks_gpu_touched(pp, 2, pp_gpu, 2, NULL, 4, t), 0);
	const unsigned char want_pp[4] = {BTRT_GPU_PRIVATE, BTRT_GPU_SHARED, BTRT_GPU_SHARED,
					  BTRT_GPU_UNTOUCHED};
	CU_ASSERT_EQUAL(memcmp(t, want_pp, 4), 0);
	/* marked scratch (the app's `scratch: true`), the ping-pong buffer is
	 * no output: private to the GPU chunk; beside a CPU chunk that
	 * touches it too it is shared all the same */
	const struct btrt_buffer_desc pp_bufs[4] = {
		{"in", BTRT_U32, 4, BTRT_PLACE_UNIFIED, 1, 0},
		{"tmp", BTRT_U32, 4, BTRT_PLACE_UNIFIED, 0, 1},
		{"sorted", BTRT_U32, 4, BTRT_PLACE_UNIFIED, 0, 0},
		{"out", BTRT_U32, 4, BTRT_PLACE_UNIFIED, 0, 0},
	};
	CU_ASSERT_EQUAL(btrt_chunks_gpu_touched(pp, 2, pp_gpu, 2, pp_bufs, 4, t), 0);
	const unsigned char want_scratch[4] = {BTRT_GPU_PRIVATE, BTRT_GPU_PRIVATE, BTRT_GPU_SHARED,
					       BTRT_GPU_UNTOUCHED};
	CU_ASSERT_EQUAL(memcmp(t, want_scratch, 4), 0);
	const struct btrt_chunk pp_farm[3] = {
		{"cpu", BTRT_PU_CPU, NULL, 0, 0, 1, NULL, NULL, 1},
		{"gpu", BTRT_PU_CUDA, NULL, 0, 0, 1, NULL, NULL, 1},
		{"cpu1", BTRT_PU_CPU, NULL, 0, 1, 1, NULL, NULL, 0},
	};
	CU_ASSERT_EQUAL(btrt_chunks_gpu_touched(pp, 2, pp_farm, 3, pp_bufs, 4, t), 0);
	CU_ASSERT_EQUAL(t[1], BTRT_GPU_SHARED);
	/* a chunk past the stages, a buffer past the layout */
	const struct btrt_chunk past[1] = {{"gpu", BTRT_PU_CUDA, NULL, 0, 3, 2, NULL, NULL, 0}};
	CU_ASSERT_EQUAL(btrt_chunks_gpu_touched(st, 4, past, 1, NULL, 6, t), -1);
	CU_ASSERT_EQUAL(btrt_chunks_gpu_touched(st, 4, farm, 3, NULL, 5, t), -1);
}

static void test_summary(void)
{
	uint64_t v[100];
	for (int i = 0; i < 100; i++)
		v[i] = (uint64_t)(100 - i) * 10; /* 10 .. 1000 */
	struct btrt_summary s;
	btrt_summarize(v, 100, &s);
	CU_ASSERT_EQUAL(s.n, 100);
	CU_ASSERT_DOUBLE_EQUAL(s.mean_ns, 505.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.median_ns, 505.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.p90_ns, 900.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.p99_ns, 990.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.min_ns, 10.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.max_ns, 1000.0, 1e-9);
	btrt_summarize(v, 0, &s);
	CU_ASSERT_EQUAL(s.n, 0);
}

/* The summaries over the tasks of seq >= from (the steady-state means
 * of the report) on a hand-built run of one chunk of stages 0 and 1 (1 a
 * GPU stage recorded on task 0 only), 10 tasks of which the first 2 are
 * ten times slower: the chunk's mean over all is 280 ns, from seq 2 on
 * 100 ns. */
static void test_steady_summary(void)
{
	struct btrt_run *r = calloc(1, sizeof *r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	r->app = "hand";
	r->n_chunks = 1;
	r->n_stages = 2;
	r->chunks = calloc(1, sizeof *r->chunks);
	r->stage_names = calloc(2, sizeof *r->stage_names);
	r->waits = calloc(3, sizeof *r->waits);
	r->io = calloc(10, sizeof *r->io);
	struct btrt_chunk_rec *cr = r->chunks;
	CU_ASSERT_PTR_NOT_NULL_FATAL(cr);
	cr->tasks = calloc(10, sizeof *cr->tasks);
	cr->stages = calloc(11, sizeof *cr->stages);
	CU_ASSERT_TRUE_FATAL(r->stage_names && r->waits && r->io && cr->tasks && cr->stages);
	r->stage_names[0] = "a";
	r->stage_names[1] = "b";
	cr->name = "c";
	cr->n_stages = 2;
	for (uint64_t i = 0; i < 10; i++) {
		uint64_t slow = i < 2 ? 10 : 1, t = 10000 * (i + 1);
		cr->tasks[cr->n_tasks++] = (struct btrt_rec_task){i, t, t + 100 * slow};
		cr->stages[cr->n_stages_rec++] = (struct btrt_rec_stage){i, 0, 0, t, t + 60 * slow};
		r->io[i] = (struct btrt_rec_io){t - 1000, t - 1000 + 50 * slow, t + 2000,
						t + 2000 + 30 * slow};
	}
	cr->stages[cr->n_stages_rec++] = (struct btrt_rec_stage){0, 1, 1, 10000, 10500};
	r->n_io = r->items = 10;
	r->t0 = r->io[0].load_start;
	r->t_end = r->io[9].check_end;

	struct btrt_summary all, st;
	int gpu = 0;
	CU_ASSERT_EQUAL(btrt_run_chunk_summary(r, 0, &all), 0);
	CU_ASSERT_EQUAL(btrt_run_chunk_summary_from(r, 0, 2, &st), 0);
	CU_ASSERT_EQUAL(all.n, 10);
	CU_ASSERT_DOUBLE_EQUAL(all.mean_ns, 280.0, 1e-9);
	CU_ASSERT_EQUAL(st.n, 8);
	CU_ASSERT_DOUBLE_EQUAL(st.mean_ns, 100.0, 1e-9);
	CU_ASSERT_EQUAL(btrt_run_chunk_summary_from(r, 0, 0, &st), 0);
	CU_ASSERT_DOUBLE_EQUAL(st.mean_ns, all.mean_ns, 1e-9);
	/* no task qualifies: none, and out of range as before */
	CU_ASSERT_EQUAL(btrt_run_chunk_summary_from(r, 0, 10, &st), 0);
	CU_ASSERT_EQUAL(st.n, 0);
	CU_ASSERT_EQUAL(st.mean_ns, 0);
	CU_ASSERT_EQUAL(btrt_run_chunk_summary_from(r, 1, 2, &st), -1);

	CU_ASSERT_EQUAL(btrt_run_stage_summary_from(r, 0, 2, &st, &gpu), 0);
	CU_ASSERT_EQUAL(st.n, 8);
	CU_ASSERT_DOUBLE_EQUAL(st.mean_ns, 60.0, 1e-9);
	CU_ASSERT_EQUAL(gpu, 0);
	CU_ASSERT_EQUAL(btrt_run_stage_summary(r, 0, &all, &gpu), 0);
	CU_ASSERT_DOUBLE_EQUAL(all.mean_ns, 168.0, 1e-9);
	/* stage 1 ran (on task 0 only): 0, with none from seq 2 on */
	CU_ASSERT_EQUAL(btrt_run_stage_summary_from(r, 1, 2, &st, &gpu), 0);
	CU_ASSERT_EQUAL(st.n, 0);
	CU_ASSERT_EQUAL(gpu, 1);
	CU_ASSERT_EQUAL(btrt_run_stage_summary_from(r, 1, 0, &st, &gpu), 0);
	CU_ASSERT_DOUBLE_EQUAL(st.mean_ns, 500.0, 1e-9);
	CU_ASSERT_EQUAL(btrt_run_stage_summary_from(r, 2, 0, &st, &gpu), -1);

	CU_ASSERT_EQUAL(btrt_run_io_summary_from(r, 0, 2, &st), 0);
	CU_ASSERT_EQUAL(st.n, 8);
	CU_ASSERT_DOUBLE_EQUAL(st.mean_ns, 50.0, 1e-9);
	CU_ASSERT_EQUAL(btrt_run_io_summary_from(r, 1, 2, &st), 0);
	CU_ASSERT_DOUBLE_EQUAL(st.mean_ns, 30.0, 1e-9);
	CU_ASSERT_EQUAL(btrt_run_io_summary(r, 1, &all), 0);
	CU_ASSERT_DOUBLE_EQUAL(all.mean_ns, 84.0, 1e-9);
	CU_ASSERT_EQUAL(btrt_run_io_summary_from(r, 0, 10, &st), 0);
	CU_ASSERT_EQUAL(st.n, 0);
	CU_ASSERT_EQUAL(btrt_run_io_summary_from(r, 0, 1000, &st), 0);
	CU_ASSERT_EQUAL(st.n, 0);
	btrt_run_free(r);
}

int suite_pipeline_register(void)
{
	CU_pSuite s = CU_add_suite("pipeline", init, NULL);
	if (!s)
		return -1;
	if (!CU_add_test(s, "one chunk", test_one_chunk) ||
	    !CU_add_test(s, "three chunks, in order", test_three_chunks) ||
	    !CU_add_test(s, "five chunks, in order", test_five_chunks) ||
	    !CU_add_test(s, "pool of one TaskObject", test_pool_of_one) ||
	    !CU_add_test(s, "end of input drains", test_end_of_input) ||
	    !CU_add_test(s, "kernel error mid-stream", test_kernel_error) ||
	    !CU_add_test(s, "kernel error on the first task", test_kernel_error_first_task) ||
	    !CU_add_test(s, "load error", test_load_error) ||
	    !CU_add_test(s, "check error", test_check_error) ||
	    !CU_add_test(s, "bad tables", test_bad_tables) ||
	    !CU_add_test(s, "custom chunk body", test_custom_body) ||
	    !CU_add_test(s, "dispatcher and OpenMP team pinned", test_pinning) ||
	    !CU_add_test(s, "trace file", test_trace) ||
	    !CU_add_test(s, "run records and their limit", test_records) ||
	    !CU_add_test(s, "an idle pipeline sleeps", test_idle_pipeline) ||
	    !CU_add_test(s, "SIGINT stops the run, threads joined", test_interrupt) ||
	    !CU_add_test(s, "pool memory estimate", test_pool_bytes) ||
	    !CU_add_test(s, "the buffers a schedule's GPU chunks touch", test_gpu_touched) ||
	    !CU_add_test(s, "summary statistics", test_summary) ||
	    !CU_add_test(s, "summaries from a seq on (steady state)", test_steady_summary))
		return -1;
	return 0;
}
