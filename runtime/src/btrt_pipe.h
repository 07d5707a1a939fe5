/* The state of one btrt_pipeline_run shared by its threads: the chunks'
 * dispatchers (btrt_pipeline.c) and the io source and sink
 * (btrt_io.c), and what both call (btrt_pipe.c: the error stop, pinning,
 * wait budgets, the io threads' cores). Internal to the runtime (not
 * installed). */
#ifndef BTRT_PIPE_H
#define BTRT_PIPE_H

#include "btrt_farm.h"
#include "btrt_internal.h"
#include "btrt_ring.h"

#include <pthread.h>
#include <stdatomic.h>

struct pipe;

struct chunk_rt {
	struct pipe *p;
	uint32_t idx;
	const struct btrt_chunk *c;
	struct btrt_port *in, *out;       /* its ends of the links (in p->links) */
	void *gpu_state;
	struct btrt_gpu_time *gtimes;     /* [c->n_stages] */
	struct btrt_chunk_rec *rec;
	pthread_t th;
	int started;
};

/* One task's check interval (ns), recorded by its check worker. */
struct btrt_rec_check { uint64_t start, end; };

/* One worker of the io sink's check farm (btrt_io.c): worker w of k
 * checks the tasks of seq first_seq + w, + w + k, ... in that order.
 * Worker 0 is the sink itself; the others are threads of their own. */
struct btrt_checker {
	struct pipe *p;
	uint32_t w;
	/* Worker w >= 1 only: the sink hands it its tasks on todo, it hands
	 * them back to the source on back (worker 0 uses p->recycle). Both
	 * hold the pool plus the end marker, so a push never waits. */
	struct btrt_ring_spsc todo, back;
	int todo_inited, back_inited;
	struct btrt_rec_check *chk;       /* [n_chk] its j-th task's check
					     (task first_seq + w + j * k) */
	size_t n_chk, cap_chk;
	uint64_t items, t_end;            /* tasks it checked, its last end */
	pthread_t th;
	int started;
};

/* One loader of the io source's load farm (btrt_io_load.c): loader w of
 * k loads the items of seq first_seq + w, + w + k, ... in that order.
 * Loader 0 is the source itself; the others are threads of their own. */
struct btrt_loader {
	struct pipe *p;
	uint32_t w;
	/* Loader w >= 1 only: the source hands it free TaskObjects (seq set)
	 * on todo and takes them back loaded on done (p->load_rc[slot] says
	 * loaded or end of input). Both hold the pool plus the end marker. */
	struct btrt_ring_spsc todo, done;
	int todo_inited, done_inited;
	struct btrt_rec_check *rec;       /* [n_rec] its j-th item's load
					     (item first_seq + w + j * k) */
	size_t n_rec, cap_rec;
	pthread_t th;
	int started;
};

struct pipe {
	const struct btrt_pipeline_config *cfg;
	atomic_int stop;                  /* nonzero: every thread leaves */
	atomic_uint ready;                /* dispatchers done with their setup */
	pthread_mutex_t mu;               /* guards failed / err */
	int failed;
	struct btrt_error err;            /* the first error */
	int pin;                          /* 0 when BTRT_NO_PIN is set */
	struct btrt_links links;          /* rings and farm links (btrt_farm.h) */
	struct chunk_rt *ch;              /* [n_chunks] */
	struct btrt_run *run;             /* io records (run->io): the source's
					     until it is joined */
	/* Observation hook (cfg->on_task_done), else NULL / 0: */
	uint64_t *task_ns;                /* [pool size * n_chunks] chunk c's time
					     of the task in slot s at s * n + c,
					     written by the dispatcher before it
					     pushes the task on (the rings'
					     release/acquire chain publishes it) */
	uint64_t *load_ns;                /* [pool size] load time per slot
					     (source; published the same way) */
	/* The io threads (btrt_io.c): */
	struct btrt_ring_spsc recycle;    /* sink -> source: checked TaskObjects */
	int recycle_inited;
	struct btrt_port recycle_port;    /* its ends (one ring: both sides) */
	atomic_int drain;                 /* sink: the source stops admitting */
	_Atomic uint64_t loaded, checked; /* seqs loaded / checked (messages) */
	struct btrt_checker *chk;         /* [n_chk] the check farm's workers
					     (btrt_io_check_threads, >= 1);
					     their records are merged into
					     run->io once every thread is joined */
	uint32_t n_chk;
	struct btrt_loader *ld;           /* [n_ld] the load farm's loaders
					     (btrt_io_load_threads, >= 1) */
	uint32_t n_ld;
	signed char *load_rc;             /* [pool size] a loader's result for
					     the TaskObject in slot s: 1 loaded,
					     0 end of input (k_load > 1 only) */
	pthread_t source_th;
	int source_started;
};

/* Records the first error and asks every thread to stop. Any thread. */
void btrt_pipe_fail(struct pipe *p, const struct btrt_error *e);

/* Reports that a farm link's slot was still occupied (its capacity rule
 * broken) when thread ci pushed item seq: an internal error. */
void btrt_pipe_link_fail(struct pipe *p, uint32_t ci, uint64_t seq);

/* Sets the calling thread's wait budgets (btrt_backoff_set) for thread c
 * of the pipeline: c < n_chunks the dispatcher of chunk c,
 * BTRT_THREAD_SINK(cfg) the io sink, BTRT_THREAD_SOURCE(cfg) the io source. */
void btrt_pipe_set_backoff(const struct btrt_pipeline_config *cfg, uint32_t c);
#define BTRT_THREAD_SINK(cfg) ((cfg)->n_chunks)
#define BTRT_THREAD_SOURCE(cfg) ((cfg)->n_chunks + 1)
/* Check worker w >= 1 of the sink's farm (worker 0 is the sink). */
#define BTRT_THREAD_CHECKER(cfg, w) ((cfg)->n_chunks + 1 + (w))
/* Loader w >= 1 of the source's farm (loader 0 is the source), after
 * the k_check - 1 check workers. */
#define BTRT_THREAD_LOADER(cfg, kc, w) ((cfg)->n_chunks + (kc) + (w))

/* The cores io thread c (BTRT_THREAD_SINK, BTRT_THREAD_SOURCE or
 * BTRT_THREAD_CHECKER) is pinned to. With k = 1 check worker: with two
 * or more service cores (cfg->io_cores) the source takes the first half
 * and the sink the rest, one each for two; with one both share it; none:
 * unpinned (*n = 0). With k > 1 and m >= k + 1 service cores: check
 * worker w (the sink: w = 0) takes core m - k + w alone and the source
 * the first m - k; with fewer, the source takes the first half and the
 * k workers share the rest. */
void btrt_io_thread_cores(const struct btrt_pipeline_config *cfg, uint32_t c, const int **cores,
			  uint32_t *n);

/* ---- the io threads (btrt_io.c) ----------------------------------------
 * The source loads items into free TaskObjects (first the pool's, then
 * those the sink recycles) and pushes them into the first link; the sink
 * takes the finished tasks from the last link in input order, checks them
 * and hands the TaskObjects back through p->recycle. Load and check of
 * different tasks thus overlap: the io bound on the period is
 * max(load, check) (chunk model's T_io), not their sum. With a check farm
 * of k workers the sink checks every k-th task itself and hands the
 * others, in order, to workers 1..k-1 (SPSC rings); the source takes its
 * j-th recycled TaskObject from worker j mod k's ring (the task of seq
 * first_seq + j, whose TaskObject it reuses), so every ring stays SPSC and
 * the bound is max(load, check / k). */

/* Sets up p->recycle (capacity: the pool plus one) and the check farm's
 * workers and rings (btrt_io_check_threads). Returns 0, or -1 with err
 * (BTRT_E_NOMEM). */
int btrt_io_init(struct pipe *p, struct btrt_error *err);

/* On an io source thread: its pipeline's stop flag (nonzero once the
 * pipeline failed or was told to stop), for the runtime's own io wrappers
 * whose load waits on something outside the pipeline (btrt_workload.c's
 * turns and pacing), so that a stream that failed does not wait for
 * checks that will never come. NULL on other threads. */
extern _Thread_local const atomic_int *btrt_source_stop;

/* Starts the source thread (p->source_th), pinned to its cores. Returns
 * 0, or -1 after btrt_pipe_fail (BTRT_E_SYS). */
int btrt_io_start_source(struct pipe *p);

/* Shared by the source's two loops (btrt_io.c, btrt_io_load.c): */
/* Stops the run with BTRT_E_INTR if cfg->interrupt is set. Any io thread.
 * Returns 0, or -1 (p failed). */
int btrt_io_interrupted(struct pipe *p);
/* Room for the io record of item idx (source only). Returns 0, or -1 past
 * the record limit or out of memory. */
int btrt_io_rec(struct btrt_run *run, uint64_t idx);
/* The source's push of x (a task, or BTRT_EOS after seq items) into the
 * first link. Returns 0, or -1 (stopped, or p failed). */
int btrt_io_source_push(struct pipe *p, void *x, uint64_t seq);
/* Whether the stream ends before item seq (n_items, or the sink's drain). */
int btrt_io_source_ended(struct pipe *p, uint64_t seq);
/* Loads item seq into t on the source. Returns 1 (loaded), 0 (end of
 * input) or -1 (p failed). */
int btrt_io_source_load(struct pipe *p, struct btrt_task *t, uint64_t seq);

/* ---- the load farm (btrt_io_load.c), k_load > 1 ----------------------
 * The source hands item seq, in a free TaskObject, to loader (seq -
 * first_seq) mod k (SPSC rings), loads every k-th item itself, and pushes
 * the items into the first link in input order, taking each loader's
 * items back from its done ring in turn: T_load / k. */
/* Sets up the loaders and their rings (none for k = 1). Returns 0, or -1
 * with err (BTRT_E_NOMEM). */
int btrt_io_load_init(struct pipe *p, struct btrt_error *err);
/* The source's loop with loaders: starts them, streams, stops and joins
 * them. */
void btrt_io_source_farm(struct pipe *p);
/* After every thread is joined: the loaders' records into run->io, their
 * waits into the source's; frees what btrt_io_load_init allocated. */
void btrt_io_load_finish(struct pipe *p);

/* The sink's loop, on the calling thread, until the end of stream or a
 * stop: starts the check farm's other workers, checks its own tasks and
 * hands the others to their workers, then joins them. */
void btrt_io_sink(struct pipe *p);

/* After every thread is joined: merges the sink's check records into
 * run->io and fills run->waits[n_chunks] (sink) and [n_chunks + 1]
 * (source). Then frees what btrt_io_init and the sink allocated. */
void btrt_io_finish(struct pipe *p);

#endif
