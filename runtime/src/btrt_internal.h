/* Internal interfaces between the runtime's files (not installed). */
#ifndef BTRT_INTERNAL_H
#define BTRT_INTERNAL_H

#include <stdio.h>
#include <string.h>

#include "btrt.h"
#include "btrt_adapt.h"
#include "btrt_fsafe.h"
#include "btrt_pipeline.h"
#include "btrt_pool.h"

struct btrt_pool {
	struct btrt_pool_config cfg;
	struct btrt_buffer_desc *descs;   /* copy of cfg.buffers */
	size_t *counts;                   /* copy of cfg.counts */
	size_t stride;                    /* bytes per TaskObject (64-aligned) */
	unsigned char *tasks;             /* n_tasks * stride */
	struct btrt_buffer *bufs;         /* n_tasks * n_buffers */
	const char **mem_kind;            /* [n_buffers] */
	double *probe_managed_us;         /* [n_buffers] CUDA discrete AUTO, else NULL */
	double *probe_pinned_us;
	void *backend_state;              /* Vulkan: descriptor pool etc. */
	/* where the creation's time went, ms (btrt_pool_setup_ms): the CUDA
	 * placement probes (btrt_cuda_pool.cu) and the zeroing of buffers */
	double probe_ms, zero_ms;
	/* [n_buffers] ms in the allocation calls of buffer b over every
	 * TaskObject (btrt_pool_buffer_setup) */
	double *alloc_ms;
};

/* Adds the wall time since t0 (btrt_now_ns) to buffer b's alloc_ms. */
static inline void btrt_pool_alloc_ms(struct btrt_pool *p, uint32_t b, uint64_t t0)
{
	p->alloc_ms[b] += (double)(btrt_now_ns() - t0) / 1e6;
}

/* memset(m, 0, bytes) of a pool buffer, its time added to the pool's
 * zero_ms (btrt_pool_setup_ms): on managed memory also the pages' first
 * touch. Every pool zeroes host-visible memory
 * through it; a CUDA device buffer's cudaMemset is timed where it is called. */
static inline void btrt_pool_zero(struct btrt_pool *p, void *m, size_t bytes)
{
	uint64_t t = btrt_now_ns();
	memset(m, 0, bytes);
	p->zero_ms += (double)(btrt_now_ns() - t) / 1e6;
}

/* Buffer b of TaskObject bf in plain host memory (btrt_pool.c): its
 * bytes rounded up to 64; from 1 MiB on an anonymous mapping of its own
 * (zero pages on first touch: a worst-case size's unwritten tail costs
 * nothing), else 64-byte aligned heap memory, zeroed. Sets bf->host and
 * bf->dev (the same pointer); the time goes to the pool's alloc_ms and
 * zero_ms. Returns 0, or -1 with err BTRT_E_NOMEM. The host backend's
 * buffers and a CUDA pool's BTRT_CUDA_KIND_HOST ones; freed by
 * btrt_pool_host_buffer_free (NULLs both pointers; none allocated: no-op). */
int btrt_pool_host_buffer(struct btrt_pool *p, uint32_t b, struct btrt_buffer *bf,
			  struct btrt_error *err);
void btrt_pool_host_buffer_free(struct btrt_buffer *bf);

static inline struct btrt_buffer *btrt_pool_buf(struct btrt_pool *p, uint32_t slot, uint32_t b)
{
	return &p->bufs[(size_t)slot * p->cfg.n_buffers + b];
}

/* TaskObject slot (< p->cfg.n_tasks) for the backends, which build on the
 * pool's layout and never call back into btrt_pool.c (that calls them). */
static inline struct btrt_task *btrt_pool_slot(struct btrt_pool *p, uint32_t slot)
{
	return (struct btrt_task *)(void *)(p->tasks + (size_t)slot * p->stride);
}

/* A GPU stage's time: host-aligned start/end in ns. */
/* 1 if x is one of l[0 .. n-1] (a stage's reads or writes), else 0. */
static inline int btrt_u32_listed(const uint32_t *l, uint32_t n, uint32_t x)
{
	for (uint32_t i = 0; i < n; i++)
		if (l[i] == x)
			return 1;
	return 0;
}

/* 1 if buffer b is an output of stages[0 .. n_stages-1]: some stage writes
 * it and no stage reads it after its last writer (a stage that reads and
 * writes it reads before it writes), so its final value is the io check's
 * on the host; else 0. A scratch buffer (buffers[b].scratch; buffers NULL:
 * none) is never an output: no check reads it. The CUDA chunk's
 * shared/private split (btrt_cuda_chunk.cu), the pool's private buffers
 * (btrt_chunks_gpu_touched) and, in btc, the chunk model's transfers
 * (btc_model_chunk_bytes) use this rule. */
static inline int btrt_stages_output(const struct btrt_stage *stages, uint32_t n_stages,
				     const struct btrt_buffer_desc *buffers, uint32_t b)
{
	if (buffers && buffers[b].scratch)
		return 0;
	int written = 0, read_after = 0;
	for (uint32_t s = 0; s < n_stages; s++) {
		if (written && btrt_u32_listed(stages[s].reads, stages[s].n_reads, b))
			read_after = 1;
		if (btrt_u32_listed(stages[s].writes, stages[s].n_writes, b)) {
			written = 1;
			read_after = 0;
		}
	}
	return written && !read_after;
}

struct btrt_gpu_time {
	uint64_t start_ns, end_ns;
};

/* Backend hooks (btrt_vk.c / btrt_cuda.cu, or the *_none.c fallbacks). */
int btrt_vk_pool_init(struct btrt_vk *vk, struct btrt_pool *pool, struct btrt_error *err);
void btrt_vk_pool_fini(struct btrt_vk *vk, struct btrt_pool *pool);
/* Chunk state: created by the io thread before the dispatchers start. */
int btrt_vk_chunk_init(struct btrt_vk *vk, const struct btrt_pipeline_config *cfg,
		       uint32_t c, void **state, struct btrt_error *err);
/* Runs the chunk's stages for task t; times[k] for the chunk's k-th stage
 * (left zero when timestamps are unsupported). */
int btrt_vk_chunk_exec(void *state, struct btrt_task *t, struct btrt_gpu_time *times,
		       struct btrt_error *err);
void btrt_vk_chunk_fini(void *state);

int btrt_cuda_pool_init(struct btrt_cuda *cu, struct btrt_pool *pool, struct btrt_error *err);
void btrt_cuda_pool_fini(struct btrt_cuda *cu, struct btrt_pool *pool);
/* CUDA chunk state is created in the dispatcher thread (stream, events). */
int btrt_cuda_chunk_init(struct btrt_cuda *cu, const struct btrt_pipeline_config *cfg,
			 uint32_t c, void **state, struct btrt_error *err);
int btrt_cuda_chunk_exec(void *state, struct btrt_task *t, struct btrt_gpu_time *times,
			 struct btrt_error *err);
void btrt_cuda_chunk_fini(void *state);

/* Futex on a 32-bit atomic word (Linux; elsewhere a 50 us sleep and a
 * no-op). btrt_futex_wait sleeps while *word == expect, until a wake, a
 * signal or a spurious return: callers re-check their condition.
 * btrt_futex_wake wakes up to n sleepers of word. Private to the process. */
int btrt_futex_wait(void *word, uint32_t expect);
void btrt_futex_wake(void *word, int n);

/* The trace-event JSON of a run (btrt_run_write_trace) up to, not
 * including, the end of its event array, BTRT_TRACE_TAIL; an adaptive
 * run's adds its decisions (btrt_adapt_write_trace). The program writes
 * them into its own output file (btrt_fsafe.h) and publishes it only when
 * no signal came. */
#define BTRT_TRACE_TAIL "\n]}\n"
void btrt_run_trace_events(const struct btrt_run *r, FILE *f);
void btrt_adapt_trace_events(const struct btrt_adapt_result *res, FILE *f);

/* Growable array helper: ensures room for n+1 elements of size sz. */
int btrt_vec_reserve(void **data, size_t *cap, size_t n, size_t sz);

/* The CUDA placement probe's results across processes (btrt_probe_file.c;
 * btrt_cuda_config.probe_file, BTRT_CUDA_PROBE_FILE): find returns 1 and
 * the times (us, managed+prefetch and pinned, each > 0) of the first line
 * for a buffer of `bytes`, 0 when there is none (no file, no such line;
 * malformed lines are skipped); add appends such a line with one write.
 * Either may be given a NULL path (then: 0, nothing). Errors are ignored:
 * a run without the file probes. */
int btrt_probe_file_find(const char *path, size_t bytes, double *managed_us, double *pinned_us);
void btrt_probe_file_add(const char *path, size_t bytes, double managed_us, double pinned_us);

#endif

/* ---- run records (btrt_trace.c) ---------------------------------------- */
struct btrt_wait_stats; /* btrt_trace.h */
struct btrt_rec_task { uint64_t seq, start, end; };
struct btrt_rec_stage { uint64_t seq; uint32_t stage; uint32_t gpu; uint64_t start, end; };
/* One item's io: load on the io source thread, check on the io sink
 * thread (they overlap across items: btrt_pipe.h). */
struct btrt_rec_io { uint64_t load_start, load_end, check_start, check_end; };

struct btrt_chunk_rec {
	const char *name;
	enum btrt_pu_kind pu;
	uint32_t first_stage, n_stages;
	uint32_t farm, worker;            /* farm id (0: none) and the worker's
					     index in its farm */
	uint64_t limit;                   /* tasks recorded at most */
	struct btrt_rec_task *tasks; size_t n_tasks, cap_tasks;
	struct btrt_rec_stage *stages; size_t n_stages_rec, cap_stages;
};

struct btrt_run {
	const char *app;
	uint32_t n_chunks, n_stages;
	const char **stage_names;         /* [n_stages], borrowed from the config */
	struct btrt_chunk_rec *chunks;    /* [n_chunks] */
	struct btrt_rec_io *io;           /* indexed by seq */
	size_t n_io, cap_io;
	uint64_t limit;                   /* io records at most (by seq) */
	uint64_t items;                   /* checked / completed items */
	uint64_t t0, t_end;               /* first load start, last completion */
	uint32_t n_check;                 /* check workers (io record i was
					     checked by worker i mod n_check) */
	uint32_t n_load;                  /* loaders (record i loaded by
					     loader i mod n_load) */
	struct btrt_wait_stats *waits;    /* [n_chunks + 2]: chunks, then the io
					     sink, then the io source */
};

/* Trace-event thread ids of the io tracks (chunk c: 1 + c, its GPU
 * 1001 + c): the sink's checks keep tid 0, the io thread's before the
 * source and sink were split; btrt_adapt marks its decisions there. */
#define BTRT_TRACE_TID_CHECK 0u
#define BTRT_TRACE_TID_LOAD 2000u
#define BTRT_TRACE_TID_CHECKER 3000u /* + w: check worker w >= 1 */
#define BTRT_TRACE_TID_LOADER 4000u  /* + w: loader w >= 1 */

struct btrt_run *btrt_run_alloc(const struct btrt_pipeline_config *cfg);
