/* btrt_probe.c on the toy app: which buffers io.load refills, and how many
 * bytes of each a task touches when the buffers are larger than the item. */
#include <CUnit/CUnit.h>
#include <stdint.h>
#include <string.h>

#include "../../runtime/src/btrt_internal.h"
#include "suites.h"
#include "toy.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* A pool config whose buffers hold 4x the elements the item uses. */
static void config(const struct toy_params *p, size_t counts[TOY_N_BUFFERS],
		   struct btrt_pool_config *pc)
{
	toy_counts(p, counts);
	for (int b = 0; b < TOY_N_BUFFERS; b++)
		if (b != TOY_BUF_META)
			counts[b] *= 4;
	*pc = (struct btrt_pool_config){ .task_size = sizeof(struct toy_task), .n_tasks = 1,
					 .buffers = toy_buffers, .counts = counts,
					 .n_buffers = TOY_N_BUFFERS,
					 .backend = BTRT_BACKEND_HOST };
}

/* A bound host pool of cfg (the probes use TaskObject 0). */
static struct btrt_pool *host_pool(const struct btrt_pool_config *pc, const struct toy_params *p)
{
	struct btrt_pool *pool = NULL;
	struct btrt_error err;
	if (btrt_pool_create(&pool, pc, &err))
		return NULL;
	toy_task_bind(btrt_pool_task(pool, 0), p);
	return pool;
}

static void test_io_loads(void)
{
	struct toy_params p;
	toy_default_params(&p);
	size_t counts[TOY_N_BUFFERS];
	struct btrt_pool_config pc;
	config(&p, counts, &pc);
	struct toy_io_state st = { .p = &p, .load_fail_seq = UINT64_MAX };
	unsigned char loaded[TOY_N_BUFFERS];
	struct btrt_error err;
	btrt_error_clear(&err);
	struct btrt_pool *pool = host_pool(&pc, &p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pool);
	CU_ASSERT_EQUAL_FATAL(btrt_probe_io_loads(pool, &toy_io, &st, loaded, &err), 0);
	/* toy_load writes in (the item) and clears a, b, out and meta */
	for (int b = 0; b < TOY_N_BUFFERS; b++)
		CU_ASSERT_EQUAL(loaded[b], 1);
	/* a failing load is an error naming the item */
	st.load_fail_seq = 1;
	CU_ASSERT_EQUAL(btrt_probe_io_loads(pool, &toy_io, &st, loaded, &err), -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_IO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "item 1"));
	btrt_pool_destroy(pool);
}

static void test_touched(void)
{
	struct toy_params p;
	toy_default_params(&p); /* n = 4096 elements: 16 KiB of each 64 KiB buffer */
	size_t counts[TOY_N_BUFFERS];
	struct btrt_pool_config pc;
	config(&p, counts, &pc);
	struct toy_io_state st = { .p = &p, .load_fail_seq = UINT64_MAX };
	uint64_t touched[TOY_N_BUFFERS];
	struct btrt_error err;
	btrt_error_clear(&err);
	struct btrt_pool *pool = host_pool(&pc, &p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pool);
	CU_ASSERT_EQUAL_FATAL(btrt_probe_touched(pool, toy_stages_cpu, TOY_N_STAGES, &toy_io, &st,
						 touched, &err), 0);
	for (int b = 0; b < TOY_N_BUFFERS; b++)
		if (b != TOY_BUF_META)
			CU_ASSERT_EQUAL(touched[b], (uint64_t)p.n * 4);
	CU_ASSERT_EQUAL(touched[TOY_BUF_META], 4 * 4); /* one partial page: its size */
	/* a stage without a CPU kernel: cannot tell, the sizes stand */
	struct btrt_stage st2[TOY_N_STAGES];
	memcpy(st2, toy_stages_cpu, sizeof st2);
	st2[3].cpu = NULL;
	CU_ASSERT_EQUAL(btrt_probe_touched(pool, st2, TOY_N_STAGES, &toy_io, &st, touched, &err), 1);
	CU_ASSERT_EQUAL(touched[TOY_BUF_IN], (uint64_t)counts[TOY_BUF_IN] * 4);
	btrt_pool_destroy(pool);
}

static void bind(void *task, const void *ctx)
{
	toy_task_bind(task, ctx);
}

/* btrt_probe_pool_create: one bound TaskObject in host memory whatever
 * the run's pool config says, the io probe done; nothing on error. */
static void test_probe_pool(void)
{
	struct toy_params p;
	toy_default_params(&p);
	size_t counts[TOY_N_BUFFERS];
	struct btrt_pool_config pc;
	config(&p, counts, &pc);
	pc.n_tasks = 5;
	pc.backend = BTRT_BACKEND_VULKAN; /* the run's: not the probe pool's */
	struct toy_io_state st = { .p = &p, .load_fail_seq = UINT64_MAX };
	unsigned char loaded[TOY_N_BUFFERS];
	memset(loaded, 0, sizeof loaded);
	struct btrt_error err;
	btrt_error_clear(&err);
	struct btrt_pool *pool = NULL;
	CU_ASSERT_EQUAL_FATAL(btrt_probe_pool_create(&pool, &pc, bind, &p, &toy_io, &st, loaded,
						     &err), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pool);
	CU_ASSERT_EQUAL(btrt_pool_size(pool), 1);
	CU_ASSERT_EQUAL(btrt_pool_backend(pool), BTRT_BACKEND_HOST);
	struct toy_task *t = btrt_pool_task(pool, 0);
	CU_ASSERT_PTR_EQUAL(t->params, &p);
	CU_ASSERT_PTR_NOT_NULL(t->in);
	for (int b = 0; b < TOY_N_BUFFERS; b++)
		CU_ASSERT_EQUAL(loaded[b], 1);
	btrt_pool_destroy(pool);

	st.load_fail_seq = 0;
	pool = (struct btrt_pool *)&st; /* overwritten: NULL on error */
	CU_ASSERT_EQUAL(btrt_probe_pool_create(&pool, &pc, bind, &p, &toy_io, &st, loaded, &err),
			-1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_IO);
	CU_ASSERT_PTR_NULL(pool);
}

/* btrt_probe_io_ms: T_io over reps items after a warm-up, every item
 * loaded, run and checked in order; failures name the item or stage. */
static void test_io_ms(void)
{
	struct toy_params p;
	toy_default_params(&p);
	size_t counts[TOY_N_BUFFERS];
	struct btrt_pool_config pc;
	config(&p, counts, &pc);
	struct toy_io_state st = { .p = &p, .load_fail_seq = UINT64_MAX };
	struct btrt_error err;
	btrt_error_clear(&err);
	struct btrt_pool *pool = host_pool(&pc, &p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pool);
	double mean[BTRT_IO_N] = { -1, -1, -1 }, sd[BTRT_IO_N] = { -1, -1, -1 };
	CU_ASSERT_EQUAL_FATAL(btrt_probe_io_ms(pool, toy_stages_cpu, TOY_N_STAGES, &toy_io, &st, 5,
					       mean, sd, &err), 0);
	for (int j = 0; j < BTRT_IO_N; j++)
		CU_ASSERT(mean[j] >= 0 && sd[j] >= 0);
	/* load and check timed apart; their sum is the combined figure */
	CU_ASSERT_DOUBLE_EQUAL(mean[BTRT_IO_SUM], mean[BTRT_IO_LOAD] + mean[BTRT_IO_CHECK],
			       1e-9 * (1 + mean[BTRT_IO_SUM]));
	CU_ASSERT_EQUAL(st.loaded, 6);
	CU_ASSERT_EQUAL(st.checked, 6);
	CU_ASSERT_EQUAL(st.order_errors, 0);

	struct toy_io_state bad = { .p = &p, .load_fail_seq = 3 };
	CU_ASSERT_EQUAL(btrt_probe_io_ms(pool, toy_stages_cpu, TOY_N_STAGES, &toy_io, &bad, 5,
					 mean, sd, &err), -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_IO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "item 3"));

	struct btrt_stage st2[TOY_N_STAGES];
	memcpy(st2, toy_stages_cpu, sizeof st2);
	st2[2].cpu = NULL;
	struct toy_io_state again = { .p = &p, .load_fail_seq = UINT64_MAX };
	CU_ASSERT_EQUAL(btrt_probe_io_ms(pool, st2, TOY_N_STAGES, &toy_io, &again, 5, mean, sd,
					 &err), -1);
	CU_ASSERT_EQUAL(err.kind, BTRT_E_INVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "stage 2"));
	btrt_pool_destroy(pool);
}

/* The CUDA placement probe's results across processes
 * (btrt_probe_file.c): a size found after it was added, the first line of
 * a size winning; sizes never added, malformed lines, times not above 0,
 * a missing file and no path found nowhere. */
static void test_probe_file(void)
{
	char path[] = "/tmp/btrt-probe-file-XXXXXX";
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	double m = -1, p = -1;
	CU_ASSERT_EQUAL(btrt_probe_file_find(path, 4096, &m, &p), 0); /* empty */
	btrt_probe_file_add(path, 4096, 174.25, 23.5);
	btrt_probe_file_add(path, 14745600, 900.0, 1200.0);
	btrt_probe_file_add(path, 4096, 1.0, 2.0); /* a later line of the same size */
	FILE *f = fopen(path, "a");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("garbage\n8192 0 5\n16 1 2 3\n", f); /* malformed, a time of 0, 4 fields */
	fclose(f);
	CU_ASSERT_EQUAL(btrt_probe_file_find(path, 4096, &m, &p), 1);
	CU_ASSERT_DOUBLE_EQUAL(m, 174.25, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(p, 23.5, 1e-9);
	CU_ASSERT_EQUAL(btrt_probe_file_find(path, 14745600, &m, &p), 1);
	CU_ASSERT_DOUBLE_EQUAL(m, 900.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(p, 1200.0, 1e-9);
	m = p = -1;
	CU_ASSERT_EQUAL(btrt_probe_file_find(path, 8192, &m, &p), 0);
	CU_ASSERT_EQUAL(btrt_probe_file_find(path, 16, &m, &p), 0);
	CU_ASSERT_EQUAL(btrt_probe_file_find(path, 1, &m, &p), 0);
	CU_ASSERT_DOUBLE_EQUAL(m, -1, 0);
	CU_ASSERT_EQUAL(btrt_probe_file_find(NULL, 4096, &m, &p), 0);
	btrt_probe_file_add(NULL, 4096, 1.0, 2.0); /* nothing */
	unlink(path);
	CU_ASSERT_EQUAL(btrt_probe_file_find(path, 4096, &m, &p), 0); /* no file */
}

int suite_probe_register(void)
{
	CU_pSuite s = CU_add_suite("probe", NULL, NULL);
	if (!s || !CU_add_test(s, "io loads", test_io_loads) ||
	    !CU_add_test(s, "touched bytes", test_touched) ||
	    !CU_add_test(s, "probe pool", test_probe_pool) ||
	    !CU_add_test(s, "io time", test_io_ms) ||
	    !CU_add_test(s, "the placement probe's file", test_probe_file))
		return -1;
	return 0;
}
