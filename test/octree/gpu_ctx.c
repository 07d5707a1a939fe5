/* gpu_ctx.c: see gpu_ctx.h. */
#include "gpu_ctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <btrt_cuda.h>
#include <btrt_env.h>
#include <btrt_vk.h>

#include "btc_config.h"
#include "io.h"

int gpu_open(struct gpu_ctx *g, enum btrt_backend be, uint32_t n_tasks)
{
	struct btrt_error err;
	struct octree_params p = OCTREE_DEFAULT_PARAMS;
	size_t counts[OCTREE_N_BUFFERS];
	memset(g, 0, sizeof *g);
	g->backend = be;
	g->params = p;
	btrt_error_clear(&err);
	snprintf(g->device, sizeof g->device, "host");
	struct btrt_env env;
	if (btrt_env_read(&env, &err)) {
		fprintf(stderr, "octree: %s\n", err.msg);
		return -1;
	}
	if (be == BTRT_BACKEND_VULKAN) {
		struct btrt_vk_config cfg = {
			.device = NULL, .validation = -1, .n_buffers = OCTREE_N_BUFFERS,
			.push_bytes = 0, .shaders = octree_vk_shaders,
			.n_shaders = OCTREE_N_SHADERS,
		};
		btrt_env_vk_config(&env, &cfg);
		if (!octree_vk_shaders)
			return 1;
		if (btrt_vk_create(&g->vk, &cfg, &err)) {
			fprintf(stderr, "octree: Vulkan: %s\n", err.msg);
			return err.kind == BTRT_E_NODEV ? 1 : -1;
		}
		snprintf(g->device, sizeof g->device, "%s", btrt_vk_device_name(g->vk));
	} else if (be == BTRT_BACKEND_CUDA) {
		struct btrt_cuda_config cfg = { .device = -1, .mem = BTRT_CUDA_MEM_AUTO };
		btrt_env_cuda_config(&env, &cfg);
		if (!BTC_HAVE_CUDA)
			return 1;
		if (btrt_cuda_create(&g->cuda, &cfg, &err)) {
			fprintf(stderr, "octree: CUDA: %s\n", err.msg);
			return err.kind == BTRT_E_NODEV ? 1 : -1;
		}
		snprintf(g->device, sizeof g->device, "%s", btrt_cuda_device_name(g->cuda));
	}
	for (int b = 0; b < OCTREE_N_BUFFERS; b++)
		counts[b] = octree_buffer_count(&g->params, b);
	struct btrt_pool_config pc = {
		.task_size = sizeof(struct octree_task), .n_tasks = n_tasks,
		.buffers = octree_buffers, .counts = counts, .n_buffers = OCTREE_N_BUFFERS,
		.backend = be, .vk = g->vk, .cuda = g->cuda,
	};
	if (btrt_pool_create(&g->pool, &pc, &err)) {
		fprintf(stderr, "octree: pool: %s\n", err.msg);
		gpu_close(g);
		return -1;
	}
	for (uint32_t i = 0; i < n_tasks; i++) {
		struct octree_task *t = btrt_pool_task(g->pool, i);
		t->params = &g->params;
		octree_task_bind(t);
	}
	octree_stage_table_init(&g->table, &g->params, be == BTRT_BACKEND_CUDA);
	return 0;
}

void gpu_close(struct gpu_ctx *g)
{
	btrt_pool_destroy(g->pool);
	btrt_vk_destroy(g->vk);
	btrt_cuda_destroy(g->cuda);
	memset(g, 0, sizeof *g);
}

/* ---- one stage: an io that loads the reference's intermediates -------- */

struct stage_io {
	int stage;
	const struct frames *f;
	int failures;
};

static void *sio_open(const char *path, const void *p, char *err, size_t errlen)
{
	(void)path, (void)p, (void)err, (void)errlen;
	return NULL;
}

static struct stage_io cur; /* one check at a time */

static int sio_load(void *state, uint64_t seq, void *task, char *err, size_t errlen)
{
	struct octree_task *t = task;
	(void)state, (void)err, (void)errlen;
	if (seq >= (uint64_t)cur.f->n)
		return 0;
	task_fill_from_ref(t, &cur.f->refs[seq], cur.f->clouds[seq].xyzw);
	task_poison_outputs(t, cur.stage);
	return 1;
}

static int sio_check(void *state, uint64_t seq, const void *task, FILE *out,
		     char *err, size_t errlen)
{
	(void)state, (void)out;
	if (task_compare_stage(task, &cur.f->refs[seq], cur.stage, err, errlen)) {
		fprintf(stderr, "  frame %llu stage %s: %s\n", (unsigned long long)seq,
			octree_stage_names[cur.stage], err);
		cur.failures++;
	}
	return 0;
}

static void sio_close(void *state, FILE *out)
{
	(void)state, (void)out;
}

static const struct btrt_app_io stage_io = { sio_open, sio_load, sio_check, sio_close, NULL, 0, 0 };

static const char *pu_name(enum btrt_pu_kind pu)
{
	return pu == BTRT_PU_VULKAN ? "vulkan" : pu == BTRT_PU_CUDA ? "cuda" : "cpu";
}

int gpu_check_stage(struct gpu_ctx *g, const struct frames *f, int s, enum btrt_pu_kind pu)
{
	struct btrt_chunk chunk = { .name = pu_name(pu), .pu = pu, .first_stage = 0, .n_stages = 1 };
	struct btrt_pipeline_config pc = {
		.app = "octree", .stages = &g->table.stages[s], .n_stages = 1,
		.chunks = &chunk, .n_chunks = 1, .pool = g->pool, .io = &stage_io,
		.io_state = NULL, .n_items = 0, .check = 1, .vk = g->vk, .cuda = g->cuda,
	};
	struct btrt_error err;
	btrt_error_clear(&err);
	cur.stage = s;
	cur.f = f;
	cur.failures = 0;
	if (btrt_pipeline_run(&pc, NULL, &err)) {
		fprintf(stderr, "  stage %s on %s: %s\n", octree_stage_names[s], pu_name(pu), err.msg);
		return -1;
	}
	return cur.failures;
}

int gpu_run_schedule(struct gpu_ctx *g, const struct octree_sched *sc, const char *input,
		     uint64_t n_items, char *digest, size_t len, struct btrt_run **run)
{
	struct btrt_chunk chunks[4];
	char msg[512];
	struct btrt_error err;
	void *st = octree_io.open(input, &g->params, msg, sizeof msg);
	if (!st) {
		fprintf(stderr, "  %s\n", msg);
		return -1;
	}
	memset(chunks, 0, sizeof chunks);
	for (int c = 0; c < sc->n_chunks && c < 4; c++) {
		chunks[c].name = pu_name(sc->pu[c]);
		chunks[c].pu = sc->pu[c];
		chunks[c].first_stage = sc->first[c];
		chunks[c].n_stages = sc->count[c];
	}
	digest[0] = '\0';
	FILE *out = fmemopen(digest, len - 1, "w");
	if (!out) {
		octree_io.close(st, NULL);
		return -1;
	}
	struct btrt_pipeline_config pc = {
		.app = "octree", .stages = g->table.stages, .n_stages = OCTREE_N_STAGES,
		.chunks = chunks, .n_chunks = (uint32_t)sc->n_chunks, .pool = g->pool,
		.io = &octree_io, .io_state = st, .n_items = n_items, .check = 1,
		.check_out = out, .vk = g->vk, .cuda = g->cuda,
	};
	btrt_error_clear(&err);
	int rc = btrt_pipeline_run(&pc, run, &err);
	fclose(out);
	if (rc)
		fprintf(stderr, "  schedule '%s': %s\n", sc->name, err.msg);
	octree_io.close(st, NULL);
	return rc;
}
