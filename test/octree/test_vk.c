/* test_vk.c: the Vulkan shaders through btrt (btrt_vk, btrt_pool,
 * btrt_pipeline_run); on llvmpipe in CI.
 *  - suite "vulkan": each stage alone on all six real frames, inputs from
 *    the reference, outputs compared with the reference;
 *  - suite "schedules": the whole app as real pipelines under five
 *    CPU/Vulkan schedules; octree_io checks every octree against the
 *    reference byte for byte and the digest lines of all schedules must be
 *    identical.
 * Both skip (exit 77) only when there is no Vulkan device at all, and
 * fail then under BTC_REQUIRE_VULKAN=1 (btc_test_skip). */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_ctx.h"
#include "scheds.h"
#include "suites.h"
#include "testutil.h"

static struct gpu_ctx g;
static int opened;
static struct frames frames, syn;

static void vk_close(void)
{
	gpu_close(&g);
}

/* For a register function: 0 ready, else what it returns (btc_test_skip's
 * value without a device, -1 on an error). */
static int vk_open(const char *suite)
{
	int rc;
	if (opened)
		return 0;
	rc = gpu_open(&g, BTRT_BACKEND_VULKAN, 3);
	if (rc == 0) {
		fprintf(stderr, "octree vulkan: device %s\n", g.device);
		opened = 1;
		atexit(vk_close);
	}
	return rc > 0 ? btc_test_skip(BTC_TEST_HW_VULKAN, suite,
				      "no Vulkan device (or built without Vulkan)") : rc;
}

static int frames_init(void)
{
	return frames_load(&frames, 0) || frames_synthetic(&syn) ? -1 : 0;
}

static int frames_clean(void)
{
	frames_free(&frames);
	frames_free(&syn);
	return 0;
}

static void stage_test(int s, enum btrt_pu_kind pu)
{
	CU_ASSERT_EQUAL(gpu_check_stage(&g, &frames, s, pu), 0);
}

static void test_vk_morton(void) { stage_test(0, BTRT_PU_VULKAN); }
static void test_vk_sort(void) { stage_test(1, BTRT_PU_VULKAN); }
static void test_vk_unique(void) { stage_test(2, BTRT_PU_VULKAN); }
static void test_vk_radix_tree(void) { stage_test(3, BTRT_PU_VULKAN); }
static void test_vk_edge_count(void) { stage_test(4, BTRT_PU_VULKAN); }
static void test_vk_prefix_sum(void) { stage_test(5, BTRT_PU_VULKAN); }
static void test_vk_octree(void) { stage_test(6, BTRT_PU_VULKAN); }

/* every stage on the synthetic edge cases (0..3 points, duplicates, flat,
 * deep cluster) */
static void test_vk_synthetic(void)
{
	for (int s = 0; s < OCTREE_N_STAGES; s++)
		CU_ASSERT_EQUAL(gpu_check_stage(&g, &syn, s, BTRT_PU_VULKAN), 0);
}

/* the CPU kernels through the same pipeline on Vulkan-mapped buffers */
static void test_cpu_on_vk_buffers(void)
{
	for (int s = 0; s < OCTREE_N_STAGES; s++)
		stage_test(s, BTRT_PU_CPU);
}

int octree_vk_register(void)
{
	int rc = vk_open("octree vulkan");
	if (rc)
		return rc;
	CU_pSuite s = CU_add_suite("vulkan", frames_init, frames_clean);
	if (!s || !CU_add_test(s, "morton", test_vk_morton) ||
	    !CU_add_test(s, "sort", test_vk_sort) ||
	    !CU_add_test(s, "unique", test_vk_unique) ||
	    !CU_add_test(s, "radix_tree", test_vk_radix_tree) ||
	    !CU_add_test(s, "edge_count", test_vk_edge_count) ||
	    !CU_add_test(s, "prefix_sum", test_vk_prefix_sum) ||
	    !CU_add_test(s, "octree", test_vk_octree) ||
	    !CU_add_test(s, "every stage on synthetic edge cases", test_vk_synthetic) ||
	    !CU_add_test(s, "CPU stages on Vulkan buffers", test_cpu_on_vk_buffers))
		return -1;
	return 0;
}

/* ---- whole pipelines under several schedules ------------------------- */

#define N_ITEMS 8  /* frames streamed per schedule: all six, then two again */

static int sched_init(void)
{
	return btc_test_need_data("pointclouds");
}

static struct octree_sched scheds[OCTREE_N_SCHEDS];
static char digests[OCTREE_N_SCHEDS][8192];

static void run_sched(int k)
{
	int rc = gpu_run_schedule(&g, &scheds[k], btc_test_data("pointclouds"), N_ITEMS,
				  digests[k], sizeof digests[k], NULL);
	CU_ASSERT_EQUAL(rc, 0);
	printf("\n  schedule '%s':\n%s", scheds[k].name, digests[k]);
	CU_ASSERT(strlen(digests[k]) > 0);
	if (k > 0)
		CU_ASSERT_STRING_EQUAL(digests[k], digests[0]);
}

static void test_sched0(void) { run_sched(0); }
static void test_sched1(void) { run_sched(1); }
static void test_sched2(void) { run_sched(2); }
static void test_sched3(void) { run_sched(3); }
static void test_sched4(void) { run_sched(4); }

int octree_sched_register(void)
{
	int rc = vk_open("octree schedules");
	if (rc)
		return rc;
	octree_scheds(scheds, BTRT_PU_VULKAN);
	CU_pSuite s = CU_add_suite("schedules", sched_init, NULL);
	if (!s || !CU_add_test(s, "cpu", test_sched0) ||
	    !CU_add_test(s, "vulkan", test_sched1) ||
	    !CU_add_test(s, "cpu 0-2 | vulkan 3-6", test_sched2) ||
	    !CU_add_test(s, "vulkan 0-1 | cpu 2-4 | vulkan 5-6", test_sched3) ||
	    !CU_add_test(s, "cpu 0 | vulkan 1-2 | cpu 3-5 | vulkan 6", test_sched4))
		return -1;
	return 0;
}
