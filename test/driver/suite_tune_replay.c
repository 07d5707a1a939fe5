/* driver/tune-replay: the offline replay of a report's recorded runs under
 * the tuner's rule sets (driver/tune_replay.h). Synthetic reports written
 * here, whose replay has a choice and regret worked out by hand under each
 * rule set; a malformed report and one without runs_ms refused with their
 * error. Nothing is timed: the replay's clock is the recorded runs'. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/tune_replay.h"
#include "suites.h"
#include "testutil.h"

static char path[] = "/tmp/btc-replay-XXXXXX";

static int setup(void)
{
	return btc_test_tmpfile(path) ? 1 : 0;
}

static int cleanup(void)
{
	unlink(path);
	return 0;
}

/* The report at path is text (a hand-written one). */
static void write_text(const char *text)
{
	CU_ASSERT_EQUAL_FATAL(btc_test_write_text(path, text), 0);
}

/* A candidate's JSON: runs_ms are pattern[k % n_pattern] for k < runs. */
static void put_candidate(FILE *f, int index, const char *kind, const char *label, int runs,
			  const double *pattern, int n_pattern, bool last)
{
	fprintf(f,
		"  {\"index\": %d, \"kind\": \"%s\", \"label\": \"%s\", \"status\": \"verified\", "
		"\"tasks\": 24, \"warmup\": 4, \"runs\": %d, \"runs_ms\": [",
		index, kind, label, runs);
	for (int k = 0; k < runs; k++)
		fprintf(f, "%s%.3f", k ? ", " : "", pattern[k % n_pattern]);
	fprintf(f, "]}%s\n", last ? "" : ",");
}

static const struct btc_replay_outcome *outcome(const struct btc_replay *rp, const char *name)
{
	for (int k = 0; k < rp->n_out; k++)
		if (!strcmp(rp->out[k].rules.name, name))
			return &rp->out[k];
	CU_FAIL("rule set not replayed");
	return NULL;
}

/* A candidate whose runs alternate 0.8 and 1.1 ms (median 0.95) against a
 * baseline of 1.0 ms, 60 runs each (30 tuning rounds, 30 head-to-head
 * rounds), and a third schedule that failed. Neither is ever dropped (the
 * candidate's interval [0.8, 1.1] holds the baseline's) nor converged, so
 * the tuning runs all 30 rounds; the head to head's ratios alternate 0.8
 * and 1.1: undecided after 30 rounds, median 0.95. The old rules keep the
 * baseline: regret 1.0 / 0.95 - 1; the new keep the candidate (the point
 * estimate): regret 0. The start-up: phases_s.tune = 60 tuning runs of 1 s
 * start-up + (4 + 24) tasks at their ms. */
static void test_choice_and_regret(void)
{
	const double alt[] = {0.8, 1.1}, one[] = {1.0};
	double busy_s = 30 * 28 * 0.95 / 1000 + 30 * 28 * 1.0 / 1000;
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f,
		"{\"schema_version\": 3, \"app\": \"synthetic\", \"device\": \"host\",\n"
		" \"mode\": \"interference\", \"racing\": true,\n"
		" \"phases_s\": {\"tune\": %.6f},\n"
		" \"tuning\": {\"seed\": 7, \"rounds\": 30, \"budget_s\": 1000},\n"
		" \"schedule\": {\"index\": 1}, \"best_baseline\": {\"index\": 1},\n"
		" \"head_to_head\": {\"candidate\": 0, \"baseline\": 1, \"rounds\": 30},\n"
		" \"candidates\": [\n",
		60 * 1.0 + busy_s);
	put_candidate(f, 0, "candidate", "cpu:0 gpu:1", 60, alt, 2, false);
	put_candidate(f, 1, "baseline", "cpu:0-1", 60, one, 1, false);
	fprintf(f, "  {\"index\": 2, \"kind\": \"candidate\", \"label\": \"gpu:0-1\", "
		   "\"status\": \"failed\", \"runs\": 0, \"error\": \"check of task 0 failed\"}\n"
		   "]}\n");
	fclose(f);

	struct btc_replay_rules rules[BTC_REPLAY_MAX_RULES];
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	CU_ASSERT_EQUAL_FATAL(btc_replay_rules_parse("old,new,screen,point", rules, &d), 4);
	struct btc_replay rp;
	CU_ASSERT_TRUE_FATAL(btc_tune_replay(path, rules, 4, NAN, &rp, &d));
	CU_ASSERT_EQUAL(d.errors, 0);
	CU_ASSERT_EQUAL(rp.best, 0);
	CU_ASSERT_DOUBLE_EQUAL(rp.best_ms, 0.95, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(rp.budget_s, 1000, 0);
	CU_ASSERT_TRUE(rp.startup_measured);
	CU_ASSERT_DOUBLE_EQUAL(rp.startup_s, 1.0, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(rp.recorded_regret, 1.0 / 0.95 - 1, 1e-9);
	CU_ASSERT_EQUAL(rp.n_recorded, 120);
	const char *kept_base[] = {"old", "screen"}, *kept_cand[] = {"new", "point"};
	for (int k = 0; k < 2; k++) {
		const struct btc_replay_outcome *o = outcome(&rp, kept_base[k]);
		CU_ASSERT_EQUAL(o->chosen, 1);
		CU_ASSERT_DOUBLE_EQUAL(o->chosen_ms, 1.0, 1e-9);
		CU_ASSERT_DOUBLE_EQUAL(o->regret, 1.0 / 0.95 - 1, 1e-9);
		CU_ASSERT_FALSE(o->kept_candidate);
		o = outcome(&rp, kept_cand[k]);
		CU_ASSERT_EQUAL(o->chosen, 0);
		CU_ASSERT_DOUBLE_EQUAL(o->regret, 0, 1e-12);
		CU_ASSERT_TRUE(o->kept_candidate);
	}
	for (int k = 0; k < rp.n_out; k++) {
		const struct btc_replay_outcome *o = &rp.out[k];
		CU_ASSERT_EQUAL(o->sum.rounds, 30);
		CU_ASSERT_STRING_EQUAL(o->sum.stop, "max rounds");
		CU_ASSERT_TRUE(o->h2h_ran);
		CU_ASSERT_EQUAL(o->h2h.candidate, 0);
		CU_ASSERT_EQUAL(o->h2h.rounds, 30);
		CU_ASSERT_STRING_EQUAL(o->h2h.stop, "max rounds");
		CU_ASSERT_DOUBLE_EQUAL(o->h2h.ratio_median, 0.95 / 1.0, 1e-9);
		CU_ASSERT_EQUAL(o->runs_served, 120); /* the failed one's run is not served */
		CU_ASSERT_EQUAL(o->runs_resampled, 0);
	}
	cJSON *j = btc_replay_json(&rp, path);
	const cJSON *r0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "rules"), 0);
	CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(r0, "name")->valuestring, "old");
	CU_ASSERT_EQUAL(cJSON_GetObjectItem(cJSON_GetObjectItem(r0, "chosen"), "index")->valueint,
			1);
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItem(r0, "regret")->valuedouble, 1.0 / 0.95 - 1,
			       1e-9);
	cJSON_Delete(j);
	btc_replay_free(&rp);
}

/* Three recorded runs each (0.5 ms, 1.0 ms): the rules ask for 12 of each
 * (6 tuning rounds to exact intervals, then 6 head-to-head rounds to a
 * decided gain), so 9 of each are resampled; both rule sets keep the
 * candidate. No phases_s: the start-up is assumed. */
static void test_resampled(void)
{
	write_text("{\"schema_version\": 3, \"app\": \"synthetic\", \"racing\": true,\n"
		   " \"candidates\": [\n"
		   "  {\"index\": 0, \"kind\": \"candidate\", \"label\": \"gpu:0-1\", "
		   "\"status\": \"verified\", \"tasks\": 24, \"warmup\": 4, \"runs\": 3, "
		   "\"runs_ms\": [0.5, 0.5, 0.5]},\n"
		   "  {\"index\": 1, \"kind\": \"baseline\", \"label\": \"cpu:0-1\", "
		   "\"status\": \"verified\", \"tasks\": 24, \"warmup\": 4, \"runs\": 3, "
		   "\"runs_ms\": [1.0, 1.0, 1.0]}\n"
		   "]}\n");
	struct btc_replay_rules rules[BTC_REPLAY_MAX_RULES];
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	int n = btc_replay_rules_parse(NULL, rules, &d);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	struct btc_replay rp;
	CU_ASSERT_TRUE_FATAL(btc_tune_replay(path, rules, n, NAN, &rp, &d));
	CU_ASSERT_FALSE(rp.startup_measured);
	CU_ASSERT_DOUBLE_EQUAL(rp.startup_s, BTC_REPLAY_STARTUP_S, 0);
	CU_ASSERT_DOUBLE_EQUAL(rp.budget_s, 60, 0);
	for (int k = 0; k < rp.n_out; k++) {
		const struct btc_replay_outcome *o = &rp.out[k];
		CU_ASSERT_EQUAL(o->chosen, 0);
		CU_ASSERT_DOUBLE_EQUAL(o->regret, 0, 1e-12);
		CU_ASSERT_EQUAL(o->sum.rounds, 6);
		CU_ASSERT_STRING_EQUAL(o->sum.stop, "converged");
		CU_ASSERT_EQUAL(o->h2h.rounds, 6);
		CU_ASSERT_TRUE(o->h2h.gain);
		CU_ASSERT_EQUAL(o->runs_served, 24);
		CU_ASSERT_EQUAL(o->runs_resampled, 18);
		CU_ASSERT_EQUAL(o->schedules_resampled, 2);
	}
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	btc_replay_print(&rp, path, f);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "18 of its 24 runs resampled"));
	free(text);
	btc_replay_free(&rp);
}

/* Refused: a report cut short (where cJSON stopped, 1-based: the end
 * of line 2), one without
 * runs_ms, an unknown rule set. */
static void test_refused(void)
{
	struct btc_replay_rules rules[BTC_REPLAY_MAX_RULES];
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	int n = btc_replay_rules_parse(NULL, rules, &d);
	struct btc_replay rp;
	write_text("{\"app\": \"x\",\n \"candidates\": [1,\n");
	CU_ASSERT_FALSE(btc_tune_replay(path, rules, n, NAN, &rp, &d));
	btc_replay_free(&rp);
	char want[256];
	snprintf(want, sizeof(want), "%s:2:19: error: not a btc report (JSON): not valid JSON",
		 path);
	CU_ASSERT_STRING_EQUAL(d.first, want);

	btc_diag_init(&d, NULL);
	write_text(
		"{\"schema_version\": 3, \"app\": \"old\", \"candidates\": [\n"
		"  {\"index\": 0, \"kind\": \"baseline\", \"status\": \"verified\", \"runs\": 4}]}\n");
	CU_ASSERT_FALSE(btc_tune_replay(path, rules, n, NAN, &rp, &d));
	btc_replay_free(&rp);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.first, "schedule 0: no runs_ms for its 4 runs"));
	CU_ASSERT_PTR_NOT_NULL(strstr(d.first, path));

	btc_diag_init(&d, NULL);
	CU_ASSERT_EQUAL(btc_replay_rules_parse("old,fast", rules, &d), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.first, "unknown rule set 'fast'"));
	btc_diag_init(&d, NULL);
	CU_ASSERT_EQUAL(btc_replay_rules_parse("new,new", rules, &d), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.first, "repeated rule set 'new'"));
}

int register_tune_replay_suite(void)
{
	CU_pSuite s = CU_add_suite("tune-replay", setup, cleanup);
	return !s || !CU_add_test(s, "choice and regret per rule set", test_choice_and_regret) ||
	       !CU_add_test(s, "runs resampled past the recorded ones", test_resampled) ||
	       !CU_add_test(s, "malformed reports refused", test_refused);
}
