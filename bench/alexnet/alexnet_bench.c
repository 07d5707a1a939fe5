/* Per-stage time of the AlexNet apps on every backend of this build:
   for each app and backend the whole network runs as one chunk on that
   backend ("cpu:0-8", "vk:0-8", "cuda:0-8") through btrt's pipeline, with
   the output check off, and the runtime's per-stage records (host clock
   for CPU stages, Vulkan timestamps / CUDA events for GPU stages) are
   summarised.

   alexnet_bench [-a dense|sparse] [-b cpu|vk|cuda] [-n ITEMS] [-m auto|managed|pinned]
   (-m: how btrt allocates unified buffers for CUDA, btrt_cuda.h)
   Defaults: both apps, every backend present, 200 dense items (one image
   each) and 8 sparse items (128 images each), after a warm-up run of 5%. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <omp.h>

#include "harness.h"

#ifdef ALEXNET_BENCH_CUDA
#define HAVE_CUDA 1
#else
#define HAVE_CUDA 0
#endif

static const char *const stage_names[ALEXNET_N_STAGES] = {
	"conv1", "pool1", "conv2", "pool2", "conv3", "conv4", "conv5", "pool3", "linear",
};

static int bench(struct alexnet_app *a, const char *pu, uint64_t items, struct btrt_vk *vk,
		 struct btrt_cuda *cu, const char *device)
{
	char schedule[32], msg[1024];
	snprintf(schedule, sizeof schedule, "%s:0-8", pu);
	struct harness_result r;
	/* Warm-up run (first touches, pipeline creation, JIT of llvmpipe). */
	if (harness_run(a, schedule, items / 20 + 1, 3, vk, cu, 0, 0, &r, NULL, msg, sizeof msg) ||
	    harness_run(a, schedule, items, 3, vk, cu, 0, 1, &r, NULL, msg, sizeof msg)) {
		fprintf(stderr, "alexnet_bench: %s\n", msg);
		return -1;
	}
	double total = 0.0;
	printf("%s batch %lld on %s (%s), %llu items, per-stage time per item in us "
	       "(mean / median / min):\n",
	       a->name, (long long)a->batch, pu, device, (unsigned long long)items);
	for (uint32_t s = 0; s < ALEXNET_N_STAGES; s++) {
		struct btrt_summary sum;
		int gpu = 0;
		if (btrt_run_stage_summary(r.run, s, &sum, &gpu) != 0)
			continue;
		total += sum.mean_ns;
		printf("  %-7s %10.1f %10.1f %10.1f%s\n", stage_names[s], sum.mean_ns / 1e3,
		       sum.median_ns / 1e3, sum.min_ns / 1e3, gpu ? "  (device time)" : "");
	}
	double wall = (double)btrt_run_wall_ns(r.run);
	printf("  sum of stage means %.1f us; wall %.1f ms, %.1f items/s, %.1f images/s\n",
	       total / 1e3, wall / 1e6, (double)items / (wall / 1e9),
	       (double)items * (double)a->batch / (wall / 1e9));
	btrt_run_free(r.run);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	const char *app_only = NULL, *pu_only = NULL;
	long n_items = 0;
	int opt;
	enum btrt_cuda_mem mem = BTRT_CUDA_MEM_AUTO;
	while ((opt = getopt(argc, argv, "a:b:n:m:")) != -1) {
		switch (opt) {
		case 'a': app_only = optarg; break;
		case 'b': pu_only = optarg; break;
		case 'n': n_items = atol(optarg); break;
		case 'm':
			mem = strcmp(optarg, "managed") == 0  ? BTRT_CUDA_MEM_MANAGED
			      : strcmp(optarg, "pinned") == 0 ? BTRT_CUDA_MEM_PINNED
							      : BTRT_CUDA_MEM_AUTO;
			break;
		default:
			fprintf(stderr, "usage: %s [-a dense|sparse] [-b cpu|vk|cuda] [-n ITEMS] "
					"[-m auto|managed|pinned]\n", argv[0]);
			return 2;
		}
	}
	int rc = 0;
	for (int sparse = 0; sparse < 2; sparse++) {
		if (app_only && strcmp(app_only, sparse ? "sparse" : "dense") != 0)
			continue;
		struct alexnet_app a;
		struct alexnet_sparse_params def = ALEXNET_SPARSE_DEFAULT_PARAMS;
		alexnet_app_init(&a, sparse, sparse ? def.batch : 1, sparse ? def.sparsity : -1);
		uint64_t items = n_items > 0 ? (uint64_t)n_items : sparse ? 8 : 200;
		if (!pu_only || strcmp(pu_only, "cpu") == 0) {
			char dev[64];
			snprintf(dev, sizeof dev, "OpenMP, %d threads", omp_get_max_threads());
			rc |= bench(&a, "cpu", items, NULL, NULL, dev);
		}
		if (!pu_only || strcmp(pu_only, "vk") == 0) {
			char msg[512];
			struct btrt_vk *vk = NULL;
			struct btrt_error err;
			btrt_error_clear(&err);
			if (alexnet_app_load_spirv(&a, msg, sizeof msg) != 0) {
				fprintf(stderr, "alexnet_bench: %s\n", msg);
				rc = 1;
			} else if (harness_vk(&a, &vk, &err) != 0) {
				printf("%s on vk: skipped (%s)\n", a.name, err.msg);
			} else {
				rc |= bench(&a, "vk", items, vk, NULL, btrt_vk_device_name(vk));
				btrt_vk_destroy(vk);
			}
		}
#if !HAVE_CUDA
		(void)mem;
#else
		if (!pu_only || strcmp(pu_only, "cuda") == 0) {
			struct btrt_cuda *cu = NULL;
			struct btrt_error err;
			btrt_error_clear(&err);
			struct btrt_cuda_config cfg = {.device = -1, .mem = mem};
			struct btrt_env env; /* BTRT_CUDA_DEVICE, BTRT_CUDA_SYNC, ... */
			if (btrt_env_read(&env, &err) == 0)
				btrt_env_cuda_config(&env, &cfg);
			if (err.kind != BTRT_OK || btrt_cuda_create(&cu, &cfg, &err) != 0) {
				printf("%s on cuda: skipped (%s)\n", a.name, err.msg);
			} else {
				alexnet_app_set_cuda(&a);
				char dev[160];
				static const char *const mems[] = {"auto", "managed", "pinned"};
				snprintf(dev, sizeof dev, "%s, memory %s", btrt_cuda_device_name(cu), mems[mem]);
				rc |= bench(&a, "cuda", items, NULL, cu, dev);
				btrt_cuda_destroy(cu);
			}
		}
#endif
		alexnet_app_free(&a);
	}
	return rc ? 1 : 0;
}
