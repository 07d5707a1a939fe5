/* The pieces of a pipeline run that its threads share: the error stop,
 * pinning, wait budgets and the io threads' cores. Below both the
 * dispatchers (btrt_pipeline.c) and the io threads (btrt_io.c), which call
 * them; it calls neither. */
#include "btrt_pipe.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <string.h>

/* Records the first error and asks every thread to stop. */
void btrt_pipe_fail(struct pipe *p, const struct btrt_error *e)
{
	pthread_mutex_lock(&p->mu);
	if (!p->failed) {
		p->failed = 1;
		p->err = *e;
	} else if ((e->kind == BTRT_E_CHECK || e->kind == BTRT_E_IO) && p->err.kind == e->kind &&
		   e->seq < p->err.seq) {
		/* check workers (loaders) fail out of order: the lowest seq is
		 * the one a single thread, in input order, would have reported */
		p->err = *e;
	}
	pthread_mutex_unlock(&p->mu);
	/* seq_cst: the first half of the Dekker pair with a sleeping thread's
	 * flag (btrt_ring_spsc_wake); err itself is under mu, the flag only
	 * makes waiting threads give up. */
	atomic_store_explicit(&p->stop, 1, memory_order_seq_cst);
	btrt_links_wake(&p->links);
	if (p->recycle_inited)
		btrt_ring_spsc_wake(&p->recycle);
	for (uint32_t w = 1; w < p->n_chk; w++) {
		if (p->chk[w].todo_inited)
			btrt_ring_spsc_wake(&p->chk[w].todo);
		if (p->chk[w].back_inited)
			btrt_ring_spsc_wake(&p->chk[w].back);
	}
	for (uint32_t w = 1; w < p->n_ld; w++) {
		if (p->ld[w].todo_inited)
			btrt_ring_spsc_wake(&p->ld[w].todo);
		if (p->ld[w].done_inited)
			btrt_ring_spsc_wake(&p->ld[w].done);
	}
	/* Wakes the io thread if it waits for the dispatchers' setup. */
	btrt_futex_wake(&p->ready, INT_MAX);
}

void btrt_pipe_link_fail(struct pipe *p, uint32_t ci, uint64_t seq)
{
	struct btrt_error e;
	btrt_error_clear(&e);
	btrt_error_set(&e, BTRT_E_SYS, 0, "internal: farm link slot of item %" PRIu64
		       " after chunk %u still occupied", seq, ci);
	e.seq = seq;
	btrt_pipe_fail(p, &e);
}

int btrt_pin_self(const int *cores, uint32_t n, struct btrt_error *err)
{
	if (n == 0)
		return 0;
	cpu_set_t set;
	CPU_ZERO(&set);
	for (uint32_t i = 0; i < n; i++) {
		if (cores[i] < 0 || cores[i] >= CPU_SETSIZE)
			return btrt_error_set(err, BTRT_E_INVAL, cores[i], "core id %d out of range", cores[i]);
		CPU_SET(cores[i], &set);
	}
	/* sched_setaffinity(0, ...) sets the calling thread's mask on Linux and
	 * exists in bionic too (pthread_setaffinity_np does not). */
	if (sched_setaffinity(0, sizeof set, &set) != 0) {
		int rc = errno;
		return btrt_error_set(err, BTRT_E_SYS, rc,
			"sched_setaffinity(core %d, ... %u cores): %s (set BTRT_NO_PIN=1 to run unpinned)",
			cores[0], n, strerror(rc));
	}
	return 0;
}

void btrt_io_thread_cores(const struct btrt_pipeline_config *cfg, uint32_t c, const int **cores,
			  uint32_t *n)
{
	uint32_t m = cfg->n_io_cores, h = m / 2, k = btrt_io_check_threads(cfg);
	uint32_t kl = btrt_io_load_threads(cfg);
	/* loader w >= 1 is thread n_chunks + k + w: it takes the source's
	 * place, then its share of the source's cores below */
	uint32_t lw = c > BTRT_THREAD_LOADER(cfg, k, 0) ? c - BTRT_THREAD_LOADER(cfg, k, 0) : 0;
	if (lw)
		c = BTRT_THREAD_SOURCE(cfg);
	*cores = cfg->io_cores;
	*n = m;
	if (m >= 2 && k > 1 && m >= k + 1) {
		/* the sink is worker 0, checker w is thread n_chunks + 1 + w */
		uint32_t w = c == BTRT_THREAD_SINK(cfg) ? 0 : c - (cfg->n_chunks + 1);
		if (c == BTRT_THREAD_SOURCE(cfg)) {
			*n = m - k;
		} else {
			*cores = cfg->io_cores + (m - k) + w;
			*n = 1;
		}
	} else if (m >= 2) {
		if (c == BTRT_THREAD_SOURCE(cfg)) {
			*n = h;
		} else {
			*cores = cfg->io_cores + h;
			*n = m - h;
		}
	}
	/* The source's cores, with loaders: loader w (the source w = 0) on
	 * the w-th alone when there is one for each, else all share them. */
	if (c == BTRT_THREAD_SOURCE(cfg) && kl > 1 && *n >= kl) {
		*cores += lw;
		*n = 1;
	}
}

/* The cores thread c of the pipeline is pinned to (btrt_pipe.h's
 * numbering): n = 0 when unpinned. */
static void thread_cores(const struct btrt_pipeline_config *cfg, uint32_t c, const int **cores,
			 uint32_t *n)
{
	if (c < cfg->n_chunks) {
		*cores = cfg->chunks[c].cores;
		*n = cfg->chunks[c].n_cores;
	} else {
		btrt_io_thread_cores(cfg, c, cores, n);
	}
}

/* Whether thread c (a chunk's dispatcher, or an io thread: the source, the
 * sink or a check worker) shares a core with another thread of the
 * pipeline: its cores overlap another chunk's or an io thread's (the
 * source and sink share their one service core), it
 * is unpinned, or the pipeline has more threads than the process has CPUs
 * (a small dev box). */
static int shares_cores(const struct btrt_pipeline_config *cfg, uint32_t c)
{
	uint32_t n_threads = cfg->n_chunks + btrt_io_check_threads(cfg) + btrt_io_load_threads(cfg);
	cpu_set_t avail;
	if (sched_getaffinity(0, sizeof avail, &avail) == 0 && (uint32_t)CPU_COUNT(&avail) < n_threads)
		return 1;
	const int *mine;
	uint32_t n;
	thread_cores(cfg, c, &mine, &n);
	if (n == 0)
		return 1;
	for (uint32_t o = 0; o < n_threads; o++) {
		if (o == c)
			continue;
		const int *other;
		uint32_t m;
		thread_cores(cfg, o, &other, &m);
		if (o < cfg->n_chunks && m == 0)
			return 1; /* an unpinned chunk may run anywhere */
		for (uint32_t i = 0; i < n; i++)
			for (uint32_t j = 0; j < m; j++)
				if (mine[i] == other[j])
					return 1;
	}
	return 0;
}

/* Spin and yield phases of a waiting thread that shares its cores (ns):
 * spinning there only delays the thread it waits for; yielding hands it
 * the core, and blocking at once would make every handoff a wake-up
 * (2-core dev box, 3 chunks, pool 4: ~1.2 us per task per chunk with the
 * yield phase, ~7 us blocking right after the spin). */
#define BTRT_SHARED_SPIN_NS 2000u
#define BTRT_SHARED_YIELD_NS 50000u

void btrt_pipe_set_backoff(const struct btrt_pipeline_config *cfg, uint32_t c)
{
	if (shares_cores(cfg, c))
		btrt_backoff_set(BTRT_SHARED_SPIN_NS, BTRT_SHARED_YIELD_NS);
	else
		btrt_backoff_set(BTRT_BACKOFF_SPIN_NS, 0);
}

