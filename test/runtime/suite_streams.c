/* suite_streams.c: several pipelines at once (btrt_streams_run,
 * btrt_workload.h): every stream's tasks checked against its own
 * reference, none lost, duplicated or reordered within its stream; the
 * first failure stops every stream; the interrupt flag stops them all,
 * paced ones included; pacing spaces a stream's loads by its period;
 * taking turns (btrt_streams_run_turns) gives one stream at a time tasks
 * in flight, at most T a turn, and still checks every task; together,
 * the first stream through stops the others, after a start gate; fair
 * admission holds a stream to its share of the slowest's progress. */
#include "suites.h"
#include "toy.h"

#include <btrt_pipeline.h>
#include <btrt_trace.h>
#include <btrt_workload.h>

#include <CUnit/CUnit.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One toy stream: its params, io state and pool. */
struct toy_stream {
	struct toy_params p;
	struct toy_io_state io;
	struct btrt_pool *pool;
};

static void make_stream(struct toy_stream *ts, struct btrt_stream_run *sr, int64_t n,
			const struct btrt_chunk *chunks, uint32_t n_chunks, uint64_t items,
			const btrt_atomic_int *interrupt)
{
	toy_default_params(&ts->p);
	ts->p.n = n;
	ts->io = (struct toy_io_state){ .p = &ts->p, .load_fail_seq = UINT64_MAX };
	size_t counts[TOY_N_BUFFERS];
	toy_counts(&ts->p, counts);
	struct btrt_pool_config pc = { .task_size = sizeof(struct toy_task), .n_tasks = 6,
				       .buffers = toy_buffers, .counts = counts,
				       .n_buffers = TOY_N_BUFFERS, .backend = BTRT_BACKEND_HOST };
	struct btrt_error err;
	CU_ASSERT_FATAL(btrt_pool_create(&ts->pool, &pc, &err) == 0);
	for (uint32_t i = 0; i < 6; i++)
		toy_task_bind(btrt_pool_task(ts->pool, i), &ts->p);
	memset(sr, 0, sizeof *sr);
	sr->cfg = (struct btrt_pipeline_config){
		.app = "toy", .stages = toy_stages_cpu, .n_stages = TOY_N_STAGES,
		.chunks = chunks, .n_chunks = n_chunks, .pool = ts->pool,
		.io = &toy_io, .io_state = &ts->io, .n_items = items, .check = 1,
		.interrupt = interrupt,
	};
	btrt_env_pipeline_config(&test_btrt_env, &sr->cfg);
}

static void free_streams(struct toy_stream *ts, struct btrt_stream_run *sr, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		btrt_run_free(sr[i].run);
		btrt_pool_destroy(ts[i].pool);
	}
}

/* Three streams of different shapes (sizes, chunks, a farm), one paced:
 * every task of each checked in its own order. */
static void test_streams_all_checked(void)
{
	struct toy_stream ts[3];
	struct btrt_stream_run sr[3];
	static const uint64_t items[3] = { 300, 200, 40 };
	make_stream(&ts[0], &sr[0], 1024, toy_three, 3, items[0], NULL);
	make_stream(&ts[1], &sr[1], 4096, toy_farmed, 4, items[1], NULL);
	make_stream(&ts[2], &sr[2], 256, toy_one, 1, items[2], NULL);
	sr[2].rate = 2000; /* paced: 40 tasks over >= 19.5 ms */
	struct btrt_error err;
	int rc = btrt_streams_run(sr, 3, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(sr[i].rc, 0);
		CU_ASSERT_EQUAL(ts[i].io.loaded, items[i]);
		CU_ASSERT_EQUAL(ts[i].io.checked, items[i]);
		CU_ASSERT_EQUAL(ts[i].io.next_seq, items[i]);
		CU_ASSERT_EQUAL(ts[i].io.order_errors, 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(sr[i].run);
		CU_ASSERT_EQUAL(btrt_run_items(sr[i].run), items[i]);
		CU_ASSERT_EQUAL(sr[i].stopped_by_other, 0);
	}
	/* the paced stream's tokens come a period (500 us) apart: its last
	 * load ends at least 39 periods after its first began */
	uint64_t ls0, ls, le, cs, ce;
	CU_ASSERT_EQUAL_FATAL(btrt_run_io_times(sr[2].run, 0, &ls0, &le, &cs, &ce), 0);
	CU_ASSERT_EQUAL_FATAL(btrt_run_io_times(sr[2].run, items[2] - 1, &ls, &le, &cs, &ce), 0);
	CU_ASSERT(le - ls0 >= (items[2] - 1) * 500000);
	free_streams(ts, sr, 3);
}

/* A failing check in one stream stops the others; the error names the
 * stream. */
static void test_streams_failure_stops_all(void)
{
	struct toy_stream ts[2];
	struct btrt_stream_run sr[2];
	make_stream(&ts[0], &sr[0], 512, toy_three, 3, 1000000, NULL);
	make_stream(&ts[1], &sr[1], 512, toy_one, 1, 100, NULL);
	ts[1].p.corrupt_seq = 37;
	struct btrt_error err;
	int rc = btrt_streams_run(sr, 2, &err);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_CHECK);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "stream 1 (toy): "));
	CU_ASSERT_EQUAL(sr[1].rc, -1);
	CU_ASSERT_EQUAL(sr[0].rc, 0);
	CU_ASSERT_EQUAL(sr[0].stopped_by_other, 1);
	CU_ASSERT(ts[0].io.checked < 1000000);
	CU_ASSERT_EQUAL(ts[0].io.checked, ts[0].io.loaded);
	CU_ASSERT_EQUAL(ts[0].io.order_errors, 0);
	free_streams(ts, sr, 2);
}

static btrt_atomic_int stop_flag;

static void *raise_later(void *arg)
{
	(void)arg;
	struct timespec d = { 0, 30 * 1000 * 1000 };
	nanosleep(&d, NULL);
	atomic_store(&stop_flag, 2);
	return NULL;
}

/* The interrupt flag stops every stream, a slowly paced one too, and every
 * thread is joined. */
static void test_streams_interrupt(void)
{
	struct toy_stream ts[2];
	struct btrt_stream_run sr[2];
	atomic_store(&stop_flag, 0);
	make_stream(&ts[0], &sr[0], 512, toy_three, 3, 100000000, &stop_flag);
	make_stream(&ts[1], &sr[1], 512, toy_one, 1, 100000000, &stop_flag);
	sr[1].rate = 0.5; /* one task every 2 s: stopped in its wait */
	pthread_t th;
	CU_ASSERT_FATAL(pthread_create(&th, NULL, raise_later, NULL) == 0);
	struct btrt_error err;
	int rc = btrt_streams_run(sr, 2, &err);
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_INTR);
	for (int i = 0; i < 2; i++) { /* what was in flight is not checked */
		CU_ASSERT(ts[i].io.checked <= ts[i].io.loaded);
		CU_ASSERT_EQUAL(ts[i].io.order_errors, 0);
	}
	CU_ASSERT(ts[1].io.loaded <= 2);
	free_streams(ts, sr, 2);
}

/* Taking turns: 3 streams of different lengths, T = 4 tasks a turn but
 * stream 1's own turn of 2 (btrt_stream_run.turn). A
 * task x of one stream loaded before a task y of another is checked
 * before y's load ends (one stream at a time has tasks in flight); in
 * load order, a stream's consecutive tasks are at most T (exactly T but
 * in its last turn) until it is the last stream left; every task of each
 * stream is checked in order. */
static void test_streams_turns(void)
{
	enum { N = 3, T = 4 };
	struct toy_stream ts[N];
	struct btrt_stream_run sr[N];
	static const uint64_t items[N] = { 30, 17, 9 };
	make_stream(&ts[0], &sr[0], 1024, toy_three, 3, items[0], NULL);
	make_stream(&ts[1], &sr[1], 2048, toy_farmed, 4, items[1], NULL);
	make_stream(&ts[2], &sr[2], 256, toy_one, 1, items[2], NULL);
	sr[2].rate = 5000; /* paced and taking turns */
	sr[1].turn = 2;
	static const uint64_t turn_of[N] = { T, 2, T };
	struct btrt_error err;
	int rc = btrt_streams_run_turns(sr, N, T, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	uint64_t total = 0;
	for (int i = 0; i < N; i++) {
		CU_ASSERT_EQUAL(sr[i].rc, 0);
		CU_ASSERT_EQUAL(ts[i].io.loaded, items[i]);
		CU_ASSERT_EQUAL(ts[i].io.checked, items[i]);
		CU_ASSERT_EQUAL(ts[i].io.order_errors, 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(sr[i].run);
		CU_ASSERT_EQUAL_FATAL(btrt_run_items(sr[i].run), items[i]);
		total += items[i];
	}
	/* every task's (stream, load end, check end), in load-end order */
	struct ev { int s; uint64_t le, ce; } *ev = calloc(total, sizeof *ev);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	uint64_t n = 0;
	for (int i = 0; i < N; i++)
		for (uint64_t k = 0; k < items[i]; k++, n++) {
			uint64_t ls, cs;
			ev[n].s = i;
			CU_ASSERT_EQUAL_FATAL(btrt_run_io_times(sr[i].run, k, &ls, &ev[n].le, &cs,
								&ev[n].ce), 0);
		}
	for (uint64_t a = 1; a < n; a++) /* insertion sort by load end */
		for (uint64_t b = a; b > 0 && ev[b].le < ev[b - 1].le; b--) {
			struct ev x = ev[b];
			ev[b] = ev[b - 1];
			ev[b - 1] = x;
		}
	int overlaps = 0, long_turns = 0, short_turns = 0, turns = 0;
	uint64_t seen[N] = { 0 };
	for (uint64_t a = 0; a < n; a++)
		for (uint64_t b = a + 1; b < n; b++)
			overlaps += ev[a].s != ev[b].s && ev[a].ce > ev[b].le;
	for (uint64_t a = 0; a < n;) {
		uint64_t b = a;
		while (b < n && ev[b].s == ev[a].s)
			b++;
		seen[ev[a].s] += b - a;
		/* the last streams left take turn after turn: only a group
		 * followed by another stream's task is one turn */
		long_turns += b - a > turn_of[ev[a].s] && b < n;
		short_turns += b - a < turn_of[ev[a].s] && b < n && seen[ev[a].s] < items[ev[a].s];
		turns++;
		a = b;
	}
	CU_ASSERT_EQUAL(overlaps, 0);
	CU_ASSERT_EQUAL(long_turns, 0);
	CU_ASSERT_EQUAL(short_turns, 0);
	CU_ASSERT(turns >= 2 + 3 + 3); /* stream 0's first 7 turns are between the others' */
	free(ev);
	free_streams(ts, sr, N);
}

/* Taking turns, a failing check in the stream holding the turn stops the
 * others, which wait for theirs: no hang, the error names the stream. */
static void test_streams_turns_failure(void)
{
	struct toy_stream ts[2];
	struct btrt_stream_run sr[2];
	make_stream(&ts[0], &sr[0], 512, toy_three, 3, 1000, NULL);
	make_stream(&ts[1], &sr[1], 512, toy_one, 1, 100, NULL);
	ts[1].p.corrupt_seq = 5; /* in stream 1's second turn */
	struct btrt_error err;
	int rc = btrt_streams_run_turns(sr, 2, 3, &err);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_CHECK);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "stream 1 (toy): "));
	CU_ASSERT_EQUAL(sr[0].rc, 0);
	CU_ASSERT_EQUAL(sr[0].stopped_by_other, 1);
	CU_ASSERT(ts[0].io.checked < 1000);
	CU_ASSERT_EQUAL(ts[0].io.checked, ts[0].io.loaded);
	CU_ASSERT_EQUAL(ts[0].io.order_errors, 0);
	free_streams(ts, sr, 2);
}

/* Taking turns, the interrupt stops every stream, those waiting for their
 * turn too. */
static void test_streams_turns_interrupt(void)
{
	struct toy_stream ts[2];
	struct btrt_stream_run sr[2];
	atomic_store(&stop_flag, 0);
	make_stream(&ts[0], &sr[0], 512, toy_three, 3, 100000000, &stop_flag);
	make_stream(&ts[1], &sr[1], 512, toy_one, 1, 100000000, &stop_flag);
	pthread_t th;
	CU_ASSERT_FATAL(pthread_create(&th, NULL, raise_later, NULL) == 0);
	struct btrt_error err;
	int rc = btrt_streams_run_turns(sr, 2, 1000000, &err); /* stream 1 never gets a turn */
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_INTR);
	for (int i = 0; i < 2; i++) {
		CU_ASSERT(ts[i].io.checked <= ts[i].io.loaded);
		CU_ASSERT_EQUAL(ts[i].io.order_errors, 0);
	}
	CU_ASSERT(ts[1].io.loaded <= 1);
	free_streams(ts, sr, 2);
}

/* The gate of btrt_streams_opts: called once, after every stream is
 * prepared and before any loads. */
struct gate_probe {
	struct toy_stream *ts;
	int calls;
	uint64_t loaded_at_gate;
};

static void probe_gate(void *ctx)
{
	struct gate_probe *g = ctx;
	g->calls++;
	g->loaded_at_gate = g->ts[0].io.loaded + g->ts[1].io.loaded;
}

/* Together: the short stream through stops the long one admitting; the
 * long one's tasks in flight are checked, in order, and it returns 0 with
 * fewer tasks. */
static void test_streams_together_gate(void)
{
	struct toy_stream ts[2];
	struct btrt_stream_run sr[2];
	make_stream(&ts[0], &sr[0], 512, toy_three, 3, 100000000, NULL);
	make_stream(&ts[1], &sr[1], 512, toy_one, 1, 20, NULL);
	struct gate_probe g = { .ts = ts };
	struct btrt_streams_opts o = { .together = 1, .gate = probe_gate, .gate_ctx = &g };
	struct btrt_error err;
	int rc = btrt_streams_run_opts(sr, 2, &o, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(g.calls, 1);
	CU_ASSERT_EQUAL(g.loaded_at_gate, 0);
	CU_ASSERT_EQUAL(ts[1].io.checked, 20);
	CU_ASSERT(ts[0].io.checked < 100000000);
	CU_ASSERT_EQUAL(ts[0].io.checked, ts[0].io.loaded);
	CU_ASSERT_EQUAL(ts[0].io.order_errors, 0);
	CU_ASSERT_EQUAL(btrt_run_items(sr[0].run), ts[0].io.checked);
	CU_ASSERT_EQUAL(sr[0].rc, 0);
	free_streams(ts, sr, 2);
}

/* Fair admission (btrt_streams_opts.share): a slow stream (paced, share
 * 1) and a fast one (share 3): the fast one's task k is admitted only
 * while k <= 3 (a_0 + BTRT_FAIR_SLACK) (the slack is 2 tasks of the
 * coarsest stream, the slow one: btrt_fair_cap), a_0 the slow one's tasks admitted
 * by then (at most those whose load had begun when the fast one's load
 * ended), until the slow one has admitted all its tasks; every task of
 * both checked. Unheld, the fast one would load its 60 tasks while the
 * slow one's tokens come 1 ms apart. */
static void test_streams_fair(void)
{
	enum { N = 2 };
	struct toy_stream ts[N];
	struct btrt_stream_run sr[N];
	static const uint64_t items[N] = { 20, 60 };
	static const double share[N] = { 1, 3 };
	make_stream(&ts[0], &sr[0], 256, toy_one, 1, items[0], NULL);
	make_stream(&ts[1], &sr[1], 256, toy_three, 3, items[1], NULL);
	sr[0].rate = 1000;
	struct btrt_streams_opts o = { .share = share };
	struct btrt_error err;
	int rc = btrt_streams_run_opts(sr, N, &o, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	for (int i = 0; i < N; i++) {
		CU_ASSERT_EQUAL(sr[i].rc, 0);
		CU_ASSERT_EQUAL(ts[i].io.checked, items[i]);
		CU_ASSERT_EQUAL(ts[i].io.order_errors, 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(sr[i].run);
	}
	uint64_t ls0[20], ls, le, cs, ce;
	for (uint64_t j = 0; j < items[0]; j++)
		CU_ASSERT_EQUAL_FATAL(btrt_run_io_times(sr[0].run, j, &ls0[j], &le, &cs, &ce), 0);
	int held = 0, checked = 0;
	for (uint64_t k = 0; k < items[1]; k++) {
		CU_ASSERT_EQUAL_FATAL(btrt_run_io_times(sr[1].run, k, &ls, &le, &cs, &ce), 0);
		uint64_t a0 = 0;
		while (a0 < items[0] && ls0[a0] <= le)
			a0++;
		if (a0 == items[0])
			break; /* the slow stream left the set */
		checked++;
		held += (double)k <= share[1] * ((double)a0 + BTRT_FAIR_SLACK) / share[0];
	}
	CU_ASSERT(checked >= 40); /* 3 x 20 slow tasks: most fast ones under the rule */
	CU_ASSERT_EQUAL(held, checked);
	free_streams(ts, sr, N);
	(void)ls;
}

/* The cap itself (btrt_fair_cap): a stream's share of the least
 * normalised progress of the others in the set, plus 2 tasks of the
 * coarsest stream (the least share) in normalised progress; no other
 * stream in the set: no cap; a stream with share 0 neither holds nor
 * counts as the coarsest. */
static void test_fair_cap(void)
{
	const double share2[2] = { 1, 3 };
	const uint64_t adm2[2] = { 4, 10 };
	int out2[2] = { 0, 0 };
	CU_ASSERT_DOUBLE_EQUAL(btrt_fair_cap(share2, adm2, out2, 2, 1), 3 * (4 + 2.0), 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(btrt_fair_cap(share2, adm2, out2, 2, 0), 10 / 3.0 + 2, 1e-12);
	out2[0] = 1;
	CU_ASSERT(isinf(btrt_fair_cap(share2, adm2, out2, 2, 1)));
	const double share3[4] = { 2, 1, 4, 0 };
	const uint64_t adm3[4] = { 10, 3, 30, 0 };
	const int out3[4] = { 0, 0, 0, 0 };
	CU_ASSERT_DOUBLE_EQUAL(btrt_fair_cap(share3, adm3, out3, 4, 0), 2 * (3 + 2.0), 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(btrt_fair_cap(share3, adm3, out3, 4, 2), 4 * (3 + 2.0), 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(btrt_fair_cap(share3, adm3, out3, 4, 1), 1 * (5 + 2.0), 1e-12);
}

/* The Vulkan devices and queues of several streams (btrt_vk_streams_choose):
 * an asked mode is kept; unasked, a GPU gets one queue for every stream
 * (the H100 time-slices a device's queues), a CPU device (llvmpipe) a
 * queue each where its device has one per stream, else a device each. */
static void test_vk_streams_choose(void)
{
	static const enum btrt_vk_streams asked[] = { BTRT_VK_STREAMS_ONE, BTRT_VK_STREAMS_EACH,
						      BTRT_VK_STREAMS_QUEUE };
	for (int k = 0; k < 3; k++)
		for (int cpu = 0; cpu < 2; cpu++) {
			CU_ASSERT_EQUAL(btrt_vk_streams_choose(asked[k], cpu, 16, 4), asked[k]);
			CU_ASSERT_EQUAL(btrt_vk_streams_choose(asked[k], cpu, 1, 4), asked[k]);
		}
	CU_ASSERT_EQUAL(btrt_vk_streams_choose(BTRT_VK_STREAMS_AUTO, 0, 16, 4), BTRT_VK_STREAMS_QUEUE);
	CU_ASSERT_EQUAL(btrt_vk_streams_choose(BTRT_VK_STREAMS_AUTO, 0, 16, 16), BTRT_VK_STREAMS_QUEUE);
	CU_ASSERT_EQUAL(btrt_vk_streams_choose(BTRT_VK_STREAMS_AUTO, 0, 1, 8), BTRT_VK_STREAMS_QUEUE);
	CU_ASSERT_EQUAL(btrt_vk_streams_choose(BTRT_VK_STREAMS_AUTO, 1, 4, 4), BTRT_VK_STREAMS_ONE);
	CU_ASSERT_EQUAL(btrt_vk_streams_choose(BTRT_VK_STREAMS_AUTO, 1, 1, 1), BTRT_VK_STREAMS_ONE);
	CU_ASSERT_EQUAL(btrt_vk_streams_choose(BTRT_VK_STREAMS_AUTO, 1, 1, 4), BTRT_VK_STREAMS_EACH);
	CU_ASSERT_EQUAL(btrt_vk_streams_choose(BTRT_VK_STREAMS_AUTO, 1, 3, 4), BTRT_VK_STREAMS_EACH);
}

/* A negative share is refused, and so are shares with turns. */
static void test_streams_fair_bad_share(void)
{
	struct toy_stream ts;
	struct btrt_stream_run sr;
	make_stream(&ts, &sr, 256, toy_one, 1, 4, NULL);
	static const double share[1] = { -1 };
	struct btrt_streams_opts o = { .share = share };
	struct btrt_error err;
	CU_ASSERT_EQUAL(btrt_streams_run_opts(&sr, 1, &o, &err), -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_INVAL);
	static const double one_share[1] = { 1 };
	struct btrt_streams_opts ot = { .share = one_share, .turn = 2 };
	CU_ASSERT_EQUAL(btrt_streams_run_opts(&sr, 1, &ot, &err), -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_INVAL);
	btrt_pool_destroy(ts.pool);
}

static void test_streams_bad_config(void)
{
	struct btrt_stream_run sr;
	memset(&sr, 0, sizeof sr);
	sr.rate = -1;
	struct btrt_error err;
	CU_ASSERT_EQUAL(btrt_streams_run(&sr, 1, &err), -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_INVAL);
	CU_ASSERT_EQUAL(btrt_streams_run(&sr, 0, &err), -1);
	sr.rate = 0; /* taking turns needs n_items */
	CU_ASSERT_EQUAL(btrt_streams_run_turns(&sr, 1, 4, &err), -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_INVAL);
}

int suite_streams_register(void)
{
	CU_pSuite s = CU_add_suite("streams", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "all streams checked", test_streams_all_checked);
	CU_add_test(s, "a failure stops every stream", test_streams_failure_stops_all);
	CU_add_test(s, "the interrupt stops every stream", test_streams_interrupt);
	CU_add_test(s, "taking turns", test_streams_turns);
	CU_add_test(s, "taking turns, a failure stops every stream", test_streams_turns_failure);
	CU_add_test(s, "taking turns, the interrupt stops every stream",
		    test_streams_turns_interrupt);
	CU_add_test(s, "together, after a gate", test_streams_together_gate);
	CU_add_test(s, "bad config refused", test_streams_bad_config);
	CU_add_test(s, "fair admission", test_streams_fair);
	CU_add_test(s, "fair admission's cap", test_fair_cap);
	CU_add_test(s, "fair admission: a negative share refused", test_streams_fair_bad_share);
	CU_add_test(s, "the Vulkan devices and queues of several streams", test_vk_streams_choose);
	return 0;
}
