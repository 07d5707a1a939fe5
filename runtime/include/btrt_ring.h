/* btrt_ring.h: single-producer single-consumer ring of pointers.
 *
 * The pipeline wires one ring between each pair of consecutive chunks
 * (paper Sec. III-E). Exactly one thread may push and exactly one thread may
 * pop for the lifetime of the ring; that is the `_spsc` in the names.
 *
 * Layout (after rigtorp's SPSCQueue and DPDK's rte_ring): the producer's
 * index and its cached copy of the consumer's index share one cache line, the
 * consumer's index and its cached copy of the producer's index another, and
 * the read-mostly slot pointer, mask and sleep flags a third, so the two
 * threads only exchange a line when one of them really needs the other's
 * progress. Indices run freely (they wrap at 2^64, i.e. never), a slot is
 * `index & mask`, and all `capacity` slots are usable.
 *
 * Entries are non-NULL pointers; NULL means "empty" from try_pop.
 * The fast path is inline. The blocking forms (btrt_ring_spsc_push/pop)
 * spin (and yield) for a short budget (btrt_backoff below), then block in
 * the kernel (Linux futex) until the other side pushes / pops or a stop is
 * requested (btrt_ring_spsc_wake).
 *
 * Sleeping and waking (a Dekker pair per side): a side that is about to
 * block sets its sleep flag, then re-checks the other side's index, then
 * sleeps on the flag (futex: only while it still reads 1). The other side
 * publishes its index, then reads the flag, and only when it is set clears
 * it and issues the wake system call; with nobody asleep the fast path pays
 * one load of a line it already holds. Each pair needs a store-to-load
 * barrier on both sides. With membarrier(2) available (Linux >= 4.14; the
 * first btrt_ring_spsc_init registers the process) the barrier of the fast
 * path is only a compiler barrier and the sleeping side, which is about to
 * enter the kernel anyway, issues MEMBARRIER_CMD_PRIVATE_EXPEDITED: a full
 * barrier on every running thread of the process (the asymmetric fence of
 * membarrier(2)'s man page). Without it (or with btrt_ring_config.no_membarrier) both
 * sides use seq_cst accesses, which costs the fast path a locked store. */
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
	/* Read-mostly line: slots and mask are constant after init; a sleep
	 * flag is written only by a side about to block and by the side that
	 * wakes it, so both sides keep this line cached in between. */
	_Alignas(BTRT_CACHE_LINE) void **slots;
	uint64_t mask;             /* capacity - 1 */
	_Atomic uint32_t pop_sleep;  /* 1: the consumer may be blocked (futex word) */
	_Atomic uint32_t push_sleep; /* 1: the producer may be blocked (futex word) */
	char pad_[BTRT_CACHE_LINE - sizeof(void **) - sizeof(uint64_t) - 2 * sizeof(uint32_t)];
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

/* Nonzero once btrt_ring_spsc_init registered the process for
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED); decided once, before any
 * ring is used, and never changed. Internal to the ring. */
extern atomic_int btrt_ring_membarrier_;

/* Out of line: clear the other side's sleep flag and wake it (counted in
 * the caller's side's stats). Internal to the ring. */
void btrt_ring_spsc_wake_pop_(struct btrt_ring_spsc *r);
void btrt_ring_spsc_wake_push_(struct btrt_ring_spsc *r);

/* Publishes index value v in *idx and wakes the other side if it announced
 * that it sleeps on *sleep (the fast side of the Dekker pair). */
static inline bool btrt_ring_spsc_publish_(_Atomic uint64_t *idx, uint64_t v,
					   _Atomic uint32_t *sleep)
{
	/* relaxed: a flag decided before the ring was shared. */
	if (__builtin_expect(atomic_load_explicit(&btrt_ring_membarrier_, memory_order_relaxed), 1)) {
		/* release: publishes the slot access before it to the other
		 * side's acquire load of this index. */
		atomic_store_explicit(idx, v, memory_order_release);
		/* Dekker, light side: keeps the compiler from moving the flag
		 * load above the store; the sleeper's membarrier orders the CPU. */
		atomic_signal_fence(memory_order_seq_cst);
		/* relaxed: ordered by the barrier pair above. */
		return atomic_load_explicit(sleep, memory_order_relaxed) != 0;
	}
	/* seq_cst: release as above, and a Dekker pair with the sleeper's
	 * seq_cst store of its flag and seq_cst re-load of this index: at
	 * least one of the two loads sees the other side's store. */
	atomic_store_explicit(idx, v, memory_order_seq_cst);
	/* seq_cst: the other half of that pair. */
	return atomic_load_explicit(sleep, memory_order_seq_cst) != 0;
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
	/* Publishes the slot write above to the consumer's acquire load of
	 * tail and wakes the consumer if it sleeps (see the function). */
	if (__builtin_expect(btrt_ring_spsc_publish_(&r->tail, t + 1, &r->pop_sleep), 0))
		btrt_ring_spsc_wake_pop_(r);
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
	/* Orders our read of the slot before the producer may reuse it (pairs
	 * with the producer's acquire load of head) and wakes the producer if
	 * it sleeps on a full ring. */
	if (__builtin_expect(btrt_ring_spsc_publish_(&r->head, h + 1, &r->push_sleep), 0))
		btrt_ring_spsc_wake_push_(r);
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

/* Spin phase of a wait, by elapsed time (so it behaves the same whatever a
 * pause instruction costs): pause-spin for the thread's spin budget, then
 * sched_yield for its yield budget, after which the blocking push/pop block
 * in the kernel. Defaults: spin BTRT_BACKOFF_SPIN_NS, no yield phase. */
#define BTRT_BACKOFF_SPIN_NS 20000u       /* 20 us */

struct btrt_backoff {
	uint32_t n;               /* rounds spun so far */
	uint64_t t0;              /* first clock read (ns), 0 before */
};

static inline void btrt_backoff_reset(struct btrt_backoff *b)
{
	b->n = 0;
	b->t0 = 0;
}

/* Sets the calling thread's spin and yield budgets (ns). The pipeline
 * gives dispatchers whose cores other pipeline threads share a short spin
 * and a yield phase: there spinning only delays the thread being waited
 * for, while yielding hands it the core without the cost of a wake-up.
 * btrt_ring_configure's spin_ns and yield_ns override them for every
 * thread. */
void btrt_backoff_set(uint32_t spin_ns, uint32_t yield_ns);

/* Process-wide ring options (btrt_env.h: btrt_env_ring_config fills them
 * from BTRT_NO_MEMBARRIER, BTRT_SPIN_NS and BTRT_YIELD_NS). */
struct btrt_ring_config {
	int no_membarrier;         /* 1: the seq_cst fallback for the Dekker pairs
				      even where membarrier(2) works */
	int64_t spin_ns;           /* >= 0: every thread's spin budget, ns; -1: its own */
	int64_t yield_ns;          /* >= 0: every thread's yield budget, ns; -1: its own */
};

/* Sets the process-wide ring options. Call it before the first
 * btrt_ring_spsc_init: the membarrier choice is made once, at that call,
 * and stays; the budgets apply from the next wait on. Not calling it
 * equals { 0, -1, -1 }. */
void btrt_ring_configure(const struct btrt_ring_config *cfg);

/* One round of the spin phase. Returns false, without waiting, once the
 * calling thread's budgets are spent (the caller should block). */
bool btrt_backoff_spin(struct btrt_backoff *b);

/* Blocking push/pop: spin, then block until the other side makes room /
 * pushes. They give up and return false / NULL as soon as *stop (if stop
 * is non-NULL) reads nonzero: set it with a seq_cst store (atomic_store)
 * and then call btrt_ring_spsc_wake, which is how the pipeline stops
 * promptly on an error. */
bool btrt_ring_spsc_push(struct btrt_ring_spsc *r, void *p,
			 const atomic_int *stop);
void *btrt_ring_spsc_pop(struct btrt_ring_spsc *r, const atomic_int *stop);

/* Wakes both sides of r if they are blocked, so that they re-check their
 * stop flag. Any thread may call it, after its seq_cst store of that flag.
 * Not counted in the stats. */
void btrt_ring_spsc_wake(struct btrt_ring_spsc *r);

#ifdef __cplusplus
}
#endif
#endif
