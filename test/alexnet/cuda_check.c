/* CUDA check of the AlexNet apps (a plain C program: the GPU machine has no
   CUnit): every stage of both apps on CUDA against the sequential
   reference, the dense network on the whole sample batch (722 of 1153),
   mixed CPU/CUDA schedules, and the sparse network at three sparsities.
   Exits 0 when all pass, 1 on a failure, 77 without a CUDA device (1 with
   BTC_REQUIRE_CUDA=1). */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "testutil.h"

static int failures;
static char msg[1024];

static void fail(const char *what)
{
	printf("FAIL %s: %s\n", what, msg);
	failures++;
}

static void stages(struct alexnet_app *a, struct btrt_cuda *cu, uint64_t seq)
{
	double worst[ALEXNET_N_STAGES];
	if (harness_stages(a, "cuda", seq, NULL, cu, worst, msg, sizeof msg) != 0) {
		fail("stages");
		return;
	}
	printf("%s batch %lld item %llu: stages on CUDA match the reference, worst rel. error",
	       a->name, (long long)a->batch, (unsigned long long)seq);
	for (int i = 0; i < ALEXNET_N_STAGES; i++)
		printf(" %.1e", worst[i]);
	printf("\n");
}

static void run(struct alexnet_app *a, struct btrt_cuda *cu, const char *schedule,
		uint64_t items, uint64_t want_correct)
{
	struct harness_result r;
	printf("%s on %s, %llu items:\n  ", a->name, schedule, (unsigned long long)items);
	fflush(stdout);
	if (harness_run(a, schedule, items, 3, NULL, cu, 1, 0, &r, stdout, msg, sizeof msg) != 0) {
		fail(schedule);
		return;
	}
	if (r.correct != r.ref_correct || (want_correct && r.correct != want_correct)) {
		snprintf(msg, sizeof msg, "%llu correct, reference %llu, expected %llu",
			 (unsigned long long)r.correct, (unsigned long long)r.ref_correct,
			 (unsigned long long)want_correct);
		fail(schedule);
	}
}

int main(void)
{
	struct btrt_cuda *cu = NULL;
	struct btrt_error err;
	btrt_error_clear(&err);
	struct btrt_cuda_config cfg = {.device = -1, .mem = BTRT_CUDA_MEM_AUTO};
	struct btrt_env env; /* BTRT_CUDA_DEVICE, BTRT_CUDA_MEM, ... */
	if (btrt_env_read(&env, &err)) {
		printf("alexnet_cuda_check: %s\n", err.msg);
		return 1;
	}
	btrt_env_cuda_config(&env, &cfg);
	if (btrt_cuda_create(&cu, &cfg, &err) != 0) {
		if (err.kind == BTRT_E_NODEV)
			return btc_test_skip(BTC_TEST_HW_CUDA, "alexnet_cuda_check",
					     "no CUDA device: %s", err.msg);
		printf("alexnet_cuda_check: %s\n", err.msg);
		return 1;
	}
	printf("CUDA device: %s\n", btrt_cuda_device_name(cu));
	struct alexnet_app dense, sparse;
	alexnet_app_init(&dense, 0, 1, -1);
	alexnet_app_set_cuda(&dense);
	stages(&dense, cu, 0);
	stages(&dense, cu, 3);
	alexnet_app_free(&dense);
	/* Batch 8: conv1/conv2 take the thread-per-output kernel, conv3-5 the
	   warp-per-output one (ops.cu); sparse batch 2 the warp one. */
	alexnet_app_init(&dense, 0, 8, -1);
	alexnet_app_set_cuda(&dense);
	stages(&dense, cu, 1);
	alexnet_app_free(&dense);
	alexnet_app_init(&sparse, 1, 2, 20);
	alexnet_app_set_cuda(&sparse);
	stages(&sparse, cu, 1);
	alexnet_app_free(&sparse);
	alexnet_app_init(&dense, 0, 1, -1);
	alexnet_app_set_cuda(&dense);
	run(&dense, cu, "cuda:0-8", 1153, 722);
	run(&dense, cu, "cpu:0-3,cuda:4-8", 1153, 722);
	run(&dense, cu, "cuda:0-4,cpu:5-8", 300, 0);
	run(&dense, cu, "cpu:0-0,cuda:1-7,cpu:8-8", 300, 0);
	alexnet_app_free(&dense);

	struct alexnet_sparse_params def = ALEXNET_SPARSE_DEFAULT_PARAMS;
	alexnet_app_init(&sparse, 1, def.batch, def.sparsity);
	alexnet_app_set_cuda(&sparse);
	stages(&sparse, cu, 0);
	run(&sparse, cu, "cuda:0-8", 10, 0);
	run(&sparse, cu, "cpu:0-1,cuda:2-8", 10, 0);
	alexnet_app_free(&sparse);
	static const int other[] = {50, 70};
	for (int i = 0; i < 2; i++) {
		alexnet_app_init(&sparse, 1, def.batch, other[i]);
		alexnet_app_set_cuda(&sparse);
		stages(&sparse, cu, 1);
		run(&sparse, cu, "cuda:0-8", 10, 0);
		alexnet_app_free(&sparse);
	}
	btrt_cuda_destroy(cu);
	printf("%s\n", failures ? "FAILED" : "all CUDA checks passed");
	return failures ? 1 : 0;
}
