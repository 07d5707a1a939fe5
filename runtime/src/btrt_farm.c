/* Farm links (btrt_farm.h): sequence-indexed slots between a replicated
 * chunk and its neighbours, with claim-based self-scheduling and an
 * eventcount for blocking waits; the ports of the pipeline's threads, and
 * the wiring of a pipeline's rings and farm links. */
#include "btrt_farm.h"
#include "btrt_internal.h"

#include "btrt_model.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

char btrt_eos_[2];

int btrt_farm_link_init(struct btrt_farm_link *l, size_t capacity, uint32_t n_consumers)
{
	if (capacity == 0 || (capacity & (capacity - 1)) != 0 || n_consumers == 0 ||
	    n_consumers >= capacity) {
		errno = EINVAL;
		return -1;
	}
	l->slots = calloc(capacity, sizeof *l->slots);
	l->worker_ns = calloc(n_consumers, sizeof *l->worker_ns);
	if (!l->slots || !l->worker_ns) {
		free((void *)l->slots);
		free((void *)l->worker_ns);
		l->slots = NULL;
		l->worker_ns = NULL;
		errno = ENOMEM;
		return -1;
	}
	for (uint32_t w = 0; w < n_consumers; w++)
		atomic_init(&l->worker_ns[w], 0);
	atomic_init(&l->eos, UINT64_MAX);
	atomic_init(&l->idle, 0);
	l->cover = 0;
	for (size_t i = 0; i < capacity; i++)
		atomic_init(&l->slots[i], NULL);
	l->mask = capacity - 1;
	l->n_consumers = n_consumers;
	atomic_init(&l->claim, 0);
	atomic_init(&l->epoch, 0);
	atomic_init(&l->sleepers, 0);
	return 0;
}

void btrt_farm_link_destroy(struct btrt_farm_link *l)
{
	free((void *)l->slots);
	free((void *)l->worker_ns);
	l->slots = NULL;
	l->worker_ns = NULL;
}

/* Producer half of the eventcount: after a slot store. */
static void notify(struct btrt_farm_link *l)
{
	/* seq_cst: Dekker pair with a consumer's seq_cst sleepers increment,
	 * epoch load and slot re-load (btrt_farm_link_take): either it sees
	 * the slot (this RMW also releases the slot store to its epoch load)
	 * or this thread sees it among the sleepers, or its futex wait sees
	 * the new epoch. */
	atomic_fetch_add_explicit(&l->epoch, 1, memory_order_seq_cst);
	/* seq_cst: the other half of that pair. */
	if (atomic_load_explicit(&l->sleepers, memory_order_seq_cst))
		btrt_futex_wake(&l->epoch, INT_MAX);
}

static int store(struct btrt_farm_link *l, uint64_t seq, void *x)
{
	void *_Atomic *s = &l->slots[seq & l->mask];
	/* acquire: pairs with the last consumer's release store of NULL, so
	 * its read of the slot is done before we reuse it. */
	if (atomic_load_explicit(s, memory_order_acquire) != NULL)
		return -1;
	/* release: publishes the task (its buffers, its seq) to the
	 * consumer's acquire load of the slot. */
	atomic_store_explicit(s, x, memory_order_release);
	return 0;
}

int btrt_farm_link_put(struct btrt_farm_link *l, uint64_t seq, void *x)
{
	if (store(l, seq, x))
		return -1;
	notify(l);
	return 0;
}

int btrt_farm_link_put_eos(struct btrt_farm_link *l, uint64_t n)
{
	for (uint32_t i = 0; i < l->n_consumers; i++)
		if (store(l, n + i, i == 0 ? BTRT_EOS : BTRT_EOS_EXTRA))
			return -1;
	/* release: the markers are stored before an idle worker, seeing
	 * eos, claims one (admitted()'s acquire load). */
	atomic_store_explicit(&l->eos, n, memory_order_release);
	notify(l);
	return 0;
}

uint64_t btrt_farm_link_claim(struct btrt_farm_link *l)
{
	/* relaxed: a ticket; the task itself is published through its slot. */
	return atomic_fetch_add_explicit(&l->claim, 1, memory_order_relaxed);
}

static int stopped(const atomic_int *stop)
{
	/* relaxed: a hint to give up (the error is published under a mutex). */
	return stop && atomic_load_explicit(stop, memory_order_relaxed);
}

void *btrt_farm_link_take(struct btrt_farm_link *l, uint64_t seq, const atomic_int *stop,
			  struct btrt_wait_stats *st)
{
	void *_Atomic *s = &l->slots[seq & l->mask];
	/* acquire: pairs with the producer's release store of the slot. */
	void *x = atomic_load_explicit(s, memory_order_acquire);
	if (!x) {
		st->waits++;
		struct btrt_backoff b;
		btrt_backoff_reset(&b);
		while (btrt_backoff_spin(&b)) {
			/* acquire: as above. */
			if ((x = atomic_load_explicit(s, memory_order_acquire)))
				break;
			if (stopped(stop))
				return NULL;
		}
		while (!x) {
			st->polls++;
			if (stopped(stop))
				return NULL;
			/* seq_cst: announce, read the eventcount, re-check slot
			 * and stop: the consumer half of the Dekker pairs with
			 * notify() and btrt_farm_link_wake(). */
			atomic_fetch_add_explicit(&l->sleepers, 1, memory_order_seq_cst);
			uint32_t e = atomic_load_explicit(&l->epoch, memory_order_seq_cst);
			x = atomic_load_explicit(s, memory_order_seq_cst);
			if (!x && !(stop && atomic_load_explicit(stop, memory_order_seq_cst))) {
				st->blocks++;
				btrt_futex_wait(&l->epoch, e); /* sleeps only while epoch == e */
			}
			/* relaxed: a stale count costs at most a spurious wake. */
			atomic_fetch_sub_explicit(&l->sleepers, 1, memory_order_relaxed);
			if (!x)
				/* acquire: as above (after a wake-up). */
				x = atomic_load_explicit(s, memory_order_acquire);
		}
	}
	/* release: our read of the slot is done before a producer reuses it
	 * (its acquire load of NULL in store()). */
	atomic_store_explicit(s, NULL, memory_order_release);
	return x;
}

void btrt_farm_link_wake(struct btrt_farm_link *l)
{
	/* seq_cst: after the caller's seq_cst stop store: a consumer that
	 * read the old epoch either sees the stop or is woken here. */
	atomic_fetch_add_explicit(&l->epoch, 1, memory_order_seq_cst);
	btrt_futex_wake(&l->epoch, INT_MAX);
}

/* ---- admission (btrt_farm.h) ------------------------------------------- */

/* Whether worker w of l may take a task now: unmeasured, the fastest
 * measured worker, or t_w * R_others <= cover (btrt_farm_admits, over the
 * other workers that are measured and not idle). */
static int admitted(const struct btrt_farm_link *l, uint32_t w)
{
	/* relaxed: published times and idle bits are estimates; nothing is
	 * published with them (a stale one costs one decision). */
	uint64_t mine = atomic_load_explicit(&l->worker_ns[w], memory_order_relaxed);
	if (mine == 0)
		return 1;
	uint32_t idle = atomic_load_explicit(&l->idle, memory_order_relaxed);
	double rate = 0; /* tasks per ns */
	int fastest = 1;
	for (uint32_t v = 0; v < l->n_consumers; v++) {
		if (v == w)
			continue;
		uint64_t t = atomic_load_explicit(&l->worker_ns[v], memory_order_relaxed);
		if (t == 0)
			continue;
		if (t < mine || (t == mine && v < w))
			fastest = 0;
		if (!(v < 32 && ((idle >> v) & 1u)))
			rate += 1.0 / (double)t;
	}
	return fastest || btrt_farm_admits((double)mine, rate, l->cover);
}

void btrt_port_task_time(struct btrt_port *in, uint64_t ns)
{
	struct btrt_farm_link *l = in->link;
	if (!l || l->n_consumers < 2)
		return;
	if (ns == 0)
		ns = 1;
	/* The first task is a warm-up (caches, GPU module loads): not
	 * averaged. Then an exponential average with weight 1/4. */
	if (in->n_timed++ == 0)
		return;
	/* relaxed: only this worker writes its time. */
	uint64_t t = atomic_load_explicit(&l->worker_ns[in->worker], memory_order_relaxed);
	t = t ? (3 * t + ns) / 4 : ns;
	atomic_store_explicit(&l->worker_ns[in->worker], t ? t : 1, memory_order_relaxed);
}

static void set_idle(struct btrt_farm_link *l, uint32_t w, int on)
{
	if (w >= 32)
		return;
	/* relaxed: see admitted(). */
	if (on)
		atomic_fetch_or_explicit(&l->idle, 1u << w, memory_order_relaxed);
	else
		atomic_fetch_and_explicit(&l->idle, ~(1u << w), memory_order_relaxed);
}

/* Waits until worker `in` is admitted (returns 0), or claims an end
 * marker for it while it is idle (returns 1, *seq set), or -1 once *stop
 * reads nonzero. */
static int admit_wait(struct btrt_port *in, const atomic_int *stop, uint64_t *seq)
{
	struct btrt_farm_link *l = in->link;
	uint32_t w = in->worker;
	for (;;) {
		uint64_t now = 0;
		if (admitted(l, w))
			break;
		now = btrt_now_ns();
		if (!in->idle_since) {
			in->idle_since = now;
			in->idle_spells++;
			set_idle(l, w, 1);
		}
		/* relaxed: see admitted(). */
		uint64_t mine = atomic_load_explicit(&l->worker_ns[w], memory_order_relaxed);
		if (now - in->idle_since > (uint64_t)BTRT_FARM_PROBE_TASKS * mine)
			break; /* retry one task: its time may have changed */
		/* acquire: pairs with put_eos's release store (markers stored). */
		uint64_t n = atomic_load_explicit(&l->eos, memory_order_acquire);
		/* relaxed: a ticket, as in btrt_farm_link_claim. */
		uint64_t c = atomic_load_explicit(&l->claim, memory_order_relaxed);
		if (n != UINT64_MAX && c >= n) {
			if (atomic_compare_exchange_strong_explicit(&l->claim, &c, c + 1,
								    memory_order_relaxed,
								    memory_order_relaxed)) {
				*seq = c;
				return 1;
			}
			continue;
		}
		if (stopped(stop))
			return -1;
		struct timespec ts = { 0, BTRT_FARM_IDLE_NS };
		nanosleep(&ts, NULL);
	}
	if (in->idle_since) {
		in->idle_since = 0;
		set_idle(l, w, 0);
	}
	return 0;
}

/* ---- ports -------------------------------------------------------------- */

void *btrt_port_pop(struct btrt_port *in, const atomic_int *stop, uint64_t *seq)
{
	if (in->ring) {
		/* A ring carries items 0, 1, ... in order, then the marker. */
		void *x = btrt_ring_spsc_pop(in->ring, stop);
		if (x) {
			*seq = in->popped;
			if (x != BTRT_EOS)
				in->popped++;
		}
		return x;
	}
	if (in->link->n_consumers > 1) {
		int a = admit_wait(in, stop, seq);
		if (a < 0)
			return NULL;
		if (a > 0) /* an end marker, already stored */
			return btrt_farm_link_take(in->link, *seq, stop, &in->link_stats);
	}
	*seq = btrt_farm_link_claim(in->link);
	return btrt_farm_link_take(in->link, *seq, stop, &in->link_stats);
}

int btrt_port_push(struct btrt_port *out, void *x, uint64_t seq, const atomic_int *stop)
{
	if (out->ring)
		return btrt_ring_spsc_push(out->ring, x, stop) ? 0 : -1;
	int rc = x == BTRT_EOS ? btrt_farm_link_put_eos(out->link, seq)
			       : btrt_farm_link_put(out->link, seq, x);
	return rc ? -2 : 0;
}

static void add_stats(struct btrt_wait_stats *sum, const struct btrt_wait_stats *s)
{
	sum->waits += s->waits;
	sum->polls += s->polls;
	sum->blocks += s->blocks;
	sum->wakes += s->wakes;
}

void btrt_port_wait_stats(const struct btrt_port *in, const struct btrt_port *out,
			  struct btrt_wait_stats *sum)
{
	add_stats(sum, in->ring ? &in->ring->pop_stats : &in->link_stats);
	if (out->ring)
		add_stats(sum, &out->ring->push_stats);
}

/* ---- the links of a pipeline ------------------------------------------ */

int btrt_same_farm(const struct btrt_pipeline_config *cfg, uint32_t i)
{
	return i > 0 && cfg->chunks[i].farm != 0 && cfg->chunks[i].farm == cfg->chunks[i - 1].farm;
}

/* Sets up link g's ring or farm link; width[g]: the threads that consume
 * it, width[g - 1]: those that produce it. */
static int link_init(struct btrt_links *l, uint32_t g, const uint32_t *width, size_t ring_cap,
		     size_t link_cap)
{
	l->is_farm[g] = width[g] > 1 || (g > 0 && width[g - 1] > 1);
	int rc = l->is_farm[g] ? btrt_farm_link_init(&l->links[g], link_cap, width[g])
			       : btrt_ring_spsc_init(&l->rings[g], ring_cap);
	l->inited[g] = rc == 0;
	return rc;
}

int btrt_links_create(struct btrt_links *l, const struct btrt_pipeline_config *cfg,
		      struct btrt_error *err)
{
	uint32_t nc = cfg->n_chunks, ng = 0;
	for (uint32_t i = 0; i < nc; i++)
		ng += !btrt_same_farm(cfg, i);
	memset(l, 0, sizeof *l);
	l->n_groups = ng;
	l->rings = calloc(ng + 1, sizeof *l->rings);
	l->links = calloc(ng + 1, sizeof *l->links);
	l->is_farm = calloc(ng + 1, 1);
	l->inited = calloc(ng + 1, 1);
	l->in = calloc(nc + 1, sizeof *l->in);
	l->out = calloc(nc + 1, sizeof *l->out);
	uint32_t *width = calloc(ng + 1, sizeof *width);
	int rc = -1;
	if (!l->rings || !l->links || !l->is_farm || !l->inited || !l->in || !l->out || !width)
		goto out;
	uint32_t g = 0, max_width = 1;
	for (uint32_t i = 0; i < nc; i++) {
		g += i > 0 && !btrt_same_farm(cfg, i);
		if (++width[g] > max_width)
			max_width = width[g];
	}
	width[ng] = 1; /* the io thread */
	/* Rings hold the pool plus the end marker; farm links a window of
	 * pool + consumers sequence numbers. */
	size_t pool = btrt_pool_size(cfg->pool), ring_cap = 1, link_cap = 1;
	while (ring_cap < pool + 1)
		ring_cap <<= 1;
	while (link_cap < pool + max_width + 1)
		link_cap <<= 1;
	for (g = 0; g <= ng; g++)
		if (link_init(l, g, width, ring_cap, link_cap))
			goto out;
	/* Group g (chunk i's) reads link g and writes link g + 1; the io
	 * thread (i == nc) reads link ng and writes link 0. */
	/* Sequence numbers start at cfg->first_seq (an adaptive run's later
	 * segment, btrt_adapt.h): farm consumers claim from there, and ring
	 * consumers count their pops from there. */
	for (g = 0; g <= ng; g++)
		if (l->is_farm[g])
			atomic_store_explicit(&l->links[g].claim, cfg->first_seq, memory_order_relaxed);
	/* Admission cover: the TaskObjects beyond one per position (the
	 * loaders, the chunk entries, the check workers). */
	double cover = btrt_model_farm_cover((uint32_t)pool, nc, btrt_io_load_threads(cfg),
					     btrt_io_check_threads(cfg));
	for (g = 0; g <= ng; g++)
		if (l->is_farm[g])
			l->links[g].cover = cover;
	g = 0;
	uint32_t worker = 0;
	for (uint32_t i = 0; i <= nc; i++) {
		l->in[i].popped = cfg->first_seq;
		worker = i > 0 && i < nc && btrt_same_farm(cfg, i) ? worker + 1 : 0;
		l->in[i].worker = worker;
		g += i > 0 && i < nc && !btrt_same_farm(cfg, i);
		uint32_t li = i < nc ? g : ng, lo = i < nc ? g + 1 : 0;
		if (l->is_farm[li])
			l->in[i].link = &l->links[li];
		else
			l->in[i].ring = &l->rings[li];
		if (l->is_farm[lo])
			l->out[i].link = &l->links[lo];
		else
			l->out[i].ring = &l->rings[lo];
	}
	rc = 0;
out:
	free(width);
	if (rc)
		btrt_error_set(err, BTRT_E_NOMEM, 0, "pipeline: out of memory");
	return rc;
}

void btrt_links_wake(struct btrt_links *l)
{
	for (uint32_t g = 0; l->inited && g <= l->n_groups; g++) {
		if (!l->inited[g])
			continue;
		if (l->is_farm[g])
			btrt_farm_link_wake(&l->links[g]);
		else
			btrt_ring_spsc_wake(&l->rings[g]);
	}
}

void btrt_links_destroy(struct btrt_links *l)
{
	for (uint32_t g = 0; l->inited && g <= l->n_groups; g++) {
		if (!l->inited[g])
			continue;
		if (l->is_farm[g])
			btrt_farm_link_destroy(&l->links[g]);
		else
			btrt_ring_spsc_destroy(&l->rings[g]);
	}
	free(l->rings);
	free(l->links);
	free(l->is_farm);
	free(l->inited);
	free(l->in);
	free(l->out);
	memset(l, 0, sizeof *l);
}
