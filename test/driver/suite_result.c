/* driver/result: a report written and read back field for field (absent
 * values as null, reasons kept), and a schema-1 report still read. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/result.h"
#include "suites.h"

static char path[] = "/tmp/btc-report-XXXXXX";

static int setup(void)
{
	int fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	return 0;
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
		.status = BTC_RUN_VERIFIED};
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
	CU_ASSERT_EQUAL(b.candidates[1].status, BTC_RUN_FAILED);
	CU_ASSERT_TRUE(b.candidates[1].baseline);
	CU_ASSERT_STRING_EQUAL(b.candidates[1].pu, "cpu");
	CU_ASSERT_TRUE(isnan(b.candidates[1].measured_ms));
	CU_ASSERT_TRUE(isnan(b.candidates[1].predicted_ms[1]));
	CU_ASSERT_STRING_EQUAL(b.candidates[1].error, "schedule 1 (cpu:0-2): check of task 0 failed");
	CU_ASSERT_DOUBLE_EQUAL(b.phases_s[3], 1.25, 1e-9);
	btc_report_free(&b);
	btc_report_free(&r);
}

static void test_schema1(void)
{
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("{\"app\": \"a\", \"device\": \"host\", \"schedule\": {\"chunks\": [{\"pu\": \"cpu\", "
	      "\"first_stage\": 0, \"last_stage\": 2}]}, \"predicted_ms\": 1.0, "
	      "\"measured_ms_per_task\": 0.5, \"best_baseline\": {\"pu\": \"cpu\", "
	      "\"measured_ms_per_task\": 0.5}, \"speedup_vs_best_baseline\": 1.0, \"verified\": true, "
	      "\"candidates\": [{\"index\": 0, \"kind\": \"baseline\", \"label\": \"cpu:0-2\", "
	      "\"measured_ms_per_task\": 0.4, \"ok\": true}, {\"index\": 1, \"kind\": \"baseline\", "
	      "\"label\": \"vulkan:0-2\", \"measured_ms_per_task\": 0.0, \"ok\": false}]}\n", f);
	fclose(f);
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

int register_result_suite(void)
{
	CU_pSuite s = CU_add_suite("result", setup, cleanup);
	return !s || !CU_add_test(s, "write and read back", test_roundtrip) ||
	       !CU_add_test(s, "schema 1", test_schema1);
}
