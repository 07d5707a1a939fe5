/* The in-chunk rows of a profiling table (`@in_chunk:STAGE`, issue 25;
 * docs/app-format.md) and the chunk model they give (docs/scheduler.md,
 * "The chunk model"): read, written back and read again; bad rows with
 * file:line:col; btc_plan_problem's t^in and boundary term S, and the
 * chunk times btc_model_chunk_ms predicts from them, with and without
 * the rows. */
#include <math.h>
#include <stdio.h>

#include "front/table.h"
#include "sched/model.h"
#include "sched/plan.h"
#include "suites.h"
#include "table_testlib.h"

#define APP_PATH FRONTEND_DATA_DIR "/demo.yaml"
#define T "t.csv:"

/* Three stages, a and c with Vulkan kernels, b too; d CPU only. */
static const char app_text[] =
	"app: demo\n"
	"buffers:\n  - {name: x, type: f32, count: 16}\n"
	"stages:\n"
	"  - {name: a, cpu: a_cpu, vulkan: [{shader: noop.comp, groups: [1]}]}\n"
	"  - {name: b, cpu: b_cpu, vulkan: [{shader: noop.comp, groups: [1]}]}\n"
	"  - {name: c, cpu: c_cpu, vulkan: [{shader: noop.comp, groups: [1]}]}\n"
	"  - {name: d, cpu: d_cpu}\n";
static const char dev_text[] =
	"device: testdev\nos: linux\narch: x86_64\npus:\n"
	"  - {name: big, kind: cpu, cores: [0, 1]}\n"
	"  - {name: gpu, kind: vulkan}\n";

#define HDR "stage,pu,mode,mean_ms,stddev_ms,samples\n"
/* one-stage rows: gpu a 1.25, b 2.25, c 3.25 with F 0.25: t = 1, 2, 3 */
#define ROWS                                                                                     \
	"a,big,isolated,4,0,30\nb,big,isolated,4,0,30\nc,big,isolated,4,0,30\n"                  \
	"d,big,isolated,4,0,30\na,gpu,isolated,1.25,0,30\nb,gpu,isolated,2.25,0,30\n"           \
	"c,gpu,isolated,3.25,0,30\n@fixed,gpu,isolated,0.25,0,9\n"
/* b inside a chunk 0.5 (S 1.5); c 3.5, above its t: no S */
#define IN_CHUNK "@in_chunk:b,gpu,isolated,0.5,0.01,33\n@in_chunk:c,gpu,isolated,3.5,0.02,33\n"

static struct btc_app *app;
static struct btc_device *dev;

static int setup(void)
{
	return table_fixture_load(APP_PATH, app_text, dev_text, &app, &dev);
}

static int teardown(void)
{
	btc_app_free(app);
	btc_device_free(dev);
	return 0;
}

/* Read, written back (btc_table_write), read again: the same entries. */
static void test_round_trip(void)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_table *t = btc_table_load("t.csv", HDR ROWS IN_CHUNK, app, dev,
					     BTC_MODE_ISOLATED, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	for (int pass = 0; pass < 2; pass++) {
		const struct btc_table_entry *b = btc_table_in_chunk_at(t, BTC_MODE_ISOLATED, 1, 1);
		const struct btc_table_entry *c = btc_table_in_chunk_at(t, BTC_MODE_ISOLATED, 2, 1);
		CU_ASSERT(b->present && c->present);
		CU_ASSERT_DOUBLE_EQUAL(b->mean_ms, 0.5, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(b->stddev_ms, 0.01, 1e-12);
		CU_ASSERT_EQUAL(b->samples, 33);
		CU_ASSERT_DOUBLE_EQUAL(c->mean_ms, 3.5, 1e-12);
		CU_ASSERT_FALSE(btc_table_in_chunk_at(t, BTC_MODE_ISOLATED, 0, 1)->present);
		CU_ASSERT_FALSE(btc_table_in_chunk_at(t, BTC_MODE_PLACED, 1, 1)->present);
		t = table_round_trip(t, app, dev, BTC_MODE_ISOLATED, &d, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	}
	btc_table_free(t);
}

static const struct bad_case bad[] = {
	{"in-chunk unknown stage", HDR ROWS "@in_chunk:zz,gpu,isolated,1,0,1\n",
	 T "10:1: error: @in_chunk:zz: unknown stage 'zz' (app 'demo')"},
	{"in-chunk on a CPU PU", HDR ROWS "@in_chunk:b,big,isolated,1,0,1\n",
	 T "10:13: error: @in_chunk:b: in-chunk rows name a GPU PU with a kernel for the stage, "
	   "and 'big' is cpu"},
	{"in-chunk without a kernel", HDR ROWS "@in_chunk:d,gpu,isolated,1,0,1\n",
	 T "10:13: error: @in_chunk:d: in-chunk rows name a GPU PU with a kernel for the stage, "
	   "and 'gpu' is vulkan without one"},
	{"in-chunk unknown PU", HDR ROWS "@in_chunk:b,tpu,isolated,1,0,1\n",
	 T "10:13: error: unknown PU 'tpu' (device 'testdev')"},
	{"in-chunk duplicate", HDR ROWS IN_CHUNK "@in_chunk:b,gpu,isolated,1,0,1\n",
	 T "12:1: error: duplicate row for @in_chunk:b on gpu (isolated)"},
	{"in-chunk negative", HDR ROWS "@in_chunk:b,gpu,isolated,-1,0,1\n",
	 T "10:26: error: @in_chunk:b on gpu: negative time -1 ms"},
};

static void test_bad_rows(void)
{
	check_bad_tables(bad, sizeof(bad) / sizeof(bad[0]), app, dev);
}

/* The problem of the table's isolated mode, and its chunk times. */
static void test_model(void)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	for (int rows = 0; rows < 2; rows++) {
		struct btc_table *t = btc_table_load("t.csv", rows ? HDR ROWS IN_CHUNK : HDR ROWS,
						     app, dev, BTC_MODE_ISOLATED, &d);
		CU_ASSERT_PTR_NOT_NULL_FATAL(t);
		struct btc_plan_buf buf;
		btc_plan_buf_init(&buf, app, dev);
		struct btc_sched_problem p;
		CU_ASSERT_FATAL(btc_plan_problem(app, dev, t, BTC_MODE_ISOLATED, true, &p, &buf, &d));
		const double F = 0.25;
		if (!rows) { /* today's model exactly: F + sum t */
			CU_ASSERT_PTR_NULL(p.start_ms);
			CU_ASSERT_DOUBLE_EQUAL(btc_model_chunk_ms(&p, 1, 0, 2), F + 1 + 2 + 3, 1e-12);
			CU_ASSERT_DOUBLE_EQUAL(btc_model_chunk_ms(&p, 1, 1, 2), F + 2 + 3, 1e-12);
		} else {
			CU_ASSERT_PTR_NOT_NULL_FATAL(p.start_ms);
			/* b: t^in 0.5, S 1.5; c: its row is above t, so t and no S */
			CU_ASSERT_DOUBLE_EQUAL(p.time_ms[1 * 2 + 1], 0.5, 1e-12);
			CU_ASSERT_DOUBLE_EQUAL(p.start_ms[1 * 2 + 1], 1.5, 1e-12);
			CU_ASSERT_DOUBLE_EQUAL(p.time_ms[2 * 2 + 1], 3, 1e-12);
			CU_ASSERT_DOUBLE_EQUAL(p.start_ms[2 * 2 + 1], 0, 0);
			CU_ASSERT_DOUBLE_EQUAL(p.start_ms[1 * 2 + 0], 0, 0); /* CPU */
			/* a..c: b inside the chunk; b..c: b starts it, at its t */
			CU_ASSERT_DOUBLE_EQUAL(btc_model_chunk_ms(&p, 1, 0, 2), F + 1 + 0.5 + 3, 1e-12);
			CU_ASSERT_DOUBLE_EQUAL(btc_model_chunk_ms(&p, 1, 1, 2), F + 2 + 3, 1e-12);
			CU_ASSERT_DOUBLE_EQUAL(btc_model_chunk_ms(&p, 1, 0, 1), F + 1 + 0.5, 1e-12);
		}
		/* a one-stage chunk predicts its row, with or without */
		for (int i = 0; i < 3; i++)
			CU_ASSERT_DOUBLE_EQUAL(btc_model_chunk_ms(&p, 1, i, i),
					       btc_table_at(t, BTC_MODE_ISOLATED, i, 1)->mean_ms,
					       1e-12);
		btc_plan_buf_free(&buf);
		btc_table_free(t);
	}
}

int register_table_chunk_suite(void)
{
	CU_pSuite s = CU_add_suite("table-chunk", setup, teardown);
	return !s || !CU_add_test(s, "in-chunk rows: read, written, read again", test_round_trip) ||
	       !CU_add_test(s, "bad in-chunk rows", test_bad_rows) ||
	       !CU_add_test(s, "t^in and the boundary term S in the chunk model", test_model);
}
