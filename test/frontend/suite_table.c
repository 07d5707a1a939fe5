#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "front/table.h"
#include "sched/plan.h"
#include "table_testlib.h"
#include "testutil.h"

#define APP_PATH FRONTEND_DATA_DIR "/demo.yaml"
#define T "t.csv:"

static const char app_text[] =
	"app: demo\n"
	"buffers:\n  - {name: x, type: f32, count: 16}\n"
	"stages:\n"
	"  - {name: a, cpu: a_cpu, vulkan: [{shader: noop.comp, groups: [1]}]}\n"
	"  - {name: b, cpu: b_cpu}\n";
static const char dev_text[] =
	"device: testdev\nos: linux\narch: aarch64\npus:\n"
	"  - {name: little, kind: cpu, cores: [0, 1]}\n"
	"  - {name: big, kind: cpu, cores: [2]}\n"
	"  - {name: gpu, kind: vulkan}\n";

#define HDR "stage,pu,mode,mean_ms,stddev_ms,samples\n"
#define FULL_ISO "a,little,isolated,2,0.1,30\na,big,isolated,1,0.1,30\na,gpu,isolated,0.5,0.01,30\nb,little,isolated,4,0.2,30\nb,big,isolated,3,0.1,30\n"

static struct btc_app *app;
static struct btc_device *dev;

static int setup(void)
{
	return table_fixture_load(APP_PATH, app_text, dev_text, &app, &dev) ||
	       btc_test_need_data("profiles");
}

static int teardown(void)
{
	btc_app_free(app);
	btc_device_free(dev);
	return 0;
}

static void test_good(void)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_table *t = btc_table_load("t.csv", "# app: demo\n" HDR FULL_ISO
					     "b,gpu,isolated,9,0,1\n",
					     app, dev, BTC_MODE_INTERFERENCE, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_TRUE(t->has_mode[BTC_MODE_ISOLATED]);
	CU_ASSERT_FALSE(t->has_mode[BTC_MODE_INTERFERENCE]);
	CU_ASSERT_DOUBLE_EQUAL(btc_table_at(t, BTC_MODE_ISOLATED, 0, 2)->mean_ms, 0.5, 1e-12);
	CU_ASSERT_EQUAL(btc_table_at(t, BTC_MODE_ISOLATED, 1, 1)->samples, 30);

	/* A table profiled on the detected "host" serves the device file that
	 * describes that machine. */
	struct btc_table *th = btc_table_load("t.csv", "# app: demo\n# device: host\n" HDR FULL_ISO
					      "b,gpu,isolated,9,0,1\n",
					      app, dev, BTC_MODE_INTERFERENCE, &d);
	CU_ASSERT_PTR_NOT_NULL(th);
	btc_table_free(th);

	/* Writing and reading back gives the same table. */
	char *text = table_text(t, app, dev);
	struct btc_table *t2 = btc_table_load("t2.csv", text, app, dev, BTC_MODE_ISOLATED, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t2);
	for (int s = 0; s < 2; s++)
		for (int p = 0; p < 3; p++) {
			struct btc_table_entry *a = btc_table_at(t, BTC_MODE_ISOLATED, s, p);
			struct btc_table_entry *b = btc_table_at(t2, BTC_MODE_ISOLATED, s, p);
			CU_ASSERT_EQUAL(a->present, b->present);
			CU_ASSERT_DOUBLE_EQUAL(a->mean_ms, b->mean_ms, 1e-9);
		}
	free(text);
	btc_table_free(t2);
	btc_table_free(t);
}

/* The chunk model's rows: parsed per mode, written back, read again. */
static void test_model_terms(void)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_table *t = btc_table_load(
		"t.csv", "# io_loads: x\n# in_place: x\n# touched: x=4096\n" HDR FULL_ISO
		"b,gpu,isolated,9,0,1\n@fixed,gpu,isolated,0.25,0.01,30\n"
		"@in_per_mib,gpu,isolated,0.1,0,5\n@io,io,isolated,1.5,0.1,20\n"
		"a,big,placed,1.1,0.1,30\na,little,placed,2.2,0.1,30\na,gpu,placed,0.6,0,30\n"
		"b,big,placed,3.3,0.1,30\nb,little,placed,4.4,0.1,30\n",
		app, dev, BTC_MODE_ISOLATED, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	for (int pass = 0; pass < 2; pass++) {
		CU_ASSERT_TRUE(t->has_terms[BTC_MODE_ISOLATED]);
		CU_ASSERT_FALSE(t->has_terms[BTC_MODE_PLACED]);
		CU_ASSERT_TRUE(t->has_mode[BTC_MODE_PLACED]);
		CU_ASSERT_TRUE(t->io_loaded[0]);
		CU_ASSERT_TRUE(t->in_place[0]);
		for (int k = 1; k < t->n_buffers; k++)
			CU_ASSERT_FALSE(t->in_place[k]);
		CU_ASSERT_DOUBLE_EQUAL(t->touched[0], 4096, 1e-9);
		for (int k = 1; k < t->n_buffers; k++)
			CU_ASSERT_DOUBLE_EQUAL(t->touched[k], -1, 1e-9);
		CU_ASSERT_DOUBLE_EQUAL(t->term[BTC_MODE_ISOLATED][2 * BTC_N_TERMS + BTC_TERM_FIXED].mean_ms,
				       0.25, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(t->term[BTC_MODE_ISOLATED][2 * BTC_N_TERMS + BTC_TERM_IN_PER_MIB].mean_ms,
				       0.1, 1e-12);
		CU_ASSERT_FALSE(t->term[BTC_MODE_ISOLATED][0].present);
		CU_ASSERT_DOUBLE_EQUAL(t->io[BTC_MODE_ISOLATED].mean_ms, 1.5, 1e-12);
		CU_ASSERT_EQUAL(t->io[BTC_MODE_ISOLATED].samples, 20);
		CU_ASSERT_DOUBLE_EQUAL(btc_table_at(t, BTC_MODE_PLACED, 1, 1)->mean_ms, 3.3, 1e-12);
		t = table_round_trip(t, app, dev, BTC_MODE_ISOLATED, &d, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	}
	btc_table_free(t);
}

/* The io rows: `@io_load` and `@io_check` timed apart give T_io = their
 * max (the io source and sink overlap), written back and read again; a
 * table with only `@io` (load + check in series) keeps that figure; one
 * of the two alone is not "timed apart" (the `@io` row, else 0). */
static void test_io_rows(void)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_table *t = btc_table_load(
		"t.csv", HDR FULL_ISO "@io,io,isolated,1.3,0.1,20\n@io_load,io,isolated,0.56,0.01,20\n"
		"@io_check,io,isolated,0.77,0.02,20\n@io,io,interference,1.5,0,20\n"
		"a,little,interference,2,0.1,30\na,big,interference,1,0.1,30\n"
		"a,gpu,interference,0.5,0.01,30\nb,little,interference,4,0.2,30\n"
		"b,big,interference,3,0.1,30\n@io_load,io,placed,0.4,0,20\n"
		"a,little,placed,2,0.1,30\na,big,placed,1,0.1,30\na,gpu,placed,0.5,0.01,30\n"
		"b,little,placed,4,0.2,30\nb,big,placed,3,0.1,30\n",
		app, dev, BTC_MODE_ISOLATED, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	for (int pass = 0; pass < 2; pass++) {
		double load, check;
		CU_ASSERT_DOUBLE_EQUAL(btc_table_io_ms(t, BTC_MODE_ISOLATED, 1, 1, &load, &check), 0.77,
				       1e-12);
		CU_ASSERT_DOUBLE_EQUAL(load, 0.56, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(check, 0.77, 1e-12);
		/* two check workers: max(0.56, 0.77 / 2); four: still the load;
		 * two loaders too: 0.385 */
		CU_ASSERT_DOUBLE_EQUAL(btc_table_io_ms(t, BTC_MODE_ISOLATED, 1, 2, NULL, NULL), 0.56,
				       1e-12);
		CU_ASSERT_DOUBLE_EQUAL(btc_table_io_ms(t, BTC_MODE_ISOLATED, 1, 4, NULL, NULL), 0.56,
				       1e-12);
		CU_ASSERT_DOUBLE_EQUAL(btc_table_io_ms(t, BTC_MODE_ISOLATED, 2, 2, NULL, NULL), 0.385,
				       1e-12);
		CU_ASSERT_DOUBLE_EQUAL(btc_table_io_ms(t, BTC_MODE_INTERFERENCE, 1, 1, &load, &check),
				       1.5, 1e-12);
		CU_ASSERT_TRUE(isnan(load) && isnan(check));
		CU_ASSERT_DOUBLE_EQUAL(btc_table_io_ms(t, BTC_MODE_PLACED, 1, 1, NULL, NULL), 0, 1e-12);
		char *text;
		t = table_round_trip(t, app, dev, BTC_MODE_ISOLATED, &d, &text);
		CU_ASSERT_PTR_NOT_NULL(strstr(text, "@io_load,io,isolated,0.560000"));
		CU_ASSERT_PTR_NOT_NULL(strstr(text, "@io_check,io,isolated,0.770000"));
		free(text);
		CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	}
	btc_table_free(t);
}

/* Co-run slowdown rows (issue 27): per ordered PU pair, per mode, written
 * back and read again; no row or a factor below 1 is factor 1; they are
 * not chunk-model terms. */
static void test_corun(void)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_table *t = btc_table_load("t.csv",
			   HDR FULL_ISO "b,gpu,isolated,9,0,1\n# corun_with: other,third\n"
					"@corun,big/gpu,isolated,1.35,0.04,30\n"
					"@corun,gpu/big,isolated,0.9,0.01,30\n"
					"@corun,little/gpu,interference,2.5,0.1,10\n",
			   app, dev, BTC_MODE_ISOLATED, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	int little = btc_device_pu_index(dev, "little"), big = btc_device_pu_index(dev, "big"),
	    gpu = btc_device_pu_index(dev, "gpu");
	for (int pass = 0; pass < 2; pass++) {
		CU_ASSERT_TRUE(t->has_corun[BTC_MODE_ISOLATED]);
		CU_ASSERT_TRUE(t->has_corun[BTC_MODE_INTERFERENCE]);
		CU_ASSERT_FALSE(t->has_terms[BTC_MODE_ISOLATED]);
		CU_ASSERT_DOUBLE_EQUAL(btc_table_corun_factor(t, BTC_MODE_ISOLATED, big, gpu), 1.35,
				       1e-12);
		CU_ASSERT_DOUBLE_EQUAL(btc_table_corun_factor(t, BTC_MODE_ISOLATED, gpu, big), 1.0,
				       0);
		CU_ASSERT_DOUBLE_EQUAL(btc_table_corun_factor(t, BTC_MODE_ISOLATED, little, gpu), 1.0,
				       0);
		CU_ASSERT_DOUBLE_EQUAL(btc_table_corun_factor(t, BTC_MODE_INTERFERENCE, little, gpu),
				       2.5, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(btc_table_corun_factor(t, BTC_MODE_ISOLATED, big, big), 1.0, 0);
		CU_ASSERT_EQUAL(t->corun[BTC_MODE_ISOLATED][big * t->n_pus + gpu].samples, 30);
		CU_ASSERT_TRUE(t->corun[BTC_MODE_ISOLATED][gpu * t->n_pus + big].present);
		CU_ASSERT_STRING_EQUAL(t->corun_with ? t->corun_with : "", "other,third");
		char *text;
		t = table_round_trip(t, app, dev, BTC_MODE_ISOLATED, &d, &text);
		CU_ASSERT_PTR_NOT_NULL(strstr(text, "@corun,big/gpu,isolated,1.350000,0.040000,30\n"));
		CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n# corun_with: other,third\n"));
		free(text);
		CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	}
	btc_table_free(t);
}

/* Same-PU capacity rows (issue 27): per PU and stream count, written back
 * and read again; a count without a row takes the largest one below it. */
static void test_share(void)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_table *t = btc_table_load("t.csv", HDR FULL_ISO "# share_with: demo*4\n"
			   "@share,gpu*2,isolated,1.25,0.02,3\n@share,gpu*4,isolated,0.8,0.01,3\n",
			   app, dev, BTC_MODE_ISOLATED, &d);
	int gpu = btc_device_pu_index(dev, "gpu"), big = btc_device_pu_index(dev, "big");
	for (int pass = 0; t && pass < 2; pass++) {
		CU_ASSERT_TRUE(t->has_share[BTC_MODE_ISOLATED] && !t->has_terms[BTC_MODE_ISOLATED]);
		CU_ASSERT_FALSE(t->has_share[BTC_MODE_INTERFERENCE]);
		static const double want[] = {1, 1, 1.25, 1.25, 0.8, 0.8};
		for (int n = 0; n < 6; n++)
			CU_ASSERT_EQUAL(btc_table_share_factor(t, BTC_MODE_ISOLATED, gpu, n), want[n]);
		CU_ASSERT_EQUAL(btc_table_share_factor(t, BTC_MODE_ISOLATED, big, 4), 1.0);
		CU_ASSERT_STRING_EQUAL(t->share_with ? t->share_with : "", "demo*4");
		char *text;
		t = table_round_trip(t, app, dev, BTC_MODE_ISOLATED, &d, &text);
		CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n@share,gpu*4,isolated,0.800000,0.010000,3\n"));
		free(text);
	}
	CU_ASSERT_PTR_NOT_NULL(t);
	btc_table_free(t);
}

/* The placed mode predicts a one-chunk schedule from the isolated rows
 * (nothing runs beside it: btc_plan_mode_for), every other from its own. */
static void test_placed_alone(void)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_table *t = btc_table_load(
		"t.csv", HDR FULL_ISO
		"a,big,placed,1.5,0.1,30\na,little,placed,2.5,0.1,30\na,gpu,placed,0.6,0,30\n"
		"b,big,placed,3.5,0.1,30\nb,little,placed,4.5,0.1,30\n",
		app, dev, BTC_MODE_ISOLATED, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	struct btc_schedule alone = { .n_chunks = 1, .chunks = { { .pu = 1, .first_stage = 0, .last_stage = 1 } } };
	struct btc_schedule two = { .n_chunks = 2,
				    .chunks = { { .pu = 1, .first_stage = 0, .last_stage = 0 },
						{ .pu = 0, .first_stage = 1, .last_stage = 1 } } };
	CU_ASSERT_EQUAL(btc_plan_mode_for(t, BTC_MODE_PLACED, &alone), BTC_MODE_ISOLATED);
	CU_ASSERT_EQUAL(btc_plan_mode_for(t, BTC_MODE_PLACED, &two), BTC_MODE_PLACED);
	CU_ASSERT_EQUAL(btc_plan_mode_for(t, BTC_MODE_INTERFERENCE, &alone), BTC_MODE_INTERFERENCE);
	/* big alone: isolated 1 + 3; big then little: placed max(1.5, 4.5) */
	struct btc_plan_options po;
	btc_plan_options_init(&po);
	po.mode = BTC_MODE_PLACED;
	po.baselines_only = true;
	struct btc_plan *plan = btc_plan(app, dev, t, NULL, &po, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
	CU_ASSERT_DOUBLE_EQUAL(btc_plan_predict_ms(plan, BTC_MODE_PLACED, true, &alone), 4.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(btc_plan_predict_ms(plan, BTC_MODE_PLACED, true, &two), 4.5, 1e-9);
	btc_plan_free(plan);
	btc_table_free(t);
}

static void test_reference_layout(void)
{
	/* Two appended runs: means are averaged per stage and PU. */
	static const char ref[] =
		"stage,little,medium,big,vulkan,cuda,device,run\n"
		"1,2.0,9.0,1.0,0.5,0.0,X,1\n"
		"2,4.0,9.0,3.0,7.0,0.0,X,1\n"
		"1,4.0,9.0,3.0,1.5,0.0,X,2\n"
		"2,6.0,9.0,5.0,7.0,0.0,X,2\n";
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_table *t = btc_table_load("ref.csv", ref, app, dev, BTC_MODE_ISOLATED, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_TRUE(t->reference_layout);
	CU_ASSERT_TRUE(t->has_mode[BTC_MODE_ISOLATED]);
	struct btc_table_entry *e = btc_table_at(t, BTC_MODE_ISOLATED, 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(e->mean_ms, 3.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(e->stddev_ms, sqrt(2.0), 1e-12);
	CU_ASSERT_EQUAL(e->samples, 2);
	CU_ASSERT_DOUBLE_EQUAL(btc_table_at(t, BTC_MODE_ISOLATED, 0, 2)->mean_ms, 1.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(btc_table_at(t, BTC_MODE_ISOLATED, 1, 1)->mean_ms, 4.0, 1e-12);
	btc_table_free(t);
}

/* An app of n stages with kernels for every backend. */
/* An app of n stages named `name` ('-' read as '_'; NULL: "sN"). */
static struct btc_app *stages_app(int n, const char *name)
{
	char text[4096], id[64];
	snprintf(id, sizeof(id), "%s", name ? name : "");
	for (char *p = id; *p; p++)
		*p = *p == '-' ? '_' : *p;
	int len = name ? snprintf(text, sizeof(text),
				  "app: %s\nbuffers:\n  - {name: x, type: f32, count: 1}\nstages:\n", id)
		       : snprintf(text, sizeof(text),
				  "app: s%d\nbuffers:\n  - {name: x, type: f32, count: 1}\nstages:\n", n);
	for (int i = 0; i < n; i++)
		len += snprintf(text + len, sizeof(text) - (size_t)len,
				"  - {name: s%d, cpu: f%d, cuda: g%d, vulkan: [{shader: noop.comp, groups: [1]}]}\n",
				i, i, i);
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	return btc_app_load(APP_PATH, text, NULL, 0, &d);
}

/* All twelve tables of the paper's devices load against the matching
 * device description and an app with the paper's stage count. */
static void test_real_reference_tables(void)
{
	static const struct {
		const char *device, *app;
		int stages;
	} cases[] = {
		{"pixel7a", "octree", 7}, {"pixel7a", "alexnet-dense", 9},
		{"pixel7a", "alexnet-sparse", 9}, {"jetson-orin-nano", "octree", 7},
		{"jetson-orin-nano", "alexnet-dense", 9},
		{"jetson-orin-nano", "alexnet-sparse", 9},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct btc_diag d;
		btc_diag_init(&d, stderr);
		struct btc_device *rdev = btc_device_load(cases[i].device, DEVICE_DIR, NULL, &d);
		/* named as the table's folder: a reference table of another app
		 * is refused (btc_table_check_ref_origin) */
		struct btc_app *rapp = stages_app(cases[i].stages, cases[i].app);
		CU_ASSERT_PTR_NOT_NULL_FATAL(rdev);
		CU_ASSERT_PTR_NOT_NULL_FATAL(rapp);
		for (int m = 0; m <= BTC_MODE_INTERFERENCE; m++) { /* the paper's two */
			char path[512];
			snprintf(path, sizeof(path), "%s/%s/%s/%s.csv", btc_test_data("profiles"),
				 cases[i].device, cases[i].app, btc_mode_name((enum btc_mode)m));
			struct btc_table *t = btc_table_load(path, NULL, rapp, rdev, (enum btc_mode)m, &d);
			CU_ASSERT_PTR_NOT_NULL(t);
			if (t) {
				for (int s = 0; s < rapp->n_stages; s++)
					for (int p = 0; p < rdev->n_pus; p++) {
						struct btc_table_entry *e = btc_table_at(t, (enum btc_mode)m, s, p);
						CU_ASSERT_TRUE(e->present);
						CU_ASSERT(e->mean_ms > 0 && e->samples >= 1);
					}
			}
			btc_table_free(t);
		}
		/* The stage count must match: a 6-stage app rejects the table. */
		struct btc_app *short_app = stages_app(cases[i].stages - 1, cases[i].app);
		char path[512];
		snprintf(path, sizeof(path), "%s/%s/%s/isolated.csv", btc_test_data("profiles"),
			 cases[i].device, cases[i].app);
		btc_diag_init(&d, NULL);
		CU_ASSERT_PTR_NULL(btc_table_load(path, NULL, short_app, rdev, BTC_MODE_ISOLATED, &d));
		CU_ASSERT(d.errors > 0);
		btc_app_free(short_app);
		btc_app_free(rapp);
		btc_device_free(rdev);
	}
}

static const struct bad_case bad[] = {
	{"unknown header", "stage,pu,time\n",
	 T "1:1: error: unknown table header (expected 'stage,pu,mode,mean_ms,stddev_ms,samples' or the reference layout 'stage,little,medium,big,vulkan,cuda,device,run')"},
	{"empty table", "# only a comment\n", "t.csv: error: empty profiling table"},
	{"unknown stage", HDR FULL_ISO "c,big,isolated,1,0,1\n", T "7:1: error: unknown stage 'c' (app 'demo')"},
	{"unknown PU", HDR FULL_ISO "b,medium,isolated,1,0,1\n", T "7:3: error: unknown PU 'medium' (device 'testdev')"},
	{"unknown mode", HDR FULL_ISO "b,big,loaded,1,0,1\n",
	 T "7:7: error: unknown mode 'loaded' (expected isolated, interference or placed)"},
	{"unknown term", HDR FULL_ISO "@warp,gpu,isolated,1,0,1\n",
	 T "7:1: error: unknown term '@warp' (expected @fixed, @in_latency, @in_per_mib, @out_latency, @out_per_mib, @io, @io_load, @io_check, @in_chunk:STAGE, @corun or @share)"},
	{"share field", HDR FULL_ISO "@share,gpu*1,isolated,1.5,0,1\n",
	 T "7:8: error: @share rows name a PU and a stream count 'P*N' (N from 2 to 64), not 'gpu*1'"},
	{"share PU", HDR FULL_ISO "@share,npu*2,isolated,1.5,0,1\n", T "7:8: error: unknown PU 'npu' (device 'testdev')"},
	{"io_check row PU", HDR FULL_ISO "@io_check,gpu,isolated,1,0,1\n",
	 T "7:11: error: @io_check rows name the PU 'io', not 'gpu'"},
	{"io row PU", HDR FULL_ISO "@io,gpu,isolated,1,0,1\n",
	 T "7:5: error: @io rows name the PU 'io', not 'gpu'"},
	{"corun field", HDR FULL_ISO "@corun,gpu,isolated,1.5,0,1\n",
	 T "7:8: error: @corun rows name a pair of PUs 'P/Q', not 'gpu'"},
	{"corun PU", HDR FULL_ISO "@corun,big/npu,isolated,1.5,0,1\n",
	 T "7:12: error: unknown PU 'npu' (device 'testdev')"},
	{"corun same PU", HDR FULL_ISO "@corun,gpu/gpu,isolated,1.5,0,1\n",
	 T "7:8: error: @corun 'gpu/gpu': a PU shared by two apps is time-shared (the model's utilisation), not a co-run pair; name two distinct PUs"},
	{"corun duplicate", HDR FULL_ISO "@corun,big/gpu,isolated,1.5,0,1\n@corun,big/gpu,isolated,1.6,0,1\n",
	 T "8:1: error: duplicate row for @corun on big/gpu (isolated)"},
	{"corun NaN", HDR FULL_ISO "@corun,big/gpu,isolated,nan,0,1\n",
	 T "7:25: error: @corun on big/gpu: time is NaN"},
	{"negative term", HDR FULL_ISO "@fixed,gpu,isolated,-1,0,1\n",
	 T "7:21: error: @fixed on gpu: negative time -1 ms"},
	{"io_loads buffer", "# io_loads: x,nope\n" HDR FULL_ISO,
	 T "1:1: error: io_loads: unknown buffer 'nope' (app 'demo')"},
	{"in_place buffer", "# in_place: nope\n" HDR FULL_ISO,
	 T "1:1: error: in_place: unknown buffer 'nope' (app 'demo')"},
	{"touched buffer", "# touched: nope=12\n" HDR FULL_ISO,
	 T "1:1: error: touched: unknown buffer 'nope' (app 'demo')"},
	{"touched bytes", "# touched: x=-3\n" HDR FULL_ISO,
	 T "1:1: error: touched: expected BUFFER=BYTES, got 'x=-3'"},
	{"hexadecimal touched bytes", "# touched: x=0x10\n" HDR FULL_ISO,
	 T "1:1: error: touched: expected BUFFER=BYTES, got 'x=0x10'"},
	{"NaN time", HDR "a,little,isolated,nan,0.1,30\n", T "2:19: error: stage a on PU little: time is NaN"},
	{"negative time", HDR "a,little,isolated,-2,0.1,30\n", T "2:19: error: stage a on PU little: negative time -2 ms"},
	{"not a number", HDR "a,little,isolated,fast,0.1,30\n", T "2:19: error: stage a on PU little: 'fast' is not a number"},
	{"negative stddev", HDR "a,little,isolated,1,-0.1,30\n", T "2:21: error: stage a on PU little: negative time -0.1 ms"},
	{"bad samples", HDR "a,little,isolated,1,0.1,0\n", T "2:25: error: stage a on PU little: samples must be a positive integer, not '0'"},
	{"signed samples", HDR "a,little,isolated,1,0.1,+30\n", T "2:25: error: stage a on PU little: samples must be a positive integer, not '+30'"},
	{"field count", HDR "a,little,isolated,1,0.1\n", T "2:1: error: expected 6 fields (stage,pu,mode,mean_ms,stddev_ms,samples), found 5"},
	{"duplicate row", HDR FULL_ISO "a,big,isolated,1,0.1,30\n", T "7:1: error: duplicate row for stage a on PU big (isolated)"},
	{"lacks PU", HDR "a,little,isolated,2,0.1,30\na,big,isolated,1,0.1,30\nb,little,isolated,4,0.2,30\nb,big,isolated,3,0.1,30\n",
	 "t.csv: error: table lacks stage 1 'a' on PU 'gpu' (isolated)"},
	{"lacks stage", HDR "a,little,isolated,2,0.1,30\na,big,isolated,1,0.1,30\na,gpu,isolated,0.5,0.01,30\n",
	 "t.csv: error: table lacks stage 2 'b' on PU 'little' (isolated)"},
	{"lacks mode entry", HDR FULL_ISO "a,gpu,interference,0.5,0.01,30\n",
	 "t.csv: error: table lacks stage 1 'a' on PU 'little' (interference)"},
	{"other app", "# app: octree\n" HDR FULL_ISO, "t.csv: error: table was measured for app 'octree', not 'demo'"},
	/* issue 26: another device's table, hexadecimal times */
	{"other device", "# app: demo\n# device: pixel7a\n" HDR FULL_ISO,
	 "t.csv: error: table was measured on device 'pixel7a', not 'testdev' (its '# device:' line)"},
	{"hexadecimal time", HDR "a,little,isolated,0x10,0.1,30\n",
	 T "2:19: error: stage a on PU little: '0x10' is not a decimal number of ms"},
	{"ref hexadecimal time", "stage,little,medium,big,vulkan,cuda,device,run\n1,0x1,0,1,1,0,X,1\n",
	 T "2:3: error: stage 1 (a) on little: '0x1' is not a decimal number of ms"},
	{"ref stage beyond app", "stage,little,medium,big,vulkan,cuda,device,run\n1,1,0,1,1,0,X,1\n2,1,0,1,1,0,X,1\n3,1,0,1,1,0,X,1\n",
	 T "4:1: error: stage 3 does not exist: app 'demo' has 2 stages"},
	{"ref NaN", "stage,little,medium,big,vulkan,cuda,device,run\n1,1,0,NaN,1,0,X,1\n",
	 T "2:7: error: stage 1 (a) on big: time is NaN"},
	{"ref negative", "stage,little,medium,big,vulkan,cuda,device,run\n1,1,0,1,-1,0,X,1\n",
	 T "2:9: error: stage 1 (a) on vulkan: negative time -1 ms"},
	{"ref missing PU", "stage,little,medium,big,vulkan,cuda,device,run\n1,1,0,0,1,0,X,1\n2,1,0,0,1,0,X,1\n",
	 "t.csv: error: table lacks stage 1 'a' on PU 'big' (isolated)"},
	{"ref bad stage", "stage,little,medium,big,vulkan,cuda,device,run\nzero,1,0,1,1,0,X,1\n",
	 T "2:1: error: stage must be a 1-based number, not 'zero'"},
	{"ref field count", "stage,little,medium,big,vulkan,cuda,device,run\n1,1,0,1,1\n",
	 T "2:1: error: expected 8 fields (stage,little,medium,big,vulkan,cuda,device,run), found 5"},
};

static void test_bad(void)
{
	check_bad_tables(bad, sizeof(bad) / sizeof(bad[0]), app, dev);
}

/* Lines of any length are read whole, never split into rows: a long
 * comment is a comment, and a long field whose tail looks like a row is
 * one bad row, not a good one. Past BTC_TABLE_MAX_LINE a line is an error. */
/* A UTF-8 byte order mark before the header is skipped (spreadsheets
 * write one); 200,000 duplicate rows print 20 errors and one
 * "... and N more errors" line, and count them all (issue 26). */
static void test_bom_and_error_cap(void)
{
	{ /* a reference table in another app's folder (issue 26) */
		struct btc_diag d0;
		btc_diag_init(&d0, NULL);
		const char *ref = "stage,little,medium,big,vulkan,cuda,device,run\n"
				  "1,1,0,1,1,0,X,1\n2,1,0,1,0,0,X,1\n";
		struct btc_table *t0 = btc_table_load("data/profiles/testdev/octree/isolated.csv",
						      ref, app, dev, BTC_MODE_ISOLATED, &d0);
		CU_ASSERT_PTR_NULL(t0);
		assert_first_error(&d0, "reference table of another app",
				   "data/profiles/testdev/octree/isolated.csv: error: reference table "
				   "of app 'octree' (its folder), not 'demo': the reference layout "
				   "numbers stages and names no app, so another app's table with as "
				   "many stages would load");
		t0 = btc_table_load("data/profiles/testdev/demo/isolated.csv", ref, app, dev,
				    BTC_MODE_ISOLATED, &d0);
		CU_ASSERT_PTR_NOT_NULL(t0);
		btc_table_free(t0);
	}
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_table *t = btc_table_load("t.csv", "\xEF\xBB\xBF" HDR FULL_ISO
					     "b,gpu,isolated,9,0,1\n",
					     app, dev, BTC_MODE_ISOLATED, &d);
	CU_ASSERT_PTR_NOT_NULL(t);
	CU_ASSERT_EQUAL(d.errors, 0);
	btc_table_free(t);

	const int dups = 200000;
	const char row[] = "a,big,isolated,1,0.1,30\n";
	size_t n = strlen(HDR FULL_ISO) + (size_t)dups * strlen(row) + 1;
	char *text = malloc(n), *p = stpcpy(text, HDR FULL_ISO);
	for (int i = 0; i < dups; i++)
		p = stpcpy(p, row);
	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);
	btc_diag_init(&d, f);
	t = btc_table_load("t.csv", text, app, dev, BTC_MODE_ISOLATED, &d);
	fclose(f);
	CU_ASSERT_PTR_NULL(t);
	CU_ASSERT_EQUAL(d.errors, dups);
	int lines = 0;
	for (const char *q = out; *q; q++)
		lines += *q == '\n';
	CU_ASSERT_EQUAL(lines, BTC_DIAG_MAX_PER_FILE + 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "t.csv: ... and 199980 more errors\n"));
	free(out);
	free(text);
}

static void test_long_lines(void)
{
	size_t pad = 5000;
	char *text = malloc(pad + 1024), *p = text;
	p = stpcpy(p, "# app: demo\n#");
	memset(p, 'x', pad);
	p += pad;
	stpcpy(p, "\n" HDR FULL_ISO "b,gpu,isolated,9,0,1\n");
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_table *t = btc_table_load("t.csv", text, app, dev, BTC_MODE_ISOLATED, &d);
	CU_ASSERT_PTR_NOT_NULL(t);
	CU_ASSERT_EQUAL(d.errors, 0);
	btc_table_free(t);

	/* 1023 bytes of junk, then a row that the old 1024-byte buffer read
	 * as a row of its own (b on gpu, which the table otherwise lacks). */
	p = text;
	p = stpcpy(p, HDR FULL_ISO);
	memset(p, 'z', 1023);
	p += 1023;
	stpcpy(p, "b,gpu,isolated,9,0,1\n");
	btc_diag_init(&d, NULL);
	t = btc_table_load("t.csv", text, app, dev, BTC_MODE_ISOLATED, &d);
	CU_ASSERT_PTR_NULL(t);
	btc_table_free(t);
	CU_ASSERT_EQUAL(d.errors, 1);
	CU_ASSERT_EQUAL(strncmp(d.first, T "7:1: error: unknown stage 'zzz",
				strlen(T "7:1: error: unknown stage 'zzz")), 0);
	free(text);

	/* Over the limit: reported, not split. */
	size_t big = BTC_TABLE_MAX_LINE + 10;
	text = malloc(big + 1024);
	p = stpcpy(text, HDR FULL_ISO);
	memset(p, 'y', big);
	p += big;
	stpcpy(p, ",gpu,isolated,9,0,1\n");
	btc_diag_init(&d, NULL);
	t = btc_table_load("t.csv", text, app, dev, BTC_MODE_ISOLATED, &d);
	CU_ASSERT_PTR_NULL(t);
	btc_table_free(t);
	assert_first_error(&d, "line over the limit",
			   T "7:1: error: line too long (65565 bytes; at most 65536)");
	free(text);
}

int register_table_suite(void)
{
	CU_pSuite s = CU_add_suite("table", setup, teardown);
	return !s || !CU_add_test(s, "good table", test_good) ||
	       !CU_add_test(s, "reference layout", test_reference_layout) ||
	       !CU_add_test(s, "chunk-model terms and placed mode", test_model_terms) ||
	       !CU_add_test(s, "io load and check rows", test_io_rows) ||
	       !CU_add_test(s, "placed mode: a one-chunk schedule is isolated", test_placed_alone) ||
	       !CU_add_test(s, "co-run slowdown rows", test_corun) ||
	       !CU_add_test(s, "same-PU capacity rows", test_share) ||
	       !CU_add_test(s, "the paper's twelve tables", test_real_reference_tables) ||
	       !CU_add_test(s, "bad tables", test_bad) ||
	       !CU_add_test(s, "long lines", test_long_lines) ||
	       !CU_add_test(s, "BOM and error cap", test_bom_and_error_cap);
}
