/* The io source's steps that its single loop (btrt_io.c) and its load
 * farm (btrt_io_load.c) share: the interrupt check, the io record, the
 * push into the first link, the end of the stream and one load
 * (btrt_pipe.h). */
#include "btrt_pipe.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Stops the run with BTRT_E_INTR if cfg->interrupt is set. Either io
 * thread. Returns 0, or -1 (p failed). */
int btrt_io_interrupted(struct pipe *p)
{
	const atomic_int *flag = p->cfg->interrupt;
	/* relaxed: a signal handler's flag; nothing is published with it. */
	if (!flag || !atomic_load_explicit(flag, memory_order_relaxed))
		return 0;
	struct btrt_error e;
	btrt_error_clear(&e);
	/* relaxed: counts for the message only. */
	btrt_error_set(&e, BTRT_E_INTR, atomic_load_explicit(flag, memory_order_relaxed),
		       "interrupted after %" PRIu64 " items were loaded and %" PRIu64 " checked",
		       atomic_load_explicit(&p->loaded, memory_order_relaxed),
		       atomic_load_explicit(&p->checked, memory_order_relaxed));
	btrt_pipe_fail(p, &e);
	return -1;
}

/* Room for the io record of item idx (source only). Returns 0, or -1 when
 * past the record limit or out of memory (the item is not recorded). */
int btrt_io_rec(struct btrt_run *run, uint64_t idx)
{
	if (idx >= run->limit)
		return -1;
	while (run->n_io <= idx) {
		if (btrt_vec_reserve((void **)&run->io, &run->cap_io, run->n_io, sizeof *run->io))
			return -1;
		memset(&run->io[run->n_io++], 0, sizeof *run->io);
	}
	return 0;
}

/* The source's push of x (a task, or BTRT_EOS after seq items) into the
 * first link. Returns 0, or -1 (stopped, or p failed). */
int btrt_io_source_push(struct pipe *p, void *x, uint64_t seq)
{
	int rc = btrt_port_push(&p->links.out[p->cfg->n_chunks], x, seq, &p->stop);
	if (rc == -2)
		btrt_pipe_link_fail(p, BTRT_THREAD_SOURCE(p->cfg), seq);
	return rc ? -1 : 0;
}

/* Whether the stream ends before item seq: n_items reached, or the sink
 * asked to stop admitting (on_task_done). */
int btrt_io_source_ended(struct pipe *p, uint64_t seq)
{
	const struct btrt_pipeline_config *cfg = p->cfg;
	/* acquire: pairs with the sink's release store; nothing else rides
	 * on it, but it keeps the hook's decision ordered before this load. */
	return (cfg->n_items && seq >= cfg->n_items) ||
	       atomic_load_explicit(&p->drain, memory_order_acquire);
}

/* Loads item seq into t. Returns 1 (loaded), 0 (end of input) or -1 (p
 * failed). */
int btrt_io_source_load(struct pipe *p, struct btrt_task *t, uint64_t seq)
{
	const struct btrt_pipeline_config *cfg = p->cfg;
	char msg[256] = "";
	uint64_t idx = seq - cfg->first_seq, la = btrt_now_ns();
	t->seq = seq;
	if (btrt_io_rec(p->run, idx) == 0)
		p->run->io[idx].load_start = la;
	int rc = cfg->io->load(cfg->io_state, seq, t, msg, sizeof msg);
	if (rc < 0) {
		struct btrt_error e;
		btrt_error_clear(&e);
		btrt_error_set(&e, BTRT_E_IO, rc, "load of task %" PRIu64 " (slot %u) failed: %s",
			       seq, t->slot, msg);
		e.seq = seq;
		btrt_pipe_fail(p, &e);
		return -1;
	}
	if (rc == 0) {
		if (p->run->n_io > idx)
			p->run->n_io = idx; /* the last record was never loaded */
		return 0;
	}
	uint64_t lb = btrt_now_ns();
	if (idx < p->run->n_io)
		p->run->io[idx].load_end = lb;
	if (p->load_ns)
		p->load_ns[t->slot] = lb - la;
	return 1;
}
