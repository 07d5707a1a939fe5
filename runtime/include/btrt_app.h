/* The tables of one app as btc generates them (docs/codegen.md): its
 * stages, TaskObject layout, default parameters, io and shaders. The
 * generated programs (btrt_profiler.h) hand these to the runtime; every
 * pointer is borrowed and must outlive the call that takes it (static
 * const tables in practice). */
#ifndef BTRT_APP_H
#define BTRT_APP_H

#include <stddef.h>
#include <stdint.h>

#include "btrt.h"
#include "btrt_pipeline.h"
#include "btrt_vk.h"

#ifdef __cplusplus
extern "C" {
#endif

struct btrt_app {
	const char *name;                 /* the app's name, e.g. "octree" */
	const struct btrt_stage *stages;  /* [n_stages] in app order */
	uint32_t n_stages;
	size_t task_size;                 /* sizeof(struct APP_task) */
	const void *params;               /* const struct APP_params *: the defaults */
	const struct btrt_buffer_desc *buffers; /* [n_buffers] in layout order */
	uint32_t n_buffers;
	/* Element count of buffer b under params (APP_buffer_count). */
	size_t (*buffer_count)(const void *params, uint32_t b);
	/* Sets a TaskObject's typed fields; ctx is params (APP_task_bind). */
	btrt_task_bind_fn bind;
	const struct btrt_app_io *io;
	const struct btrt_vk_shader *shaders; /* [n_shaders] the build's SPIR-V */
	uint32_t n_shaders;
	const char *default_input;        /* --input without the option; NULL: the io's own */
};

#ifdef __cplusplus
}
#endif

#endif
