/* Test and benchmark harness of the AlexNet apps: the stage tables that
   btc would generate from apps/alexnet-{dense,sparse}.yaml (CPU, CUDA and
   Vulkan kernels), a pool of TaskObjects from btrt, schedules as strings,
   and comparisons of every stage output with the sequential reference.
   Used by the CUnit runner (test/alexnet/runner.c), the CUDA check program
   and the benchmark; no CUnit in here. */
#ifndef ALEXNET_HARNESS_H
#define ALEXNET_HARNESS_H

#include <btrt.h>
#include <btrt_pipeline.h>
#include <btrt_pool.h>
#include <btrt_trace.h>
#include <btrt_vk.h>
#include <btrt_cuda.h>
#include <btrt_env.h>

#include "alexnet_dense_task.h"
#include "alexnet_sparse_task.h"
#include "io_common.h"

#define ALEXNET_N_STAGES 9
#define HARNESS_MAX_BUFFERS 40

struct alexnet_app {
	const char *name;                 /* "alexnet_dense" / "alexnet_sparse" */
	int sparse;
	struct alexnet_dense_params dense_params;
	struct alexnet_sparse_params sparse_params;
	int64_t batch;
	const struct btrt_buffer_desc *buffers;
	uint32_t n_buffers;
	size_t counts[HARNESS_MAX_BUFFERS];
	size_t task_size;
	const struct btrt_app_io *io;
	struct btrt_stage stages[ALEXNET_N_STAGES];
	struct btrt_vk_dispatch vk[ALEXNET_N_STAGES + 1]; /* + argmax */
	uint32_t push_batch;
	uint32_t reads[ALEXNET_N_STAGES][5], writes[ALEXNET_N_STAGES][2];
	/* Vulkan shaders (SPIR-V read from the build folder), [10]. */
	struct btrt_vk_shader shaders[ALEXNET_N_STAGES + 1];
	uint32_t *spirv[ALEXNET_N_STAGES + 1];
};

/* Fills the stage table (CPU kernels and Vulkan dispatches) of the dense
   (sparse = 0) or sparse app with the given batch (and sparsity for sparse). */
void alexnet_app_init(struct alexnet_app *a, int sparse, int64_t batch, int64_t sparsity);
/* Reads the app's SPIR-V files from $ALEXNET_SPV_DIR if set, else from the
   build's kernels/alexnet folder. 0, or -1 with msg. */
int alexnet_app_load_spirv(struct alexnet_app *a, char *err, size_t errlen);
void alexnet_app_free(struct alexnet_app *a);

/* Sets the CUDA launchers of every stage (defined in harness_cuda.c, which
   only CUDA programs link). */
void alexnet_app_set_cuda(struct alexnet_app *a);

/* Creates a pool of n TaskObjects on backend and binds the typed fields. */
int harness_pool(const struct alexnet_app *a, enum btrt_backend backend, struct btrt_vk *vk,
		 struct btrt_cuda *cuda, uint32_t n, struct btrt_pool **out,
		 struct btrt_error *err);

/* Creates the Vulkan context for the app (needs alexnet_app_load_spirv). */
int harness_vk(const struct alexnet_app *a, struct btrt_vk **out, struct btrt_error *err);

/* A schedule as a string of chunks "PU:first-last" separated by commas,
   PU one of cpu, vk, cuda: "cpu:0-8", "cpu:0-3,vk:4-8". At most 9 chunks.
   Fills chunks[] (names point into static storage). Returns the number of
   chunks or -1 if the string is malformed or does not cover 0..8 in order. */
int harness_schedule(const char *s, struct btrt_chunk chunks[ALEXNET_N_STAGES]);

/* Runs n_items items through the app on the schedule with checking on.
   images: NULL for the default sample batch. Writes the io summary to
   summary_out (NULL: silent). Fills counted/correct/ref_correct (from
   io state, NULL allowed). Returns 0 or -1 with msg. */
struct harness_result {
	uint64_t counted, correct, ref_correct;
	struct btrt_run *run;             /* freed by the caller if keep_run */
};
int harness_run(const struct alexnet_app *a, const char *schedule, uint64_t n_items,
		uint32_t pool_size, struct btrt_vk *vk, struct btrt_cuda *cuda, int check,
		int keep_run, struct harness_result *res, FILE *summary_out, char *msg,
		size_t msglen);

/* Runs item seq through every stage on one backend (schedule "PU:0-8" with a
   pool of one TaskObject) and compares each stage's output buffer with the
   sequential reference of that stage applied to the reference input. Writes
   the worst relative error of every stage to worst[9]. Returns 0 when every
   stage is within ALEXNET_TOLERANCE, else -1 with msg naming the stage. */
int harness_stages(const struct alexnet_app *a, const char *pu, uint64_t seq,
		   struct btrt_vk *vk, struct btrt_cuda *cuda, double worst[ALEXNET_N_STAGES],
		   char *msg, size_t msglen);

#endif
