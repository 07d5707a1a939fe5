/* The near-period slice of the main job's candidates (sched/plan.h,
 * period_slice; docs/scheduler.md, "The near-period slice"): a table's
 * schedules of least T_max join the candidates with their twin mirrors
 * (two CPU PUs of one core type and size swapped); not where the PUs
 * differ, nor where the swap would break a pin; the paper's plan takes
 * none. */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "front/table.h"
#include "sched/plan.h"
#include "table_testlib.h"

#define APP_PATH FRONTEND_DATA_DIR "/demo3.yaml"

/* twin0 and twin1: the same cores; the table reads twin1 3x slower on a
 * (noise, as lease J's cpu1 on conv1) */
static const char twins_text[] = "device: twins\nos: linux\narch: x86_64\npus:\n"
				 "  - {name: twin0, kind: cpu, cores: [0, 1], core_type: X}\n"
				 "  - {name: twin1, kind: cpu, cores: [2, 3], core_type: X}\n"
				 "  - {name: gpu, kind: vulkan}\n";
static const char sizes_text[] = "device: sizes\nos: linux\narch: x86_64\npus:\n"
				 "  - {name: twin0, kind: cpu, cores: [0, 1], core_type: X}\n"
				 "  - {name: twin1, kind: cpu, cores: [2, 3, 4], core_type: X}\n"
				 "  - {name: gpu, kind: vulkan}\n";
static const char types_text[] = "device: types\nos: linux\narch: x86_64\npus:\n"
				 "  - {name: twin0, kind: cpu, cores: [0, 1], core_type: X}\n"
				 "  - {name: twin1, kind: cpu, cores: [2, 3], core_type: Y}\n"
				 "  - {name: gpu, kind: vulkan}\n";

/* The paper's model (mean times alone). The least T_max is
 * twin0:0 twin1:1 gpu:2 (1, 1, 0.5: T_max 1, gapness 0.5, the least
 * gapness too), so with K = 1 it is the only candidate and the slice's
 * one schedule; its mirror twin1:0 twin0:1 gpu:2 (3, 1, 0.5) is no
 * candidate of either objective. */
static const char table_text_[] =
	"stage,pu,mode,mean_ms,stddev_ms,samples\n"
	"a,twin0,isolated,1,0.01,30\na,twin1,isolated,3,0.01,30\na,gpu,isolated,5,0.01,30\n"
	"b,twin0,isolated,1,0.01,30\nb,twin1,isolated,1,0.01,30\nb,gpu,isolated,5,0.01,30\n"
	"c,twin0,isolated,3,0.01,30\nc,twin1,isolated,3,0.01,30\nc,gpu,isolated,0.5,0.01,30\n";

#define LEAST "twin0:0 twin1:1 gpu:2"
#define MIRROR "twin1:0 twin0:1 gpu:2"

static struct btc_app *app;

static int setup(void)
{
	struct btc_device *dev = NULL;
	int rc = table_fixture_load(APP_PATH, demo3_app_text, twins_text, &app, &dev);
	btc_device_free(dev);
	return rc;
}

static int teardown(void)
{
	btc_app_free(app);
	return 0;
}

/* The main job's default plan (K = 1) on the table under the device
 * dev_text, with the slice or not and the pins given; whether it holds
 * LEAST and MIRROR. Asserts that it plans. */
static void plan_on(const char *dev_text, int period_slice, const char *const *pins, int n_pins,
		    bool *least, bool *mirror)
{
	*least = *mirror = false;
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_device *dev = btc_device_load("dev.yaml", NULL, dev_text, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dev);
	struct btc_table *t = btc_table_load("t.csv", table_text_, app, dev, BTC_MODE_ISOLATED, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	struct btc_plan_options po;
	btc_plan_options_init(&po);
	btc_plan_default_modes(&po);
	po.sched.top_k = 1;
	po.exhaustive = true;
	po.period_slice = period_slice;
	po.pins = pins;
	po.n_pins = n_pins;
	struct btc_plan *plan = btc_plan(app, dev, t, NULL, &po, &d);
	CU_ASSERT_PTR_NOT_NULL(plan);
	CU_ASSERT_EQUAL(d.errors, 0);
	for (int i = 0; plan && i < plan->n_schedules; i++) {
		char *l = btc_plan_schedule_label(&plan->schedules[i].s, dev);
		*least |= !strcmp(l, LEAST);
		if (!strcmp(l, MIRROR)) {
			*mirror = true;
			CU_ASSERT_TRUE(plan->schedules[i].predicted);
			CU_ASSERT_DOUBLE_EQUAL(plan->schedules[i].s.tmax_ms, 3.0, 1e-9);
			CU_ASSERT_STRING_EQUAL(btc_plan_schedule_kind(&plan->schedules[i]),
					       "candidate");
		}
		free(l);
	}
	btc_plan_free(plan);
	btc_table_free(t);
	btc_device_free(dev);
}

static void test_twin_mirror(void)
{
	bool least, mirror;
	plan_on(twins_text, 0, NULL, 0, &least, &mirror);
	CU_ASSERT_TRUE(least);
	CU_ASSERT_FALSE(mirror); /* the table alone never proposes it */
	plan_on(twins_text, BTC_PLAN_PERIOD_SLICE, NULL, 0, &least, &mirror);
	CU_ASSERT_TRUE(least);
	CU_ASSERT_TRUE(mirror);
}

static void test_not_twins(void)
{
	bool least, mirror;
	plan_on(sizes_text, BTC_PLAN_PERIOD_SLICE, NULL, 0, &least, &mirror);
	CU_ASSERT_TRUE(least);
	CU_ASSERT_FALSE(mirror); /* 2 and 3 cores */
	plan_on(types_text, BTC_PLAN_PERIOD_SLICE, NULL, 0, &least, &mirror);
	CU_ASSERT_TRUE(least);
	CU_ASSERT_FALSE(mirror); /* core types X and Y */
}

static void test_pinned(void)
{
	bool least, mirror;
	const char *const pin_a[] = {"a=twin0"};
	plan_on(twins_text, BTC_PLAN_PERIOD_SLICE, pin_a, 1, &least, &mirror);
	CU_ASSERT_TRUE(least);
	CU_ASSERT_FALSE(mirror); /* it would run a on twin1 */
}

int register_plan_slice_suite(void)
{
	CU_pSuite s = CU_add_suite("plan-slice", setup, teardown);
	return !s || !CU_add_test(s, "the least period's twin mirror joins", test_twin_mirror) ||
	       !CU_add_test(s, "no mirror across PUs of other sizes or core types",
			    test_not_twins) ||
	       !CU_add_test(s, "no mirror that breaks a pin", test_pinned);
}
