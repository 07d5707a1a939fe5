/* driver/result: a report written and read back field for field (absent
 * values as null, reasons kept), its numbers rounded to 1e-6 where the
 * replay's are not, the schema-3 fields, and schema-1 and schema-2
 * reports still read. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "report/entry.h"
#include "report/limits.h"
#include "report/result.h"
#include "util/infile.h"
#include "util/json.h"
#include "suites.h"
#include "testutil.h"

static char path[] = "/tmp/btc-report-XXXXXX";

static int setup(void)
{
	return btc_test_tmpfile(path) ? 1 : 0;
}

static int cleanup(void)
{
	unlink(path);
	return 0;
}

static void test_roundtrip(void)
{
	struct btc_report r;
	btc_report_init(&r);
	r.app = btc_xstrdup("vecadd");
	r.device = btc_xstrdup("host");
	r.mode = btc_xstrdup("interference");
	r.objective = btc_xstrdup("bt");
	r.gpu = btc_xstrdup("auto");
	r.n_candidates = 2;
	r.candidates = btc_xcalloc(2, sizeof(*r.candidates));
	r.candidates[0] = (struct btc_report_candidate){
		.index = 0, .label = btc_xstrdup("cpu:0-1 vulkan:2"),
		.predicted_ms = {1.5, 2.0}, .measured_ms = 0.25, .tasks = 12, .rounds = 1,
		.status = BTC_RUN_VERIFIED, .runs = 3, .runs_ms = btc_xcalloc(3, sizeof(double))};
	r.candidates[0].runs_ms[0] = 0.25;
	r.candidates[0].runs_ms[1] = 0.5;
	r.candidates[0].runs_ms[2] = 0.125;
	/* the runs by part: run 1 with two chunks and stage 1 not run (chunk
	 * 1's steady mean none), the others none (a run whose report had
	 * none) */
	r.candidates[0].runs_times = btc_xcalloc(3, sizeof(struct btc_run_times));
	struct btc_run_times *t1 = &r.candidates[0].runs_times[1];
	*t1 = (struct btc_run_times){
		.n_chunks = 2, .n_stages = 3, .load_ms = 0.0625, .check_median_ms = 0.03125};
	t1->check_steady_ms = 0.046875;
	t1->chunk_ms = btc_xcalloc(2, sizeof(double));
	t1->chunk_median_ms = btc_xcalloc(2, sizeof(double));
	t1->stage_ms = btc_xcalloc(3, sizeof(double));
	t1->stage_median_ms = btc_xcalloc(3, sizeof(double));
	t1->chunk_steady_ms = btc_xcalloc(2, sizeof(double));
	t1->stage_steady_ms = btc_xcalloc(3, sizeof(double));
	t1->chunk_ms[0] = 0.375, t1->chunk_ms[1] = 0.5;
	t1->chunk_median_ms[0] = 0.25, t1->chunk_median_ms[1] = 0.4375;
	t1->stage_ms[0] = 0.375, t1->stage_ms[1] = NAN, t1->stage_ms[2] = 0.5;
	t1->stage_median_ms[0] = 0.25, t1->stage_median_ms[1] = NAN;
	t1->stage_median_ms[2] = 0.4375;
	t1->chunk_steady_ms[0] = 0.3125, t1->chunk_steady_ms[1] = NAN;
	t1->stage_steady_ms[0] = 0.1875, t1->stage_steady_ms[1] = NAN;
	t1->stage_steady_ms[2] = 0.40625;
	r.candidates[1] = (struct btc_report_candidate){
		.index = 1, .baseline = true, .label = btc_xstrdup("cpu:0-2"), .pu = btc_xstrdup("cpu"),
		.predicted_ms = {3.0, NAN}, .measured_ms = NAN, .rounds = 1,
		.status = BTC_RUN_FAILED, .error = btc_xstrdup("schedule 1 (cpu:0-2): check of task 0 failed")};
	r.chosen = 0;
	r.n_chunks = 2;
	r.chunks = btc_xcalloc(2, sizeof(*r.chunks));
	r.chunks[0] = (struct btc_report_chunk){btc_xstrdup("cpu"), 0, 1};
	r.chunks[1] = (struct btc_report_chunk){btc_xstrdup("vulkan"), 2, 2};
	r.predicted_ms = 2.0;
	r.measured_ms = 0.3;
	r.chosen_verified = true;
	r.n_failed = 1;
	r.best_baseline_null_reason = btc_xstrdup("no baseline verified");
	r.speedup_null_reason = btc_xstrdup("no baseline verified");
	r.phases_s[3] = 1.25;
	r.tune_screened = 7;
	r.tune_cpu_steal = 0.03125;
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	CU_ASSERT_TRUE_FATAL(btc_report_write(&r, path, &d));

	struct btc_report b;
	CU_ASSERT_TRUE_FATAL(btc_report_read(path, &b, &d));
	CU_ASSERT_EQUAL(b.schema_version, BTC_REPORT_SCHEMA);
	CU_ASSERT_STRING_EQUAL(b.app, "vecadd");
	CU_ASSERT_FALSE(b.verified);
	CU_ASSERT_TRUE(b.chosen_verified);
	CU_ASSERT_EQUAL(b.n_failed, 1);
	CU_ASSERT_EQUAL(b.chosen, 0);
	CU_ASSERT_EQUAL(b.n_chunks, 2);
	CU_ASSERT_STRING_EQUAL(b.chunks[1].pu, "vulkan");
	CU_ASSERT_DOUBLE_EQUAL(b.measured_ms, 0.3, 1e-9);
	CU_ASSERT_EQUAL(b.best_baseline, -1);
	CU_ASSERT_TRUE(isnan(b.best_baseline_ms));
	CU_ASSERT_STRING_EQUAL(b.best_baseline_null_reason, "no baseline verified");
	CU_ASSERT_TRUE(isnan(b.speedup));
	CU_ASSERT_STRING_EQUAL(b.speedup_null_reason, "no baseline verified");
	CU_ASSERT_EQUAL_FATAL(b.n_candidates, 2);
	CU_ASSERT_EQUAL(b.candidates[0].status, BTC_RUN_VERIFIED);
	CU_ASSERT_DOUBLE_EQUAL(b.candidates[0].measured_ms, 0.25, 1e-9);
	/* every run's time, in order (an offline replay's input) */
	CU_ASSERT_EQUAL_FATAL(b.candidates[0].runs, 3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b.candidates[0].runs_ms);
	CU_ASSERT_DOUBLE_EQUAL(b.candidates[0].runs_ms[1], 0.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(b.candidates[0].runs_ms[2], 0.125, 1e-12);
	CU_ASSERT_PTR_NULL(b.candidates[1].runs_ms);
	/* the runs by part, one per run, a stage that did not run as NAN */
	CU_ASSERT_PTR_NOT_NULL_FATAL(b.candidates[0].runs_times);
	const struct btc_run_times *b0 = &b.candidates[0].runs_times[0];
	const struct btc_run_times *b1 = &b.candidates[0].runs_times[1];
	CU_ASSERT_EQUAL(b0->n_chunks, 0);
	CU_ASSERT_EQUAL(b0->n_stages, 0);
	CU_ASSERT_EQUAL(b0->load_ms, 0);
	CU_ASSERT_EQUAL_FATAL(b1->n_chunks, 2);
	CU_ASSERT_EQUAL_FATAL(b1->n_stages, 3);
	CU_ASSERT_DOUBLE_EQUAL(b1->chunk_ms[1], 0.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(b1->chunk_median_ms[0], 0.25, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(b1->stage_ms[2], 0.5, 1e-12);
	CU_ASSERT_TRUE(isnan(b1->stage_ms[1]) && isnan(b1->stage_median_ms[1]));
	CU_ASSERT_DOUBLE_EQUAL(b1->stage_median_ms[2], 0.4375, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(b1->load_ms, 0.0625, 1e-12);
	CU_ASSERT_EQUAL(b1->check_ms, 0);
	CU_ASSERT_EQUAL(b1->load_median_ms, 0);
	CU_ASSERT_DOUBLE_EQUAL(b1->check_median_ms, 0.03125, 1e-12);
	/* the steady means, a chunk without one as NAN, io without as 0 */
	CU_ASSERT_DOUBLE_EQUAL(b1->chunk_steady_ms[0], 0.3125, 1e-12);
	CU_ASSERT_TRUE(isnan(b1->chunk_steady_ms[1]));
	CU_ASSERT_DOUBLE_EQUAL(b1->stage_steady_ms[0], 0.1875, 1e-12);
	CU_ASSERT_TRUE(isnan(b1->stage_steady_ms[1]));
	CU_ASSERT_DOUBLE_EQUAL(b1->stage_steady_ms[2], 0.40625, 1e-12);
	CU_ASSERT_EQUAL(b1->load_steady_ms, 0);
	CU_ASSERT_DOUBLE_EQUAL(b1->check_steady_ms, 0.046875, 1e-12);
	/* copied with the entry (a refit carries them through) */
	struct btc_tune_entry e = {.n_runs = 3, .runs_times = b.candidates[0].runs_times};
	struct btc_run_times *cp = btc_tune_entry_times_copy(&e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cp[1].chunk_steady_ms);
	CU_ASSERT_TRUE(cp[1].chunk_steady_ms != b1->chunk_steady_ms);
	CU_ASSERT_DOUBLE_EQUAL(cp[1].chunk_steady_ms[0], 0.3125, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(cp[1].stage_steady_ms[2], 0.40625, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(cp[1].check_steady_ms, 0.046875, 1e-12);
	for (int k = 0; k < 3; k++)
		btc_run_times_free(&cp[k]);
	free(cp);
	CU_ASSERT_PTR_NULL(b.candidates[1].runs_times);
	CU_ASSERT_EQUAL(b.candidates[1].status, BTC_RUN_FAILED);
	CU_ASSERT_TRUE(b.candidates[1].baseline);
	CU_ASSERT_STRING_EQUAL(b.candidates[1].pu, "cpu");
	CU_ASSERT_TRUE(isnan(b.candidates[1].measured_ms));
	CU_ASSERT_TRUE(isnan(b.candidates[1].predicted_ms[1]));
	CU_ASSERT_STRING_EQUAL(b.candidates[1].error, "schedule 1 (cpu:0-2): check of task 0 failed");
	CU_ASSERT_DOUBLE_EQUAL(b.phases_s[3], 1.25, 1e-9);
	CU_ASSERT_EQUAL(b.tune_screened, 7);
	CU_ASSERT_DOUBLE_EQUAL(b.tune_cpu_steal, 0.03125, 1e-12);
	btc_report_free(&b);
	btc_report_free(&r);
}

/* runs_times of a report before the steady means: none (NAN per chunk
 * and stage, io 0); steady means of the wrong count: malformed. */
static void test_runs_times_older(void)
{
	cJSON *a = cJSON_Parse("[{\"chunks_ms\": [0.5, 0.75], \"chunks_median_ms\": [0.25, 0.5], "
			       "\"stages_ms\": [0.5, null], \"stages_median_ms\": [0.25, null], "
			       "\"load_ms\": 0.125, \"check_ms\": 0.0625}]");
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	struct btc_run_times *t = btc_report_read_run_times(a, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL_FATAL(t->n_chunks, 2);
	CU_ASSERT_EQUAL_FATAL(t->n_stages, 2);
	CU_ASSERT_DOUBLE_EQUAL(t->chunk_median_ms[1], 0.5, 1e-12);
	CU_ASSERT_TRUE(isnan(t->chunk_steady_ms[0]) && isnan(t->chunk_steady_ms[1]));
	CU_ASSERT_TRUE(isnan(t->stage_steady_ms[0]) && isnan(t->stage_steady_ms[1]));
	CU_ASSERT_EQUAL(t->load_steady_ms, 0);
	CU_ASSERT_EQUAL(t->check_steady_ms, 0);
	CU_ASSERT_DOUBLE_EQUAL(t->load_ms, 0.125, 1e-12);
	btc_run_times_free(t);
	free(t);
	cJSON_AddItemToObject(cJSON_GetArrayItem(a, 0), "chunks_steady_ms", cJSON_Parse("[0.25]"));
	CU_ASSERT_PTR_NULL(btc_report_read_run_times(a, 1));
	cJSON_Delete(a);
}

/* The fluid bound's fields: written and read back; absent (NAN) written
 * as null and read back as NAN. */
static void test_fluid_bound(void)
{
	struct btc_report r;
	btc_report_init(&r);
	r.app = btc_xstrdup("vecadd");
	r.mode = btc_xstrdup("interference");
	r.n_candidates = 1;
	r.candidates = btc_report_candidates_new(1);
	r.candidates[0].label = btc_xstrdup("cpu:0 gpu:1");
	r.candidates[0].status = BTC_RUN_VERIFIED;
	r.candidates[0].measured_ms = 2.0;
	r.candidates[0].efficiency = 0.75;
	r.fluid_bound_ms = 1.5;
	r.fluid_lp_ms = 1.25;
	r.fluid_io_ms = 1.5;
	r.fluid_model = btc_xstrdup("chunk");
	r.efficiency = 0.75;
	r.efficiency_ci_low = 0.7;
	r.efficiency_ci_high = 0.8;
	r.n_bound_stages = 2;
	r.n_bound_pus = 2;
	r.bound_pus = btc_xcalloc(2, sizeof(*r.bound_pus));
	static const char *const pus[] = {"cpu", "gpu"};
	for (int c = 0; c < 2; c++) {
		r.bound_pus[c] = (struct btc_report_bound_pu){btc_xstrdup(pus[c]), 1.25, 0.5,
							      btc_xcalloc(2, sizeof(double))};
		r.bound_pus[c].frac[c] = 1;
	}
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	CU_ASSERT_TRUE_FATAL(btc_report_write(&r, path, &d));
	struct btc_report b;
	CU_ASSERT_TRUE_FATAL(btc_report_read(path, &b, &d));
	CU_ASSERT_DOUBLE_EQUAL(b.fluid_bound_ms, 1.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(b.fluid_lp_ms, 1.25, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(b.fluid_io_ms, 1.5, 1e-9);
	CU_ASSERT_STRING_EQUAL(b.fluid_model, "chunk");
	CU_ASSERT_DOUBLE_EQUAL(b.efficiency, 0.75, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(b.efficiency_ci_low, 0.7, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(b.efficiency_ci_high, 0.8, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(b.candidates[0].efficiency, 0.75, 1e-9);
	CU_ASSERT_EQUAL_FATAL(b.n_bound_pus, 2);
	CU_ASSERT_EQUAL_FATAL(b.n_bound_stages, 2);
	CU_ASSERT_STRING_EQUAL(b.bound_pus[1].pu, "gpu");
	CU_ASSERT_DOUBLE_EQUAL(b.bound_pus[1].touch, 0.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(b.bound_pus[1].frac[0], 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(b.bound_pus[1].frac[1], 1, 1e-9);
	btc_report_free(&b);
	btc_report_free(&r);

	btc_report_init(&r);
	r.app = btc_xstrdup("vecadd");
	CU_ASSERT_TRUE_FATAL(btc_report_write(&r, path, &d));
	CU_ASSERT_TRUE_FATAL(btc_report_read(path, &b, &d));
	CU_ASSERT_TRUE(isnan(b.fluid_bound_ms));
	CU_ASSERT_TRUE(isnan(b.efficiency));
	CU_ASSERT_TRUE(isnan(b.efficiency_ci_low) && isnan(b.efficiency_ci_high));
	CU_ASSERT_PTR_NULL(b.fluid_model);
	CU_ASSERT_EQUAL(b.n_bound_pus, 0);
	btc_report_free(&b);
	btc_report_free(&r);
}

/* The report's numbers are rounded to 1e-6 (report/json.h), JSON numbers
 * elsewhere are not (util/json.h: the replay's); NaN and infinities are
 * null in both. */
static void test_numbers(void)
{
	struct btc_report r;
	btc_report_init(&r);
	r.app = btc_xstrdup("vecadd");
	r.n_candidates = 1;
	r.candidates = btc_report_candidates_new(1);
	r.candidates[0].label = btc_xstrdup("cpu:0-1");
	r.candidates[0].status = BTC_RUN_VERIFIED;
	r.candidates[0].measured_ms = 1.23456789;
	r.candidates[0].efficiency = INFINITY;
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	CU_ASSERT_TRUE_FATAL(btc_report_write(&r, path, &d));
	struct btc_report b;
	CU_ASSERT_TRUE_FATAL(btc_report_read(path, &b, &d));
	CU_ASSERT_EQUAL(b.candidates[0].measured_ms, 1.234568);
	CU_ASSERT_TRUE(isnan(b.candidates[0].efficiency));
	btc_report_free(&b);
	btc_report_free(&r);

	const double v = 1.0 / 0.95 - 1;
	cJSON *o = cJSON_CreateObject();
	btc_json_add_unrounded(o, "v", v);
	btc_json_add_unrounded(o, "nan", NAN);
	btc_json_add_unrounded(o, "inf", -INFINITY);
	cJSON_AddItemToObject(o, "item", btc_json_unrounded(0.1 + 0.2));
	char *text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	o = cJSON_Parse(text);
	free(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	const cJSON *x = cJSON_GetObjectItem(o, "v");
	CU_ASSERT_TRUE_FATAL(cJSON_IsNumber(x));
	CU_ASSERT_DOUBLE_EQUAL(x->valuedouble, v, 2 * DBL_EPSILON * v);
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItem(o, "item")->valuedouble, 0.3, 1e-15);
	CU_ASSERT_TRUE(cJSON_IsNull(cJSON_GetObjectItem(o, "nan")));
	CU_ASSERT_TRUE(cJSON_IsNull(cJSON_GetObjectItem(o, "inf")));
	cJSON_Delete(o);
}

static void test_schema1(void)
{
	const char *text =
		"{\"app\": \"a\", \"device\": \"host\", \"schedule\": {\"chunks\": [{\"pu\": \"cpu\", "
		"\"first_stage\": 0, \"last_stage\": 2}]}, \"predicted_ms\": 1.0, "
		"\"measured_ms_per_task\": 0.5, \"best_baseline\": {\"pu\": \"cpu\", "
		"\"measured_ms_per_task\": 0.5}, \"speedup_vs_best_baseline\": 1.0, \"verified\": true, "
		"\"candidates\": [{\"index\": 0, \"kind\": \"baseline\", \"label\": \"cpu:0-2\", "
		"\"measured_ms_per_task\": 0.4, \"ok\": true}, {\"index\": 1, \"kind\": \"baseline\", "
		"\"label\": \"vulkan:0-2\", \"measured_ms_per_task\": 0.0, \"ok\": false}]}\n";
	CU_ASSERT_EQUAL_FATAL(btc_test_write_text(path, text), 0);
	struct btc_report b;
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	CU_ASSERT_TRUE_FATAL(btc_report_read(path, &b, &d));
	CU_ASSERT_EQUAL(b.schema_version, 1);
	CU_ASSERT_EQUAL(b.best_baseline, 0);
	CU_ASSERT_DOUBLE_EQUAL(b.speedup, 1.0, 1e-9);
	CU_ASSERT_EQUAL(b.candidates[1].status, BTC_RUN_FAILED);
	CU_ASSERT_TRUE(isnan(b.candidates[1].measured_ms)); /* not 0.000 */
	CU_ASSERT_EQUAL(b.n_failed, 1);
	btc_report_free(&b);
}

/* Schema 3: the medians with their intervals, the head to head, the
 * final run apart and the fit, written and read back. */
static void test_schema3(void)
{
	struct btc_report r;
	btc_report_init(&r);
	r.app = btc_xstrdup("vecadd");
	r.n_candidates = 2;
	r.candidates = btc_report_candidates_new(2);
	r.candidates[0].label = btc_xstrdup("cpu:0-1 vulkan:2");
	r.candidates[0].status = BTC_RUN_VERIFIED;
	r.candidates[0].measured_ms = 1.0;
	r.candidates[0].ci_low_ms = 0.9;
	r.candidates[0].ci_high_ms = 1.2;
	r.candidates[0].runs = 7;
	r.candidates[0].warmup = 4;
	r.candidates[0].calibrated_loo_ms[BTC_MODE_INTERFERENCE] = 1.1;
	r.candidates[0].calibrated_rank = 1;
	r.candidates[1].index = 1;
	r.candidates[1].baseline = true;
	r.candidates[1].label = btc_xstrdup("cpu:0-2");
	r.candidates[1].status = BTC_RUN_VERIFIED;
	r.candidates[1].measured_ms = 1.5;
	r.best_baseline = 1;
	r.seed = 42;
	r.tune_stop = btc_xstrdup("converged");
	r.h2h_candidate = 0;
	r.h2h_rounds = 9;
	r.ratio_median = 0.7;
	r.ratio_ci_low = 0.6;
	r.ratio_ci_high = 0.8;
	r.h2h_decided = true;
	r.h2h_stop = btc_xstrdup("budget");
	r.h2h_precision = 0.1;
	r.speedup = 1 / 0.7;
	r.speedup_ci_low = 1 / 0.8;
	r.speedup_ci_high = 1 / 0.6;
	r.final_ms = 1.3;
	r.final_tasks = 64;
	r.final_warmup = 7; /* the program's: its pool of 7 */
	r.final_warmup_requested = 4;
	r.fit_mode = btc_xstrdup("interference");
	r.n_fit_models = 1;
	r.fit_models = btc_xcalloc(1, sizeof(*r.fit_models));
	r.fit_models[0] = (struct btc_report_fit_model){btc_xstrdup("calibrated interference (LOO)"),
							 btc_xstrdup("interference"), true, 2, 0.9,
							 1.0, 0.05, 0.1, 1, 0.8, 0.9};
	r.n_pu_fits = 1;
	r.pu_fits = btc_xcalloc(1, sizeof(*r.pu_fits));
	r.pu_fits[0] = (struct btc_report_pu_fit){btc_xstrdup("cpu"), 0.25, 1.5, 2};
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	CU_ASSERT_TRUE_FATAL(btc_report_write(&r, path, &d));
	struct btc_report b;
	CU_ASSERT_TRUE_FATAL(btc_report_read(path, &b, &d));
	CU_ASSERT_EQUAL(b.schema_version, 3);
	CU_ASSERT_EQUAL(b.seed, 42);
	CU_ASSERT_STRING_EQUAL(b.tune_stop, "converged");
	CU_ASSERT_DOUBLE_EQUAL(b.candidates[0].ci_low_ms, 0.9, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(b.candidates[0].ci_high_ms, 1.2, 1e-9);
	CU_ASSERT_EQUAL(b.candidates[0].runs, 7);
	CU_ASSERT_EQUAL(b.candidates[0].warmup, 4);
	CU_ASSERT_DOUBLE_EQUAL(b.candidates[0].calibrated_loo_ms[BTC_MODE_INTERFERENCE], 1.1, 1e-9);
	CU_ASSERT_TRUE(isnan(b.candidates[0].calibrated_loo_ms[BTC_MODE_ISOLATED]));
	CU_ASSERT_EQUAL(b.candidates[0].calibrated_rank, 1);
	CU_ASSERT_EQUAL(b.h2h_candidate, 0);
	CU_ASSERT_EQUAL(b.h2h_rounds, 9);
	CU_ASSERT_DOUBLE_EQUAL(b.ratio_ci_high, 0.8, 1e-9);
	CU_ASSERT_TRUE(b.h2h_decided);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b.h2h_stop);
	CU_ASSERT_STRING_EQUAL(b.h2h_stop, "budget");
	CU_ASSERT_DOUBLE_EQUAL(b.h2h_precision, 0.1, 1e-12);
	CU_ASSERT_FALSE(b.no_significant_gain);
	CU_ASSERT_DOUBLE_EQUAL(b.speedup_ci_low, 1.25, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(b.final_ms, 1.3, 1e-9);
	CU_ASSERT_EQUAL(b.final_tasks, 64);
	CU_ASSERT_EQUAL(b.final_warmup, 7);
	CU_ASSERT_EQUAL(b.final_warmup_requested, 4);
	CU_ASSERT_STRING_EQUAL(b.fit_mode, "interference");
	CU_ASSERT_EQUAL_FATAL(b.n_fit_models, 1);
	CU_ASSERT_STRING_EQUAL(b.fit_models[0].name, "calibrated interference (LOO)");
	CU_ASSERT_TRUE(b.fit_models[0].calibrated);
	CU_ASSERT_DOUBLE_EQUAL(b.fit_models[0].spearman_rho, 1.0, 1e-9);
	CU_ASSERT_EQUAL(b.fit_models[0].best_within_5pct, 1);
	CU_ASSERT_EQUAL_FATAL(b.n_pu_fits, 1);
	CU_ASSERT_DOUBLE_EQUAL(b.pu_fits[0].b, 1.5, 1e-9);
	CU_ASSERT_EQUAL(b.pu_fits[0].n_bottleneck, 2);
	btc_report_free(&b);
	btc_report_free(&r);
}

/* Schema 2: one figure per candidate (its last run), no head to head
 * object, no fit. */
static void test_schema2(void)
{
	const char *text =
		"{\"schema_version\": 2, \"app\": \"a\", \"verified\": true, \"candidates\": "
		"[{\"index\": 0, \"kind\": \"candidate\", \"label\": \"cpu:0 vulkan:1-2\", "
		"\"status\": \"verified\", \"predicted_isolated_ms\": 1.0, "
		"\"predicted_interference_ms\": 2.0, \"measured_ms_per_task\": 0.4, \"tasks\": 48, "
		"\"rounds\": 3}]}\n";
	CU_ASSERT_EQUAL_FATAL(btc_test_write_text(path, text), 0);
	struct btc_report b;
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	CU_ASSERT_TRUE_FATAL(btc_report_read(path, &b, &d));
	CU_ASSERT_EQUAL(b.schema_version, 2);
	CU_ASSERT_EQUAL(b.candidates[0].runs, 1);
	CU_ASSERT_DOUBLE_EQUAL(b.candidates[0].predicted_ms[BTC_MODE_INTERFERENCE], 2.0, 1e-9);
	CU_ASSERT_TRUE(isnan(b.candidates[0].ci_low_ms));
	CU_ASSERT_EQUAL(b.h2h_candidate, -1);
	CU_ASSERT_EQUAL(b.n_fit_models, 0);
	CU_ASSERT_TRUE(isnan(b.final_ms));
	CU_ASSERT_EQUAL(b.seed, -1);
	btc_report_free(&b);
}

/* A final run of a report before warmup_requested: its warmup was the one
 * asked (the program's own was not reported), read as both. */
static void test_final_run_warmup(void)
{
	const char *text =
		"{\"schema_version\": 3, \"app\": \"a\", \"verified\": true, \"candidates\": [], "
		"\"final_run\": {\"use\": \"trace only\", \"tasks\": 64, \"warmup\": 4, "
		"\"ms_per_task\": 1.19}}\n";
	CU_ASSERT_EQUAL_FATAL(btc_test_write_text(path, text), 0);
	struct btc_report b;
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	CU_ASSERT_TRUE_FATAL(btc_report_read(path, &b, &d));
	CU_ASSERT_EQUAL(b.final_tasks, 64);
	CU_ASSERT_EQUAL(b.final_warmup, 4);
	CU_ASSERT_EQUAL(b.final_warmup_requested, 4);
	btc_report_free(&b);
}

/* The final run's breakdown: written and read back, its statistic
 * (steady means, else means: a breakdown of earlier btc has none); what
 * set the period (the slowest chunk at least T_io, else the larger io
 * term per thread); none in a report without it. */
static void test_final_breakdown(void)
{
	struct btc_report r;
	btc_report_init(&r);
	r.app = btc_xstrdup("octree");
	r.final_ms = 0.975;
	r.final_tasks = 64;
	r.final_breakdown = (struct btc_report_breakdown){.chunk = 1,
							  .chunk_pu = btc_xstrdup("cpu"),
							  .chunk_ms = 0.853,
							  .io_ms = 0.971,
							  .load_ms = 0.778,
							  .check_ms = 0.971,
							  .load_threads = 1,
							  .check_threads = 1,
							  .steady = true};
	CU_ASSERT_STRING_EQUAL(btc_report_period_set_by(&r.final_breakdown), "io check");
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	CU_ASSERT_TRUE_FATAL(btc_report_write(&r, path, &d));
	struct btc_report b;
	CU_ASSERT_TRUE_FATAL(btc_report_read(path, &b, &d));
	CU_ASSERT_EQUAL(b.final_breakdown.chunk, 1);
	CU_ASSERT_STRING_EQUAL(b.final_breakdown.chunk_pu, "cpu");
	CU_ASSERT_DOUBLE_EQUAL(b.final_breakdown.chunk_ms, 0.853, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(b.final_breakdown.io_ms, 0.971, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(b.final_breakdown.load_ms, 0.778, 1e-9);
	CU_ASSERT_EQUAL(b.final_breakdown.check_threads, 1);
	CU_ASSERT_TRUE(b.final_breakdown.steady);
	CU_ASSERT_STRING_EQUAL(btc_report_period_set_by(&b.final_breakdown), "io check");
	/* two checkers: T_io is the load's, under the chunk */
	b.final_breakdown.check_threads = 2;
	b.final_breakdown.io_ms = 0.778;
	CU_ASSERT_STRING_EQUAL(btc_report_period_set_by(&b.final_breakdown), "chunk");
	b.final_breakdown.chunk_ms = 0.5;
	CU_ASSERT_STRING_EQUAL(btc_report_period_set_by(&b.final_breakdown), "io load");
	btc_report_free(&b);
	r.final_breakdown.steady = false;
	CU_ASSERT_TRUE_FATAL(btc_report_write(&r, path, &d));
	CU_ASSERT_TRUE_FATAL(btc_report_read(path, &b, &d));
	CU_ASSERT_EQUAL(b.final_breakdown.chunk, 1);
	CU_ASSERT_FALSE(b.final_breakdown.steady);
	btc_report_free(&b);
	btc_report_free(&r);
	/* a breakdown of earlier btc, without its statistic: means */
	const char *old =
		"{\"schema_version\": 3, \"app\": \"a\", \"candidates\": [], "
		"\"final_run\": {\"tasks\": 64, \"ms_per_task\": 1.19, \"breakdown\": "
		"{\"slowest_chunk\": 0, \"slowest_chunk_pu\": \"cuda\", \"chunk_ms\": 0.6, "
		"\"io_ms\": 0.5, \"load_ms\": 0.5, \"check_ms\": 0.7, \"load_threads\": 1, "
		"\"check_threads\": 2, \"period_set_by\": \"chunk\"}}}\n";
	CU_ASSERT_EQUAL_FATAL(btc_test_write_text(path, old), 0);
	CU_ASSERT_TRUE_FATAL(btc_report_read(path, &b, &d));
	CU_ASSERT_EQUAL(b.final_breakdown.chunk, 0);
	CU_ASSERT_FALSE(b.final_breakdown.steady);
	CU_ASSERT_STRING_EQUAL(btc_report_period_set_by(&b.final_breakdown), "chunk");
	btc_report_free(&b);
	/* none: a report of earlier btc */
	const char *text = "{\"schema_version\": 3, \"app\": \"a\", \"candidates\": [], "
			   "\"final_run\": {\"tasks\": 64, \"ms_per_task\": 1.19}}\n";
	CU_ASSERT_EQUAL_FATAL(btc_test_write_text(path, text), 0);
	CU_ASSERT_TRUE_FATAL(btc_report_read(path, &b, &d));
	CU_ASSERT_EQUAL(b.final_breakdown.chunk, -1);
	CU_ASSERT_PTR_NULL(btc_report_period_set_by(&b.final_breakdown));
	btc_report_free(&b);
}

/* The regret round's race (regret.paired): written beside the pooled
 * regret and read back; null where none ran, read back as none. */
static void test_regret_paired(void)
{
	struct btc_report r;
	btc_report_init(&r);
	r.app = btc_xstrdup("octree");
	r.n_candidates = 3;
	r.candidates = btc_report_candidates_new(3);
	const double med[] = {0.951, 0.875, 1.6};
	const char *label[] = {"cuda:0-3 cpu:4-6", "cuda:0-5 cpu:6", "cuda:0-6"};
	for (int k = 0; k < 3; k++) {
		r.candidates[k].status = BTC_RUN_VERIFIED;
		r.candidates[k].label = btc_xstrdup(label[k]);
		r.candidates[k].measured_ms = med[k];
		r.candidates[k].ci_low_ms = med[k] * 0.95;
		r.candidates[k].ci_high_ms = med[k] * 1.05;
		r.candidates[k].runs = 6;
	}
	r.chosen = 0;
	r.n_space = 3;
	btc_report_regret(&r);
	CU_ASSERT_EQUAL_FATAL(r.regret_best, 1);
	CU_ASSERT_DOUBLE_EQUAL(r.regret, 0.951 / 0.875 - 1, 1e-9);
	r.regret_paired_best = 1;
	r.regret_paired = (struct btc_report_race){.rounds = 21,
						   .ratio = 0.971,
						   .ratio_lo = 0.864,
						   .ratio_hi = 1.069,
						   .stop = btc_xstrdup("budget")};
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	CU_ASSERT_TRUE_FATAL(btc_report_write(&r, path, &d));
	cJSON *j = btc_read_json(path, NULL, NULL);
	const cJSON *q = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(j, "regret"), "paired");
	CU_ASSERT_STRING_EQUAL(
		cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(q, "best_label")),
		"cuda:0-5 cpu:6");
	CU_ASSERT_TRUE(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(q, "decided")));
	cJSON_Delete(j);
	struct btc_report b;
	CU_ASSERT_TRUE_FATAL(btc_report_read(path, &b, &d));
	CU_ASSERT_EQUAL(b.regret_best, 1);
	CU_ASSERT_EQUAL(b.regret_paired_best, 1);
	CU_ASSERT_EQUAL(b.regret_paired.rounds, 21);
	CU_ASSERT_DOUBLE_EQUAL(b.regret_paired.ratio, 0.971, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(b.regret_paired.ratio_lo, 0.864, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(b.regret_paired.ratio_hi, 1.069, 1e-9);
	CU_ASSERT_FALSE(b.regret_paired.decided);
	CU_ASSERT_STRING_EQUAL(b.regret_paired.stop, "budget");
	btc_report_free(&b);
	/* none ran: null, read back as none */
	free(r.regret_paired.stop);
	r.regret_paired = (struct btc_report_race){.ratio = NAN, .ratio_lo = NAN, .ratio_hi = NAN};
	r.regret_paired_best = -1;
	CU_ASSERT_TRUE_FATAL(btc_report_write(&r, path, &d));
	CU_ASSERT_TRUE_FATAL(btc_report_read(path, &b, &d));
	CU_ASSERT_EQUAL(b.regret_best, 1);
	CU_ASSERT_EQUAL(b.regret_paired_best, -1);
	CU_ASSERT_EQUAL(b.regret_paired.rounds, 0);
	btc_report_free(&b);
	btc_report_free(&r);
}

/* The runs' spread: the median of (ci_high - ci_low) / median over the
 * verified schedules with 3 runs or more and an interval. */
static void test_runs_spread(void)
{
	struct btc_report r;
	btc_report_init(&r);
	r.n_candidates = 5;
	r.candidates = btc_report_candidates_new(5);
	const double lo[] = {0.9, 1.8, 0.5, 0.9, 0.0}, hi[] = {1.1, 2.6, 1.5, 1.3, 9.0},
		     med[] = {1.0, 2.0, 1.0, 1.0, 1.0};
	const int runs[] = {3, 12, 2, 5, 7};
	for (int k = 0; k < 5; k++) {
		r.candidates[k].status = k == 4 ? BTC_RUN_FAILED : BTC_RUN_VERIFIED;
		r.candidates[k].runs = runs[k];
		r.candidates[k].ci_low_ms = lo[k];
		r.candidates[k].ci_high_ms = hi[k];
		r.candidates[k].measured_ms = med[k];
	}
	/* widths 0.2, 0.4 and 0.4; schedule 2 has 2 runs, 4 failed */
	double w[6];
	CU_ASSERT_EQUAL(btc_report_spread_widths(&r, w), 3);
	CU_ASSERT_DOUBLE_EQUAL(w[0], 0.2, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(w[1], 0.4, 1e-12);
	int n = 0;
	CU_ASSERT_DOUBLE_EQUAL(btc_report_runs_spread(&r, &n), 0.4, 1e-12);
	CU_ASSERT_EQUAL(n, 3);
	r.candidates[1].ci_low_ms = NAN; /* no interval */
	CU_ASSERT_DOUBLE_EQUAL(btc_report_runs_spread(&r, &n), 0.3, 1e-12);
	CU_ASSERT_EQUAL(n, 2);
	for (int k = 0; k < 5; k++)
		r.candidates[k].status = BTC_RUN_FAILED;
	CU_ASSERT_TRUE(isnan(btc_report_runs_spread(&r, NULL)));
	btc_report_free(&r);
}

int register_result_suite(void)
{
	CU_pSuite s = CU_add_suite("result", setup, cleanup);
	return !s || !CU_add_test(s, "write and read back", test_roundtrip) ||
	       !CU_add_test(s, "the fluid bound", test_fluid_bound) ||
	       !CU_add_test(s, "numbers: rounded in the report, null for NaN", test_numbers) ||
	       !CU_add_test(s, "schema 1", test_schema1) ||
	       !CU_add_test(s, "schema 3", test_schema3) ||
	       !CU_add_test(s, "schema 2", test_schema2) ||
	       !CU_add_test(s, "final run: warmup_requested absent", test_final_run_warmup) ||
	       !CU_add_test(s, "final run: its breakdown", test_final_breakdown) ||
	       !CU_add_test(s, "regret: the regret round's race", test_regret_paired) ||
	       !CU_add_test(s, "the runs' spread", test_runs_spread) ||
	       !CU_add_test(s, "runs_times before the steady means", test_runs_times_older);
}
