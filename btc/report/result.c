/* The main job's report: struct btc_report <-> JSON (cJSON), both
 * directions in one place so that the writer and `btc report` agree on
 * every field. Schema 3; schema 1 (no "schema_version") and 2 still read. */
#include "report/result.h"
#include "report/limits.h"
#include "report/json.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/goals.h"
#include "report/stats.h"
#include "util/fsafe.h"
#include "util/infile.h"
#include "util/out.h"

static const char *const status_names[] = {"not_run", "verified", "failed"};

const char *btc_run_status_name(enum btc_run_status s)
{
	return status_names[s];
}

void btc_report_init(struct btc_report *r)
{
	memset(r, 0, sizeof(*r));
	r->schema_version = BTC_REPORT_SCHEMA;
	r->chosen = r->best_baseline = -1;
	r->predicted_ms = r->measured_ms = r->best_baseline_ms = r->speedup = NAN;
	r->pearson_r_used = NAN;
	for (int m = 0; m < BTC_N_MODES; m++)
		r->pearson_r[m] = NAN;
	r->seed = -1;
	r->tune_budget_s = NAN;
	r->tune_cpu_steal = NAN;
	r->h2h_candidate = -1;
	r->h2h_precision = NAN;
	r->playoff_winner = r->playoff_runner_up = -1;
	r->playoff.ratio = r->playoff.ratio_lo = r->playoff.ratio_hi = NAN;
	r->io_round.ratio = r->io_round.ratio_lo = r->io_round.ratio_hi = NAN;
	r->h2h_first.ratio = r->h2h_first.ratio_lo = r->h2h_first.ratio_hi = NAN;
	r->bound_round_schedule = r->bound_round_winner = -1;
	r->io_round_schedule = -1;
	r->io_round_period_ms = r->io_round_load_ms = r->io_round_check_ms = NAN;
	r->bound_round_bound_ms = r->bound_round_ratio = NAN;
	r->bound_round_ratio_lo = r->bound_round_ratio_hi = NAN;
	r->ratio_median = r->ratio_ci_low = r->ratio_ci_high = NAN;
	r->speedup_ci_low = r->speedup_ci_high = r->final_ms = NAN;
	r->fluid_bound_ms = r->fluid_lp_ms = r->fluid_io_ms = r->efficiency = NAN;
	r->assign_bound_ms = r->assign_mip_ms = r->fluid_efficiency = NAN;
	r->efficiency_ci_low = r->efficiency_ci_high = NAN;
	r->bound_baselines_ms = r->assign_relaxed_ms = NAN;
	r->regret = r->regret_ci_low = r->regret_ci_high = NAN;
	r->regret_best = r->regret_paired_best = -1;
	r->regret_paired.ratio = r->regret_paired.ratio_lo = r->regret_paired.ratio_hi = NAN;
	r->final_switches = r->final_schedule = -1;
	r->final_breakdown = (struct btc_report_breakdown){
		.chunk = -1, .chunk_ms = NAN, .io_ms = NAN, .load_ms = NAN, .check_ms = NAN};
}

int btc_report_spread_widths(const struct btc_report *r, double *w)
{
	int n = 0;
	for (int k = 0; k < r->n_candidates; k++) {
		const struct btc_report_candidate *c = &r->candidates[k];
		if (c->status == BTC_RUN_VERIFIED && c->runs >= 3 && c->measured_ms > 0 &&
		    !isnan(c->ci_low_ms) && !isnan(c->ci_high_ms))
			w[n++] = (c->ci_high_ms - c->ci_low_ms) / c->measured_ms;
	}
	return n;
}

double btc_report_runs_spread(const struct btc_report *r, int *n)
{
	double *w = btc_xcalloc((size_t)r->n_candidates + 1, sizeof(double));
	int m = btc_report_spread_widths(r, w);
	double v = btc_stats_median(w, m);
	free(w);
	if (n)
		*n = m;
	return v;
}

const char *btc_report_period_set_by(const struct btc_report_breakdown *b)
{
	if (b->chunk < 0)
		return NULL;
	if (isnan(b->io_ms) || b->chunk_ms >= b->io_ms)
		return "chunk";
	double load = b->load_threads > 0 ? b->load_ms / b->load_threads : b->load_ms;
	double check = b->check_threads > 0 ? b->check_ms / b->check_threads : b->check_ms;
	return load >= check ? "io load" : "io check";
}

static void candidate_init(struct btc_report_candidate *c)
{
	c->measured_ms = c->ci_low_ms = c->ci_high_ms = c->calibrated_ms = c->efficiency = NAN;
	c->bound_loo_ms = NAN;
	for (int m = 0; m < BTC_N_MODES; m++)
		c->predicted_ms[m] = c->paper_ms[m] = c->calibrated_loo_ms[m] = NAN;
}

struct btc_report_candidate *btc_report_candidates_new(int n)
{
	struct btc_report_candidate *c = btc_xcalloc((size_t)n + 1, sizeof(*c));
	for (int i = 0; i < n; i++)
		candidate_init(&c[i]);
	return c;
}

void btc_report_free(struct btc_report *r)
{
	free(r->failure_diagnosis);
	free(r->playoff_status);
	free(r->playoff.stop);
	free(r->io_round.stop);
	free(r->h2h_first.stop);
	free(r->regret_paired.stop);
	free(r->io_round_status);
	free(r->io_round_idle_pu);
	free(r->io_round_chunk_core_pu);
	free(r->final_breakdown.chunk_pu);
	free(r->bound_round_status);
	free(r->bound_round_mode);
	free(r->app);
	free(r->device);
	free(r->table);
	free(r->mode);
	free(r->objective);
	free(r->gpu);
	for (int c = 0; c < r->n_chunks; c++)
		free(r->chunks[c].pu);
	free(r->chunks);
	free(r->best_baseline_null_reason);
	free(r->speedup_null_reason);
	for (int i = 0; i < r->n_candidates; i++) {
		free(r->candidates[i].label);
		free(r->candidates[i].pu);
		free(r->candidates[i].error);
		free(r->candidates[i].runs_ms);
		for (int k = 0; r->candidates[i].runs_times && k < r->candidates[i].runs; k++)
			btc_run_times_free(&r->candidates[i].runs_times[k]);
		free(r->candidates[i].runs_times);
	}
	free(r->candidates);
	free(r->tune_stop);
	free(r->h2h_stop);
	free(r->fit_mode);
	for (int i = 0; i < r->n_fit_models; i++) {
		free(r->fit_models[i].name);
		free(r->fit_models[i].mode);
	}
	free(r->fit_models);
	for (int i = 0; i < r->n_pu_fits; i++)
		free(r->pu_fits[i].pu);
	free(r->pu_fits);
	free(r->fluid_model);
	free(r->fluid_mode);
	free(r->bound_below_term);
	free(r->bound_below_pu);
	for (int i = 0; i < r->n_bound_pus; i++) {
		free(r->bound_pus[i].pu);
		free(r->bound_pus[i].frac);
	}
	free(r->bound_pus);
	for (int i = 0; i < r->n_assign_pus; i++) {
		free(r->assign_pus[i].pu);
		free(r->assign_pus[i].frac);
	}
	free(r->assign_pus);
	memset(r, 0, sizeof(*r));
}

/* ---- writing ---- */

const char *btc_report_candidate_kind(const struct btc_report_candidate *c)
{
	return c->baseline ? "baseline" : c->bound ? "bound" : "candidate";
}

void btc_run_times_free(struct btc_run_times *t)
{
	free(t->chunk_ms);
	free(t->chunk_median_ms);
	free(t->chunk_steady_ms);
	free(t->stage_ms);
	free(t->stage_median_ms);
	free(t->stage_steady_ms);
	*t = (struct btc_run_times){0};
}

/* An array of ms figures v[n], rounded as every figure of the report;
 * null where NAN (a stage that did not run). */
static cJSON *ms_array(const double *v, int n)
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(a, btc_json_num_item(v[i]));
	return a;
}

/* An io figure of runs_times: null where 0 (none). */
static void io_num(cJSON *o, const char *k, double ms)
{
	btc_json_add_num(o, k, ms > 0 ? ms : NAN);
}

/* runs_times: per run {"chunks_ms", "chunks_median_ms",
 * "chunks_steady_ms", "stages_ms", "stages_median_ms", "stages_steady_ms",
 * "load_ms", "check_ms", "load_median_ms", "check_median_ms",
 * "load_steady_ms", "check_steady_ms"} (docs/report.md). */
static cJSON *run_times_json(const struct btc_run_times *t, int n)
{
	cJSON *a = cJSON_CreateArray();
	for (int k = 0; k < n; k++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "chunks_ms", ms_array(t[k].chunk_ms, t[k].n_chunks));
		cJSON_AddItemToObject(o, "chunks_median_ms",
				      ms_array(t[k].chunk_median_ms, t[k].n_chunks));
		cJSON_AddItemToObject(o, "chunks_steady_ms",
				      ms_array(t[k].chunk_steady_ms, t[k].n_chunks));
		cJSON_AddItemToObject(o, "stages_ms", ms_array(t[k].stage_ms, t[k].n_stages));
		cJSON_AddItemToObject(o, "stages_median_ms",
				      ms_array(t[k].stage_median_ms, t[k].n_stages));
		cJSON_AddItemToObject(o, "stages_steady_ms",
				      ms_array(t[k].stage_steady_ms, t[k].n_stages));
		io_num(o, "load_ms", t[k].load_ms);
		io_num(o, "check_ms", t[k].check_ms);
		io_num(o, "load_median_ms", t[k].load_median_ms);
		io_num(o, "check_median_ms", t[k].check_median_ms);
		io_num(o, "load_steady_ms", t[k].load_steady_ms);
		io_num(o, "check_steady_ms", t[k].check_steady_ms);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* The array v of ms figures (null: NAN) into *out[*n]; false when v is
 * not an array of numbers and nulls. */
static bool ms_read(const cJSON *v, double **out, int *n)
{
	*out = NULL;
	*n = 0;
	if (!cJSON_IsArray(v))
		return false;
	int m = cJSON_GetArraySize(v);
	double *r = btc_xcalloc((size_t)m + 1, sizeof(double));
	for (int i = 0; i < m; i++) {
		const cJSON *x = cJSON_GetArrayItem(v, i);
		if (!cJSON_IsNumber(x) && !cJSON_IsNull(x)) {
			free(r);
			return false;
		}
		r[i] = cJSON_IsNumber(x) ? x->valuedouble : NAN;
	}
	*out = r;
	*n = m;
	return true;
}

/* The figures v of another statistic (the medians, the steady means)
 * beside n means into *out[n]: NAN each where v is absent (reports of
 * 3b262f3 kept the means only, those before 86d659f no steady means);
 * false where v is there but not n figures. */
static bool beside_read(const cJSON *v, double **out, int n)
{
	int m = 0;
	if (v)
		return ms_read(v, out, &m) && m == n;
	*out = btc_xcalloc((size_t)n + 1, sizeof(double));
	for (int i = 0; i < n; i++)
		(*out)[i] = NAN;
	return true;
}

struct btc_run_times *btc_report_read_run_times(const struct cJSON *a, int runs)
{
	if (!cJSON_IsArray(a) || runs <= 0 || cJSON_GetArraySize(a) != runs)
		return NULL;
	struct btc_run_times *t = btc_xcalloc((size_t)runs, sizeof(*t));
	for (int k = 0; k < runs; k++) {
		const cJSON *o = cJSON_GetArrayItem(a, k);
		if (!ms_read(btc_json_get(o, "chunks_ms"), &t[k].chunk_ms, &t[k].n_chunks) ||
		    !ms_read(btc_json_get(o, "stages_ms"), &t[k].stage_ms, &t[k].n_stages) ||
		    !beside_read(btc_json_get(o, "chunks_median_ms"), &t[k].chunk_median_ms,
				 t[k].n_chunks) ||
		    !beside_read(btc_json_get(o, "stages_median_ms"), &t[k].stage_median_ms,
				 t[k].n_stages) ||
		    !beside_read(btc_json_get(o, "chunks_steady_ms"), &t[k].chunk_steady_ms,
				 t[k].n_chunks) ||
		    !beside_read(btc_json_get(o, "stages_steady_ms"), &t[k].stage_steady_ms,
				 t[k].n_stages)) {
			for (int i = 0; i <= k; i++)
				btc_run_times_free(&t[i]);
			free(t);
			return NULL;
		}
		t[k].load_ms = btc_json_positive(o, "load_ms", 0);
		t[k].check_ms = btc_json_positive(o, "check_ms", 0);
		t[k].load_median_ms = btc_json_positive(o, "load_median_ms", 0);
		t[k].check_median_ms = btc_json_positive(o, "check_median_ms", 0);
		t[k].load_steady_ms = btc_json_positive(o, "load_steady_ms", 0);
		t[k].check_steady_ms = btc_json_positive(o, "check_steady_ms", 0);
	}
	return t;
}

static cJSON *candidate_json(const struct btc_report_candidate *c)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "index", c->index);
	cJSON_AddStringToObject(o, "kind", btc_report_candidate_kind(c));
	btc_json_add_str(o, "label", c->label);
	cJSON_AddStringToObject(o, "status", btc_run_status_name(c->status));
	btc_json_add_num(o, "predicted_isolated_ms", c->predicted_ms[BTC_MODE_ISOLATED]);
	btc_json_add_num(o, "predicted_interference_ms", c->predicted_ms[BTC_MODE_INTERFERENCE]);
	cJSON *pm = cJSON_AddObjectToObject(o, "predicted_ms");
	cJSON *pp = cJSON_AddObjectToObject(o, "paper_ms");
	cJSON *lm = cJSON_AddObjectToObject(o, "calibrated_loo_ms");
	for (int m = 0; m < BTC_N_MODES; m++) {
		btc_json_add_num(pm, btc_mode_name((enum btc_mode)m), c->predicted_ms[m]);
		btc_json_add_num(pp, btc_mode_name((enum btc_mode)m), c->paper_ms[m]);
		btc_json_add_num(lm, btc_mode_name((enum btc_mode)m), c->calibrated_loo_ms[m]);
	}
	btc_json_add_num(o, "calibrated_ms", c->calibrated_ms);
	if (c->calibrated_rank > 0)
		cJSON_AddNumberToObject(o, "calibrated_rank", c->calibrated_rank);
	else
		cJSON_AddNullToObject(o, "calibrated_rank");
	btc_json_add_num(o, "measured_ms_per_task", c->measured_ms);
	btc_json_add_num(o, "measured_ci_low_ms", c->ci_low_ms);
	btc_json_add_num(o, "measured_ci_high_ms", c->ci_high_ms);
	cJSON_AddNumberToObject(o, "runs", c->runs);
	if (c->runs_ms) /* every run, for an offline replay of the tuner's rules */
		cJSON_AddItemToObject(o, "runs_ms", cJSON_CreateDoubleArray(c->runs_ms, c->runs));
	if (c->runs_times) /* the same runs by part, for the bound's re-judging */
		cJSON_AddItemToObject(o, "runs_times", run_times_json(c->runs_times, c->runs));
	cJSON_AddNumberToObject(o, "tasks", c->tasks);
	cJSON_AddNumberToObject(o, "warmup", c->warmup);
	cJSON_AddNumberToObject(o, "rounds", c->rounds);
	btc_json_add_num(o, "efficiency", c->efficiency);
	btc_json_add_num(o, "bound_loo_ms", c->bound_loo_ms);
	cJSON_AddBoolToObject(o, "finalist", c->finalist);
	cJSON_AddBoolToObject(o, "space_only", c->space_only);
	cJSON_AddBoolToObject(o, "ok", c->status == BTC_RUN_VERIFIED); /* schema 1 readers */
	if (c->error)
		cJSON_AddStringToObject(o, "error", c->error);
	return o;
}

static void write_fit(cJSON *j, const struct btc_report *r)
{
	cJSON *fit = cJSON_AddObjectToObject(j, "fit");
	btc_json_add_str(fit, "mode", r->fit_mode);
	cJSON *models = cJSON_AddArrayToObject(fit, "models");
	for (int i = 0; i < r->n_fit_models; i++) {
		const struct btc_report_fit_model *m = &r->fit_models[i];
		cJSON *o = cJSON_CreateObject();
		btc_json_add_str(o, "name", m->name);
		btc_json_add_str(o, "mode", m->mode);
		cJSON_AddBoolToObject(o, "calibrated", m->calibrated);
		cJSON_AddNumberToObject(o, "n", m->n);
		btc_json_add_num(o, "pearson_r", m->pearson_r);
		btc_json_add_num(o, "spearman_rho", m->spearman_rho);
		btc_json_add_num(o, "pearson_r_candidates", m->pearson_r_candidates);
		btc_json_add_num(o, "spearman_rho_candidates", m->spearman_rho_candidates);
		btc_json_add_num(o, "median_abs_rel_err", m->median_abs_rel_err);
		btc_json_add_num(o, "max_abs_rel_err", m->max_abs_rel_err);
		if (m->best_within_5pct < 0)
			cJSON_AddNullToObject(o, "best_within_5pct");
		else
			cJSON_AddBoolToObject(o, "best_within_5pct", m->best_within_5pct);
		btc_fit_goals_json_missed(
			o, btc_fit_goals_missed(m->n, m->pearson_r, m->spearman_rho,
						m->median_abs_rel_err, m->max_abs_rel_err,
						m->best_within_5pct));
		cJSON_AddItemToArray(models, o);
	}
	btc_fit_goals_json(fit);
	cJSON *pus = cJSON_AddArrayToObject(fit, "pus");
	for (int i = 0; i < r->n_pu_fits; i++) {
		cJSON *o = cJSON_CreateObject();
		btc_json_add_str(o, "pu", r->pu_fits[i].pu);
		btc_json_add_num(o, "a_ms", r->pu_fits[i].a_ms);
		btc_json_add_num(o, "b", r->pu_fits[i].b);
		cJSON_AddNumberToObject(o, "bottleneck_of", r->pu_fits[i].n_bottleneck);
		cJSON_AddItemToArray(pus, o);
	}
}

/* A head to head's time ratio into o: ratio_median, ratio_ci_low,
 * ratio_ci_high (NAN: null). */
static void add_ratio(cJSON *o, double median, double lo, double hi)
{
	btc_json_add_num(o, "ratio_median", median);
	btc_json_add_num(o, "ratio_ci_low", lo);
	btc_json_add_num(o, "ratio_ci_high", hi);
}

/* An undecided playoff's or rematch's pooled ratio: pooled_ratio_median,
 * pooled_tuning_rounds and pooled_rounds (tuning's + the race's); absent
 * where none was read (ratio 0 or NAN). */
static void add_pooled(cJSON *o, double ratio, int tuning_rounds, int rounds)
{
	if (!(ratio > 0))
		return;
	cJSON_AddNumberToObject(o, "pooled_ratio_median", ratio);
	cJSON_AddNumberToObject(o, "pooled_tuning_rounds", tuning_rounds);
	cJSON_AddNumberToObject(o, "pooled_rounds", tuning_rounds + rounds);
}

/* A race into o: rounds; when raced the ratio, decided and stop; kept. */
static void add_race(cJSON *o, const struct btc_report_race *race)
{
	cJSON_AddNumberToObject(o, "rounds", race->rounds);
	if (race->rounds > 0) {
		add_ratio(o, race->ratio, race->ratio_lo, race->ratio_hi);
		cJSON_AddBoolToObject(o, "decided", race->decided);
		btc_json_add_str(o, "stop", race->stop);
	}
	add_pooled(o, race->pooled_ratio, race->pooled_tuning_rounds, race->rounds);
	cJSON_AddBoolToObject(o, "kept", race->kept);
}

/* The fields schema 3 added: tuning, head to head, final run, fit. */
static void write_schema3(cJSON *j, const struct btc_report *r)
{
	cJSON *t = cJSON_AddObjectToObject(j, "tuning");
	if (r->seed >= 0)
		cJSON_AddNumberToObject(t, "seed", (double)r->seed);
	else
		cJSON_AddNullToObject(t, "seed");
	cJSON_AddNumberToObject(t, "rounds", r->tune_rounds);
	cJSON_AddNumberToObject(t, "screened", r->tune_screened);
	btc_json_add_num(t, "cpu_steal", r->tune_cpu_steal);
	btc_json_add_str(t, "stop", r->tune_stop);
	btc_json_add_num(t, "budget_s", r->tune_budget_s);
	btc_json_add_num(j, "speedup_ci_low", r->speedup_ci_low);
	btc_json_add_num(j, "speedup_ci_high", r->speedup_ci_high);
	cJSON_AddBoolToObject(j, "no_significant_gain", r->no_significant_gain);
	if (r->playoff_status) {
		cJSON *p = cJSON_AddObjectToObject(j, "playoff");
		cJSON_AddStringToObject(p, "status", r->playoff_status);
		cJSON_AddNumberToObject(p, "winner", r->playoff_winner);
		cJSON_AddNumberToObject(p, "runner_up", r->playoff_runner_up);
		add_race(p, &r->playoff);
	}
	if (r->io_round_status) {
		cJSON *o = cJSON_AddObjectToObject(j, "io_round");
		cJSON_AddStringToObject(o, "status", r->io_round_status);
		cJSON_AddNumberToObject(o, "schedule", r->io_round_schedule);
		btc_json_add_num(o, "period_ms", r->io_round_period_ms);
		btc_json_add_num(o, "load_ms", r->io_round_load_ms);
		btc_json_add_num(o, "check_ms", r->io_round_check_ms);
		cJSON_AddStringToObject(o, "statistic",
					r->io_round_steady ? "steady mean" : "mean");
		cJSON_AddNumberToObject(o, "load_threads_from", r->io_round_load_from);
		cJSON_AddNumberToObject(o, "check_threads_from", r->io_round_check_from);
		cJSON_AddNumberToObject(o, "load_threads", r->io_round_load_to);
		cJSON_AddNumberToObject(o, "check_threads", r->io_round_check_to);
		btc_json_add_str(o, "idle_pu", r->io_round_idle_pu);
		btc_json_add_str(o, "chunk_core_pu", r->io_round_chunk_core_pu);
		add_race(o, &r->io_round);
	}
	if (r->bound_round_status) {
		cJSON *b = cJSON_AddObjectToObject(j, "bound_round");
		cJSON_AddStringToObject(b, "status", r->bound_round_status);
		btc_json_add_str(b, "mode", r->bound_round_mode);
		btc_json_add_num(b, "bound_ms", r->bound_round_bound_ms);
		btc_json_add_num(b, "schedule",
				 r->bound_round_schedule >= 0 ? r->bound_round_schedule : NAN);
		if (r->bound_round_rounds > 0) {
			cJSON_AddNumberToObject(b, "winner", r->bound_round_winner);
			cJSON_AddNumberToObject(b, "rounds", r->bound_round_rounds);
			add_ratio(b, r->bound_round_ratio, r->bound_round_ratio_lo,
				  r->bound_round_ratio_hi);
			add_pooled(b, r->bound_round_pooled_ratio,
				   r->bound_round_pooled_tuning_rounds, r->bound_round_rounds);
			cJSON_AddBoolToObject(b, "kept", r->bound_round_kept);
		}
	}
	if (r->h2h_candidate >= 0) {
		cJSON *h = cJSON_AddObjectToObject(j, "head_to_head");
		cJSON_AddNumberToObject(h, "candidate", r->h2h_candidate);
		if (r->best_baseline >= 0)
			cJSON_AddNumberToObject(h, "baseline",
						r->candidates[r->best_baseline].index);
		cJSON_AddNumberToObject(h, "rounds", r->h2h_rounds);
		add_ratio(h, r->ratio_median, r->ratio_ci_low, r->ratio_ci_high);
		cJSON_AddBoolToObject(h, "decided", r->h2h_decided);
		btc_json_add_str(h, "stop", r->h2h_stop);
		btc_json_add_num(h, "speedup_precision", r->h2h_precision);
		cJSON_AddStringToObject(h, "verdict",
					r->no_significant_gain ? "no significant gain"
							       : "significant gain");
		if (r->h2h_first.rounds > 0)
			add_race(cJSON_AddObjectToObject(h, "first_race"), &r->h2h_first);
	} else {
		cJSON_AddNullToObject(j, "head_to_head");
	}
	if (!isnan(r->final_ms)) {
		cJSON *f = cJSON_AddObjectToObject(j, "final_run");
		cJSON_AddStringToObject(f, "use", "trace only");
		cJSON_AddNumberToObject(f, "tasks", r->final_tasks);
		cJSON_AddNumberToObject(f, "warmup", r->final_warmup);
		cJSON_AddNumberToObject(f, "warmup_requested", r->final_warmup_requested);
		btc_json_add_num(f, "ms_per_task", r->final_ms);
		cJSON_AddBoolToObject(f, "adaptive", r->final_switches >= 0);
		if (r->final_switches >= 0) {
			cJSON_AddNumberToObject(f, "switches", r->final_switches);
			cJSON_AddNumberToObject(f, "final_schedule", r->final_schedule);
		}
		const struct btc_report_breakdown *b = &r->final_breakdown;
		if (b->chunk >= 0) {
			cJSON *o = cJSON_AddObjectToObject(f, "breakdown");
			cJSON_AddNumberToObject(o, "slowest_chunk", b->chunk);
			cJSON_AddStringToObject(o, "slowest_chunk_pu",
						b->chunk_pu ? b->chunk_pu : "");
			btc_json_add_num(o, "chunk_ms", b->chunk_ms);
			btc_json_add_num(o, "io_ms", b->io_ms);
			btc_json_add_num(o, "load_ms", b->load_ms);
			btc_json_add_num(o, "check_ms", b->check_ms);
			cJSON_AddNumberToObject(o, "load_threads", b->load_threads);
			cJSON_AddNumberToObject(o, "check_threads", b->check_threads);
			cJSON_AddStringToObject(o, "statistic", b->steady ? "steady mean" : "mean");
			cJSON_AddStringToObject(o, "period_set_by", btc_report_period_set_by(b));
		}
	} else {
		cJSON_AddNullToObject(j, "final_run");
	}
	write_fit(j, r);
}

bool btc_report_write(const struct btc_report *r, const char *path, struct btc_diag *d)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "schema_version", r->schema_version);
	btc_json_add_str(j, "app", r->app);
	btc_json_add_str(j, "device", r->device);
	btc_json_add_str(j, "mode", r->mode);
	btc_json_add_str(j, "objective", r->objective);
	btc_json_add_str(j, "gpu", r->gpu);
	if (r->table)
		cJSON_AddStringToObject(j, "table", r->table);
	cJSON_AddBoolToObject(j, "verified", r->verified);
	cJSON_AddBoolToObject(j, "chosen_verified", r->chosen_verified);
	cJSON_AddNumberToObject(j, "failed_schedules", r->n_failed);
	if (r->failure_diagnosis)
		cJSON_AddStringToObject(j, "failure_diagnosis", r->failure_diagnosis);
	if (r->chosen >= 0) {
		cJSON *s = cJSON_AddObjectToObject(j, "schedule");
		cJSON_AddNumberToObject(s, "index", r->candidates[r->chosen].index);
		btc_json_add_str(s, "label", r->candidates[r->chosen].label);
		cJSON *chunks = cJSON_AddArrayToObject(s, "chunks");
		for (int c = 0; c < r->n_chunks; c++) {
			cJSON *o = cJSON_CreateObject();
			btc_json_add_str(o, "pu", r->chunks[c].pu);
			cJSON_AddNumberToObject(o, "first_stage", r->chunks[c].first_stage);
			cJSON_AddNumberToObject(o, "last_stage", r->chunks[c].last_stage);
			cJSON_AddItemToArray(chunks, o);
		}
	} else {
		cJSON_AddNullToObject(j, "schedule");
	}
	btc_json_add_num(j, "predicted_ms", r->predicted_ms);
	btc_json_add_num(j, "measured_ms_per_task", r->measured_ms);
	cJSON *bases = cJSON_AddArrayToObject(j, "baselines");
	for (int i = 0; i < r->n_candidates; i++) {
		const struct btc_report_candidate *c = &r->candidates[i];
		if (!c->baseline)
			continue;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "index", c->index);
		btc_json_add_str(o, "pu", c->pu);
		cJSON_AddStringToObject(o, "status", btc_run_status_name(c->status));
		btc_json_add_num(o, "measured_ms_per_task", c->measured_ms);
		cJSON_AddItemToArray(bases, o);
	}
	if (r->best_baseline >= 0) {
		const struct btc_report_candidate *b = &r->candidates[r->best_baseline];
		cJSON *o = cJSON_AddObjectToObject(j, "best_baseline");
		cJSON_AddNumberToObject(o, "index", b->index);
		btc_json_add_str(o, "pu", b->pu);
		btc_json_add_num(o, "measured_ms_per_task", r->best_baseline_ms);
	} else {
		cJSON_AddNullToObject(j, "best_baseline");
		btc_json_add_str(j, "best_baseline_null_reason", r->best_baseline_null_reason);
	}
	btc_json_add_num(j, "speedup_vs_best_baseline", r->speedup);
	if (isnan(r->speedup))
		btc_json_add_str(j, "speedup_null_reason", r->speedup_null_reason);
	btc_json_add_num(j, "pearson_r", r->pearson_r_used);
	btc_json_add_num(j, "pearson_r_isolated", r->pearson_r[BTC_MODE_ISOLATED]);
	btc_json_add_num(j, "pearson_r_interference", r->pearson_r[BTC_MODE_INTERFERENCE]);
	btc_json_add_num(j, "pearson_r_placed", r->pearson_r[BTC_MODE_PLACED]);
	cJSON_AddBoolToObject(j, "racing", r->racing);
	write_schema3(j, r);
	btc_report_limits_to_json(j, r);
	static const char *const phase_names[5] = {"profile", "schedule", "build", "tune", "run"};
	cJSON *ph = cJSON_AddObjectToObject(j, "phases_s");
	for (int p = 0; p < 5; p++)
		cJSON_AddNumberToObject(ph, phase_names[p], round(r->phases_s[p] * 1000) / 1000);
	cJSON *cands = cJSON_AddArrayToObject(j, "candidates");
	for (int i = 0; i < r->n_candidates; i++)
		cJSON_AddItemToArray(cands, candidate_json(&r->candidates[i]));

	return btc_write_json(path, j, BTC_WRITE_KEEP_SAME, d);
}

/* ---- reading ---- */

static void read_candidate(const cJSON *c, int schema, struct btc_report_candidate *rc)
{
	rc->index = (int)btc_json_num(c, "index");
	char *kind = btc_json_str(c, "kind");
	rc->baseline = kind && !strcmp(kind, "baseline");
	rc->bound = kind && !strcmp(kind, "bound");
	free(kind);
	rc->label = btc_json_str(c, "label");
	if (rc->baseline && rc->label) { /* a baseline's label is "PU:0-N" */
		rc->pu = btc_xstrdup(rc->label);
		rc->pu[strcspn(rc->pu, ":")] = '\0';
	}
	for (int m = 0; m < BTC_N_MODES; m++) {
		char key[64];
		snprintf(key, sizeof(key), "predicted_%s_ms", btc_mode_name((enum btc_mode)m));
		rc->predicted_ms[m] = btc_json_num(c, key);
		snprintf(key, sizeof(key), "paper_%s_ms", btc_mode_name((enum btc_mode)m));
		rc->paper_ms[m] = btc_json_num(c, key);
	}
	rc->measured_ms = btc_json_num(c, "measured_ms_per_task");
	rc->tasks = (int)fmax(0, btc_json_num(c, "tasks"));
	rc->rounds = (int)fmax(0, btc_json_num(c, "rounds"));
	rc->ci_low_ms = btc_json_num(c, "measured_ci_low_ms");
	rc->ci_high_ms = btc_json_num(c, "measured_ci_high_ms");
	rc->runs = (int)fmax(0, btc_json_num(c, "runs"));
	const cJSON *rm = btc_json_get(c, "runs_ms");
	if (cJSON_IsArray(rm) && cJSON_GetArraySize(rm) == rc->runs && rc->runs > 0) {
		rc->runs_ms = btc_xcalloc((size_t)rc->runs, sizeof(double));
		for (int k = 0; k < rc->runs; k++)
			rc->runs_ms[k] = cJSON_GetArrayItem(rm, k)->valuedouble;
	}
	rc->runs_times = btc_report_read_run_times(btc_json_get(c, "runs_times"), rc->runs);
	rc->warmup = (int)fmax(0, btc_json_num(c, "warmup"));
	rc->finalist = cJSON_IsTrue(btc_json_get(c, "finalist"));
	rc->space_only = cJSON_IsTrue(btc_json_get(c, "space_only"));
	const cJSON *pm = btc_json_get(c, "predicted_ms"),
		    *lm = btc_json_get(c, "calibrated_loo_ms");
	const cJSON *pp = btc_json_get(c, "paper_ms");
	for (int m = 0; m < BTC_N_MODES; m++) {
		const char *name = btc_mode_name((enum btc_mode)m);
		if (cJSON_IsObject(pm))
			rc->predicted_ms[m] = btc_json_num(pm, name);
		if (cJSON_IsObject(pp))
			rc->paper_ms[m] = btc_json_num(pp, name);
		rc->calibrated_loo_ms[m] = btc_json_num(lm, name);
	}
	rc->calibrated_ms = btc_json_num(c, "calibrated_ms");
	rc->calibrated_rank = (int)fmax(0, btc_json_num(c, "calibrated_rank"));
	rc->efficiency = btc_json_num(c, "efficiency");
	rc->bound_loo_ms = btc_json_num(c, "bound_loo_ms");

	rc->error = btc_json_str(c, "error");
	char *status = btc_json_str(c, "status");
	rc->status = BTC_RUN_NOT_RUN;
	for (int s = 0; status && s < 3; s++)
		if (!strcmp(status, status_names[s]))
			rc->status = (enum btc_run_status)s;
	if (schema < 2) /* "ok": true or false, 0.0 ms for a failed one */
		rc->status = cJSON_IsTrue(btc_json_get(c, "ok")) ? BTC_RUN_VERIFIED
								 : BTC_RUN_FAILED;
	if (rc->status != BTC_RUN_VERIFIED && schema < 2)
		rc->measured_ms = NAN;
	if (schema < 3 && rc->status == BTC_RUN_VERIFIED)
		rc->runs = 1; /* one figure: its last tuning run */
	free(status);
}

static void read_schema3(const cJSON *j, struct btc_report *r)
{
	const cJSON *t = btc_json_get(j, "tuning");
	double seed = btc_json_num(t, "seed");
	r->seed = isnan(seed) ? -1 : (long long)seed;
	r->tune_rounds = (int)fmax(0, btc_json_num(t, "rounds"));
	r->tune_screened = (int)fmax(0, btc_json_num(t, "screened")); /* absent: 0 */
	r->tune_cpu_steal = btc_json_num(t, "cpu_steal");
	r->tune_stop = btc_json_str(t, "stop");
	r->tune_budget_s = btc_json_num(t, "budget_s");
	r->speedup_ci_low = btc_json_num(j, "speedup_ci_low");
	r->speedup_ci_high = btc_json_num(j, "speedup_ci_high");
	r->no_significant_gain = cJSON_IsTrue(btc_json_get(j, "no_significant_gain"));
	const cJSON *h = btc_json_get(j, "head_to_head");
	if (cJSON_IsObject(h)) {
		r->h2h_candidate = (int)btc_json_num(h, "candidate");
		r->h2h_rounds = (int)fmax(0, btc_json_num(h, "rounds"));
		r->ratio_median = btc_json_num(h, "ratio_median");
		r->ratio_ci_low = btc_json_num(h, "ratio_ci_low");
		r->ratio_ci_high = btc_json_num(h, "ratio_ci_high");
		r->h2h_decided = cJSON_IsTrue(btc_json_get(h, "decided"));
		r->h2h_stop = btc_json_str(h, "stop");
		r->h2h_precision = btc_json_num(h, "speedup_precision");
	}
	const cJSON *f = btc_json_get(j, "final_run");
	r->final_ms = btc_json_num(f, "ms_per_task");
	r->final_tasks = (int)fmax(0, btc_json_num(f, "tasks"));
	r->final_warmup = (int)fmax(0, btc_json_num(f, "warmup"));
	/* absent before: warmup was the one asked */
	double wr = btc_json_num(f, "warmup_requested");
	r->final_warmup_requested = isnan(wr) ? r->final_warmup : (int)fmax(0, wr);
	if (cJSON_IsTrue(btc_json_get(f, "adaptive"))) {
		r->final_switches = (int)fmax(0, btc_json_num(f, "switches"));
		r->final_schedule = (int)btc_json_num(f, "final_schedule");
	}
	const cJSON *bd = btc_json_get(f, "breakdown");
	double sc = btc_json_num(bd, "slowest_chunk");
	if (!isnan(sc) && sc >= 0) {
		struct btc_report_breakdown *b = &r->final_breakdown;
		b->chunk = (int)sc;
		b->chunk_pu = btc_json_str(bd, "slowest_chunk_pu");
		b->chunk_ms = btc_json_num(bd, "chunk_ms");
		b->io_ms = btc_json_num(bd, "io_ms");
		b->load_ms = btc_json_num(bd, "load_ms");
		b->check_ms = btc_json_num(bd, "check_ms");
		b->load_threads = (int)fmax(0, btc_json_num(bd, "load_threads"));
		b->check_threads = (int)fmax(0, btc_json_num(bd, "check_threads"));
		const char *stat = cJSON_GetStringValue(btc_json_get(bd, "statistic"));
		b->steady = stat && !strcmp(stat, "steady mean"); /* none: earlier btc, means */
	}
	const cJSON *fit = btc_json_get(j, "fit"), *c;
	r->fit_mode = btc_json_str(fit, "mode");
	const cJSON *models = btc_json_get(fit, "models"), *pus = btc_json_get(fit, "pus");
	r->fit_models = btc_xcalloc((size_t)cJSON_GetArraySize(models) + 1, sizeof(*r->fit_models));
	cJSON_ArrayForEach (c, models) {
		struct btc_report_fit_model *m = &r->fit_models[r->n_fit_models++];
		m->name = btc_json_str(c, "name");
		m->mode = btc_json_str(c, "mode");
		m->calibrated = cJSON_IsTrue(btc_json_get(c, "calibrated"));
		m->n = (int)fmax(0, btc_json_num(c, "n"));
		m->pearson_r = btc_json_num(c, "pearson_r");
		m->spearman_rho = btc_json_num(c, "spearman_rho");
		m->pearson_r_candidates = btc_json_num(c, "pearson_r_candidates");
		m->spearman_rho_candidates = btc_json_num(c, "spearman_rho_candidates");
		m->median_abs_rel_err = btc_json_num(c, "median_abs_rel_err");
		m->max_abs_rel_err = btc_json_num(c, "max_abs_rel_err");
		const cJSON *b = btc_json_get(c, "best_within_5pct");
		m->best_within_5pct = cJSON_IsBool(b) ? cJSON_IsTrue(b) : -1;
	}
	r->pu_fits = btc_xcalloc((size_t)cJSON_GetArraySize(pus) + 1, sizeof(*r->pu_fits));
	cJSON_ArrayForEach (c, pus) {
		struct btc_report_pu_fit *p = &r->pu_fits[r->n_pu_fits++];
		p->pu = btc_json_str(c, "pu");
		p->a_ms = btc_json_num(c, "a_ms");
		p->b = btc_json_num(c, "b");
		p->n_bottleneck = (int)fmax(0, btc_json_num(c, "bottleneck_of"));
	}
}

bool btc_report_read(const char *path, struct btc_report *r, struct btc_diag *d)
{
	btc_report_init(r);
	cJSON *j = btc_read_json(path, "not a btc report (JSON)", d);
	if (!j)
		return false;
	if (!cJSON_IsObject(j) || !cJSON_IsString(btc_json_get(j, "app"))) {
		btc_error(d, (struct btc_loc){path, 0, 0}, "not a btc report (JSON)");
		cJSON_Delete(j);
		return false;
	}
	double schema = btc_json_num(j, "schema_version");
	r->schema_version = isnan(schema) ? 1 : (int)schema;
	r->app = btc_json_str(j, "app");
	r->device = btc_json_str(j, "device");
	r->table = btc_json_str(j, "table");
	r->mode = btc_json_str(j, "mode");
	r->objective = btc_json_str(j, "objective");
	r->gpu = btc_json_str(j, "gpu");
	r->verified = cJSON_IsTrue(btc_json_get(j, "verified"));
	r->predicted_ms = btc_json_num(j, "predicted_ms");
	r->failure_diagnosis = btc_json_str(j, "failure_diagnosis");
	r->measured_ms = btc_json_num(j, "measured_ms_per_task");
	r->speedup = btc_json_num(j, "speedup_vs_best_baseline");
	r->speedup_null_reason = btc_json_str(j, "speedup_null_reason");
	r->best_baseline_null_reason = btc_json_str(j, "best_baseline_null_reason");
	r->pearson_r_used = btc_json_num(j, "pearson_r");
	r->pearson_r[BTC_MODE_ISOLATED] = btc_json_num(j, "pearson_r_isolated");
	r->pearson_r[BTC_MODE_INTERFERENCE] = btc_json_num(j, "pearson_r_interference");
	r->pearson_r[BTC_MODE_PLACED] = btc_json_num(j, "pearson_r_placed");
	r->racing = cJSON_IsTrue(btc_json_get(j, "racing"));
	static const char *const phase_names[5] = {"profile", "schedule", "build", "tune", "run"};
	for (int p = 0; p < 5; p++)
		r->phases_s[p] = btc_json_num(btc_json_get(j, "phases_s"), phase_names[p]);

	const cJSON *cands = btc_json_get(j, "candidates"), *c;
	r->candidates = btc_report_candidates_new(cJSON_GetArraySize(cands));
	cJSON_ArrayForEach (c, cands)
		read_candidate(c, r->schema_version, &r->candidates[r->n_candidates++]);
	for (int i = 0; i < r->n_candidates; i++)
		r->n_failed += r->candidates[i].status == BTC_RUN_FAILED;

	const cJSON *sched = btc_json_get(j, "schedule"), *chunks = btc_json_get(sched, "chunks");
	r->chunks = btc_xcalloc((size_t)cJSON_GetArraySize(chunks) + 1, sizeof(*r->chunks));
	cJSON_ArrayForEach (c, chunks) {
		struct btc_report_chunk *ch = &r->chunks[r->n_chunks++];
		ch->pu = btc_json_str(c, "pu");
		ch->first_stage = (int)btc_json_num(c, "first_stage");
		ch->last_stage = (int)btc_json_num(c, "last_stage");
	}
	/* The chosen and the best baseline as candidate indices: by index in
	 * schema 2; schema 1 names the best baseline by PU and the chosen one
	 * by its chunks only (r->chunks). */
	double chosen = btc_json_num(sched, "index");
	const cJSON *bb = btc_json_get(j, "best_baseline");
	double best = btc_json_num(bb, "index");
	char *best_pu = btc_json_str(bb, "pu");
	for (int i = 0; i < r->n_candidates; i++) {
		const struct btc_report_candidate *rc = &r->candidates[i];
		if (!isnan(chosen) && rc->index == (int)chosen)
			r->chosen = i;
		if (!isnan(best) ? rc->index == (int)best
				 : best_pu && rc->baseline && rc->pu && !strcmp(rc->pu, best_pu))
			r->best_baseline = i;
	}
	free(best_pu);
	r->best_baseline_ms = btc_json_num(bb, "measured_ms_per_task");
	if (r->schema_version < 2 && !cJSON_IsObject(bb)) {
		/* Early schema 1: no head to head; the fastest tuned baseline. */
		for (int i = 0; i < r->n_candidates; i++) {
			const struct btc_report_candidate *rc = &r->candidates[i];
			if (rc->baseline && rc->status == BTC_RUN_VERIFIED &&
			    (r->best_baseline < 0 ||
			     rc->measured_ms < r->candidates[r->best_baseline].measured_ms))
				r->best_baseline = i;
		}
		if (r->best_baseline >= 0)
			r->best_baseline_ms = r->candidates[r->best_baseline].measured_ms;
	}
	read_schema3(j, r);
	btc_report_limits_from_json(j, r);
	if (r->schema_version < 2) {
		r->chosen_verified = r->verified;
	} else {
		r->chosen_verified = cJSON_IsTrue(btc_json_get(j, "chosen_verified"));
	}
	cJSON_Delete(j);
	return true;
}
