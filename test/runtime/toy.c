#include "toy.h"
#include "suites.h"

#include <CUnit/CUnit.h>

#include <btrt_pool.h>
#include <btrt_trace.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef _OPENMP
#define TOY_PARALLEL_FOR _Pragma("omp parallel for schedule(static)")
#else
#define TOY_PARALLEL_FOR
#endif

const struct btrt_buffer_desc toy_buffers[TOY_N_BUFFERS] = {
	{ "in", BTRT_U32, 4, BTRT_PLACE_UNIFIED, 1, 0 },
	{ "a", BTRT_U32, 4, BTRT_PLACE_UNIFIED, 0, 0 },
	{ "b", BTRT_U32, 4, BTRT_PLACE_UNIFIED, 0, 0 },
	{ "out", BTRT_U32, 4, BTRT_PLACE_UNIFIED, 0, 0 },
	{ "meta", BTRT_U32, 4, BTRT_PLACE_UNIFIED, 0, 0 },
};

void toy_default_params(struct toy_params *p)
{
	p->n = 4096;
	p->fail_seq = UINT64_MAX;
	p->fail_code = 42;
	p->corrupt_seq = UINT64_MAX;
	p->corrupt_seq2 = UINT64_MAX;
	p->load_sleep_us = 0;
	p->check_sleep_us = 0;
}

static void sleep_us(uint32_t us)
{
	struct timespec ts = { (time_t)(us / 1000000u), (long)(us % 1000000u) * 1000L };
	nanosleep(&ts, NULL);
}

/* Notes the thread and CPU of an io call (the first call's thread is the
 * reference). */
static void note_thread(long *tid, int *other, int cpu1, int *cpu_errors)
{
	long me = (long)syscall(SYS_gettid);
	if (!*tid)
		*tid = me;
	else if (*tid != me)
		(*other)++;
	if (cpu1 && sched_getcpu() != cpu1 - 1)
		(*cpu_errors)++;
}

void toy_counts(const struct toy_params *p, size_t c[TOY_N_BUFFERS])
{
	c[TOY_BUF_IN] = c[TOY_BUF_A] = c[TOY_BUF_B] = c[TOY_BUF_OUT] = (size_t)p->n;
	c[TOY_BUF_META] = 4;
}

void toy_task_bind(struct toy_task *t, const struct toy_params *p)
{
	t->params = p;
	t->in = t->base.buffers[TOY_BUF_IN].host;
	t->a = t->base.buffers[TOY_BUF_A].host;
	t->b = t->base.buffers[TOY_BUF_B].host;
	t->out = t->base.buffers[TOY_BUF_OUT].host;
	t->meta = t->base.buffers[TOY_BUF_META].host;
}

int toy_scale_cpu(void *tp)
{
	struct toy_task *t = tp;
	int64_t n = t->params->n;
	TOY_PARALLEL_FOR
	for (int64_t i = 0; i < n; i++)
		t->a[i] = t->in[i] * 3u;
	t->meta[1]++;
	return 0;
}

int toy_offset_cpu(void *tp)
{
	struct toy_task *t = tp;
	int64_t n = t->params->n;
	TOY_PARALLEL_FOR
	for (int64_t i = 0; i < n; i++)
		t->b[i] = t->a[i] + TOY_OFFSET;
	t->meta[1]++;
	return 0;
}

int toy_square_cpu(void *tp)
{
	struct toy_task *t = tp;
	if (t->base.seq == t->params->fail_seq)
		return t->params->fail_code;
	int64_t n = t->params->n;
	TOY_PARALLEL_FOR
	for (int64_t i = 0; i < n; i++)
		t->a[i] = t->b[i] * t->b[i];
	t->meta[1]++;
	return 0;
}

int toy_mix_cpu(void *tp)
{
	struct toy_task *t = tp;
	int64_t n = t->params->n;
	TOY_PARALLEL_FOR
	for (int64_t i = 0; i < n; i++)
		t->out[i] = t->a[i] + t->in[i];
	t->meta[1]++;
	return 0;
}

int toy_seal_cpu(void *tp)
{
	struct toy_task *t = tp;
	int64_t n = t->params->n;
	uint32_t s = t->meta[0];
	TOY_PARALLEL_FOR
	for (int64_t i = 0; i < n; i++)
		t->out[i] ^= s;
	if (t->base.seq == t->params->corrupt_seq || t->base.seq == t->params->corrupt_seq2)
		t->out[n / 2] ^= 1;
	t->meta[1]++;
	return 0;
}

static const uint32_t r_in[] = { TOY_BUF_IN, TOY_BUF_META };
static const uint32_t w_a[] = { TOY_BUF_A, TOY_BUF_META };
static const uint32_t r_a[] = { TOY_BUF_A, TOY_BUF_META };
static const uint32_t w_b[] = { TOY_BUF_B, TOY_BUF_META };
static const uint32_t r_b[] = { TOY_BUF_B, TOY_BUF_META };
static const uint32_t r_mix[] = { TOY_BUF_A, TOY_BUF_IN, TOY_BUF_META };
static const uint32_t w_out[] = { TOY_BUF_OUT, TOY_BUF_META };
static const uint32_t r_out[] = { TOY_BUF_OUT, TOY_BUF_META };

const struct btrt_stage toy_stages_cpu[TOY_N_STAGES] = {
	{ .name = "scale", .cpu = toy_scale_cpu, .reads = r_in, .n_reads = 2, .writes = w_a, .n_writes = 2 },
	{ .name = "offset", .cpu = toy_offset_cpu, .reads = r_a, .n_reads = 2, .writes = w_b, .n_writes = 2 },
	{ .name = "square", .cpu = toy_square_cpu, .reads = r_b, .n_reads = 2, .writes = w_a, .n_writes = 2 },
	{ .name = "mix", .cpu = toy_mix_cpu, .reads = r_mix, .n_reads = 3, .writes = w_out, .n_writes = 2 },
	{ .name = "seal", .cpu = toy_seal_cpu, .reads = r_out, .n_reads = 2, .writes = w_out, .n_writes = 2 },
};

const struct btrt_chunk toy_three[3] = {
	{ "big", BTRT_PU_CPU, NULL, 0, 0, 2, NULL, NULL, 0 },
	{ "mid", BTRT_PU_CPU, NULL, 0, 2, 2, NULL, NULL, 0 },
	{ "little", BTRT_PU_CPU, NULL, 0, 4, 1, NULL, NULL, 0 },
};
const struct btrt_chunk toy_farmed[4] = {
	{ "head", BTRT_PU_CPU, NULL, 0, 0, 2, NULL, NULL, 0 },
	{ "w0", BTRT_PU_CPU, NULL, 0, 2, 2, NULL, NULL, 1 },
	{ "w1", BTRT_PU_CPU, NULL, 0, 2, 2, NULL, NULL, 1 },
	{ "tail", BTRT_PU_CPU, NULL, 0, 4, 1, NULL, NULL, 0 },
};
const struct btrt_chunk toy_one[1] = {
	{ "all", BTRT_PU_CPU, NULL, 0, 0, 5, NULL, NULL, 0 },
};

static void *toy_open(const char *path, const void *params, char *err, size_t errlen)
{
	return NULL; /* the tests pass their own state */
}

/* Guards the toy_io_state counters of concurrent loads and checks (one
 * run at a time uses the toy's io). */
static pthread_mutex_t toy_check_lock = PTHREAD_MUTEX_INITIALIZER;

static int toy_load(void *state, uint64_t seq, void *task, char *err, size_t errlen)
{
	struct toy_io_state *s = state;
	struct toy_task *t = task;
	if (seq == s->load_fail_seq) {
		snprintf(err, errlen, "planted load failure");
		return -1;
	}
	if (s->limit && seq >= s->limit)
		return 0;
	if (s->signal_seq && seq == s->signal_seq)
		kill(getpid(), SIGINT);
	uint32_t k = s->load_threads > 1 ? s->load_threads : 1;
	pthread_mutex_lock(&toy_check_lock);
	if (k == 1) {
		note_thread(&s->load_tid, &s->load_tids, s->load_cpu1, &s->load_cpu_errors);
	} else {
		uint32_t w = (uint32_t)(seq % k);
		if (seq != s->loader_next[w])
			s->order_errors++;
		s->loader_next[w] = seq + k;
		note_thread(&s->loader_tid[w], &s->loader_tids[w], 0, &s->load_cpu_errors);
		if (w == 0) /* the source */
			note_thread(&s->load_tid, &s->load_tids, 0, &s->load_cpu_errors);
	}
	s->loaded++;
	uint32_t slot = t->base.slot;
	if (slot < 64 && !(s->slots_seen >> slot & 1)) {
		s->slots_seen |= 1ull << slot;
		s->slot_first_errors += seq != slot;
	}
	pthread_mutex_unlock(&toy_check_lock);
	if (s->p->load_sleep_us)
		sleep_us(s->p->load_sleep_us);
	int64_t n = s->p->n;
	for (int64_t i = 0; i < n; i++)
		t->in[i] = (uint32_t)(seq * 7 + (uint64_t)i);
	memset(t->a, 0, (size_t)n * 4);
	memset(t->b, 0, (size_t)n * 4);
	memset(t->out, 0, (size_t)n * 4);
	t->meta[0] = (uint32_t)seq;
	t->meta[1] = 0;
	return 1;
}

static int toy_check(void *state, uint64_t seq, const void *task, FILE *out, char *err, size_t errlen)
{
	struct toy_io_state *s = state;
	const struct toy_task *t = task;
	uint32_t k = s->check_threads > 1 ? s->check_threads : 1;
	pthread_mutex_lock(&toy_check_lock);
	if (k == 1) {
		if (seq != s->next_seq || t->base.seq != seq)
			s->order_errors++;
		s->next_seq = seq + 1;
		note_thread(&s->check_tid, &s->check_tids, s->check_cpu1, &s->check_cpu_errors);
	} else {
		uint32_t w = (uint32_t)(seq % k);
		if (seq != s->worker_next[w] || t->base.seq != seq)
			s->order_errors++;
		s->worker_next[w] = seq + k;
		s->next_seq = BTRT_MAX(s->next_seq, seq + 1);
		note_thread(&s->worker_tid[w], &s->worker_tids[w], s->worker_cpu1[w],
			    &s->worker_cpu_errors[w]);
		if (w == 0) /* the sink: the caller's thread */
			note_thread(&s->check_tid, &s->check_tids, 0, &s->check_cpu_errors);
	}
	s->checked++;
	pthread_mutex_unlock(&toy_check_lock);
	if (s->p->check_sleep_us)
		sleep_us(s->p->check_sleep_us);
	if (t->meta[1] != TOY_N_STAGES) {
		snprintf(err, errlen, "item %llu: %u stage visits, expected %d",
			 (unsigned long long)seq, t->meta[1], TOY_N_STAGES);
		return -1;
	}
	for (int64_t i = 0; i < s->p->n; i++) {
		uint32_t in = (uint32_t)(seq * 7 + (uint64_t)i);
		uint32_t b = in * 3u + TOY_OFFSET;
		uint32_t want = (b * b + in) ^ (uint32_t)seq;
		if (t->out[i] != want) {
			snprintf(err, errlen, "item %llu: out[%lld] = %u, expected %u",
				 (unsigned long long)seq, (long long)i, t->out[i], want);
			return -1;
		}
	}
	if (out)
		fprintf(out, "%llu ok\n", (unsigned long long)seq);
	return 0;
}

static void toy_close(void *state, FILE *out) {}

const struct btrt_app_io toy_io = { toy_open, toy_load, toy_check, toy_close, NULL, 0, 0 };

uint64_t toy_record_limit;
struct btrt_run **toy_keep_run;
const btrt_atomic_int *toy_interrupt;
const int *toy_io_cores;
const unsigned char *toy_gpu_touched;
uint32_t toy_n_io_cores;

int toy_run(const struct toy_params *p, const struct btrt_stage *stages,
	    const struct btrt_chunk *chunks, uint32_t n_chunks, uint32_t pool_size,
	    uint64_t n_items, enum btrt_backend backend, struct btrt_vk *vk,
	    struct btrt_cuda *cuda, struct toy_io_state *io_out, const char *trace,
	    struct btrt_error *err)
{
	size_t counts[TOY_N_BUFFERS];
	toy_counts(p, counts);
	struct btrt_pool_config pc = {
		.task_size = sizeof(struct toy_task),
		.n_tasks = pool_size,
		.buffers = toy_buffers,
		.counts = counts,
		.n_buffers = TOY_N_BUFFERS,
		.backend = backend,
		.vk = vk,
		.cuda = cuda,
		.gpu_touched = toy_gpu_touched,
	};
	struct btrt_pool *pool;
	if (btrt_pool_create(&pool, &pc, err))
		return -1;
	for (uint32_t i = 0; i < pool_size; i++)
		toy_task_bind(btrt_pool_task(pool, i), p);
	struct toy_io_state st = { .p = p, .limit = 0, .load_fail_seq = UINT64_MAX };
	if (io_out) {
		st.load_cpu1 = io_out->load_cpu1;
		st.check_cpu1 = io_out->check_cpu1;
		st.limit = io_out->limit;
		st.load_fail_seq = io_out->load_fail_seq;
		st.signal_seq = io_out->signal_seq;
		st.check_threads = io_out->check_threads;
		st.load_threads = io_out->load_threads;
		for (uint32_t w = 0; w < st.load_threads && w < TOY_MAX_CHECKERS; w++)
			st.loader_next[w] = w;
		for (uint32_t w = 0; w < st.check_threads && w < TOY_MAX_CHECKERS; w++) {
			st.worker_cpu1[w] = io_out->worker_cpu1[w];
			st.worker_next[w] = w;
		}
	}
	struct btrt_pipeline_config cfg = {
		.app = "toy",
		.stages = stages,
		.n_stages = TOY_N_STAGES,
		.chunks = chunks,
		.n_chunks = n_chunks,
		.pool = pool,
		.io = &toy_io,
		.io_state = &st,
		.n_items = n_items,
		.check = 1,
		.vk = vk,
		.cuda = cuda,
		.record_limit = toy_record_limit,
		.interrupt = toy_interrupt,
		.io_cores = toy_io_cores,
		.n_io_cores = toy_n_io_cores,
		.check_threads = st.check_threads,
		.load_threads = st.load_threads,
	};
	btrt_env_pipeline_config(&test_btrt_env, &cfg);
	struct btrt_run *run = NULL;
	int rc = btrt_pipeline_run(&cfg, &run, err);
	if (trace && run) {
		struct btrt_error te;
		if (btrt_run_write_trace(run, trace, &te))
			fprintf(stderr, "%s\n", te.msg);
	}
	if (getenv("TOY_VERBOSE") && run)
		btrt_run_print(run, stderr);
	if (toy_keep_run)
		*toy_keep_run = run;
	else
		btrt_run_free(run);
	btrt_pool_destroy(pool);
	if (io_out)
		*io_out = st;
	return rc;
}

static btrt_atomic_int got_signal;

/* Async-signal-safe: one lock-free atomic store. */
static void on_signal(int sig)
{
	atomic_store(&got_signal, sig);
}

int toy_run_sigint(const struct toy_params *p, const struct btrt_stage *stages,
		   const struct btrt_chunk *chunks, uint32_t n_chunks, uint32_t pool_size,
		   uint64_t n_items, struct toy_io_state *io, struct btrt_error *err)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	CU_ASSERT_EQUAL_FATAL(sigaction(SIGINT, &sa, &old), 0);
	atomic_store(&got_signal, 0);
	toy_interrupt = &got_signal;
	int rc = toy_run(p, stages, chunks, n_chunks, pool_size, n_items, BTRT_BACKEND_HOST, NULL,
			 NULL, io, NULL, err);
	toy_interrupt = NULL;
	sigaction(SIGINT, &old, NULL);
	return rc;
}
