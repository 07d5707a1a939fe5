/* btrt_cuda.h: CUDA backend (device, unified buffers, chunk execution).
 *
 * Each CUDA chunk owns one non-blocking stream (created by the pipeline in
 * its dispatcher thread). Per task it: makes the chunk's declared
 * read/write buffers available to the GPU (integrated GPUs without
 * concurrent managed access: cudaStreamAttachMemAsync to the stream; a
 * discrete GPU with managed memory: cudaMemPrefetchAsync to the device),
 * launches every stage's launcher asynchronously with an event before and
 * after each stage, hands written managed buffers back to the host
 * (attach-to-host / prefetch to the CPU), and synchronises once
 * (cudaStreamSynchronize). Per-stage GPU time comes from the events. Every
 * CUDA call is checked; a failure names the call, the chunk, stage and task.
 *
 * The environment (BTRT_CUDA_DEVICE, BTRT_CUDA_MEM, BTRT_CUDA_SYNC,
 * BTRT_CUDA_MOVE, BTRT_CUDA_IO_PINNED, BTRT_CUDA_READ_MOSTLY,
 * BTRT_CUDA_PRIVATE) reaches the backend only through btrt_cuda_config
 * (btrt_env.h: btrt_env_cuda_config). */
#ifndef BTRT_CUDA_H
#define BTRT_CUDA_H

#include "btrt.h"

#ifdef __cplusplus
extern "C" {
#endif

struct btrt_cuda;

/* How unified buffers are allocated. */
enum btrt_cuda_mem {
	BTRT_CUDA_MEM_AUTO = 0,    /* managed on integrated GPUs; on discrete GPUs
				      measure managed+prefetch vs pinned per buffer
				      size and pick the faster */
	BTRT_CUDA_MEM_MANAGED = 1, /* cudaMallocManaged always */
	BTRT_CUDA_MEM_PINNED = 2,  /* cudaHostAlloc(Mapped|Portable) always */
};

/* How the CUDA device's host thread waits for its stream (cudaSetDeviceFlags). */
enum btrt_cuda_sync {
	BTRT_CUDA_SYNC_DEFAULT = 0, /* CUDA's (auto: spin while cores outnumber contexts) */
	BTRT_CUDA_SYNC_SPIN = 1,
	BTRT_CUDA_SYNC_YIELD = 2,
	BTRT_CUDA_SYNC_BLOCK = 3,
};

struct btrt_cuda_config {
	int device;                /* CUDA device ordinal; -1: 0 */
	enum btrt_cuda_mem mem;
	enum btrt_cuda_sync sync;  /* ignored once the device's context is active */
	int move_all;              /* (diagnostic) 1: move every managed buffer a
				      chunk touches, every task (the rule before
				      the shared/private split) */
	int io_managed;            /* (diagnostic) 1: io-loaded read-only inputs in
				      managed memory, not pinned */
	int no_read_mostly;        /* (diagnostic) 1: managed weights without
				      cudaMemAdviseSetReadMostly (the rule
				      before issue 25's fix) */
	int probe_private;         /* (diagnostic) 1: a GPU chunk's private
				      intermediates left to the probe, as
				      shared ones (the rule before) */
	const char *probe_file;    /* the placement probe's results kept
				      across processes (BTRT_CUDA_PROBE_FILE,
				      set by btc's main job for its runs):
				      read before probing a size, appended
				      after; NULL: none. Copied */
};

/* The memory kind of one unified buffer in a CUDA pool. */
enum btrt_cuda_kind {
	BTRT_CUDA_KIND_HOST = 0,    /* plain host memory (placement: host, or
				       no GPU stage of the run touches it) */
	BTRT_CUDA_KIND_MANAGED = 1, /* cudaMallocManaged */
	BTRT_CUDA_KIND_PINNED = 2,  /* cudaHostAlloc(Mapped|Portable) */
	BTRT_CUDA_KIND_DEVICE = 3,  /* cudaMalloc (placement: device) */
	BTRT_CUDA_KIND_PROBE = 4,   /* managed or pinned, whichever the pool's
				       probe of its size measures faster */
};

/* What the pool knows of the device and the configuration when it places
 * a buffer (btrt_cuda_place). */
struct btrt_cuda_rule {
	int integrated;            /* 1: the GPU shares memory with the CPU (Jetson) */
	int concurrent_managed;    /* cudaDevAttrConcurrentManagedAccess */
	enum btrt_cuda_mem mem;    /* BTRT_CUDA_MEM */
	int io_managed;            /* btrt_cuda_config.io_managed */
	int no_read_mostly;        /* btrt_cuda_config.no_read_mostly */
	int probe_private;         /* btrt_cuda_config.probe_private */
};

struct btrt_cuda_place {
	enum btrt_cuda_kind kind;
	/* 1: managed memory advised cudaMemAdviseSetReadMostly: the CPU and
	 * the GPU each read their own copy and no read migrates a page. Set
	 * for buffers no stage writes and io.load does not refill (weights):
	 * a CPU chunk reading its weights every task (alexnet-dense
	 * cuda:0-7 cpu:8 reads linear_w) otherwise faults the pages it
	 * shares with the GPU chunk's weights (small managed allocations
	 * share pages and 2 MiB blocks) back to the host, and the GPU
	 * faults them back or reads them over the link (issue 25: the
	 * convolutions 1.5-3x slower, docs/results/h100-mixed.md). */
	int read_mostly;
};

/* Where the CUDA pool puts unified buffer d (docs/runtime.md, "Unified
 * buffers"); io_loaded: 1 where io.load refills it every task;
 * gpu_touched: an enum btrt_gpu_use (btrt_chunks_gpu_touched; 1,
 * SHARED, where the schedule is not known).
 * A pure function of its arguments (no CUDA call): placement host /
 * device as declared; else host memory for a buffer the GPU never sees;
 * else BTRT_CUDA_MEM forced; else managed on integrated GPUs or without
 * concurrent managed access; else, on a discrete GPU: pinned for a
 * stage-read-only io-loaded input (unless io_managed), managed and
 * read-mostly for the other stage-read-only buffers (unless
 * no_read_mostly), managed for a GPU chunk's private intermediates
 * (unless probe_private), and the probe's choice for the other buffers a
 * stage writes. */
struct btrt_cuda_place btrt_cuda_place(const struct btrt_cuda_rule *rule,
				       const struct btrt_buffer_desc *d, int io_loaded,
				       int gpu_touched);

/* Creates the context. Returns 0, or -1 with err: BTRT_E_NODEV if the
 * build has no CUDA or no device is present (tests exit 77 then),
 * BTRT_E_CUDA (code = cudaError_t) otherwise. */
int btrt_cuda_create(struct btrt_cuda **out, const struct btrt_cuda_config *cfg,
		     struct btrt_error *err);
void btrt_cuda_destroy(struct btrt_cuda *cu);
const char *btrt_cuda_device_name(const struct btrt_cuda *cu);
/* 1 on integrated GPUs (Jetson), 0 on discrete ones. */
int btrt_cuda_integrated(const struct btrt_cuda *cu);

/* What a chunk pays to move one managed buffer of `bytes` with the
 * runtime's own mechanism (cudaMemPrefetchAsync to the device, then back
 * to the host, each followed by a stream synchronisation), median of
 * `reps` runs after a warm-up, in ms per direction. The profiler fits
 * latency + bytes / bandwidth from two sizes (docs/scheduler.md). Returns
 * 0, or -1 with err. */
int btrt_cuda_prefetch_cost(struct btrt_cuda *cu, size_t bytes, int reps, double *in_ms,
			    double *out_ms, struct btrt_error *err);

#ifdef __cplusplus
}
#endif
#endif
