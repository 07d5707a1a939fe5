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
#define BTRT_VERSION_MINOR 1
#define BTRT_VERSION_STRING "0.1"

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
};

/* One allocated buffer of one TaskObject. */
struct btrt_buffer {
	void *host;                /* CPU pointer; NULL for device placement */
	void *dev;                 /* CUDA pointer (== host for managed/pinned) */
	size_t bytes;              /* allocation size in bytes */
	enum btrt_placement placement;
	void *backend;             /* backend handle (Vulkan buffer record), or NULL */
};

/* Runtime part of a TaskObject; generated APP_task structs embed it first. */
struct btrt_task {
	uint64_t seq;              /* 0-based input sequence number of the item */
	uint32_t slot;             /* index of this TaskObject in the pool */
	uint32_t n_buffers;
	struct btrt_buffer *buffers; /* [n_buffers], layout order; owned by the pool */
	void *vk_set;              /* Vulkan descriptor set prepared for this slot */
};

/* Input and output check of an app (docs/app-format.md, "io"). */
struct btrt_app_io {
	void *(*open)(const char *path, const void *params, char *err, size_t errlen);
	int (*load)(void *state, uint64_t seq, void *task, char *err, size_t errlen);
	int (*check)(void *state, uint64_t seq, const void *task, FILE *out,
		     char *err, size_t errlen);
	void (*close)(void *state, FILE *out);
};

#define BTRT_CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
#define BTRT_MIN(a, b) ((a) < (b) ? (a) : (b))
#define BTRT_MAX(a, b) ((a) > (b) ? (a) : (b))

#ifdef __cplusplus
}
#endif
#endif
