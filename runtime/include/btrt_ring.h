/* btrt_ring.h: single-producer single-consumer ring of pointers.
 *
 * The pipeline wires one ring between each pair of consecutive chunks
 * (paper Sec. III-E). Exactly one thread may push and exactly one thread may
 * pop for the lifetime of the ring; that is the `_spsc` in the names.
 *
 * Layout (after rigtorp's SPSCQueue and DPDK's rte_ring): the producer's
 * index and its cached copy of the consumer's index share one cache line, the
 * consumer's index and its cached copy of the producer's index another, and
 * the read-only slot pointer and mask a third, so the two threads only
 * exchange a line when one of them really needs the other's progress.
 * Indices run freely (they wrap at 2^64, i.e. never), a slot is
 * `index & mask`, and all `capacity` slots are usable.
 *
 * Entries are non-NULL pointers; NULL means "empty" from try_pop.
 * The fast path is inline; the blocking forms (btrt_ring_spsc_push/pop) spin,
 * then yield, then sleep with a bounded backoff (btrt_backoff below). */
#ifndef BTRT_RING_H
#define BTRT_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BTRT_CACHE_LINE 64

/* How one side of a ring waited, counted by that side's thread (plain
 * counters: read them after the thread is joined). Only the blocking
 * btrt_ring_spsc_push/pop count; the counts do not depend on how fast the
 * machine is, only on how often the ring ran empty (full). */
struct btrt_wait_stats {
	uint64_t waits;            /* push/pop calls that found the ring full/empty */
	uint64_t polls;            /* checks of the ring after the spin phase */
	uint64_t blocks;           /* times the thread blocked in the kernel */
	uint64_t wakes;            /* wake-ups it issued to the other side */
};

struct btrt_ring_spsc {
	/* Producer line: written by the producer only. */
	_Alignas(BTRT_CACHE_LINE) _Atomic uint64_t tail; /* next slot to fill */
	uint64_t head_cache;       /* producer's last view of head */
	struct btrt_wait_stats push_stats;
	/* Consumer line: written by the consumer only. */
	_Alignas(BTRT_CACHE_LINE) _Atomic uint64_t head; /* next slot to drain */
	uint64_t tail_cache;       /* consumer's last view of tail */
	struct btrt_wait_stats pop_stats;
	/* Read-only after init. */
	_Alignas(BTRT_CACHE_LINE) void **slots;
	uint64_t mask;             /* capacity - 1 */
	char pad_[BTRT_CACHE_LINE - sizeof(void **) - sizeof(uint64_t)];
};

/* Initialises r with room for `capacity` pointers; capacity must be a power
 * of two >= 1. Allocates the slot array (freed by btrt_ring_spsc_destroy).
 * Returns 0, or -1 (EINVAL capacity, ENOMEM) with errno set. Not
 * thread-safe: initialise before starting the two threads. */
int btrt_ring_spsc_init(struct btrt_ring_spsc *r, size_t capacity);
void btrt_ring_spsc_destroy(struct btrt_ring_spsc *r);

static inline size_t btrt_ring_spsc_capacity(const struct btrt_ring_spsc *r)
{
	return (size_t)r->mask + 1;
}

/* Producer only. Returns true if p (non-NULL) was stored, false if full. */
static inline bool btrt_ring_spsc_try_push(struct btrt_ring_spsc *r, void *p)
{
	/* relaxed: only this thread writes tail. */
	uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
	if (t - r->head_cache > r->mask) {
		/* acquire: pairs with the consumer's release store of head, so the
		 * consumer's read of the slot we are about to overwrite is done. */
		r->head_cache = atomic_load_explicit(&r->head, memory_order_acquire);
		if (t - r->head_cache > r->mask)
			return false;
	}
	r->slots[t & r->mask] = p;
	/* release: publishes the slot write above to the consumer's acquire
	 * load of tail. */
	atomic_store_explicit(&r->tail, t + 1, memory_order_release);
	return true;
}

/* Consumer only. Returns the oldest pointer, or NULL if the ring is empty. */
static inline void *btrt_ring_spsc_try_pop(struct btrt_ring_spsc *r)
{
	/* relaxed: only this thread writes head. */
	uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
	if (h == r->tail_cache) {
		/* acquire: pairs with the producer's release store of tail, so the
		 * slot contents written before it are visible here. */
		r->tail_cache = atomic_load_explicit(&r->tail, memory_order_acquire);
		if (h == r->tail_cache)
			return NULL;
	}
	void *p = r->slots[h & r->mask];
	/* release: orders our read of the slot before the producer may reuse
	 * it (pairs with the producer's acquire load of head). */
	atomic_store_explicit(&r->head, h + 1, memory_order_release);
	return p;
}

/* Approximate number of entries; exact when called by either endpoint while
 * the other is idle. */
static inline size_t btrt_ring_spsc_size(struct btrt_ring_spsc *r)
{
	uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
	uint64_t t = atomic_load_explicit(&r->tail, memory_order_acquire);
	return (size_t)(t - h);
}

/* Bounded backoff for waiting on an empty or full ring, by elapsed time
 * (so it behaves the same whatever a pause instruction costs): pause-spin
 * for BTRT_BACKOFF_SPIN_NS, then sched_yield until BTRT_BACKOFF_YIELD_NS,
 * then nanosleep doubling from 1 us up to BTRT_BACKOFF_MAX_SLEEP_NS. A
 * stop request is therefore seen within about 200 us, and an idle pipeline
 * costs almost no CPU. */
#define BTRT_BACKOFF_SPIN_NS 20000u       /* 20 us */
#define BTRT_BACKOFF_YIELD_NS 200000u     /* 200 us */
#define BTRT_BACKOFF_MAX_SLEEP_NS 200000u /* 200 us */

struct btrt_backoff {
	uint32_t n;               /* rounds waited so far */
	uint32_t sleep_ns;        /* next sleep, once sleeping */
	uint64_t t0;              /* first clock read (ns), 0 before */
};

static inline void btrt_backoff_reset(struct btrt_backoff *b)
{
	b->n = 0;
	b->sleep_ns = 0;
	b->t0 = 0;
}

/* Sets the calling thread's spin phase (ns; BTRT_BACKOFF_SPIN_NS by
 * default). The pipeline shortens it for dispatchers whose cores other
 * pipeline threads share, where spinning only delays the thread it waits
 * for. The environment variable BTRT_SPIN_NS overrides both. */
void btrt_backoff_set_spin(uint32_t spin_ns);

/* One round of waiting (out of line: it may enter the kernel). Returns
 * nonzero when the round yielded or slept (past the spin phase). */
int btrt_backoff_wait(struct btrt_backoff *b);

/* Blocking push/pop with backoff. They give up and return false / NULL as
 * soon as *stop (if stop is non-NULL) reads nonzero, which is how the
 * pipeline stops promptly on an error. */
bool btrt_ring_spsc_push(struct btrt_ring_spsc *r, void *p,
			 const atomic_int *stop);
void *btrt_ring_spsc_pop(struct btrt_ring_spsc *r, const atomic_int *stop);

#ifdef __cplusplus
}
#endif
#endif
