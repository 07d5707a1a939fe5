/* btrt_env_read: every BTRT_* variable parsed, a bad value an error that
 * names the variable, the defaults when unset, and btrt_env_*_config
 * filling only what the caller left unset. The variables are saved and
 * restored around each test (the runner's own environment stays). */
#include "suites.h"

#include <btrt_env.h>
#include <btrt_pipeline.h>
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

static const char *const vars[] = {
	"BTRT_NO_PIN", "BTRT_NO_MEMBARRIER", "BTRT_SPIN_NS", "BTRT_YIELD_NS",
	"BTRT_VK_DEVICE", "BTRT_VK_VALIDATION", "BTRT_VK_FORCE_NONCOHERENT",
	"BTRT_CUDA_DEVICE", "BTRT_CUDA_MEM", "BTRT_CUDA_MOVE", "BTRT_CUDA_IO_PINNED",
	"BTRT_CUDA_READ_MOSTLY", "BTRT_CUDA_SYNC", "BTRT_POOL_PRINT", "BTRT_CHECK_THREADS", "BTRT_LOAD_THREADS",
	"BTRT_STOP_TIMEOUT_S", "BTRT_VK_STREAMS", "BTRT_VK_WAIT", "BTRT_IO_COPY",
	"BTRT_CUDA_PROBE_FILE", "BTRT_CUDA_PRIVATE", "BTRT_VK_PRIVATE",
};
#define N_VARS (sizeof vars / sizeof vars[0])
static char *saved[N_VARS];

static int save_env(void)
{
	for (size_t i = 0; i < N_VARS; i++) {
		const char *v = getenv(vars[i]);
		saved[i] = v ? strdup(v) : NULL;
		unsetenv(vars[i]);
	}
	return 0;
}

static int restore_env(void)
{
	for (size_t i = 0; i < N_VARS; i++) {
		if (saved[i])
			setenv(vars[i], saved[i], 1);
		else
			unsetenv(vars[i]);
		free(saved[i]);
		saved[i] = NULL;
	}
	return 0;
}

static void clear_vars(void)
{
	for (size_t i = 0; i < N_VARS; i++)
		unsetenv(vars[i]);
}

static void test_defaults(void)
{
	clear_vars();
	struct btrt_env e;
	struct btrt_error err;
	CU_ASSERT_EQUAL_FATAL(btrt_env_read(&e, &err), 0);
	CU_ASSERT_EQUAL(e.no_pin, 0);
	CU_ASSERT_EQUAL(e.no_membarrier, 0);
	CU_ASSERT_EQUAL(e.spin_ns, -1);
	CU_ASSERT_EQUAL(e.yield_ns, -1);
	CU_ASSERT_PTR_NULL(e.vk_device);
	CU_ASSERT_EQUAL(e.vk_validation, 0);
	CU_ASSERT_EQUAL(e.cuda_device, -1);
	CU_ASSERT_EQUAL(e.cuda_mem, BTRT_CUDA_MEM_AUTO);
	CU_ASSERT_EQUAL(e.cuda_sync, BTRT_CUDA_SYNC_DEFAULT);
	CU_ASSERT_EQUAL(e.cuda_move_all, 0);
	CU_ASSERT_EQUAL(e.cuda_io_managed, 0);
	CU_ASSERT_EQUAL(e.vk_streams, BTRT_VK_STREAMS_AUTO);
	CU_ASSERT_EQUAL(e.vk_wait, BTRT_VK_WAIT_DEFAULT);
	CU_ASSERT_EQUAL(e.cuda_no_read_mostly, 0);
	CU_ASSERT_EQUAL(e.cuda_probe_private, 0);
	CU_ASSERT_EQUAL(e.vk_host_private, 0);
	CU_ASSERT_EQUAL(e.pool_print, 0);
	CU_ASSERT_EQUAL(e.check_threads, 0);
	CU_ASSERT_EQUAL(e.load_threads, 0);
	CU_ASSERT_EQUAL(e.stop_timeout_s, 0);
	CU_ASSERT_EQUAL(e.io_copy_memcpy, 0);
}

static void test_values(void)
{
	clear_vars();
	setenv("BTRT_NO_PIN", "1", 1);
	setenv("BTRT_SPIN_NS", "0", 1);
	setenv("BTRT_YIELD_NS", "50000", 1);
	setenv("BTRT_VK_DEVICE", "llvm", 1);
	setenv("BTRT_VK_VALIDATION", "0", 1);
	setenv("BTRT_CUDA_DEVICE", "2", 1);
	setenv("BTRT_CUDA_MEM", "pinned", 1);
	setenv("BTRT_CUDA_MOVE", "all", 1);
	setenv("BTRT_CUDA_IO_PINNED", "0", 1);
	setenv("BTRT_CUDA_READ_MOSTLY", "0", 1);
	setenv("BTRT_CUDA_PRIVATE", "probe", 1);
	setenv("BTRT_VK_PRIVATE", "host", 1);
	setenv("BTRT_CUDA_SYNC", "block", 1);
	setenv("BTRT_POOL_PRINT", "", 1); /* empty: unset */
	setenv("BTRT_CHECK_THREADS", "3", 1);
	setenv("BTRT_LOAD_THREADS", "2", 1);
	setenv("BTRT_STOP_TIMEOUT_S", "1", 1);
	setenv("BTRT_VK_STREAMS", "each", 1);
	setenv("BTRT_VK_WAIT", "spin", 1);
	setenv("BTRT_IO_COPY", "memcpy", 1);
	setenv("BTRT_CUDA_PROBE_FILE", "/tmp/probe.txt", 1);
	struct btrt_env e;
	struct btrt_error err;
	CU_ASSERT_EQUAL_FATAL(btrt_env_read(&e, &err), 0);
	CU_ASSERT_EQUAL(e.no_pin, 1);
	CU_ASSERT_EQUAL(e.spin_ns, 0);
	CU_ASSERT_EQUAL(e.yield_ns, 50000);
	CU_ASSERT_STRING_EQUAL(e.vk_device, "llvm");
	CU_ASSERT_EQUAL(e.vk_validation, 0);
	CU_ASSERT_EQUAL(e.cuda_device, 2);
	CU_ASSERT_EQUAL(e.cuda_mem, BTRT_CUDA_MEM_PINNED);
	CU_ASSERT_EQUAL(e.cuda_move_all, 1);
	CU_ASSERT_EQUAL(e.cuda_io_managed, 1);
	CU_ASSERT_EQUAL(e.cuda_no_read_mostly, 1);
	CU_ASSERT_EQUAL(e.cuda_probe_private, 1);
	CU_ASSERT_EQUAL(e.vk_host_private, 1);
	CU_ASSERT_EQUAL(e.cuda_sync, BTRT_CUDA_SYNC_BLOCK);
	CU_ASSERT_EQUAL(e.pool_print, 0);
	CU_ASSERT_EQUAL(e.stop_timeout_s, 1);
	CU_ASSERT_EQUAL(e.io_copy_memcpy, 1);
	CU_ASSERT_STRING_EQUAL(e.cuda_probe_file, "/tmp/probe.txt");

	/* The caller's fields win; the unset ones take the environment. */
	struct btrt_cuda_config cc = { .device = 0, .mem = BTRT_CUDA_MEM_MANAGED };
	btrt_env_cuda_config(&e, &cc);
	CU_ASSERT_EQUAL(cc.device, 0);
	CU_ASSERT_EQUAL(cc.mem, BTRT_CUDA_MEM_MANAGED);
	CU_ASSERT_EQUAL(cc.sync, BTRT_CUDA_SYNC_BLOCK);
	CU_ASSERT_EQUAL(cc.move_all, 1);
	CU_ASSERT_EQUAL(cc.no_read_mostly, 1);
	CU_ASSERT_EQUAL(cc.probe_private, 1);
	CU_ASSERT_STRING_EQUAL(cc.probe_file, "/tmp/probe.txt");
	struct btrt_cuda_config cd = { .device = -1, .probe_file = "mine.txt" };
	btrt_env_cuda_config(&e, &cd);
	CU_ASSERT_EQUAL(cd.device, 2);
	CU_ASSERT_EQUAL(cd.mem, BTRT_CUDA_MEM_PINNED);
	CU_ASSERT_STRING_EQUAL(cd.probe_file, "mine.txt"); /* the caller's wins */
	struct btrt_vk_config vc = { .device = "gpu", .validation = -1 };
	btrt_env_vk_config(&e, &vc);
	CU_ASSERT_STRING_EQUAL(vc.device, "gpu");
	CU_ASSERT_EQUAL(vc.validation, 0);
	CU_ASSERT_EQUAL(e.vk_wait, BTRT_VK_WAIT_SPIN);
	CU_ASSERT_EQUAL(vc.wait, BTRT_VK_WAIT_SPIN);
	CU_ASSERT_EQUAL(vc.host_private, 1);
	struct btrt_vk_config vb = { .validation = -1, .wait = BTRT_VK_WAIT_BLOCK };
	btrt_env_vk_config(&e, &vb); /* the caller's wait wins */
	CU_ASSERT_EQUAL(vb.wait, BTRT_VK_WAIT_BLOCK);
	CU_ASSERT_EQUAL(e.check_threads, 3);
	struct btrt_pipeline_config pc = { .no_pin = 0 };
	btrt_env_pipeline_config(&e, &pc);
	CU_ASSERT_EQUAL(pc.no_pin, 1);
	CU_ASSERT_EQUAL(pc.check_threads, 3);
	CU_ASSERT_EQUAL(pc.load_threads, 2);
	struct btrt_pipeline_config pk = { .check_threads = 2 }; /* the caller's wins */
	btrt_env_pipeline_config(&e, &pk);
	CU_ASSERT_EQUAL(pk.check_threads, 2);
	struct btrt_ring_config rc;
	btrt_env_ring_config(&e, &rc);
	CU_ASSERT_EQUAL(rc.spin_ns, 0);
	CU_ASSERT_EQUAL(rc.yield_ns, 50000);
	CU_ASSERT_EQUAL(e.vk_streams, BTRT_VK_STREAMS_EACH);
	/* every word of BTRT_VK_STREAMS */
	static const char *const words[] = { "one", "each", "queue" };
	static const enum btrt_vk_streams want[] = { BTRT_VK_STREAMS_ONE, BTRT_VK_STREAMS_EACH,
						     BTRT_VK_STREAMS_QUEUE };
	for (int k = 0; k < 3; k++) {
		setenv("BTRT_VK_STREAMS", words[k], 1);
		CU_ASSERT_EQUAL_FATAL(btrt_env_read(&e, &err), 0);
		CU_ASSERT_EQUAL(e.vk_streams, want[k]);
	}
	/* every word of BTRT_VK_WAIT; unset or empty: DEFAULT (block) */
	static const char *const waits[] = { "block", "spin", "" };
	static const enum btrt_vk_wait want_wait[] = { BTRT_VK_WAIT_BLOCK, BTRT_VK_WAIT_SPIN,
						       BTRT_VK_WAIT_DEFAULT };
	for (int k = 0; k < 3; k++) {
		setenv("BTRT_VK_WAIT", waits[k], 1);
		CU_ASSERT_EQUAL_FATAL(btrt_env_read(&e, &err), 0);
		CU_ASSERT_EQUAL(e.vk_wait, want_wait[k]);
	}
}

/* Each bad value alone: -1, BTRT_E_INVAL, the variable named, defaults. */
static void test_bad_values(void)
{
	static const char *const bad[][2] = {
		{ "BTRT_NO_PIN", "yes" }, { "BTRT_NO_MEMBARRIER", "2" },
		{ "BTRT_SPIN_NS", "20us" }, { "BTRT_SPIN_NS", "-1" },
		{ "BTRT_YIELD_NS", "99999999999" }, { "BTRT_VK_VALIDATION", "on" },
		{ "BTRT_VK_FORCE_NONCOHERENT", "true" }, { "BTRT_CUDA_DEVICE", "gpu0" },
		{ "BTRT_CUDA_DEVICE", "1024" }, { "BTRT_CUDA_MEM", "device" },
		{ "BTRT_CUDA_MOVE", "some" }, { "BTRT_CUDA_IO_PINNED", "no" },
		{ "BTRT_CUDA_READ_MOSTLY", "off" }, { "BTRT_CUDA_PRIVATE", "managed" },
		{ "BTRT_CUDA_SYNC", "sleep" }, { "BTRT_POOL_PRINT", "1 " },
		{ "BTRT_CHECK_THREADS", "0" }, { "BTRT_CHECK_THREADS", "17" },
		{ "BTRT_LOAD_THREADS", "x" }, { "BTRT_STOP_TIMEOUT_S", "0" },
		{ "BTRT_STOP_TIMEOUT_S", "3601" }, { "BTRT_VK_STREAMS", "all" },
		{ "BTRT_VK_WAIT", "poll" }, { "BTRT_VK_WAIT", "Spin" },
		{ "BTRT_IO_COPY", "nt" }, { "BTRT_VK_PRIVATE", "probe" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		clear_vars();
		setenv("BTRT_NO_PIN", "1", 1); /* a good one before: reset too */
		if (!strcmp(bad[i][0], "BTRT_NO_PIN"))
			unsetenv("BTRT_NO_PIN");
		setenv(bad[i][0], bad[i][1], 1);
		struct btrt_env e;
		struct btrt_error err;
		CU_ASSERT_EQUAL(btrt_env_read(&e, &err), -1);
		CU_ASSERT_EQUAL(err.kind, BTRT_E_INVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, bad[i][0]));
		CU_ASSERT_EQUAL(e.no_pin, 0);
		CU_ASSERT_EQUAL(e.spin_ns, -1);
		CU_ASSERT_EQUAL(e.vk_wait, BTRT_VK_WAIT_DEFAULT);
	}
	/* a bad word's message names the allowed ones */
	clear_vars();
	setenv("BTRT_VK_WAIT", "poll", 1);
	struct btrt_env e;
	struct btrt_error err;
	CU_ASSERT_EQUAL(btrt_env_read(&e, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "BTRT_VK_WAIT='poll'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "block or spin"));
	clear_vars();
}

/* btrt_cuda_place, the CUDA pool's placement rule (a pure function, so
 * tested here without a GPU): declared placements kept, BTRT_CUDA_MEM
 * forcing, integrated GPUs managed, and on a discrete GPU io-loaded inputs
 * pinned, written buffers left to the probe and weights managed and
 * read-mostly (issue 25), unless BTRT_CUDA_READ_MOSTLY=0; host memory for
 * a buffer no GPU stage of the run touches; managed memory for a GPU
 * chunk's private intermediates, unless BTRT_CUDA_PRIVATE=probe. */
static void test_cuda_place(void)
{
	const struct btrt_buffer_desc weights = { "conv1_w", BTRT_F32, 4, BTRT_PLACE_UNIFIED, 1, 0 };
	const struct btrt_buffer_desc inter = { "conv1_out", BTRT_F32, 4, BTRT_PLACE_UNIFIED, 0, 0 };
	const struct btrt_buffer_desc host = { "h", BTRT_F32, 4, BTRT_PLACE_HOST, 1, 0 };
	const struct btrt_buffer_desc dev = { "d", BTRT_F32, 4, BTRT_PLACE_DEVICE, 0, 0 };
	struct btrt_cuda_rule h100 = { .integrated = 0, .concurrent_managed = 1,
				       .mem = BTRT_CUDA_MEM_AUTO };
	struct btrt_cuda_place p = btrt_cuda_place(&h100, &weights, 0, 1);
	CU_ASSERT_EQUAL(p.kind, BTRT_CUDA_KIND_MANAGED);
	CU_ASSERT_EQUAL(p.read_mostly, 1);
	p = btrt_cuda_place(&h100, &weights, 1, 1); /* octree's points: refilled per task */
	CU_ASSERT_EQUAL(p.kind, BTRT_CUDA_KIND_PINNED);
	CU_ASSERT_EQUAL(p.read_mostly, 0);
	p = btrt_cuda_place(&h100, &inter, 0, 1);
	CU_ASSERT_EQUAL(p.kind, BTRT_CUDA_KIND_PROBE);
	CU_ASSERT_EQUAL(p.read_mostly, 0);
	CU_ASSERT_EQUAL(btrt_cuda_place(&h100, &host, 0, 1).kind, BTRT_CUDA_KIND_HOST);
	CU_ASSERT_EQUAL(btrt_cuda_place(&h100, &dev, 0, 1).kind, BTRT_CUDA_KIND_DEVICE);
	/* io-loaded and read-only, kept managed (BTRT_CUDA_IO_PINNED=0): each
	 * io.load would drop the GPU's copy, so not read-mostly */
	struct btrt_cuda_rule iom = h100;
	iom.io_managed = 1;
	p = btrt_cuda_place(&iom, &weights, 1, 1);
	CU_ASSERT_EQUAL(p.kind, BTRT_CUDA_KIND_MANAGED);
	CU_ASSERT_EQUAL(p.read_mostly, 0);
	/* the rule before (BTRT_CUDA_READ_MOSTLY=0) */
	struct btrt_cuda_rule old = h100;
	old.no_read_mostly = 1;
	p = btrt_cuda_place(&old, &weights, 0, 1);
	CU_ASSERT_EQUAL(p.kind, BTRT_CUDA_KIND_MANAGED);
	CU_ASSERT_EQUAL(p.read_mostly, 0);
	/* forced kinds and Jetson-style managed memory: no advice */
	struct btrt_cuda_rule pin = h100, jet = h100;
	pin.mem = BTRT_CUDA_MEM_PINNED;
	jet.integrated = 1;
	CU_ASSERT_EQUAL(btrt_cuda_place(&pin, &weights, 0, 1).kind, BTRT_CUDA_KIND_PINNED);
	CU_ASSERT_EQUAL(btrt_cuda_place(&pin, &dev, 0, 1).kind, BTRT_CUDA_KIND_DEVICE);
	p = btrt_cuda_place(&jet, &weights, 0, 1);
	CU_ASSERT_EQUAL(p.kind, BTRT_CUDA_KIND_MANAGED);
	CU_ASSERT_EQUAL(p.read_mostly, 0);
	CU_ASSERT_EQUAL(btrt_cuda_place(&jet, &inter, 0, 1).kind, BTRT_CUDA_KIND_MANAGED);
	/* a buffer no GPU stage of the run touches: host memory, whatever
	 * else the rule would say; a declared device placement stays */
	CU_ASSERT_EQUAL(btrt_cuda_place(&h100, &inter, 0, 0).kind, BTRT_CUDA_KIND_HOST);
	p = btrt_cuda_place(&h100, &weights, 0, 0);
	CU_ASSERT_EQUAL(p.kind, BTRT_CUDA_KIND_HOST);
	CU_ASSERT_EQUAL(p.read_mostly, 0);
	CU_ASSERT_EQUAL(btrt_cuda_place(&h100, &weights, 1, 0).kind, BTRT_CUDA_KIND_HOST);
	CU_ASSERT_EQUAL(btrt_cuda_place(&pin, &inter, 0, 0).kind, BTRT_CUDA_KIND_HOST);
	CU_ASSERT_EQUAL(btrt_cuda_place(&jet, &inter, 0, 0).kind, BTRT_CUDA_KIND_HOST);
	CU_ASSERT_EQUAL(btrt_cuda_place(&h100, &dev, 0, 0).kind, BTRT_CUDA_KIND_DEVICE);
	/* a GPU chunk's private intermediate: managed (moved to the device
	 * once per TaskObject), not read-mostly (a stage writes it); io.load
	 * refilling it, or the rule before, leaves it to the probe; weights
	 * and declared placements as before */
	p = btrt_cuda_place(&h100, &inter, 0, BTRT_GPU_PRIVATE);
	CU_ASSERT_EQUAL(p.kind, BTRT_CUDA_KIND_MANAGED);
	CU_ASSERT_EQUAL(p.read_mostly, 0);
	CU_ASSERT_EQUAL(btrt_cuda_place(&h100, &inter, 1, BTRT_GPU_PRIVATE).kind,
			BTRT_CUDA_KIND_PROBE);
	struct btrt_cuda_rule before = h100;
	before.probe_private = 1;
	CU_ASSERT_EQUAL(btrt_cuda_place(&before, &inter, 0, BTRT_GPU_PRIVATE).kind,
			BTRT_CUDA_KIND_PROBE);
	p = btrt_cuda_place(&h100, &weights, 0, BTRT_GPU_PRIVATE);
	CU_ASSERT_EQUAL(p.kind, BTRT_CUDA_KIND_MANAGED);
	CU_ASSERT_EQUAL(p.read_mostly, 1);
	CU_ASSERT_EQUAL(btrt_cuda_place(&h100, &host, 0, BTRT_GPU_PRIVATE).kind,
			BTRT_CUDA_KIND_HOST);
	CU_ASSERT_EQUAL(btrt_cuda_place(&pin, &inter, 0, BTRT_GPU_PRIVATE).kind,
			BTRT_CUDA_KIND_PINNED);
}

/* btrt_vk_place, the Vulkan pool's placement rule (a pure function, so
 * tested here without a device): declared placements kept; a GPU
 * chunk's private intermediate and its weights (written once per
 * TaskObject) device-local, unless io.load refills the buffer every task
 * or BTRT_VK_PRIVATE=host; every other buffer unified, where the CPU
 * reads it cached. */
static void test_vk_place(void)
{
	const struct btrt_buffer_desc weights = { "conv1_w", BTRT_F32, 4, BTRT_PLACE_UNIFIED, 1, 0 };
	const struct btrt_buffer_desc inter = { "conv1_out", BTRT_F32, 4, BTRT_PLACE_UNIFIED, 0, 0 };
	const struct btrt_buffer_desc host = { "h", BTRT_F32, 4, BTRT_PLACE_HOST, 0, 0 };
	const struct btrt_buffer_desc dev = { "d", BTRT_F32, 4, BTRT_PLACE_DEVICE, 0, 0 };
	CU_ASSERT_EQUAL(btrt_vk_place(&inter, 0, BTRT_GPU_PRIVATE, 0), BTRT_VK_MEM_DEVICE_MAPPED);
	CU_ASSERT_EQUAL(btrt_vk_place(&weights, 0, BTRT_GPU_PRIVATE, 0), BTRT_VK_MEM_DEVICE_MAPPED);
	CU_ASSERT_EQUAL(btrt_vk_place(&weights, 1, BTRT_GPU_PRIVATE, 0), BTRT_VK_MEM_UNIFIED);
	CU_ASSERT_EQUAL(btrt_vk_place(&inter, 1, BTRT_GPU_PRIVATE, 0), BTRT_VK_MEM_UNIFIED);
	CU_ASSERT_EQUAL(btrt_vk_place(&inter, 0, BTRT_GPU_PRIVATE, 1), BTRT_VK_MEM_UNIFIED);
	for (int use = BTRT_GPU_UNTOUCHED; use <= BTRT_GPU_PRIVATE; use++) {
		CU_ASSERT_EQUAL(btrt_vk_place(&host, 0, use, 0), BTRT_VK_MEM_HOST);
		CU_ASSERT_EQUAL(btrt_vk_place(&dev, 1, use, 1), BTRT_VK_MEM_DEVICE);
		if (use != BTRT_GPU_PRIVATE) {
			CU_ASSERT_EQUAL(btrt_vk_place(&inter, 0, use, 0), BTRT_VK_MEM_UNIFIED);
			CU_ASSERT_EQUAL(btrt_vk_place(&weights, 0, use, 0), BTRT_VK_MEM_UNIFIED);
		}
	}
}

/* The OpenMP wait policy as it runs (btrt_omp_wait_name): the build's
 * unless the environment sets one; spin only with the threads pinned.
 * The runner itself re-executed passively (suites.c), so its marks are
 * set aside for the test and put back. */
static void test_omp_wait(void)
{
	const char *omp[] = {"BTRT_OMP_ENV_DONE", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT",
			     "KMP_BLOCKTIME"};
	char *was[4];
	for (int i = 0; i < 4; i++) {
		const char *v = getenv(omp[i]);
		was[i] = v ? strdup(v) : NULL;
		unsetenv(omp[i]);
	}
	CU_ASSERT_STRING_EQUAL(btrt_omp_wait_name(BTRT_OMP_WAIT_SPIN), "spin");
	CU_ASSERT_STRING_EQUAL(btrt_omp_wait_name(BTRT_OMP_WAIT_PASSIVE), "passive");
	setenv("BTRT_NO_PIN", "1", 1);
	CU_ASSERT_STRING_EQUAL(btrt_omp_wait_name(BTRT_OMP_WAIT_SPIN), "passive");
	unsetenv("BTRT_NO_PIN");
	setenv("OMP_WAIT_POLICY", "active", 1);
	CU_ASSERT_STRING_EQUAL(btrt_omp_wait_name(BTRT_OMP_WAIT_PASSIVE), "environment");
	/* nothing to do for spin: no re-exec */
	CU_ASSERT_EQUAL(btrt_omp_env_init(NULL, BTRT_OMP_WAIT_SPIN), 0);
	for (int i = 0; i < 4; i++) {
		if (was[i])
			setenv(omp[i], was[i], 1);
		else
			unsetenv(omp[i]);
		free(was[i]);
	}
}

int suite_env_register(void)
{
	CU_pSuite s = CU_add_suite("env", save_env, restore_env);
	if (!s || !CU_add_test(s, "defaults", test_defaults) ||
	    !CU_add_test(s, "values and configs", test_values) ||
	    !CU_add_test(s, "bad values", test_bad_values) ||
	    !CU_add_test(s, "CUDA buffer placement rule", test_cuda_place) ||
	    !CU_add_test(s, "Vulkan buffer placement rule", test_vk_place) ||
	    !CU_add_test(s, "OpenMP wait policy", test_omp_wait))
		return -1;
	return 0;
}
