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

/* One task's check interval (ns), recorded by the sink. */
struct btrt_rec_check { uint64_t start, end; };

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
	struct btrt_rec_check *chk;       /* [n_chk] the sink's check records,
					     by seq - first_seq; merged into
					     run->io once the source is joined */
	size_t n_chk, cap_chk;
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

/* The cores io thread c (BTRT_THREAD_SINK or BTRT_THREAD_SOURCE) is
 * pinned to: with two or more service cores (cfg->io_cores) the source
 * takes the first half and the sink the rest, one each for two; with one
 * both share it; none: unpinned (*n = 0). */
void btrt_io_thread_cores(const struct btrt_pipeline_config *cfg, uint32_t c, const int **cores,
			  uint32_t *n);

/* ---- the io threads (btrt_io.c) ----------------------------------------
 * The source loads items into free TaskObjects (first the pool's, then
 * those the sink recycles) and pushes them into the first link; the sink
 * takes the finished tasks from the last link in input order, checks them
 * and hands the TaskObjects back through p->recycle. Load and check of
 * different tasks thus overlap: the io bound on the period is
 * max(load, check) (chunk model's T_io), not their sum. */

/* Sets up p->recycle (capacity: the pool plus one). Returns 0, or -1 with
 * err (BTRT_E_NOMEM). */
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

/* The sink's loop, on the calling thread, until the end of stream or a
 * stop. */
void btrt_io_sink(struct pipe *p);

/* After every thread is joined: merges the sink's check records into
 * run->io and fills run->waits[n_chunks] (sink) and [n_chunks + 1]
 * (source). Then frees what btrt_io_init and the sink allocated. */
void btrt_io_finish(struct pipe *p);

#endif
