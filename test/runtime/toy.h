/* The toy app of the runtime tests: 5 stages over u32 buffers, written the
 * way btc generates apps (struct btrt_task first, typed fields bound to the
 * pool's buffers). Expected output for item seq, element i:
 *   in  = seq * 7 + i
 *   out = (((in * 3) + 11)^2 + in) ^ seq      (u32 arithmetic)
 * and meta[1] counts stage visits (5 when every stage ran exactly once). */
#ifndef TOY_H
#define TOY_H

#include <btrt.h>
#include <btrt_pipeline.h>

enum toy_buffer {
	TOY_BUF_IN = 0,
	TOY_BUF_A = 1,
	TOY_BUF_B = 2,
	TOY_BUF_OUT = 3,
	TOY_BUF_META = 4,
	TOY_N_BUFFERS = 5
};
#define TOY_N_STAGES 5
#define TOY_OFFSET 11u

struct toy_params {
	int64_t n;                 /* elements per buffer */
	uint64_t fail_seq;         /* stage 2 fails on this task (UINT64_MAX: never) */
	int fail_code;             /* what it returns */
	uint64_t corrupt_seq;      /* stage 4 writes a wrong value (UINT64_MAX: never) */
	uint64_t corrupt_seq2;     /* and on this task too (UINT64_MAX: never) */
	uint32_t load_sleep_us;    /* load sleeps this long per item (an idle pipeline) */
	uint32_t check_sleep_us;   /* check sleeps this long per item (slow io) */
};

struct toy_task {
	struct btrt_task base;
	const struct toy_params *params;
	uint32_t *in, *a, *b, *out, *meta;
};

extern const struct btrt_buffer_desc toy_buffers[TOY_N_BUFFERS];
void toy_counts(const struct toy_params *p, size_t counts[TOY_N_BUFFERS]);
void toy_task_bind(struct toy_task *t, const struct toy_params *p);

/* CPU kernels (OpenMP when built with it). */
int toy_scale_cpu(void *t);
int toy_offset_cpu(void *t);
int toy_square_cpu(void *t);
int toy_mix_cpu(void *t);
int toy_seal_cpu(void *t);

/* The io of the toy: loads up to `limit` items (then end of input), fails
 * to load item load_fail_seq, and checks outputs and their order. Its
 * check may run on several threads at once (btrt_pipeline_config's
 * check_threads k, here `check_threads`): the counters are kept under a
 * lock, the order per check worker (task seq on worker seq mod k, each
 * worker in seq order), and the comparison and the sleep run outside it. */
#define TOY_MAX_CHECKERS 16
struct toy_io_state {
	uint32_t check_threads;    /* the run's k (toy_run passes it on); 0: 1 */
	const struct toy_params *p;
	uint64_t limit;            /* load returns 0 at seq == limit */
	uint64_t load_fail_seq;    /* UINT64_MAX: never */
	uint64_t signal_seq;       /* load sends SIGINT to the process before
				      loading this item (0: never) */
	uint64_t loaded;           /* items loaded */
	uint64_t checked;          /* number of checks */
	uint64_t next_seq;         /* expected next checked seq */
	int order_errors;
	/* The threads and CPUs the io ran on (toy_run fills them): */
	long load_tid, check_tid;  /* the thread of the first load / check */
	int load_tids, check_tids; /* loads / checks on another thread */
	int load_cpu1, check_cpu1; /* 0, or 1 + the CPU every load / check
				      must run on (toy_run takes them from
				      io_out) */
	int load_cpu_errors, check_cpu_errors;
	/* Per check worker w (seq mod k): the thread of its first check,
	 * checks of its tasks on another thread, 1 + the CPU its checks must
	 * run on (0: any; k > 1 only: check_cpu1 covers k = 1) and the CPU
	 * errors; the next seq it expects. */
	long worker_tid[TOY_MAX_CHECKERS];
	int worker_tids[TOY_MAX_CHECKERS];
	int worker_cpu1[TOY_MAX_CHECKERS];
	int worker_cpu_errors[TOY_MAX_CHECKERS];
	uint64_t worker_next[TOY_MAX_CHECKERS];
	/* The load farm (load_threads k > 1): per loader w (seq mod k) the
	 * thread of its first load, loads on another thread, the next seq
	 * it expects (out of order: order_errors). */
	uint32_t load_threads;
	long loader_tid[TOY_MAX_CHECKERS];
	int loader_tids[TOY_MAX_CHECKERS];
	uint64_t loader_next[TOY_MAX_CHECKERS];
	/* The TaskObjects' first uses (issue 25): bit s set once slot s < 64
	 * was loaded; slot_first_errors counts a slot whose first item was
	 * not item s (the pool's slots are first handed out in order, so
	 * the first `pool` items are their first uses: btrt_model_warmup). */
	uint64_t slots_seen;
	int slot_first_errors;
};
extern const struct btrt_app_io toy_io;

/* Stage table with the CPU kernels and read/write sets; the Vulkan and
 * CUDA tests copy it and add their kernels. */
extern const struct btrt_stage toy_stages_cpu[TOY_N_STAGES];

/* Unpinned CPU schedules of the toy's stages: three chunks (big 0-1,
 * mid 2-3, little 4); a farm of two workers (w0, w1: 2-3) between a head
 * (0-1) and a tail (4); one chunk of all five. */
extern const struct btrt_chunk toy_three[3];
extern const struct btrt_chunk toy_farmed[4];
extern const struct btrt_chunk toy_one[1];

/* Creates a pool (host backend unless vk/cuda given), runs `chunks` over
 * `n_items` items and checks them. Returns btrt_pipeline_run's result;
 * err filled; io (if non-NULL) receives the io state. */
struct btrt_vk;
struct btrt_cuda;
int toy_run(const struct toy_params *p, const struct btrt_stage *stages,
	    const struct btrt_chunk *chunks, uint32_t n_chunks, uint32_t pool_size,
	    uint64_t n_items, enum btrt_backend backend, struct btrt_vk *vk,
	    struct btrt_cuda *cuda, struct toy_io_state *io, const char *trace,
	    struct btrt_error *err);

void toy_default_params(struct toy_params *p);

/* toy_run on the host backend with SIGINT caught while it runs: the
 * handler sets the run's interrupt flag (btrt_pipeline_config.interrupt),
 * as a generated program's does; the old action is restored after. For
 * the interrupt tests, whose io sends SIGINT (toy_io_state.signal_seq). */
int toy_run_sigint(const struct toy_params *p, const struct btrt_stage *stages,
		   const struct btrt_chunk *chunks, uint32_t n_chunks, uint32_t pool_size,
		   uint64_t n_items, struct toy_io_state *io, struct btrt_error *err);

/* Test hooks of toy_run: the record limit of the next runs (0: default),
 * and where to keep the run's records (NULL: freed). */
extern uint64_t toy_record_limit;
extern struct btrt_run **toy_keep_run;
/* The interrupt flag of the next runs (btrt_pipeline_config.interrupt). */
extern const btrt_atomic_int *toy_interrupt;
/* The service cores of the next runs (btrt_pipeline_config.io_cores). */
extern const int *toy_io_cores;
/* The GPU use of each buffer in the next runs' pools
 * (btrt_pool_config.gpu_touched; NULL: not known). */
extern const unsigned char *toy_gpu_touched;
extern uint32_t toy_n_io_cores;

#endif
