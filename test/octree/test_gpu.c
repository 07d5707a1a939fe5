/* test_gpu.c: plain C test of one GPU backend (no CUnit, so that it runs
 * on the GPU machine as built): `octree_gpu_test cuda|vulkan`.
 * 1. each stage alone on the GPU for all six real frames, inputs from the
 *    sequential reference, outputs compared with it;
 * 2. each stage alone on seven synthetic edge cases (0..3 points,
 *    duplicates, a flat frame, a cluster down to level 9);
 * 3. the whole app under five CPU/GPU schedules over 8 frames, octree_io
 *    checking every octree byte for byte; the digest lines of all
 *    schedules must be identical.
 * With BTRT_VK_VALIDATION=1 a Vulkan run also fails on any validation
 * error, and fails at once when the validation layer is not installed.
 * Exit 0 pass, 1 fail, 77 when the backend has no device (meson SKIP; a
 * failure under BTC_REQUIRE_VULKAN=1 / BTC_REQUIRE_CUDA=1). */
#include <stdio.h>
#include <string.h>

#include <btrt_vk.h>

#include "gpu_ctx.h"
#include "scheds.h"
#include "testutil.h"

int main(int argc, char **argv)
{
	const char *which = argc > 1 ? argv[1] : "cuda";
	int cuda = !strcmp(which, "cuda");
	if (argc > 2 || (!cuda && strcmp(which, "vulkan") != 0)) {
		fprintf(stderr, "usage: %s [cuda|vulkan]\n", argv[0]);
		return 2;
	}
	enum btrt_pu_kind pu = cuda ? BTRT_PU_CUDA : BTRT_PU_VULKAN;
	struct gpu_ctx g;
	struct frames f;
	int fails = 0;
	char name[64];
	snprintf(name, sizeof name, "octree_gpu_test %s", which);
	if (!cuda && btc_test_check_vk_validation(name))
		return 1;
	int rc = gpu_open(&g, cuda ? BTRT_BACKEND_CUDA : BTRT_BACKEND_VULKAN, 3);
	if (rc > 0)
		return btc_test_skip(cuda ? BTC_TEST_HW_CUDA : BTC_TEST_HW_VULKAN, name,
				     "no %s device (or built without it)", which);
	if (rc) {
		printf("octree %s: cannot open\n", which);
		return 1;
	}
	printf("octree %s: device %s\n", which, g.device);
	if (frames_load(&f, 0)) {
		gpu_close(&g);
		return 1;
	}
	for (int s = 0; s < OCTREE_N_STAGES; s++) {
		int r = gpu_check_stage(&g, &f, s, pu);
		printf("stage %-10s on %s, %d frames: %s\n", octree_stage_names[s], which, f.n,
		       r == 0 ? "equal to the reference" : "FAIL");
		fails += r != 0;
	}
	struct frames syn;
	if (frames_synthetic(&syn)) {
		gpu_close(&g);
		return 1;
	}
	for (int s = 0; s < OCTREE_N_STAGES; s++) {
		int r = gpu_check_stage(&g, &syn, s, pu);
		printf("stage %-10s on %s, %d synthetic edge cases: %s\n", octree_stage_names[s],
		       which, syn.n, r == 0 ? "equal to the reference" : "FAIL");
		fails += r != 0;
	}
	frames_free(&syn);
	struct octree_sched sc[OCTREE_N_SCHEDS];
	static char dig[OCTREE_N_SCHEDS][8192];
	octree_scheds(sc, pu);
	for (int k = 0; k < OCTREE_N_SCHEDS; k++) {
		rc = gpu_run_schedule(&g, &sc[k], btc_test_data("pointclouds"), 8, dig[k],
				      sizeof dig[k], NULL);
		int same = k == 0 || !strcmp(dig[k], dig[0]);
		printf("schedule '%s': %s\n", sc[k].name,
		       rc ? "FAIL" : same ? "ok, digests identical" : "FAIL: digests differ");
		fails += rc || !same;
	}
	printf("%s", dig[0]);
	if (g.vk) {
		uint32_t ve = btrt_vk_validation_errors(g.vk);
		printf("Vulkan validation errors: %u\n", ve);
		fails += ve != 0;
	}
	frames_free(&f);
	gpu_close(&g);
	printf("octree %s: %s\n", which, fails ? "FAIL" : "PASS");
	return fails ? 1 : 0;
}
