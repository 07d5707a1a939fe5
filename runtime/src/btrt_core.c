/* Errors, clock, futex, and the out-of-line parts of the SPSC ring: the
 * spin phase and the blocking waits. */
#include "btrt.h"
#include "btrt_ring.h"
#include "btrt_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define btrt_cpu_relax() _mm_pause()
#elif defined(__aarch64__)
#define btrt_cpu_relax() __asm__ __volatile__("yield" ::: "memory")
#else
#define btrt_cpu_relax() ((void)0)
#endif

#define BTRT_ERR_STR_(name, val, str) case name: return str;
const char *btrt_strerror(enum btrt_errkind kind)
{
	switch (kind) {
	BTRT_ERRORS(BTRT_ERR_STR_)
	}
	return "unknown error";
}
#undef BTRT_ERR_STR_

#define BTRT_ERR_NAME_(name, val, str) case name: return #name;
const char *btrt_errname(enum btrt_errkind kind)
{
	switch (kind) {
	BTRT_ERRORS(BTRT_ERR_NAME_)
	}
	return NULL;
}
#undef BTRT_ERR_NAME_

void btrt_error_clear(struct btrt_error *err)
{
	if (!err)
		return;
	err->kind = BTRT_OK;
	err->code = 0;
	err->chunk = -1;
	err->stage = -1;
	err->seq = UINT64_MAX;
	err->msg[0] = '\0';
}

int btrt_error_set(struct btrt_error *err, enum btrt_errkind kind, int code,
		   const char *fmt, ...)
{
	if (!err)
		return -1;
	err->kind = kind;
	err->code = code;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	return -1;
}

uint64_t btrt_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int btrt_vec_reserve(void **data, size_t *cap, size_t n, size_t sz)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 1024;
	void *p = realloc(*data, nc * sz);
	if (!p)
		return -1;
	*data = p;
	*cap = nc;
	return 0;
}

/* ---- futex ------------------------------------------------------------ */

int btrt_futex_wait(void *word, uint32_t expect)
{
#ifdef __linux__
	/* Sleeps only while *word == expect (checked by the kernel atomically
	 * with queueing us), so a wake between our last check and this call
	 * is never lost. Returns on a wake, a signal (EINTR) or a mismatch
	 * (EAGAIN); every caller re-checks its condition. */
	return (int)syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expect, NULL, NULL, 0);
#else
	(void)word;
	(void)expect;
	struct timespec ts = { 0, 50000 }; /* no futex: poll every 50 us */
	return nanosleep(&ts, NULL);
#endif
}

void btrt_futex_wake(void *word, int n)
{
#ifdef __linux__
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
#else
	(void)word;
	(void)n;
#endif
}

/* ---- ring ------------------------------------------------------------- */

atomic_int btrt_ring_membarrier_;
static pthread_once_t membarrier_once = PTHREAD_ONCE_INIT;
/* btrt_ring_configure's options; relaxed: plain settings, set once. */
static atomic_int ring_no_membarrier;
static atomic_llong ring_spin_ns = -1, ring_yield_ns = -1;

void btrt_ring_configure(const struct btrt_ring_config *cfg)
{
	atomic_store_explicit(&ring_no_membarrier, cfg->no_membarrier != 0, memory_order_relaxed);
	atomic_store_explicit(&ring_spin_ns, cfg->spin_ns, memory_order_relaxed);
	atomic_store_explicit(&ring_yield_ns, cfg->yield_ns, memory_order_relaxed);
}

/* Decides, once per process, how the two sides of every ring order their
 * Dekker pairs (btrt_ring.h): membarrier if the kernel lets us register. */
static void membarrier_init(void)
{
	int ok = 0;
#if defined(__linux__) && defined(SYS_membarrier)
	/* relaxed: btrt_ring_configure happens before the first ring. */
	if (!atomic_load_explicit(&ring_no_membarrier, memory_order_relaxed)) {
		long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
		ok = cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
		     syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
	}
#endif
	/* relaxed: pthread_once orders this store before every ring use. */
	atomic_store_explicit(&btrt_ring_membarrier_, ok, memory_order_relaxed);
}

int btrt_ring_spsc_init(struct btrt_ring_spsc *r, size_t capacity)
{
	if (capacity == 0 || (capacity & (capacity - 1)) != 0) {
		errno = EINVAL;
		return -1;
	}
	pthread_once(&membarrier_once, membarrier_init);
	memset(r, 0, sizeof *r);
	r->slots = calloc(capacity, sizeof *r->slots);
	if (!r->slots) {
		errno = ENOMEM;
		return -1;
	}
	r->mask = capacity - 1;
	atomic_init(&r->head, 0);
	atomic_init(&r->tail, 0);
	atomic_init(&r->pop_sleep, 0);
	atomic_init(&r->push_sleep, 0);
	return 0;
}

void btrt_ring_spsc_destroy(struct btrt_ring_spsc *r)
{
	free(r->slots);
	r->slots = NULL;
}

static _Thread_local uint32_t thread_spin_ns = BTRT_BACKOFF_SPIN_NS;
static _Thread_local uint32_t thread_yield_ns = 0;

void btrt_backoff_set(uint32_t spin_ns, uint32_t yield_ns)
{
	thread_spin_ns = spin_ns;
	thread_yield_ns = yield_ns;
}

/* The process-wide budget *set (ns, btrt_ring_configure) if >= 0, else
 * the thread's own. */
static uint32_t budget(atomic_llong *set, uint32_t own)
{
	long long e = atomic_load_explicit(set, memory_order_relaxed);
	return e >= 0 ? (uint32_t)(e > UINT32_MAX ? UINT32_MAX : e) : own;
}

bool btrt_backoff_spin(struct btrt_backoff *b)
{
	/* The first rounds spin without reading the clock. */
	if (b->n < 64) {
		b->n++;
		btrt_cpu_relax();
		return true;
	}
	uint64_t now = btrt_now_ns();
	if (b->t0 == 0)
		b->t0 = now;
	uint64_t waited = now - b->t0;
	uint64_t spin = budget(&ring_spin_ns, thread_spin_ns);
	if (waited < spin) {
		for (int i = 0; i < 16; i++)
			btrt_cpu_relax();
		return true;
	}
	if (waited < spin + budget(&ring_yield_ns, thread_yield_ns)) {
		sched_yield();
		return true;
	}
	return false;
}

static void wake_side(_Atomic uint32_t *sleep, struct btrt_wait_stats *st)
{
	/* relaxed: the sleeper re-checks the index itself (acquire) once
	 * awake; clearing the flag first makes its futex wait return at once
	 * if it has not started sleeping yet. Only one wake per sleep. */
	if (atomic_exchange_explicit(sleep, 0, memory_order_relaxed)) {
		btrt_futex_wake(sleep, 1);
		st->wakes++;
	}
}

void btrt_ring_spsc_wake_pop_(struct btrt_ring_spsc *r)
{
	wake_side(&r->pop_sleep, &r->push_stats);
}

void btrt_ring_spsc_wake_push_(struct btrt_ring_spsc *r)
{
	wake_side(&r->push_sleep, &r->pop_stats);
}

void btrt_ring_spsc_wake(struct btrt_ring_spsc *r)
{
	/* seq_cst: a Dekker pair with a sleeper's flag store and seq_cst stop
	 * load (block_on): after the caller's seq_cst stop store, either the
	 * sleeper sees stop or this exchange sees its flag. */
	if (atomic_exchange_explicit(&r->pop_sleep, 0, memory_order_seq_cst))
		btrt_futex_wake(&r->pop_sleep, 1);
	/* seq_cst: the same for the producer's side. */
	if (atomic_exchange_explicit(&r->push_sleep, 0, memory_order_seq_cst))
		btrt_futex_wake(&r->push_sleep, 1);
}

/* membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED): 0, or -1. */
static int heavy_barrier(void)
{
#if defined(__linux__) && defined(SYS_membarrier)
	/* The call is opaque to the compiler, so it orders our accesses
	 * around it too. */
	return (int)syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
#else
	return -1;
#endif
}

static bool stopped(const atomic_int *stop)
{
	/* relaxed: stop is a hint to give up; the error itself is published
	 * under the pipeline's mutex. */
	return stop && atomic_load_explicit(stop, memory_order_relaxed);
}

/* One blocking round of a waiting side: announces the sleep in *sleep,
 * re-checks that the other side's index *peer still reads `seen` and that
 * no stop was requested, then sleeps until woken. Returns when the caller
 * should check the ring again. */
static void block_on(_Atomic uint32_t *sleep, _Atomic uint64_t *peer, uint64_t seen,
		     const atomic_int *stop, struct btrt_wait_stats *st)
{
	/* relaxed: a flag decided before the ring was shared. */
	if (atomic_load_explicit(&btrt_ring_membarrier_, memory_order_relaxed)) {
		/* relaxed: ordered by the membarrier below. */
		atomic_store_explicit(sleep, 1, memory_order_relaxed);
		/* Dekker, heavy side: a full barrier on every running thread
		 * of the process and on this one: either the other side's
		 * index store is visible to our re-load below, or its load of
		 * our flag, which follows that store, sees the 1. */
		if (heavy_barrier() != 0) {
			/* cannot order it: do not sleep, poll again */
			atomic_store_explicit(sleep, 0, memory_order_relaxed);
			sched_yield();
			return;
		}
	} else {
		/* seq_cst: Dekker with the other side's seq_cst index store
		 * and flag load (btrt_ring_spsc_publish_). */
		atomic_store_explicit(sleep, 1, memory_order_seq_cst);
	}
	/* seq_cst: the re-check of both Dekker pairs: the other side's index
	 * (above) and a stop (its store, then btrt_ring_spsc_wake's
	 * exchange of our flag). */
	if (atomic_load_explicit(peer, memory_order_seq_cst) != seen ||
	    (stop && atomic_load_explicit(stop, memory_order_seq_cst))) {
		/* relaxed: nobody needs to wake us any more. */
		atomic_store_explicit(sleep, 0, memory_order_relaxed);
		return;
	}
	st->blocks++;
	btrt_futex_wait(sleep, 1);
	/* relaxed: a waker cleared it already, or this was a signal or a
	 * spurious return; the caller checks the ring again either way. */
	atomic_store_explicit(sleep, 0, memory_order_relaxed);
}

bool btrt_ring_spsc_push(struct btrt_ring_spsc *r, void *p, const atomic_int *stop)
{
	if (btrt_ring_spsc_try_push(r, p))
		return true;
	struct btrt_wait_stats *st = &r->push_stats;
	st->waits++;
	struct btrt_backoff b;
	btrt_backoff_reset(&b);
	while (btrt_backoff_spin(&b)) {
		if (btrt_ring_spsc_try_push(r, p))
			return true;
		if (stopped(stop))
			return false;
	}
	for (;;) {
		st->polls++;
		if (btrt_ring_spsc_try_push(r, p))
			return true;
		if (stopped(stop))
			return false;
		/* Full: head is our tail minus the capacity until the consumer
		 * pops. relaxed: only this thread writes tail. */
		uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
		block_on(&r->push_sleep, &r->head, t - r->mask - 1, stop, st);
	}
}

void *btrt_ring_spsc_pop(struct btrt_ring_spsc *r, const atomic_int *stop)
{
	void *p = btrt_ring_spsc_try_pop(r);
	if (p)
		return p;
	struct btrt_wait_stats *st = &r->pop_stats;
	st->waits++;
	struct btrt_backoff b;
	btrt_backoff_reset(&b);
	while (btrt_backoff_spin(&b)) {
		if ((p = btrt_ring_spsc_try_pop(r)))
			return p;
		if (stopped(stop))
			return NULL;
	}
	for (;;) {
		st->polls++;
		if ((p = btrt_ring_spsc_try_pop(r)))
			return p;
		if (stopped(stop))
			return NULL;
		/* Empty: tail equals our head until the producer pushes.
		 * relaxed: only this thread writes head. */
		uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
		block_on(&r->pop_sleep, &r->tail, h, stop, st);
	}
}
