/* btrt_pipeline.h: statically wired software pipelines (paper Sec. III-E).
 *
 * Generated code describes the app's stages and the schedule's chunks as
 * static const tables and calls btrt_pipeline_run():
 *
 *   io source --ring0--> chunk 0 --ring1--> ... chunk n-1 --ringn--> io sink
 *     ^ load                                                  check |
 *     +------------------- recycle (SPSC ring) ---------------------+
 *
 * - One dispatcher thread per chunk, pinned to the chunk's cores. A CPU chunk
 *   runs its stages' OpenMP kernels on a team of n_cores threads pinned to
 *   the same cores (the dispatcher is the team's master; it does no other
 *   work). A Vulkan chunk submits one pre-recorded command buffer per task
 *   (one fence wait); a CUDA chunk launches all its stages on its stream and
 *   synchronises once.
 * - A fixed pool of TaskObjects circulates: the io source thread loads an
 *   item into a free TaskObject and pushes it into ring 0; the last chunk
 *   pushes it to the io sink (the caller's thread), which checks the output
 *   in input order and hands the TaskObject back to the source through
 *   the recycle ring. Loading the next items and checking finished ones
 *   run on two threads at once, so the io bound on the period is
 *   max(load, check), not their sum (T_io of the chunk model). Rings are
 *   SPSC (btrt_ring.h) with capacity > pool size, so a push never waits.
 * - End of input: an end-of-stream marker follows the last item through
 *   every chunk; the run returns once every loaded item has been checked.
 * - Waiting: a thread waiting on an empty ring spins briefly, then blocks
 *   in the kernel until the task arrives (btrt_ring.h), so an idle
 *   pipeline costs no CPU.
 * - Errors: the first failing kernel, load or check sets a stop flag and
 *   wakes every blocked thread; each thread leaves its wait at once (after
 *   finishing the kernel it is running) and btrt_pipeline_run returns -1
 *   with the error naming chunk, stage and task.
 * - Interruption: when *interrupt (optional) reads nonzero, e.g. set by
 *   the program's SIGINT handler, the io source loads no further item and
 *   stops the pipeline as on an error; btrt_pipeline_run returns -1 with
 *   BTRT_E_INTR once every thread is joined and GPU work is finished.
 * - Ordering: rings are FIFO and every chunk handles tasks one at a time,
 *   so tasks leave in input order; the io sink verifies that the
 *   sequence numbers come back as 0, 1, 2, ... (an internal error
 *   otherwise).
 * - Farms (replicated chunks, btrt_chunk.farm): several workers, each a
 *   chunk entry with its own PU and dispatcher, share one range of stages.
 *   The links around a farm are sequence-indexed slot tables instead of
 *   rings (runtime/src/btrt_farm.h): a free worker claims the next task
 *   with one atomic fetch-add (dynamic self-scheduling) and the thread
 *   after the farm (or the io sink) takes the tasks by sequence number, i.e. in input order
 *   whichever worker finished first. Every worker records its own tasks
 *   (one trace track per worker). */
#ifndef BTRT_PIPELINE_H
#define BTRT_PIPELINE_H

#include "btrt.h"
#include "btrt_pool.h"

/* An atomic int for C and C++ alike (C++23 defines C's atomic_int as
 * std::atomic<int>; GCC and Clang give both the same lock-free layout). */
#ifdef __cplusplus
extern "C++" { /* also when included inside extern "C" */
#include <atomic>
}
typedef std::atomic<int> btrt_atomic_int;
#else
#include <stdatomic.h>
typedef atomic_int btrt_atomic_int;
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum btrt_pu_kind {
	BTRT_PU_CPU = 0,
	BTRT_PU_VULKAN = 1,
	BTRT_PU_CUDA = 2,
};

/* Kernel entry points (docs/app-format.md, "Kernel ABI"); task is a
 * `struct APP_task *`, stream a cudaStream_t. 0 = success. */
typedef int (*btrt_cpu_kernel)(void *task);
typedef int (*btrt_cuda_kernel)(void *task, void *stream);

#define BTRT_VK_MAX_PUSH 32        /* uint32 push constants per dispatch (128 bytes) */

/* One Vulkan compute dispatch of a stage (static: sizes derive from params). */
struct btrt_vk_dispatch {
	uint32_t pipeline;         /* index into btrt_vk_config.shaders */
	uint32_t groups[3];        /* workgroup counts x, y, z (each >= 1) */
	uint32_t n_push;           /* <= BTRT_VK_MAX_PUSH */
	const uint32_t *push;      /* [n_push] push constants, offset 0, in order */
};

/* One stage of the app, app order. Kernels a stage lacks are NULL / 0. */
struct btrt_stage {
	const char *name;
	btrt_cpu_kernel cpu;
	btrt_cuda_kernel cuda;
	const struct btrt_vk_dispatch *vk; /* [n_vk] dispatches, in order */
	uint32_t n_vk;
	const uint32_t *reads;     /* [n_reads] buffer indices the stage reads */
	uint32_t n_reads;
	const uint32_t *writes;    /* [n_writes] buffer indices it writes */
	uint32_t n_writes;
};

/* Optional custom chunk body (instead of the stage table): runs stages
 * first_stage .. first_stage+n_stages-1 on task t. Returns 0, or nonzero
 * after filling err (kind, code, msg; stage if known). */
typedef int (*btrt_chunk_body)(void *ctx, struct btrt_task *t,
			       struct btrt_error *err);

/* One chunk of the schedule: consecutive stages on one PU. */
struct btrt_chunk {
	const char *name;          /* PU name, e.g. "big", "gpu" */
	enum btrt_pu_kind pu;
	const int *cores;          /* [n_cores] CPU ids the dispatcher (and, for
				      CPU chunks, its OpenMP team) is pinned to */
	uint32_t n_cores;          /* 0: not pinned, OpenMP default team */
	uint32_t first_stage;      /* index into btrt_pipeline_config.stages */
	uint32_t n_stages;         /* >= 1 */
	btrt_chunk_body body;      /* NULL: the runtime runs the stage table */
	void *body_ctx;
	uint32_t farm;             /* 0: an ordinary chunk. Otherwise a farm id:
				      consecutive chunks with the same nonzero
				      id are the workers of one replicated
				      chunk (same first_stage and n_stages,
				      each on its own PU); whichever worker is
				      free takes the next task and the tasks
				      leave the farm in input order. Two
				      adjacent farms need different ids. */
};

/* What the io thread knows of a task it has just checked, for
 * btrt_pipeline_config.on_task_done (btrt_adapt.h observes the run through
 * it). Times are btrt_now_ns() nanoseconds. */
struct btrt_task_done {
	uint64_t seq;              /* the task's sequence number */
	uint64_t done_ns;          /* end of its check: when it left the pipeline */
	uint64_t io_ns;            /* load_ns + check_ns (both io threads' work
				      for it; they overlap across tasks) */
	uint32_t n_chunks;
	const uint64_t *chunk_ns;  /* [n_chunks] its pop-to-finish time in each
				      chunk (what the run records per task) */
	uint64_t load_ns;          /* its load on the io source thread */
	uint64_t check_ns;         /* its check on the io sink thread */
};

/* Called on the io sink (the caller's thread) after every checked task
 * (also while draining). Returns 0 to go on, nonzero to stop admitting:
 * the io source loads no further item, the tasks in flight finish and are checked, and
 * btrt_pipeline_run returns 0 with btrt_run_items(run) tasks checked; a
 * following run with first_seq = first_seq + that many continues the
 * stream (btrt_adapt.h switches schedules that way). */
typedef int (*btrt_task_done_fn)(void *ctx, const struct btrt_task_done *d);

struct btrt_pipeline_config {
	const char *app;           /* app name (trace metadata) */
	const struct btrt_stage *stages; /* [n_stages] */
	uint32_t n_stages;
	const struct btrt_chunk *chunks; /* [n_chunks], covering the stages in order */
	uint32_t n_chunks;         /* >= 1 */
	struct btrt_pool *pool;
	const struct btrt_app_io *io;
	void *io_state;            /* from io->open */
	uint64_t n_items;          /* items to stream; 0: until io->load returns 0 */
	int check;                 /* nonzero: io->check every finished task */
	FILE *check_out;           /* digest lines from io->check (NULL: silent) */
	const int *io_cores;       /* [n_io_cores] the service cores of the io
				      threads: with two or more the source gets
				      the first half and the sink (the caller's
				      thread, restored afterwards) the rest; with
				      one both share it. NULL: unpinned */
	uint32_t n_io_cores;
	struct btrt_vk *vk;        /* for BTRT_PU_VULKAN chunks */
	struct btrt_cuda *cuda;    /* for BTRT_PU_CUDA chunks */
	uint64_t record_limit;     /* timing records kept: the first N tasks per
				      chunk and io (~100 bytes per task for 5
				      stages); 0: BTRT_DEFAULT_RECORD_LIMIT */
	const btrt_atomic_int *interrupt; /* NULL, or a flag that a signal handler may
				      set (a lock-free atomic store is
				      async-signal-safe): nonzero stops the run
				      with BTRT_E_INTR. Read by the io source
				      before each load and by the io sink before
				      and after each check. */
	/* Continuing a stream (btrt_adapt.h): the first item loaded is
	 * first_seq, and the io sink expects first_seq, first_seq + 1, ...
	 * back; n_items still counts from 0 (the stream ends at seq n_items).
	 * The run's io records are indexed from first_seq. 0: a new stream. */
	uint64_t first_seq;
	btrt_task_done_fn on_task_done; /* NULL, or see btrt_task_done_fn */
	void *on_task_done_ctx;
	int no_pin;                /* 1: pin no thread (BTRT_NO_PIN; run a
				      phone's schedule on a small box) */
	uint32_t check_threads;    /* the io sink's check farm: k threads check
				      the finished tasks, task seq on worker
				      (seq - first_seq) mod k, each worker in
				      seq order (the sink is worker 0, so k - 1
				      threads more); 0 or 1: the sink alone.
				      At most BTRT_CHECK_THREADS_MAX. Taken as
				      1 where the checks must stay on one
				      thread: no check, check_out set (digest
				      lines in input order), on_task_done set
				      (the hook runs in order on the sink), or
				      io->check_serial (btrt_io_check_threads) */
	uint32_t load_threads;     /* the io source's load farm: k loaders load
				      the items, item seq on loader (seq -
				      first_seq) mod k (the source is loader
				      0 and pushes every item into the first
				      link in input order); 0 or 1: the source
				      alone. At most BTRT_LOAD_THREADS_MAX;
				      see btrt_io_load_threads */
};

#define BTRT_CHECK_THREADS_MAX 16u
#define BTRT_LOAD_THREADS_MAX 16u

/* The loaders a run of cfg uses: load_threads (0 read as 1), or 1 where
 * the loads must stay on one thread (on_task_done set: the hook reads
 * each task's load time; io->load_serial), at most the pool's size (the
 * source hands out up to that many TaskObjects ahead). The chunk model's
 * io term divides T_load by it (btrt_model_io_ms). */
uint32_t btrt_io_load_threads(const struct btrt_pipeline_config *cfg);

/* The check workers a run of cfg uses: check_threads (0 read as 1), or 1
 * where cfg keeps the checks on one thread (see check_threads), at most
 * the pool's size. The chunk model's io term divides T_check by it
 * (btrt_model_io_ms). */
uint32_t btrt_io_check_threads(const struct btrt_pipeline_config *cfg);

/* What the GPU chunks of a schedule do with a buffer
 * (btrt_chunks_gpu_touched). */
enum btrt_gpu_use {
	BTRT_GPU_UNTOUCHED = 0, /* no stage of a GPU chunk reads or writes it */
	BTRT_GPU_SHARED = 1,    /* a GPU chunk's stage touches it, and so does
				   a CPU chunk's stage, or it is an output */
	BTRT_GPU_PRIVATE = 2,   /* only GPU chunks' stages touch it, and a
				   stage reads the value its last writer
				   wrote (an intermediate, not an output) */
};

/* The buffers the GPU sees in a schedule: touched[b] (b < n_buffers,
 * every entry written) is an enum btrt_gpu_use, from the reads and writes
 * lists of the stages of chunks[0..n_chunks) (a Vulkan or CUDA chunk, a
 * farm's GPU worker too, is a GPU chunk). An output is a buffer some
 * stage writes and no stage reads after its last write: the io check
 * reads it on the host. A scratch buffer (buffers[b].scratch, the app's
 * `scratch: true`; buffers may be NULL: none) is never an output, so a
 * GPU chunk that alone touches it keeps it PRIVATE (octree's radix-sort
 * ping-pong buffer `sort_tmp`). Whether io.load refills a buffer is not known
 * here (btrt_pool_config.io_loaded): a PRIVATE buffer io.load refills is
 * shared all the same.
 *
 * A CUDA pool keeps an UNTOUCHED buffer in plain host memory
 * (btrt_pool_config.gpu_touched): no pinned or managed allocation for a
 * buffer only the CPU chunks and the io threads use (octree's 59 MB node
 * array per TaskObject where its last stage runs on a CPU). It keeps a
 * PRIVATE buffer a stage writes in managed memory, which the chunk moves
 * to the device on a TaskObject's first task and leaves there (octree's
 * sort buffers in cuda:0-5 cpu:6; AlexNet's activations inside a CUDA
 * chunk), not in pinned host memory that every kernel would read and
 * write across the bus. Returns 0, or -1 when a chunk's stages lie beyond
 * n_stages or a list names a buffer >= n_buffers (touched is then
 * undefined). */
int btrt_chunks_gpu_touched(const struct btrt_stage *stages, uint32_t n_stages,
			    const struct btrt_chunk *chunks, uint32_t n_chunks,
			    const struct btrt_buffer_desc *buffers, uint32_t n_buffers,
			    unsigned char *touched);

#define BTRT_DEFAULT_RECORD_LIMIT (1u << 18)

struct btrt_run; /* records of one run: btrt_trace.h */

/* Runs the pipeline on the caller's thread (the io sink), an io source
 * thread and one dispatcher thread per chunk, until n_items items (or the input) are
 * through, or the first error. Environment: BTRT_NO_PIN=1 disables all
 * pinning (e.g. to run a phone's schedule on a small dev box).
 * If run is non-NULL, *run receives the timing records (also after an
 * error; free with btrt_run_free). Returns 0, or -1 with err filled:
 * BTRT_E_INVAL (bad tables: msg says which), BTRT_E_SYS (threads, pinning),
 * BTRT_E_KERNEL / BTRT_E_VULKAN / BTRT_E_CUDA (chunk, stage, seq set),
 * BTRT_E_IO (load failed; seq set), BTRT_E_CHECK (the output check of
 * task seq failed; seq set), BTRT_E_INTR (cfg->interrupt
 * was set; the run's records hold what finished before). */
int btrt_pipeline_run(const struct btrt_pipeline_config *cfg,
		      struct btrt_run **run, struct btrt_error *err);

/* Pins the calling thread to cores[0..n-1] (sched_setaffinity on the
 * calling thread: glibc and Android's bionic alike).
 * Returns 0, or -1 with err filled (BTRT_E_SYS). n == 0 is a no-op. */
int btrt_pin_self(const int *cores, uint32_t n, struct btrt_error *err);

/* OpenMP wait policy: how a CPU chunk's idle team waits between its
 * parallel regions. libgomp's default keeps idle workers spinning for
 * ~300k iterations after every parallel region (LLVM's libomp: 200 ms),
 * which starves the dispatchers and kernels of other chunks whenever PUs
 * share cores (a small dev box) and burns power on phones: there the
 * program asks for BTRT_OMP_WAIT_PASSIVE. Where every thread of the
 * program has cores of its own (the generator's service cores, CPU PUs on
 * disjoint cores, no CPU-backed GPU: btc_gen_omp_spin) it asks for
 * BTRT_OMP_WAIT_SPIN, the runtime's own bounded spin: a passive team
 * sleeps after each region and every region then starts with a futex wake
 * of each worker, which a virtual machine pays as an interrupt to a halted
 * vCPU (alexnet-dense's CPU-only schedule ran 1.48x slower passive on the
 * dev box, the median of 7 rounds; docs/runtime.md, "OpenMP"). */
enum btrt_omp_wait {
	BTRT_OMP_WAIT_PASSIVE = 0, /* OMP_WAIT_POLICY=passive (the default) */
	BTRT_OMP_WAIT_SPIN = 1,    /* the OpenMP runtime's default bounded spin */
};

/* Applies policy w. The policy is read once when the OpenMP runtime loads,
 * before main, so the generated main() calls this first: if none of
 * OMP_WAIT_POLICY, GOMP_SPINCOUNT and KMP_BLOCKTIME is set and w is
 * BTRT_OMP_WAIT_PASSIVE, it sets OMP_WAIT_POLICY=passive and re-executes
 * the program (/proc/self/exe, same argv, once); BTRT_OMP_WAIT_SPIN needs
 * nothing, and counts as passive under BTRT_NO_PIN=1 (unpinned threads
 * may share cores: a program run on a machine other than its device's).
 * A policy set in the environment wins either way (set
 * OMP_WAIT_POLICY=active or passive to override the build's). Returns 0
 * when no re-exec was needed, -1 if the re-exec failed (the program then
 * continues with the OpenMP default). */
int btrt_omp_env_init(char **argv, enum btrt_omp_wait w);

/* The wait policy in effect after btrt_omp_env_init(argv, w), for the
 * report: "passive", "spin" (the runtime's bounded default) or "environment"
 * (OMP_WAIT_POLICY, GOMP_SPINCOUNT or KMP_BLOCKTIME set by the user). A
 * static string. After a re-exec that failed (btrt_omp_env_init -1, the
 * OpenMP runtime's default in effect) it still says "passive". */
const char *btrt_omp_wait_name(enum btrt_omp_wait w);

/* ---- Probes of one task's buffers (btrt_probe.c) ----
 * They use TaskObject 0 of a probe pool: a pool of one TaskObject in host
 * memory (BTRT_BACKEND_HOST) whose task is bound, made by
 * btrt_probe_pool_create, and overwrite its buffers. Keep that pool alive
 * until the run is over (destroy it with the run's pools): an io that
 * remembers which TaskObjects it filled by their buffers' addresses
 * (AlexNet's weights, loaded once per TaskObject) would find a later
 * pool's buffers at the freed addresses and not fill them. */

/* Sets a TaskObject's typed fields after btrt_pool_create: the generated
 * code's `task->params = ctx` and APP_task_bind (docs/codegen.md). */
typedef void (*btrt_task_bind_fn)(void *task, const void *ctx);

/* Makes the probe pool of a run and probes it once: a pool with cfg's
 * layout (task_size, buffers, counts, n_buffers) but one TaskObject in
 * host memory (cfg's n_tasks, backend, vk, cuda and io_loaded are not
 * used), TaskObject 0 bound with bind(task, bind_ctx), then
 * btrt_probe_io_loads into loaded[] (cfg->n_buffers bytes). The generated
 * pipeline (CUDA builds: btrt_pool_config.io_loaded) and profiler
 * (`# io_loads:`, then btrt_probe_touched on the same pool) both start
 * this way. Returns 0 with *probe set (the caller keeps it to the end of
 * the run, see above, and frees it with btrt_pool_destroy), or -1 with
 * err filled (those of btrt_pool_create, BTRT_E_IO) and *probe NULL,
 * nothing leaked. */
int btrt_probe_pool_create(struct btrt_pool **probe, const struct btrt_pool_config *cfg,
			   btrt_task_bind_fn bind, const void *bind_ctx,
			   const struct btrt_app_io *io, void *io_state, unsigned char *loaded,
			   struct btrt_error *err);

/* Which buffers io.load refills for every task (the profiler's
 * `# io_loads:`, btrt_pool_config.io_loaded): loads item 0, fills every
 * buffer with a byte pattern, loads item 1; loaded[b] (n_buffers bytes)
 * = 1 where any byte changed. Returns 0, or -1 with err filled
 * (BTRT_E_IO). */
int btrt_probe_io_loads(struct btrt_pool *pool, const struct btrt_app_io *io, void *io_state,
			unsigned char *loaded, struct btrt_error *err);

/* The bytes of each buffer that one task touches, counted in 4 KiB pages
 * (the chunk model's transfer sizes: a buffer sized for the largest input
 * moves what the task wrote, not its capacity): every buffer filled with a
 * byte pattern, item 0 loaded, then every stage's CPU kernel in order;
 * touched[b] (n_buffers values, bytes) = the size of the pages holding a
 * changed byte. Returns 0; 1 when a stage has no CPU kernel or fails
 * (touched[] then holds the buffers' sizes); -1 with err filled. */
int btrt_probe_touched(struct btrt_pool *pool, const struct btrt_stage *stages, uint32_t n_stages,
		       const struct btrt_app_io *io, void *io_state, uint64_t *touched,
		       struct btrt_error *err);

/* btrt_probe_io_ms's figures, by index: load + check (the `@io` row), the
 * io source's load and the io sink's check timed apart (`@io_load`,
 * `@io_check`; the runtime overlaps them, T_io = max(load, check)). */
enum { BTRT_IO_SUM, BTRT_IO_LOAD, BTRT_IO_CHECK, BTRT_IO_N };

/* T_io of the chunk model: the io's time per task, load and check, with
 * the app's io on the real input, measured on TaskObject 0 of `pool`
 * (host memory; its buffers are overwritten). Calls io->prepare for
 * reps + 1 items as btrt_pipeline_run does, then for items 0..reps: load
 * (timed), every stage's CPU kernel in order (untimed: the check sees a
 * real output), check (timed); item 0 is a warm-up. mean[k] and sd[k]
 * (ms, k < BTRT_IO_N: load + check, load, check) over the reps others
 * (reps >= 1); mean[BTRT_IO_SUM] = mean[BTRT_IO_LOAD] +
 * mean[BTRT_IO_CHECK] up to rounding. Returns 0, or -1 with err filled:
 * BTRT_E_IO (prepare, load or check failed, the item named),
 * BTRT_E_INVAL (a stage without a CPU kernel), BTRT_E_KERNEL. */
int btrt_probe_io_ms(struct btrt_pool *pool, const struct btrt_stage *stages, uint32_t n_stages,
		     const struct btrt_app_io *io, void *io_state, long reps,
		     double mean[BTRT_IO_N], double sd[BTRT_IO_N], struct btrt_error *err);

#ifdef __cplusplus
}
#endif
#endif
