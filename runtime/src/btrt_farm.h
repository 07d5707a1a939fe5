/* Farm links: the queues around a replicated chunk (a farm, issue 16).
 * Internal to the runtime (not installed).
 *
 * A farm is a range of stages served by several workers (chunk entries of
 * the same btrt_chunk.farm id, each on its own PU): whichever worker is
 * free takes the next task (dynamic self-scheduling) and the chunk after
 * the farm (or the io thread) receives the tasks in input order. Every
 * link that a farm feeds or drains is a farm link instead of an SPSC ring.
 *
 * A farm link is a table of slots indexed by the task's sequence number
 * (seq & mask), one atomic pointer each (NULL: empty):
 *
 * - Producers (one thread, or every worker of the farm before the link)
 *   store task t into slot t->seq. Tasks may arrive in any order; each seq
 *   is written exactly once.
 * - Consumers (one thread, or every worker of the farm after the link)
 *   claim sequence numbers in order with one fetch-add on `claim` (the
 *   self-scheduling: a free worker claims the next task, whoever it is) and
 *   wait until their slot is filled. A single consumer thus receives the
 *   tasks in input order whatever order the producers finished them in:
 *   the reorder step costs no thread and no buffer beyond the slots.
 * - End of stream: the producer that forwards it stores one end marker per
 *   consumer at seq n, n+1, ... (n = the number of items): every consumer
 *   claims exactly one of them, since each claims once more after its last
 *   task. The marker at n is BTRT_EOS (forwarded by whoever gets it),
 *   the others BTRT_EOS_EXTRA (the consumer just leaves).
 * - Capacity: the io thread loads item s only once item s - pool is
 *   checked, so the occupied slots of a link always hold seqs within a
 *   window of pool + consumers < capacity: two never share a slot. A
 *   producer that finds its slot occupied reports an internal error
 *   instead of overwriting it (its acquire load of the empty slot also
 *   orders the previous consumer's read before the slot's reuse).
 * - Waiting: a consumer spins (btrt_backoff), then blocks on the futex
 *   word `epoch`, which every store bumps (an eventcount): the consumer
 *   announces itself in `sleepers`, reads `epoch`, re-checks its slot and
 *   the stop flag, and sleeps only while `epoch` is unchanged; a producer
 *   stores the slot, bumps `epoch` and wakes only if `sleepers` is nonzero.
 *   All four accesses of that Dekker pair are seq_cst: one locked
 *   instruction per task, negligible next to a chunk's work (the SPSC
 *   rings of ordinary chunks keep their membarrier fast path).
 * - Stop: btrt_farm_link_wake (after the seq_cst store of the stop flag)
 *   bumps `epoch` and wakes every sleeper, which then sees the flag.
 *
 * - Admission (btrt_model.h, docs/runtime.md "Farms: the pool and
 *   admission"): the delivery is in order, so while a slow worker holds
 *   the oldest task the others can only run ahead as far as the pool's
 *   spare TaskObjects (cover W = pool - positions: the loaders, the chunk
 *   entries and the check workers, btrt_model_farm_cover) reach. Each worker
 *   publishes its task time (an average over its tasks after the first,
 *   the warm-up) in `worker_ns`; before claiming, a worker whose time t_w
 *   gives t_w * R_others > W (R_others: the summed rates of the other
 *   active workers) takes no task: it is idle (its bit in `idle`), polls
 *   its admission every BTRT_FARM_IDLE_NS, and claims only an end marker
 *   (a compare-exchange on `claim` once `eos` is known and every item
 *   is claimed), so the farm runs on the others alone. The fastest
 *   measured worker is always admitted, and an idle worker retries one
 *   task after BTRT_FARM_PROBE_TASKS of its own task times (its time may
 *   have been a warm-up's).
 *
 * Lock-free: a claim is one fetch-add, a store or a take one atomic
 * access plus the eventcount; no thread ever waits for another one's
 * progress except for the task it claimed. */
#ifndef BTRT_FARM_H
#define BTRT_FARM_H

#include "btrt.h"
#include "btrt_pipeline.h"
#include "btrt_ring.h"

#include <stdatomic.h>
#include <stdint.h>

/* End-of-stream markers: BTRT_EOS follows the last item through every
 * ring and link; BTRT_EOS_EXTRA are the further copies of a farm link
 * (one per extra consumer). */
extern char btrt_eos_[2];
#define BTRT_EOS ((void *)&btrt_eos_[0])
#define BTRT_EOS_EXTRA ((void *)&btrt_eos_[1])

struct btrt_farm_link {
	/* Consumers' line: the next seq to claim (fetch-add). */
	_Alignas(BTRT_CACHE_LINE) _Atomic uint64_t claim;
	/* Eventcount line: bumped after every store; futex word. */
	_Alignas(BTRT_CACHE_LINE) _Atomic uint32_t epoch;
	_Atomic uint32_t sleepers;        /* consumers about to block or blocked */
	/* Admission line: read by every consumer before a claim. */
	_Alignas(BTRT_CACHE_LINE) _Atomic uint64_t eos; /* UINT64_MAX until the end
					     markers are stored, then the items */
	_Atomic uint32_t idle;            /* bit w: consumer w takes no tasks */
	/* Read-only after init. */
	_Alignas(BTRT_CACHE_LINE) void *_Atomic *slots; /* [mask + 1] */
	_Atomic uint64_t *worker_ns;      /* [n_consumers] each consumer's task
					     time (ns, average), 0: unmeasured */
	uint64_t mask;                    /* capacity - 1 */
	uint32_t n_consumers;             /* end markers to store */
	double cover;                     /* W: TaskObjects the workers may run
					     ahead of the oldest (pool -
					     positions, btrt_model_farm_cover);
					     set by btrt_links_create */
};

/* An idle worker's poll period and its retry interval, in its own task
 * times. */
#define BTRT_FARM_IDLE_NS 200000u
#define BTRT_FARM_PROBE_TASKS 256u

/* Initialises l with `capacity` slots (a power of two, more than the pool
 * plus n_consumers) for n_consumers >= 1 consuming threads. Returns 0, or
 * -1 with errno set (EINVAL, ENOMEM). Not thread-safe. */
int btrt_farm_link_init(struct btrt_farm_link *l, size_t capacity, uint32_t n_consumers);
void btrt_farm_link_destroy(struct btrt_farm_link *l);

/* Stores x (a task, never NULL or a marker) as item seq and wakes waiting
 * consumers. Any producer thread. Returns 0, or -1 if the slot is still
 * occupied (an internal error: the capacity rule above was broken). */
int btrt_farm_link_put(struct btrt_farm_link *l, uint64_t seq, void *x);

/* Stores the end of stream after n items (markers at n .. n +
 * n_consumers - 1). Returns 0 or -1 as btrt_farm_link_put. */
int btrt_farm_link_put_eos(struct btrt_farm_link *l, uint64_t n);

/* Claims the next sequence number (consumers; each claim is taken by
 * exactly one btrt_farm_link_take). */
uint64_t btrt_farm_link_claim(struct btrt_farm_link *l);

/* Waits until item seq is stored, empties its slot and returns it (a task
 * or a marker); NULL once *stop reads nonzero. Counts the wait in st
 * (waits, polls after the spin phase, blocks). */
void *btrt_farm_link_take(struct btrt_farm_link *l, uint64_t seq, const atomic_int *stop,
			  struct btrt_wait_stats *st);

/* Wakes every consumer blocked on l so that it re-checks its stop flag;
 * call after the seq_cst store of the flag. Any thread. */
void btrt_farm_link_wake(struct btrt_farm_link *l);

/* One end of a link as its thread sees it: an SPSC ring (ordinary
 * neighbours) or a farm link (a farm on either side). */
struct btrt_port {
	struct btrt_ring_spsc *ring;
	struct btrt_farm_link *link;
	uint64_t popped;                  /* consumer of a ring: items popped so far */
	struct btrt_wait_stats link_stats; /* consumer of a farm link: its waits */
	/* Consumer of a farm link with several consumers (a farm worker): */
	uint32_t worker;                  /* its index among the consumers */
	uint64_t n_timed;                 /* tasks timed (the first is not averaged) */
	uint64_t idle_since;              /* btrt_now_ns when it went idle, or 0 */
	uint64_t idle_spells;             /* times it was left idle */
};

/* Pops the next item of `in` (its consumer thread only; a farm worker
 * first waits until it is admitted, or claims an end marker): a task, BTRT_EOS
 * (the end of stream: forward it), BTRT_EOS_EXTRA (another worker of the
 * farm forwards it: leave), or NULL once *stop reads nonzero. *seq: the
 * item's sequence number (for BTRT_EOS: the number of items). */
void *btrt_port_pop(struct btrt_port *in, const atomic_int *stop, uint64_t *seq);

/* A farm worker's report after running a task for ns nanoseconds (its
 * consumer thread; a no-op on a ring or a single consumer's link): updates
 * its published task time, which admission reads. */
void btrt_port_task_time(struct btrt_port *in, uint64_t ns);

/* Pushes task x as item seq, or BTRT_EOS after seq items, into `out`.
 * Returns 0; -1 when stopped; -2 when a farm link's slot is occupied (an
 * internal error). Never waits: rings hold the pool plus the marker. */
int btrt_port_push(struct btrt_port *out, void *x, uint64_t seq, const atomic_int *stop);

/* Adds the waits of the thread that pops `in` and pushes `out` to *sum. */
void btrt_port_wait_stats(const struct btrt_port *in, const struct btrt_port *out,
			  struct btrt_wait_stats *sum);

/* Whether chunk i of cfg is a further worker of chunk i - 1's farm (the
 * same nonzero btrt_chunk.farm id). */
int btrt_same_farm(const struct btrt_pipeline_config *cfg, uint32_t i);

/* The links of a pipeline. The chunk table falls into groups: an ordinary
 * chunk, or the workers of a farm. Link g feeds group g, link n_groups the
 * io thread, which feeds link 0. A link is an SPSC ring (capacity: the
 * pool plus the end marker), or a farm link where a farm is on either side
 * (capacity: pool + its consumers, btrt_farm.h). in[c] / out[c] are chunk
 * c's ends, in[n_chunks] / out[n_chunks] the io thread's. */
struct btrt_links {
	uint32_t n_groups;
	struct btrt_ring_spsc *rings;     /* [n_groups + 1], used where !is_farm */
	struct btrt_farm_link *links;     /* [n_groups + 1], used where is_farm */
	unsigned char *is_farm;           /* [n_groups + 1] */
	unsigned char *inited;            /* [n_groups + 1]: ring or link set up */
	struct btrt_port *in, *out;       /* [n_chunks + 1] */
};

/* Creates the links of cfg (a validated table) and wires every thread's
 * ports. Returns 0, or -1 with err (BTRT_E_NOMEM); l is then safe to
 * destroy, as is an all-zero l. */
int btrt_links_create(struct btrt_links *l, const struct btrt_pipeline_config *cfg,
		      struct btrt_error *err);

/* Wakes every thread blocked on a link so that it re-checks its stop flag
 * (after the seq_cst store of the flag). Any thread. */
void btrt_links_wake(struct btrt_links *l);

void btrt_links_destroy(struct btrt_links *l);

#endif
