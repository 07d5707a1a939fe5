/* CPU+Vulkan toy pipelines (llvmpipe in CI; any device via BTRT_VK_DEVICE):
 * results in order with 1, 3 and 5 chunks, GPU tracks in the trace,
 * clean under validation when BTRT_VK_VALIDATION=1 (read by suites.c);
 * contexts sharing one device, two streams on it at once, also with
 * spinning fence waits (BTRT_VK_WAIT=spin). Skips (77) without a
 * Vulkan device, and fails then under BTC_REQUIRE_VULKAN=1 (btc_test_skip). */
#include "suites.h"
#include "testutil.h"
#include "toy.h"

#include <btc_config.h>
#include <btrt_trace.h>
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if BTC_HAVE_VULKAN
#include <btrt_env.h>
#include <btrt_vk.h>
#include <btrt_workload.h>

#include "../../runtime/src/btrt_vk_internal.h"

#include "scale.spv.h"
#include "offset.spv.h"
#include "square.spv.h"
#include "mix.spv.h"
#include "seal.spv.h"

static struct btrt_vk *vk;
static struct btrt_stage stages[TOY_N_STAGES];
static uint32_t push[2];
static struct btrt_vk_dispatch disp[TOY_N_STAGES];
static struct toy_params params;
static int cores[2];

static const struct btrt_vk_shader shaders[TOY_N_STAGES] = {
	{ "scale", scale_spv, sizeof scale_spv, NULL },
	{ "offset", offset_spv, sizeof offset_spv, NULL },
	{ "square", square_spv, sizeof square_spv, NULL },
	{ "mix", mix_spv, sizeof mix_spv, NULL },
	{ "seal", seal_spv, sizeof seal_spv, NULL },
};

/* The suite's context: the toy's shaders, device and validation from the
 * environment (read once by suites.c). */
static struct btrt_vk_config vk_config(void)
{
	struct btrt_vk_config cfg = {
		.device = NULL, .validation = -1, .n_buffers = TOY_N_BUFFERS,
		.shaders = shaders, .n_shaders = TOY_N_STAGES,
	};
	btrt_env_vk_config(&test_btrt_env, &cfg);
	return cfg;
}

static int cleanup(void)
{
	btrt_vk_destroy(vk);
	vk = NULL;
	return 0;
}

static void run_ok(const struct btrt_chunk *ch, uint32_t n, uint32_t pool, uint64_t items, const char *trace)
{
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX };
	struct btrt_error err;
	int rc = toy_run(&params, stages, ch, n, pool, items, BTRT_BACKEND_VULKAN, vk, NULL, &io, trace, &err);
	if (rc)
		fprintf(stderr, "vulkan pipeline: %s\n", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(io.checked, items);
	CU_ASSERT_EQUAL(io.order_errors, 0);
	CU_ASSERT_EQUAL(btrt_vk_validation_errors(vk), 0);
}

static void test_gpu_only(void)
{
	struct btrt_chunk ch = { "gpu", BTRT_PU_VULKAN, &cores[0], 1, 0, 5, NULL, NULL, 0 };
	run_ok(&ch, 1, 2, 20, NULL);
}

static void test_three_chunks(void)
{
	struct btrt_chunk ch[3] = {
		{ "big", BTRT_PU_CPU, &cores[0], 1, 0, 1, NULL, NULL, 0 },
		{ "gpu", BTRT_PU_VULKAN, &cores[1], 1, 1, 3, NULL, NULL, 0 },
		{ "little", BTRT_PU_CPU, &cores[1], 1, 4, 1, NULL, NULL, 0 },
	};
	char path[] = "/tmp/btrt_vktrace_XXXXXX";
	CU_ASSERT_EQUAL_FATAL(btc_test_tmpfile(path), 0);
	run_ok(ch, 3, 3, 60, path);
	/* the trace replaces the file (btrt_fsafe.h): read it by name */
	FILE *f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	static char buf[1 << 20];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	if (getenv("TOY_KEEP_TRACE"))
		fprintf(stderr, "trace kept: %s\n", path);
	else
		remove(path);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "gpu of chunk 1"));
}

static void test_five_chunks(void)
{
	struct btrt_chunk ch[5] = {
		{ "c0", BTRT_PU_CPU, &cores[0], 1, 0, 1, NULL, NULL, 0 },
		{ "g1", BTRT_PU_VULKAN, &cores[1], 1, 1, 1, NULL, NULL, 0 },
		{ "c2", BTRT_PU_CPU, &cores[0], 1, 2, 1, NULL, NULL, 0 },
		{ "g3", BTRT_PU_VULKAN, &cores[1], 1, 3, 1, NULL, NULL, 0 },
		{ "c4", BTRT_PU_CPU, cores, 2, 4, 1, NULL, NULL, 0 },
	};
	run_ok(ch, 5, 4, 60, NULL);
}

/* The flush / invalidate path of non-coherent memory, forced on memory
 * that is coherent (valid, and the results must not change). */
static void test_noncoherent_path(void)
{
	struct btrt_chunk ch[3] = {
		{ "big", BTRT_PU_CPU, &cores[0], 1, 0, 1, NULL, NULL, 0 },
		{ "gpu", BTRT_PU_VULKAN, &cores[1], 1, 1, 3, NULL, NULL, 0 },
		{ "little", BTRT_PU_CPU, &cores[1], 1, 4, 1, NULL, NULL, 0 },
	};
	/* A second context of the same device, with the test knob on. */
	struct btrt_vk_config cfg = vk_config();
	cfg.force_noncoherent = 1;
	struct btrt_vk *shared = vk, *forced = NULL;
	struct btrt_error err;
	CU_ASSERT_EQUAL_FATAL(btrt_vk_create(&forced, &cfg, &err), 0);
	vk = forced;
	size_t counts[TOY_N_BUFFERS];
	toy_counts(&params, counts);
	struct btrt_pool_config pc = {
		.task_size = sizeof(struct toy_task), .n_tasks = 1, .buffers = toy_buffers,
		.counts = counts, .n_buffers = TOY_N_BUFFERS, .backend = BTRT_BACKEND_VULKAN, .vk = vk,
	};
	struct btrt_pool *pool;
	CU_ASSERT_EQUAL_FATAL(btrt_pool_create(&pool, &pc, &err), 0);
	CU_ASSERT_STRING_EQUAL(btrt_pool_buffer_memory(pool, TOY_BUF_OUT), "vk-noncoherent");
	btrt_pool_destroy(pool);
	run_ok(ch, 3, 3, 40, NULL);
	vk = shared;
	btrt_vk_destroy(forced);
}

static void test_kernel_error(void)
{
	struct toy_params p = params;
	p.fail_seq = 9;
	struct btrt_chunk ch[3] = {
		{ "gpu", BTRT_PU_VULKAN, &cores[0], 1, 0, 2, NULL, NULL, 0 },
		{ "cpu", BTRT_PU_CPU, &cores[1], 1, 2, 1, NULL, NULL, 0 },
		{ "gpu2", BTRT_PU_VULKAN, &cores[0], 1, 3, 2, NULL, NULL, 0 },
	};
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX };
	struct btrt_error err;
	int rc = toy_run(&p, stages, ch, 3, 3, 100, BTRT_BACKEND_VULKAN, vk, NULL, &io, NULL, &err);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_KERNEL);
	CU_ASSERT_EQUAL(err.chunk, 1);
	CU_ASSERT_EQUAL(err.stage, 2);
	CU_ASSERT_EQUAL(err.seq, 9);
}

/* Farms with a Vulkan worker: the whole app on {cpu, vulkan}, a farm of
 * {vulkan, cpu, vulkan} between CPU chunks (two Vulkan workers share the
 * queue), every task checked, in order, each on one worker; a load error
 * stops a farm whose Vulkan worker waits. */
static uint64_t farm_tasks(const struct btrt_chunk *ch, uint32_t n, uint32_t first,
			   uint32_t workers, uint32_t pool, uint64_t items)
{
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX };
	struct btrt_error err;
	struct btrt_run *run = NULL;
	toy_keep_run = &run;
	int rc = toy_run(&params, stages, ch, n, pool, items, BTRT_BACKEND_VULKAN, vk, NULL, &io, NULL, &err);
	toy_keep_run = NULL;
	if (rc)
		fprintf(stderr, "vulkan farm: %s\n", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(io.checked, items);
	CU_ASSERT_EQUAL(io.order_errors, 0);
	CU_ASSERT_EQUAL(btrt_vk_validation_errors(vk), 0);
	uint64_t sum = 0;
	for (uint32_t c = first; run && c < first + workers; c++) {
		struct btrt_summary sm;
		btrt_run_chunk_summary(run, c, &sm);
		fprintf(stderr, "%s%s %llu", c == first ? "  (" : ", ", ch[c].name, (unsigned long long)sm.n);
		sum += sm.n;
	}
	fprintf(stderr, " tasks) ");
	btrt_run_free(run);
	return sum;
}

static void test_farm(void)
{
	struct btrt_chunk whole[2] = {
		{ "cpu", BTRT_PU_CPU, &cores[0], 1, 0, 5, NULL, NULL, 1 },
		{ "gpu", BTRT_PU_VULKAN, &cores[1], 1, 0, 5, NULL, NULL, 1 },
	};
	CU_ASSERT_EQUAL(farm_tasks(whole, 2, 0, 2, 6, 300), 300);
	struct btrt_chunk mid[5] = {
		{ "first", BTRT_PU_CPU, &cores[0], 1, 0, 1, NULL, NULL, 0 },
		{ "g0", BTRT_PU_VULKAN, &cores[1], 1, 1, 3, NULL, NULL, 2 },
		{ "c", BTRT_PU_CPU, &cores[0], 1, 1, 3, NULL, NULL, 2 },
		{ "g1", BTRT_PU_VULKAN, &cores[1], 1, 1, 3, NULL, NULL, 2 },
		{ "last", BTRT_PU_CPU, &cores[1], 1, 4, 1, NULL, NULL, 0 },
	};
	CU_ASSERT_EQUAL(farm_tasks(mid, 5, 1, 3, 8, 200), 200);
	struct toy_io_state io = { .load_fail_seq = 30 };
	struct btrt_error err;
	int rc = toy_run(&params, stages, whole, 2, 4, 100, BTRT_BACKEND_VULKAN, vk, NULL, &io, NULL, &err);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_IO);
	CU_ASSERT_EQUAL(err.seq, 30);
	CU_ASSERT_TRUE(io.checked <= 30);
}

/* Several streams on one device (btrt_vk_config.share; docs/runtime.md,
 * "Several streams"): three contexts on one device take its queues in
 * turn; two streams, one on each of two of them, run at once, every task
 * of both checked in order; the context that made the device goes first
 * and the others keep it. */
static void stream_on(struct btrt_vk *ctx, struct toy_params *p, struct toy_io_state *io,
		      struct btrt_pool **pool, const struct btrt_chunk *ch, uint64_t items,
		      struct btrt_stream_run *sr)
{
	*p = params;
	*io = (struct toy_io_state){ .p = p, .load_fail_seq = UINT64_MAX };
	size_t counts[TOY_N_BUFFERS];
	toy_counts(p, counts);
	struct btrt_pool_config pc = {
		.task_size = sizeof(struct toy_task), .n_tasks = 3, .buffers = toy_buffers,
		.counts = counts, .n_buffers = TOY_N_BUFFERS, .backend = BTRT_BACKEND_VULKAN,
		.vk = ctx,
	};
	struct btrt_error err;
	CU_ASSERT_EQUAL_FATAL(btrt_pool_create(pool, &pc, &err), 0);
	for (uint32_t i = 0; i < btrt_pool_size(*pool); i++)
		toy_task_bind(btrt_pool_task(*pool, i), p);
	memset(sr, 0, sizeof *sr);
	sr->cfg = (struct btrt_pipeline_config){
		.app = "toy", .stages = stages, .n_stages = TOY_N_STAGES, .chunks = ch,
		.n_chunks = 3, .pool = *pool, .io = &toy_io, .io_state = io, .n_items = items,
		.check = 1, .vk = ctx,
	};
	btrt_env_pipeline_config(&test_btrt_env, &sr->cfg);
}

/* Two streams on contexts made on one device: a queue each in turn, or
 * (same_queue) every context on the first one's queue, their submissions
 * serialised under its mutex; every task of both checked in order. wait:
 * the contexts' fence wait (DEFAULT: the environment's). */
static void streams_one_device(int same_queue, enum btrt_vk_wait wait)
{
	struct btrt_vk_config cfg = vk_config();
	if (wait != BTRT_VK_WAIT_DEFAULT)
		cfg.wait = wait;
	cfg.queues = 3;
	struct btrt_vk *ctx[3] = { NULL, NULL, NULL };
	struct btrt_error err;
	CU_ASSERT_EQUAL_FATAL(btrt_vk_create(&ctx[0], &cfg, &err), 0);
	cfg.share = ctx[0];
	cfg.same_queue = same_queue;
	cfg.queues = 0;
	CU_ASSERT_EQUAL_FATAL(btrt_vk_create(&ctx[1], &cfg, &err), 0);
	CU_ASSERT_EQUAL_FATAL(btrt_vk_create(&ctx[2], &cfg, &err), 0);
	uint32_t nq = btrt_vk_queue_count(ctx[0]);
	fprintf(stderr, "(%u queues) ", nq);
	CU_ASSERT_TRUE(nq >= 1 && nq <= 3);
	for (uint32_t k = 0; k < 3; k++) {
		CU_ASSERT_EQUAL(btrt_vk_queue_index(ctx[k]), same_queue ? 0 : k % nq);
		CU_ASSERT_TRUE(btrt_vk_same_device(ctx[k], ctx[0]));
		CU_ASSERT_EQUAL(btrt_vk_queue_count(ctx[k]), nq);
	}
	CU_ASSERT_FALSE(btrt_vk_same_device(ctx[1], vk)); /* the suite's own device */
	btrt_vk_destroy(ctx[0]);
	struct btrt_chunk ch[2][3] = {
		{ { "c0", BTRT_PU_CPU, &cores[0], 1, 0, 1, NULL, NULL, 0 },
		  { "g0", BTRT_PU_VULKAN, &cores[1], 1, 1, 3, NULL, NULL, 0 },
		  { "c1", BTRT_PU_CPU, &cores[1], 1, 4, 1, NULL, NULL, 0 } },
		{ { "g1", BTRT_PU_VULKAN, &cores[0], 1, 0, 2, NULL, NULL, 0 },
		  { "c2", BTRT_PU_CPU, &cores[1], 1, 2, 1, NULL, NULL, 0 },
		  { "g2", BTRT_PU_VULKAN, &cores[0], 1, 3, 2, NULL, NULL, 0 } },
	};
	static const uint64_t items[2] = { 80, 60 };
	struct toy_params p[2];
	struct toy_io_state io[2];
	struct btrt_pool *pool[2];
	struct btrt_stream_run sr[2];
	for (int i = 0; i < 2; i++)
		stream_on(ctx[1 + i], &p[i], &io[i], &pool[i], ch[i], items[i], &sr[i]);
	int rc = btrt_streams_run(sr, 2, &err);
	if (rc)
		fprintf(stderr, "streams on one device: %s\n", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(io[i].checked, items[i]);
		CU_ASSERT_EQUAL(io[i].order_errors, 0);
		CU_ASSERT_EQUAL(btrt_vk_validation_errors(ctx[1 + i]), 0);
		btrt_run_free(sr[i].run);
		btrt_pool_destroy(pool[i]);
	}
	btrt_vk_destroy(ctx[2]);
	btrt_vk_destroy(ctx[1]);
}

static void test_streams_one_device(void)
{
	streams_one_device(0, BTRT_VK_WAIT_DEFAULT);
}

static void test_streams_one_queue(void)
{
	streams_one_device(1, BTRT_VK_WAIT_DEFAULT);
}

/* BTRT_VK_WAIT=spin (btrt_vk_config.wait): both streams' dispatchers
 * poll their fences on the one queue, every task of both still checked
 * against the reference in order; a wait out of range is refused. A spin
 * that returned before its fence signalled is caught under validation
 * (runtime-vulkan-validation: the fence reset while in use,
 * VUID-vkResetFences-pFences-01123), a hang by the test's timeout. */
static void test_streams_spin_wait(void)
{
	streams_one_device(1, BTRT_VK_WAIT_SPIN);
	struct btrt_vk_config cfg = vk_config();
	cfg.share = vk;
	cfg.wait = (enum btrt_vk_wait)(BTRT_VK_WAIT_SPIN + 1);
	struct btrt_vk *bad = NULL;
	struct btrt_error err;
	CU_ASSERT_EQUAL(btrt_vk_create(&bad, &cfg, &err), -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_INVAL);
	CU_ASSERT_PTR_NULL(bad);
}

static void test_memory_kind(void)
{
	size_t counts[TOY_N_BUFFERS];
	toy_counts(&params, counts);
	struct btrt_pool_config pc = {
		.task_size = sizeof(struct toy_task), .n_tasks = 2, .buffers = toy_buffers,
		.counts = counts, .n_buffers = TOY_N_BUFFERS, .backend = BTRT_BACKEND_VULKAN, .vk = vk,
	};
	struct btrt_pool *pool;
	struct btrt_error err;
	CU_ASSERT_EQUAL_FATAL(btrt_pool_create(&pool, &pc, &err), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(btrt_pool_buffer_memory(pool, 0), "vk-"));
	struct btrt_task *t = btrt_pool_task(pool, 1);
	CU_ASSERT_PTR_NOT_NULL(t->vk_set);
	CU_ASSERT_PTR_NOT_NULL(t->buffers[TOY_BUF_OUT].host);
	/* each buffer's bytes per TaskObject and its allocation time
	 * (the report's pool_buffers) */
	for (uint32_t b = 0; b < TOY_N_BUFFERS; b++) {
		uint64_t bytes = 0;
		double ms = -1;
		CU_ASSERT_EQUAL(btrt_pool_buffer_setup(pool, b, &bytes, &ms), 0);
		CU_ASSERT_EQUAL(bytes, counts[b] * toy_buffers[b].elem_size);
		CU_ASSERT(ms >= 0 && ms < 60e3);
	}
	uint64_t bytes;
	double ms;
	CU_ASSERT_EQUAL(btrt_pool_buffer_setup(pool, TOY_N_BUFFERS, &bytes, &ms), -1);
	btrt_pool_print(pool, stderr);
	btrt_pool_destroy(pool);
}

/* btrt_vk_memory_type on the memory types of three devices (their
 * VkPhysicalDeviceMemoryProperties as the drivers list them): unified
 * buffers in cached system memory, device-only ones in VRAM, and a GPU
 * chunk's private ones in the BAR's device-local mapped memory where
 * there is one, else unified. */
static void test_memory_type(void)
{
	enum {
		DL = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
		HV = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
		HC = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
		CA = VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
	};
	/* a discrete NVIDIA GPU: none, VRAM, system memory (coherent; and
	 * cached), the BAR */
	VkPhysicalDeviceMemoryProperties nv = {
		.memoryTypeCount = 5,
		.memoryTypes = {{0, 1}, {DL, 0}, {HV | HC, 1}, {HV | HC | CA, 1}, {DL | HV | HC, 2}},
	};
	CU_ASSERT_EQUAL(btrt_vk_memory_type(&nv, 0x1f, BTRT_VK_MEM_UNIFIED), 3);
	CU_ASSERT_EQUAL(btrt_vk_memory_type(&nv, 0x1f, BTRT_VK_MEM_DEVICE), 1);
	CU_ASSERT_EQUAL(btrt_vk_memory_type(&nv, 0x1f, BTRT_VK_MEM_DEVICE_MAPPED), 4);
	/* a buffer whose memoryTypeBits leave the BAR out, or no cached type */
	CU_ASSERT_EQUAL(btrt_vk_memory_type(&nv, 0x0f, BTRT_VK_MEM_DEVICE_MAPPED), 3);
	CU_ASSERT_EQUAL(btrt_vk_memory_type(&nv, 0x17, BTRT_VK_MEM_UNIFIED), 2);
	CU_ASSERT_EQUAL(btrt_vk_memory_type(&nv, 0x03, BTRT_VK_MEM_UNIFIED), -1);
	CU_ASSERT_EQUAL(btrt_vk_memory_type(&nv, 0x01, BTRT_VK_MEM_DEVICE), 0);
	/* llvmpipe: one type, all of it */
	VkPhysicalDeviceMemoryProperties lp = {
		.memoryTypeCount = 1,
		.memoryTypes = {{DL | HV | HC | CA, 0}},
	};
	for (int m = BTRT_VK_MEM_UNIFIED; m <= BTRT_VK_MEM_DEVICE_MAPPED; m++)
		if (m != BTRT_VK_MEM_HOST)
			CU_ASSERT_EQUAL(btrt_vk_memory_type(&lp, 0x1, (enum btrt_vk_mem)m), 0);
	/* an integrated GPU (Mali): device-local coherent, and cached */
	VkPhysicalDeviceMemoryProperties mali = {
		.memoryTypeCount = 2,
		.memoryTypes = {{DL | HV | HC, 0}, {DL | HV | CA, 0}},
	};
	CU_ASSERT_EQUAL(btrt_vk_memory_type(&mali, 0x3, BTRT_VK_MEM_UNIFIED), 0);
	CU_ASSERT_EQUAL(btrt_vk_memory_type(&mali, 0x2, BTRT_VK_MEM_UNIFIED), 1);
	CU_ASSERT_EQUAL(btrt_vk_memory_type(&mali, 0x3, BTRT_VK_MEM_DEVICE_MAPPED), 0);
}

/* A GPU chunk's private buffer (the toy's b between offset and square in
 * cpu | vulkan 1-3 | cpu; a and b in a GPU-only chunk) in device-local
 * mapped memory where the device has it, every shared one where it was;
 * BTRT_VK_PRIVATE=host's rule puts it back; the runs verify every task. */
static void test_private_buffers(void)
{
	struct btrt_chunk ch[3] = {
		{"big", BTRT_PU_CPU, &cores[0], 1, 0, 1, NULL, NULL, 0},
		{"gpu", BTRT_PU_VULKAN, &cores[1], 1, 1, 3, NULL, NULL, 0},
		{"little", BTRT_PU_CPU, &cores[1], 1, 4, 1, NULL, NULL, 0},
	};
	unsigned char use[TOY_N_BUFFERS];
	CU_ASSERT_EQUAL_FATAL(
		btrt_chunks_gpu_touched(stages, TOY_N_STAGES, ch, 3, NULL, TOY_N_BUFFERS, use), 0);
	CU_ASSERT_EQUAL_FATAL(use[TOY_BUF_B], BTRT_GPU_PRIVATE);
	size_t counts[TOY_N_BUFFERS];
	toy_counts(&params, counts);
	struct btrt_pool_config pc = {
		.task_size = sizeof(struct toy_task),
		.n_tasks = 2,
		.buffers = toy_buffers,
		.counts = counts,
		.n_buffers = TOY_N_BUFFERS,
		.backend = BTRT_BACKEND_VULKAN,
		.vk = vk,
		.gpu_touched = use,
	};
	/* the type the device gives private buffers: device-local where it
	 * has such host-visible memory (llvmpipe: its one type) */
	VkBuffer probe;
	VkBufferCreateInfo bi = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = 64,
		.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	CU_ASSERT_EQUAL_FATAL(vkCreateBuffer(vk->dev, &bi, NULL, &probe), VK_SUCCESS);
	VkMemoryRequirements mr;
	vkGetBufferMemoryRequirements(vk->dev, probe, &mr);
	vkDestroyBuffer(vk->dev, probe, NULL);
	int ti = btrt_vk_memory_type(&vk->memp, mr.memoryTypeBits, BTRT_VK_MEM_DEVICE_MAPPED);
	CU_ASSERT_FATAL(ti >= 0);
	int mapped = (vk->memp.memoryTypes[ti].propertyFlags &
		      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0;
	struct btrt_pool *pool;
	struct btrt_error err;
	CU_ASSERT_EQUAL_FATAL(btrt_pool_create(&pool, &pc, &err), 0);
	CU_ASSERT_STRING_EQUAL(btrt_pool_buffer_memory(pool, TOY_BUF_B),
			       mapped ? "vk-device-mapped" : "vk-coherent");
	for (uint32_t b = 0; b < TOY_N_BUFFERS; b++)
		if (b != TOY_BUF_B)
			CU_ASSERT_STRING_NOT_EQUAL(btrt_pool_buffer_memory(pool, b),
						   "vk-device-mapped");
	/* mapped: the CPU still sees it (the io check may read any buffer) */
	CU_ASSERT_PTR_NOT_NULL(
		((struct btrt_task *)btrt_pool_task(pool, 1))->buffers[TOY_BUF_B].host);
	btrt_pool_destroy(pool);
	/* the rule before, on a second context of the device */
	struct btrt_vk_config cfg = vk_config();
	cfg.host_private = 1;
	cfg.share = vk;
	struct btrt_vk *before = NULL;
	CU_ASSERT_EQUAL_FATAL(btrt_vk_create(&before, &cfg, &err), 0);
	pc.vk = before;
	CU_ASSERT_EQUAL_FATAL(btrt_pool_create(&pool, &pc, &err), 0);
	CU_ASSERT_STRING_NOT_EQUAL(btrt_pool_buffer_memory(pool, TOY_BUF_B), "vk-device-mapped");
	btrt_pool_destroy(pool);
	btrt_vk_destroy(before);
	/* runs: cpu | vulkan | cpu, and all on the GPU (a and b private) */
	toy_gpu_touched = use;
	run_ok(ch, 3, 3, 40, NULL);
	struct btrt_chunk gpu = {"gpu", BTRT_PU_VULKAN, &cores[0], 1, 0, 5, NULL, NULL, 0};
	CU_ASSERT_EQUAL_FATAL(
		btrt_chunks_gpu_touched(stages, TOY_N_STAGES, &gpu, 1, NULL, TOY_N_BUFFERS, use),
		0);
	CU_ASSERT_EQUAL(use[TOY_BUF_A], BTRT_GPU_PRIVATE);
	CU_ASSERT_EQUAL(use[TOY_BUF_B], BTRT_GPU_PRIVATE);
	run_ok(&gpu, 1, 2, 40, NULL);
	toy_gpu_touched = NULL;
}

static void test_device_selection(void)
{
	struct btrt_vk_config cfg = {
		.device = "no-such-gpu-xyz", .validation = 0, .n_buffers = TOY_N_BUFFERS,
		.shaders = shaders, .n_shaders = 1,
	};
	struct btrt_vk *v2 = NULL;
	struct btrt_error err;
	CU_ASSERT_EQUAL(btrt_vk_create(&v2, &cfg, &err), -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_NODEV);
	CU_ASSERT_PTR_NULL(v2);
	/* By a name substring (case-insensitive) of the selected device. */
	char name[8];
	snprintf(name, sizeof name, "%s", btrt_vk_device_name(vk));
	for (char *c = name; *c; c++)
		*c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
	cfg.device = name;
	CU_ASSERT_EQUAL(btrt_vk_create(&v2, &cfg, &err), 0);
	if (v2)
		CU_ASSERT_STRING_EQUAL(btrt_vk_device_name(v2), btrt_vk_device_name(vk));
	btrt_vk_destroy(v2);
	CU_ASSERT_TRUE(btrt_vk_list_devices(stderr) >= 1);
}

int suite_vulkan_register(void)
{
	struct btrt_error err;
	test_two_cores(cores);
	toy_default_params(&params);
	params.n = 1000; /* not a multiple of the workgroup size */
	push[0] = (uint32_t)params.n;
	push[1] = TOY_OFFSET;
	memcpy(stages, toy_stages_cpu, sizeof stages);
	for (uint32_t s = 0; s < TOY_N_STAGES; s++) {
		disp[s] = (struct btrt_vk_dispatch){ s, { (uint32_t)BTRT_CEIL_DIV(params.n, 64), 1, 1 }, 2, push };
		stages[s].vk = &disp[s];
		stages[s].n_vk = 1;
	}
	struct btrt_vk_config cfg = vk_config();
	if (btrt_vk_create(&vk, &cfg, &err)) {
		if (err.kind == BTRT_E_NODEV)
			return btc_test_skip(BTC_TEST_HW_VULKAN, "runtime vulkan",
					     "no Vulkan device: %s", err.msg);
		fprintf(stderr, "vulkan: %s\n", err.msg);
		return -1;
	}
	fprintf(stderr, "vulkan: device %s\n", btrt_vk_device_name(vk));
	CU_pSuite s = CU_add_suite("vulkan", NULL, cleanup);
	if (!s)
		return -1;
	if (!CU_add_test(s, "device selection", test_device_selection) ||
	    !CU_add_test(s, "memory kinds and descriptor sets", test_memory_kind) ||
	    !CU_add_test(s, "memory types by kind", test_memory_type) ||
	    !CU_add_test(s, "a GPU chunk's private buffers device-local", test_private_buffers) ||
	    !CU_add_test(s, "GPU-only chunk", test_gpu_only) ||
	    !CU_add_test(s, "cpu -> vulkan -> cpu", test_three_chunks) ||
	    !CU_add_test(s, "five chunks alternating", test_five_chunks) ||
	    !CU_add_test(s, "non-coherent flush/invalidate path", test_noncoherent_path) ||
	    !CU_add_test(s, "cpu kernel error between vulkan chunks", test_kernel_error) ||
	    !CU_add_test(s, "farms with vulkan workers", test_farm) ||
	    !CU_add_test(s, "streams on one device, a queue each", test_streams_one_device) ||
	    !CU_add_test(s, "streams on one device, one queue", test_streams_one_queue) ||
	    !CU_add_test(s, "streams on one queue, spinning fence waits", test_streams_spin_wait))
		return -1;
	return 0;
}
#else
int suite_vulkan_register(void)
{
	return btc_test_skip(BTC_TEST_HW_VULKAN, "runtime vulkan", "built without Vulkan");
}
#endif
