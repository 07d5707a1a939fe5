/* gpu_ctx.h: a btrt context (Vulkan or CUDA), a pool of octree
 * TaskObjects and the stage table, plus the two checks every backend must
 * pass: each stage alone against the reference, and whole pipelines under
 * a schedule with octree_io checking every octree. Shared by the CUnit
 * suites, the plain GPU test program and the benchmark. */
#ifndef OCTREE_GPU_CTX_H
#define OCTREE_GPU_CTX_H

#include <btrt_pipeline.h>
#include <btrt_pool.h>

#include "common.h"
#include "octree_stages.h"

struct gpu_ctx {
	enum btrt_backend backend;   /* pool backend: HOST, VULKAN or CUDA */
	struct btrt_vk *vk;
	struct btrt_cuda *cuda;
	struct btrt_pool *pool;
	struct octree_params params;
	struct octree_stage_table table;
	char device[256];
};

/* Opens backend be with a pool of n_tasks TaskObjects. Returns 0, 1 when
 * the backend has no device (or is not built), -1 on error (on stderr). */
int gpu_open(struct gpu_ctx *g, enum btrt_backend be, uint32_t n_tasks);
void gpu_close(struct gpu_ctx *g);

/* Runs stage s alone on PU kind pu for every frame of f, inputs from the
 * reference, and compares its outputs. Returns the number of failures
 * (messages on stderr), or -1 if the pipeline could not run. */
int gpu_check_stage(struct gpu_ctx *g, const struct frames *f, int s, enum btrt_pu_kind pu);

/* A schedule: chunks of consecutive stages, each on one PU kind. */
struct octree_sched {
	const char *name;
	int n_chunks;
	enum btrt_pu_kind pu[4];
	uint32_t first[4], count[4];
};

/* Streams n_items frames of input (a directory or one .pcd) through the
 * whole app under schedule sc, octree_io checking each octree; writes the
 * digest lines to digest (NUL-terminated). If run is non-NULL it receives
 * the timing records. Returns 0, or -1 (message on stderr). */
int gpu_run_schedule(struct gpu_ctx *g, const struct octree_sched *sc, const char *input,
		     uint64_t n_items, char *digest, size_t len, struct btrt_run **run);

#endif
