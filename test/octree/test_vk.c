/* test_vk.c: the Vulkan shaders through btrt (btrt_vk + btrt_pool +
 * btrt_pipeline_run), on llvmpipe in CI:
 *  - suite "vulkan": each stage alone, inputs from the reference, outputs
 *    compared with the reference (all six real frames);
 *  - suite "schedules": the whole app as real pipelines under several
 *    CPU/Vulkan schedules; octree_io checks every octree against the
 *    reference byte for byte, and the digest lines of all schedules must
 *    be identical.
 * Both exit 77 (skip) only when there is no Vulkan device at all. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <btrt_pipeline.h>
#include <btrt_pool.h>
#include <btrt_vk.h>

#include "btc_config.h"
#include "common.h"
#include "io.h"
#include "octree_stages.h"
#include "suites.h"

static struct btrt_vk *vk;
static struct btrt_pool *pool;
static struct octree_params params = OCTREE_DEFAULT_PARAMS;
static struct octree_stage_table table;
static struct frames frames;

static void vk_close(void)
{
	btrt_vk_destroy(vk);
	vk = NULL;
}

/* Creates the Vulkan context; returns 1 when there is no device. */
static int vk_open(void)
{
	struct btrt_error err;
	struct btrt_vk_config cfg = {
		.device = NULL, .validation = -1, .n_buffers = OCTREE_N_BUFFERS,
		.push_bytes = 0, .shaders = octree_vk_shaders, .n_shaders = OCTREE_N_SHADERS,
	};
	if (vk)
		return 0;
	if (!octree_vk_shaders)
		return 1;
	btrt_error_clear(&err);
	if (btrt_vk_create(&vk, &cfg, &err)) {
		fprintf(stderr, "octree vulkan: %s\n", err.msg);
		return err.kind == BTRT_E_NODEV ? 1 : -1;
	}
	fprintf(stderr, "octree vulkan: device %s\n", btrt_vk_device_name(vk));
	atexit(vk_close);
	return 0;
}

static int pool_open(uint32_t n_tasks)
{
	struct btrt_error err;
	size_t counts[OCTREE_N_BUFFERS];
	for (int b = 0; b < OCTREE_N_BUFFERS; b++)
		counts[b] = octree_buffer_count(&params, b);
	struct btrt_pool_config pc = {
		.task_size = sizeof(struct octree_task), .n_tasks = n_tasks,
		.buffers = octree_buffers, .counts = counts, .n_buffers = OCTREE_N_BUFFERS,
		.backend = BTRT_BACKEND_VULKAN, .vk = vk,
	};
	btrt_error_clear(&err);
	if (btrt_pool_create(&pool, &pc, &err)) {
		fprintf(stderr, "octree vulkan pool: %s\n", err.msg);
		return -1;
	}
	for (uint32_t i = 0; i < n_tasks; i++) {
		struct octree_task *t = btrt_pool_task(pool, i);
		t->params = &params;
		octree_task_bind(t);
	}
	return 0;
}

static int suite_clean(void)
{
	btrt_pool_destroy(pool);
	pool = NULL;
	frames_free(&frames);
	return 0;
}

/* ---- one stage at a time ------------------------------------------- */

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

static struct stage_io cur;

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
		fprintf(stderr, "\n  frame %llu stage %s: %s\n", (unsigned long long)seq,
			octree_stage_names[cur.stage], err);
		cur.failures++;
		return -1;
	}
	return 0;
}

static void sio_close(void *state, FILE *out)
{
	(void)state, (void)out;
}

static const struct btrt_app_io stage_io = { sio_open, sio_load, sio_check, sio_close };

static int run_single(int s, enum btrt_pu_kind pu)
{
	struct btrt_chunk chunk = {
		.name = pu == BTRT_PU_VULKAN ? "gpu" : "cpu", .pu = pu,
		.first_stage = 0, .n_stages = 1,
	};
	struct btrt_pipeline_config pc = {
		.app = "octree", .stages = &table.stages[s], .n_stages = 1,
		.chunks = &chunk, .n_chunks = 1, .pool = pool, .io = &stage_io,
		.io_state = NULL, .n_items = 0, .check = 1, .vk = vk,
	};
	struct btrt_error err;
	btrt_error_clear(&err);
	cur.stage = s;
	cur.f = &frames;
	cur.failures = 0;
	if (btrt_pipeline_run(&pc, NULL, &err)) {
		fprintf(stderr, "\n  stage %s: %s\n", octree_stage_names[s], err.msg);
		return -1;
	}
	return cur.failures ? -1 : 0;
}

static int vk_suite_init(void)
{
	if (pool_open(1) || frames_load(&frames, 0))
		return -1;
	octree_stage_table_init(&table, &params, 0);
	return 0;
}

#define STAGE_TEST(s, fn)                                        \
	static void fn(void)                                     \
	{                                                        \
		CU_ASSERT_EQUAL(run_single(s, BTRT_PU_VULKAN), 0); \
	}
STAGE_TEST(0, test_vk_morton)
STAGE_TEST(1, test_vk_sort)
STAGE_TEST(2, test_vk_unique)
STAGE_TEST(3, test_vk_radix_tree)
STAGE_TEST(4, test_vk_edge_count)
STAGE_TEST(5, test_vk_prefix_sum)
STAGE_TEST(6, test_vk_octree)

/* the CPU kernels through the same pipeline on Vulkan-mapped buffers */
static void test_cpu_on_vk_buffers(void)
{
	for (int s = 0; s < OCTREE_N_STAGES; s++)
		CU_ASSERT_EQUAL(run_single(s, BTRT_PU_CPU), 0);
}

int octree_vk_register(void)
{
	int rc = vk_open();
	if (rc)
		return rc < 0 ? -1 : (octree_skip = 1, 0);
	CU_pSuite s = CU_add_suite("vulkan", vk_suite_init, suite_clean);
	if (!s || !CU_add_test(s, "morton", test_vk_morton) ||
	    !CU_add_test(s, "sort (8 x 4-bit GPU radix passes)", test_vk_sort) ||
	    !CU_add_test(s, "unique", test_vk_unique) ||
	    !CU_add_test(s, "radix_tree", test_vk_radix_tree) ||
	    !CU_add_test(s, "edge_count", test_vk_edge_count) ||
	    !CU_add_test(s, "prefix_sum", test_vk_prefix_sum) ||
	    !CU_add_test(s, "octree", test_vk_octree) ||
	    !CU_add_test(s, "CPU stages on Vulkan buffers", test_cpu_on_vk_buffers))
		return -1;
	return 0;
}

/* ---- whole pipelines under several schedules ------------------------- */

#define N_ITEMS 8  /* frames streamed per schedule: all six, then two again */

struct sched {
	const char *name;
	int n_chunks;
	enum btrt_pu_kind pu[4];
	uint32_t first[4], count[4];
};

static const struct sched scheds[] = {
	{ "cpu", 1, { BTRT_PU_CPU }, { 0 }, { 7 } },
	{ "vulkan", 1, { BTRT_PU_VULKAN }, { 0 }, { 7 } },
	{ "cpu 0-2 | vulkan 3-6", 2, { BTRT_PU_CPU, BTRT_PU_VULKAN }, { 0, 3 }, { 3, 4 } },
	{ "vulkan 0-1 | cpu 2-4 | vulkan 5-6", 3,
	  { BTRT_PU_VULKAN, BTRT_PU_CPU, BTRT_PU_VULKAN }, { 0, 2, 5 }, { 2, 3, 2 } },
	{ "cpu 0 | vulkan 1-2 | cpu 3-5 | vulkan 6", 4,
	  { BTRT_PU_CPU, BTRT_PU_VULKAN, BTRT_PU_CPU, BTRT_PU_VULKAN },
	  { 0, 1, 3, 6 }, { 1, 2, 3, 1 } },
};
#define N_SCHEDS (sizeof scheds / sizeof scheds[0])

static char digests[N_SCHEDS][8192];

static int sched_init(void)
{
	if (pool_open(3))
		return -1;
	octree_stage_table_init(&table, &params, 0);
	return 0;
}

static void run_sched(size_t k)
{
	const struct sched *sc = &scheds[k];
	struct btrt_chunk chunks[4];
	char err_msg[512];
	struct btrt_error err;
	void *st = octree_io.open(BTC_DATA_DIR "/pointclouds", &params, err_msg, sizeof err_msg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	memset(chunks, 0, sizeof chunks);
	for (int c = 0; c < sc->n_chunks; c++) {
		chunks[c].name = sc->pu[c] == BTRT_PU_VULKAN ? "gpu" : "cpu";
		chunks[c].pu = sc->pu[c];
		chunks[c].first_stage = sc->first[c];
		chunks[c].n_stages = sc->count[c];
	}
	FILE *out = fmemopen(digests[k], sizeof digests[k] - 1, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	struct btrt_pipeline_config pc = {
		.app = "octree", .stages = table.stages, .n_stages = OCTREE_N_STAGES,
		.chunks = chunks, .n_chunks = (uint32_t)sc->n_chunks, .pool = pool,
		.io = &octree_io, .io_state = st, .n_items = N_ITEMS, .check = 1,
		.check_out = out, .vk = vk,
	};
	btrt_error_clear(&err);
	int rc = btrt_pipeline_run(&pc, NULL, &err);
	fclose(out);
	if (rc)
		fprintf(stderr, "\n  schedule '%s': %s\n", sc->name, err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	octree_io.close(st, NULL);
	printf("\n  schedule '%s':\n%s", sc->name, digests[k]);
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
	int rc = vk_open();
	if (rc)
		return rc < 0 ? -1 : (octree_skip = 1, 0);
	CU_pSuite s = CU_add_suite("schedules", sched_init, suite_clean);
	if (!s || !CU_add_test(s, scheds[0].name, test_sched0) ||
	    !CU_add_test(s, scheds[1].name, test_sched1) ||
	    !CU_add_test(s, scheds[2].name, test_sched2) ||
	    !CU_add_test(s, scheds[3].name, test_sched3) ||
	    !CU_add_test(s, scheds[4].name, test_sched4))
		return -1;
	return 0;
}
