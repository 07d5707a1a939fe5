/* The io source's load farm (btrt_pipe.h): with load_threads k > 1 the
 * source hands item seq to loader (seq - first_seq) mod k, loads every
 * k-th item itself (loader 0), and pushes the items into the first link
 * in input order. Every handoff is an SPSC ring (source -> loader:
 * todo, loader -> source: done), so nothing is locked on the hot path.
 *
 * Order of the source's work, round r (items rk .. rk + k - 1): it
 * loads item rk itself while loaders 1 .. k - 1 load round r - 1's items
 * (r - 1)k + 1 .. rk - 1, takes those back in order and pushes them, then
 * pushes rk and hands rk + 1 .. rk + k - 1 to the loaders. The source
 * holds at most k TaskObjects besides those in flight, so a pool of k or
 * more never deadlocks (btrt_io_load_threads caps k at the pool's size):
 * the free TaskObject for item s = rk is that of item s - pool <= (r - 1)k,
 * pushed before. */
#include "btrt_pipe.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int btrt_io_load_init(struct pipe *p, struct btrt_error *err)
{
	uint32_t k = btrt_io_load_threads(p->cfg), pool = btrt_pool_size(p->cfg->pool);
	size_t cap = 1;
	while (cap < (size_t)pool + 1)
		cap <<= 1;
	p->ld = calloc(k, sizeof *p->ld);
	p->load_rc = calloc((size_t)pool + 1, 1);
	if (!p->ld || !p->load_rc)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "pipeline: out of memory");
	p->n_ld = k;
	for (uint32_t w = 0; w < k; w++) {
		struct btrt_loader *l = &p->ld[w];
		l->p = p;
		l->w = w;
		if (w == 0)
			continue;
		if (btrt_ring_spsc_init(&l->todo, cap))
			return btrt_error_set(err, BTRT_E_NOMEM, 0, "pipeline: out of memory");
		l->todo_inited = 1;
		if (btrt_ring_spsc_init(&l->done, cap))
			return btrt_error_set(err, BTRT_E_NOMEM, 0, "pipeline: out of memory");
		l->done_inited = 1;
	}
	return 0;
}

/* Loader w >= 1: its items from l->todo in seq order, loaded, back on
 * l->done with p->load_rc[slot] (1 loaded, 0 end of input). A failed load
 * stops the run (btrt_pipe_fail keeps the lowest failing seq). */
static void loader_loop(struct btrt_loader *l)
{
	struct pipe *p = l->p;
	const struct btrt_pipeline_config *cfg = p->cfg;
	for (;;) {
		void *x = btrt_ring_spsc_pop(&l->todo, &p->stop);
		if (!x || x == BTRT_EOS)
			return;
		struct btrt_task *t = x;
		if (btrt_io_interrupted(p))
			return;
		char msg[256] = "";
		uint64_t a = btrt_now_ns();
		int rc = cfg->io->load(cfg->io_state, t->seq, t, msg, sizeof msg);
		uint64_t b = btrt_now_ns(), idx = t->seq - cfg->first_seq;
		if (rc < 0) {
			struct btrt_error e;
			btrt_error_clear(&e);
			btrt_error_set(&e, BTRT_E_IO, rc, "load of task %" PRIu64 " (slot %u) failed: %s",
				       t->seq, t->slot, msg);
			e.seq = t->seq;
			btrt_pipe_fail(p, &e);
			return;
		}
		/* loader w's j-th item is idx = w + j * k */
		if (rc > 0 && idx < p->run->limit && idx / p->n_ld == l->n_rec &&
		    btrt_vec_reserve((void **)&l->rec, &l->cap_rec, l->n_rec, sizeof *l->rec) == 0)
			l->rec[l->n_rec++] = (struct btrt_rec_check){ a, b };
		p->load_rc[t->slot] = rc > 0;
		/* Never waits (the ring holds the pool). Its release store
		 * publishes the loaded buffers and load_rc to the source. */
		if (!btrt_ring_spsc_push(&l->done, t, &p->stop))
			return;
	}
}

static void *loader_main(void *arg)
{
	struct btrt_loader *l = arg;
	struct pipe *p = l->p;
	const struct btrt_pipeline_config *cfg = p->cfg;
	uint32_t th = BTRT_THREAD_LOADER(cfg, p->n_chk, l->w);
	const int *cores;
	uint32_t n;
	btrt_io_thread_cores(cfg, th, &cores, &n);
	struct btrt_error e;
	btrt_error_clear(&e);
	if (p->pin && btrt_pin_self(cores, n, &e)) {
		char tmp[sizeof e.msg];
		snprintf(tmp, sizeof tmp, "cannot pin loader %u: %.200s", l->w, e.msg);
		memcpy(e.msg, tmp, sizeof tmp);
		btrt_pipe_fail(p, &e);
		return NULL;
	}
	btrt_pipe_set_backoff(cfg, th);
	loader_loop(l);
	return NULL;
}

/* A free TaskObject: the pool's first, then the recycled ones in order
 * (the j-th from check worker j mod k_check's ring). NULL: stopped. */
static struct btrt_task *next_free(struct pipe *p, uint32_t *next, uint64_t *recycled)
{
	if (*next < btrt_pool_size(p->cfg->pool))
		return btrt_pool_task(p->cfg->pool, (*next)++);
	uint32_t w = (uint32_t)((*recycled)++ % p->n_chk);
	return btrt_ring_spsc_pop(w ? &p->chk[w].back : &p->recycle, &p->stop);
}

/* Takes the loaders' items *pushed .. upto - 1 back in order and pushes
 * them; an item whose load found the end of input ends the stream there
 * (*end). Returns 0, or -1 (stopped). */
static int collect(struct pipe *p, uint64_t *pushed, uint64_t upto, uint64_t *end)
{
	const struct btrt_pipeline_config *cfg = p->cfg;
	while (*pushed < upto && *pushed < *end) {
		uint32_t w = (uint32_t)((*pushed - cfg->first_seq) % p->n_ld);
		struct btrt_task *t = btrt_ring_spsc_pop(&p->ld[w].done, &p->stop);
		if (!t)
			return -1;
		if (!p->load_rc[t->slot]) {
			*end = *pushed;
			return 0;
		}
		if (btrt_io_source_push(p, t, t->seq))
			return -1;
		(*pushed)++;
		/* relaxed: a count for messages. */
		atomic_store_explicit(&p->loaded, *pushed, memory_order_relaxed);
	}
	return 0;
}

/* The stream with loaders; returns the seq the stream ended at, or
 * UINT64_MAX when it stopped. */
static uint64_t stream(struct pipe *p)
{
	const struct btrt_pipeline_config *cfg = p->cfg;
	uint32_t next = 0;
	uint64_t recycled = 0, s = cfg->first_seq, pushed = s, end = UINT64_MAX;
	for (;;) {
		if (btrt_io_interrupted(p))
			return UINT64_MAX;
		if (btrt_io_source_ended(p, s))
			break;
		struct btrt_task *t = next_free(p, &next, &recycled);
		if (!t)
			return UINT64_MAX;
		uint32_t w = (uint32_t)((s - cfg->first_seq) % p->n_ld);
		if (w) {
			t->seq = s;
			btrt_io_rec(p->run, s - cfg->first_seq); /* its record, filled at the end */
			/* never waits; the ring's release store hands t over */
			if (!btrt_ring_spsc_push(&p->ld[w].todo, t, &p->stop))
				return UINT64_MAX;
			s++;
			continue;
		}
		int rc = btrt_io_source_load(p, t, s);
		if (rc < 0 || collect(p, &pushed, s, &end))
			return UINT64_MAX;
		if (end != UINT64_MAX)
			return end; /* a loader found the end before s */
		if (rc == 0)
			return s;
		s++;
		if (btrt_io_source_push(p, t, t->seq))
			return UINT64_MAX;
		pushed = s;
		/* relaxed: a count for messages. */
		atomic_store_explicit(&p->loaded, s, memory_order_relaxed);
	}
	if (collect(p, &pushed, s, &end))
		return UINT64_MAX;
	return end < s ? end : s;
}

void btrt_io_source_farm(struct pipe *p)
{
	const struct btrt_pipeline_config *cfg = p->cfg;
	uint32_t started = 1;
	for (uint32_t w = 1; w < p->n_ld; w++, started++) {
		int e = pthread_create(&p->ld[w].th, NULL, loader_main, &p->ld[w]);
		if (e) {
			struct btrt_error pe;
			btrt_error_clear(&pe);
			btrt_error_set(&pe, BTRT_E_SYS, e, "pthread_create for loader %u: %s", w,
				       strerror(e));
			btrt_pipe_fail(p, &pe);
			break;
		}
		p->ld[w].started = 1;
	}
	uint64_t end = started == p->n_ld ? stream(p) : UINT64_MAX;
	if (end != UINT64_MAX) {
		/* records of items handed out past the end were never loaded */
		if (p->run->n_io > end - cfg->first_seq)
			p->run->n_io = end - cfg->first_seq;
		btrt_io_source_push(p, BTRT_EOS, end);
	}
	/* The loaders leave after what they hold (or at the stop). */
	for (uint32_t w = 1; w < p->n_ld; w++)
		if (p->ld[w].started)
			btrt_ring_spsc_push(&p->ld[w].todo, BTRT_EOS, &p->stop);
	for (uint32_t w = 1; w < p->n_ld; w++)
		if (p->ld[w].started)
			pthread_join(p->ld[w].th, NULL);
}

void btrt_io_load_finish(struct pipe *p)
{
	struct btrt_run *run = p->run;
	uint32_t k = p->n_ld;
	if (run && k > 1) {
		run->n_load = k;
		for (size_t i = 0; i < run->n_io; i++) {
			const struct btrt_loader *l = &p->ld[i % k];
			size_t j = i / k;
			if (i % k == 0 || j >= l->n_rec)
				continue;
			run->io[i].load_start = l->rec[j].start;
			run->io[i].load_end = l->rec[j].end;
		}
		struct btrt_wait_stats *src = &run->waits[BTRT_THREAD_SOURCE(p->cfg)];
		for (uint32_t w = 1; w < k; w++) {
			struct btrt_port todo = { .ring = &p->ld[w].todo },
					 done = { .ring = &p->ld[w].done };
			if (p->ld[w].todo_inited && p->ld[w].done_inited) {
				btrt_port_wait_stats(&todo, &done, src); /* the loader's */
				btrt_port_wait_stats(&done, &(struct btrt_port){ 0 }, src);
			}
		}
	}
	for (uint32_t w = 0; w < k; w++) {
		if (p->ld[w].todo_inited)
			btrt_ring_spsc_destroy(&p->ld[w].todo);
		if (p->ld[w].done_inited)
			btrt_ring_spsc_destroy(&p->ld[w].done);
		free(p->ld[w].rec);
	}
	free(p->ld);
	p->ld = NULL;
	p->n_ld = 0;
	free(p->load_rc);
	p->load_rc = NULL;
}
