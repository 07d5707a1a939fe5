/* Suite "vulkan": the GLSL kernels through btrt's Vulkan backend (on
   llvmpipe in CI): every stage of both apps against the reference, the
   dense network on the sample batch (722 of 1153 in full, its first images
   by default: suites.h), mixed CPU/Vulkan schedules, and the sparse
   network. Skipped (exit 77) only when there is
   no Vulkan device at all, and then a failure under BTC_REQUIRE_VULKAN=1. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "suites.h"

static struct alexnet_app dense_app, sparse_app;
static struct btrt_vk *dense_vk, *sparse_vk;
static char msg[1024];

static int init(void)
{
	return dense_vk && sparse_vk ? ALEXNET_NEED_DATA() : -1;
}

static int cleanup(void)
{
	btrt_vk_destroy(dense_vk);
	btrt_vk_destroy(sparse_vk);
	dense_vk = sparse_vk = NULL;
	alexnet_app_free(&dense_app);
	alexnet_app_free(&sparse_app);
	return 0;
}

static void stages(struct alexnet_app *a, struct btrt_vk *vk, uint64_t seq)
{
	double worst[ALEXNET_N_STAGES];
	int rc = harness_stages(a, "vk", seq, vk, NULL, worst, msg, sizeof msg);
	if (rc)
		fprintf(stderr, "\n  %s\n", msg);
	CU_ASSERT_EQUAL(rc, 0);
}

static void test_dense_stages(void)
{
	stages(&dense_app, dense_vk, 0);
	stages(&dense_app, dense_vk, 3);
}

static void test_sparse_stages(void)
{
	stages(&sparse_app, sparse_vk, 0);
}

static void run_expect(struct alexnet_app *a, struct btrt_vk *vk, const char *schedule,
		       uint64_t items, struct harness_result *r)
{
	int rc = harness_run(a, schedule, items, 3, vk, NULL, 1, 0, r, stdout, msg, sizeof msg);
	if (rc)
		fprintf(stderr, "\n  %s\n", msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(r->correct, r->ref_correct);
}

static void test_dense_accuracy(void)
{
	struct harness_result r;
	printf("\n");
	run_expect(&dense_app, dense_vk, "vk:0-8", ALEXNET_N_IMAGES(), &r);
	CU_ASSERT_EQUAL(r.counted, ALEXNET_N_IMAGES());
	CU_ASSERT_EQUAL(r.correct, ALEXNET_N_CORRECT());
}

static void test_dense_mixed(void)
{
	struct harness_result r;
	printf("\n");
	run_expect(&dense_app, dense_vk, "cpu:0-3,vk:4-8", 60, &r);
	run_expect(&dense_app, dense_vk, "vk:0-4,cpu:5-8", 60, &r);
	run_expect(&dense_app, dense_vk, "cpu:0-0,vk:1-7,cpu:8-8", 60, &r);
}

static void test_sparse_network(void)
{
	struct harness_result r;
	printf("\n");
	/* In full one pass: 10 batches of 128, every image counted once;
	   else the first two batches. */
	uint64_t batches = btc_test_full() ? 10 : ALEXNET_QUICK_BATCHES;
	run_expect(&sparse_app, sparse_vk, "vk:0-8", batches, &r);
	CU_ASSERT_EQUAL(r.counted, btc_test_full() ? 1153 : batches * (uint64_t)sparse_app.batch);
	run_expect(&sparse_app, sparse_vk, "cpu:0-1,vk:2-8", 2, &r);
}

int alexnet_register_vulkan(void)
{
	struct alexnet_sparse_params def = ALEXNET_SPARSE_DEFAULT_PARAMS;
	alexnet_app_init(&dense_app, 0, 1, -1);
	alexnet_app_init(&sparse_app, 1, def.batch, def.sparsity);
	if (alexnet_app_load_spirv(&dense_app, msg, sizeof msg) != 0 ||
	    alexnet_app_load_spirv(&sparse_app, msg, sizeof msg) != 0) {
		fprintf(stderr, "alexnet: %s\n", msg);
		return -1;
	}
	struct btrt_error err;
	btrt_error_clear(&err);
	if (harness_vk(&dense_app, &dense_vk, &err) != 0) {
		cleanup();
		if (err.kind == BTRT_E_NODEV)
			return btc_test_skip(BTC_TEST_HW_VULKAN, "alexnet vulkan",
					     "no Vulkan device: %s", err.msg);
		fprintf(stderr, "alexnet: Vulkan: %s\n", err.msg);
		return -1;
	}
	if (harness_vk(&sparse_app, &sparse_vk, &err) != 0) {
		fprintf(stderr, "alexnet: Vulkan: %s\n", err.msg);
		cleanup();
		return -1;
	}
	printf("alexnet: Vulkan device %s\n", btrt_vk_device_name(dense_vk));
	CU_pSuite s = CU_add_suite("vulkan", init, cleanup);
	if (!s || !CU_add_test(s, "dense stages vs reference", test_dense_stages) ||
	    !CU_add_test(s, "sparse stages vs reference (batch 128)", test_sparse_stages) ||
	    !CU_add_test(s, "dense accuracy (722/1153 in full)", test_dense_accuracy) ||
	    !CU_add_test(s, "dense CPU+Vulkan schedules", test_dense_mixed) ||
	    !CU_add_test(s, "sparse network (all 1153 images in full), Vulkan and CPU+Vulkan", test_sparse_network))
		return -1;
	return 0;
}
