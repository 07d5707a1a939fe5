/* The assignment bound's own assignment as a candidate of the plan
 * (sched/plan.h, from_bound; docs/scheduler.md, "The assignment bound's
 * assignment"): added exactly once, labelled "bound", when the paper's
 * gapness filter leaves it out; not added when the space has it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "front/table.h"
#include "sched/plan.h"
#include "table_testlib.h"

#define APP_PATH FRONTEND_DATA_DIR "/demo3.yaml"

static const char dev_text[] =
	"device: testdev\nos: linux\narch: aarch64\npus:\n"
	"  - {name: little, kind: cpu, cores: [0, 1]}\n"
	"  - {name: big, kind: cpu, cores: [2]}\n"
	"  - {name: gpu, kind: vulkan}\n";

/* The paper's model (mean times alone). The least T_max is gpu:0-1
 * big:2 (T_max 2, T_min 0.1, gapness 1.9), the assignment MIP's unique
 * optimum; big:0 little:1 gpu:2 has gapness 0 = G*, so the paper's filter
 * (gapness <= G* + 0.5 T_max = 1) drops it. */
static const char bound_table_text[] =
	"stage,pu,mode,mean_ms,stddev_ms,samples\n"
	"a,little,isolated,10,0.1,30\na,big,isolated,10,0.1,30\na,gpu,isolated,1,0.01,30\n"
	"b,little,isolated,10,0.1,30\nb,big,isolated,10,0.1,30\nb,gpu,isolated,1,0.01,30\n"
	"c,little,isolated,10,0.1,30\nc,big,isolated,0.1,0.01,30\nc,gpu,isolated,10,0.1,30\n";

static struct btc_app *app;
static struct btc_device *dev;
static struct btc_table *table;

static int setup(void)
{
	if (table_fixture_load(APP_PATH, demo3_app_text, dev_text, &app, &dev))
		return 1;
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	table = btc_table_load("t.csv", bound_table_text, app, dev, BTC_MODE_ISOLATED, &d);
	return table == NULL;
}

static int teardown(void)
{
	btc_table_free(table);
	btc_app_free(app);
	btc_device_free(dev);
	return 0;
}

static struct btc_plan *plan_with(enum btc_sched_objective objective, bool ranking)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_plan_options po;
	btc_plan_options_init(&po);
	po.mode = BTC_MODE_ISOLATED;
	po.sched.objective = objective;
	po.ranking = ranking;
	po.baselines = !ranking;
	struct btc_plan *plan = btc_plan(app, dev, table, NULL, &po, &d);
	CU_ASSERT_EQUAL(d.errors, 0);
	return plan;
}

/* How many schedules of the plan are labelled `label`, and how many of
 * those are from_bound. */
static int count_label(const struct btc_plan *plan, const char *label, int *from_bound)
{
	int n = 0;
	*from_bound = 0;
	for (int i = 0; i < plan->n_schedules; i++) {
		char *l = btc_plan_schedule_label(&plan->schedules[i].s, dev);
		if (!strcmp(l, label)) {
			n++;
			*from_bound += plan->schedules[i].from_bound;
		}
		free(l);
	}
	return n;
}

static void test_filtered_out(void)
{
	struct btc_plan *plan = plan_with(BTC_SCHED_BT, false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
	CU_ASSERT_TRUE(plan->assign.exact);
	CU_ASSERT_DOUBLE_EQUAL(plan->assign.bound_ms, 2.0, 1e-4);
	/* the ranking knows it and that its space left it out */
	CU_ASSERT_TRUE(plan->result.has_assign_schedule);
	CU_ASSERT_EQUAL(plan->result.assign_rank, 0);
	CU_ASSERT_DOUBLE_EQUAL(plan->result.assign_schedule.tmax_ms, 2.0, 1e-9);
	for (int i = 0; i < plan->result.n_candidates; i++)
		CU_ASSERT_TRUE(plan->result.candidates[i].tmax_ms > 2.0);
	/* the build lists it once, as the bound's, after the baselines */
	int bound;
	CU_ASSERT_EQUAL(count_label(plan, "gpu:0-1 big:2", &bound), 1);
	CU_ASSERT_EQUAL(bound, 1);
	int n_bound = 0, last_baseline = -1, at = -1;
	for (int i = 0; i < plan->n_schedules; i++) {
		const struct btc_plan_schedule *g = &plan->schedules[i];
		n_bound += g->from_bound;
		if (g->baseline)
			last_baseline = i;
		if (g->from_bound)
			at = i;
	}
	CU_ASSERT_EQUAL(n_bound, 1);
	CU_ASSERT_EQUAL(at, plan->n_schedules - 1);
	CU_ASSERT_TRUE(last_baseline >= 0 && last_baseline < at);
	CU_ASSERT_EQUAL(plan->n_schedules, plan->result.n_candidates + 3 + 1);
	const struct btc_plan_schedule *g = &plan->schedules[at];
	CU_ASSERT_TRUE(g->predicted);
	CU_ASSERT_FALSE(g->baseline);
	CU_ASSERT_FALSE(g->space_only);
	CU_ASSERT_DOUBLE_EQUAL(g->s.tmax_ms, 2.0, 1e-9);
	CU_ASSERT_STRING_EQUAL(btc_plan_schedule_kind(g), "bound");
	CU_ASSERT_STRING_EQUAL(btc_plan_schedule_kind(&plan->schedules[0]), "candidate");
	CU_ASSERT_STRING_EQUAL(btc_plan_schedule_kind(&plan->schedules[last_baseline]),
			       "baseline");
	btc_plan_free(plan);

	/* `btc schedule`'s ranking: reported, never added to the schedules */
	plan = plan_with(BTC_SCHED_BT, true);
	CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
	CU_ASSERT_TRUE(plan->result.has_assign_schedule);
	CU_ASSERT_EQUAL(plan->result.assign_rank, 0);
	for (int i = 0; i < plan->n_schedules; i++)
		CU_ASSERT_FALSE(plan->schedules[i].from_bound);
	btc_plan_free(plan);
}

static void test_in_space(void)
{
	/* the latency objective has no gapness filter: the least T_max is
	 * its first candidate, and the plan lists it once, as a candidate */
	struct btc_plan *plan = plan_with(BTC_SCHED_LATENCY, false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
	CU_ASSERT_TRUE(plan->result.has_assign_schedule);
	CU_ASSERT_EQUAL(plan->result.assign_rank, 1);
	int bound;
	CU_ASSERT_EQUAL(count_label(plan, "gpu:0-1 big:2", &bound), 1);
	CU_ASSERT_EQUAL(bound, 0);
	CU_ASSERT_EQUAL(plan->n_schedules, plan->result.n_candidates + 3);
	for (int i = 0; i < plan->n_schedules; i++)
		CU_ASSERT_FALSE(plan->schedules[i].from_bound);
	btc_plan_free(plan);
}

/* The job's bound round appends its schedule (btc_plan_add_bound_schedule):
 * a schedule the plan holds is found, never added twice; a new one goes
 * last, predicted on the planned problem, kind bound, and every earlier
 * number stays; one with a stage without a time is refused. */
static void test_add_bound_schedule(void)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_plan_options po; /* one candidate, the baselines, the bound's */
	btc_plan_options_init(&po);
	po.mode = BTC_MODE_ISOLATED;
	po.sched.top_k = 1;
	po.baselines = true;
	struct btc_plan *plan = btc_plan(app, dev, table, NULL, &po, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
	int n = plan->n_schedules;
	char **labels = calloc((size_t)n, sizeof(*labels));
	for (int i = 0; i < n; i++)
		labels[i] = btc_plan_schedule_label(&plan->schedules[i].s, dev);
	/* held: the bound's own (the plan added it), by its chunks */
	struct btc_schedule s;
	CU_ASSERT_TRUE_FATAL(btc_plan_parse_spec("gpu:0-1,big:2", app, dev, &s, &d));
	bool added = true;
	int k = btc_plan_add_bound_schedule(plan, &s, &added);
	CU_ASSERT_FALSE(added);
	CU_ASSERT_TRUE(k >= 0 && k < n);
	CU_ASSERT_EQUAL(plan->n_schedules, n);
	if (k >= 0)
		CU_ASSERT_STRING_EQUAL(labels[k], "gpu:0-1 big:2");
	/* new: the first of these the plan does not hold (chunk times are
	 * the stages' sums here: the table has no fixed or transfer rows) */
	static const struct {
		const char *spec, *label;
		double tmax_ms;
	} fresh[] = {
		{"little:0-1,gpu:2", "little:0-1 gpu:2", 20},
		{"gpu:0,little:1-2", "gpu:0 little:1-2", 20},
		{"big:0,little:1-2", "big:0 little:1-2", 20},
		{"little:0,big:1,gpu:2", "little:0 big:1 gpu:2", 10},
	};
	int f = -1;
	for (int x = 0; x < (int)(sizeof(fresh) / sizeof(fresh[0])) && f < 0; x++) {
		f = x;
		for (int i = 0; i < n; i++)
			if (!strcmp(labels[i], fresh[x].label))
				f = -1;
	}
	CU_ASSERT_TRUE_FATAL(f >= 0);
	CU_ASSERT_TRUE_FATAL(btc_plan_parse_spec(fresh[f].spec, app, dev, &s, &d));
	k = btc_plan_add_bound_schedule(plan, &s, &added);
	CU_ASSERT_TRUE(added);
	CU_ASSERT_EQUAL(k, n);
	CU_ASSERT_EQUAL_FATAL(plan->n_schedules, n + 1);
	const struct btc_plan_schedule *g = &plan->schedules[n];
	CU_ASSERT_TRUE(g->predicted && g->from_bound && !g->baseline && !g->space_only);
	CU_ASSERT_DOUBLE_EQUAL(g->s.tmax_ms, fresh[f].tmax_ms, 1e-9);
	CU_ASSERT_STRING_EQUAL(btc_plan_schedule_kind(g), "bound");
	for (int i = 0; i < n; i++) {
		char *l = btc_plan_schedule_label(&plan->schedules[i].s, dev);
		CU_ASSERT_STRING_EQUAL(l, labels[i]);
		free(l);
	}
	/* a second time: found, not added */
	CU_ASSERT_EQUAL(btc_plan_add_bound_schedule(plan, &s, &added), n);
	CU_ASSERT_FALSE(added);
	CU_ASSERT_EQUAL(plan->n_schedules, n + 1);
	CU_ASSERT_EQUAL(d.errors, 0);
	for (int i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
	btc_plan_free(plan);
}

/* The io round's farms (btc_plan_io_round_farms, btc_plan_set_io_farms;
 * docs/scheduler.md, "The io round"). Every stage takes 2 ms on every
 * PU, so the plan's best compute period is 2 ms and its farms stay one
 * loader and one checker (load 0.45, check 0.83 ms: both under 0.75 x 2).
 * A measured period of 0.5 ms asks for 0.375: 2 loaders and 3 checkers,
 * trimmed to the 2 threads beyond one each by what raises T_io least: 2
 * and 2 (T_io 0.415 ms). */
static const char io_table_text[] =
	"stage,pu,mode,mean_ms,stddev_ms,samples\n"
	"a,little,isolated,2,0.1,30\na,big,isolated,2,0.1,30\na,gpu,isolated,2,0.1,30\n"
	"b,little,isolated,2,0.1,30\nb,big,isolated,2,0.1,30\nb,gpu,isolated,2,0.1,30\n"
	"c,little,isolated,2,0.1,30\nc,big,isolated,2,0.1,30\nc,gpu,isolated,2,0.1,30\n"
	"@io_load,io,isolated,0.45,0.01,20\n@io_check,io,isolated,0.83,0.02,20\n";

static void test_io_round_farms(void)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_table *t = btc_table_load("io.csv", io_table_text, app, dev, BTC_MODE_ISOLATED,
					     &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	struct btc_plan_options po;
	btc_plan_options_init(&po);
	po.mode = BTC_MODE_ISOLATED;
	po.io_threads_extra = 2;
	struct btc_plan *plan = btc_plan(app, dev, t, NULL, &po, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
	CU_ASSERT_EQUAL(plan->load_threads, 1);
	CU_ASSERT_EQUAL(plan->check_threads, 1);
	uint32_t kl, kc;
	/* the io (0.83 ms) under 0.75 x 2 ms: nothing to race */
	CU_ASSERT_FALSE(btc_plan_io_round_farms(plan, 0.45, 0.83, 2.0, 2, &kl, &kc));
	CU_ASSERT_TRUE(kl == 1 && kc == 1);
	/* no thread beyond one loader and one checker */
	CU_ASSERT_FALSE(btc_plan_io_round_farms(plan, 0.45, 0.83, 0.5, 0, &kl, &kc));
	/* measured 0.5 ms: 2 and 2 */
	CU_ASSERT_TRUE(btc_plan_io_round_farms(plan, 0.45, 0.83, 0.5, 2, &kl, &kc));
	CU_ASSERT_EQUAL(kl, 2);
	CU_ASSERT_EQUAL(kc, 2);
	/* no check figure */
	CU_ASSERT_FALSE(btc_plan_io_round_farms(plan, 0.45, NAN, 0.5, 2, &kl, &kc));
	/* set: every predicted period is max(T_io, T_max) with T_io = 0.83 / 2 */
	btc_plan_set_io_farms(plan, 2, 2);
	CU_ASSERT_EQUAL(plan->load_threads, 2);
	CU_ASSERT_EQUAL(plan->check_threads, 2);
	for (int i = 0; i < plan->n_schedules; i++) {
		const struct btc_plan_schedule *g = &plan->schedules[i];
		if (g->predicted)
			CU_ASSERT_DOUBLE_EQUAL(g->s.period_ms, fmax(0.415, g->s.tmax_ms), 1e-9);
	}
	/* at the new farms a period of 0.5 ms asks for nothing more */
	CU_ASSERT_FALSE(btc_plan_io_round_farms(plan, 0.45, 0.83, 0.5, 2, &kl, &kc));
	/* one thread fewer: the farm whose loss raises T_io least gives it up
	 * (lease ZG's octree-cuda-g1: load 0.863, check 1.150 ms at 2 and 2;
	 * 1 and 2 gives 0.863, 2 and 1 gives 1.150) */
	CU_ASSERT_TRUE(btc_plan_io_round_fewer(plan, 0.863, 1.150, &kl, &kc));
	CU_ASSERT_TRUE(kl == 1 && kc == 2);
	CU_ASSERT_TRUE(btc_plan_io_round_fewer(plan, 1.2, 0.5, &kl, &kc));
	CU_ASSERT_TRUE(kl == 2 && kc == 1);
	CU_ASSERT_FALSE(btc_plan_io_round_fewer(plan, 0.45, NAN, &kl, &kc));
	CU_ASSERT_TRUE(kl == 2 && kc == 2);
	/* a farm of one thread gives none: 1 and 2 goes to 1 and 1, 1 and 1
	 * has nothing to give */
	btc_plan_set_io_farms(plan, 1, 2);
	CU_ASSERT_TRUE(btc_plan_io_round_fewer(plan, 0.2, 0.9, &kl, &kc));
	CU_ASSERT_TRUE(kl == 1 && kc == 1);
	btc_plan_set_io_farms(plan, 1, 1);
	CU_ASSERT_FALSE(btc_plan_io_round_fewer(plan, 0.45, 0.83, &kl, &kc));
	CU_ASSERT_TRUE(kl == 1 && kc == 1);
	CU_ASSERT_EQUAL(d.errors, 0);
	btc_plan_free(plan);
	btc_table_free(t);
}

/* The plan's io farms are sized for the fastest reading of its schedules
 * in any mode of the table (plan_best_tmax): planned in the interference
 * mode, where every stage takes 2 ms, one loader and one checker would do
 * (0.45 and 0.83 ms under 0.75 x 2); the isolated mode reads every stage
 * at 0.5 ms, so the schedules' best period is 0.5 ms there and the farms
 * are 2 and 2 (lease H200-AD's octree-vulkan-g1: the placed mode read all
 * on Vulkan at 5.5 ms, the isolated mode at 0.57; the tuning ran with one
 * checker, which set the period). */
static const char io_modes_text[] =
	"stage,pu,mode,mean_ms,stddev_ms,samples\n"
	"a,little,isolated,0.5,0.1,30\na,big,isolated,0.5,0.1,30\na,gpu,isolated,0.5,0.1,30\n"
	"b,little,isolated,0.5,0.1,30\nb,big,isolated,0.5,0.1,30\nb,gpu,isolated,0.5,0.1,30\n"
	"c,little,isolated,0.5,0.1,30\nc,big,isolated,0.5,0.1,30\nc,gpu,isolated,0.5,0.1,30\n"
	"a,little,interference,2,0.1,30\na,big,interference,2,0.1,30\na,gpu,interference,2,0.1,30\n"
	"b,little,interference,2,0.1,30\nb,big,interference,2,0.1,30\nb,gpu,interference,2,0.1,30\n"
	"c,little,interference,2,0.1,30\nc,big,interference,2,0.1,30\nc,gpu,interference,2,0.1,30\n"
	"@io_load,io,isolated,0.45,0.01,20\n@io_check,io,isolated,0.83,0.02,20\n"
	"@io_load,io,interference,0.45,0.01,20\n@io_check,io,interference,0.83,0.02,20\n";

static void test_io_farms_fastest_mode(void)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_table *t = btc_table_load("io-modes.csv", io_modes_text, app, dev,
					     BTC_MODE_INTERFERENCE, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	struct btc_plan_options po;
	btc_plan_options_init(&po);
	po.mode = BTC_MODE_INTERFERENCE;
	po.io_threads_extra = 2;
	struct btc_plan *plan = btc_plan(app, dev, t, NULL, &po, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
	double best = INFINITY;
	for (int i = 0; i < plan->n_schedules; i++)
		if (plan->schedules[i].predicted && !plan->schedules[i].space_only)
			best = fmin(best, plan->schedules[i].s.tmax_ms);
	CU_ASSERT_DOUBLE_EQUAL(best, 2.0, 1e-9); /* the planned mode's reading */
	CU_ASSERT_EQUAL(plan->load_threads, 2);
	CU_ASSERT_EQUAL(plan->check_threads, 2);
	CU_ASSERT_EQUAL(d.errors, 0);
	btc_plan_free(plan);
	btc_table_free(t);
}

int register_plan_bound_suite(void)
{
	CU_pSuite s = CU_add_suite("plan-bound", setup, teardown);
	return !s ||
	       !CU_add_test(s, "filtered out by gapness: added once, kind bound",
			    test_filtered_out) ||
	       !CU_add_test(s, "in the space: not added again", test_in_space) ||
	       !CU_add_test(s, "the bound round's schedule: found or appended last",
			    test_add_bound_schedule) ||
	       !CU_add_test(s, "the io farms sized for the fastest mode's reading",
			    test_io_farms_fastest_mode) ||
	       !CU_add_test(s, "the io round's farms for a measured period, and one fewer",
			    test_io_round_farms);
}
