/* CPU+CUDA toy pipelines on the GPU machine; skips (77) without a GPU, and
 * fails then under BTC_REQUIRE_CUDA=1 (btc_test_skip). */
#include "suites.h"
#include "testutil.h"
#include "toy.h"

#include <btc_config.h>
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#if BTC_HAVE_CUDA
#include <btrt_cuda.h>

int toy_scale_cuda(void *t, void *stream);
int toy_offset_cuda(void *t, void *stream);
int toy_square_cuda(void *t, void *stream);
int toy_mix_cuda(void *t, void *stream);
int toy_seal_cuda(void *t, void *stream);

static struct btrt_cuda *cu;
static struct btrt_stage stages[TOY_N_STAGES];
static struct toy_params params;
static int cores[2];

static int cleanup(void)
{
	btrt_cuda_destroy(cu);
	cu = NULL;
	return 0;
}

static void run_ok(const struct btrt_chunk *ch, uint32_t n, uint32_t pool, uint64_t items)
{
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX };
	struct btrt_error err;
	int rc = toy_run(&params, stages, ch, n, pool, items, BTRT_BACKEND_CUDA, NULL, cu, &io, NULL, &err);
	if (rc)
		fprintf(stderr, "cuda pipeline: %s\n", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(io.checked, items);
	CU_ASSERT_EQUAL(io.order_errors, 0);
}

static void test_gpu_only(void)
{
	struct btrt_chunk ch = { "gpu", BTRT_PU_CUDA, &cores[0], 1, 0, 5, NULL, NULL, 0 };
	run_ok(&ch, 1, 2, 50);
}

static void test_three_chunks(void)
{
	struct btrt_chunk ch[3] = {
		{ "big", BTRT_PU_CPU, &cores[0], 1, 0, 1, NULL, NULL, 0 },
		{ "gpu", BTRT_PU_CUDA, &cores[1], 1, 1, 3, NULL, NULL, 0 },
		{ "little", BTRT_PU_CPU, &cores[1], 1, 4, 1, NULL, NULL, 0 },
	};
	run_ok(ch, 3, 3, 200);
}

static void test_five_chunks(void)
{
	struct btrt_chunk ch[5] = {
		{ "c0", BTRT_PU_CPU, &cores[0], 1, 0, 1, NULL, NULL, 0 },
		{ "g1", BTRT_PU_CUDA, &cores[1], 1, 1, 1, NULL, NULL, 0 },
		{ "c2", BTRT_PU_CPU, &cores[0], 1, 2, 1, NULL, NULL, 0 },
		{ "g3", BTRT_PU_CUDA, &cores[1], 1, 3, 1, NULL, NULL, 0 },
		{ "c4", BTRT_PU_CPU, cores, 2, 4, 1, NULL, NULL, 0 },
	};
	run_ok(ch, 5, 4, 200);
}

static void test_cuda_kernel_error(void)
{
	struct toy_params p = params;
	p.fail_seq = 13;
	p.fail_code = 7;
	struct btrt_chunk ch[3] = {
		{ "big", BTRT_PU_CPU, &cores[0], 1, 0, 1, NULL, NULL, 0 },
		{ "gpu", BTRT_PU_CUDA, &cores[1], 1, 1, 3, NULL, NULL, 0 },
		{ "little", BTRT_PU_CPU, &cores[1], 1, 4, 1, NULL, NULL, 0 },
	};
	struct toy_io_state io = { .load_fail_seq = UINT64_MAX };
	struct btrt_error err;
	int rc = toy_run(&p, stages, ch, 3, 3, 100, BTRT_BACKEND_CUDA, NULL, cu, &io, NULL, &err);
	fprintf(stderr, "  (error: %s) ", err.msg);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_KERNEL);
	CU_ASSERT_EQUAL(err.code, 7);
	CU_ASSERT_EQUAL(err.chunk, 1);
	CU_ASSERT_EQUAL(err.stage, 2);
	CU_ASSERT_EQUAL(err.seq, 13);
}

/* Farms with a CUDA worker: the whole app on {cpu, cuda} and {cuda, cpu}
 * between CPU chunks; every task checked, in order. */
static void test_farm(void)
{
	struct btrt_chunk whole[2] = {
		{ "cpu", BTRT_PU_CPU, &cores[0], 1, 0, 5, NULL, NULL, 1 },
		{ "gpu", BTRT_PU_CUDA, &cores[1], 1, 0, 5, NULL, NULL, 1 },
	};
	run_ok(whole, 2, 6, 300);
	struct btrt_chunk mid[4] = {
		{ "first", BTRT_PU_CPU, &cores[0], 1, 0, 1, NULL, NULL, 0 },
		{ "gpu", BTRT_PU_CUDA, &cores[1], 1, 1, 3, NULL, NULL, 2 },
		{ "c", BTRT_PU_CPU, &cores[0], 1, 1, 3, NULL, NULL, 2 },
		{ "last", BTRT_PU_CPU, &cores[1], 1, 4, 1, NULL, NULL, 0 },
	};
	run_ok(mid, 4, 6, 300);
}

static void test_memory_kinds(void)
{
	size_t counts[TOY_N_BUFFERS];
	toy_counts(&params, counts);
	struct btrt_pool_config pc = {
		.task_size = sizeof(struct toy_task), .n_tasks = 2, .buffers = toy_buffers,
		.counts = counts, .n_buffers = TOY_N_BUFFERS, .backend = BTRT_BACKEND_CUDA, .cuda = cu,
	};
	struct btrt_pool *pool;
	struct btrt_error err;
	CU_ASSERT_EQUAL_FATAL(btrt_pool_create(&pool, &pc, &err), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(btrt_pool_buffer_memory(pool, 0), "cuda-"));
	/* "in" is stage-read-only and not io-loaded here (no io_loaded): on a
	 * discrete GPU (concurrent managed access: the H100) under the default
	 * rule, managed and read-mostly (issue 25, btrt_cuda_place) */
	struct btrt_cuda_config ec = { .device = -1, .mem = BTRT_CUDA_MEM_AUTO };
	btrt_env_cuda_config(&test_btrt_env, &ec);
	if (!btrt_cuda_integrated(cu) && ec.mem == BTRT_CUDA_MEM_AUTO && !ec.no_read_mostly)
		CU_ASSERT_STRING_EQUAL(btrt_pool_buffer_memory(pool, 0), "cuda-managed-read-mostly");
	btrt_pool_print(pool, stderr);
	btrt_pool_destroy(pool);
}

int suite_cuda_register(void)
{
	struct btrt_error err;
	test_two_cores(cores);
	toy_default_params(&params);
	params.n = 100000;
	memcpy(stages, toy_stages_cpu, sizeof stages);
	stages[0].cuda = toy_scale_cuda;
	stages[1].cuda = toy_offset_cuda;
	stages[2].cuda = toy_square_cuda;
	stages[3].cuda = toy_mix_cuda;
	stages[4].cuda = toy_seal_cuda;
	struct btrt_cuda_config cfg = { .device = -1, .mem = BTRT_CUDA_MEM_AUTO };
	btrt_env_cuda_config(&test_btrt_env, &cfg);
	if (btrt_cuda_create(&cu, &cfg, &err)) {
		if (err.kind == BTRT_E_NODEV)
			return btc_test_skip(BTC_TEST_HW_CUDA, "runtime cuda",
					     "no CUDA device: %s", err.msg);
		fprintf(stderr, "cuda: %s\n", err.msg);
		return -1;
	}
	fprintf(stderr, "cuda: device %s (%s)\n", btrt_cuda_device_name(cu),
		btrt_cuda_integrated(cu) ? "integrated" : "discrete");
	CU_pSuite s = CU_add_suite("cuda", NULL, cleanup);
	if (!s)
		return -1;
	if (!CU_add_test(s, "memory kinds", test_memory_kinds) ||
	    !CU_add_test(s, "GPU-only chunk", test_gpu_only) ||
	    !CU_add_test(s, "cpu -> cuda -> cpu", test_three_chunks) ||
	    !CU_add_test(s, "five chunks alternating", test_five_chunks) ||
	    !CU_add_test(s, "cuda kernel error mid-stream", test_cuda_kernel_error) ||
	    !CU_add_test(s, "farms with a cuda worker", test_farm))
		return -1;
	return 0;
}
#else
int suite_cuda_register(void)
{
	return btc_test_skip(BTC_TEST_HW_CUDA, "runtime cuda", "built without CUDA");
}
#endif
