/* The offline replay of a lease's runs under the tuner's rules
 * (driver/tune_replay.h; docs/report.md, "Replaying the tuner's rules"). */
#include "driver/tune_replay.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "driver/tune_loop.h"
#include "report/stats.h"
#include "util/diag.h"
#include "util/json.h"

static const struct btc_replay_rules known_rules[BTC_REPLAY_MAX_RULES] = {
	{"old", false, false},   /* before screening and the point estimate */
	{"new", true, true},     /* btc's defaults */
	{"screen", true, false}, /* screening alone */
	{"point", false, true},  /* the head to head's point estimate alone */
};

int btc_replay_rules_parse(const char *list, struct btc_replay_rules *out, struct btc_diag *d)
{
	if (!list) {
		out[0] = known_rules[0];
		out[1] = known_rules[1];
		return 2;
	}
	int n = 0;
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");
		int k = 0;
		while (k < BTC_REPLAY_MAX_RULES &&
		       (strlen(known_rules[k].name) != len || strncmp(known_rules[k].name, p, len)))
			k++;
		bool repeated = false;
		for (int i = 0; i < n && k < BTC_REPLAY_MAX_RULES; i++)
			repeated |= !strcmp(out[i].name, known_rules[k].name);
		if (k == BTC_REPLAY_MAX_RULES || repeated) {
			btc_error(d, (struct btc_loc){0},
				  "--rules: %s '%.*s' (rule sets: old, new, screen, point)",
				  repeated ? "repeated rule set" : "unknown rule set", (int)len, p);
			return -1;
		}
		out[n++] = known_rules[k];
		p += len;
		if (!*p)
			return n;
	}
}

/* The bench: each schedule's recorded runs in order, then resampled. */
struct replay_bench {
	const struct btc_report *r;
	int *next;        /* [n_candidates] runs served so far */
	bool *resampled;  /* [n_candidates] */
	double startup_s; /* per run */
	double clock_s;
	struct btc_rng rng; /* the resampling */
	int served, n_resampled;
};

static bool replay_run(void *arg, int i, int warmup, int tasks, const char *phase, double *ms,
		       struct btc_run_times *times, char **error)
{
	(void)times; /* a replay serves periods only */
	struct replay_bench *b = arg;
	const struct btc_report_candidate *c = &b->r->candidates[i];
	int k = b->next[i]++;
	if (k < c->runs && c->runs_ms)
		*ms = c->runs_ms[k];
	else if (c->status == BTC_RUN_VERIFIED && c->runs_ms) {
		*ms = c->runs_ms[btc_rng_below(&b->rng, (uint32_t)c->runs)];
		b->n_resampled++;
		b->resampled[i] = true;
	} else {
		*error = btc_xasprintf("schedule %d, %s: %s in the recorded job%s%s", c->index,
				       phase, c->status == BTC_RUN_FAILED ? "failed" : "not run",
				       c->error ? ": " : "", c->error ? c->error : "");
		return false;
	}
	b->served++;
	b->clock_s += b->startup_s + (warmup + tasks) * *ms / 1000;
	return true;
}

static double replay_now(void *arg)
{
	return ((struct replay_bench *)arg)->clock_s;
}

static bool replay_interrupted(void *arg)
{
	(void)arg;
	return false;
}

/* The job's choice under one rule set: btc_tune_rounds, then the head to
 * head of the winner and the best baseline (driver/job.c's
 * phase_head_to_head, without --keep-going's next pair). */
static void replay_one(struct btc_replay *rp, const struct btc_replay_rules *rules,
		       struct btc_replay_outcome *o)
{
	const struct btc_report *r = &rp->report;
	int n = r->n_candidates;
	struct btc_tune_options opt;
	btc_tune_options_init(&opt);
	opt.budget_s = rp->budget_s;
	opt.race = r->racing;
	opt.screen = rules->screen;
	opt.h2h_point = rules->h2h_point;
	opt.warmup = rp->warmup;
	opt.tasks = rp->tasks;
	int mode = -1;
	for (int m = 0; m < BTC_N_MODES && r->mode; m++)
		if (!strcmp(r->mode, btc_mode_name((enum btc_mode)m)))
			mode = m;
	struct btc_tune_entry *e = btc_xcalloc((size_t)n + 1, sizeof(*e));
	for (int i = 0; i < n; i++) {
		double p = mode >= 0 ? r->candidates[i].predicted_ms[mode] : NAN;
		e[i] = (struct btc_tune_entry){.predicted_ms = p > 0 ? p : 0,
					       .median_ms = NAN,
					       .ci_lo_ms = NAN,
					       .ci_hi_ms = NAN,
					       .baseline = r->candidates[i].baseline,
					       .space_only = r->candidates[i].space_only,
					       .finalist = true};
	}
	struct replay_bench b = {.r = r,
				 .next = btc_xcalloc((size_t)n + 1, sizeof(int)),
				 .resampled = btc_xcalloc((size_t)n + 1, sizeof(bool)),
				 .startup_s = rp->startup_s};
	btc_rng_seed(&b.rng, BTC_REPLAY_RESAMPLE_SEED);
	struct btc_tune_bench bench = {replay_run, replay_now, replay_interrupted, &b};
	uint64_t seed = r->seed >= 0 ? (uint64_t)r->seed : 0;
	struct btc_rng rng;
	btc_rng_seed(&rng, seed);
	*o = (struct btc_replay_outcome){
		.rules = *rules, .chosen = -1, .chosen_ms = NAN, .regret = NAN};
	o->sum = (struct btc_tune_summary){.seed = (unsigned)seed, .cpu_steal = NAN};
	btc_tune_rounds(&bench, n, &opt, false, &rng, e, &o->chosen, &o->sum);
	int base = o->chosen >= 0 && e[o->chosen].baseline ? o->chosen : btc_tune_pick(e, n, true);
	if (o->chosen >= 0 && base >= 0 && base != o->chosen) {
		int failed;
		btc_rng_seed(&rng, seed ^ UINT64_C(0x6832680000000000));
		bool ok = btc_tune_h2h_rounds(&bench, &opt, false, e, o->chosen, base, &rng,
					      &o->h2h, &failed);
		free(o->h2h.ratios);
		o->h2h.ratios = NULL;
		o->h2h_ran = ok;
		o->kept_candidate = ok && btc_tune_h2h_keeps_candidate(&o->h2h, &opt);
		if (!ok) /* a schedule that failed in the job fails again: the other stays */
			o->chosen = failed == o->chosen ? base : o->chosen;
		else if (!o->kept_candidate)
			o->chosen = base;
	}
	if (o->chosen >= 0 && r->candidates[o->chosen].runs_ms) {
		o->chosen_ms = btc_stats_median(r->candidates[o->chosen].runs_ms,
						r->candidates[o->chosen].runs);
		o->regret = o->chosen_ms / rp->best_ms - 1;
	}
	o->elapsed_s = b.clock_s;
	o->runs_served = b.served;
	o->runs_resampled = b.n_resampled;
	for (int i = 0; i < n; i++)
		o->schedules_resampled += b.resampled[i];
	btc_tune_entries_clear(e, n);
	free(e);
	free(b.next);
	free(b.resampled);
}

/* Checks that every schedule's recorded runs can be replayed; the best. */
static bool check_runs(struct btc_replay *rp, const char *path, struct btc_diag *d)
{
	const struct btc_report *r = &rp->report;
	struct btc_loc at = {path, 0, 0};
	rp->best = -1;
	rp->best_ms = NAN;
	for (int i = 0; i < r->n_candidates; i++) {
		const struct btc_report_candidate *c = &r->candidates[i];
		if (c->index != i) {
			btc_error(d, at, "candidates[%d] has index %d: not a main job's report", i,
				  c->index);
			return false;
		}
		if (c->runs > 0 && !c->runs_ms) {
			btc_error(d, at,
				  "schedule %d: no runs_ms for its %d runs (a report of btc before "
				  "runs were recorded, schema %d): nothing to replay",
				  i, c->runs, r->schema_version);
			return false;
		}
		for (int k = 0; k < c->runs; k++)
			if (!(c->runs_ms[k] > 0) || !isfinite(c->runs_ms[k])) {
				btc_error(d, at,
					  "schedule %d: runs_ms[%d] is not a positive number of ms",
					  i, k);
				return false;
			}
		rp->n_recorded += c->runs;
		if (c->status != BTC_RUN_VERIFIED || c->runs == 0)
			continue;
		double m = btc_stats_median(c->runs_ms, c->runs);
		if (rp->best < 0 || m < rp->best_ms) {
			rp->best = i;
			rp->best_ms = m;
		}
	}
	if (rp->best < 0) {
		btc_error(d, at, "no verified schedule with recorded runs: nothing to replay");
		return false;
	}
	return true;
}

/* The job's run length and each run's start-up, from the tuning phase. */
static void run_lengths(struct btc_replay *rp)
{
	const struct btc_report *r = &rp->report;
	rp->warmup = 0;
	rp->tasks = 0;
	double busy_s = 0;
	int runs = 0;
	for (int i = 0; i < r->n_candidates; i++) {
		const struct btc_report_candidate *c = &r->candidates[i];
		rp->warmup = c->warmup > rp->warmup ? c->warmup : rp->warmup;
		rp->tasks = c->tasks > rp->tasks ? c->tasks : rp->tasks;
		int tuning = c->runs;
		if (r->h2h_candidate >= 0 && (i == r->h2h_candidate || i == r->best_baseline))
			tuning -= r->h2h_rounds;
		for (int k = 0; k < tuning; k++)
			busy_s += (c->warmup + c->tasks) * c->runs_ms[k] / 1000;
		runs += tuning > 0 ? tuning : 0;
	}
	struct btc_tune_options def;
	btc_tune_options_init(&def);
	rp->warmup = rp->warmup > 0 ? rp->warmup : def.warmup;
	rp->tasks = rp->tasks > 0 ? rp->tasks : def.tasks;
	double tune_s = r->phases_s[3];
	rp->startup_measured = runs > 0 && tune_s > 0;
	rp->startup_s = rp->startup_measured ? fmax(0, tune_s - busy_s) / runs
					     : BTC_REPLAY_STARTUP_S;
}

bool btc_tune_replay(const char *path, const struct btc_replay_rules *rules, int n_rules,
		     double budget_s, struct btc_replay *rp, struct btc_diag *d)
{
	memset(rp, 0, sizeof(*rp));
	if (!btc_report_read(path, &rp->report, d) || !check_runs(rp, path, d))
		return false;
	const struct btc_report *r = &rp->report;
	rp->budget_s = !isnan(budget_s) ? budget_s : r->tune_budget_s > 0 ? r->tune_budget_s : 60;
	run_lengths(rp);
	rp->recorded_ms = rp->recorded_regret = NAN;
	if (r->chosen >= 0 && r->chosen < r->n_candidates && r->candidates[r->chosen].runs > 0) {
		const struct btc_report_candidate *c = &r->candidates[r->chosen];
		rp->recorded_ms = btc_stats_median(c->runs_ms, c->runs);
		rp->recorded_regret = rp->recorded_ms / rp->best_ms - 1;
	}
	for (int k = 0; k < n_rules && k < BTC_REPLAY_MAX_RULES; k++)
		replay_one(rp, &rules[k], &rp->out[rp->n_out++]);
	return true;
}

void btc_replay_free(struct btc_replay *rp)
{
	btc_report_free(&rp->report);
}

/* ---- output ---- */

static const char *label_of(const struct btc_report *r, int i)
{
	return i >= 0 && r->candidates[i].label ? r->candidates[i].label : "?";
}

void btc_replay_print(const struct btc_replay *rp, const char *path, FILE *f)
{
	const struct btc_report *r = &rp->report;
	fprintf(f,
		"replay of %s (%s on %s): %d schedules, %d recorded runs, budget %.0f s, "
		"%d+%d tasks a run, start-up %.2f s a run (%s), racing %s\n",
		path, r->app ? r->app : "?", r->device ? r->device : "?", r->n_candidates,
		rp->n_recorded, rp->budget_s, rp->warmup, rp->tasks, rp->startup_s,
		rp->startup_measured ? "from phases_s.tune" : "assumed: no phases_s.tune",
		r->racing ? "on" : "off");
	fprintf(f, "measured best: schedule %d (%s), recorded median %.6f ms\n", rp->best,
		label_of(r, rp->best), rp->best_ms);
	if (r->chosen >= 0)
		fprintf(f, "recorded job: chose %d (%s), recorded median %.6f ms, regret %.1f %%\n",
			r->chosen, label_of(r, r->chosen), rp->recorded_ms,
			100 * rp->recorded_regret);
	for (int k = 0; k < rp->n_out; k++) {
		const struct btc_replay_outcome *o = &rp->out[k];
		if (o->chosen < 0) {
			fprintf(f, "rules %s: no schedule chosen\n", o->rules.name);
			continue;
		}
		fprintf(f,
			"rules %s: chose %d (%s), recorded median %.6f ms, regret %.1f %%; tuning "
			"%d round%s (%s), %d screened",
			o->rules.name, o->chosen, label_of(r, o->chosen), o->chosen_ms,
			100 * o->regret, o->sum.rounds, o->sum.rounds == 1 ? "" : "s", o->sum.stop,
			o->sum.screened);
		if (o->h2h_ran)
			fprintf(f,
				"; head to head %d / %d: ratio %.3f [%.3f, %.3f] over %d rounds (%s), %s",
				o->h2h.candidate, o->h2h.baseline, o->h2h.ratio_median,
				o->h2h.ratio_lo, o->h2h.ratio_hi, o->h2h.rounds, o->h2h.stop,
				o->kept_candidate ? "kept the candidate" : "kept the baseline");
		fprintf(f, "; %d runs, %.0f s replayed\n", o->runs_served, o->elapsed_s);
		if (o->runs_resampled > 0)
			fprintf(f,
				"  note: %d of its %d runs resampled (seed %#llx): the rules asked "
				"%d schedules for more runs than were recorded\n",
				o->runs_resampled, o->runs_served,
				(unsigned long long)BTC_REPLAY_RESAMPLE_SEED,
				o->schedules_resampled);
	}
}

/* {"index", "label", "median_ms"} of candidate i, or null. */
static void add_schedule(cJSON *o, const char *k, const struct btc_report *r, int i, double ms)
{
	if (i < 0) {
		cJSON_AddNullToObject(o, k);
		return;
	}
	cJSON *s = cJSON_AddObjectToObject(o, k);
	cJSON_AddNumberToObject(s, "index", i);
	cJSON_AddStringToObject(s, "label", label_of(r, i));
	btc_json_add_unrounded(s, "median_ms", ms);
}

cJSON *btc_replay_json(const struct btc_replay *rp, const char *path)
{
	const struct btc_report *r = &rp->report;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "report", path);
	cJSON_AddStringToObject(j, "app", r->app ? r->app : "");
	cJSON_AddStringToObject(j, "device", r->device ? r->device : "");
	cJSON_AddNumberToObject(j, "schedules", r->n_candidates);
	cJSON_AddNumberToObject(j, "recorded_runs", rp->n_recorded);
	btc_json_add_unrounded(j, "budget_s", rp->budget_s);
	cJSON_AddNumberToObject(j, "warmup", rp->warmup);
	cJSON_AddNumberToObject(j, "tasks", rp->tasks);
	btc_json_add_unrounded(j, "startup_s", rp->startup_s);
	cJSON_AddStringToObject(j, "startup_from",
				rp->startup_measured ? "phases_s.tune" : "assumed");
	cJSON_AddBoolToObject(j, "racing", r->racing);
	cJSON_AddNumberToObject(j, "resample_seed", (double)BTC_REPLAY_RESAMPLE_SEED);
	add_schedule(j, "best", r, rp->best, rp->best_ms);
	add_schedule(j, "recorded_choice", r, r->chosen, rp->recorded_ms);
	btc_json_add_unrounded(j, "recorded_regret", rp->recorded_regret);
	cJSON *rules = cJSON_AddArrayToObject(j, "rules");
	for (int k = 0; k < rp->n_out; k++) {
		const struct btc_replay_outcome *o = &rp->out[k];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddItemToArray(rules, x);
		cJSON_AddStringToObject(x, "name", o->rules.name);
		cJSON_AddBoolToObject(x, "screen", o->rules.screen);
		cJSON_AddBoolToObject(x, "h2h_point", o->rules.h2h_point);
		add_schedule(x, "chosen", r, o->chosen, o->chosen_ms);
		btc_json_add_unrounded(x, "regret", o->regret);
		cJSON *t = cJSON_AddObjectToObject(x, "tuning");
		cJSON_AddNumberToObject(t, "rounds", o->sum.rounds);
		cJSON_AddStringToObject(t, "stop", o->sum.stop ? o->sum.stop : "");
		cJSON_AddNumberToObject(t, "screened", o->sum.screened);
		btc_json_add_unrounded(t, "elapsed_s", o->sum.elapsed_s);
		if (o->h2h_ran) {
			cJSON *h = cJSON_AddObjectToObject(x, "head_to_head");
			cJSON_AddNumberToObject(h, "candidate", o->h2h.candidate);
			cJSON_AddNumberToObject(h, "baseline", o->h2h.baseline);
			cJSON_AddNumberToObject(h, "rounds", o->h2h.rounds);
			btc_json_add_unrounded(h, "ratio_median", o->h2h.ratio_median);
			btc_json_add_unrounded(h, "ratio_ci_low", o->h2h.ratio_lo);
			btc_json_add_unrounded(h, "ratio_ci_high", o->h2h.ratio_hi);
			cJSON_AddBoolToObject(h, "decided", o->h2h.decided);
			cJSON_AddStringToObject(h, "stop", o->h2h.stop);
			cJSON_AddBoolToObject(h, "kept_candidate", o->kept_candidate);
		} else {
			cJSON_AddNullToObject(x, "head_to_head");
		}
		btc_json_add_unrounded(x, "elapsed_s", o->elapsed_s);
		cJSON_AddNumberToObject(x, "runs", o->runs_served);
		cJSON_AddNumberToObject(x, "runs_resampled", o->runs_resampled);
		cJSON_AddNumberToObject(x, "schedules_resampled", o->schedules_resampled);
	}
	return j;
}
