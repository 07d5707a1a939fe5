/* bench_octree.c: per-stage time of the octree app on each backend for one
 * real frame. Each backend runs the whole app as a one-chunk pipeline
 * (btrt_pipeline_run) over the same frame N times; CPU stages are timed on
 * the host clock, Vulkan stages by timestamp queries, CUDA stages by
 * events (btrt_run_stage_summary). Every octree is checked against the
 * reference. Prints the median and mean per stage in milliseconds.
 *
 * usage: octree_bench [-f FRAME.pcd] [-n ITEMS] [-b cpu,vulkan,cuda] */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <btrt_trace.h>

#include "btc_config.h"
#include "gpu_ctx.h"

struct col {
	const char *name;
	enum btrt_backend be;
	enum btrt_pu_kind pu;
	int ok;
	char device[256];
	double median[OCTREE_N_STAGES + 1], mean[OCTREE_N_STAGES + 1];
};

static int bench(struct col *c, const char *frame, int items)
{
	struct gpu_ctx g;
	static char digest[1 << 16];
	struct btrt_run *run = NULL;
	int rc = gpu_open(&g, c->be, 2);
	if (rc)
		return rc;
	snprintf(c->device, sizeof c->device, "%s", c->be == BTRT_BACKEND_HOST ? "" : g.device);
	struct octree_sched one = { c->name, 1, { c->pu }, { 0 }, { OCTREE_N_STAGES } };
	if (c->be != BTRT_BACKEND_HOST) {
		printf("%s buffers:\n", c->name);
		btrt_pool_print(g.pool, stdout);
	}
	rc = gpu_run_schedule(&g, &one, frame, (uint64_t)items, digest, sizeof digest, &run);
	if (rc == 0) {
		for (uint32_t s = 0; s < OCTREE_N_STAGES; s++) {
			struct btrt_summary sum;
			int gpu = 0;
			if (btrt_run_stage_summary(run, s, &sum, &gpu) == 0) {
				c->median[s] = sum.median_ns / 1e6;
				c->mean[s] = sum.mean_ns / 1e6;
			}
		}
		struct btrt_summary ch;
		if (btrt_run_chunk_summary(run, 0, &ch) == 0) {
			c->median[OCTREE_N_STAGES] = ch.median_ns / 1e6;
			c->mean[OCTREE_N_STAGES] = ch.mean_ns / 1e6;
		}
		c->ok = 1;
		const char *nl = strchr(digest, '\n');
		printf("%-7s %.*s\n", c->name, nl ? (int)(nl - digest) : 0, digest);
	}
	btrt_run_free(run);
	gpu_close(&g);
	return rc;
}

int main(int argc, char **argv)
{
	const char *frame = BTC_DATA_DIR "/pointclouds/office1.pcd";
	const char *backends = "cpu,vulkan,cuda";
	int items = 10;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-f") && i + 1 < argc)
			frame = argv[++i];
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			items = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-b") && i + 1 < argc)
			backends = argv[++i];
		else {
			fprintf(stderr, "usage: %s [-f FRAME.pcd] [-n ITEMS] [-b cpu,vulkan,cuda]\n",
				argv[0]);
			return 2;
		}
	}
	if (items < 1)
		items = 1;
	struct col cols[3] = {
		{ .name = "cpu", .be = BTRT_BACKEND_HOST, .pu = BTRT_PU_CPU },
		{ .name = "vulkan", .be = BTRT_BACKEND_VULKAN, .pu = BTRT_PU_VULKAN },
		{ .name = "cuda", .be = BTRT_BACKEND_CUDA, .pu = BTRT_PU_CUDA },
	};
	printf("octree bench: %s, %d items per backend, OpenMP threads %d\n", frame, items,
	       omp_get_max_threads());
	for (int k = 0; k < 3; k++) {
		if (!strstr(backends, cols[k].name))
			continue;
		int rc = bench(&cols[k], frame, items);
		if (rc > 0)
			printf("%-7s no device, skipped\n", cols[k].name);
		else if (rc < 0)
			printf("%-7s FAILED\n", cols[k].name);
	}
	printf("\nper-stage time, ms: median (mean)\n%-12s", "stage");
	for (int k = 0; k < 3; k++)
		if (cols[k].ok)
			printf(" %22s", cols[k].name);
	printf("\n");
	for (int s = 0; s <= OCTREE_N_STAGES; s++) {
		printf("%-12s", s < OCTREE_N_STAGES ? octree_stage_names[s] : "chunk total");
		for (int k = 0; k < 3; k++)
			if (cols[k].ok)
				printf(" %10.3f (%9.3f)", cols[k].median[s], cols[k].mean[s]);
		printf("\n");
	}
	for (int k = 0; k < 3; k++)
		if (cols[k].ok && cols[k].device[0])
			printf("%s device: %s\n", cols[k].name, cols[k].device);
	int any = cols[0].ok || cols[1].ok || cols[2].ok;
	return any ? 0 : 1;
}
