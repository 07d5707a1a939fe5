/* Per-task cost of a GPU chunk whose one stage is a single tiny dispatch:
 * Vulkan (pre-recorded command buffer, submit, fence wait, timestamps) and
 * CUDA (launch, events, one stream synchronisation), measured through
 * btrt_pipeline_run. Skips a backend that is absent (exit 77 if both are).
 * usage: bench_gpu [-t items] */
#include <btc_config.h>
#include <btrt.h>
#include <btrt_cuda.h>
#include <btrt_pipeline.h>
#include <btrt_pool.h>
#include <btrt_trace.h>
#include <btrt_vk.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#if BTC_HAVE_VULKAN
#include "touch.spv.h"
#endif

int bench_touch_cuda(void *task, void *stream);

static int load_nothing(void *s, uint64_t seq, void *t, char *e, size_t el) { return 1; }
static const struct btrt_app_io io = { NULL, load_nothing, NULL, NULL, NULL, 0, 0 };

static int run(const char *what, enum btrt_pu_kind pu, enum btrt_backend be, struct btrt_vk *vk,
	       struct btrt_cuda *cu, const struct btrt_stage *st, uint64_t items)
{
	static const struct btrt_buffer_desc bufs[1] = {
		{ "data", BTRT_U32, 4, BTRT_PLACE_UNIFIED, 0, 0 },
	};
	size_t counts[1] = { 64 };
	int core = 0;
	struct btrt_pool_config pc = { .task_size = sizeof(struct btrt_task), .n_tasks = 4, .buffers = bufs,
				       .counts = counts, .n_buffers = 1, .backend = be, .vk = vk, .cuda = cu };
	struct btrt_pool *pool;
	struct btrt_error err;
	if (btrt_pool_create(&pool, &pc, &err)) {
		fprintf(stderr, "%s: %s\n", what, err.msg);
		return -1;
	}
	struct btrt_chunk ch = { "gpu", pu, &core, 1, 0, 1, NULL, NULL, 0 };
	struct btrt_pipeline_config cfg = { .app = what, .stages = st, .n_stages = 1, .chunks = &ch,
					    .n_chunks = 1, .pool = pool, .io = &io, .n_items = items,
					    .vk = vk, .cuda = cu };
	struct btrt_run *r;
	int rc = btrt_pipeline_run(&cfg, &r, &err);
	if (rc)
		fprintf(stderr, "%s: %s\n", what, err.msg);
	else {
		struct btrt_summary cs, ss;
		int gpu = 0;
		btrt_run_chunk_summary(r, 0, &cs);
		btrt_run_stage_summary(r, 0, &ss, &gpu);
		printf("%-34s %10.2f %10.2f %10.2f %10.2f %12.2f\n", what,
		       (double)btrt_run_wall_ns(r) / (double)btrt_run_items(r) / 1e3,
		       cs.mean_ns / 1e3, cs.median_ns / 1e3, cs.p99_ns / 1e3, ss.median_ns / 1e3);
	}
	btrt_run_free(r);
	btrt_pool_destroy(pool);
	return rc;
}

int main(int argc, char **argv)
{
	uint64_t items = 5000;
	int opt, ran = 0;
	while ((opt = getopt(argc, argv, "t:")) != -1)
		if (opt == 't')
			items = strtoull(optarg, NULL, 10);
	printf("== GPU chunk with one tiny dispatch per task, %llu tasks, pool 4 (us)\n",
	       (unsigned long long)items);
	printf("%-34s %10s %10s %10s %10s %12s\n", "backend (device)", "wall/task", "chunk mean",
	       "median", "p99", "gpu stage med");
	struct btrt_error err;
#if BTC_HAVE_VULKAN
	{
		static const struct btrt_vk_shader sh[1] = { { "touch", touch_spv, sizeof touch_spv, NULL } };
		static const uint32_t push[1] = { 64 };
		static const struct btrt_vk_dispatch d[1] = { { 0, { 1, 1, 1 }, 1, push } };
		static const uint32_t rw[1] = { 0 };
		struct btrt_stage st = { .name = "touch", .vk = d, .n_vk = 1, .reads = rw, .n_reads = 1,
					 .writes = rw, .n_writes = 1 };
		struct btrt_vk_config vc = { .validation = 0, .n_buffers = 1, .shaders = sh, .n_shaders = 1 };
		struct btrt_vk *vk;
		if (btrt_vk_create(&vk, &vc, &err) == 0) {
			char what[64];
			snprintf(what, sizeof what, "vulkan (%.22s)", btrt_vk_device_name(vk));
			run(what, BTRT_PU_VULKAN, BTRT_BACKEND_VULKAN, vk, NULL, &st, items);
			btrt_vk_destroy(vk);
			ran++;
		} else {
			printf("vulkan: %s\n", err.msg);
		}
	}
#endif
#if BTC_HAVE_CUDA
	{
		static const uint32_t rw[1] = { 0 };
		struct btrt_stage st = { .name = "touch", .cuda = bench_touch_cuda, .reads = rw, .n_reads = 1,
					 .writes = rw, .n_writes = 1 };
		static const enum btrt_cuda_mem mems[2] = { BTRT_CUDA_MEM_PINNED, BTRT_CUDA_MEM_MANAGED };
		static const char *names[2] = { "pinned", "managed" };
		for (int m = 0; m < 2; m++) {
			struct btrt_cuda_config cc = { .device = -1, .mem = mems[m] };
			struct btrt_cuda *cu;
			if (btrt_cuda_create(&cu, &cc, &err) == 0) {
				char what[64];
				snprintf(what, sizeof what, "cuda %s (%.18s)", names[m], btrt_cuda_device_name(cu));
				run(what, BTRT_PU_CUDA, BTRT_BACKEND_CUDA, NULL, cu, &st, items);
				btrt_cuda_destroy(cu);
				ran++;
			} else {
				printf("cuda: %s\n", err.msg);
				break;
			}
		}
	}
#endif
	return ran ? 0 : 77;
}
