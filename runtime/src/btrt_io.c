/* The io threads of a pipeline: the source loads ahead, the sink checks
 * behind (btrt_pipe.h), joined by an SPSC ring that hands the checked
 * TaskObjects back to the source. */
#include "btrt_pipe.h"
#include "btrt_trace.h"
#include "btrt_watchdog.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

int btrt_io_init(struct pipe *p, struct btrt_error *err)
{
	size_t cap = 1, pool = btrt_pool_size(p->cfg->pool);
	while (cap < pool + 1)
		cap <<= 1;
	if (btrt_ring_spsc_init(&p->recycle, cap))
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "pipeline: out of memory");
	p->recycle_inited = 1;
	p->recycle_port.ring = &p->recycle;
	atomic_init(&p->drain, 0);
	atomic_init(&p->loaded, p->cfg->first_seq);
	atomic_init(&p->checked, 0);
	if (btrt_io_load_init(p, err))
		return -1;
	uint32_t k = btrt_io_check_threads(p->cfg);
	p->chk = calloc(k, sizeof *p->chk);
	if (!p->chk)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "pipeline: out of memory");
	p->n_chk = k;
	for (uint32_t w = 0; w < k; w++) {
		struct btrt_checker *c = &p->chk[w];
		c->p = p;
		c->w = w;
		if (w == 0)
			continue;
		if (btrt_ring_spsc_init(&c->todo, cap))
			return btrt_error_set(err, BTRT_E_NOMEM, 0, "pipeline: out of memory");
		c->todo_inited = 1;
		if (btrt_ring_spsc_init(&c->back, cap))
			return btrt_error_set(err, BTRT_E_NOMEM, 0, "pipeline: out of memory");
		c->back_inited = 1;
	}
	return 0;
}

/* ---- source --------------------------------------------------------------- */

static void source_loop(struct pipe *p)
{
	const struct btrt_pipeline_config *cfg = p->cfg;
	struct btrt_pool *pool = cfg->pool;
	uint32_t n_tasks = btrt_pool_size(pool), next_free = 0;
	uint64_t seq = cfg->first_seq, recycled = 0;
	for (;;) {
		if (btrt_io_interrupted(p))
			return;
		if (btrt_io_source_ended(p, seq))
			break;
		struct btrt_task *t;
		if (next_free < n_tasks) {
			t = btrt_pool_task(pool, next_free++);
		} else {
			/* A TaskObject the sink (or a check worker) has
			 * checked: the j-th one reused is that of task
			 * first_seq + j, on worker j mod k's ring. The ring's
			 * release/acquire pair orders the check's reads of its
			 * buffers before the load overwrites them. */
			uint32_t w = (uint32_t)(recycled++ % p->n_chk);
			t = btrt_ring_spsc_pop(w ? &p->chk[w].back : &p->recycle, &p->stop);
			if (!t)
				return; /* stopped */
			if (btrt_io_interrupted(p))
				return;
			if (btrt_io_source_ended(p, seq))
				break;
		}
		int rc = btrt_io_source_load(p, t, seq);
		if (rc < 0)
			return;
		if (rc == 0)
			break;
		seq++;
		/* relaxed: a count for messages. */
		atomic_store_explicit(&p->loaded, seq, memory_order_relaxed);
		/* Never waits (see the dispatchers). The ring's (or farm
		 * link's) release store publishes the loaded buffers to chunk
		 * 0. */
		if (btrt_io_source_push(p, t, t->seq))
			return;
	}
	btrt_io_source_push(p, BTRT_EOS, seq);
}

_Thread_local const atomic_int *btrt_source_stop;

static void *source_main(void *arg)
{
	struct pipe *p = arg;
	const struct btrt_pipeline_config *cfg = p->cfg;
	const int *cores;
	uint32_t n;
	btrt_io_thread_cores(cfg, BTRT_THREAD_SOURCE(cfg), &cores, &n);
	struct btrt_error e;
	btrt_error_clear(&e);
	if (p->pin && btrt_pin_self(cores, n, &e)) {
		char tmp[sizeof e.msg];
		snprintf(tmp, sizeof tmp, "cannot pin the io source thread: %.200s", e.msg);
		memcpy(e.msg, tmp, sizeof tmp);
		btrt_pipe_fail(p, &e);
		return NULL;
	}
	btrt_pipe_set_backoff(cfg, BTRT_THREAD_SOURCE(cfg));
	btrt_source_stop = &p->stop;
	if (p->n_ld > 1)
		btrt_io_source_farm(p);
	else
		source_loop(p);
	btrt_source_stop = NULL;
	return NULL;
}

int btrt_io_start_source(struct pipe *p)
{
	int e = pthread_create(&p->source_th, NULL, source_main, p);
	if (e) {
		struct btrt_error pe;
		btrt_error_clear(&pe);
		btrt_error_set(&pe, BTRT_E_SYS, e, "pthread_create for the io source: %s", strerror(e));
		btrt_pipe_fail(p, &pe);
		return -1;
	}
	p->source_started = 1;
	return 0;
}

/* ---- sink and check farm ------------------------------------------------ */

/* Worker c's check of finished task t (io->check when cfg->check), its
 * record and, on the sink (k = 1), the observation hook. Returns 0 or -1
 * (p failed). */
static int check_task(struct btrt_checker *c, struct btrt_task *t)
{
	struct pipe *p = c->p;
	const struct btrt_pipeline_config *cfg = p->cfg;
	uint64_t idx = t->seq - cfg->first_seq; /* the run's io records */
	uint64_t a = btrt_now_ns();
	if (cfg->check) {
		char msg[256] = "";
		if (cfg->io->check(cfg->io_state, t->seq, t, cfg->check_out, msg, sizeof msg) != 0) {
			struct btrt_error e;
			btrt_error_clear(&e);
			btrt_error_set(&e, BTRT_E_CHECK, -1, "check of task %" PRIu64 " (slot %u) failed: %s",
				       t->seq, t->slot, msg);
			e.seq = t->seq;
			/* with k workers the lowest failing seq is kept */
			btrt_pipe_fail(p, &e);
			return -1;
		}
	}
	uint64_t b = btrt_now_ns();
	/* worker w's j-th task is idx = w + j * k */
	if (idx < p->run->limit && idx / p->n_chk == c->n_chk &&
	    btrt_vec_reserve((void **)&c->chk, &c->cap_chk, c->n_chk, sizeof *c->chk) == 0)
		c->chk[c->n_chk++] = (struct btrt_rec_check){ a, b };
	c->items++;
	c->t_end = b;
	/* relaxed: a count for messages (k > 1: the sum is not exact). */
	atomic_fetch_add_explicit(&p->checked, 1, memory_order_relaxed);
	btrt_status_task_done(); /* for a parent's "after K tasks" */
	if (cfg->on_task_done) { /* k = 1: the sink, in input order */
		uint64_t load = p->load_ns[t->slot];
		struct btrt_task_done d = {
			.seq = t->seq, .done_ns = b, .io_ns = load + (b - a),
			.n_chunks = cfg->n_chunks,
			.chunk_ns = &p->task_ns[(size_t)t->slot * cfg->n_chunks],
			.load_ns = load, .check_ns = b - a,
		};
		/* release: see source_ended. */
		if (cfg->on_task_done(cfg->on_task_done_ctx, &d))
			atomic_store_explicit(&p->drain, 1, memory_order_release);
	}
	return 0;
}

/* Check worker w >= 1: its tasks from c->todo, in seq order, back to the
 * source on c->back. A stop leaves the tasks already queued to be checked
 * (a pop returns what the ring holds before it reads the stop flag): the
 * sink queues every task before the next, so when a worker's check of
 * task s fails, every task before s is checked (or its check failing too)
 * and btrt_pipe_fail keeps the lowest failing seq, as one checker in
 * input order would report. */
static void checker_loop(struct btrt_checker *c)
{
	struct pipe *p = c->p;
	for (;;) {
		void *x = btrt_ring_spsc_pop(&c->todo, &p->stop);
		if (!x || x == BTRT_EOS)
			return; /* stopped and empty, or drained */
		struct btrt_task *t = x;
		if (btrt_io_interrupted(p) || check_task(c, t))
			return;
		/* Never waits: the ring holds the whole pool. Its release
		 * store publishes the check's reads to the source. */
		if (!btrt_ring_spsc_push(&c->back, t, &p->stop))
			return;
	}
}

static void *checker_main(void *arg)
{
	struct btrt_checker *c = arg;
	struct pipe *p = c->p;
	const struct btrt_pipeline_config *cfg = p->cfg;
	const int *cores;
	uint32_t n;
	btrt_io_thread_cores(cfg, BTRT_THREAD_CHECKER(cfg, c->w), &cores, &n);
	struct btrt_error e;
	btrt_error_clear(&e);
	if (p->pin && btrt_pin_self(cores, n, &e)) {
		char tmp[sizeof e.msg];
		snprintf(tmp, sizeof tmp, "cannot pin check worker %u: %.200s", c->w, e.msg);
		memcpy(e.msg, tmp, sizeof tmp);
		btrt_pipe_fail(p, &e);
		return NULL;
	}
	btrt_pipe_set_backoff(cfg, BTRT_THREAD_CHECKER(cfg, c->w));
	checker_loop(c);
	return NULL;
}

/* Starts check workers 1..k-1. Returns 0, or -1 after btrt_pipe_fail. */
static int start_checkers(struct pipe *p)
{
	for (uint32_t w = 1; w < p->n_chk; w++) {
		int e = pthread_create(&p->chk[w].th, NULL, checker_main, &p->chk[w]);
		if (e) {
			struct btrt_error pe;
			btrt_error_clear(&pe);
			btrt_error_set(&pe, BTRT_E_SYS, e, "pthread_create for check worker %u: %s", w,
				       strerror(e));
			btrt_pipe_fail(p, &pe);
			return -1;
		}
		p->chk[w].started = 1;
	}
	return 0;
}

/* The sink's handling of finished task t: the order check, then its own
 * check (worker 0) or the handoff to its worker. Returns 0 or -1 (p
 * failed, or stopped). */
static int sink_task(struct pipe *p, struct btrt_task *t, uint64_t *expect)
{
	if (t->seq != *expect) {
		struct btrt_error e;
		btrt_error_clear(&e);
		btrt_error_set(&e, BTRT_E_SYS, 0,
			"internal: task %" PRIu64 " (slot %u) left the pipeline, expected %" PRIu64,
			t->seq, t->slot, *expect);
		e.seq = t->seq;
		btrt_pipe_fail(p, &e);
		return -1;
	}
	(*expect)++;
	uint32_t w = (uint32_t)((t->seq - p->cfg->first_seq) % p->n_chk);
	if (w)	/* never waits: the ring holds the pool; its release store
		 * publishes the chunks' outputs to the worker */
		return btrt_ring_spsc_push(&p->chk[w].todo, t, &p->stop) ? 0 : -1;
	/* An interrupt during this task's way through stops before its
	 * check: nothing is checked after the signal (the source may have
	 * pushed the task it was loading when the signal came). */
	if (btrt_io_interrupted(p) || check_task(&p->chk[0], t))
		return -1;
	/* Never waits: the ring holds the whole pool. Its release store
	 * publishes the check's reads (and the hook's drain) to the source,
	 * which reuses t. */
	if (!btrt_ring_spsc_push(&p->recycle, t, &p->stop))
		return -1;
	return btrt_io_interrupted(p);
}

void btrt_io_sink(struct pipe *p)
{
	const struct btrt_pipeline_config *cfg = p->cfg;
	struct btrt_port *done = &p->links.in[cfg->n_chunks];
	uint64_t expect = cfg->first_seq;
	if (start_checkers(p) == 0) {
		for (;;) {
			uint64_t got;
			void *x = btrt_port_pop(done, &p->stop, &got);
			if (!x || x == BTRT_EOS || x == BTRT_EOS_EXTRA)
				break; /* stopped, or drained */
			if (sink_task(p, x, &expect))
				break;
		}
	}
	/* The end of stream (or a stop, which wakes them anyway) to the
	 * other workers, behind their last task; then wait for them. */
	for (uint32_t w = 1; w < p->n_chk; w++)
		if (p->chk[w].started)
			btrt_ring_spsc_push(&p->chk[w].todo, BTRT_EOS, &p->stop);
	for (uint32_t w = 1; w < p->n_chk; w++)
		if (p->chk[w].started)
			pthread_join(p->chk[w].th, NULL);
}

void btrt_io_finish(struct pipe *p)
{
	struct btrt_run *run = p->run;
	uint32_t nc = p->cfg->n_chunks, k = p->n_chk;
	if (run && k) {
		uint64_t items = 0, t_end = 0;
		for (uint32_t w = 0; w < k; w++) {
			items += p->chk[w].items;
			t_end = BTRT_MAX(t_end, p->chk[w].t_end);
		}
		run->items += items;
		run->n_check = k;
		if (items)
			run->t_end = t_end;
		for (size_t i = 0; i < run->n_io; i++) {
			const struct btrt_checker *c = &p->chk[i % k];
			size_t j = i / k;
			if (j >= c->n_chk)
				continue;
			run->io[i].check_start = c->chk[j].start;
			run->io[i].check_end = c->chk[j].end;
		}
	}
	if (run && p->recycle_inited) {
		struct btrt_wait_stats *sink = &run->waits[BTRT_THREAD_SINK(p->cfg)];
		btrt_port_wait_stats(&p->links.in[nc], &p->recycle_port, sink);
		btrt_port_wait_stats(&p->recycle_port, &p->links.out[nc],
				     &run->waits[BTRT_THREAD_SOURCE(p->cfg)]);
		/* the check workers' waits count as the sink's; the source's
		 * pops of their rings as the source's */
		for (uint32_t w = 1; w < k; w++) {
			struct btrt_port todo = { .ring = &p->chk[w].todo },
					 back = { .ring = &p->chk[w].back };
			if (p->chk[w].todo_inited && p->chk[w].back_inited) {
				btrt_port_wait_stats(&todo, &back, sink);
				btrt_port_wait_stats(&back, &(struct btrt_port){ 0 },
						     &run->waits[BTRT_THREAD_SOURCE(p->cfg)]);
			}
		}
	}
	btrt_io_load_finish(p);
	if (p->recycle_inited)
		btrt_ring_spsc_destroy(&p->recycle);
	p->recycle_inited = 0;
	for (uint32_t w = 0; w < k; w++) {
		if (p->chk[w].todo_inited)
			btrt_ring_spsc_destroy(&p->chk[w].todo);
		if (p->chk[w].back_inited)
			btrt_ring_spsc_destroy(&p->chk[w].back);
		free(p->chk[w].chk);
	}
	free(p->chk);
	p->chk = NULL;
	p->n_chk = 0;
}
