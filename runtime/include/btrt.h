/* btrt: the thin pipeline runtime that btc-generated programs link.
 *
 * This header is the stable contract between generated code, app kernels
 * and the runtime (see docs/app-format.md). Backend-specific APIs live in
 * btrt_vk.h and btrt_cuda.h; the pipeline (dispatchers, queues) in
 * btrt_pipeline.h. */
#ifndef BTRT_H
#define BTRT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BTRT_VERSION_MAJOR 0
#define BTRT_VERSION_MINOR 2
#define BTRT_VERSION_STRING "0.2"

/* Where a buffer lives (docs/app-format.md, "Placement"). */
enum btrt_placement {
	BTRT_PLACE_UNIFIED = 0,
	BTRT_PLACE_HOST = 1,
	BTRT_PLACE_DEVICE = 2,
};

/* Element types of TaskObject buffers. */
enum btrt_elem {
	BTRT_U8, BTRT_I8, BTRT_U16, BTRT_I16, BTRT_U32, BTRT_I32,
	BTRT_U64, BTRT_I64, BTRT_F32, BTRT_F64,
};

/* Static description of one TaskObject buffer (generated, layout order). */
struct btrt_buffer_desc {
	const char *name;
	enum btrt_elem elem;
	size_t elem_size;          /* bytes per element */
	enum btrt_placement placement;
	int stage_read_only;       /* 1: no stage writes it (inputs, weights): the
				      CPU fills it, GPU stages only read it.
				      On a discrete GPU it then lives in managed
				      memory, which migrates to the GPU once and
				      stays; advised read-mostly unless io.load
				      refills it (btrt_cuda_place), so that a CPU
				      chunk reading it keeps its own copy. */
	int scratch;               /* 1: a stage's working storage (the app's
				      `scratch: true`): no later stage and no
				      io check reads its value, so it is never
				      an output (btrt_chunks_gpu_touched): a
				      GPU chunk that alone touches it keeps it
				      on the device. */
};

/* One allocated buffer of one TaskObject. */
struct btrt_buffer {
	void *host;                /* CPU pointer; NULL for device placement */
	void *dev;                 /* CUDA pointer (== host for managed/pinned) */
	size_t bytes;              /* allocation size in bytes */
	enum btrt_placement placement;
	void *backend;             /* backend handle (Vulkan buffer record), or NULL */
};

/* Runtime part of a TaskObject; generated APP_task structs embed it first.
 * The pool (btrt_pool.h) fills every field; kernels only read them. */
struct btrt_task {
	uint64_t seq;              /* 0-based input sequence number of the item */
	uint32_t slot;             /* index of this TaskObject in the pool */
	uint32_t n_buffers;
	struct btrt_buffer *buffers; /* [n_buffers], layout order; owned by the pool */
	void *vk_set;              /* Vulkan descriptor set prepared for this slot
				      (VkDescriptorSet), NULL without Vulkan */
	void *pool;                /* struct btrt_pool * that owns this TaskObject */
};

/* Error codes of the runtime (btrt_strerror). Kernel errors keep the
 * kernel's own nonzero return value in btrt_error.code and set
 * btrt_error.kind = BTRT_E_KERNEL. */
#define BTRT_ERRORS(X) \
	X(BTRT_OK,        0, "success") \
	X(BTRT_E_KERNEL,  1, "kernel failed") \
	X(BTRT_E_NOMEM,   2, "out of memory") \
	X(BTRT_E_INVAL,   3, "invalid argument") \
	X(BTRT_E_SYS,     4, "system call failed") \
	X(BTRT_E_VULKAN,  5, "Vulkan error") \
	X(BTRT_E_CUDA,    6, "CUDA error") \
	X(BTRT_E_IO,      7, "input or output check failed") \
	X(BTRT_E_NODEV,   8, "no such device") \
	X(BTRT_E_STOPPED, 9, "stopped by another error") \
	X(BTRT_E_INTR,   10, "interrupted") \
	X(BTRT_E_CHECK,  11, "output check failed")
#define BTRT_ERR_ENUM_(name, val, str) name = val,
enum btrt_errkind { BTRT_ERRORS(BTRT_ERR_ENUM_) };
#undef BTRT_ERR_ENUM_

/* Returns a static string for an error kind ("unknown error" if invalid). */
const char *btrt_strerror(enum btrt_errkind kind);
/* The kind's enumerator as a static string, "BTRT_E_CHECK" ("BTRT_OK";
 * NULL if invalid): the "kind" of the program's failure JSON
 * (docs/report.md), which btc reads. */
const char *btrt_errname(enum btrt_errkind kind);

/* Where and why something failed. Filled by the runtime; chunk, stage and
 * seq are -1 / UINT64_MAX when they do not apply (e.g. a setup error).
 * msg always names chunk, stage and task when they apply, e.g.
 * "chunk 1 'gpu' stage 3 'sort' task 17 (slot 2): kernel returned 5". */
struct btrt_error {
	enum btrt_errkind kind;
	int code;                  /* kernel return value, VkResult, cudaError_t, errno */
	int chunk;                 /* chunk index, or -1 */
	int stage;                 /* stage index (app order), or -1 */
	uint64_t seq;              /* task sequence number, or UINT64_MAX */
	char msg[320];
};

/* Resets err to "no error" (kind BTRT_OK, indices -1, empty msg). */
void btrt_error_clear(struct btrt_error *err);
/* Fills err (if non-NULL) with kind, code and a printf-style message;
 * returns -1 so callers can `return btrt_error_set(...)`. Does not touch
 * chunk/stage/seq. */
int btrt_error_set(struct btrt_error *err, enum btrt_errkind kind, int code,
		   const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

/* Monotonic clock (CLOCK_MONOTONIC) in nanoseconds. */
uint64_t btrt_now_ns(void);

/* Checked number parsing for options and environment variables
 * (btrt_parse.c). The whole of s must be the number: surrounding blanks,
 * trailing characters, an empty string, an overflow of the type and a
 * value outside [min, max] are all refused. what names the number in the
 * message (an option "--max-reps" or a variable "BTRT_SPIN_NS"). On
 * success stores the value in *out and returns 0; otherwise leaves *out
 * alone and returns -1 with err (if non-NULL) of kind BTRT_E_INVAL and a
 * message naming what and s, e.g. "--max-reps: '3x' is not an integer"
 * or "--warmup: '-1' is out of range 0..1000000". */
int btrt_parse_long(const char *what, const char *s, long min, long max, long *out,
		    struct btrt_error *err);
/* As btrt_parse_long for a decimal floating-point number (strtod's
 * syntax less "inf", "nan" and hexadecimal), finite and in [min, max]. */
int btrt_parse_double(const char *what, const char *s, double min, double max, double *out,
		      struct btrt_error *err);

/* Input and output check of an app (docs/app-format.md, "io"). */
struct btrt_app_io {
	void *(*open)(const char *path, const void *params, char *err, size_t errlen);
	int (*load)(void *state, uint64_t seq, void *task, char *err, size_t errlen);
	int (*check)(void *state, uint64_t seq, const void *task, FILE *out,
		     char *err, size_t errlen);
	void (*close)(void *state, FILE *out);
	/* Optional (NULL): computes what check will need for items 0..n-1
	 * (n = 0: unknown), e.g. the sequential reference outputs, so that the
	 * run's timing does not include them. btrt_pipeline_run calls it
	 * before it starts, when it checks. Returns 0, or -1 with a message. */
	int (*prepare)(void *state, uint64_t n_items, char *err, size_t errlen);
	/* Concurrency of check (docs/app-format.md, "io"): 0 (the default),
	 * check may run on several threads at once for different tasks (the
	 * io sink's check farm, btrt_pipeline_config.check_threads), each
	 * call with its own task, msg buffer and seq; the io guards its own
	 * shared state. 1: check is not safe to call concurrently: the
	 * runtime checks on one thread (check_threads is taken as 1). */
	int check_serial;
	/* The same for load (the io source's load farm,
	 * btrt_pipeline_config.load_threads): 0, load may run on several
	 * threads at once for different items (never beside open, prepare
	 * or close); 1: it may not (load_threads is taken as 1). */
	int load_serial;
};

/* Copies `bytes` bytes from src to dst for an io load into a TaskObject
 * buffer (a frame, an image): what memcpy does, faster for large inputs.
 * Both buffers are the caller's, borrowed for the call; they must not
 * overlap; any alignment. Nothing fails and nothing is returned. From
 * BTRT_IO_COPY_STREAM_MIN bytes on x86-64 it writes dst with
 * non-temporal (SSE2 streaming) stores, which skip the read for
 * ownership of each destination line and leave the caches to the chunks,
 * then fences them (sfence) so that they are visible before the source
 * publishes the task; below that size, or on other targets, it is
 * memcpy. On the H100 machine one 4.9 MB octree frame into pinned memory
 * took 0.40 ms against memcpy's 0.49, and 0.82 against 1.00 beside 14
 * memory-bound threads; in the pipeline the load cost 0.85 of memcpy's
 * (docs/results/h100-load-copy.md). */
#define BTRT_IO_COPY_STREAM_MIN ((size_t)1 << 20)
void btrt_io_copy(void *dst, const void *src, size_t bytes);
/* Process-wide, no return: stream != 0 (the default) as above, 0 makes
 * btrt_io_copy plain memcpy (BTRT_IO_COPY=memcpy through btrt_env_init:
 * a diagnostic, to race the two copies in one program,
 * scripts/io-copy-ab). Call before the pipeline's threads start. */
void btrt_io_copy_configure(int stream);
/* fn(ctx, i) once for every i in [0, n), on as many threads as the
 * process may use (its CPU affinity; at most 64 and n), the caller's
 * among them; each thread takes the next i (an atomic counter), so the
 * calls run in no set order and fn must write only what belongs to its
 * i. For an app io's one-off work before a run: the input's open, the
 * check's references (the tuner runs every schedule's program afresh, so
 * a run starts about n / cores items after the call rather than n).
 * Threads that cannot be started leave their items to the caller; fn
 * cannot fail here (record a failure in ctx, by i). Returns the threads
 * that ran (1 .. 64; 0 when n is 0) after every call has returned. */
size_t btrt_io_parallel(size_t n, void (*fn)(void *ctx, size_t i), void *ctx);

#define BTRT_CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
#define BTRT_MIN(a, b) ((a) < (b) ? (a) : (b))
#define BTRT_MAX(a, b) ((a) > (b) ? (a) : (b))

#ifdef __cplusplus
}
#endif
#endif
